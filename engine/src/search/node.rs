//! Opening a node: everything [`Search::search`] does before its moves
//! (quiescence at the horizon, the node count and stop poll, the rules'
//! verdict, mate-distance pruning, the table's cut-off, the static
//! evaluation and the pruning by it), what an open node knows ([`Node`])
//! and what a node is to the search ([`NodeKind`]).

use std::ops::ControlFlow::{self, Break, Continue};

use super::{Mode, Search};
use crate::score::{MATE, MAX_PLY, is_decisive};
use crate::tt::TtHit;

impl<M: Mode> Search<'_, M> {
    /// Everything a node does before its moves: quiescence at depth 0, the
    /// node count and stop poll, the rules' verdict, mate-distance pruning,
    /// the table's cut-off, the static evaluation, and pruning by it.
    /// `Break` carries the node's score when one of them already decides
    /// it.
    pub(super) fn open_node(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        kind: NodeKind,
    ) -> ControlFlow<i32, Node> {
        if depth <= 0 {
            return Break(self.qsearch(alpha, beta, ply));
        }
        let pv_node = kind == NodeKind::Pv;
        self.stack.clear_pv(ply);
        self.nodes += 1;
        if self.poll() {
            return Break(0);
        }
        self.seldepth = self.seldepth.max(ply);
        // The root must give a move, whatever the game's history says of it.
        let repeated = if ply == 0 { false } else { self.judge(ply)? };
        if ply >= MAX_PLY - 1 {
            return Break(self.evaluate());
        }
        // Mate-distance pruning: no line from here beats a mate already
        // found closer to the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return Break(alpha);
        }
        let key = self.pos.key();
        let hit = self.probe(key, ply);
        let excluding = self.stack[ply].excluded.is_some();
        if !pv_node
            && !repeated
            && !excluding
            && let Some(e) = hit.cutting(depth, alpha, beta)
        {
            self.count_cutoff();
            return Break(e.score);
        }
        let in_check = self.pos.in_check();
        let static_eval = if in_check {
            None
        } else {
            Some(self.evaluate())
        };
        // The root keeps its evaluation from its descendants, as the root
        // with a move loop of its own did (games kept it:
        // docs/lab/strength.md): ply 1 then prunes as after an evasion, and
        // ply 2 counts as improving.
        let root = ply == 0;
        self.stack[ply].static_eval = if root { None } else { static_eval };
        let improving = root || self.improving(ply);
        if !pv_node
            && !excluding
            && let Some(static_eval) = static_eval
            && !is_decisive(beta)
            && let Some(s) = self.prune_before_moves(beta, depth, ply, kind, static_eval, improving)
        {
            return Break(s);
        }
        Continue(Node {
            alpha,
            beta,
            key,
            hit,
            repeated,
            in_check,
            static_eval,
            improving,
        })
    }
}

/// What a node knows once it is open and not yet decided (see
/// `Search::open_node`).
pub(super) struct Node {
    /// The window after mate-distance pruning.
    pub(super) alpha: i32,
    pub(super) beta: i32,
    /// The position's key, for the table store at the end.
    pub(super) key: u64,
    /// What the table holds for it.
    pub(super) hit: TtHit,
    /// The position repeats one on the path: its score depends on the path
    /// and stays out of the table.
    pub(super) repeated: bool,
    pub(super) in_check: bool,
    /// `None` in check.
    pub(super) static_eval: Option<i32>,
    /// See `Search::improving`.
    pub(super) improving: bool,
}

/// What a node is to the search, which decides what it may skip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeKind {
    /// On the principal variation: searched with an open window, never
    /// cut off by the table or pruned by the static evaluation.
    Pv,
    /// Searched with a null window to prove a bound.
    NonPv,
    /// A null-window node where null-move pruning is off: right after a
    /// null move (two passes in a row prove nothing) and the null move's
    /// verification search.
    NoNull,
}

impl NodeKind {
    /// Whether the node may try a null move.
    pub(super) fn null_move_allowed(self) -> bool {
        self != NodeKind::NoNull
    }

    /// The kind of the node's first child: a PV node's first move
    /// continues the PV; below any other node, null move is allowed again.
    pub(super) fn first_child(self) -> NodeKind {
        if self == NodeKind::Pv {
            NodeKind::Pv
        } else {
            NodeKind::NonPv
        }
    }
}
