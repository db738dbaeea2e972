//! The pruning and reduction decisions of an interior node, each a small
//! function so that `search` reads as the order in which they are tried:
//! before the moves, reverse futility and the null move; per move, SEE and
//! futility pruning and the late-move reduction. The parent owns the node
//! and the move loop and decides when each test applies (never at PV
//! nodes, never in check).

use board::{Color, Move, PieceKind, Position};

use super::{Mode, NodeKind, Search};
use crate::eval::SEE_VALUES;
use crate::params;
use crate::score::MATE_BOUND;

impl<M: Mode> Search<'_, M> {
    /// Whether the static evaluation at `ply` is better than two plies
    /// ago (our previous turn), so that pruning by it can afford to be
    /// bolder. In check (no static evaluation) it is not.
    pub(super) fn improving(&self, ply: usize) -> bool {
        match (
            self.stack[ply].static_eval,
            ply.checked_sub(2).map(|p| self.stack[p].static_eval),
        ) {
            (Some(now), Some(Some(before))) => now > before,
            (Some(_), _) => true,
            (None, _) => false,
        }
    }

    /// Reverse futility and the null move at a non-PV node not in check:
    /// `Some(score)` when the node can return before searching its moves.
    pub(super) fn prune_before_moves(
        &mut self,
        beta: i32,
        depth: i32,
        ply: usize,
        kind: NodeKind,
        static_eval: i32,
        improving: bool,
    ) -> Option<i32> {
        // Reverse futility: far above beta at low depth.
        let margin = params::rfp_margin() * depth - params::rfp_improving() * i32::from(improving);
        if depth <= params::rfp_depth() && static_eval - margin >= beta && !self.classic() {
            self.count(|c| &mut c.reverse_futile);
            return Some(static_eval);
        }
        // Null move, only with attackers left (xiangqi zugzwang lives in
        // endgames without them), verified when material is thin.
        let us = self.pos.side_to_move();
        let attackers = attacker_count(&self.pos, us);
        let rooks = self.pos.pieces(us, PieceKind::Rook).count();
        if !(kind.null_move_allowed()
            && depth >= params::null_min_depth()
            && static_eval >= beta
            && (rooks >= 1 || attackers >= 2))
        {
            return None;
        }
        let r = params::null_reduction() + depth / params::null_depth_divisor();
        self.stack[ply].moved = None;
        self.make_null();
        let s = -self.search(-beta, -beta + 1, depth - 1 - r, ply + 1, NodeKind::NoNull);
        self.unmake_null();
        if self.stopped {
            return Some(0);
        }
        if s < beta {
            return None;
        }
        let s = if s >= MATE_BOUND { beta } else { s };
        if attackers > 2 && rooks >= 1 {
            self.count(|c| &mut c.null_cutoffs);
            return Some(s);
        }
        let v = self.search(beta - 1, beta, depth - 1 - r, ply, NodeKind::NoNull);
        if self.stopped {
            return Some(0);
        }
        if v < beta {
            return None;
        }
        self.count(|c| &mut c.null_cutoffs);
        Some(s)
    }

    /// SEE pruning: at low depth, whether `mv` loses more material in the
    /// exchange on its square than the depth can win back. (The caller
    /// still searches it if it checks: sacrifices that mate begin with a
    /// check.)
    pub(super) fn see_loses(&self, mv: Move, capture: bool, depth: i32) -> bool {
        if depth > params::see_depth() {
            return false;
        }
        let margin = if capture {
            -params::see_capture_margin() * depth
        } else {
            -params::see_quiet_margin() * depth * depth
        };
        !self.pos.see_ge(mv, margin, &SEE_VALUES)
    }

    /// The table's late-move reduction for the `n`-th move at `depth`.
    #[inline]
    pub(super) fn reduction(&self, depth: i32, n: usize) -> i32 {
        self.reductions.get(depth, n)
    }

    /// The late-move reduction of the `searched`-th move at `depth`, before
    /// clamping. History steers it: a move that often cut elsewhere is
    /// reduced less, one that failed more.
    pub(super) fn late_reduction(
        &self,
        depth: i32,
        searched: usize,
        pv_node: bool,
        improving: bool,
        order_score: i32,
    ) -> i32 {
        self.reduction(depth, searched) - i32::from(pv_node) + i32::from(!improving)
            - order_score / params::lmr_history_unit()
    }
}

/// Late-move pruning at one node: past a number of moves that grows with
/// the depth (halved when the position is not improving), quiet moves at
/// depth 4 or less are not searched at all — except the general's own
/// steps right after the opponent escaped a check. Its general is then in
/// a net that a step of ours onto a file often closes (the generals may
/// not face each other), the histories rarely rank such steps, and pruning
/// f0e0 hid a mate in three until depth 10.
pub(super) struct LateMovePruning {
    /// Moves searched before pruning starts; `None` above depth 4.
    limit: Option<usize>,
    /// The opponent's last move escaped a check.
    after_evasion: bool,
}

impl LateMovePruning {
    pub(super) fn new(depth: i32, improving: bool, after_evasion: bool) -> LateMovePruning {
        let limit = (params::lmp_base() + depth * depth) as usize / if improving { 1 } else { 2 };
        LateMovePruning {
            limit: (depth <= params::lmp_depth()).then_some(limit),
            after_evasion,
        }
    }

    /// Whether every quiet move from here on is pruned, so the picker
    /// need not generate or hand out any more (the same conditions as
    /// [`LateMovePruning::prunes`], which spares no move here: after an
    /// evasion it spares the general's moves).
    pub(super) fn prunes_every_quiet(&self, searched: usize) -> bool {
        !self.after_evasion && self.limit.is_some_and(|limit| searched >= limit)
    }

    /// Whether a late quiet move `mv`, after `searched` moves, is pruned.
    /// The caller has checked that pruning applies at all (not a PV node,
    /// not in check, a quiet move after the first, no mate against us).
    pub(super) fn prunes(&self, pos: &Position, mv: Move, searched: usize) -> bool {
        self.limit.is_some_and(|limit| searched >= limit)
            && !(self.after_evasion
                && pos
                    .piece_at(mv.from())
                    .is_some_and(|p| p.kind() == PieceKind::King))
    }
}

/// Futility: whether a quiet move at low depth cannot lift the static
/// evaluation near alpha.
pub(super) fn futile(static_eval: i32, depth: i32, alpha: i32) -> bool {
    depth <= params::futility_depth()
        && static_eval + params::futility_base() + params::futility_per_depth() * depth <= alpha
}

/// Chariots, horses and cannons of `color`.
fn attacker_count(pos: &Position, color: Color) -> u32 {
    pos.pieces(color, PieceKind::Rook).count()
        + pos.pieces(color, PieceKind::Knight).count()
        + pos.pieces(color, PieceKind::Cannon).count()
}
