//! The search: iterative deepening with aspiration windows over one
//! fail-soft principal-variation search that serves the root and the
//! interior alike, and quiescence at the horizon.
//!
//! One node, from entry to return, is `node`'s [`Search::search`]: its
//! module doc lists what a node tries, in order, and the root's
//! differences. The root is a node like any other, with a few duties of
//! its own, each an explicit branch on `root` in that function and the
//! hooks in `root` (its moves, their records and reports).
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
//! The children: `node` (the node function and every decision it asks:
//! the rules' verdict aside, the pruning, reductions and extensions, and
//! the node kinds), `root` (iterative deepening, aspiration, the root
//! moves and reports), `quiescence`, `position` (making moves with the
//! accumulators in step, the evaluation), `table` (probes and stores, by
//! play or experiment), `stop` (node counts, limits, the clock), `rule`
//! (naming the rule behind a root score), `stack` (the per-ply frames and
//! the PV), `experiment` (the two modes, and what an experiment counts),
//! `task` (what the threads share) and `worker` (the per-thread state).

use std::marker::PhantomData;
use std::ops::ControlFlow::{self, Break, Continue};

use board::Position;

use crate::correction::{CorrectionHistory, CorrectionKeys};
use crate::history::Histories;
use crate::nnue::{AccumulatorStack, Network};
use crate::score::verdict_score;
use crate::time::{TimeBudget, TimeSignals};
use crate::tt::TranspositionTable;
use crate::{Control, Event, Experiment, Limits};

mod experiment;
mod node;
mod position;
mod quiescence;
mod root;
mod rule;
mod stack;
mod stop;
mod table;
mod task;
mod worker;

use node::{FrameEval, NodeKind};
pub(crate) use position::clamp_network_score;
use root::RootMove;
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
    /// What the searches found of the static evaluation's error.
    corr: &'a mut CorrectionHistory,
    /// The current position's correction keys, kept move by move.
    keys: CorrectionKeys,
    /// The keys of the positions above it on the line, to restore them.
    keys_above: &'a mut Vec<CorrectionKeys>,
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
            correction,
            corr_keys,
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
            corr: correction.as_mut(),
            keys: CorrectionKeys::of(&task.pos),
            keys_above: {
                corr_keys.clear();
                corr_keys
            },
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
    pub(super) fn judge(&self, ply: usize) -> ControlFlow<i32, bool> {
        let j = self.pos.judge_node(ply);
        match j.verdict {
            Some(v) => Break(verdict_score(v, ply)),
            None => Continue(j.repeated),
        }
    }
}
