//! A `go`: the checks that answer without a search (no position, no legal
//! or allowed move, depth 0), the moves it may play, the book's proposal
//! and the searches that check it ([`crate::book_check`] decides, this
//! module starts them), the engine limits (converted by [`crate::limits`];
//! in debug mode their time bounds are reported) and the callback that
//! prints the search's `info` lines. The running search is then a
//! [`SearchJob`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use board::{Color, Move, Outcome, Position, Reason};
use engine::{Event, Limits};

use super::Session;
use super::jobs::SearchJob;
use crate::book_check::{BookCheck, Step};
use crate::command::{Depth, GoCommand};
use crate::limits::{self, ClockOwner};
use crate::options::Dialect;
use crate::output;

/// `currmove` lines start after this long (or at once in debug mode).
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

impl Session {
    /// The moves a `go` may play: legal, not banned, and among
    /// `searchmoves` when those name any legal move.
    fn allowed_moves(&self, pos: &Position, go: &GoCommand) -> Vec<Move> {
        let mut allowed: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !self.bans.contains(m))
            .collect();
        let mut only = Vec::new();
        for text in &go.searchmoves {
            match self.notation().read(pos, text) {
                Ok(m) => only.push(m),
                Err(e) => self.diag(&format!("searchmoves: {e}; ignored")),
            }
        }
        if !only.is_empty() {
            allowed.retain(|m| only.contains(m));
        }
        allowed
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
        if !pos.has_legal_move() {
            let mut lines = Vec::new();
            if self.dialect == Dialect::Uci {
                lines.push("info depth 0 score mate 0".to_string());
            }
            lines.push(none.to_string());
            self.answer_without_search(go, pos, lines);
            return;
        }
        let allowed = self.allowed_moves(&pos, go);
        if allowed.is_empty() {
            self.diag("every legal move is banned or excluded");
            self.answer_without_search(go, pos, vec![none.to_string()]);
            return;
        }
        if go.depth == Some(Depth::Plies(0)) {
            let eval = output::depth_zero_line(self.dialect, engine::evaluate(&pos));
            self.answer_without_search(go, pos, vec![eval, none.to_string()]);
            return;
        }
        let clock = limits::clock(go, pos.side_to_move(), &self.options).map(|(clock, owner)| {
            if owner == ClockOwner::Other {
                self.diag("go: no clock for the side to move; using the other side's");
            }
            clock
        });
        let started = Instant::now();
        let mut limits = limits::limits(go, &pos, &allowed, clock, &self.options);
        // The book is asked before the level weakens the search: a level
        // plays the book as full strength does (the GUI turned the book on,
        // and the ladder was measured without one), whereas its node budget
        // would otherwise read as a node-limited `go`, which never asks it.
        let book_move = self.book_move(&pos, &limits, &allowed);
        self.level_seed = self.level_seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        limits::weaken(&mut limits, self.options.strength.level(), self.level_seed);
        let check = book_move.map(|mv| {
            let (check, first) = BookCheck::new(mv, limits.clone());
            limits = first;
            check
        });
        if self.options.debug
            && let Some(line) = output::budget_text(&engine::TimeBudget::new(&limits))
        {
            self.diag(&line);
        }
        let rules_said = Arc::new(Mutex::new(Vec::new()));
        let callback = self.event_callback(Arc::clone(&rules_said));
        let infinite = limits.infinite;
        self.engine.start(pos.clone(), limits, callback);
        self.search = Some(SearchJob {
            handle: Some(self.engine.handle()),
            answer: None,
            finished: self.engine.finished(),
            pos,
            allowed,
            pondering: go.ponder,
            infinite,
            draw_offered: go.draw,
            check,
            started,
            result: None,
            rules_said,
        });
    }

    /// A search of the book check has ended (its result collected): starts
    /// the next search of the check, plays the book move, or refuses it
    /// and starts the search that chooses another (`docs/ucci.md` §4).
    pub(super) fn advance_book_check(&mut self) {
        let Some(mut run) = self.search.take() else {
            return;
        };
        let (Some(check), Some(result)) = (run.check.as_mut(), run.result.as_ref()) else {
            self.search = Some(run);
            return;
        };
        let next = match check.next(result, run.started.elapsed()) {
            Step::Search(limits) => Some(limits),
            Step::Play(verdict) => {
                self.diag(&check.describe(&verdict, self.notation()));
                None
            }
            Step::Refuse(verdict, limits) => {
                self.diag(&check.describe(&verdict, self.notation()));
                run.check = None;
                Some(limits)
            }
        };
        let searching = next.is_some();
        if let Some(limits) = next {
            let callback = self.event_callback(Arc::clone(&run.rules_said));
            self.engine.start(run.pos.clone(), limits, callback);
            run.handle = Some(self.engine.handle());
            run.finished = self.engine.finished();
            run.result = None;
        }
        self.search = Some(run);
        if !searching {
            self.finish();
        }
    }

    /// Prints the final `lines` of a `go` decided without a search — or,
    /// for a ponder or infinite `go`, holds them until `stop` or
    /// `ponderhit`, as a search's final line is held (`docs/ucci.md` §6):
    /// a GUI that pondered on a mated position and then sends `stop` must
    /// get one final line, not one at once and another for the `stop`.
    fn answer_without_search(&mut self, go: &GoCommand, pos: Position, lines: Vec<String>) {
        if go.ponder || go.infinite || !go.has_limit() {
            self.search = Some(SearchJob::answered(pos, go.ponder, lines));
        } else {
            for line in &lines {
                self.out.line(line);
            }
        }
    }

    /// The book's move for a clock-limited search, announced, when the book
    /// has one ([`limits::consults_book`] says when it is asked); the
    /// searches of [`crate::book_check`] then check it.
    fn book_move(&mut self, pos: &Position, limits: &Limits, allowed: &[Move]) -> Option<Move> {
        if !limits::consults_book(limits, pos, &self.options) {
            return None;
        }
        let choice = self.book.pick(pos, self.options.bookvariety)?;
        if !allowed.contains(&choice.mv) {
            return None;
        }
        let list: Vec<String> = choice
            .candidates
            .iter()
            .map(|&(m, w)| format!("{}({w})", self.notation().show(m)))
            .collect();
        self.diag(&format!(
            "book move {} among {}; checking it by search",
            self.notation().show(choice.mv),
            list.join(" ")
        ));
        Some(choice.mv)
    }

    /// The callback that prints the search's `info` lines from the worker
    /// thread.
    fn event_callback(&self, rules_said: Arc<Mutex<Vec<Reason>>>) -> Box<dyn FnMut(Event) + Send> {
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
        Box::new(move |event| match event {
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
