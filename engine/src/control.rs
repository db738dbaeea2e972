//! The controls a search shares with its caller: the stop flag, the
//! ponder state, the clock start and the threads' node counts
//! ([`Control`], one per search), and the [`SearchHandle`] a caller holds
//! to stop a search or turn a ponder search into a normal one. The search
//! reads them (`search/stop.rs`); the pool raises the stop flag when the
//! main thread ends (`pool.rs`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// A node counter on a cache line of its own, so that threads publishing
/// their counts do not slow each other down.
#[derive(Debug, Default)]
#[repr(align(64))]
pub(crate) struct NodeCounter(pub(crate) std::sync::atomic::AtomicU64);

/// A wake-up call for a thread that waits on the flags of [`Control`]:
/// whoever changes a flag it waits on calls [`Wake::notify`], and the
/// waiter sleeps in [`Wake::wait_while`] instead of polling.
#[derive(Debug, Default)]
pub(crate) struct Wake {
    lock: std::sync::Mutex<()>,
    changed: std::sync::Condvar,
}

impl Wake {
    /// Wakes the waiters. Call it after storing the flag: taking the lock
    /// first means a waiter is either before its check (and sees the new
    /// value) or inside `wait` (and is woken), never in between.
    pub(crate) fn notify(&self) {
        let _guard = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        self.changed.notify_all();
    }

    /// Sleeps while `hold()` is true, rechecking at every notification.
    pub(crate) fn wait_while(&self, mut hold: impl FnMut() -> bool) {
        let mut guard = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while hold() {
            guard = self
                .changed
                .wait(guard)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// State shared by the controller and the searching threads: the stop
/// flag, the clock start (moved at `ponderhit`) and each thread's node
/// count.
#[derive(Debug)]
pub(crate) struct Control {
    /// Set to end the search.
    pub(crate) stop: AtomicBool,
    /// Set while the search is a ponder search not yet hit.
    pub(crate) pondering: AtomicBool,
    /// Notified when `stop` or `pondering` changes, for a main thread
    /// holding its result until `stop` or `ponderhit`.
    pub(crate) wake: Wake,
    /// Set while a worker thread is searching.
    pub(crate) running: AtomicBool,
    /// When the search began.
    pub(crate) epoch: Instant,
    /// Nanoseconds after `epoch` at which the clocks started running.
    pub(crate) clock_start_ns: AtomicU64,
    /// Nodes searched by each thread, as last published (one entry per
    /// search thread; a thread keeps its exact count itself).
    pub(crate) nodes: Box<[NodeCounter]>,
}

impl Control {
    /// The controls of a search by `threads` threads.
    pub(crate) fn with_threads(threads: usize) -> Control {
        Control {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(false),
            wake: Wake::default(),
            running: AtomicBool::new(false),
            epoch: Instant::now(),
            clock_start_ns: AtomicU64::new(0),
            nodes: (0..threads.max(1))
                .map(|_| NodeCounter::default())
                .collect(),
        }
    }
}

/// A cheap, cloneable remote control for the running search.
#[derive(Clone, Debug)]
pub struct SearchHandle {
    pub(crate) control: Arc<std::sync::Mutex<Arc<Control>>>,
}

impl SearchHandle {
    fn current(&self) -> Arc<Control> {
        match self.control.lock() {
            Ok(g) => Arc::clone(&g),
            Err(p) => Arc::clone(&p.into_inner()),
        }
    }

    /// Asks the running search to stop; [`Engine::wait`](crate::Engine::wait) then returns
    /// within a couple of milliseconds. Harmless when nothing runs.
    pub fn stop(&self) {
        let s = self.current();
        s.stop.store(true, Ordering::SeqCst);
        s.wake.notify();
    }

    /// Turns a ponder search into a normal one: its clocks start now.
    pub fn ponderhit(&self) {
        let s = self.current();
        let now = u64::try_from(s.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        s.clock_start_ns.store(now, Ordering::SeqCst);
        s.pondering.store(false, Ordering::SeqCst);
        s.wake.notify();
    }

    /// Whether a search is running (it may have stopped and wait for
    /// [`Engine::wait`](crate::Engine::wait) to collect its result).
    pub fn is_running(&self) -> bool {
        self.current().running.load(Ordering::SeqCst)
    }
}
