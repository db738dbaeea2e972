//! What a `go` allocates once the engine's threads exist: the per-thread
//! state (histories, ply stack, evaluation cache, accumulators) is made
//! once per thread and reused, so a search allocates only its small
//! per-search values (the task, the root position's copy, the root moves'
//! first growth, the reports). Counted by a global allocator that tallies
//! bytes and calls; this file holds one test, so nothing else allocates
//! meanwhile.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use board::Position;
use engine::{Engine, Limits};

struct Counting;

static BYTES: AtomicU64 = AtomicU64::new(0);
static CALLS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the
// counters are only added to.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Bytes and calls allocated by one depth-`depth` search of `pos`.
fn one_go(e: &mut Engine, pos: &Position, depth: u32) -> (u64, u64) {
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    let (b0, c0) = (BYTES.load(Ordering::SeqCst), CALLS.load(Ordering::SeqCst));
    e.start(pos.clone(), limits, Box::new(|_| {}));
    let r = e.wait();
    assert!(r.best.is_some());
    (
        BYTES.load(Ordering::SeqCst) - b0,
        CALLS.load(Ordering::SeqCst) - c0,
    )
}

#[test]
fn a_go_allocates_only_its_own_small_values() {
    let pos = Position::startpos();
    for threads in [1, 2] {
        let mut e = Engine::new();
        e.set_threads(threads).expect("threads");
        // The first search makes sure every thread has built its state.
        let (first, _) = one_go(&mut e, &pos, 6);
        let (bytes, calls) = one_go(&mut e, &pos, 6);
        let (deeper, _) = one_go(&mut e, &pos, 9);
        eprintln!(
            "{threads} thread(s): first go {first} bytes; later go {bytes} bytes in {calls} calls; depth 9 {deeper} bytes"
        );
        // Before the per-thread workers (7976ba6) every go allocated a
        // 1 MiB evaluation cache, 129 accumulators, the PV table and the
        // reduction table per thread: 1,224,320 bytes in 75 calls for this
        // depth-6 go with one thread. Now: about 2 KB in 20 calls a thread.
        assert!(
            bytes < 64 * 1024,
            "{threads} thread(s): a go allocated {bytes} bytes"
        );
        assert!(deeper < 64 * 1024, "a deeper go allocated {deeper} bytes");
    }
}
