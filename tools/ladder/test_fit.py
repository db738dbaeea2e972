#!/usr/bin/env python3
"""Tests of fit.py on hand-made games with known answers (stdlib only)."""

import math
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit  # noqa: E402


def pgn(games):
    """PGN text of (red, black, result, fen) games."""
    out = []
    for red, black, result, fen in games:
        out.append(f'[Red "{red}"]\n[Black "{black}"]\n[Result "{result}"]\n[FEN "{fen}"]\n\n1. H2-E2 {result}\n')
    return "\n".join(out)


def twins(a, b, opening, a_scores):
    """Two games of one opening, colours swapped; a_scores are a's."""
    text = {1.0: ("1-0", "0-1"), 0.0: ("0-1", "1-0"), 0.5: ("1/2-1/2", "1/2-1/2")}
    first, second = a_scores
    return [
        (a, b, text[first][0], opening),
        (b, a, text[second][1], opening),
    ]


class FitTest(unittest.TestCase):
    def write(self, games):
        f = tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False, encoding="utf-8")
        f.write(pgn(games))
        f.close()
        self.addCleanup(os.unlink, f.name)
        return f.name

    def test_twins_are_scored_as_pairs_and_strays_alone(self):
        games = twins("A", "B", "f1", (1.0, 0.5)) + twins("A", "B", "f2", (0.0, 0.5))
        games.append(("B", "A", "0-1", "f3"))
        path = self.write(games)
        units = fit.meetings([path])
        self.assertEqual(sorted(units[("A", "B")]), [0.25, 0.75, 1.0])
        self.assertEqual(fit.record([path])[("A", "B")], [2, 2, 1])

    def test_a_meeting_gives_the_logistic_difference(self):
        # A scores 3 of 4 pairs fully and draws one: 87.5 %.
        games = []
        for i, s in enumerate([(1.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5)]):
            games += twins("A", "B", f"f{i}", s)
        d, var, s, n = fit.elo_of(fit.meetings([self.write(games)])[("A", "B")])
        self.assertEqual(n, 4)
        self.assertAlmostEqual(s, 0.875)
        self.assertAlmostEqual(d, -400 * math.log10(1 / 0.875 - 1))
        self.assertGreater(var, 0)

    def test_a_chain_adds_up_and_the_anchor_shifts_the_scale(self):
        games = []
        for i in range(8):
            games += twins("A", "B", f"a{i}", (1.0, 0.5) if i % 2 else (0.5, 0.5))
            games += twins("B", "C", f"b{i}", (1.0, 0.0) if i % 2 else (1.0, 0.5))
        path = self.write(games)
        out = subprocess.run(
            [sys.executable, fit.__file__, "--zero", "C", "--anchor", "B=1000", path],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        ab = fit.elo_of(fit.meetings([path])[("A", "B")])[0]
        bc = fit.elo_of(fit.meetings([path])[("B", "C")])[0]
        row = next(line for line in out.splitlines() if line.startswith("| A |"))
        self.assertIn(f"| {ab + bc:+.0f} ±", row)
        self.assertIn(f" {1000 + ab:.0f} ±", row)

    def test_compressed_files_read_the_same(self):
        import lzma

        games = twins("A", "B", "f1", (1.0, 0.5)) + twins("A", "B", "f2", (0.0, 0.5))
        plain = self.write(games)
        packed = plain + ".xz"
        with lzma.open(packed, "wt", encoding="utf-8") as f:
            f.write(pgn(games))
        self.addCleanup(os.unlink, packed)
        self.assertEqual(fit.meetings([plain]), fit.meetings([packed]))
        self.assertEqual(fit.record([packed])[("A", "B")], [1, 2, 1])

    def test_players_that_never_met_are_refused(self):
        games = twins("A", "B", "f", (1.0, 0.5)) + twins("C", "D", "f", (1.0, 0.5))
        run = subprocess.run(
            [sys.executable, fit.__file__, "--zero", "A", self.write(games)],
            capture_output=True,
            text=True,
        )
        self.assertNotEqual(run.returncode, 0)
        self.assertIn("not all connected", run.stderr)


if __name__ == "__main__":
    unittest.main()
