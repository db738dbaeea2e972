// Perft driver over ElephantEye's own move generation and move making, for
// comparing Chariot's make/unmake speed with ElephantEye's on the same tree
// (issue 32; docs/lab/measurements.md, "Against ElephantEye").
//
// This file is Chariot's. It is compiled against an ElephantEye checkout
// (github.com/xqbase/eleeye, LGPL-2.1) that lives beside the project, never
// inside it; compare.sh builds it there.
//
// At every node GenAllMoves lists the pseudo-legal moves; MakeMove rejects
// each one that leaves the mover's general attacked and, for the legal ones,
// records whether the move checks and which piece it chases (ElephantEye's
// repetition rules); UndoMakeMove takes it back. Every leaf is made and
// unmade and counted in its parent's loop, as Chariot's `perft_speed N full`
// does.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "base/base.h"
#include "eleeye/pregen.h"
#include "eleeye/position.h"

static PositionStruct pos;

static uint64_t perft(int depth) {
  if (depth == 0) return 1;
  MoveStruct mvs[MAX_GEN_MOVES];
  int n = pos.GenAllMoves(mvs);
  uint64_t total = 0;
  for (int i = 0; i < n; i++) {
    if (pos.MakeMove(mvs[i].wmv)) {
      total += depth == 1 ? 1 : perft(depth - 1);
      pos.UndoMakeMove();
    }
  }
  return total;
}

int main(int argc, char **argv) {
  int depth = argc > 1 ? atoi(argv[1]) : 5;
  const char *fen = argc > 2 ? argv[2] : cszStartFen;
  PreGenInit();
  pos.FromFen(fen);
  auto t0 = std::chrono::steady_clock::now();
  uint64_t n = perft(depth);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("eleeye perft(%d) = %llu in %.3f s: %.1f M leaves/s\n", depth, (unsigned long long)n, s, n / s / 1e6);
  return 0;
}
