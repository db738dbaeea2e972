//! The contract's time bounds (`docs/ucci.md` §1, §4, §6, §9), checked on
//! a session driven in-process: lines go straight into the session's input
//! channel and its output lines come back through a channel with the time
//! each was written, so no process start, pipe or scheduler between two
//! programs is measured with the session. The transcripts against the real
//! binary (`cli/tests/conformance/`) check the same exchanges' content and
//! order.
//!
//! The bounds are as written in a release build (`cargo test --release -p
//! protocol --test timing`, which `.ci/run` runs) and ten times as long in
//! a debug build, run beside the whole workspace's tests.

use std::io::Write;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Sender, unbounded};
use protocol::output::Output;
use protocol::reader::parse_line;
use protocol::session::{Input, Session};
use test_support::{SOON, contract_bound as bound};

/// The session's output, one line at a time with its time.
struct Lines {
    tx: std::sync::mpsc::Sender<(Instant, String)>,
    partial: Vec<u8>,
}

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                self.partial.clear();
                let _ = self.tx.send((Instant::now(), line));
            } else {
                self.partial.push(b);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A session running on a thread of this test.
struct InProcess {
    input: Sender<Input>,
    output: Receiver<(Instant, String)>,
    thread: Option<JoinHandle<()>>,
}

impl InProcess {
    /// A session after `ucci` and its `ucciok`.
    fn ucci() -> InProcess {
        let (input, rx) = unbounded();
        let (tx, output) = channel();
        let out = Output::new(Box::new(Lines {
            tx,
            partial: Vec::new(),
        }));
        let thread = std::thread::spawn(move || Session::new(out).run(&rx));
        let s = InProcess {
            input,
            output,
            thread: Some(thread),
        };
        s.send("ucci");
        s.wait_for(|l| l == "ucciok");
        s
    }

    /// Sends one line, returning when it was sent.
    fn send(&self, line: &str) -> Instant {
        let at = Instant::now();
        self.input
            .send(parse_line(line.as_bytes()))
            .expect("the session is running");
        at
    }

    /// The first line `wanted` accepts, with its time; the lines before it.
    fn wait_for(&self, wanted: impl Fn(&str) -> bool) -> (Instant, String, Vec<String>) {
        let deadline = Instant::now() + SOON;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok((at, line)) if wanted(&line) => return (at, line, before),
                Ok((_, line)) => before.push(line),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                    panic!("no such line within {SOON:?}; before it: {before:?}")
                }
            }
        }
    }

    /// The search's final line (`bestmove` or `nobestmove`) with its time.
    fn final_line(&self) -> (Instant, String) {
        let (at, line, _) =
            self.wait_for(|l| l.starts_with("bestmove") || l.starts_with("nobestmove"));
        (at, line)
    }

    /// Waits for the session's thread to end; how long it took.
    fn join(mut self) -> Duration {
        let t0 = Instant::now();
        if let Some(t) = self.thread.take() {
            t.join().expect("the session ends without a panic");
        }
        t0.elapsed()
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        let _ = self.input.send(Input::Abort);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// §4: `isready` during a search is answered at once (100 ms), and `stop`
/// ends an infinite search with its final line (200 ms), with one search
/// thread and with four.
#[test]
fn isready_and_stop_during_a_search_within_100_and_200_ms() {
    for threads in [1, 4] {
        let s = InProcess::ucci();
        s.send(&format!("setoption name Threads value {threads}"));
        s.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        let t0 = s.send("isready");
        let (at, _, before) = s.wait_for(|l| l == "readyok");
        assert!(
            at - t0 < bound(100),
            "{threads} threads, isready: {:?}",
            at - t0
        );
        assert!(!before.iter().any(|l| l.starts_with("bestmove")));
        std::thread::sleep(Duration::from_millis(100));
        let t0 = s.send("stop");
        let (at, line) = s.final_line();
        assert!(line.starts_with("bestmove "), "{line}");
        assert!(
            at - t0 < bound(200),
            "{threads} threads, stop: {:?}",
            at - t0
        );
    }
}

/// §6: `stop` while pondering answers at once (200 ms); `ponderhit` on a
/// clock lets the search play within its time (1 s here).
#[test]
fn ponder_stop_and_ponderhit_within_their_bounds() {
    let s = InProcess::ucci();
    s.send("go ponder time 60000 increment 0");
    std::thread::sleep(Duration::from_millis(300));
    let t0 = s.send("stop");
    let (at, _) = s.final_line();
    assert!(at - t0 < bound(200), "stop: {:?}", at - t0);
    s.send("go ponder time 1000 increment 0");
    std::thread::sleep(Duration::from_millis(200));
    let t0 = s.send("ponderhit");
    let (at, _) = s.final_line();
    assert!(at - t0 < bound(1000), "ponderhit: {:?}", at - t0);
}

/// §9: `quit` during a search ends the session (1 s), a search with four
/// threads too.
#[test]
fn quit_during_a_search_ends_the_session_within_1_s() {
    for threads in [1, 4] {
        let s = InProcess::ucci();
        s.send(&format!("setoption name Threads value {threads}"));
        s.send("go infinite");
        std::thread::sleep(Duration::from_millis(200));
        s.send("quit");
        let took = s.join();
        assert!(took < bound(1000), "{threads} threads: {took:?}");
    }
}

/// §7: a count that would run for ages leaves the session responsive:
/// `isready` is answered at once (100 ms) and `stop` ends the count.
#[test]
fn isready_during_a_deep_perft_within_100_ms() {
    let s = InProcess::ucci();
    s.send("go perft 64");
    std::thread::sleep(Duration::from_millis(200));
    let t0 = s.send("isready");
    let (at, _, _) = s.wait_for(|l| l == "readyok");
    assert!(at - t0 < bound(100), "{:?}", at - t0);
    s.send("stop");
    s.wait_for(|l| l == "info string perft stopped");
}
