//! The controller: owns the engine, the current position, the ban list and
//! the options, and turns each [`Command`] into engine calls and reply
//! lines. This module holds the session's state and its dispatch in three
//! states (idle, searching, counting perft); the work lives in its
//! children: `go` (a search from `go` to the engine), `jobs` (the search
//! and perft jobs, to their final line) and `commands` (the commands that
//! finish at once).
//!
//! It runs on its own thread, fed over a channel by the reader (or by the
//! C library, `ffi/`). While idle it handles commands in arrival order.
//! While a search runs (on the engine's worker) it waits in one `select!`
//! for the next input line or the end of the search, whichever comes
//! first: `isready`, `stop`, `ponderhit`, `probe`, `quit` and EOF act at
//! once, every other line is queued until the final line (`docs/ucci.md`
//! §9 c; in batch mode nearly everything waits). The library's
//! [`Input::Abort`] always acts at once, so that closing an engine never
//! waits for a search. Exactly one final line is printed per `go`: it is
//! held back while pondering, or for `go infinite`, until `ponderhit` or
//! `stop`. A `go perft` counts on a thread of its own in the same way, so
//! that a deep count can be stopped.

mod commands;
mod go;
mod jobs;
#[cfg(test)]
mod tests;

use std::collections::VecDeque;

use board::{Move, Position};
use crossbeam_channel::{Receiver, never, select_biased};
use engine::Engine;

use crate::command::{Command, ParseError};
use crate::notation::Notation;
use crate::options::{Dialect, Options};
use crate::output::{self, Output};

use jobs::{PerftJob, SearchJob};

/// What the reader sends: a parsed line, or the end of input.
#[derive(Debug)]
pub enum Input {
    /// One input line, parsed.
    Line(Result<Command, ParseError>),
    /// End of stdin (or a read error): acts as `quit`.
    Eof,
    /// The host is closing the session (the C library's `chariot_destroy`):
    /// a running search or count is stopped at once and the session ends.
    /// Unlike [`Input::Eof`] it is never queued, not even in batch mode, so
    /// that whoever sends it can wait for the session to end.
    Abort,
}

/// Whether the session goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// The controller's state.
pub struct Session {
    out: Output,
    dialect: Dialect,
    options: Options,
    engine: Engine,
    /// `None` after a rejected `position`: every `go` then answers no move.
    position: Option<Position>,
    bans: Vec<Move>,
    /// The open books (none, when none opened) and their random state.
    book: book::BookSet,
    search: Option<SearchJob>,
    perft: Option<PerftJob>,
    queue: VecDeque<Input>,
    /// The seed of the next weakened search's draw (advanced per search).
    level_seed: u64,
}

impl Session {
    /// A session writing to `out`, in the UCI dialect until a handshake,
    /// at the start position.
    pub fn new(out: Output) -> Session {
        let options = Options::default();
        // The default spec is the built-in book, which always opens.
        let (book, _) = book::BookSet::open_available(&options.bookfiles);
        let engine = Engine::new();
        Session {
            out,
            dialect: Dialect::Uci,
            options,
            engine,
            position: Some(Position::startpos()),
            bans: Vec::new(),
            book,
            search: None,
            perft: None,
            queue: VecDeque::new(),
            level_seed: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
        }
    }

    /// The same session with the draws of its strength levels seeded by
    /// `seed` (otherwise by the clock), so that a weakened engine's moves
    /// repeat: for tests and for matches that must replay.
    #[must_use]
    pub fn with_level_seed(mut self, seed: u64) -> Session {
        self.level_seed = seed;
        self
    }

    /// The same session with the random state of its book's choices set to
    /// `seed` (otherwise seeded from the clock), so that its book moves
    /// repeat: for tests, and for matches that must replay. A later
    /// `bookfiles` opens its books with a clock seed again.
    #[must_use]
    pub fn with_book_seed(mut self, seed: u64) -> Session {
        self.book = std::mem::take(&mut self.book).with_seed(seed);
        self
    }

    /// Runs until `quit` or end of input.
    pub fn run(mut self, input: &Receiver<Input>) {
        // The reader sends `Eof` before it goes, so once the channel is
        // disconnected the end of input has been handled (or queued)
        // already, and a running job is waited for alone.
        let mut input_open = true;
        loop {
            let flow = if self.search.is_some() || self.perft.is_some() {
                let lines = if input_open { input.clone() } else { never() };
                let search_end = self
                    .search
                    .as_ref()
                    .map_or_else(never, |job| job.worker_end(&self.engine));
                let perft_end = self.perft.as_ref().map_or_else(never, |j| j.result.clone());
                // Biased, input first: a line that arrived before the end
                // of the job was noticed is still handled as during it
                // (a `stop` then answers with the job's own final line).
                select_biased! {
                    recv(lines) -> item => match item {
                        Ok(item) if self.search.is_some() => self.during_search(item),
                        Ok(item) => self.during_perft(item),
                        Err(_) => {
                            input_open = false;
                            Flow::Continue
                        }
                    },
                    recv(search_end) -> _ => {
                        self.collect_search();
                        Flow::Continue
                    }
                    recv(perft_end) -> result => {
                        self.finish_perft(result.ok());
                        Flow::Continue
                    }
                }
            } else if let Some(item) = self.queue.pop_front() {
                self.idle(item)
            } else {
                match input.recv() {
                    Ok(item) => self.idle(item),
                    Err(_) => self.idle(Input::Eof),
                }
            };
            if flow == Flow::Quit {
                return;
            }
        }
    }

    fn diag(&self, text: &str) {
        self.out.diagnostic(text);
    }

    /// Handles one input while a search runs.
    fn during_search(&mut self, item: Input) -> Flow {
        let Some(run) = self.search.as_ref() else {
            return self.idle(item);
        };
        let own_limitless = run.holds();
        let acts = match &item {
            Input::Abort => true,
            Input::Eof | Input::Line(Ok(Command::Quit | Command::Stop)) => {
                !self.options.batch || own_limitless
            }
            Input::Line(Ok(Command::PonderHit { .. })) => !self.options.batch || run.pondering,
            Input::Line(Ok(Command::IsReady | Command::Probe(_))) => !self.options.batch,
            Input::Line(Ok(Command::Empty)) => return Flow::Continue,
            _ => false,
        };
        if !acts {
            if self.options.debug {
                self.diag("queued until the search ends");
            }
            self.queue.push_back(item);
            return Flow::Continue;
        }
        match item {
            Input::Line(Ok(Command::IsReady)) => self.out.line("readyok"),
            Input::Line(Ok(Command::Probe(spec))) => self.probe(spec.as_ref()),
            Input::Line(Ok(Command::Stop)) => self.stop_search(),
            Input::Line(Ok(Command::PonderHit { draw })) => self.ponderhit(draw),
            _ => {
                self.stop_search();
                return self.quit();
            }
        }
        Flow::Continue
    }

    /// Handles one input while a `go perft` counts: `isready` is answered,
    /// `stop` ends the count, `quit` and EOF end it and the session; the
    /// rest waits for the count (everything does in batch mode).
    fn during_perft(&mut self, item: Input) -> Flow {
        match item {
            Input::Line(Ok(Command::Empty)) => {}
            Input::Abort => {
                self.stop_perft();
                return self.quit();
            }
            _ if self.options.batch => self.queue.push_back(item),
            Input::Line(Ok(Command::IsReady)) => self.out.line("readyok"),
            Input::Line(Ok(Command::Stop)) => self.stop_perft(),
            Input::Eof | Input::Line(Ok(Command::Quit)) => {
                self.stop_perft();
                return self.quit();
            }
            other => {
                if self.options.debug {
                    self.diag("queued until perft ends");
                }
                self.queue.push_back(other);
            }
        }
        Flow::Continue
    }

    fn quit(&self) -> Flow {
        if self.dialect == Dialect::Ucci {
            self.out.line("bye");
        }
        Flow::Quit
    }

    /// Handles one input while idle.
    fn idle(&mut self, item: Input) -> Flow {
        let command = match item {
            Input::Eof | Input::Abort => return self.quit(),
            Input::Line(Err(ParseError::BadPosition(why))) => {
                self.position = None;
                self.bans.clear();
                self.diag(&format!(
                    "position rejected: {why}; no valid position until the next position command"
                ));
                return Flow::Continue;
            }
            Input::Line(Err(e)) => {
                self.diag(&e.to_string());
                return Flow::Continue;
            }
            Input::Line(Ok(command)) => command,
        };
        match command {
            Command::Empty => {}
            Command::Ucci => self.handshake(Dialect::Ucci),
            Command::Uci => self.handshake(Dialect::Uci),
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption(set) => self.set_option(&set.name, set.value.as_deref()),
            Command::Position(spec) => self.set_position(&spec),
            Command::BanMoves(moves) => self.ban(&moves),
            Command::Go(go) => self.go(&go),
            Command::Perft(depth) => self.perft(depth),
            Command::PonderHit { .. } => {
                if self.options.debug {
                    self.diag("ponderhit ignored: not pondering");
                }
            }
            Command::Stop => {
                if self.dialect == Dialect::Ucci {
                    self.out.line("nobestmove");
                }
            }
            Command::NewGame => self.engine.new_game(),
            Command::Debug(on) => self.options.debug = on,
            Command::Probe(spec) => self.probe(spec.as_ref()),
            Command::Quit => return self.quit(),
            Command::Display => match &self.position {
                Some(pos) => self.out.line(&output::display(pos)),
                None => self.diag("no valid position"),
            },
            Command::Eval => match &self.position {
                Some(pos) => {
                    self.out.line(engine::eval_trace(pos).trim_end());
                    if let Some(net) = self.engine.loaded_network() {
                        let used = if self.engine.network().is_some() {
                            "used"
                        } else {
                            "not used"
                        };
                        self.out.line(&format!(
                            "NNUE evaluation: {} (side to move; {used})",
                            net.evaluate(pos)
                        ));
                    }
                }
                None => self.diag("no valid position"),
            },
            Command::Bench => self.bench(),
        }
        Flow::Continue
    }

    /// The notation moves are read and written in.
    fn notation(&self) -> Notation {
        self.options.notation
    }
}
