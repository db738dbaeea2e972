//! The search: iterative deepening with aspiration windows over one
//! fail-soft principal-variation search that serves the root and the
//! interior alike, and quiescence at the horizon.
//!
//! A node, in the order [`Search::search`] tries things: quiescence at
//! depth 0; the node count and the stop poll; the rules' verdict
//! (repetition with perpetual check and chase, the move limit, material);
//! mate-distance pruning; the table's cut-off; the static evaluation (a
//! network or the hand-written one, through a per-thread cache); reverse
//! futility and the null move with verification (`prune`); internal
//! iterative reduction at a node the table knows no move for. Then the
//! moves, from the staged picker (`movepick.rs`): the table move may be
//! tested for singularity (extended, or the node cut by multi-cut);
//! late-move pruning, futility pruning and SEE pruning skip hopeless late
//! moves; a check extends a ply; late quiet moves are reduced by a
//! logarithmic table steered by history, and re-searched when they beat
//! alpha. A quiet best move teaches the histories (a bonus for it, a
//! malus for the quiet moves tried before it, the killer and the
//! countermove).
//!
//! The root is a node like any other, with a few duties of its own, each
//! a branch on `ply == 0` through hooks in `root`: it is not judged by the
//! rules or reduced; it searches only the root moves of the current line
//! (`MultiPV`, `searchmoves`), in the root list's order (the last pass's,
//! best first); each move's nodes, score and line are recorded and the
//! move being searched is reported; its best move gets the bonus without
//! the malus or killer; and its static evaluation is kept from its
//! descendants. The last three are what games chose (`root`'s module
//! doc says how).
//!
//! A [`Search`] is one thread's view of one search: it borrows its
//! thread's [`Worker`] (histories, ply stack, evaluation cache,
//! accumulators: everything kept from one search to the next) and the
//! [`Task`] the threads share (the table, the stop flag, the limits, the
//! network). There are no mutable globals, so several threads share one
//! table (Lazy SMP, run by `pool.rs`): thread 0 is the main thread, which
//! alone reads the clock and reports; helpers skip some depths (`stop`)
//! so that they do not all search the same tree.
//!
//! The search is generic over its [`Mode`]: games and the bench signature
//! run [`Play`], the table experiments [`Experimental`], which honours the
//! [`Experiment`](crate::Experiment) settings and counts table statistics
//! and the selective features that act. Play compiles none of that in.
//!
//! The children: `node` (everything a node does before its moves, and the
//! node kinds), `root` (iterative deepening, aspiration, the root moves
//! and reports), `quiescence`, `prune` (the pruning and reduction tests),
//! `singular` (singular extensions and multi-cut), `position` (making
//! moves with the accumulators in step, the evaluation), `table` (probes
//! and stores, by play or experiment), `stop` (node counts, limits, the
//! clock), `rule` (naming the rule behind a root score), `stack` (the
//! per-ply frames and the PV), `experiment` (the two modes, and what an experiment
//! counts) and `worker` (the per-thread state).

use std::marker::PhantomData;
use std::ops::ControlFlow::{self, Break, Continue};

use board::{Move, Position};

use crate::history::{Histories, PieceTo, QuietContext};
use crate::movepick::{MoveClass, MovePicker, QuietOrder};
use crate::nnue::{AccumulatorStack, Network};
use crate::params;
use crate::score::{Bound, INFINITE, MATE, MATE_BOUND, verdict_score};
use crate::time::{TimeBudget, TimeSignals};
use crate::tt::TranspositionTable;
use crate::{Control, Event, Experiment, Limits};

mod experiment;
mod node;
mod position;
mod prune;
mod quiescence;
mod root;
mod rule;
mod singular;
mod stack;
mod stop;
mod table;
mod task;
mod worker;

use node::{Node, NodeKind};
pub(crate) use position::clamp_network_score;
use prune::{LateMovePruning, futile};
use root::RootMove;
use singular::{Singular, singular_candidate};
use stack::Stack;
pub(crate) use task::{Task, ThreadResult};
use worker::{EvalCache, Reductions};

pub use experiment::{ExperimentStats, FeatureCounts};
pub(crate) use experiment::{Experimental, Mode, Play};
pub(crate) use worker::Worker;

/// One thread's view of one search (module docs).
pub(crate) struct Search<'a, M: Mode> {
    tt: &'a TranspositionTable,
    control: &'a Control,
    limits: &'a Limits,
    /// The network, when it evaluates instead of the hand-written
    /// evaluation.
    net: Option<&'a Network>,
    /// The experiment's settings (the defaults in play).
    experiment: Experiment,
    /// This thread's place in the pool (see [`Worker`]).
    id: usize,
    h: &'a mut Histories,
    stack: &'a mut Stack,
    eval_cache: &'a mut EvalCache,
    /// The network's accumulators by ply (unused without a network).
    acc: &'a mut AccumulatorStack,
    reductions: &'a Reductions,
    root_moves: &'a mut Vec<RootMove>,
    /// What the completed iterations say about the move's difficulty, for
    /// the soft time bound (main thread).
    signals: &'a mut TimeSignals,
    pos: Position,
    budget: TimeBudget,
    /// Nodes visited (search and quiescence).
    pub(crate) nodes: u64,
    /// Table and feature statistics (counted by experiments only).
    pub(crate) stats: ExperimentStats,
    seldepth: usize,
    root_depth: i32,
    /// The root line being searched (MultiPV): root moves before it are
    /// left out.
    pv_idx: usize,
    /// Where the main thread's reports go (a no-op for helpers).
    on_event: &'a mut dyn FnMut(Event),
    stopped: bool,
    /// False during the first iteration, which always completes.
    may_stop: bool,
    mode: PhantomData<M>,
}

impl<'a, M: Mode> Search<'a, M> {
    /// Thread `worker`'s search of `task`, reporting to `on_event`.
    pub(crate) fn new(
        worker: &'a mut Worker,
        task: &'a Task,
        on_event: &'a mut dyn FnMut(Event),
    ) -> Search<'a, M> {
        let Worker {
            id,
            histories,
            stack,
            eval_cache,
            acc,
            reductions,
            root_moves,
            signals,
        } = worker;
        Search {
            tt: &task.tt,
            control: &task.control,
            limits: &task.limits,
            net: task.network.as_deref(),
            experiment: task.experiment.unwrap_or_default(),
            id: *id,
            h: histories.as_mut(),
            stack: stack.as_mut(),
            eval_cache,
            acc,
            reductions,
            root_moves,
            signals,
            pos: task.pos.clone(),
            budget: TimeBudget::new(&task.limits),
            nodes: 0,
            stats: ExperimentStats::default(),
            seldepth: 0,
            root_depth: 0,
            pv_idx: 0,
            on_event,
            stopped: false,
            may_stop: false,
            mode: PhantomData,
        }
    }

    /// The quiet-move context of a node at `ply`: the moves made at the
    /// two plies above it.
    fn quiet_context(&self, ply: usize) -> QuietContext {
        QuietContext {
            prev1: ply.checked_sub(1).and_then(|p| self.stack[p].moved),
            prev2: ply.checked_sub(2).and_then(|p| self.stack[p].moved),
        }
    }

    /// Judges a node by the game rules `ply` plies from the root
    /// (`board`'s [`Position::judge_node`]: repetition with perpetual check
    /// and chase, the move limit, insufficient material): `Break(score)`
    /// when a rule decides it, else `Continue(repeated)`, whether the
    /// position occurred before in the repetition window. Rule wins and
    /// losses score like mates at the same distance.
    ///
    /// A repeated node is searched without the table's help: its value
    /// depends on the path (a perpetual whose twofold was not trusted is
    /// judged at the threefold further down), and an entry stored for the
    /// same position reached another way, in this search or an earlier one,
    /// would cut that judgement off. For the same reason its own result is
    /// not stored.
    #[inline]
    fn judge(&self, ply: usize) -> ControlFlow<i32, bool> {
        let j = self.pos.judge_node(ply);
        match j.verdict {
            Some(v) => Break(verdict_score(v, ply)),
            None => Continue(j.repeated),
        }
    }

    /// Fail-soft PVS at a node `ply` plies from the root (the root itself
    /// at ply 0).
    fn search(&mut self, alpha: i32, beta: i32, depth: i32, ply: usize, kind: NodeKind) -> i32 {
        let Node {
            mut alpha,
            beta,
            key,
            hit,
            repeated,
            in_check,
            static_eval,
            improving,
        } = match self.open_node(alpha, beta, depth, ply, kind) {
            Continue(node) => node,
            Break(score) => return score,
        };
        let root = ply == 0;
        let pv_node = kind == NodeKind::Pv;
        let tt_moves = hit.moves();
        let excluded = self.stack[ply].excluded;
        // Internal iterative reduction: a node the table knows no move for
        // was not searched before (or not usefully), so its move order is
        // guesswork; search it a ply shallower, and the next iteration,
        // finding the move this one stores, searches it at full depth. The
        // root's depth is the iteration's.
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
        let after_evasion = ply >= 1 && self.stack[ply - 1].static_eval.is_none();
        let lmp = LateMovePruning::new(depth, improving, after_evasion);
        let singular = if excluded.is_none() && !repeated && !root && !self.classic() {
            singular_candidate(&hit, depth)
        } else {
            None
        };
        let mut picker = MovePicker::new(tt_moves, order);
        // The root's moves come from the root list instead (`root.rs`).
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
                match self.singular(mv, tt_score, beta, depth, ply) {
                    Singular::Stopped => return 0,
                    Singular::MultiCut(s) => return s,
                    Singular::Extend(e) => singular_ext = e,
                }
            }
            let capture = self.pos.is_capture(mv);
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
            // made, so that a pruned move is never made.
            if (see_losing || futile_quiet) && !self.pos.gives_check(mv) {
                if futile_quiet {
                    self.count(|c| &mut c.futile);
                } else {
                    self.count(|c| &mut c.see_pruned);
                }
                continue;
            }
            let nodes_before = self.nodes;
            self.stack[ply].moved = pt;
            self.make(mv);
            let gives_check = self.pos.in_check();
            let extension = if (ply as i32) < 2 * self.root_depth {
                let check = i32::from(gives_check);
                if singular_ext < 0 {
                    check + singular_ext
                } else {
                    check.max(singular_ext)
                }
            } else {
                0
            };
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
                    self.late_reduction(depth, searched, pv_node, improving, order_score)
                        .clamp(0, new_depth - 1)
                } else {
                    0
                };
                if r > 0 {
                    self.count(|c| &mut c.reduced);
                }
                self.search_late_move(alpha, beta, new_depth, r, ply, pv_node)
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
            if !capture
                && let Some(pt) = pt
                && !quiets_tried.is_full()
            {
                quiets_tried.push((mv, pt));
            }
        }
        if let Some(bm) = best_move {
            // The root rewards its best move and teaches nothing else: no
            // malus for the root moves tried before it and no killer, as
            // the root with a move loop of its own did (games kept it:
            // docs/lab/strength.md).
            let (tried, cut) = if root {
                (&[][..], false)
            } else {
                (&quiets_tried[..], best >= beta)
            };
            self.reward_quiet(bm, tried, ctx, ply, depth, cut);
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
        // The root stores only its first line's result: a later line's
        // window leaves the better lines out.
        let root_own = !root || self.pv_idx == 0;
        if !repeated && excluded.is_none() && root_own {
            let bound = Bound::of_result(best, alpha_orig, beta);
            self.store(key, ply, best_move, best, depth, bound);
        }
        best
    }

    /// Searches a move after the first with a null window around `alpha`,
    /// reduced by `r`; a reduced search that beats alpha is repeated at
    /// full depth, and at a PV node one that lands inside the window is
    /// searched again with the full window. The move is already made.
    fn search_late_move(
        &mut self,
        alpha: i32,
        beta: i32,
        new_depth: i32,
        r: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        let mut s = -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, NodeKind::NonPv);
        if s > alpha && r > 0 {
            s = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, NodeKind::NonPv);
        }
        if pv_node && s > alpha && s < beta {
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
}
