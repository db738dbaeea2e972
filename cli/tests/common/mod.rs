//! A harness that spawns the real `chariot` binary and talks to it over
//! pipes: send lines (or raw bytes), wait for a line matching a predicate
//! with a generous deadline, and check that everything printed is a
//! protocol line; or runs it once with arguments, for the tools' tests.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Output, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use board::{Move, Position};

pub use test_support::SOON;

/// The start position's board field.
pub const S0: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";

/// `chariot` run once with `args` to its end: its status, stdout and
/// stderr.
///
/// # Panics
/// If the binary cannot be started.
pub fn chariot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(args)
        .output()
        .expect("chariot runs")
}

/// A running engine process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<(Instant, String)>,
    /// Every line received so far, in order.
    pub seen: Vec<String>,
}

impl Engine {
    /// Starts `chariot` in protocol mode.
    pub fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_chariot"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chariot starts");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            while reader.read_until(b'\n', &mut buf).is_ok_and(|n| n > 0) {
                let line = String::from_utf8_lossy(&buf)
                    .trim_end_matches('\n')
                    .to_string();
                buf.clear();
                if tx.send((Instant::now(), line)).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            rx,
            seen: Vec::new(),
        }
    }

    /// Starts the engine and does the `ucci` handshake.
    pub fn ucci() -> Engine {
        let mut e = Engine::start();
        e.send("ucci");
        e.expect_line("ucciok");
        e
    }

    /// Starts the engine and does the `uci` handshake.
    pub fn uci() -> Engine {
        let mut e = Engine::start();
        e.send("uci");
        e.expect_line("uciok");
        e
    }

    /// Sends raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        if let Some(stdin) = self.stdin.as_mut() {
            stdin
                .write_all(bytes)
                .and_then(|()| stdin.flush())
                .expect("write to chariot");
        }
    }

    /// Sends one line ended by `\n`.
    pub fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }

    /// Sends several lines.
    pub fn send_all(&mut self, lines: &[&str]) {
        for line in lines {
            self.send(line);
        }
    }

    /// Closes stdin (EOF).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// The next line, if one arrives before `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Option<(Instant, String)> {
        match self.rx.recv_timeout(timeout) {
            Ok((t, line)) => {
                self.seen.push(line.clone());
                Some((t, line))
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Reads lines until one satisfies `pred`; returns the lines before it,
    /// the line, and when it arrived. Panics after `timeout`.
    pub fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> (Vec<String>, String, Instant) {
        let deadline = Instant::now() + timeout;
        let mut before = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Some((t, line)) = self.next_line(left) else {
                panic!(
                    "no {what} within {timeout:?}; got {before:?}; all output {:?}",
                    self.seen
                )
            };
            if pred(&line) {
                return (before, line, t);
            }
            before.push(line);
        }
    }

    /// Waits for exactly this line.
    pub fn expect_line(&mut self, want: &str) -> Vec<String> {
        self.wait_for(want, SOON, |l| l == want).0
    }

    /// Waits for the final line of a search (`bestmove …` or
    /// `nobestmove`); returns the lines before it and the final line.
    pub fn final_line(&mut self, timeout: Duration) -> (Vec<String>, String, Instant) {
        self.wait_for("final line", timeout, |l| {
            l.starts_with("bestmove") || l == "nobestmove"
        })
    }

    /// Starts a new game at the start position (an empty table), then
    /// times `go`: returns the lines before its final line, the final
    /// line, and the time from sending `go` to the final line.
    pub fn timed_go_from_start(&mut self, go: &str) -> (Vec<String>, String, Duration) {
        self.send_all(&["ucinewgame", "position startpos"]);
        self.sync();
        let t0 = Instant::now();
        self.send(go);
        let (before, line, at) = self.final_line(SOON);
        (before, line, at.duration_since(t0))
    }

    /// Sends `isready` and returns what arrived before `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        self.expect_line("readyok")
    }

    /// Collects every line that arrives within `d`.
    pub fn quiet_for(&mut self, d: Duration) -> Vec<String> {
        let deadline = Instant::now() + d;
        let mut lines = Vec::new();
        while let Some((_, l)) = self.next_line(deadline.saturating_duration_since(Instant::now()))
        {
            lines.push(l);
        }
        lines
    }

    /// Waits for the process to exit.
    pub fn exit_within(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Drain what is left of stdout.
                while self.next_line(Duration::from_millis(200)).is_some() {}
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Asserts every line seen so far is ASCII and has a protocol shape.
    pub fn assert_protocol_only(&self) {
        for line in &self.seen {
            assert!(line.is_ascii(), "non-ASCII output {line:?}");
            let first = line.split(' ').next().unwrap_or_default();
            assert!(
                matches!(
                    first,
                    "id" | "option"
                        | "ucciok"
                        | "uciok"
                        | "readyok"
                        | "info"
                        | "bestmove"
                        | "nobestmove"
                        | "bye"
                        | "pophash"
                ),
                "not a protocol line: {line:?} in {:?}",
                self.seen
            );
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The move of a `bestmove` line, checked to be legal in `pos`.
pub fn legal_best(line: &str, pos: &Position) -> Move {
    let mut words = line.split_whitespace();
    assert_eq!(words.next(), Some("bestmove"), "{line}");
    let text = words
        .next()
        .unwrap_or_else(|| panic!("no move in {line:?}"));
    let m = pos
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{line:?}: {e} in {}", pos.fen()));
    assert_eq!(
        text,
        m.to_string(),
        "moves are printed lower case without hyphen"
    );
    if words.next() == Some("ponder") {
        let p = words
            .next()
            .unwrap_or_else(|| panic!("ponder without a move: {line:?}"));
        let mut after = pos.clone();
        after.play(m).expect("legal");
        after
            .parse_move(p)
            .unwrap_or_else(|e| panic!("ponder move of {line:?}: {e}"));
    }
    m
}

/// A position from a FEN and moves, for checking replies.
pub fn pos(fen: Option<&str>, moves: &[&str]) -> Position {
    let mut p = fen.map_or_else(Position::startpos, |f| {
        Position::from_fen(f).expect("valid FEN")
    });
    for m in moves {
        let mv = p.parse_move(m).expect("legal move");
        p.play(mv).expect("legal");
    }
    p
}
