//! When a searching thread stops: its place in the pool (the main thread
//! and the helpers' skipped depths), the node counts it shares with the
//! other threads, the node limit, the clock, and the poll every node
//! makes. How the thread searches is the parent module's business.

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::{Mode, Search};

/// Nodes between clock reads (at a few million nodes per second, well
/// under a millisecond).
const CLOCK_CHECK_NODES: u64 = 1024;
/// With several threads, nodes between publishing this thread's count
/// and checking the total against a node limit (a power of two).
const NODE_SHARE_INTERVAL: u64 = 256;
impl<M: Mode> Search<'_, M> {
    pub(super) fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Whether a helper leaves out iteration `depth`. Helpers are taken in
    /// groups of twenty; within a group, helper `k` gets a cycle length `c`
    /// (1 for the first two, 2 for the next four, 3 for the next six, 4 for
    /// the last eight) and a phase `p` (its place within those of the same
    /// length), and skips the depths where `(depth + p) / c` is odd. So
    /// helper 1 searches only the even depths, helper 2 only the odd ones,
    /// and longer cycles keep the rest a few iterations apart: at any time
    /// the threads work at mixed depths, and a helper ahead of the main
    /// thread fills the table with entries the main thread's next
    /// iteration uses. The main thread skips nothing.
    pub(super) fn skips(&self, depth: u32) -> bool {
        if self.is_main() {
            return false;
        }
        let mut k = (self.id - 1) % 20;
        let mut cycle = 1;
        while k >= 2 * cycle {
            k -= 2 * cycle;
            cycle += 1;
        }
        ((depth as usize + k) / cycle) % 2 == 1
    }

    /// Makes this thread's node count visible to the others.
    pub(crate) fn publish_nodes(&self) {
        if let Some(c) = self.control.nodes.get(self.id) {
            c.0.store(self.nodes, Ordering::Relaxed);
        }
    }

    /// Nodes searched by every thread: this one's exact count plus the
    /// others' last published ones. With one thread, exactly `nodes`.
    pub(super) fn total_nodes(&self) -> u64 {
        if self.control.nodes.len() <= 1 {
            return self.nodes;
        }
        let others: u64 = self
            .control
            .nodes
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.id)
            .map(|(_, c)| c.0.load(Ordering::Relaxed))
            .sum();
        self.nodes + others
    }

    /// Whether the threads together have searched the node limit: the
    /// one test of the limit, between iterations and (see
    /// [`Search::poll`]) inside them.
    #[inline]
    pub(super) fn node_budget_spent(&self) -> bool {
        self.limits.nodes.is_some_and(|n| self.total_nodes() >= n)
    }

    /// Whether the threads have searched the soft node budget: tested
    /// between iterations only.
    pub(super) fn soft_node_budget_spent(&self) -> bool {
        self.limits
            .soft_nodes
            .is_some_and(|n| self.total_nodes() >= n)
    }

    pub(super) fn elapsed(&self) -> Duration {
        self.control.epoch.elapsed()
    }

    /// Time since the clocks started (the `go`, or `ponderhit`).
    pub(super) fn clock_elapsed(&self) -> Duration {
        let start = Duration::from_nanos(self.control.clock_start_ns.load(Ordering::Relaxed));
        self.elapsed().saturating_sub(start)
    }

    /// Polled at every node: whether to unwind now.
    #[inline]
    pub(super) fn poll(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes.is_multiple_of(NODE_SHARE_INTERVAL) && self.control.nodes.len() > 1 {
            self.publish_nodes();
        }
        if !self.may_stop {
            return false;
        }
        // The node limit at every node with one thread (so node-limited
        // searches repeat exactly), every few nodes with several.
        let count_now =
            self.control.nodes.len() <= 1 || self.nodes.is_multiple_of(NODE_SHARE_INTERVAL);
        if self.control.stop.load(Ordering::Relaxed) || (count_now && self.node_budget_spent()) {
            self.stopped = true;
        } else if self.is_main()
            && self.nodes.is_multiple_of(CLOCK_CHECK_NODES)
            && let Some(hard) = self.budget.hard
            && !self.control.pondering.load(Ordering::Relaxed)
            && self.clock_elapsed() >= hard
        {
            self.stopped = true;
        }
        self.stopped
    }
}
