//! Quiescence: at the horizon, only captures (and every evasion in check)
//! are searched, so that the static evaluation is taken in a quiet
//! position. Captures come from the same picker as the interior nodes;
//! delta pruning drops those that cannot lift the stand-pat score near
//! alpha, and losing captures are not searched.

use board::Move;

use super::SearchThread;
use crate::eval::PIECE_VALUE;
use crate::movepick::{self, MoveClass, QuietOrder};
use crate::score::{Bound, INFINITE, MATE, MAX_PLY};

/// Quiescence delta-pruning margin.
const DELTA_MARGIN: i32 = 150;

impl SearchThread<'_> {
    /// Fail-soft quiescence search at `ply`: stand pat, then captures (or
    /// every evasion in check).
    pub(super) fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let repeated = match self.judge(ply) {
            Ok(repeated) => repeated,
            Err(s) => return s,
        };
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        let key = self.pos.key();
        let hit = self.probe(key, ply);
        if !repeated && let Some(e) = hit.cutting(0, alpha, beta) {
            self.tt_stats.cutoffs += 1;
            return e.score;
        }
        let in_check = self.pos.in_check();
        let alpha_orig = alpha;
        let mut best;
        let stand_pat;
        let moves = if in_check {
            stand_pat = -INFINITE;
            best = -INFINITE;
            self.pos.legal_moves()
        } else {
            stand_pat = self.evaluate();
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            self.pos.legal_captures()
        };
        let mut scored: arrayvec::ArrayVec<(i32, Move), 128> = arrayvec::ArrayVec::new();
        let tt_moves = hit.moves();
        for &m in &moves {
            // Delta pruning first: it needs no exchange evaluation, which
            // scoring a capture may.
            if !in_check {
                let victim = self
                    .pos
                    .piece_at(m.to())
                    .map_or(0, |p| PIECE_VALUE[p.kind().index()]);
                if stand_pat + victim + DELTA_MARGIN <= alpha {
                    continue;
                }
            }
            let (class, s) =
                movepick::score_move(&self.pos, self.h, m, tt_moves, &QuietOrder::default());
            // Losing captures are skipped.
            if !in_check && class == MoveClass::BadCapture {
                continue;
            }
            scored.push((s, m));
        }
        scored.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        let mut best_move = None;
        for &(_, mv) in &scored {
            self.make(mv);
            let score = -self.qsearch(-beta, -alpha, ply + 1);
            self.unmake();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                    self.update_pv(ply, mv);
                }
            }
        }
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        if self.options.store_qs && !repeated {
            let bound = Bound::of_result(best, alpha_orig, beta);
            self.tt.store(key, ply, best_move, best, 0, bound);
        }
        best
    }
}
