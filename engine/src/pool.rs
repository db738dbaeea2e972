//! The search threads of Lazy SMP: a pool of workers created when the
//! thread count changes and parked between searches, each keeping its own
//! [`Histories`] from one search to the next.
//!
//! A search is a [`Task`] given to every worker at once. Worker 0 is the
//! main thread: it alone reads the clock, reports [`Event`]s and decides
//! when the search ends. The others (helpers) search the same position on
//! the shared table with their own histories, killers, ply stack and
//! evaluation cache, on a depth schedule of their own
//! ([`SearchThread`]'s `skips`), and unwind when the main thread raises
//! the stop flag. The main thread then waits for every helper before it
//! posts the result, so nothing searches once the caller has it.
//!
//! The per-search state shared by the threads is the table, the
//! [`Shared`] stop flag, clock and node counters, and the read-only
//! position and limits; everything a thread mutates is its own.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use board::Position;
use crossbeam_channel::Sender;

use crate::nnue::Network;
use crate::search::{Histories, SearchOptions, SearchThread, TtStats};
use crate::tt::TranspositionTable;
use crate::{Event, Limits, Report, Score, SearchResult, Shared};

/// The most search threads [`crate::Engine::set_threads`] accepts.
pub const MAX_THREADS: usize = 1024;

/// One search, as every thread sees it.
pub(crate) struct Task {
    /// The root position with its game history.
    pub(crate) pos: Position,
    /// The limits (the main thread applies them all; helpers honour only
    /// `nodes`, the root moves, `multipv` and the favoured move).
    pub(crate) limits: Limits,
    /// The bench's knobs.
    pub(crate) options: SearchOptions,
    /// The shared table.
    pub(crate) tt: Arc<TranspositionTable>,
    /// Stop flag, clock start and node counters.
    pub(crate) shared: Arc<Shared>,
    /// The network that evaluates (`None`: the hand-written evaluation);
    /// each thread keeps its own accumulators.
    pub(crate) network: Option<Arc<Network>>,
}

/// What a worker is asked to do next.
enum Order {
    /// Search `task`. The main thread gets the event callback, the
    /// helpers' slots, to stop and collect them, and the sender whose drop
    /// tells the owner the result is ready.
    Search {
        task: Arc<Task>,
        on_event: Option<Box<dyn FnMut(Event) + Send>>,
        helpers: Vec<Arc<Slot>>,
        done: Option<Sender<()>>,
    },
    /// Forget the histories (new game).
    ClearHistories,
    /// End the thread.
    Quit,
}

/// What one thread's search left behind.
pub(crate) struct Outcome {
    /// The thread's own result; the main thread's carries the totals and
    /// the chosen move.
    pub(crate) result: SearchResult,
    /// The internal score of `result.best` (head start included), to
    /// compare threads.
    raw_score: i32,
    /// The line of `result.best` as a report, for announcing a helper's
    /// move when it is chosen.
    report: Option<Report>,
    /// Table statistics (summed over the threads in the main outcome).
    pub(crate) tt_stats: TtStats,
}

/// The mailbox between the pool's owner and one worker.
struct SlotState {
    order: Option<Order>,
    /// An order was given and is not finished.
    busy: bool,
    outcome: Option<Outcome>,
}

/// One worker's mailbox: the owner gives orders and waits for the worker
/// to be idle; the worker waits for orders. One condition variable serves
/// both directions, so every change notifies all.
pub(crate) struct Slot {
    state: Mutex<SlotState>,
    cv: Condvar,
}

impl Slot {
    fn new() -> Slot {
        Slot {
            state: Mutex::new(SlotState {
                order: None,
                busy: false,
                outcome: None,
            }),
            cv: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn give(&self, order: Order) {
        let mut s = self.lock();
        debug_assert!(!s.busy, "an order given to a busy worker");
        s.order = Some(order);
        s.outcome = None;
        s.busy = true;
        self.cv.notify_all();
    }

    /// Waits until the worker has finished its order; returns its outcome.
    fn wait_idle(&self) -> Option<Outcome> {
        let mut s = self.lock();
        while s.busy {
            s = self.cv.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        s.outcome.take()
    }

    fn next_order(&self) -> Order {
        let mut s = self.lock();
        loop {
            if let Some(order) = s.order.take() {
                return order;
            }
            s = self.cv.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn done(&self, outcome: Option<Outcome>) {
        let mut s = self.lock();
        s.outcome = outcome;
        s.busy = false;
        self.cv.notify_all();
    }
}

struct Worker {
    slot: Arc<Slot>,
    handle: JoinHandle<()>,
}

/// The search threads. Dropping the pool ends and joins them (a running
/// search must have been stopped first: see [`crate::Engine`]'s `Drop`).
pub(crate) struct Pool {
    workers: Vec<Worker>,
}

impl Pool {
    /// A pool without threads.
    pub(crate) fn new() -> Pool {
        Pool {
            workers: Vec::new(),
        }
    }

    /// The number of threads.
    pub(crate) fn len(&self) -> usize {
        self.workers.len()
    }

    /// Grows or shrinks the pool to `n` threads (no search may run). New
    /// threads start with empty histories; the others keep theirs.
    ///
    /// # Errors
    /// When the system refuses a thread: the error is the number of
    /// threads the pool has (every one that could be created).
    pub(crate) fn resize(&mut self, n: usize) -> Result<(), usize> {
        while self.workers.len() > n {
            if let Some(w) = self.workers.pop() {
                w.slot.give(Order::Quit);
                // A worker that panicked outside a search has nothing to
                // give back.
                let _ = w.handle.join();
            }
        }
        while self.workers.len() < n {
            let id = self.workers.len();
            let slot = Arc::new(Slot::new());
            let theirs = Arc::clone(&slot);
            let spawned = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .spawn(move || work(id, &theirs));
            match spawned {
                Ok(handle) => self.workers.push(Worker { slot, handle }),
                Err(_) => return Err(self.workers.len()),
            }
        }
        Ok(())
    }

    /// Starts `task` on every thread; the main thread reports to
    /// `on_event`. The pool must have a thread and no search running.
    pub(crate) fn search(&self, task: Task, on_event: Box<dyn FnMut(Event) + Send>) {
        self.search_signalling(task, on_event, None);
    }

    /// [`Pool::search`], and the main thread drops `done` once its outcome
    /// can be collected with [`Pool::wait`], so that a receiver sees the
    /// channel disconnect (see [`crate::Engine::finished`]).
    pub(crate) fn search_signalling(
        &self,
        task: Task,
        on_event: Box<dyn FnMut(Event) + Send>,
        done: Option<Sender<()>>,
    ) {
        let task = Arc::new(task);
        let Some((main, helpers)) = self.workers.split_first() else {
            return;
        };
        for h in helpers {
            h.slot.give(Order::Search {
                task: Arc::clone(&task),
                on_event: None,
                helpers: Vec::new(),
                done: None,
            });
        }
        main.slot.give(Order::Search {
            task,
            on_event: Some(on_event),
            helpers: helpers.iter().map(|h| Arc::clone(&h.slot)).collect(),
            done,
        });
    }

    /// Waits for the search to end (every thread idle) and returns the
    /// main thread's outcome.
    pub(crate) fn wait(&self) -> Option<Outcome> {
        self.workers.first().and_then(|w| w.slot.wait_idle())
    }

    /// Clears every thread's histories and waits until done.
    pub(crate) fn clear_histories(&self) {
        for w in &self.workers {
            w.slot.give(Order::ClearHistories);
        }
        for w in &self.workers {
            w.slot.wait_idle();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let _ = self.resize(0);
    }
}

/// A worker's life: park until an order comes, carry it out, repeat.
fn work(id: usize, slot: &Slot) {
    let mut histories = Histories::new_boxed();
    loop {
        match slot.next_order() {
            Order::Quit => {
                slot.done(None);
                return;
            }
            Order::ClearHistories => {
                histories.clear();
                slot.done(None);
            }
            Order::Search {
                task,
                on_event,
                helpers,
                done,
            } => {
                let mut on_event = on_event.unwrap_or_else(|| Box::new(|_| {}));
                // A panicking search (a debug assertion) must not leave the
                // caller waiting forever: it ends with an empty result.
                let own = catch_unwind(AssertUnwindSafe(|| {
                    search_one(id, &task, &mut *on_event, &mut histories)
                }))
                .unwrap_or_else(|_| {
                    histories = Histories::new_boxed();
                    empty_outcome()
                });
                let outcome = if id == 0 {
                    finish_main(&task, &own, &helpers, &mut *on_event)
                } else {
                    own
                };
                slot.done(Some(outcome));
                // Only now, with the outcome in the slot: whoever wakes on
                // the disconnect finds `wait` returning at once.
                drop(done);
            }
        }
    }
}

/// One thread's search of `task`.
fn search_one(
    id: usize,
    task: &Task,
    on_event: &mut dyn FnMut(Event),
    histories: &mut Histories,
) -> Outcome {
    histories.age();
    let mut thread = SearchThread::new(
        &task.tt,
        &task.shared,
        &task.limits,
        task.pos.clone(),
        histories,
    );
    thread.set_network(task.network.as_deref());
    thread.set_options(task.options);
    thread.set_id(id);
    let result = thread.iterate(on_event);
    thread.publish_nodes();
    let (raw_score, report) = thread
        .best_line(result.depth)
        .map_or((i32::MIN, None), |(s, r)| (s, Some(r)));
    let mut result = result;
    result.nodes = thread.nodes;
    Outcome {
        result,
        raw_score,
        report,
        tt_stats: thread.tt_stats,
    }
}

fn empty_outcome() -> Outcome {
    Outcome {
        result: SearchResult {
            best: None,
            ponder: None,
            score: Score::Cp(0),
            rule: None,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
        },
        raw_score: i32::MIN,
        report: None,
        tt_stats: TtStats::default(),
    }
}

/// The main thread's end of a search: stops and collects the helpers,
/// totals the nodes, chooses the move, and marks the search finished.
///
/// The move is the main thread's unless a helper completed a deeper
/// iteration and scores its own best move at least as high. The main
/// thread's iterations are the ones reported and timed, and with two
/// threads (the common case, and the only one measured here) a vote has a
/// single other voter, so it can only ever mean "take the helper's move
/// when it knows more". A helper knows more when it finished a deeper
/// iteration (with the depth skipping of `SearchThread::skips` helper 1 is
/// often one iteration ahead), and requiring a score at least as high keeps
/// a deeper but failing-low helper line (an aspiration or a stop artefact)
/// from replacing a sound move. This is the rule Stockfish used before it
/// moved to voting weighted by depth and score; with many threads such a
/// vote would be the next step. `MultiPV` keeps the main thread's move:
/// its lines are the ones reported. Helpers search past a depth limit
/// (so that no core idles while the main thread finishes), but a line
/// deeper than the limit is never chosen.
fn finish_main(
    task: &Task,
    own: &Outcome,
    helpers: &[Arc<Slot>],
    on_event: &mut dyn FnMut(Event),
) -> Outcome {
    let shared = &task.shared;
    shared.stop.store(true, Ordering::SeqCst);
    let others: Vec<Outcome> = helpers.iter().filter_map(|h| h.wait_idle()).collect();
    let nodes = own.result.nodes + others.iter().map(|o| o.result.nodes).sum::<u64>();
    let mut tt_stats = own.tt_stats;
    for o in &others {
        tt_stats += o.tt_stats;
    }
    let mut chosen: Option<&Outcome> = None;
    if task.limits.multipv <= 1 && own.result.best.is_some() {
        for o in &others {
            let best = chosen.unwrap_or(own);
            if o.result.best.is_some()
                && o.result.depth > best.result.depth
                && task.limits.depth.is_none_or(|d| o.result.depth <= d)
                && o.raw_score >= best.raw_score
            {
                chosen = Some(o);
            }
        }
    }
    let time = own.result.time;
    let mut result = match chosen {
        Some(o) => {
            if let Some(mut report) = o.report.clone() {
                let elapsed = shared.epoch.elapsed();
                report.nodes = nodes;
                report.time = elapsed;
                report.nps =
                    u64::try_from(u128::from(nodes) * 1_000_000_000 / elapsed.as_nanos().max(1))
                        .unwrap_or(u64::MAX);
                report.hashfull = task.tt.hashfull();
                on_event(Event::Iteration(report));
            }
            o.result.clone()
        }
        None => own.result.clone(),
    };
    result.nodes = nodes;
    result.time = time;
    shared.running.store(false, Ordering::SeqCst);
    Outcome {
        result,
        raw_score: own.raw_score,
        report: None,
        tt_stats,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::Engine;
    use crate::nnue::tests::random_network;

    /// [`Engine::finished`] is ready at once with no search, disconnects
    /// when a bounded search ends, and stays quiet during an infinite
    /// search until it is stopped; after it fires, `wait` returns the
    /// result.
    #[test]
    fn finished_disconnects_when_the_result_is_ready() {
        use crossbeam_channel::RecvTimeoutError::{Disconnected, Timeout};
        let mut e = Engine::new();
        let ms = Duration::from_millis;
        assert_eq!(e.finished().recv_timeout(ms(0)), Err(Disconnected));
        for threads in [1, 2] {
            e.set_threads(threads).expect("threads");
            let depth = Limits {
                depth: Some(3),
                ..Limits::default()
            };
            e.start(Position::startpos(), depth, Box::new(|_| {}));
            assert_eq!(e.finished().recv(), Err(crossbeam_channel::RecvError));
            assert!(e.wait().best.is_some());
            let infinite = Limits {
                infinite: true,
                ..Limits::default()
            };
            e.start(Position::startpos(), infinite, Box::new(|_| {}));
            let finished = e.finished();
            assert_eq!(finished.recv_timeout(ms(50)), Err(Timeout));
            e.handle().stop();
            assert_eq!(finished.recv_timeout(ms(5000)), Err(Disconnected));
            assert!(e.wait().best.is_some());
        }
    }

    /// Each thread keeps its own accumulators: several threads evaluating
    /// with a network give a legal move, and one thread gives the same
    /// search through the pool as a fresh engine.
    #[test]
    fn threads_search_with_a_network() {
        let net = Arc::new(random_network(7));
        let pos = Position::startpos();
        let limits = Limits {
            depth: Some(4),
            ..Limits::default()
        };
        let run = |threads: usize, limits: &Limits| {
            let mut e = Engine::new();
            e.set_network(Some(Arc::clone(&net)));
            e.set_threads(threads).expect("threads");
            e.start(pos.clone(), limits.clone(), Box::new(|_| {}));
            e.wait()
        };
        let a = run(1, &limits);
        let b = run(1, &limits);
        assert_eq!((a.best, a.nodes), (b.best, b.nodes));
        for threads in [2, 3] {
            let r = run(threads, &limits);
            assert!(pos.is_legal(r.best.expect("a move")));
            let r = run(
                threads,
                &Limits {
                    movetime: Some(Duration::from_millis(50)),
                    ..Limits::default()
                },
            );
            assert!(pos.is_legal(r.best.expect("a move")));
        }
    }
}
