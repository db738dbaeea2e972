//! How a search is compiled ([`Mode`]: [`Play`] or [`Experimental`]) and
//! what an experiment ([`crate::Experiment`]) counts besides the table:
//! how often each selective-search feature acted. Play compiles none of the counting
//! (`M::EXPERIMENT` is false), so the counters cost the games nothing; the
//! classic search must show zero for every feature it switches off, which
//! is how the tests check its switches.

use super::Search;
use crate::tt::TtStats;

/// How a search is compiled: for play, or for an experiment.
pub(crate) trait Mode {
    /// Whether the search honours an [`Experiment`](crate::Experiment)
    /// and counts table statistics.
    const EXPERIMENT: bool;
}

/// Games and the bench signature: the shipped search, nothing else.
pub(crate) enum Play {}

impl Mode for Play {
    const EXPERIMENT: bool = false;
}

/// An experiment: its table policy and switches, and table statistics.
pub(crate) enum Experimental {}

impl Mode for Experimental {
    const EXPERIMENT: bool = true;
}

/// How often each selective-search feature acted, summed over an
/// experiment's threads (all zero in play).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FeatureCounts {
    /// Nodes searched a ply shallower for want of a table move (internal
    /// iterative reduction).
    pub iir: u64,
    /// Singular-extension tests of a table move.
    pub singular: u64,
    /// Late moves searched with a reduction.
    pub reduced: u64,
    /// Late quiet moves pruned by count (late-move pruning).
    pub late_pruned: u64,
    /// Quiet moves pruned by futility.
    pub futile: u64,
    /// Moves pruned because they lose the exchange (SEE pruning).
    pub see_pruned: u64,
    /// Nodes cut by reverse futility (static evaluation far above beta).
    pub reverse_futile: u64,
    /// Nodes cut by the null move (the classic search keeps it).
    pub null_cutoffs: u64,
}

impl std::ops::AddAssign for FeatureCounts {
    fn add_assign(&mut self, o: FeatureCounts) {
        self.iir += o.iir;
        self.singular += o.singular;
        self.reduced += o.reduced;
        self.late_pruned += o.late_pruned;
        self.futile += o.futile;
        self.see_pruned += o.see_pruned;
        self.reverse_futile += o.reverse_futile;
        self.null_cutoffs += o.null_cutoffs;
    }
}

/// Everything an experiment counts, per thread and summed over the threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExperimentStats {
    /// Table probes, hits and cut-offs.
    pub table: TtStats,
    /// The selective-search features that acted.
    pub features: FeatureCounts,
}

impl std::ops::AddAssign for ExperimentStats {
    fn add_assign(&mut self, o: ExperimentStats) {
        self.table += o.table;
        self.features += o.features;
    }
}

impl<M: Mode> Search<'_, M> {
    /// Counts one action of the feature `which` picks (experiments only).
    #[inline]
    pub(super) fn count(&mut self, which: fn(&mut FeatureCounts) -> &mut u64) {
        if M::EXPERIMENT {
            *which(&mut self.stats.features) += 1;
        }
    }
}
