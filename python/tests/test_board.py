"""Board, Move, FEN and notation."""

import copy
import random

import pytest

import chariot
from chariot import Board, Move
from conftest import random_game


def test_start_position():
    b = Board()
    assert b.fen() == chariot.START_FEN
    assert b.turn == chariot.Color.RED
    assert len(b.legal_moves()) == 44
    assert b.count_legal_moves() == 44
    assert len(b) == 32
    assert not b.is_check()
    assert b.outcome() is None
    assert ("e0", "K") in list(b)
    assert b.piece_at("e0") == "K" and b.piece_at(4) == "K" and b.piece_at("e5") is None
    assert "a b c d e f g h i" in str(b)
    assert repr(b) == f"Board('{chariot.START_FEN}')"


def test_push_pop_and_stack():
    b = Board()
    b.push("h2e2")
    b.push(Move("h9g7"))
    b.push("马二进三")
    b.push("C2.3")
    assert [str(m) for m in b.move_stack] == ["h2e2", "h9g7", "h0g2", "b7c7"]
    assert b.peek() == Move("b7c7")
    assert b.pop() == Move("b7c7")
    assert b.fullmove_number == 2 and b.turn == chariot.Color.BLACK
    assert b.root() == Board()
    while b.move_stack:
        b.pop()
    assert b == Board()
    with pytest.raises(IndexError):
        b.pop()


def test_push_moves_is_atomic():
    b = Board()
    with pytest.raises(chariot.IllegalMoveError, match="move 2"):
        b.push_moves(["h2e2", "h2e2"])
    assert b == Board() and b.move_stack == []
    b.push_moves(["h2e2", "h9g7"])
    assert len(b.move_stack) == 2


@pytest.mark.parametrize(
    "fen, words",
    [
        ("", "empty"),
        ("rnbakabnr/9 w", "ranks"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w", "unknown character"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x", "side to move"),
        ("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w", "no general"),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w", "face each other"),
        ("3k5/9/9/9/9/9/9/9/9/3RK4 w", "not to move is in check"),
        ("4k4/9/9/9/9/9/9/9/9/K8 w", "outside its palace"),
        ("4k4/9/9/9/9/9/1P7/9/9/3K5 w", "never reach"),
        ("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1", "counter"),
    ],
)
def test_fen_errors_name_the_problem(fen, words):
    with pytest.raises(chariot.FenError, match=words) as e:
        Board(fen)
    assert isinstance(e.value, ValueError)
    assert isinstance(e.value, chariot.ChariotError)


def test_move_errors():
    b = Board()
    with pytest.raises(chariot.InvalidMoveError):
        b.push("hello")
    with pytest.raises(chariot.InvalidMoveError):
        Move("z9z9")
    with pytest.raises(chariot.IllegalMoveError):
        b.push("h2h8")
    with pytest.raises(chariot.IllegalMoveError):
        b.push(Move("a0a5"))
    with pytest.raises(chariot.MoveError):
        b.parse_move("炮一平五")
    assert not b.is_legal("a0a5") and b.is_legal("h2e2") and b.is_legal(Move("h2e2"))
    with pytest.raises(ValueError):
        b.piece_at(90)
    with pytest.raises(ValueError):
        b.piece_at("j0")


def test_move_object():
    m = Move("h2e2")
    assert str(m) == m.iccs() == "h2e2"
    assert (m.from_square, m.to_square) == (25, 22)
    assert m == Move("H2-E2") and hash(m) == hash(Move("h2e2"))
    assert m.mirror() == Move("b2e2")
    b = Board()
    assert m.wxf(b) == "C2.5" and m.chinese(b) == "炮二平五"
    b.push(m)
    assert Move("h9g7").wxf(b) == "H8+7" and Move("h9g7").chinese(b) == "马８进７"
    with pytest.raises(chariot.IllegalMoveError):
        m.wxf(b)


def test_tandem_notation():
    # Two red cannons on file e: the front one goes back a rank.
    b = Board("3k5/9/9/9/9/9/4C4/9/4C4/5K3 w")
    m = b.parse_move("e3e2")
    assert b.chinese(m) == "前炮退一"
    assert b.wxf(m) == "C+-1"
    assert b.parse_move("C+-1") == m
    assert b.chinese("e1d1") == "后炮平六"


def test_notation_round_trips_on_random_games(rng):
    written = 0
    for _ in range(20):
        b = Board()
        for _ in range(120):
            moves = b.legal_moves()
            if not moves:
                break
            for m in moves:
                for text in (b.wxf(m), b.chinese(m)):
                    assert b.parse_move(text) == m, (b.fen(), str(m), text)
                    written += 1
            b.push(rng.choice(moves))
    assert written > 10000


def test_mirror_copy_eq_hash(rng):
    b = random_game(rng, 30)
    m = b.mirror()
    assert m.mirror() == b.root().__class__(b.fen())
    assert m.move_stack == []
    c = b.copy()
    assert c == b and hash(c) == hash(b) and c.move_stack == b.move_stack
    assert copy.copy(b) == b and copy.deepcopy(b) == b
    c.push(c.legal_moves()[0])
    assert c != b
    assert {b: 1}[Board(b.fen())] == 1
    assert b != "not a board"


def test_zobrist_key_follows_moves():
    b = Board()
    k = b.zobrist_key
    b.push("h2e2")
    assert b.zobrist_key != k
    b.pop()
    assert b.zobrist_key == k == Board().zobrist_key
    assert 0 <= k < 2**64


def test_check_and_mate_predicates():
    mate = Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 w")
    assert mate.gives_check("b0b9")
    mate.push("b0b9")
    assert mate.is_check() and mate.is_checkmate() and not mate.is_stalemate()
    o = mate.outcome()
    assert o.winner == chariot.Color.RED and o.reason == "checkmate" and o.ply == 1
    assert o.result() == "1-0" and o.loser == chariot.Color.BLACK and not o.is_draw


def test_legal_moves_iccs_matches_objects(rng):
    b = random_game(rng, 40)
    assert b.legal_moves_iccs() == [str(m) for m in b.legal_moves()]


def test_boards_are_independent_across_threads():
    import threading

    results = []

    def work():
        r = random.Random(1)
        results.append(random_game(r, 60).fen())

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(set(results)) == 1
