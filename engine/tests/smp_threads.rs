//! No search thread outlives its engine, and the pool holds exactly the
//! threads asked for: counted in `/proc/self/task` (Linux). One test in
//! its own binary, so no other test's threads disturb the count.

use std::time::{Duration, Instant};

use board::Position;
use engine::{Engine, Limits};

/// Threads of this process, or `None` where `/proc` does not exist.
fn threads() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/task").ok()?.count())
}

/// Waits up to a second for the thread count to become `want` (an ended
/// thread may take a moment to leave `/proc`).
fn settles_at(want: usize) -> usize {
    let t0 = Instant::now();
    loop {
        let n = threads().unwrap_or(want);
        if n == want || t0.elapsed() > Duration::from_secs(1) {
            return n;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn infinite() -> Limits {
    Limits {
        infinite: true,
        ..Limits::default()
    }
}

#[test]
fn no_search_thread_outlives_its_search_or_engine() {
    let Some(base) = threads() else {
        return;
    };
    let p = Position::startpos();
    let mut e = Engine::new();
    assert_eq!(settles_at(base + 1), base + 1, "one parked thread");
    e.set_threads(4).expect("four threads");
    assert_eq!(settles_at(base + 4), base + 4);

    // `stop` during a search: the pool parks, nothing more runs.
    e.start(p.clone(), infinite(), Box::new(|_| {}));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(threads(), Some(base + 4), "searching adds no thread");
    e.handle().stop();
    assert!(p.is_legal(e.wait().best.expect("a move")));
    assert_eq!(settles_at(base + 4), base + 4);

    // Shrinking ends the threads no longer wanted.
    e.set_threads(2).expect("two threads");
    assert_eq!(settles_at(base + 2), base + 2);

    // Dropping the engine during a search (the session's `quit`) stops
    // and joins every thread.
    e.start(p.clone(), infinite(), Box::new(|_| {}));
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    drop(e);
    assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
    assert_eq!(settles_at(base), base, "every search thread ended");
}
