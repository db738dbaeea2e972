#!/usr/bin/env python3
"""Fits one Elo scale to the games of a strength ladder.

Reads PGN files (arena's and refmatch's: the Red, Black, Result and FEN
tags; `.xz` compressed or not), scores every pair of players that met, and solves for every
player's rating by generalized least squares over all meetings at once:
a level that met two neighbours and ElephantEye is placed by all three.

Games of the same two players from the same opening (colours swapped)
are scored as a pair, as arena does ("Elo from pairs"); a game without
its twin counts alone. A meeting's Elo difference is the logistic one of
its mean score, its variance that of the mean by the delta method.

Usage:
    fit.py --zero L20 --anchor eleeye=2000 FILE.pgn...

prints, per player, its Elo against --zero with the 95 % error, and with
--anchor its rating on the anchored scale (the error of its distance to
the anchor). Pure Python: the ladder has a dozen unknowns.
"""

import argparse
import lzma
import math
import re
import sys
from collections import defaultdict

TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')
SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def natural(name):
    """Sort key that puts L8 before L10."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def games(paths):
    """Yields (red, black, red's score, opening) for every decided game."""
    for path in paths:
        tags = {}
        opener = lzma.open if path.endswith(".xz") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            for line in f:
                m = TAG.match(line)
                if m:
                    tags[m.group(1)] = m.group(2)
                    continue
                if tags and line.strip() and not line.startswith("["):
                    if tags.get("Result") in SCORE and "Red" in tags and "Black" in tags:
                        yield (tags["Red"], tags["Black"], SCORE[tags["Result"]], tags.get("FEN", ""))
                    tags = {}


def record(paths):
    """Per unordered pair (a, b): a's wins, draws and losses."""
    wdl = defaultdict(lambda: [0, 0, 0])
    for red, black, score, _ in games(paths):
        a, b = sorted((red, black), key=natural)
        mine = score if red == a else 1.0 - score
        wdl[(a, b)][{1.0: 0, 0.5: 1, 0.0: 2}[mine]] += 1
    return wdl


def meetings(paths):
    """Per unordered pair (a, b): the list of units, each a's mean score."""
    by_opening = defaultdict(list)
    for red, black, score, fen in games(paths):
        a, b = sorted((red, black), key=natural)
        by_opening[(a, b, fen)].append(score if red == a else 1.0 - score)
    units = defaultdict(list)
    for (a, b, _), scores in by_opening.items():
        # Consecutive games of one opening are twins (colours swapped).
        for i in range(0, len(scores) - 1, 2):
            units[(a, b)].append((scores[i] + scores[i + 1]) / 2)
        if len(scores) % 2:
            units[(a, b)].append(scores[-1])
    return units


def elo_of(units):
    """Elo difference of a mean score, with its variance."""
    n = len(units)
    s = sum(units) / n
    var = sum((u - s) ** 2 for u in units) / max(n - 1, 1) / n
    s = min(max(s, 0.5 / n), 1 - 0.5 / n)
    d = -400 * math.log10(1 / s - 1)
    slope = 400 / (math.log(10) * s * (1 - s))
    return d, max(var, 1e-6) * slope**2, s, n


def solve(matrix, vector):
    """Solves a symmetric positive definite system by Gauss-Jordan; returns x and the inverse."""
    n = len(vector)
    aug = [row[:] + [vector[i]] + [1.0 if j == i else 0.0 for j in range(n)] for i, row in enumerate(matrix)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(aug[r][c]))
        aug[c], aug[p] = aug[p], aug[c]
        piv = aug[c][c]
        if abs(piv) < 1e-12:
            sys.exit(f"fit.py: the players are not all connected (at {c})")
        aug[c] = [v / piv for v in aug[c]]
        for r in range(n):
            if r != c and aug[r][c]:
                f = aug[r][c]
                aug[r] = [v - f * w for v, w in zip(aug[r], aug[c])]
    return [aug[i][n] for i in range(n)], [aug[i][n + 1 :] for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zero", required=True, help="the player fixed at 0")
    ap.add_argument("--anchor", help="NAME=RATING: the player the printed scale is anchored on")
    ap.add_argument("pgn", nargs="+")
    args = ap.parse_args()
    units = meetings(args.pgn)
    players = sorted({p for pair in units for p in pair} - {args.zero})
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    ata = [[0.0] * n for _ in range(n)]
    atb = [0.0] * n
    wdl = record(args.pgn)
    print("| meeting | games | W-D-L of the first | units (pairs) | score | Elo ± 95 % |")
    print("|---|---|---|---|---|---|")
    for (a, b), us in sorted(units.items(), key=lambda kv: [natural(p) for p in kv[0]]):
        d, var, s, count = elo_of(us)
        w, dr, lo = wdl[(a, b)]
        print(
            f"| {a} vs {b} | {w + dr + lo} | {w}-{dr}-{lo} | {count} | {100 * s:.1f} % "
            f"| {d:+.1f} ± {1.96 * math.sqrt(var):.1f} |"
        )
        row = [0.0] * n
        if a in index:
            row[index[a]] += 1
        if b in index:
            row[index[b]] -= 1
        w = 1 / var
        for i in range(n):
            if row[i]:
                atb[i] += w * row[i] * d
                for j in range(n):
                    ata[i][j] += w * row[i] * row[j]
    x, cov = solve(ata, atb)
    rating = dict(zip(players, x))
    rating[args.zero] = 0.0

    def var_diff(p, q):
        def c(u, v):
            return cov[index[u]][index[v]] if u in index and v in index else 0.0

        return c(p, p) + c(q, q) - 2 * c(p, q)

    anchor, base = None, 0.0
    if args.anchor:
        anchor, value = args.anchor.split("=")
        base = float(value) - rating[anchor]
    print()
    head = f"| player | against {args.zero} |" + (f" on the scale {anchor} = {base + rating[anchor]:.0f} |" if anchor else "")
    print(head)
    print("|---|---|" + ("---|" if anchor else ""))
    for p in sorted(rating, key=lambda p: -rating[p]):
        line = f"| {p} | {rating[p]:+.0f} ± {1.96 * math.sqrt(var_diff(p, args.zero)):.0f} |"
        if anchor:
            err = 1.96 * math.sqrt(var_diff(p, anchor))
            line += f" {base + rating[p]:.0f} ± {err:.0f} |"
        print(line)


if __name__ == "__main__":
    main()
