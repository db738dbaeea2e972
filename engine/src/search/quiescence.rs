//! Quiescence: at the horizon, only captures (and every evasion in check)
//! are searched, so that the static evaluation is taken in a quiet
//! position; at quiescence's first ply, the quiet checks too. Captures
//! come from the same picker as the interior nodes; delta pruning drops
//! those that cannot lift the stand-pat score near alpha, and losing
//! captures are not searched unless the table suggests them (the picker's
//! capture scope does both, before it asks any exchange). The quiet
//! checks come after the captures, from [`QuietChecks`].

use board::{Move, MoveList, Position};

use super::{Mode, Search};
use crate::eval::SEE_VALUES;
use crate::movepick::{MovePicker, QuietOrder};
use crate::params;
use crate::score::{Bound, INFINITE, MATE, MAX_PLY};

impl<M: Mode> Search<'_, M> {
    /// Fail-soft quiescence search at `ply`: stand pat, then captures (or
    /// every evasion in check), then, with `checks` (quiescence's first
    /// ply, the main search's horizon), the quiet moves that give check
    /// and do not lose the checking piece.
    pub(super) fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, checks: bool) -> i32 {
        self.stack.clear_pv(ply);
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let repeated = match self.judge(ply) {
            std::ops::ControlFlow::Continue(repeated) => repeated,
            std::ops::ControlFlow::Break(s) => return s,
        };
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        let key = self.pos.key();
        let hit = self.probe(key, ply);
        if !repeated && let Some(e) = hit.cutting(0, alpha, beta) {
            self.count_cutoff();
            return e.score;
        }
        let in_check = self.pos.in_check();
        let alpha_orig = alpha;
        let mut best;
        let tt_moves = hit.moves();
        let mut picker = if in_check {
            best = -INFINITE;
            MovePicker::new(tt_moves, QuietOrder::default())
        } else {
            let stand_pat = self.static_eval().value;
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            // Delta pruning: a capture whose victim cannot lift the stand-pat
            // score near alpha is not tried; nor is one that loses material,
            // unless the table suggests it.
            MovePicker::captures(tt_moves, alpha - stand_pat - params::delta_margin() + 1)
        };
        let mut best_move = None;
        let mut searched = 0usize;
        // Quiet checks, at the first ply only and once the captures are
        // done: in xiangqi a quiet check (a cannon's new screen, a horse's
        // step) often mates or wins material that no capture at the
        // horizon shows. Those that lose the checking piece in the
        // exchange are left out.
        let mut quiet_checks = (checks && !in_check).then(QuietChecks::default);
        loop {
            let mv = match picker.next(&self.pos, self.h) {
                Some((mv, _, _)) => mv,
                None => match quiet_checks.as_mut().and_then(|q| q.next(&mut self.pos)) {
                    Some(mv) => mv,
                    None => break,
                },
            };
            searched += 1;
            self.make(mv);
            let score = -self.qsearch(-beta, -alpha, ply + 1, false);
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
                    self.stack.update_pv(ply, mv);
                }
            }
        }
        if in_check && searched == 0 {
            return -MATE + ply as i32;
        }
        // The bench's experiment keeps quiescence out of the table.
        if (!M::EXPERIMENT || self.experiment.store_qs) && !repeated {
            let bound = Bound::of_result(best, alpha_orig, beta);
            self.store(key, ply, best_move, best, 0, bound);
        }
        best
    }
}

/// The quiet moves of a position that give check and do not lose the
/// checking piece by the exchange, generated when first asked.
#[derive(Default)]
struct QuietChecks {
    moves: Option<MoveList>,
    next: usize,
}

impl QuietChecks {
    /// The next such move of `pos` (the position the first call saw).
    fn next(&mut self, pos: &mut Position) -> Option<Move> {
        let moves = self.moves.get_or_insert_with(|| pos.legal_quiet_checks());
        while let Some(&mv) = moves.get(self.next) {
            self.next += 1;
            if pos.see_ge(mv, 0, &SEE_VALUES) {
                return Some(mv);
            }
        }
        None
    }
}
