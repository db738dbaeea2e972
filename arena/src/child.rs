//! An engine as the arena sees it: a child process, not Chariot's `engine`
//! crate, and the conversation with it — start and handshake, options, new
//! games, one search at a time with a deadline, and shutdown. The process is
//! owned by [`EngineProcess`]: dropping it kills and reaps the child, so no
//! path leaks a process.
//!
//! A reader thread per engine turns stdout into [`Event`]s on a channel; the
//! game thread waits on the channel with a deadline, which is how hangs are
//! noticed without blocking, and on the run's cancel channel, which is how
//! Ctrl-C ends a wait at once. What a reply *means* for the game (legality,
//! clocks) is decided in `game`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use crossbeam_channel::{Receiver, RecvError, select, unbounded};

use crate::config::{EngineSpec, Protocol};

/// How long an engine may take to answer the handshake and `isready`.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(10);

/// What the reader thread reports.
#[derive(Debug)]
enum Event {
    /// One line of stdout, without its line end.
    Line(String),
    /// stdout was closed (the engine exited or crashed).
    Eof,
}

/// Why a search produced no usable answer. Each is a loss for the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchFailure {
    /// The process exited or closed its output; the text says how.
    Crashed(String),
    /// No final line came before the deadline, nor within the grace period
    /// after `stop`.
    Hung,
    /// The run is being interrupted (Ctrl-C or SIGTERM): no answer is
    /// waited for, and the engine is not to blame.
    Interrupted,
}

/// An evaluation as the engine reported it, from its own point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (UCCI's plain `score`, UCI's `score cp`).
    Cp(i32),
    /// Mate in this many moves (UCI `score mate`), negative when mated.
    Mate(i32),
}

impl Score {
    /// A single scale for adjudication: centipawns, mates far beyond any
    /// threshold, nearer mates further out.
    pub fn centipawns(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(m) if m > 0 => 30_000 - m,
            Score::Mate(m) => -30_000 - m,
        }
    }
}

/// A completed search: the final line and what came with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchReply {
    /// The move token of `bestmove`, or `None` for `nobestmove` /
    /// `bestmove (none)`; `Err` holds a final line that could not be read.
    pub best: Result<Option<String>, String>,
    /// The last score of an `info` line, if any.
    pub score: Option<Score>,
    /// Time from sending `go` to the final line.
    pub elapsed: Duration,
}

/// A running engine process.
pub struct EngineProcess {
    spec: EngineSpec,
    child: Child,
    stdin: ChildStdin,
    events: Receiver<Event>,
    /// UCCI only: whether the engine takes `go` times in milliseconds (it
    /// advertised `usemillisec` and we switched it on); else seconds.
    millis: bool,
    /// stdout is closed: no more lines will come.
    eof: bool,
    /// Disconnected when the run is interrupted: every wait for a line
    /// also waits on this, so an interruption ends it at once.
    cancel: Receiver<()>,
}

impl EngineProcess {
    /// Starts the process, performs the handshake, sends the options and
    /// waits for `readyok`.
    ///
    /// A run that waits on nothing but the engine gives
    /// [`crossbeam_channel::never`] as `cancel`.
    ///
    /// # Errors
    /// The program cannot be started, or does not complete the handshake in
    /// time.
    pub fn start(spec: &EngineSpec, cancel: &Receiver<()>) -> Result<EngineProcess> {
        let mut cmd = Command::new(&spec.cmd);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        if let Some(dir) = &spec.dir {
            cmd.current_dir(dir);
        }
        // The engine gets a process group of its own, so a Ctrl-C at the
        // terminal reaches the arena alone: the arena then ends the games
        // and shuts the engines down itself, and no engine dies of the
        // signal mid-game and is scored as crashed.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd.spawn().with_context(|| {
            format!(
                "cannot start engine '{}' ({})",
                spec.name,
                spec.cmd.display()
            )
        })?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("engine '{}': no pipes", spec.name);
        };
        let (tx, events) = unbounded();
        let spawned = thread::Builder::new()
            .name(format!("read-{}", spec.name))
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {
                            let line = String::from_utf8_lossy(&buf)
                                .trim_end_matches(['\r', '\n'])
                                .to_string();
                            if tx.send(Event::Line(line)).is_err() {
                                return;
                            }
                        }
                    }
                }
                let _ = tx.send(Event::Eof);
            });
        // The thread is detached: it ends by itself when the pipe closes,
        // which killing the child guarantees.
        if let Err(e) = spawned {
            let _ = child.kill();
            let _ = child.wait();
            return Err(anyhow!(e).context("cannot start reader thread"));
        }
        let mut engine = EngineProcess {
            spec: spec.clone(),
            child,
            stdin,
            events,
            millis: false,
            eof: false,
            cancel: cancel.clone(),
        };
        engine
            .handshake()
            .with_context(|| format!("engine '{}' failed to start", spec.name))?;
        Ok(engine)
    }

    /// The engine's settings.
    pub fn spec(&self) -> &EngineSpec {
        &self.spec
    }

    /// Whether UCCI clock values go out in milliseconds.
    pub fn uses_millis(&self) -> bool {
        self.millis
    }

    fn handshake(&mut self) -> Result<()> {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        let (hello, ok) = match self.spec.protocol {
            Protocol::Ucci => ("ucci", "ucciok"),
            Protocol::Uci => ("uci", "uciok"),
        };
        self.send_expecting(hello, ok)?;
        let mut advertises_millis = false;
        let mut last = None;
        loop {
            let line = match self.next_line(deadline) {
                Ok(line) => line,
                Err(f) => bail!(self.no_answer(hello, ok, &f, last.as_deref())),
            };
            last = Some(line.clone());
            let mut words = line.split_whitespace();
            match (words.next(), words.next()) {
                (Some(w), _) if w == ok => break,
                (Some("option"), Some(name)) if name.eq_ignore_ascii_case("usemillisec") => {
                    advertises_millis = true;
                }
                _ => {}
            }
        }
        if self.spec.protocol == Protocol::Ucci && advertises_millis {
            // UCCI's own default is seconds; switching explicitly makes the
            // clock exact whatever the engine's default.
            self.send("setoption usemillisec true")?;
            self.millis = true;
        }
        for (name, value) in self.spec.options.clone() {
            let line = match self.spec.protocol {
                Protocol::Ucci => format!("setoption {name} {value}"),
                Protocol::Uci => format!("setoption name {name} value {value}"),
            };
            self.send(&line)?;
        }
        self.sync(deadline)
    }

    /// Sends `isready` and waits for `readyok`, skipping other lines.
    fn sync(&mut self, deadline: Instant) -> Result<()> {
        self.send_expecting("isready", "readyok")?;
        let mut last = None;
        loop {
            let line = match self.next_line(deadline) {
                Ok(line) => line,
                Err(f) => bail!(self.no_answer("isready", "readyok", &f, last.as_deref())),
            };
            if line.trim() == "readyok" {
                return Ok(());
            }
            last = Some(line);
        }
    }

    /// Sends `line`, to which the program must answer `expected`; a
    /// program that has already exited (the pipe is closed) is described
    /// as one that did not answer.
    fn send_expecting(&mut self, line: &str, expected: &str) -> Result<()> {
        if self.send(line).is_err() {
            let failure = self.crash_failure();
            bail!(self.no_answer(line, expected, &failure, None));
        }
        Ok(())
    }

    /// Says in plain words that the program did not answer `sent` with
    /// `expected`, and what it did instead: a program that is no engine
    /// (a shell, `cat`) ends up here, and its user needs a hint, not the
    /// name of an internal state.
    fn no_answer(
        &self,
        sent: &str,
        expected: &str,
        failure: &SearchFailure,
        last: Option<&str>,
    ) -> String {
        let what = match failure {
            SearchFailure::Crashed(how) => format!("it {how} before answering '{sent}'"),
            SearchFailure::Hung => format!(
                "it did not answer '{sent}' with '{expected}' within {} s",
                STARTUP_TIMEOUT.as_secs()
            ),
            SearchFailure::Interrupted => {
                return format!("the run was interrupted before it answered '{sent}'");
            }
        };
        let said = match last {
            Some(line) => format!(
                " (the last line it wrote was '{}')",
                line.chars().take(60).collect::<String>()
            ),
            None => " (it wrote nothing)".to_string(),
        };
        let hint = match self.spec.protocol {
            Protocol::Ucci => "is it a UCCI engine? For a UCI engine add proto=uci to its --engine",
            Protocol::Uci => "is it a UCI engine? For a UCCI engine leave out proto=uci",
        };
        format!("{what}{said}; {hint}")
    }

    /// Tells the engine a new game starts and waits until it is ready.
    ///
    /// # Errors
    /// The engine is gone or does not answer `isready` in time.
    pub fn new_game(&mut self) -> Result<()> {
        self.send(match self.spec.protocol {
            Protocol::Ucci => "setoption newgame",
            Protocol::Uci => "ucinewgame",
        })?;
        self.sync(Instant::now() + STARTUP_TIMEOUT)
    }

    /// Writes one line to the engine.
    ///
    /// # Errors
    /// The pipe is closed (the engine exited).
    pub fn send(&mut self, line: &str) -> Result<()> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .with_context(|| format!("cannot write to engine '{}'", self.spec.name))
    }

    /// The next stdout line before `deadline`.
    fn next_line(&mut self, deadline: Instant) -> Result<String, SearchFailure> {
        if self.eof {
            return Err(self.crash_failure());
        }
        let timeout = deadline.saturating_duration_since(Instant::now());
        select! {
            recv(self.events) -> event => match event {
                Ok(Event::Line(line)) => Ok(line),
                Ok(Event::Eof) | Err(RecvError) => {
                    self.eof = true;
                    Err(self.crash_failure())
                }
            },
            recv(self.cancel) -> _ => Err(SearchFailure::Interrupted),
            default(timeout) => Err(SearchFailure::Hung),
        }
    }

    /// Describes how the process ended, waiting briefly for it to exit.
    fn crash_failure(&mut self) -> SearchFailure {
        let until = Instant::now() + Duration::from_millis(500);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return SearchFailure::Crashed(format!("exited with {status}")),
                Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
                _ => return SearchFailure::Crashed("closed its output".to_string()),
            }
        }
    }

    /// Runs one search: sends `position` and `go`, then reads until the
    /// final line. When `deadline` passes first, sends `stop` and waits up
    /// to `grace` more; a final line arriving then is still returned (the
    /// caller sees the elapsed time and flags the clock).
    ///
    /// # Errors
    /// [`SearchFailure::Crashed`] when the engine exits or cannot be
    /// written to, [`SearchFailure::Hung`] when no final line comes at all.
    pub fn search(
        &mut self,
        position: &str,
        go: &str,
        deadline: Instant,
        grace: Duration,
    ) -> Result<SearchReply, SearchFailure> {
        if self.send(position).is_err() || self.send(go).is_err() {
            return Err(self.crash_failure());
        }
        let start = Instant::now();
        let mut score = None;
        let mut stopped = false;
        let mut limit = deadline;
        loop {
            let line = match self.next_line(limit) {
                Ok(line) => line,
                Err(SearchFailure::Hung) if !stopped => {
                    stopped = true;
                    limit = Instant::now() + grace;
                    if self.send("stop").is_err() {
                        return Err(self.crash_failure());
                    }
                    continue;
                }
                Err(e) => return Err(e),
            };
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    if let Some(s) = parse_score(&line, self.spec.protocol) {
                        score = Some(s);
                    }
                }
                Some("nobestmove") => {
                    return Ok(SearchReply {
                        best: Ok(None),
                        score,
                        elapsed: start.elapsed(),
                    });
                }
                Some("bestmove") => {
                    let best = match words.next() {
                        Some("(none)") => Ok(None),
                        Some(m) => Ok(Some(m.to_string())),
                        None => Err(line.clone()),
                    };
                    return Ok(SearchReply {
                        best,
                        score,
                        elapsed: start.elapsed(),
                    });
                }
                // Anything else (diagnostics, noise) is not an answer.
                _ => {}
            }
        }
    }

    /// Ends the process: `quit`, up to `grace` for it to exit, then kill.
    /// Always reaps the child.
    pub fn quit(mut self, grace: Duration) {
        let _ = self.send("quit");
        let until = Instant::now() + grace;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => return, // Drop's kill+wait is then a no-op reap.
                Ok(None) => thread::sleep(Duration::from_millis(5)),
            }
        }
        // Drop kills and reaps.
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// The score of an `info` line: UCCI `score <n>`, UCI `score cp <n>` or
/// `score mate <n>`. `None` when the line has none or it is unreadable.
pub fn parse_score(line: &str, protocol: Protocol) -> Option<Score> {
    let mut words = line
        .split_whitespace()
        .skip_while(|w| *w != "score")
        .skip(1);
    let first = words.next()?;
    match (protocol, first) {
        (_, "cp") => words.next()?.parse().ok().map(Score::Cp),
        (_, "mate") => words.next()?.parse().ok().map(Score::Mate),
        (Protocol::Ucci, n) => n.parse().ok().map(Score::Cp),
        (Protocol::Uci, _) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores() {
        assert_eq!(
            parse_score("info depth 5 score 34 pv h2e2", Protocol::Ucci),
            Some(Score::Cp(34))
        );
        assert_eq!(
            parse_score("info depth 5 score -9995 pv h2e2", Protocol::Ucci),
            Some(Score::Cp(-9995))
        );
        assert_eq!(
            parse_score(
                "info depth 5 seldepth 7 multipv 1 score cp -12 nodes 5",
                Protocol::Uci
            ),
            Some(Score::Cp(-12))
        );
        assert_eq!(
            parse_score("info depth 9 score mate 3 pv a0a1", Protocol::Uci),
            Some(Score::Mate(3))
        );
        assert_eq!(
            parse_score("info depth 9 score mate -2", Protocol::Uci),
            Some(Score::Mate(-2))
        );
        assert_eq!(parse_score("info time 5 nodes 100", Protocol::Ucci), None);
        assert_eq!(parse_score("info depth 5 score", Protocol::Ucci), None);
        assert_eq!(parse_score("info depth 5 score x", Protocol::Uci), None);
        assert_eq!(Score::Mate(3).centipawns(), 29_997);
        assert_eq!(Score::Mate(-2).centipawns(), -29_998);
        assert_eq!(Score::Cp(-40).centipawns(), -40);
    }
}
