//! The search threads of Lazy SMP: a pool of threads created when the
//! thread count changes and parked between searches, each owning the
//! [`Worker`] (histories, ply stack, evaluation cache, accumulators) it
//! keeps from one search to the next. The worker sits in the thread's
//! mailbox behind a lock, so that a pool of one thread can also search on
//! its owner's thread ([`Pool::search_here`]) with the same state.
//!
//! A search is a [`Task`] given to every thread at once. Thread 0 is the
//! main thread: it alone reads the clock, reports [`Event`]s and decides
//! when the search ends. The others (helpers) search the same position on
//! the shared table with their own workers, on a depth schedule of their
//! own (`search/stop.rs`), and unwind when the main thread raises the stop
//! flag. The main thread then waits for every helper before it posts the
//! result, so nothing searches once the caller has it.
//!
//! The per-search state shared by the threads is the table, the
//! [`Control`] (stop flag, clock and node counters), and the read-only
//! position, limits and network; everything a thread mutates is its own.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use crossbeam_channel::Sender;

use crate::search::{ExperimentStats, Task, ThreadResult, Worker};
use crate::{Event, SearchResult};

/// The most search threads [`crate::Engine::set_threads`] accepts.
pub const MAX_THREADS: usize = 1024;

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
    /// Forget what was learnt (a new game).
    Clear,
    /// End the thread.
    Quit,
}

/// The mailbox between the pool's owner and one worker.
struct SlotState {
    order: Option<Order>,
    /// An order was given and is not finished.
    busy: bool,
    result: Option<ThreadResult>,
}

/// One worker's mailbox: the owner gives orders and waits for the worker
/// to be idle; the worker waits for orders. One condition variable serves
/// both directions, so every change notifies all.
pub(crate) struct Slot {
    state: Mutex<SlotState>,
    cv: Condvar,
    /// The thread's search state. Its thread builds it (so that its
    /// memory is first touched there, on the thread's own NUMA node) and
    /// holds the lock while it carries out an order; with the thread
    /// parked, the pool's owner may search with it on its own thread
    /// ([`Pool::search_here`]).
    worker: Mutex<Option<Worker>>,
}

impl Slot {
    fn new() -> Slot {
        Slot {
            state: Mutex::new(SlotState {
                order: None,
                busy: false,
                result: None,
            }),
            cv: Condvar::new(),
            worker: Mutex::new(None),
        }
    }

    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The thread's worker, `None` until it is first needed (a search
    /// that panicked while holding it left it poisoned; [`search_with`]
    /// rebuilds it then).
    fn worker(&self) -> MutexGuard<'_, Option<Worker>> {
        self.worker.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn give(&self, order: Order) {
        let mut s = self.lock();
        debug_assert!(!s.busy, "an order given to a busy worker");
        s.order = Some(order);
        s.result = None;
        s.busy = true;
        self.cv.notify_all();
    }

    /// Waits until the worker has finished its order; returns its result.
    fn wait_idle(&self) -> Option<ThreadResult> {
        let mut s = self.lock();
        while s.busy {
            s = self.cv.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
        s.result.take()
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

    fn done(&self, result: Option<ThreadResult>) {
        let mut s = self.lock();
        s.result = result;
        s.busy = false;
        self.cv.notify_all();
    }
}

/// A pool thread: its mailbox and its handle.
struct Thread {
    slot: Arc<Slot>,
    handle: JoinHandle<()>,
}

/// The search threads. Dropping the pool ends and joins them (a running
/// search must have been stopped first: see [`crate::Engine`]'s `Drop`).
pub(crate) struct Pool {
    threads: Vec<Thread>,
}

impl Pool {
    /// A pool without threads.
    pub(crate) fn new() -> Pool {
        Pool {
            threads: Vec::new(),
        }
    }

    /// The number of threads.
    pub(crate) fn len(&self) -> usize {
        self.threads.len()
    }

    /// Grows or shrinks the pool to `n` threads (no search may run). New
    /// threads start with empty histories; the others keep theirs.
    ///
    /// # Errors
    /// When the system refuses a thread: the error is the number of
    /// threads the pool has (every one that could be created).
    pub(crate) fn resize(&mut self, n: usize) -> Result<(), usize> {
        while self.threads.len() > n {
            if let Some(w) = self.threads.pop() {
                w.slot.give(Order::Quit);
                // A worker that panicked outside a search has nothing to
                // give back.
                let _ = w.handle.join();
            }
        }
        while self.threads.len() < n {
            let id = self.threads.len();
            let slot = Arc::new(Slot::new());
            let theirs = Arc::clone(&slot);
            let spawned = std::thread::Builder::new()
                .name(format!("search-{id}"))
                .spawn(move || work(id, &theirs));
            match spawned {
                Ok(handle) => self.threads.push(Thread { slot, handle }),
                Err(_) => return Err(self.threads.len()),
            }
        }
        Ok(())
    }

    /// Starts `task` on every thread; the main thread reports to
    /// `on_event` and drops `done` once its result can be collected with
    /// [`Pool::wait`], so that a receiver sees the channel disconnect (see
    /// [`crate::Engine::finished`]). The pool must have a thread and no
    /// search running.
    pub(crate) fn search(
        &self,
        task: Task,
        on_event: Box<dyn FnMut(Event) + Send>,
        done: Sender<()>,
    ) {
        let task = Arc::new(task);
        let Some((main, helpers)) = self.threads.split_first() else {
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
            done: Some(done),
        });
    }

    /// Searches `task` on the caller's thread with the main thread's
    /// worker, the same search [`Pool::search`] runs on the pool thread,
    /// and returns its result: for a pool of one thread (it stays parked),
    /// which saves the two thread wake-ups of every search (self-play plays
    /// thousands of short searches). `None` with no thread or with helpers.
    pub(crate) fn search_here(
        &self,
        task: &Task,
        on_event: &mut dyn FnMut(Event),
    ) -> Option<ThreadResult> {
        match self.threads.as_slice() {
            [main] => {
                let own = search_with(&main.slot, 0, task, on_event);
                Some(finish_main(task, &own, &[], on_event))
            }
            _ => None,
        }
    }

    /// Waits for the search to end (every thread idle) and returns the
    /// main thread's result.
    pub(crate) fn wait(&self) -> Option<ThreadResult> {
        self.threads.first().and_then(|w| w.slot.wait_idle())
    }

    /// Clears what every thread learnt (a new game) and waits until done.
    pub(crate) fn clear(&self) {
        for w in &self.threads {
            w.slot.give(Order::Clear);
        }
        for w in &self.threads {
            w.slot.wait_idle();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        let _ = self.resize(0);
    }
}

/// A thread's life: park until an order comes, carry it out, repeat. The
/// thread's [`Worker`] is allocated here once, kept in its slot, and
/// lives as long as the thread.
fn work(id: usize, slot: &Slot) {
    slot.worker().get_or_insert_with(|| Worker::new(id));
    loop {
        match slot.next_order() {
            Order::Quit => {
                slot.done(None);
                return;
            }
            Order::Clear => {
                if let Some(worker) = slot.worker().as_mut() {
                    worker.clear();
                }
                slot.done(None);
            }
            Order::Search {
                task,
                on_event,
                helpers,
                done,
            } => {
                let mut on_event = on_event.unwrap_or_else(|| Box::new(|_| {}));
                let own = search_with(slot, id, &task, &mut *on_event);
                let result = if id == 0 {
                    finish_main(&task, &own, &helpers, &mut *on_event)
                } else {
                    own
                };
                slot.done(Some(result));
                // Only now, with the result in the slot: whoever wakes on
                // the disconnect finds `wait` returning at once.
                drop(done);
            }
        }
    }
}

/// Thread `id`'s own search of `task` with the worker of `slot`.
///
/// A panicking search (a debug assertion) must not leave the caller
/// waiting forever: it ends with an empty result, and the worker, whose
/// state it may have left half-made, is built anew.
fn search_with(
    slot: &Slot,
    id: usize,
    task: &Task,
    on_event: &mut dyn FnMut(Event),
) -> ThreadResult {
    let mut worker = slot.worker();
    catch_unwind(AssertUnwindSafe(|| {
        worker
            .get_or_insert_with(|| Worker::new(id))
            .search(task, on_event)
    }))
    .unwrap_or_else(|_| {
        *worker = Some(Worker::new(id));
        ThreadResult::empty()
    })
}

impl ThreadResult {
    fn empty() -> ThreadResult {
        ThreadResult {
            result: SearchResult::empty(),
            raw_score: i32::MIN,
            report: None,
            stats: ExperimentStats::default(),
        }
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
/// iteration (with the depth skipping of `Search::skips` helper 1 is
/// often one iteration ahead), and requiring a score at least as high keeps
/// a deeper but failing-low helper line (an aspiration or a stop artefact)
/// from replacing a sound move. This is the rule Stockfish used before it
/// moved to voting weighted by depth and score; with many threads such a
/// vote would be the next step. `MultiPV` and a weakened search keep the
/// main thread's move: its lines are the ones reported (and drawn from). Helpers search past a depth limit
/// (so that no core idles while the main thread finishes), but a line
/// deeper than the limit is never chosen.
fn finish_main(
    task: &Task,
    own: &ThreadResult,
    helpers: &[Arc<Slot>],
    on_event: &mut dyn FnMut(Event),
) -> ThreadResult {
    let control = &task.control;
    control.stop.store(true, Ordering::SeqCst);
    let others: Vec<ThreadResult> = helpers.iter().filter_map(|h| h.wait_idle()).collect();
    let nodes = own.result.nodes + others.iter().map(|o| o.result.nodes).sum::<u64>();
    let mut stats = own.stats;
    for o in &others {
        stats += o.stats;
    }
    let mut chosen: Option<&ThreadResult> = None;
    if task.limits.multipv <= 1 && task.limits.weakening.is_none() && own.result.best.is_some() {
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
                let elapsed = control.epoch.elapsed();
                report.nodes = nodes;
                report.time = elapsed;
                report.nps = crate::report::nodes_per_second(nodes, elapsed);
                report.hashfull = task.tt.hashfull();
                on_event(Event::Iteration(report));
            }
            o.result.clone()
        }
        None => own.result.clone(),
    };
    result.nodes = nodes;
    result.time = time;
    control.running.store(false, Ordering::SeqCst);
    ThreadResult {
        result,
        raw_score: own.raw_score,
        report: None,
        stats,
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use board::Position;

    use super::*;
    use crate::nnue::tests::random_network;
    use crate::{Engine, Limits};

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

    /// [`Engine::search`] on the caller's thread is the pooled search: with
    /// one thread it gives the same move, score, depth, nodes and reports
    /// as `start` and `wait` and keeps the thread's histories between
    /// searches as they do; with helpers it reports and finds a move; a
    /// handle stops it from another thread.
    #[test]
    fn a_search_on_the_callers_thread_is_the_pooled_search() {
        let pos = Position::startpos();
        let depth = Limits {
            depth: Some(6),
            ..Limits::default()
        };
        let iterations = |events: &[Event]| {
            events
                .iter()
                .filter_map(|e| match e {
                    Event::Iteration(r) => Some((r.depth, r.score, r.nodes, r.pv.clone())),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let mut pooled = Engine::new();
        let mut here = Engine::new();
        for _ in 0..2 {
            let (tx, rx) = crossbeam_channel::unbounded();
            pooled.start(
                pos.clone(),
                depth.clone(),
                Box::new(move |e| drop(tx.send(e))),
            );
            let a = pooled.wait();
            let a_events: Vec<Event> = rx.try_iter().collect();
            let mut b_events = Vec::new();
            let b = here.search(pos.clone(), depth.clone(), &mut |e| b_events.push(e));
            assert_eq!(
                (a.best, a.score, a.depth, a.nodes),
                (b.best, b.score, b.depth, b.nodes)
            );
            assert!(!iterations(&a_events).is_empty());
            assert_eq!(iterations(&a_events), iterations(&b_events));
        }

        here.set_threads(2).expect("threads");
        let mut reports = 0;
        let r = here.search(pos.clone(), depth, &mut |e| {
            reports += usize::from(matches!(e, Event::Iteration(_)));
        });
        assert!(pos.is_legal(r.best.expect("a move")));
        assert!(reports > 0);

        for threads in [1, 2] {
            here.set_threads(threads).expect("threads");
            let handle = here.handle();
            let searched = std::sync::atomic::AtomicBool::new(false);
            let infinite = Limits {
                infinite: true,
                ..Limits::default()
            };
            std::thread::scope(|s| {
                // Stops until the search has returned: a stop that came
                // before the search began would be lost.
                s.spawn(|| {
                    while !searched.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(50));
                        handle.stop();
                    }
                });
                let r = here.search(pos.clone(), infinite, &mut |_| {});
                searched.store(true, Ordering::SeqCst);
                assert!(pos.is_legal(r.best.expect("a move")));
            });
        }
    }
}
