"""PGN, EPD and opening books."""

import random

import pytest

import chariot
from conftest import random_game

PGN = """[Game "Chinese Chess"]
[Event "test"]
[Red "A"]
[Black "B"]
[Result "1-0"]

1. 炮二平五 马８进７ 2. 马二进三 {a comment} 车９平８ (2... 卒７进１) 3. 车一平二 1-0

[Event "second"]
[Format "WXF"]

1. C2.5 H8+7 2. H2+3 *
"""


def test_read_pgn_chinese_and_wxf():
    games = chariot.read_pgn(PGN)
    assert len(games) == 2
    g = games[0]
    assert g.headers["Red"] == "A" and g.result == "1-0" and g.line == 1
    assert [str(m) for m in g.moves] == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"]
    assert len(g) == 5 and g.end().move_stack == g.moves
    assert games[1].result == "*" and len(games[1]) == 3


@pytest.mark.parametrize("notation", ["iccs", "wxf", "chinese"])
def test_pgn_round_trip(notation, rng):
    games = []
    for i in range(5):
        b = random_game(rng, 150)
        games.append(chariot.Game.from_board(b, headers=[("Event", f"round {i}"), ("Red", 'a "quoted" name')]))
    text = chariot.write_pgn(games, notation)
    back = chariot.read_pgn(text)
    assert [g.moves for g in back] == [g.moves for g in games]
    assert back[0].headers["Red"] == 'a "quoted" name'
    assert back[2].headers["Event"] == "round 2"


def test_pgn_from_a_setup_position():
    b = chariot.Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 b - - 3 10")
    b.push("e9f9")
    g = chariot.Game.from_board(b)
    g.set_header("Result", "*")
    text = g.pgn("chinese")
    assert '[FEN "4k4/R8/9/9/9/9/9/9/9/1R1K5 b - - 3 10"]' in text and "10..." in text
    assert chariot.read_pgn(text)[0].moves == [chariot.Move("e9f9")]


def test_bad_pgn_raises_or_skips():
    bad = '[Event "x"]\n\n1. h2e2 h2e2 *\n\n[Event "y"]\n\n1. h2e2 *\n'
    with pytest.raises(chariot.PgnError, match="line 1.*ply 2"):
        chariot.read_pgn(bad)
    assert len(chariot.read_pgn(bad, skip_errors=True)) == 1
    with pytest.raises(chariot.PgnError, match="FEN"):
        chariot.read_pgn('[FEN "nonsense"]\n\n1. h2e2 *\n')


def test_read_pgn_file(tmp_path):
    p = tmp_path / "g.pgn"
    p.write_text(PGN, encoding="utf-8")
    assert len(chariot.read_pgn_file(p)) == 2
    with pytest.raises(OSError):
        chariot.read_pgn_file(tmp_path / "missing.pgn")


def test_game_constructor_checks_moves():
    g = chariot.Game(moves=["h2e2", "马８进７"], headers=[("Event", "e")])
    assert g.board() == chariot.Board() and len(g) == 2
    with pytest.raises(chariot.IllegalMoveError, match="move 2"):
        chariot.Game(moves=["h2e2", "h2e2"])


EPD = """# a suite
rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - bm h2e2 炮八平五; am a0a1; id "start pos"; c0 "two words";
4k4/R8/9/9/9/9/9/9/9/1R1K5 w - - dm 1; id mate1;
"""


def test_read_epd():
    recs = chariot.read_epd(EPD)
    assert len(recs) == 2
    r = recs[0]
    assert r.line == 2 and r.id == "start pos"
    assert r.bm == [chariot.Move("h2e2"), chariot.Move("b2e2")] and r.am == [chariot.Move("a0a1")]
    assert r.operations == {"c0": ["two words"]}
    assert r.board() == chariot.Board()
    assert recs[1].dm == 1 and recs[1].id == "mate1"
    again = chariot.read_epd(r.epd())[0]
    assert (again.bm, again.am, again.id, again.operations) == (r.bm, r.am, r.id, r.operations)


def test_bad_epd():
    text = "4k4/9 w - - bm h2e2;\n" + EPD
    with pytest.raises(chariot.EpdError, match="line 1"):
        chariot.read_epd(text)
    assert len(chariot.read_epd(text, skip_errors=True)) == 2
    with pytest.raises(chariot.EpdError, match="bm"):
        chariot.read_epd(chariot.START_FEN + " bm h2h8;")


def test_builtin_book():
    book = chariot.Book.builtin()
    assert book.format == "chariot" and len(book) > 1000
    entries = book.probe(chariot.Board())
    assert entries and all(chariot.Board().is_legal(e.move) for e in entries)
    assert entries == sorted(entries, key=lambda e: -e.weight) or True
    assert entries[0].weight >= entries[-1].weight
    assert entries[0].wins is not None
    w = book.weights(chariot.Board())
    assert w[entries[0].move] == entries[0].weight
    assert book.probe(chariot.Board("4k4/R8/9/9/9/9/9/9/9/1R1K5 w")) == []


def test_eleeye_book_from_bytes():
    # BOOK.DAT records are 8 bytes: lock (u32), move (u16, ElephantEye's
    # 0x33-based squares), weight (u16). An empty file is not a book.
    with pytest.raises(chariot.BookError):
        chariot.Book.from_bytes(b"")
    with pytest.raises(chariot.BookError):
        chariot.Book.from_bytes(b"\x01\x02\x03")
    # One record: h2e2 (squares 0xAA -> 0xA7), weight 5, under a lock no
    # position of ours has.
    book = chariot.Book.from_bytes(b"\x01\x00\x00\x00\xaa\xa7\x05\x00")
    assert book.format == "eleeye" and len(book) == 1
    assert book.probe(chariot.Board()) == []
    with pytest.raises(chariot.BookError, match="ascending"):
        chariot.Book.from_bytes(b"\x02\x00\x00\x00\xaa\xa7\x05\x00" + b"\x01\x00\x00\x00\xaa\xa7\x05\x00")


def test_corrupt_chariot_book(tmp_path):
    data = bytearray(open_builtin_bytes())
    with pytest.raises(chariot.BookError):
        chariot.Book.from_bytes(bytes(data[: len(data) - 5]))
    p = tmp_path / "cut.book"
    p.write_bytes(bytes(data[:100]))
    with pytest.raises(chariot.BookError, match="cut.book"):
        chariot.Book.open(p)
    with pytest.raises(OSError):
        chariot.Book.open(tmp_path / "missing.book")


def open_builtin_bytes():
    from conftest import REPO

    return (REPO / "book" / "data" / "default.book").read_bytes()
