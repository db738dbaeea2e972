"""Chariot's xiangqi library for Python: board, rules, perft, game records,
opening books and an in-process engine.

Everything but ``Engine.analysis`` lives in the Rust extension
``chariot._chariot`` and is re-exported here; see docs/python.md in the
repository for a tour, and ``help(chariot.Board)`` for each class.
"""

import queue as _queue
import threading as _threading

from . import _chariot as _ext
from ._chariot import *  # noqa: F401,F403
from ._chariot import __version__  # noqa: F401

__all__ = [name for name in dir(_ext) if not name.startswith("_")]


class AnalysisStream:
    """The progress of one search as an iterator of ``Info`` objects,
    returned by ``Engine.analysis``. The search runs on a helper thread;
    iterate to receive each iteration's lines as they complete, ``stop()``
    to end it early, ``wait()`` (or ``result`` after the iteration ends)
    for the final ``Analysis``. Leaving a ``with`` block stops and waits.
    An error of the search is raised by ``wait()`` and at the end of the
    iteration.
    """

    _DONE = object()

    def __init__(self, engine, board, limits):
        self._engine = engine
        self._queue = _queue.Queue()
        self._result = None
        self._error = None
        self._finished = False
        self._thread = _threading.Thread(
            target=self._run, args=(board, limits), name="chariot-analysis", daemon=True
        )
        self._thread.start()

    def _run(self, board, limits):
        try:
            self._result = _ext.Engine.analyse(
                self._engine, board, callback=self._queue.put, **limits
            )
        except BaseException as e:  # handed to the consumer
            self._error = e
        finally:
            self._queue.put(self._DONE)

    def __iter__(self):
        return self

    def __next__(self):
        if self._finished:
            raise StopIteration
        item = self._queue.get()
        if item is self._DONE:
            self._finished = True
            self._thread.join()
            if self._error is not None:
                raise self._error
            raise StopIteration
        return item

    def stop(self):
        """Asks the search to stop; iteration ends soon after."""
        self._engine.stop()

    def wait(self):
        """Waits for the search to end and returns its ``Analysis``."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._result

    @property
    def result(self):
        """The ``Analysis`` once the search has ended, else ``None``."""
        return None if self._thread.is_alive() else self._result

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        self._thread.join()
        return False


class Engine(_ext.Engine):
    __doc__ = _ext.Engine.__doc__

    def analysis(
        self, board, *, depth=None, nodes=None, movetime=None, multipv=1, infinite=False
    ):
        """Starts a search like ``analyse`` and returns an
        ``AnalysisStream`` that yields each ``Info`` as it comes (the
        iterator form of ``analyse``'s callback)."""
        limits = dict(
            depth=depth, nodes=nodes, movetime=movetime, multipv=multipv, infinite=infinite
        )
        if depth is None and nodes is None and movetime is None and not infinite:
            raise ValueError("give depth, nodes or movetime, or infinite=True")
        return AnalysisStream(self, board, limits)


Engine.__module__ = "chariot"
__all__ += ["AnalysisStream"]
