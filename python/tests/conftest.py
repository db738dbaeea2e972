"""Shared helpers: the repository's data files (found relative to this
file, never outside the clone) and seeded random games."""

import pathlib
import random

import pytest

import chariot

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def random_game(rng, max_plies=200, board=None):
    """Plays random legal moves from `board` (default: the start) until the
    rules end the game or `max_plies`; returns the board."""
    b = board.copy() if board is not None else chariot.Board()
    for _ in range(max_plies):
        if b.outcome() is not None:
            break
        b.push(rng.choice(b.legal_moves()))
    return b


@pytest.fixture
def rng():
    return random.Random(20261128)
