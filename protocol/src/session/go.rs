//! A `go` turned into the engine's [`MoveRequest`]: the position, the
//! limits (converted by [`crate::limits`], weakened by the strength level;
//! in debug mode their time bounds are reported), `searchmoves` read in
//! the session's notation, the banned moves and the book's proposal. The
//! engine decides the rest ([`engine::play`]: the moves allowed, the
//! answer without a search, the book check's searches); this module
//! prints what it decided and the callback that prints the searches'
//! `info` lines. The request in flight is then a [`SearchJob`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use board::{Color, Move, Outcome, Position, Reason};
use engine::play::book_check::Verdict;
use engine::play::{Answer, AnswerKind, MoveRequest, Prepared};
use engine::{Event, Limits};

use super::Session;
use super::jobs::{Job, SearchJob};
use crate::command::GoCommand;
use crate::limits::{self, ClockOwner};
use crate::options::Dialect;
use crate::output;

/// `currmove` lines start after this long (or at once in debug mode).
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

impl Session {
    /// The `searchmoves` of a `go`, read in the session's notation; an
    /// unreadable one is named and left out.
    fn search_moves(&self, pos: &Position, go: &GoCommand) -> Vec<Move> {
        let mut only = Vec::new();
        for text in &go.searchmoves {
            match self.notation().read(pos, text) {
                Ok(m) => only.push(m),
                Err(e) => self.diag(&format!("searchmoves: {e}; ignored")),
            }
        }
        only
    }

    pub(super) fn go(&mut self, go: &GoCommand) {
        for w in &go.warnings {
            self.diag(w);
        }
        let none = output::no_move_line(self.dialect);
        let Some(pos) = self.position.clone() else {
            self.diag("no valid position: send a valid position first");
            self.out.line(none);
            return;
        };
        if let Outcome::Decided { winner, reason } = pos.outcome() {
            let who = match winner {
                Some(Color::Red) => "Red wins",
                Some(Color::Black) => "Black wins",
                None => "draw",
            };
            self.diag(&format!(
                "game over: {who} by {}",
                output::reason_text(reason)
            ));
        }
        // A lost position is answered at once: nothing of the `go` is read.
        let lost = !pos.has_legal_move();
        let search_moves = if lost {
            Vec::new()
        } else {
            self.search_moves(&pos, go)
        };
        let clock = limits::clock(go, pos.side_to_move(), &self.options).map(|(clock, owner)| {
            if owner == ClockOwner::Other && !lost {
                self.diag("go: no clock for the side to move; using the other side's");
            }
            clock
        });
        let mut limits = limits::limits(go, clock, &self.options);
        // The book is asked before the level weakens the search: a level
        // plays the book as full strength does (the GUI turned the book on,
        // and the ladder was measured without one), whereas its node budget
        // would otherwise read as a node-limited `go`, which never asks it.
        let book_move = if lost {
            None
        } else {
            self.book_move(&pos, &limits)
        };
        // The next draw's seed, kept only when a search uses it.
        let seed = self.level_seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        limits::weaken(&mut limits, self.options.strength.level(), seed);
        let request = MoveRequest {
            pos: pos.clone(),
            limits,
            search_moves,
            banned: self.bans.clone(),
            book_move: book_move.as_ref().map(|(mv, _)| *mv),
        };
        let ready = match self.engine.prepare(request) {
            Prepared::Answered(answer) => {
                if answer.kind == AnswerKind::NoAllowedMove {
                    self.diag("every legal move is banned or excluded");
                }
                self.answer_without_search(go, answer);
                return;
            }
            Prepared::Ready(ready) => ready,
        };
        self.level_seed = seed;
        if let (Some(_), Some((_, text))) = (ready.book_move(), book_move) {
            self.diag(&text);
        }
        if self.options.debug
            && let Some(line) = output::budget_text(&engine::TimeBudget::new(ready.limits()))
        {
            self.diag(&line);
        }
        let rules_said = Arc::new(Mutex::new(Vec::new()));
        let callback = self.event_callback(Arc::clone(&rules_said));
        let infinite = ready.limits().infinite;
        let go_job = ready.start(&mut self.engine, callback);
        self.search = Some(SearchJob {
            state: Job::Searching(Box::new(go_job)),
            pondering: go.ponder,
            infinite,
            draw_offered: go.draw,
            rules_said,
        });
    }

    /// Says what the book check decided about its book move.
    pub(super) fn say_verdict(&self, book_move: Move, verdict: &Verdict) {
        self.diag(&output::book_verdict_text(
            book_move,
            verdict,
            self.notation(),
        ));
    }

    /// Prints the final lines of a `go` answered without a search — or,
    /// for a ponder or infinite `go`, holds them until `stop` or
    /// `ponderhit`, as a search's final line is held (`docs/ucci.md` §6):
    /// a GUI that pondered on a mated position and then sends `stop` must
    /// get one final line, not one at once and another for the `stop`.
    fn answer_without_search(&mut self, go: &GoCommand, answer: Answer) {
        if go.ponder || go.infinite || !go.has_limit() {
            self.search = Some(SearchJob::answered(answer, go.ponder));
        } else {
            for line in &self.final_lines(&answer) {
                self.out.line(line);
            }
        }
    }

    /// The book's move for a clock-limited search, with the diagnostic
    /// that announces it, when the book has one ([`limits::consults_book`]
    /// says when it is asked). The engine checks it by search if it is an
    /// allowed move, and the announcement is printed then.
    fn book_move(&mut self, pos: &Position, limits: &Limits) -> Option<(Move, String)> {
        if !limits::consults_book(limits, pos, &self.options) {
            return None;
        }
        let choice = self.book.pick(pos, self.options.bookvariety)?;
        let list: Vec<String> = choice
            .candidates
            .iter()
            .map(|&(m, w)| format!("{}({w})", self.notation().show(m)))
            .collect();
        let text = format!(
            "book move {} among {}; checking it by search",
            self.notation().show(choice.mv),
            list.join(" ")
        );
        Some((choice.mv, text))
    }

    /// The callback that prints the search's `info` lines from the worker
    /// thread.
    fn event_callback(&self, rules_said: Arc<Mutex<Vec<Reason>>>) -> engine::play::EventSink {
        let out = self.out.clone();
        let dialect = self.dialect;
        let notation = self.notation();
        let style = output::InfoStyle {
            dialect,
            notation,
            multipv: self.options.multipv,
            wdl: self.options.show_wdl,
        };
        let debug = self.options.debug;
        let started = Instant::now();
        Arc::new(move |event| match event {
            // A weakened search searches more lines than the GUI asked for
            // (`protocol::strength`); only those it asked for are shown.
            Event::Iteration(report) if report.multipv > style.multipv => {}
            Event::Iteration(report) => {
                let Some(line) = output::report_line(&style, &report) else {
                    return;
                };
                out.line(&line);
                if let Some(reason) = report.rule {
                    let mut said = rules_said.lock().unwrap_or_else(PoisonError::into_inner);
                    if !said.contains(&reason) {
                        said.push(reason);
                        out.diagnostic(&format!(
                            "score from a rule: {}",
                            output::reason_text(reason)
                        ));
                    }
                }
                if dialect == Dialect::Ucci {
                    out.line(&output::time_nodes_line(
                        report.time.as_millis(),
                        report.nodes,
                    ));
                }
            }
            Event::CurrMove { mv, number, .. } => {
                if debug || started.elapsed() >= CURRMOVE_AFTER {
                    out.line(&output::currmove_line(dialect, notation, mv, number));
                }
            }
        })
    }
}
