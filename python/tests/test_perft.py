"""perft and divide against the published counts of tests/data/perft.epd."""

import threading
import time

import chariot
from conftest import DATA

# The largest count checked: the whole suite up to here runs in seconds.
BUDGET = 400_000


def suite():
    for line in (DATA / "perft.epd").read_text().splitlines():
        fen, *counts = line.split(" ;")
        for c in counts:
            d, n = c.split()
            yield fen, int(d[1:]), int(n)


def test_perft_suite():
    checked = 0
    for fen, depth, count in suite():
        if count <= BUDGET:
            assert chariot.perft(chariot.Board(fen), depth) == count, (fen, depth)
            checked += 1
    assert checked > 60


def test_start_position_depth_4():
    assert chariot.perft(chariot.Board(), 4) == 3_290_240
    assert chariot.Board().perft(3) == 79_666


def test_divide_sums_to_perft():
    b = chariot.Board()
    split = chariot.divide(b, 3)
    assert len(split) == 44 and sum(split.values()) == 79_666
    assert split[chariot.Move("h2e2")] == chariot.perft(_after(b, "h2e2"), 2)
    assert chariot.divide(b, 0) == {}


def _after(b, m):
    c = b.copy()
    c.push(m)
    return c


def test_perft_releases_the_gil():
    # A Python thread keeps counting while perft runs on another.
    ticks = []
    done = threading.Event()

    def ticker():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    chariot.perft(chariot.Board(), 5)
    done.set()
    t.join()
    assert len(ticks) > 5
