//! The search's side of the table: in play the two-tier rule is called
//! directly, so that play compiles no policy choice and no counting; a
//! experiment goes through the table's policy and counts probes, hits and
//! cut-offs.

use board::Move;

use super::{Mode, Search};
use crate::score::Bound;
use crate::tt::TtHit;

impl<M: Mode> Search<'_, M> {
    /// The table's entries for `key`, by the experiment's policy in an experiment
    /// (counted), by the two-tier rule in play.
    #[inline]
    pub(super) fn probe(&mut self, key: u64, ply: usize) -> TtHit {
        if !M::EXPERIMENT {
            return self.tt.probe_two_tier(key, ply);
        }
        let hit = self.tt.probe(key, ply);
        if self.tt.policy() != crate::TtPolicy::Off {
            self.stats.table.probes += 1;
            if hit.any() {
                self.stats.table.hits += 1;
            }
        }
        hit
    }

    /// Stores a node's result, by the experiment's policy in an experiment, by the
    /// two-tier rule in play.
    #[inline]
    pub(super) fn store(
        &self,
        key: u64,
        ply: usize,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        b: Bound,
    ) {
        if M::EXPERIMENT {
            self.tt.store(key, ply, mv, score, depth, b);
        } else {
            self.tt.store_two_tier(key, ply, mv, score, depth, b);
        }
    }

    /// Whether this is the classic search of an experiment ([`crate::Experiment`]);
    /// never in play.
    #[inline]
    pub(super) fn classic(&self) -> bool {
        M::EXPERIMENT && self.experiment.classic
    }

    /// Counts a cut-off by the table (experiments only).
    #[inline]
    pub(super) fn count_cutoff(&mut self) {
        if M::EXPERIMENT {
            self.stats.table.cutoffs += 1;
        }
    }
}
