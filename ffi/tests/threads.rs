//! `chariot_destroy` leaves no thread behind: the session, the output
//! thread and the engine's search threads are all joined. Counted from
//! `/proc/self/task`, so Linux only, and alone in its own test process so
//! that no other test's threads come and go meanwhile.

#![cfg(target_os = "linux")]

use std::ffi::CStr;
use std::time::{Duration, Instant};

use chariot::{
    ChariotEngine, ChariotStatus, chariot_destroy, chariot_new, chariot_poll, chariot_send,
};

fn threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("procfs")
        .count()
}

/// Polls `engine` until a line starting with `prefix` comes.
fn await_line(engine: ChariotEngine, prefix: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut buf = [0u8; 4096];
    let mut len = 0usize;
    while Instant::now() < deadline {
        // SAFETY: `buf` has `buf.len()` writable bytes and `len` is a
        // writable usize.
        let status =
            unsafe { chariot_poll(engine, buf.as_mut_ptr().cast(), buf.len(), &raw mut len, 50) };
        if status == ChariotStatus::Ok {
            let line = CStr::from_bytes_until_nul(&buf).expect("a NUL-terminated line");
            if line.to_bytes().starts_with(prefix.as_bytes()) {
                return;
            }
        }
    }
    panic!("no line starting with {prefix:?}");
}

#[test]
fn destroy_joins_every_thread_of_the_engine() {
    let before = threads();
    let mut engines = Vec::new();
    for threads_option in ["1", "3"] {
        let mut engine: ChariotEngine = 0;
        // SAFETY: `engine` is a writable handle; no callback.
        let made = unsafe { chariot_new(None, std::ptr::null_mut(), &raw mut engine) };
        assert_eq!(made, ChariotStatus::Ok);
        let text = format!("uci\nsetoption name Threads value {threads_option}\ngo infinite\0");
        // SAFETY: a NUL-terminated string.
        let sent = unsafe { chariot_send(engine, text.as_ptr().cast()) };
        assert_eq!(sent, ChariotStatus::Ok);
        await_line(engine, "info depth 2");
        engines.push(engine);
    }
    // Two engines, each with a session and an output thread, searching on
    // one and on three threads.
    assert!(threads() >= before + 2 * 2 + 1 + 3, "{} threads", threads());
    for engine in engines {
        assert_eq!(chariot_destroy(engine), ChariotStatus::Ok);
    }
    assert_eq!(threads(), before);
}
