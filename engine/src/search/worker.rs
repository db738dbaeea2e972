//! A search thread's own state, kept from one search to the next: the
//! histories, the correction history, the ply stack, the evaluation cache, the network's
//! accumulators, the late-move reduction table, the root moves and the
//! time signals. Each pool thread owns one [`Worker`], allocated once when
//! the thread starts; a search borrows it (see [`Search`]) and resets what
//! must not carry over, so that no `go` allocates what its thread already
//! had.
//!
//! What a search shares with the other threads (the table, the stop flag,
//! the limits, the network) comes with each [`Task`] and is only borrowed.

use std::sync::Arc;

use super::root::RootMove;
use super::stack::Stack;
use super::{Experimental, Mode, Play, Search, Task, ThreadResult};
use crate::Event;
use crate::correction::{CorrectionHistory, CorrectionKeys};
use crate::history::Histories;
use crate::nnue::{AccumulatorStack, Network};
use crate::params;
use crate::score::MAX_PLY;
use crate::time::TimeSignals;

/// Entries of the evaluation cache (a power of two).
const EVAL_CACHE_SIZE: usize = 1 << 16;

/// Evaluations by full key: a memo of the evaluation, per thread, so it
/// needs no synchronisation and cannot make the bench vary.
pub(super) struct EvalCache {
    /// `(key, score)`; `i32::MIN` marks an empty entry.
    entries: Box<[(u64, i32)]>,
    /// The evaluation whose scores the cache holds (`None`: the
    /// hand-written one); another evaluation empties the cache. Holding the
    /// network keeps its address from being reused by another one, so
    /// comparing addresses is enough.
    source: Option<Arc<Network>>,
}

impl EvalCache {
    fn new() -> EvalCache {
        EvalCache {
            entries: vec![(0, i32::MIN); EVAL_CACHE_SIZE].into_boxed_slice(),
            source: None,
        }
    }

    fn clear(&mut self) {
        self.entries.fill((0, i32::MIN));
    }

    /// Makes the cache hold `net`'s scores, emptying it if it held
    /// another evaluation's.
    fn serve(&mut self, net: Option<&Arc<Network>>) {
        let same = match (net, &self.source) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if !same {
            self.clear();
            self.source = net.cloned();
        }
    }

    /// The cached score of `key`.
    #[inline]
    pub(super) fn get(&self, key: u64) -> Option<i32> {
        let (k, v) = self.entries[EvalCache::index(key)];
        (k == key && v != i32::MIN).then_some(v)
    }

    /// Brings `key`'s entry into the cache ahead of a
    /// [`EvalCache::get`] (`crate::tt::prefetch`): at a megabyte the cache
    /// outgrows the processor's nearest caches, and its read was most of
    /// the evaluation's own time in the datagen profile.
    #[inline]
    pub(super) fn prefetch(&self, key: u64) {
        crate::tt::prefetch(&self.entries[EvalCache::index(key)]);
    }

    #[inline]
    pub(super) fn put(&mut self, key: u64, score: i32) {
        self.entries[EvalCache::index(key)] = (key, score);
    }

    /// The entry `key` maps to: its low bits.
    #[inline]
    fn index(key: u64) -> usize {
        (key as usize) & (EVAL_CACHE_SIZE - 1)
    }
}

/// The late-move reduction of the `n`-th move at depth `d`, for `d` and
/// `n` below 64: `lmr_base/100 + ln d · ln n / (lmr_divisor/100)` (0.5 and
/// 2.25 by default), computed once per thread (per search in a tuning
/// build, whose parameters may change between searches).
pub(super) struct Reductions(Box<[[u8; 64]; 64]>);

impl Reductions {
    fn new() -> Reductions {
        let mut table = Box::new([[0u8; 64]; 64]);
        let base = f64::from(params::lmr_base()) / 100.0;
        let divisor = f64::from(params::lmr_divisor()) / 100.0;
        for (d, row) in table.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                let v = base + (d as f64).ln() * (n as f64).ln() / divisor;
                *r = v.max(0.0) as u8;
            }
        }
        Reductions(table)
    }

    #[inline]
    pub(super) fn get(&self, depth: i32, n: usize) -> i32 {
        i32::from(self.0[(depth.max(0) as usize).min(63)][n.min(63)])
    }
}

/// One search thread's state (module docs).
pub(crate) struct Worker {
    /// The thread's place in the pool: 0 is the main thread (clock,
    /// reports, the end of the search), the others are helpers.
    pub(super) id: usize,
    pub(super) histories: Box<Histories>,
    pub(super) correction: Box<CorrectionHistory>,
    /// The correction keys of the positions on the searched line above the
    /// current one (kept here so that a search allocates nothing).
    pub(super) corr_keys: Vec<CorrectionKeys>,
    pub(super) stack: Box<Stack>,
    pub(super) eval_cache: EvalCache,
    pub(super) acc: AccumulatorStack,
    pub(super) reductions: Reductions,
    pub(super) root_moves: Vec<RootMove>,
    pub(super) signals: TimeSignals,
}

impl Worker {
    /// The state of pool thread `id`, empty.
    pub(crate) fn new(id: usize) -> Worker {
        Worker {
            id,
            histories: Histories::new_boxed(),
            correction: CorrectionHistory::new_boxed(),
            corr_keys: Vec::with_capacity(MAX_PLY + 1),
            stack: Stack::new_boxed(),
            eval_cache: EvalCache::new(),
            acc: AccumulatorStack::new(MAX_PLY + 1),
            reductions: Reductions::new(),
            root_moves: Vec::new(),
            signals: TimeSignals::default(),
        }
    }

    /// Forgets everything learnt (a new game).
    pub(crate) fn clear(&mut self) {
        self.histories.clear();
        self.correction.clear();
        self.eval_cache.clear();
    }

    /// Searches `task`; the main thread reports to `on_event`. The
    /// histories age, the stack and the signals start afresh.
    pub(crate) fn search(&mut self, task: &Task, on_event: &mut dyn FnMut(Event)) -> ThreadResult {
        self.histories.age();
        self.stack.reset();
        self.signals.clear();
        self.eval_cache.serve(task.network.as_ref());
        // A tune may have changed the reduction table's parameters.
        #[cfg(feature = "tune")]
        {
            self.reductions = Reductions::new();
        }
        if task.experiment.is_some() {
            self.run::<Experimental>(task, on_event)
        } else {
            self.run::<Play>(task, on_event)
        }
    }

    fn run<M: Mode>(&mut self, task: &Task, on_event: &mut dyn FnMut(Event)) -> ThreadResult {
        let mut search = Search::<M>::new(self, task, on_event);
        let result = search.iterate();
        search.publish_nodes();
        let (raw_score, report) = search
            .best_line(result.depth)
            .map_or((i32::MIN, None), |(s, r)| (s, Some(r)));
        let stats = M::EXPERIMENT.then_some(search.stats);
        ThreadResult {
            result: crate::SearchResult {
                nodes: search.nodes,
                ..result
            },
            raw_score,
            report,
            stats: stats.unwrap_or_default(),
        }
    }
}
