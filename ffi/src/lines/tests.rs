//! The output queue on its own: cutting, the poll protocol, the bound,
//! closing, and callback changes.

use std::ffi::CStr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use super::*;

fn line(text: &str) -> CString {
    CString::new(text).expect("no NUL")
}

/// Every line queued so far, taken by polling.
fn drain(lines: &Lines) -> Vec<CString> {
    let mut got = Vec::new();
    while let Polled::Line(l) = lines.poll(usize::MAX, Some(Duration::ZERO)) {
        got.push(l);
    }
    got
}

#[test]
fn writes_are_cut_at_line_feeds_whatever_the_chunks() {
    let lines = Arc::new(Lines::new(None));
    let mut w = LineWriter::new(Arc::clone(&lines));
    w.write_all(b"id name Chariot\nuc").unwrap();
    w.write_all(b"ciok\n\nbo").unwrap();
    w.write_all(b"ard\0x").unwrap();
    assert_eq!(
        drain(&lines),
        [line("id name Chariot"), line("ucciok"), line("")]
    );
    drop(w);
    assert_eq!(drain(&lines), [line("board?x")]);
}

#[test]
fn poll_reports_too_small_then_hands_the_same_line_out() {
    let lines = Lines::new(None);
    lines.push(line("readyok"));
    assert_eq!(lines.poll(0, Some(Duration::ZERO)), Polled::TooSmall(7));
    assert_eq!(lines.poll(7, Some(Duration::ZERO)), Polled::TooSmall(7));
    assert_eq!(
        lines.poll(8, Some(Duration::ZERO)),
        Polled::Line(line("readyok"))
    );
    assert_eq!(
        lines.poll(8, Some(Duration::ZERO)),
        Polled::Nothing(ChariotStatus::WouldBlock)
    );
    lines.push(line("bye"));
    lines.end();
    assert_eq!(lines.poll(8, None), Polled::Line(line("bye")));
    assert_eq!(
        lines.poll(8, None),
        Polled::Nothing(ChariotStatus::SessionEnded)
    );
    lines.close();
    assert_eq!(
        lines.poll(8, None),
        Polled::Nothing(ChariotStatus::InvalidHandle)
    );
    assert_eq!(lines.set_callback(None), ChariotStatus::InvalidHandle);
}

#[test]
fn a_waiting_poll_is_woken_by_a_line_and_by_close() {
    let lines = Arc::new(Lines::new(None));
    thread::scope(|s| {
        let waiter = s.spawn(|| lines.poll(100, None));
        lines.push(line("bestmove h2e2"));
        assert_eq!(waiter.join().unwrap(), Polled::Line(line("bestmove h2e2")));
        let waiter = s.spawn(|| lines.poll(100, None));
        lines.close();
        assert_eq!(
            waiter.join().unwrap(),
            Polled::Nothing(ChariotStatus::InvalidHandle)
        );
    });
}

#[test]
fn a_full_queue_holds_the_writer_until_the_host_polls_or_closes() {
    let lines = Lines::new(None);
    for n in 0..CHARIOT_MAX_QUEUED_LINES {
        lines.push(line(&n.to_string()));
    }
    thread::scope(|s| {
        let writer = s.spawn(|| lines.push(line("one more")));
        // The writer cannot finish before room is made.
        assert_eq!(lines.poll(100, None), Polled::Line(line("0")));
        writer.join().unwrap();
        let writer = s.spawn(|| lines.push(line("dropped")));
        lines.close();
        writer.join().unwrap();
    });
    assert_eq!(
        lines.poll(100, None),
        Polled::Nothing(ChariotStatus::InvalidHandle)
    );
    let fresh = Lines::new(None);
    for n in 0..CHARIOT_MAX_QUEUED_LINES {
        fresh.push(line(&n.to_string()));
    }
    let all = drain(&fresh);
    assert_eq!(all.len(), CHARIOT_MAX_QUEUED_LINES);
    assert_eq!(
        all.last(),
        Some(&line(&(CHARIOT_MAX_QUEUED_LINES - 1).to_string()))
    );
}

/// A callback that counts its calls in `user`, an `AtomicUsize`, and
/// checks what it is given.
unsafe extern "C" fn count(user: *mut c_void, text: *const c_char, len: usize) {
    // SAFETY: the tests pass a live AtomicUsize and the queue a C string
    // of `len` bytes.
    let (counter, text) = unsafe { (&*user.cast::<AtomicUsize>(), CStr::from_ptr(text)) };
    assert_eq!(text.to_bytes().len(), len);
    counter.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn the_callback_gets_queued_and_new_lines_then_polling_resumes() {
    let lines = Arc::new(Lines::new(None));
    let counter = AtomicUsize::new(0);
    let user = (&raw const counter).cast_mut().cast::<c_void>();
    lines.push(line("queued before the callback"));
    thread::scope(|s| {
        s.spawn(|| lines.deliver());
        assert_eq!(
            lines.set_callback(Callback::new(Some(count), user)),
            ChariotStatus::Ok
        );
        lines.push(line("after"));
        // Polling takes nothing while a callback is set.
        assert_eq!(
            lines.poll(100, Some(Duration::from_millis(1))),
            Polled::Nothing(ChariotStatus::WouldBlock)
        );
        // Both lines reach the callback; then the end, with nothing left.
        lines.end();
        assert_eq!(
            lines.poll(100, None),
            Polled::Nothing(ChariotStatus::SessionEnded)
        );
        assert_eq!(lines.set_callback(None), ChariotStatus::Ok);
        assert_eq!(counter.load(Ordering::SeqCst), 2);
        lines.close();
    });
}

#[test]
fn replacing_the_callback_waits_for_a_call_in_progress() {
    /// Sleeps in the callback, then counts, so that a replacement that
    /// did not wait would see the count still at zero.
    unsafe extern "C" fn slow(user: *mut c_void, text: *const c_char, len: usize) {
        thread::sleep(Duration::from_millis(50));
        // SAFETY: as for `count`.
        unsafe { count(user, text, len) };
    }
    let lines = Arc::new(Lines::new(None));
    let counter = AtomicUsize::new(0);
    let user = (&raw const counter).cast_mut().cast::<c_void>();
    lines.set_callback(Callback::new(Some(slow), user));
    thread::scope(|s| {
        s.spawn(|| lines.deliver());
        lines.push(line("info depth 1"));
        // Wait until the output thread has taken the line.
        while lines.lock().queue.len() == 1 {
            thread::yield_now();
        }
        assert_eq!(lines.set_callback(None), ChariotStatus::Ok);
        assert_eq!(counter.load(Ordering::SeqCst), 1);
        lines.close();
    });
}
