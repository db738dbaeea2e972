//! What a search tells its caller: an [`Event`] while it runs (an
//! iteration's [`Report`], the move being searched) and one
//! [`SearchResult`] when it ends. Printing them is the protocol's job.

use std::time::Duration;

use board::{Move, Reason};

use crate::{Bound, Score};

/// Nodes a second, `nodes` searched in `elapsed` (saturating; an instant
/// counts as a nanosecond): the one formula of reports, results and the
/// bench.
pub fn nodes_per_second(nodes: u64, elapsed: Duration) -> u64 {
    u64::try_from(u128::from(nodes) * 1_000_000_000 / elapsed.as_nanos().max(1)).unwrap_or(u64::MAX)
}

/// One iteration's (or one PV line's) result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Completed depth.
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Index of this line, 1-based.
    pub multipv: usize,
    /// Score of the line.
    pub score: Score,
    /// Whether the score is exact or a bound (aspiration fail).
    pub bound: Bound,
    /// `Some` when the score is a rule verdict (perpetual check, chase…)
    /// rather than a mate, or a draw the line reaches by rule (move limit,
    /// repetition, insufficient material) rather than an even evaluation.
    pub rule: Option<Reason>,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Time since the search started.
    pub time: Duration,
    /// Table occupancy by the current search, per mille.
    pub hashfull: u32,
    /// Principal variation.
    pub pv: Vec<Move>,
}

/// What a running search tells its caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// An iteration (or an aspiration bound) completed.
    Iteration(Report),
    /// The root move being searched now.
    CurrMove {
        /// The move.
        mv: Move,
        /// Its 1-based number in the root move order.
        number: usize,
        /// The iteration.
        depth: u32,
    },
}

/// The one answer to each [`Engine::start`](crate::Engine::start).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Best move; `None` only when no (allowed) legal move exists or for
    /// `depth 0`.
    pub best: Option<Move>,
    /// Expected reply (second PV move), legal after `best`.
    pub ponder: Option<Move>,
    /// Score of `best`.
    pub score: Score,
    /// `Some` when the score is a rule verdict rather than a mate, or a
    /// rule draw (see [`Report::rule`]).
    pub rule: Option<Reason>,
    /// Last completed depth.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time used.
    pub time: Duration,
}

impl SearchResult {
    /// The answer of a search that searched nothing: no move, an even
    /// score.
    pub fn empty() -> SearchResult {
        SearchResult {
            best: None,
            ponder: None,
            score: Score::Cp(0),
            rule: None,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
        }
    }
}
