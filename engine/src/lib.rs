//! Chariot's engine: principal-variation search over the `board` crate's
//! legal moves, the two-tier transposition table, the evaluation, time
//! management and the deterministic bench.
//!
//! The surface is small on purpose: [`Engine::start`] launches a search on
//! the engine's search threads with [`Limits`] and a callback for
//! [`Event`]s, [`SearchHandle::stop`] ends it, [`Engine::wait`] returns the
//! single [`SearchResult`]; [`Engine::search`] is the two in one call, run
//! on the caller's thread when one thread searches (self-play, suites of
//! positions). Turning text into limits and results into
//! protocol lines is the `protocol` crate's job; nothing here prints (the
//! bench returns its figures, and the protocol prints them).
//!
//! [`Engine::set_threads`] sets how many threads search (Lazy SMP: every
//! thread searches the root on the shared table; the threads live in a
//! pool that parks between searches). Shared between threads: the table
//! (lock-free, `tt.rs`), the stop flag, the clock state and the node
//! counters (`control.rs`). Everything else a search mutates lives in the
//! per-thread worker (`search/worker.rs`), which its thread keeps from one
//! search to the next.
//!
//! # Modules
//!
//! Public: [`bench`](mod@bench) (the deterministic signature),
//! [`datagen`] (self-play and scored games for training), [`nnue`] (the
//! network, its data format and features, which the trainer shares) and
//! [`strength`] (what a strength level means: node budget and
//! [`Weakening`], for the protocol's options and the Python package).
//! Private, with what other crates need re-exported by name below:
//! `limits` (what a search is asked: [`Limits`], [`Clock`]), `report`
//! (what it answers: [`Event`], [`Report`], [`SearchResult`]), `score`
//! (the raw score scale, [`Score`], [`Bound`]), `search` (the search and
//! its per-thread worker), `movepick` and `history` (move ordering), `tt`
//! (the table), `eval` (the hand-written evaluation), `pool` (the
//! threads), `control` (what a search shares with its caller), `time`
//! (the clock) and `weaken` (strength levels, [`Weakening`]).

pub mod bench;
mod control;
mod correction;
pub mod datagen;
mod eval;
mod history;
mod limits;
mod movepick;
pub mod nnue;
pub mod params;
pub mod play;
mod pool;
mod report;
mod score;
mod search;
pub mod strength;
mod time;
mod tt;
mod weaken;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use board::Position;

pub use control::SearchHandle;
pub use eval::{PIECE_VALUE, eval_trace, evaluate};
pub use limits::{Clock, Limits};
pub use pool::MAX_THREADS;
pub use report::{Event, Report, SearchResult};
pub use score::{Bound, CP_LIMIT, INFINITE, MATE_VALUE, MAX_DEPTH, MAX_PLY, Score};
pub use search::{ExperimentStats, FeatureCounts};
pub use time::{DEFAULT_MOVE_OVERHEAD, TimeBudget};
pub use tt::{DEFAULT_HASH_MB, MAX_HASH_MB, ProbeResult, TtPolicy, TtStats};
pub use weaken::Weakening;

use control::Control;
use pool::Pool;
use search::{Task, ThreadResult};
use tt::TranspositionTable;

/// An experiment: settings for measuring the search rather than playing
/// with it: the
/// table's replacement policy and switches that the bench and the table
/// experiments turn. A search with an experiment set runs a separate
/// compilation of the search that honours them and counts table
/// statistics ([`Engine::table_stats`]) and the selective features that
/// act ([`Engine::feature_counts`]); play compiles none of it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Experiment {
    /// The table's replacement policy.
    pub policy: TtPolicy,
    /// Store quiescence (depth-0) results in the table.
    pub store_qs: bool,
    /// Search as the first table experiment did: iterative deepening, PVS,
    /// aspiration, the null move, check extensions, histories and killers,
    /// but no internal iterative reduction, singular extensions, late-move
    /// reductions or pruning, futility (reverse included) or SEE pruning.
    pub classic: bool,
}

impl Default for Experiment {
    /// The shipped search, measured: two tiers, quiescence stored.
    fn default() -> Experiment {
        Experiment {
            policy: TtPolicy::TwoTier,
            store_qs: true,
            classic: false,
        }
    }
}

/// Why an engine setting was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// The hash size is zero, too large for the address space, or could
    /// not be allocated.
    HashSize(usize),
    /// The same, for a size asked for in KiB ([`Engine::set_hash_kib`]).
    HashSizeKib(usize),
    /// A thread count of 0 or above [`MAX_THREADS`].
    ThreadCount(usize),
    /// The system refused to create more threads: `running` of the
    /// `requested` search threads exist and search.
    ThreadsRefused {
        /// The thread count asked for.
        requested: usize,
        /// The threads the engine has now.
        running: usize,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::HashSize(mb) => write!(f, "cannot allocate a {mb} MB hash table"),
            EngineError::HashSizeKib(kib) => {
                write!(f, "cannot allocate a {kib} KiB hash table")
            }
            EngineError::ThreadCount(n) => {
                write!(f, "{n} is not a thread count between 1 and {MAX_THREADS}")
            }
            EngineError::ThreadsRefused { requested, running } => write!(
                f,
                "the system created only {running} of {requested} search threads"
            ),
        }
    }
}

impl std::error::Error for EngineError {}

/// The engine: owns the table and the search threads (each with the
/// histories it keeps between searches), and runs one search at a time.
pub struct Engine {
    tt: Arc<TranspositionTable>,
    /// No search has used the table since it was built: it is still all
    /// zero, and clearing it would only touch every page of a table whose
    /// pages the OS zeroes lazily (seconds for a big one).
    tt_fresh: bool,
    /// The controls of the current (or last) search, which the handles
    /// reach.
    control: Arc<std::sync::Mutex<Arc<Control>>>,
    /// The search threads, parked between searches.
    pool: Pool,
    /// A search was started and its result not yet collected.
    searching: bool,
    /// The network loaded; `None`: none (the hand-written evaluation).
    network: Option<Arc<nnue::Network>>,
    /// Whether the loaded network evaluates (else the hand-written
    /// evaluation does).
    use_network: bool,
    /// Disconnects when the last search started can be collected.
    finished: crossbeam_channel::Receiver<()>,
    /// The experiment the searches run, if any (`None`: play).
    experiment: Option<Experiment>,
    /// The experiment statistics (table and features) of the last search
    /// collected.
    stats: ExperimentStats,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("hash_mb", &self.tt.size_mb())
            .field("threads", &self.pool.len())
            .field("searching", &self.searching)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine with a [`DEFAULT_HASH_MB`] table and one thread.
    pub fn new() -> Engine {
        let mut pool = Pool::new();
        // Should the system refuse even this thread, `start` asks again.
        let _ = pool.resize(1);
        Engine {
            tt: Arc::new(TranspositionTable::with_policy(
                DEFAULT_HASH_MB,
                TtPolicy::TwoTier,
            )),
            tt_fresh: true,
            control: Arc::new(std::sync::Mutex::new(Arc::new(Control::with_threads(1)))),
            pool,
            searching: false,
            network: nnue::embedded(),
            use_network: true,
            // No search yet: a channel already disconnected.
            finished: crossbeam_channel::bounded(0).1,
            experiment: None,
            stats: ExperimentStats::default(),
        }
    }

    /// Resizes the table (rounded down to a power of two of buckets). The
    /// content is lost. Waits for a running search first.
    ///
    /// The old table is freed before the new one is built, so the peak
    /// memory is the larger of the two sizes, not their sum.
    ///
    /// # Errors
    /// [`EngineError::HashSize`] for 0 MB or more than [`MAX_HASH_MB`] (the
    /// old table stays, contents and all), or a size the system cannot
    /// give (an empty table of the old size takes its place).
    pub fn set_hash_mb(&mut self, mb: usize) -> Result<(), EngineError> {
        if mb == 0 || mb > MAX_HASH_MB {
            return Err(EngineError::HashSize(mb));
        }
        self.set_hash_kib(mb * 1024)
            .map_err(|_| EngineError::HashSize(mb))
    }

    /// Resizes the table to `kib` KiB, as [`Engine::set_hash_mb`] does:
    /// the table experiments crowd the table by its size, below the 1 MB
    /// the `Hash` option allows.
    ///
    /// # Errors
    /// [`EngineError::HashSizeKib`] for 0 KiB, more than
    /// [`MAX_HASH_MB`] or a size the system cannot give, as for
    /// [`Engine::set_hash_mb`].
    pub fn set_hash_kib(&mut self, kib: usize) -> Result<(), EngineError> {
        if kib == 0 || kib > MAX_HASH_MB * 1024 {
            return Err(EngineError::HashSizeKib(kib));
        }
        self.wait();
        let old_kib = self.tt.size_kib();
        let policy = self.tt.policy();
        // A one-bucket stand-in, so that the old table's memory is
        // returned before the new one is asked for.
        if let Some(small) = TranspositionTable::try_new_kib(1, policy) {
            self.tt = Arc::new(small);
        }
        self.tt_fresh = true;
        if let Some(tt) = TranspositionTable::try_new_kib(kib, policy) {
            self.tt = Arc::new(tt);
            return Ok(());
        }
        if let Some(tt) = TranspositionTable::try_new_kib(old_kib, policy) {
            self.tt = Arc::new(tt);
        }
        Err(EngineError::HashSizeKib(kib))
    }

    /// Runs the next searches as an experiment (`Some`), or as play
    /// (`None`, the default). A new table policy empties the table. Waits
    /// for a running search first.
    ///
    /// # Errors
    /// [`EngineError::HashSizeKib`] when the table cannot be built again
    /// (then the engine keeps its old table and searches as before).
    pub fn set_experiment(&mut self, experiment: Option<Experiment>) -> Result<(), EngineError> {
        self.wait();
        let policy = experiment.map_or(TtPolicy::TwoTier, |e| e.policy);
        if policy != self.tt.policy() {
            let kib = self.tt.size_kib();
            let tt = TranspositionTable::try_new_kib(kib, policy)
                .ok_or(EngineError::HashSizeKib(kib))?;
            self.tt = Arc::new(tt);
            self.tt_fresh = true;
        }
        self.experiment = experiment;
        Ok(())
    }

    /// The table statistics of the last search collected by
    /// [`Engine::wait`], summed over its threads: zero unless it ran as a
    /// experiment ([`Engine::set_experiment`]).
    pub fn table_stats(&self) -> TtStats {
        self.stats.table
    }

    /// How often each selective-search feature acted in the last search
    /// collected by [`Engine::wait`], summed over its threads: zero unless
    /// it ran as an experiment, and zero for every feature the classic
    /// search switches off.
    pub fn feature_counts(&self) -> FeatureCounts {
        self.stats.features
    }

    /// The table size in MB (0 for a table below 1 MB).
    pub fn hash_mb(&self) -> usize {
        self.tt.size_mb()
    }

    /// The table size in KiB.
    pub fn hash_kib(&self) -> usize {
        self.tt.size_kib()
    }

    /// Sets the number of search threads (Lazy SMP), creating or ending
    /// threads now; threads that stay keep their histories. Waits for a
    /// running search first.
    ///
    /// # Errors
    /// [`EngineError::ThreadCount`] for 0 or more than [`MAX_THREADS`]
    /// (nothing changes); [`EngineError::ThreadsRefused`] when the system
    /// will not create that many threads (the engine keeps every thread it
    /// could create, at least one).
    pub fn set_threads(&mut self, n: usize) -> Result<(), EngineError> {
        if n == 0 || n > MAX_THREADS {
            return Err(EngineError::ThreadCount(n));
        }
        self.wait();
        self.pool
            .resize(n)
            .map_err(|running| EngineError::ThreadsRefused {
                requested: n,
                running,
            })
    }

    /// The number of search threads.
    pub fn threads(&self) -> usize {
        self.pool.len()
    }

    /// Loads the network of the next searches, or `None` for none (the
    /// hand-written evaluation). A new engine starts with the embedded
    /// network ([`nnue::embedded`]), if the build has one. Whether it
    /// evaluates is [`Engine::set_use_network`]'s.
    pub fn set_network(&mut self, network: Option<Arc<nnue::Network>>) {
        self.network = network;
    }

    /// Whether the loaded network evaluates (`true` for a new engine) or
    /// the hand-written evaluation does (the `Use NNUE` option).
    pub fn set_use_network(&mut self, on: bool) {
        self.use_network = on;
    }

    /// The network that evaluates (`None`: the hand-written evaluation):
    /// the loaded one, unless switched off.
    pub fn network(&self) -> Option<&Arc<nnue::Network>> {
        self.network.as_ref().filter(|_| self.use_network)
    }

    /// The network loaded, whether or not it evaluates.
    pub fn loaded_network(&self) -> Option<&Arc<nnue::Network>> {
        self.network.as_ref()
    }

    /// Forgets everything learned: clears the table and the histories.
    pub fn new_game(&mut self) {
        self.wait();
        if !self.tt_fresh {
            self.tt.clear();
            self.tt_fresh = true;
        }
        self.pool.clear();
    }

    /// Starts a search of `pos` (which carries the game history for
    /// repetition judging) on the search threads and returns at once.
    /// Events go to `on_event` on the main search thread. A search still
    /// running is stopped and collected first.
    ///
    /// # Panics
    /// When the system cannot create even one search thread.
    pub fn start(&mut self, pos: Position, limits: Limits, on_event: Box<dyn FnMut(Event) + Send>) {
        let task = self.task(pos, limits);
        self.launch(task, on_event);
    }

    /// Searches `pos` as [`Engine::start`] and [`Engine::wait`] would, and
    /// returns the result. With one search thread the search runs on the
    /// caller's thread (the same search, with that thread's state, while
    /// the thread stays parked), which saves two thread wake-ups a search:
    /// what self-play's thousands of short searches want. Events go to
    /// `on_event` on the caller's thread. A [`SearchHandle`] stops it as it
    /// stops any search.
    ///
    /// # Panics
    /// When the system cannot create even one search thread.
    pub fn search(
        &mut self,
        pos: Position,
        limits: Limits,
        on_event: &mut dyn FnMut(Event),
    ) -> SearchResult {
        let task = self.task(pos, limits);
        if let Some(finished) = self.pool.search_here(&task, on_event) {
            return self.collect(Some(finished));
        }
        // Helpers: the pool's threads search, the caller waits.
        let (tx, rx) = crossbeam_channel::unbounded();
        self.launch(task, Box::new(move |e| drop(tx.send(e))));
        for event in &rx {
            on_event(event);
        }
        self.wait()
    }

    /// Gives a prepared search to the pool's threads.
    fn launch(&mut self, task: Task, on_event: Box<dyn FnMut(Event) + Send>) {
        let (done, finished) = crossbeam_channel::bounded(0);
        self.finished = finished;
        self.pool.search(task, on_event, done);
        self.searching = true;
    }

    /// Prepares a search: a running one is stopped and collected, the
    /// pool has its main thread, the handles reach the new controls, and
    /// the table opens a generation.
    fn task(&mut self, pos: Position, limits: Limits) -> Task {
        if self.searching {
            self.handle().stop();
            self.wait();
        }
        if self.pool.len() == 0 {
            assert!(self.pool.resize(1).is_ok(), "cannot create a search thread");
        }
        let control = Arc::new(Control::with_threads(self.pool.len()));
        control.pondering.store(limits.ponder, Ordering::SeqCst);
        control.running.store(true, Ordering::SeqCst);
        match self.control.lock() {
            Ok(mut g) => *g = Arc::clone(&control),
            Err(p) => *p.into_inner() = Arc::clone(&control),
        }
        self.tt_fresh = false;
        // Before any thread stores: every thread searches this generation.
        self.tt.new_search();
        Task {
            pos,
            limits,
            experiment: self.experiment,
            tt: Arc::clone(&self.tt),
            control,
            network: self.network().cloned(),
        }
    }

    /// A receiver that disconnects (`recv` returns `Err`) when the search
    /// last started has ended and [`Engine::wait`] would return at once;
    /// nothing is ever sent on it. Lets a caller wait for the result and
    /// for other channels in one `select!` instead of polling. Ready at
    /// once when no search was started; a later [`Engine::start`] makes a
    /// new one.
    pub fn finished(&self) -> crossbeam_channel::Receiver<()> {
        self.finished.clone()
    }

    /// A remote control for the current (and any later) search.
    pub fn handle(&self) -> SearchHandle {
        SearchHandle {
            control: Arc::clone(&self.control),
        }
    }

    /// Blocks until the running search ends and returns its result; with
    /// no search running, returns an empty result at once.
    pub fn wait(&mut self) -> SearchResult {
        if !self.searching {
            return SearchResult::empty();
        }
        self.searching = false;
        let finished = self.pool.wait();
        self.collect(finished)
    }

    /// Keeps a finished search's statistics and returns its result.
    fn collect(&mut self, finished: Option<ThreadResult>) -> SearchResult {
        self.stats = finished.as_ref().map(|f| f.stats).unwrap_or_default();
        finished.map_or_else(SearchResult::empty, |f| f.result)
    }

    /// What the table knows about `pos`.
    pub fn probe(&self, pos: &Position) -> Option<ProbeResult> {
        self.tt.probe_result(pos)
    }
}

impl Drop for Engine {
    /// Stops a running search and ends every search thread (the pool joins
    /// them), so no thread outlives the engine.
    fn drop(&mut self) {
        self.handle().stop();
        self.wait();
    }
}
