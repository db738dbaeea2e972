"""Rule verdicts: the cases of tests/data/rules/cases.txt (the board
crate's own suite) through the Python API."""

import pytest

import chariot
from conftest import DATA

REASONS = {
    "move-limit": "60-move limit",
}


def cases():
    for line in (DATA / "rules" / "cases.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        judge, fen, moves, expected, what = [f.strip() for f in line.split("|")]
        if judge != "game":
            continue
        yield pytest.param(fen, moves.split(), expected, id=what[:60])


@pytest.mark.parametrize("fen, moves, expected", list(cases()))
def test_rule_cases(fen, moves, expected):
    board = chariot.Board(fen)
    outcome = chariot.adjudicate(moves, board)
    played = board.copy()
    played.push_moves(moves)
    if expected == "ongoing":
        assert outcome is None and played.outcome() is None
        return
    who, reason = expected.split()
    reason = REASONS.get(reason, reason.replace("-", " "))
    assert outcome is not None, expected
    assert outcome.reason == reason
    winner = {"red": chariot.Color.RED, "black": chariot.Color.BLACK, "draw": None}[who]
    assert outcome.winner == winner
    # The verdict falls on the last move of each case, and the board's own
    # judgement of the whole history agrees.
    assert outcome.ply == len(moves)
    assert played.outcome() == outcome


def test_perpetual_check_names_loser_and_ply():
    moves = "a1a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9 f9f8".split()
    o = chariot.adjudicate(moves, chariot.Board("5k3/9/9/9/9/9/9/9/R8/3K5 w"))
    assert o.reason == "perpetual check" and o.loser == chariot.Color.RED
    assert o.ply == 9  # the move after which it fell; the 10th is not looked at


def test_adjudicate_rejects_illegal_moves():
    with pytest.raises(chariot.IllegalMoveError, match="move 2"):
        chariot.adjudicate(["h2e2", "h2e2"])
    assert chariot.adjudicate([]) is None
