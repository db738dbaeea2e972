//! What one search is to each thread of the pool: the [`Task`] they all
//! read and the [`ThreadResult`] each leaves behind. The pool
//! (`crate::pool`) hands these over and the worker
//! ([`super::Worker`]) produces them, so they live here, below both.

use std::sync::Arc;

use board::Position;

use super::ExperimentStats;
use crate::nnue::Network;
use crate::tt::TranspositionTable;
use crate::{Control, Experiment, Limits, Report, SearchResult};

/// One search, as every thread sees it.
pub(crate) struct Task {
    /// The root position with its game history.
    pub(crate) pos: Position,
    /// The limits (the main thread applies them all; helpers honour only
    /// `nodes`, the root moves and `multipv`).
    pub(crate) limits: Limits,
    /// The experiment this search is (`None`: play).
    pub(crate) experiment: Option<Experiment>,
    /// The shared table.
    pub(crate) tt: Arc<TranspositionTable>,
    /// Stop flag, clock start and node counters.
    pub(crate) control: Arc<Control>,
    /// The network that evaluates (`None`: the hand-written evaluation);
    /// each thread keeps its own accumulators.
    pub(crate) network: Option<Arc<Network>>,
}

/// What one thread's search left behind.
pub(crate) struct ThreadResult {
    /// The thread's own result; the main thread's carries the totals and
    /// the chosen move.
    pub(crate) result: SearchResult,
    /// The internal score of `result.best`, to compare threads.
    pub(crate) raw_score: i32,
    /// The line of `result.best` as a report, for announcing a helper's
    /// move when it is chosen.
    pub(crate) report: Option<Report>,
    /// Experimental statistics (summed over the threads in the main result;
    /// zero in play).
    pub(crate) stats: ExperimentStats,
}
