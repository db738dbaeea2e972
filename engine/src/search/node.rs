//! One node of the search, read from entry to return: [`Search::search`]
//! and, below it in the order it asks them, the decisions it delegates,
//! each a function named by what it decides. A node:
//!
//! 1. at depth 0, hands over to quiescence (`quiescence.rs`);
//! 2. counts itself and polls for a stop (`stop.rs`);
//! 3. asks the rules for a verdict (`Search::judge`, shared with
//!    quiescence);
//! 4. prunes by mate distance;
//! 5. returns the table's score when its entry decides the window;
//! 6. takes the static evaluation, corrected by the correction history
//!    (`correction.rs`), and leaves it in its frame as a
//!    [`FrameEval`] for the plies below ([`Search::improving`]);
//! 7. returns early by [`Search::reverse_futility`] or
//!    [`Search::null_move`];
//! 8. searches a ply shallower when the table knows no move (internal
//!    iterative reduction);
//! 9. takes each move from the staged picker (the root's from its root
//!    list) and, in turn: tests the table's move for singularity
//!    ([`singular_candidate`], [`Search::singular`]); drops late quiet
//!    moves ([`LateMovePruning`], after [`Search::after_evasion`]), futile
//!    ones ([`futile`]) and losing ones ([`Search::see_loses`]); extends
//!    ([`Search::extension`]); reduces ([`Search::late_reduction`]) and
//!    searches again when the reduced search surprises
//!    ([`Search::search_late_move`]);
//! 10. teaches the histories a quiet best move ([`Search::reward_quiet`])
//!     and the capture history its captures ([`Search::reward_capture`]),
//!     stores its result in the table and teaches the correction history
//!     the static evaluation's error ([`corrects`]).
//!
//! The plumbing it calls stays where it lives: the ply stack (`stack`),
//! making moves and evaluating (`position`), the table's probe and store
//! (`table`), the root list and its records (`root`).
//!
//! The root (ply 0) is this same function. Where it differs, the code
//! branches on `root` and says why: it is not judged by the rules; it
//! takes its moves from the root list (`MultiPV`, `searchmoves`, the last
//! pass's order) and records each move's nodes, score and line; it is not
//! reduced by IIR nor tested for singularity; it rewards its best move
//! without a malus or killer; it stores only its first line's result; and
//! its static evaluation is not offered to the plies below
//! ([`FrameEval::Root`]): the root counts as improving, its children as
//! after an evasion, and ply 2 as having nothing to compare with.

use std::ops::ControlFlow::{Break, Continue};

use board::{Color, Move, Piece, PieceKind, Position};

use super::{Mode, Search};
use crate::eval::SEE_VALUES;
use crate::history::{PieceTo, QuietContext};
use crate::movepick::{MoveClass, MovePicker, QuietOrder};
use crate::params;
use crate::score::{Bound, INFINITE, MATE, MATE_BOUND, MAX_PLY, is_decisive};
use crate::tt::TtHit;

/// What a node is to the search, which decides what it may skip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeKind {
    /// On the principal variation: searched with an open window, never
    /// cut off by the table or pruned by the static evaluation.
    Pv,
    /// Searched with a null window, expected to fail high (an expected
    /// cut node): a reduced search's node, a PV node's later moves, and
    /// every other child of an all node.
    Cut,
    /// Searched with a null window, expected to fail low (every move
    /// searched): the children of a cut node.
    All,
    /// An all node where null-move pruning is off: right after a null
    /// move (two passes in a row prove nothing) and the null move's
    /// verification search.
    NoNull,
}

impl NodeKind {
    /// Whether the node may try a null move.
    pub(super) fn null_move_allowed(self) -> bool {
        self != NodeKind::NoNull
    }

    /// Whether the node is expected to fail high.
    pub(super) fn expects_cut(self) -> bool {
        self == NodeKind::Cut
    }

    /// The kind of the node's first child: a PV node's first move
    /// continues the PV; below a cut node the replies are all nodes, below
    /// an all node cut nodes (null move allowed again).
    pub(super) fn first_child(self) -> NodeKind {
        match self {
            NodeKind::Pv => NodeKind::Pv,
            NodeKind::Cut => NodeKind::All,
            NodeKind::All | NodeKind::NoNull => NodeKind::Cut,
        }
    }

    /// The kind of a later move's null-window child searched at full
    /// depth: a PV node's later moves are expected to fail low there, so
    /// their children to cut; elsewhere as the first child.
    pub(super) fn later_child(self) -> NodeKind {
        match self {
            NodeKind::Pv => NodeKind::Cut,
            other => other.first_child(),
        }
    }

    /// The node itself searched again with a null window (the singularity
    /// test): a PV node's counts as an all node.
    pub(super) fn null_window(self) -> NodeKind {
        match self {
            NodeKind::Pv => NodeKind::All,
            other => other,
        }
    }
}

/// What a ply's frame tells the plies below it of its static evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum FrameEval {
    /// The static evaluation.
    Value(i32),
    /// In check: no static evaluation; the node's moves are evasions.
    #[default]
    InCheck,
    /// The root, which offers its evaluation to no ply below.
    Root,
}

impl<M: Mode> Search<'_, M> {
    /// Fail-soft PVS at a node `ply` plies from the root (the root itself
    /// at ply 0).
    pub(super) fn search(
        &mut self,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        kind: NodeKind,
    ) -> i32 {
        // At the horizon, quiescence decides.
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, true);
        }
        let root = ply == 0;
        let pv_node = kind == NodeKind::Pv;
        // Root: always a PV node (`aspiration` opens it so), which is what
        // spares it the table's cut-off and every pruning below that
        // spares PV nodes: it must search its moves to choose one.
        debug_assert!(!root || pv_node, "the root is searched as a PV node");
        self.stack.clear_pv(ply);
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        // The rules' verdict; a repeated position's value depends on the
        // path, so the table neither cuts it off nor stores it. Root: the
        // root must give a move, whatever the game's history says of it.
        let repeated = if root {
            false
        } else {
            match self.judge(ply) {
                Break(score) => return score,
                Continue(repeated) => repeated,
            }
        };
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        // Mate-distance pruning: no line from here beats a mate already
        // found closer to the root.
        let mut alpha = alpha.max(-MATE + ply as i32);
        let beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        // The table: a deep enough entry whose bound decides the window
        // ends the node (not on the PV, not for a repeated position, not in
        // a singular test, which searches this node without its best move).
        let key = self.pos.key();
        let hit = self.probe(key, ply);
        let excluded = self.stack[ply].excluded;
        if !pv_node
            && !repeated
            && excluded.is_none()
            && let Some(e) = hit.cutting(depth, alpha, beta)
        {
            self.count_cutoff();
            return e.score;
        }
        // The static evaluation, none in check (every move is an evasion).
        let in_check = self.pos.in_check();
        let eval = if in_check {
            None
        } else {
            Some(self.static_eval())
        };
        let static_eval = eval.map(|e| e.value);
        // Root: its evaluation is not offered to the plies below, so that
        // ply 1 prunes as after an evasion (carefully, at the node every
        // line passes through) and ply 2 counts as improving.
        self.stack[ply].eval = match static_eval {
            _ if root => FrameEval::Root,
            Some(v) => FrameEval::Value(v),
            None => FrameEval::InCheck,
        };
        let improving = self.improving(ply);
        // Pruning by the static evaluation before any move: reverse
        // futility, then the null move (never on the PV, in check, in a
        // singular test or with a mate score as the bar).
        if !pv_node
            && excluded.is_none()
            && let Some(static_eval) = static_eval
            && !is_decisive(beta)
        {
            if let Some(s) = self.reverse_futility(static_eval, beta, depth, improving) {
                return s;
            }
            if let Some(s) = self.null_move(static_eval, beta, depth, ply, kind) {
                return s;
            }
        }
        let tt_moves = hit.moves();
        // Internal iterative reduction: a node the table knows no move for
        // was not searched before (or not usefully), so its move order is
        // guesswork; search it a ply shallower, and the next iteration,
        // finding the move this one stores, searches it at full depth.
        // Root: not reduced, its depth is the iteration's.
        let iir = !root && tt_moves[0].is_none() && excluded.is_none() && !self.classic();
        let depth = if iir && depth >= params::iir_depth() {
            self.count(|c| &mut c.iir);
            depth - 1
        } else {
            depth
        };
        let alpha_orig = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut searched = 0usize;
        let ctx = self.quiet_context(ply);
        let order = QuietOrder {
            killers: self.stack[ply].killers,
            counter: self.h.countermove(ctx.prev1),
            ctx,
        };
        // Quiet moves searched so far, to be punished if another one cuts.
        let mut quiets_tried: arrayvec::ArrayVec<(Move, PieceTo), 64> = arrayvec::ArrayVec::new();
        // Captures searched so far, with their victims, likewise.
        let mut captures_tried: arrayvec::ArrayVec<(Move, PieceTo, PieceKind), 32> =
            arrayvec::ArrayVec::new();
        let after_evasion = self.after_evasion(ply);
        let lmp = LateMovePruning::new(depth, improving, after_evasion);
        // Root: no singularity test, since the root list it takes its moves
        // from does not leave out an excluded move.
        let singular = if excluded.is_none() && !repeated && !root && !self.classic() {
            singular_candidate(&hit, depth)
        } else {
            None
        };
        let mut picker = MovePicker::new(tt_moves, order);
        // Root: its moves come from the root list instead (`root.rs`), in
        // the last pass's order, which holds what every earlier iteration
        // learnt about these very moves.
        let mut root_next = 0;
        loop {
            // Once late-move pruning would prune every quiet move, the
            // picker neither generates nor hands out any more of them.
            if !pv_node
                && !in_check
                && searched > 0
                && best > -MATE_BOUND
                && !self.classic()
                && lmp.prunes_every_quiet(searched)
            {
                picker.skip_quiets();
            }
            // A root move has no order score: it comes in the last pass's
            // order, and is reduced by depth and move number alone.
            let (mv, class, order_score, root_move) = if root {
                let Some((i, mv, class)) = self.next_root_move(&mut root_next) else {
                    break;
                };
                self.report_currmove(mv, searched);
                (mv, class, 0, Some(i))
            } else {
                let Some((mv, class, order_score)) = picker.next(&self.pos, self.h) else {
                    break;
                };
                if Some(mv) == excluded {
                    continue;
                }
                (mv, class, order_score, None)
            };
            // The table's move, when it looks singular, is tested before
            // it is made: extended if it is, and the node cut at once if
            // even without it the search beats beta.
            let mut singular_ext = 0;
            if let Some((smv, tt_score)) = singular
                && smv == mv
            {
                self.count(|c| &mut c.singular);
                match self.singular(mv, tt_score, beta, depth, ply, kind) {
                    Singular::Stopped => return 0,
                    Singular::MultiCut(s) => return s,
                    Singular::Extend(e) => singular_ext = e,
                }
            }
            // The victim's kind, asked once: the capture test below and the
            // capture history's key after the move.
            let victim = self.pos.piece_at(mv.to()).map(Piece::kind);
            let capture = victim.is_some();
            let pt = self.piece_to(mv);
            // Pruning of late moves (none in the classic search).
            let quiet_late =
                class == MoveClass::Quiet && searched > 0 && best > -MATE_BOUND && !self.classic();
            if !pv_node && !in_check && quiet_late && lmp.prunes(&self.pos, mv, searched) {
                self.count(|c| &mut c.late_pruned);
                continue;
            }
            // Futility: a quiet move at low depth that cannot lift the
            // static evaluation near alpha is not searched (unless it
            // checks).
            let futile_quiet =
                !pv_node && quiet_late && static_eval.is_some_and(|se| futile(se, depth, alpha));
            // SEE pruning: at low depth, a move that loses more material
            // in the exchange on its square than the depth can win back
            // (unless it checks: sacrifices that mate begin with a check).
            // A futile move goes whatever the exchange says, so the
            // exchange is not asked.
            let see_losing = !futile_quiet
                && !self.classic()
                && !pv_node
                && !in_check
                && searched > 0
                && best > -MATE_BOUND
                && class != MoveClass::TableMove
                && self.see_loses(mv, capture, depth);
            // The check is asked of the piece sets before the move is
            // made, so that a pruned move is never made; the extension
            // below reads the same answer.
            let checks = self.pos.gives_check(mv);
            if (see_losing || futile_quiet) && !checks {
                if futile_quiet {
                    self.count(|c| &mut c.futile);
                } else {
                    self.count(|c| &mut c.see_pruned);
                }
                continue;
            }
            // A check that loses material in the exchange on its square
            // is not extended: the reply that takes the piece refutes most
            // of them at once, and the few sacrifices that mate still get
            // their plies from the checks that follow.
            let losing_check = checks && !self.pos.see_ge(mv, 0, &SEE_VALUES);
            let nodes_before = self.nodes;
            self.stack[ply].moved = pt;
            self.make(mv);
            let gives_check = self.pos.in_check();
            let extension = self.extension(ply, gives_check && !losing_check, singular_ext);
            let new_depth = depth - 1 + extension;
            let score = if searched == 0 {
                -self.search(-beta, -alpha, new_depth, ply + 1, kind.first_child())
            } else {
                let late = searched as i32
                    >= if pv_node {
                        params::lmr_late_pv()
                    } else {
                        params::lmr_late_nonpv()
                    };
                let reducible = class == MoveClass::Quiet && !gives_check && !in_check;
                let r = if depth >= params::lmr_depth() && late && reducible && !self.classic() {
                    self.late_reduction(depth, searched, kind, improving, order_score)
                        .clamp(0, new_depth - 1)
                } else {
                    0
                };
                if r > 0 {
                    self.count(|c| &mut c.reduced);
                }
                self.search_late_move(alpha, beta, best, new_depth, r, ply, kind)
            };
            self.unmake();
            if let Some(i) = root_move {
                self.root_moves[i].nodes += self.nodes - nodes_before;
            }
            if self.stopped {
                return 0;
            }
            if let Some(i) = root_move {
                self.record_root_move(i, score, searched == 0 || score > alpha);
            }
            searched += 1;
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
            if let Some(pt) = pt {
                match victim {
                    None if !quiets_tried.is_full() => quiets_tried.push((mv, pt)),
                    Some(victim) if !captures_tried.is_full() => {
                        captures_tried.push((mv, pt, victim));
                    }
                    _ => {}
                }
            }
        }
        if let Some(bm) = best_move {
            // Root: it rewards its best move and teaches nothing else. Its
            // other moves were all searched and are not failures as a
            // later node's are, and a root killer would name a move at ply
            // 0, which no other node reaches.
            let (tried, captures, cut) = if root {
                (&[][..], &[][..], false)
            } else {
                (&quiets_tried[..], &captures_tried[..], best >= beta)
            };
            self.reward_quiet(bm, tried, ctx, ply, depth, cut);
            self.reward_capture(bm, captures, depth);
        }
        if searched == 0 {
            if excluded.is_some() {
                // Only the excluded move is legal: it is singular.
                return alpha_orig;
            }
            // Every move was pruned, which needs one searched first, so
            // none was legal: mated or stalemated, both lost in xiangqi.
            return -MATE + ply as i32;
        }
        // Root: it stores only its first line's result: a later line's
        // window leaves the better lines out.
        let root_own = !root || self.pv_idx == 0;
        if !repeated && excluded.is_none() && root_own {
            let bound = Bound::of_result(best, alpha_orig, beta);
            self.store(key, ply, best_move, best, depth, bound);
            if let Some(e) = eval
                && corrects(
                    e.value,
                    best,
                    bound,
                    best_move.is_some_and(|m| self.pos.is_capture(m)),
                )
            {
                self.corr.learn(e.keys, e.raw, best, depth);
            }
        }
        best
    }

    /// Whether the static evaluation at `ply` is better than two plies
    /// ago (our previous turn), so that pruning by it can afford to be
    /// bolder. In check (no static evaluation) it is not.
    fn improving(&self, ply: usize) -> bool {
        match self.stack[ply].eval {
            // Root: improving (its late moves reduced a ply less than a
            // worsening node's): it has no earlier turn to compare with, and
            // its moves are the ones that will be played.
            FrameEval::Root => true,
            FrameEval::InCheck => false,
            FrameEval::Value(now) => match ply.checked_sub(2).map(|p| self.stack[p].eval) {
                Some(FrameEval::Value(before)) => now > before,
                // Nothing to compare with: two plies back was in check,
                // or is the root (ply 2), which offers its evaluation to no
                // ply below, or there is no such ply (ply 1).
                Some(FrameEval::InCheck | FrameEval::Root) | None => true,
            },
        }
    }

    /// Reverse futility: a node at low depth whose static evaluation is
    /// far above beta returns it without searching (less far when the side
    /// is improving).
    fn reverse_futility(
        &mut self,
        static_eval: i32,
        beta: i32,
        depth: i32,
        improving: bool,
    ) -> Option<i32> {
        let margin = params::rfp_margin() * depth - params::rfp_improving() * i32::from(improving);
        if depth <= params::rfp_depth() && static_eval - margin >= beta && !self.classic() {
            self.count(|c| &mut c.reverse_futile);
            return Some(static_eval);
        }
        None
    }

    /// The null move: passing and still beating beta at reduced depth cuts
    /// the node. Only with attackers left (xiangqi zugzwang lives in
    /// endgames without them), and verified by a reduced search of the
    /// node itself unless the side has a chariot and three attackers.
    fn null_move(
        &mut self,
        static_eval: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        kind: NodeKind,
    ) -> Option<i32> {
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
}

/// Whether a node's result teaches the correction history about its
/// static evaluation `static_eval`: not when a capture was best (the
/// exchange, not the structure, made the difference), not a decisive
/// score (a mate says nothing of the evaluation), and not a bound on the
/// evaluation's own side of it (a lower bound below it, an upper bound
/// above it: the true score could be the evaluation itself).
fn corrects(static_eval: i32, best: i32, bound: Bound, capture_best: bool) -> bool {
    !capture_best
        && !is_decisive(best)
        && match bound {
            Bound::Lower => best > static_eval,
            Bound::Upper => best < static_eval,
            Bound::Exact => true,
        }
}

/// Chariots, horses and cannons of `color`.
fn attacker_count(pos: &Position, color: Color) -> u32 {
    pos.pieces(color, PieceKind::Rook).count()
        + pos.pieces(color, PieceKind::Knight).count()
        + pos.pieces(color, PieceKind::Cannon).count()
}

impl<M: Mode> Search<'_, M> {
    /// The quiet-move context of a node at `ply`, for the move order and
    /// the histories' lesson: the moves made at the two plies above it.
    fn quiet_context(&self, ply: usize) -> QuietContext {
        QuietContext {
            prev1: ply.checked_sub(1).and_then(|p| self.stack[p].moved),
            prev2: ply.checked_sub(2).and_then(|p| self.stack[p].moved),
        }
    }

    /// Whether the opponent's last move (the parent's) escaped a check,
    /// for late-move pruning.
    fn after_evasion(&self, ply: usize) -> bool {
        match ply.checked_sub(1).map(|p| self.stack[p].eval) {
            // Root: its children count as after an evasion, so that they
            // keep the general's steps late-move pruning would drop: care
            // at the node every line passes through.
            Some(FrameEval::InCheck | FrameEval::Root) => true,
            Some(FrameEval::Value(_)) | None => false,
        }
    }
}

/// Late-move pruning at one node: past a number of moves that grows with
/// the depth (halved when the position is not improving), quiet moves at
/// depth 4 or less are not searched at all — except the general's own
/// steps right after the opponent escaped a check. Its general is then in
/// a net that a step of ours onto a file often closes (the generals may
/// not face each other), and the histories rarely rank such steps
/// (`docs/lab/strength.md`, S16 and S18, has the mate that showed it).
struct LateMovePruning {
    /// Moves searched before pruning starts; `None` above depth 4.
    limit: Option<usize>,
    /// The opponent's last move escaped a check.
    after_evasion: bool,
}

impl LateMovePruning {
    fn new(depth: i32, improving: bool, after_evasion: bool) -> LateMovePruning {
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
    fn prunes_every_quiet(&self, searched: usize) -> bool {
        !self.after_evasion && self.limit.is_some_and(|limit| searched >= limit)
    }

    /// Whether a late quiet move `mv`, after `searched` moves, is pruned.
    /// The caller has checked that pruning applies at all (not a PV node,
    /// not in check, a quiet move after the first, no mate against us).
    fn prunes(&self, pos: &Position, mv: Move, searched: usize) -> bool {
        self.limit.is_some_and(|limit| searched >= limit)
            && !(self.after_evasion
                && pos
                    .piece_at(mv.from())
                    .is_some_and(|p| p.kind() == PieceKind::King))
    }
}

/// The table move and its score, when it is worth a singularity test: a
/// lower bound (or exact score) not decided by mate, searched nearly as
/// deep as this node.
fn singular_candidate(hit: &TtHit, depth: i32) -> Option<(Move, i32)> {
    if depth < params::singular_depth() {
        return None;
    }
    let e = hit.entries.iter().flatten().find(|e| e.mv.is_some())?;
    let deep = i32::from(e.depth) >= depth - params::singular_entry_depth();
    let lower = matches!(e.bound, Bound::Lower | Bound::Exact);
    (deep && lower && !is_decisive(e.score)).then_some((e.mv?, e.score))
}

impl<M: Mode> Search<'_, M> {
    /// The singular-extension test of table move `mv` (stored as a lower
    /// bound `tt_score`): the node is searched again at half depth without
    /// it, against a bar `2 × depth` below its score. Every other move
    /// failing that bar makes `mv` singular (extended one ply); the search
    /// without it beating beta cuts the node (multi-cut); a table score at
    /// or above beta that is not singular reduces `mv` a ply.
    fn singular(
        &mut self,
        mv: Move,
        tt_score: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        kind: NodeKind,
    ) -> Singular {
        let bar = tt_score - params::singular_margin() * depth;
        self.stack[ply].excluded = Some(mv);
        let s = self.search(bar - 1, bar, (depth - 1) / 2, ply, kind.null_window());
        self.stack[ply].excluded = None;
        if self.stopped {
            Singular::Stopped
        } else if s < bar {
            Singular::Extend(1)
        } else if bar >= beta {
            Singular::MultiCut(bar)
        } else if tt_score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }
}

/// What [`Search::singular`] found.
enum Singular {
    /// The search stopped meanwhile.
    Stopped,
    /// The node's score without searching its moves.
    MultiCut(i32),
    /// Plies to add to (or, negative, take from) the move's depth.
    Extend(i32),
}

/// Futility: whether a quiet move at low depth cannot lift the static
/// evaluation near alpha.
fn futile(static_eval: i32, depth: i32, alpha: i32) -> bool {
    depth <= params::futility_depth()
        && static_eval + params::futility_base() + params::futility_per_depth() * depth <= alpha
}

impl<M: Mode> Search<'_, M> {
    /// SEE pruning: at low depth, whether `mv` loses more material in the
    /// exchange on its square than the depth can win back. (The caller
    /// still searches it if it checks: sacrifices that mate begin with a
    /// check.)
    fn see_loses(&self, mv: Move, capture: bool, depth: i32) -> bool {
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

    /// The plies added to a move's depth: one when it gives check, and
    /// what the singularity test found (`singular`, -1 to 1): a singular
    /// reduction counts against the check's ply, an extension does not add
    /// to it. None beyond twice the iteration's depth from the root, so that
    /// a line of checks cannot extend without end.
    fn extension(&self, ply: usize, gives_check: bool, singular: i32) -> i32 {
        if ply as i32 >= 2 * self.root_depth {
            return 0;
        }
        let check = i32::from(gives_check);
        if singular < 0 {
            check + singular
        } else {
            check.max(singular)
        }
    }

    /// The late-move reduction of the `searched`-th move at `depth`, before
    /// clamping. The move's order score steers it: a move that often cut
    /// elsewhere, or takes a threatened piece to safety, is reduced less,
    /// one that failed more. At an expected cut node a late
    /// quiet move is reduced more: one of the first moves is expected to
    /// cut, and the later ones matter only if none did.
    fn late_reduction(
        &self,
        depth: i32,
        searched: usize,
        kind: NodeKind,
        improving: bool,
        order_score: i32,
    ) -> i32 {
        self.reductions.get(depth, searched) - i32::from(kind == NodeKind::Pv)
            + i32::from(!improving)
            + if kind.expects_cut() {
                params::lmr_cut_node()
            } else {
                0
            }
            - order_score / params::lmr_history_unit()
    }

    /// Searches a move after the first with a null window around `alpha`,
    /// reduced by `r`; a reduced search that beats alpha is repeated at
    /// full depth (a ply deeper when it beat alpha by far, a ply shallower
    /// when it barely beat the node's best so far), and at a PV node one
    /// that lands inside the window is searched again with the full
    /// window. The move is already made. A reduced child is expected to
    /// cut (it is reduced because its move is expected to fail low); one
    /// searched at full depth takes the kind the node gives its children
    /// ([`NodeKind::later_child`]).
    #[allow(clippy::too_many_arguments)]
    fn search_late_move(
        &mut self,
        alpha: i32,
        beta: i32,
        best: i32,
        new_depth: i32,
        r: i32,
        ply: usize,
        kind: NodeKind,
    ) -> i32 {
        let full = kind.later_child();
        let mut s = if r > 0 {
            -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, NodeKind::Cut)
        } else {
            -self.search(-alpha - 1, -alpha, new_depth, ply + 1, full)
        };
        let mut new_depth = new_depth;
        if s > alpha && r > 0 {
            let deeper = s > alpha + params::lmr_deeper_base() + params::lmr_deeper_per_ply() * r;
            let shallower = s < best + new_depth;
            let reduced = new_depth - r;
            new_depth += i32::from(deeper) - i32::from(shallower);
            if new_depth > reduced {
                s = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, full);
            }
        }
        if kind == NodeKind::Pv && s > alpha && s < beta {
            s = -self.search(-beta, -alpha, new_depth, ply + 1, NodeKind::Pv);
        }
        s
    }

    /// Teaches the histories a node's result when its best move is quiet:
    /// a bonus for it, a malus for the quiet moves tried before it, and
    /// when it cut off, the killer of its ply.
    fn reward_quiet(
        &mut self,
        best: Move,
        tried: &[(Move, PieceTo)],
        ctx: QuietContext,
        ply: usize,
        depth: i32,
        cut: bool,
    ) {
        if !self.pos.is_capture(best)
            && let Some(pt) = self.piece_to(best)
        {
            self.h.update_quiet((best, pt), tried, ctx, depth, cut);
            if cut {
                self.stack[ply].add_killer(best);
            }
        }
    }

    /// Teaches the capture history a node's result: a bonus for its best
    /// move when that captures, a malus for the captures `tried` before it.
    fn reward_capture(&mut self, best: Move, tried: &[(Move, PieceTo, PieceKind)], depth: i32) {
        let best = self.piece_to(best).and_then(|pt| {
            self.pos
                .piece_at(best.to())
                .map(|victim| (best, pt, victim.kind()))
        });
        self.h.update_captures(best, tried, depth);
    }
}

#[cfg(test)]
mod tests {
    use board::Position;

    use super::*;
    use crate::score::MATE;
    use crate::tt::TtEntry;

    fn entry(mv: Option<Move>, score: i32, depth: u8, bound: Bound) -> Option<TtEntry> {
        Some(TtEntry {
            mv,
            score,
            depth,
            bound,
            generation: 0,
        })
    }

    #[test]
    fn singular_candidates_are_deep_lower_bounds_with_a_move() {
        let mv = Position::startpos().parse_move("h2e2").ok();
        let hit = |e: Option<TtEntry>| TtHit { entries: [e, None] };
        let lower = entry(mv, 35, 8, Bound::Lower);
        // Deep enough (entry depth ≥ node depth − 3), from SINGULAR_DEPTH on.
        assert_eq!(singular_candidate(&hit(lower), 11), Some((mv.unwrap(), 35)));
        assert_eq!(singular_candidate(&hit(lower), 7), Some((mv.unwrap(), 35)));
        assert_eq!(singular_candidate(&hit(lower), 6), None);
        assert_eq!(singular_candidate(&hit(lower), 12), None);
        // An exact score qualifies; an upper bound says nothing of the move.
        assert!(singular_candidate(&hit(entry(mv, 35, 8, Bound::Exact)), 9).is_some());
        assert_eq!(
            singular_candidate(&hit(entry(mv, 35, 8, Bound::Upper)), 9),
            None
        );
        // A mate score is not tested: the bar below it means nothing.
        assert_eq!(
            singular_candidate(&hit(entry(mv, MATE - 10, 8, Bound::Lower)), 9),
            None
        );
        // The first entry with a move is the one tested.
        let both = TtHit {
            entries: [entry(None, 50, 10, Bound::Lower), lower],
        };
        assert_eq!(singular_candidate(&both, 9), Some((mv.unwrap(), 35)));
    }
}
