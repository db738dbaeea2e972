"""Chariot's xiangqi library for Python: board, rules, perft, game records,
opening books and an in-process engine.

Everything lives in the Rust extension ``chariot._chariot`` and is
re-exported here; see docs/python.md in the repository for a tour and
``help(chariot.Board)`` for each class.
"""

from ._chariot import *  # noqa: F401,F403
from ._chariot import __version__  # noqa: F401
from . import _chariot as _ext

__all__ = [name for name in dir(_ext) if not name.startswith("_")]
