"""The in-process engine: mates, multipv, stop from another thread,
progress, levels, closing."""

import threading
import time

import pytest

import chariot

MATE_IN_1 = "4k4/R8/9/9/9/9/9/9/9/1R1K5 w"


@pytest.fixture(scope="module")
def engine():
    with chariot.Engine(hash=8) as e:
        yield e


def test_finds_mate_in_one(engine):
    a = engine.analyse(chariot.Board(MATE_IN_1), depth=5)
    assert a.best == chariot.Move("b0b9")
    assert a.score.is_mate and a.score.mate == 1 and a.score.mate_plies == 1
    assert a.pv[0] == a.best and a.depth >= 1 and a.nodes > 0
    assert engine.play(chariot.Board(MATE_IN_1), depth=3) == chariot.Move("b0b9")


def test_finds_a_deeper_mate(engine):
    # Mate in 2: the two chariots close the ranks one after the other.
    b = chariot.Board("5k3/9/9/9/9/9/9/9/R8/1R1K5 w")
    a = engine.analyse(b, depth=8)
    assert a.score.is_mate and 0 < a.score.mate <= 3


def test_multipv_and_callback(engine):
    seen = []
    a = engine.analyse(chariot.Board(), depth=6, multipv=3, callback=seen.append)
    assert [l.multipv for l in a.lines] == [1, 2, 3]
    assert len({l.pv[0] for l in a.lines}) == 3
    assert seen and all(isinstance(i, chariot.Info) for i in seen)
    assert max(i.depth for i in seen) == 6 and a.depth == 6
    assert a.best == a.lines[0].pv[0]


def test_stop_from_another_thread(engine):
    t = threading.Timer(0.3, engine.stop)
    t.start()
    start = time.monotonic()
    a = engine.analyse(chariot.Board(), infinite=True)
    elapsed = time.monotonic() - start
    t.join()
    assert 0.25 < elapsed < 5 and a.best is not None


def test_callback_can_stop_and_raise(engine):
    a = engine.analyse(chariot.Board(), depth=30, callback=lambda i: i.depth >= 3)
    assert 3 <= a.depth < 30

    def boom(info):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        engine.analyse(chariot.Board(), depth=30, callback=boom)


def test_analysis_iterator(engine):
    with engine.analysis(chariot.Board(), depth=5) as stream:
        depths = [i.depth for i in stream]
    assert depths and depths[-1] == 5
    assert stream.wait().depth == 5
    stream = engine.analysis(chariot.Board(), infinite=True)
    for info in stream:
        if info.depth >= 4:
            stream.stop()
    assert stream.wait().best is not None


def test_busy_engine_refuses_a_second_search(engine):
    stream = engine.analysis(chariot.Board(), infinite=True)
    next(iter(stream))
    with pytest.raises(chariot.EngineBusyError):
        engine.analyse(chariot.Board(), depth=2)
    stream.stop()
    stream.wait()


def test_options_and_levels():
    with chariot.Engine(hash=4, threads=2, level=0) as e:
        assert (e.hash, e.threads, e.level) == (4, 2, 0)
        a = e.analyse(chariot.Board(), depth=20)
        assert a.nodes <= 2000  # level 0: a 1,000-node budget per thread
        e.level = 20
        e.hash = 2
        e.threads = 1
        assert e.hash == 2 and e.threads == 1
        e.elo = 1500
        assert e.elo == 1500
        e.new_game()
    for bad in (dict(hash=0), dict(threads=0), dict(level=21), dict(elo=5)):
        with pytest.raises(ValueError):
            chariot.Engine(**bad)


def test_bad_limits(engine):
    with pytest.raises(ValueError, match="depth"):
        engine.analyse(chariot.Board())
    for bad in (dict(movetime=-1), dict(movetime=float("nan")), dict(depth=3, multipv=0)):
        with pytest.raises(ValueError):
            engine.analyse(chariot.Board(), **bad)
    with pytest.raises(ValueError):
        engine.analyse(chariot.Board(), depth=2, callback=5)


def test_no_legal_move_and_history():
    with chariot.Engine(hash=1) as e:
        b = chariot.Board(MATE_IN_1)
        b.push("b0b9")
        a = e.analyse(b, depth=3)
        assert a.best is None
        # The move stack is the history the engine judges repetitions by.
        b = chariot.Board("5k3/9/9/9/9/9/9/9/R8/3K5 w")
        b.push_moves("a1a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9".split())
        a = e.analyse(b, depth=6)
        assert a.best is not None and a.best != chariot.Move("a8a9")


def test_closed_engine():
    e = chariot.Engine(hash=1)
    e.close()
    e.close()
    assert e.closed
    for call in (lambda: e.analyse(chariot.Board(), depth=1), lambda: e.hash, e.new_game):
        with pytest.raises(chariot.EngineClosedError):
            call()
    e.stop()  # harmless
