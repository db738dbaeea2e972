"""Speed of the chariot package beside pyffish and cchess, in one run on
one machine (docs/python.md, "Speed"). Each figure is the best of three
timed repeats.

    pip install ./python pyffish cchess==1.25.5
    python python/bench/compare.py

Positions: 200 from seeded random games (chariot plays them out; the same
FENs go to every library). Rows:

* legal moves/s, one call per position (chariot: Board.legal_moves() on
  a board already built; pyffish: legal_moves(variant, fen, []); cchess:
  create_moves() filtered by is_checked_move on a board already built).
* FEN parse+serialise/s: read a FEN, write it back.
* perft(3) and perft(4) from the start: chariot's perft() in one call;
  pyffish and cchess have none, so a perft written over their legal-move
  calls (bulk-counted at the last ply) stands in. perft(4) of those is
  left out when perft(3) says it would take over a minute.
* PGN games read/s: 100 random games written as one PGN text (ICCS
  moves); chariot reads and replays them in one read_pgn call, cchess
  reads one game per file with read_from_pgn; pyffish has no reader.
"""

import os
import random
import sys
import tempfile
import time

import chariot

try:
    import pyffish as sf
except ImportError:
    sf = None
try:
    import cchess.board as cb
    from cchess.read_pgn import read_from_pgn
except ImportError:
    cb = None


def best_of(fn, repeats=3):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def positions(n=200, seed=1):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = chariot.Board()
        for _ in range(rng.randrange(0, 80)):
            moves = b.legal_moves()
            if not moves or b.outcome():
                break
            b.push(rng.choice(moves))
        out.append(b.fen())
    return out


def games(n=100, seed=2):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        b = chariot.Board()
        for _ in range(rng.randrange(40, 120)):
            if b.outcome():
                break
            b.push(rng.choice(b.legal_moves()))
        out.append(chariot.Game.from_board(b))
    return out


def rate(count, seconds):
    return count / seconds if seconds > 0 else float("inf")


def perft_calls(legal, fen, depth):
    """perft over a library's legal-move call (bulk count at the last ply)."""
    moves = legal(fen, [])
    if depth == 1:
        return len(moves)
    return sum(_perft_rec(legal, fen, [m], depth - 1) for m in moves)


def _perft_rec(legal, fen, line, depth):
    moves = legal(fen, line)
    if depth == 1:
        return len(moves)
    return sum(_perft_rec(legal, fen, line + [m], depth - 1) for m in moves)


def main():
    fens = positions()
    rows = []
    boards = [chariot.Board(f) for f in fens]

    # Legal moves.
    r = {"chariot": rate(len(boards), best_of(lambda: [b.legal_moves() for b in boards]))}
    if sf:
        r["pyffish"] = rate(len(fens), best_of(lambda: [sf.legal_moves("xiangqi", f, []) for f in fens]))
    if cb:
        cboards = [cb.ChessBoard(f) for f in fens]
        r["cchess"] = rate(
            len(cboards),
            best_of(lambda: [[m for m in x.create_moves() if not x.is_checked_move(*m)] for x in cboards]),
        )
    rows.append(("legal-move generation, positions/s", r))

    # FEN parse + serialise.
    r = {"chariot": rate(len(fens), best_of(lambda: [chariot.Board(f).fen() for f in fens]))}
    if sf:
        r["pyffish"] = rate(len(fens), best_of(lambda: [sf.get_fen("xiangqi", f, []) for f in fens]))
    if cb:
        r["cchess"] = rate(len(fens), best_of(lambda: [cb.ChessBoard(f).to_fen() for f in fens]))
    rows.append(("FEN parse+serialise, FENs/s", r))

    # Perft.
    start = chariot.START_FEN
    for depth in (3, 4):
        r = {"chariot": best_of(lambda: chariot.perft(chariot.Board(), depth))}
        if sf and (depth == 3 or rows[-1][1].get("pyffish", 1e9) * 45 < 60):
            r["pyffish"] = best_of(lambda: perft_calls(lambda f, m: sf.legal_moves("xiangqi", f, m), start, depth), 1)
        if cb and depth == 3:
            def cchess_legal(f, line):
                x = cb.ChessBoard(f)
                for mv in line:
                    x.move(*mv)
                    x.next_turn()
                return [m for m in x.create_moves() if not x.is_checked_move(*m)]

            r["cchess"] = best_of(lambda: perft_calls(cchess_legal, start, depth), 1)
        rows.append((f"perft({depth}) from the start, seconds", r))

    # PGN.
    gs = games()
    text = chariot.write_pgn(gs, "iccs")
    r = {"chariot": rate(len(gs), best_of(lambda: chariot.read_pgn(text)))}
    if cb:
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for i, g in enumerate(gs):
                p = os.path.join(d, f"{i}.pgn")
                with open(p, "w") as fh:
                    fh.write(g.pgn("iccs"))
                paths.append(p)
            r["cchess"] = rate(len(paths), best_of(lambda: [read_from_pgn(p) for p in paths]))
    rows.append(("PGN games read (and replayed)/s", r))

    names = ["chariot", "pyffish", "cchess"]
    print(f"Python {sys.version.split()[0]}, chariot {chariot.__version__}, "
          f"pyffish {'.'.join(map(str, sf.version())) if sf else '-'}, {os.cpu_count()} CPUs")
    print("| measure | " + " | ".join(names) + " | chariot / pyffish |")
    print("|---|" + "---:|" * (len(names) + 1))
    for what, r in rows:
        cells = []
        for n in names:
            v = r.get(n)
            cells.append("n/a" if v is None else (f"{v:.4f}" if "seconds" in what else f"{v:,.0f}"))
        if "pyffish" in r:
            ratio = r["pyffish"] / r["chariot"] if "seconds" in what else r["chariot"] / r["pyffish"]
            cells.append(f"{ratio:,.0f}×")
        else:
            cells.append("n/a")
        print(f"| {what} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
