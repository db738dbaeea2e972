//! The session's two long jobs and their lifecycles: a search on the
//! engine's threads ([`SearchJob`]: started by [`go`](super::go), collected
//! when the engine signals its end, held while pondering or infinite, then
//! its one final line) and a `go perft` count on a thread of its own
//! ([`PerftJob`]: started, stopped, its text printed when collected).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Instant;

use board::{Move, Position, Reason};
use crossbeam_channel::{Receiver, TryRecvError, never};
use engine::{SearchHandle, SearchResult};

use super::Session;
use crate::book_check::BookCheck;
use crate::options::Dialect;
use crate::output;

/// A search in progress, with what is needed to check and print its
/// final line.
pub(super) struct SearchJob {
    /// The engine's search; `None` when the answer was decided without
    /// one ([`SearchJob::answered`]).
    pub(super) handle: Option<SearchHandle>,
    /// The final lines of a `go` answered without a search (no legal or
    /// allowed move, `depth 0`), held because the `go` was a ponder or
    /// infinite one: they wait for `stop` or `ponderhit` like a search's.
    pub(super) answer: Option<Vec<String>>,
    /// Disconnects when the worker has finished ([`engine::Engine::finished`]).
    pub(super) finished: Receiver<()>,
    /// The searched position.
    pub(super) pos: Position,
    /// The moves the search may play (legal, unbanned, in `searchmoves`).
    pub(super) allowed: Vec<Move>,
    /// Pondering and not yet hit: the final line waits.
    pub(super) pondering: bool,
    /// `go infinite` (or no limit): the final line waits for `stop`.
    pub(super) infinite: bool,
    /// The GUI offered a draw (`go draw`, `ponderhit draw`).
    pub(super) draw_offered: bool,
    /// The book move under check while the engine's searches are those of
    /// the check ([`crate::book_check`]); the move the `go` plays unless
    /// the check refuses it.
    pub(super) check: Option<BookCheck>,
    /// When the `go` came: the check's searches charge the clock from here.
    pub(super) started: Instant,
    /// The result, once the worker has finished.
    pub(super) result: Option<SearchResult>,
    /// Rule names already announced by the event callback.
    pub(super) rules_said: Arc<Mutex<Vec<Reason>>>,
}

impl SearchJob {
    /// A ponder or infinite `go` answered without a search: `lines` are
    /// printed when `stop` or `ponderhit` comes, as a search's final line
    /// would be.
    pub(super) fn answered(pos: Position, pondering: bool, lines: Vec<String>) -> SearchJob {
        SearchJob {
            handle: None,
            answer: Some(lines),
            finished: never(),
            pos,
            allowed: Vec::new(),
            pondering,
            infinite: !pondering,
            draw_offered: false,
            check: None,
            started: Instant::now(),
            result: None,
            rules_said: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Whether the final line must still wait although the worker ended.
    pub(super) fn holds(&self) -> bool {
        self.pondering || self.infinite
    }

    /// Whether the worker has finished (its result can be collected
    /// without waiting).
    fn worker_done(&self) -> bool {
        self.finished.try_recv() == Err(TryRecvError::Disconnected)
    }

    /// What to wait on for the worker's end: its channel until the result
    /// is collected, then nothing (a disconnected channel is always ready).
    pub(super) fn worker_end(&self) -> Receiver<()> {
        if self.result.is_none() {
            self.finished.clone()
        } else {
            never()
        }
    }
}

/// A `go perft` counting on its own thread. The thread sends the text
/// (`None` when stopped) and the session prints it when it collects the
/// job, so output stays in the session's order.
pub(super) struct PerftJob {
    pub(super) stop: Arc<AtomicBool>,
    /// The count's text; disconnected without one if the thread panicked.
    pub(super) result: Receiver<Option<String>>,
    pub(super) thread: JoinHandle<()>,
}

impl Session {
    /// Starts `go perft` on its own thread (see [`Session::during_perft`]).
    pub(super) fn perft(&mut self, depth: u32) {
        let Some(pos) = &self.position else {
            self.diag("no valid position");
            return;
        };
        let mut pos = pos.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let notation = self.notation();
        let (sender, result) = crossbeam_channel::bounded(1);
        let mut count = move || {
            let divide = pos.divide_until(depth, &|| flag.load(Ordering::Relaxed))?;
            let mut text = String::new();
            let total = if depth == 0 {
                1
            } else {
                for &(m, n) in &divide {
                    text.push_str(&format!("{}: {n}\n", notation.show(m)));
                }
                text.push('\n');
                divide.iter().map(|(_, n)| n).sum()
            };
            text.push_str(&format!("Nodes searched: {total}"));
            Some(text)
        };
        let thread = std::thread::spawn(move || {
            // The session holds the receiver until it has this.
            let _ = sender.send(count());
        });
        self.perft = Some(PerftJob {
            stop,
            result,
            thread,
        });
    }

    /// Stops the `go perft` thread, waits for it and prints what it
    /// counted (or that it was stopped).
    pub(super) fn stop_perft(&mut self) {
        if let Some(job) = &self.perft {
            job.stop.store(true, Ordering::Relaxed);
            let result = job.result.recv().ok();
            self.finish_perft(result);
        }
    }

    /// Prints what the `go perft` thread sent (`None`: it sent nothing,
    /// having panicked) and collects the thread.
    pub(super) fn finish_perft(&mut self, result: Option<Option<String>>) {
        let Some(job) = self.perft.take() else {
            return;
        };
        // The thread has sent (or died): this join returns at once.
        let _ = job.thread.join();
        match result {
            Some(Some(text)) => self.out.line(&text),
            Some(None) => self.diag("perft stopped"),
            None => self.diag("perft failed"),
        }
    }

    /// Collects the worker's result once it has finished, and prints the
    /// final line unless it must be held.
    pub(super) fn collect_search(&mut self) {
        let Some(run) = self.search.as_mut() else {
            return;
        };
        if run.handle.is_some() && run.result.is_none() && run.worker_done() {
            run.result = Some(self.engine.wait());
            if run.check.is_some() {
                self.advance_book_check();
                return;
            }
        }
        if (run.result.is_some() || run.answer.is_some()) && !run.holds() {
            self.finish();
        }
    }

    pub(super) fn stop_search(&mut self) {
        let Some(run) = self.search.as_mut() else {
            return;
        };
        if let Some(handle) = &run.handle {
            handle.stop();
            if run.result.is_none() {
                run.result = Some(self.engine.wait());
            }
        }
        run.pondering = false;
        run.infinite = false;
        self.finish();
    }

    pub(super) fn ponderhit(&mut self, draw: bool) {
        let Some(run) = self.search.as_mut() else {
            return;
        };
        if !run.pondering {
            if self.options.debug {
                self.diag("ponderhit ignored: not pondering");
            }
            return;
        }
        if let Some(handle) = &run.handle {
            handle.ponderhit();
        }
        run.pondering = false;
        run.draw_offered |= draw;
        self.collect_search();
    }

    /// Prints the final line of the running search and returns to idle.
    pub(super) fn finish(&mut self) {
        let Some(run) = self.search.take() else {
            return;
        };
        if let Some(lines) = &run.answer {
            for line in lines {
                self.out.line(line);
            }
            return;
        }
        let result = run.result.unwrap_or_else(|| self.engine.wait());
        if self.dialect == Dialect::Ucci {
            self.out.line(&output::time_nodes_line(
                result.time.as_millis(),
                result.nodes,
            ));
        }
        if let Some(reason) = result.rule {
            let said = run
                .rules_said
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&reason);
            if !said {
                self.diag(&format!(
                    "score from a rule: {}",
                    output::reason_text(reason)
                ));
            }
        }
        // While the check holds the book move (kept, unchecked or stopped
        // before a verdict), the book move is played.
        let chosen = run
            .check
            .as_ref()
            .map_or(result.best, |c| Some(c.book_move()));
        let best = match chosen {
            Some(m) if run.allowed.contains(&m) => Some(m),
            Some(m) => {
                self.diag(&format!(
                    "search returned {}, which is not allowed here; playing another move",
                    self.notation().show(m)
                ));
                run.allowed.first().copied()
            }
            None => run.allowed.first().copied(),
        };
        let Some(best) = best else {
            self.out.line(output::no_move_line(self.dialect));
            return;
        };
        let notation = self.notation();
        let mut after = run.pos.clone();
        after.make_move(best);
        let ponder = result
            .ponder
            .filter(|&p| result.best == Some(best) && after.is_legal(p));
        let draw = self.dialect == Dialect::Ucci
            && run.draw_offered
            && output::score_value(result.score) <= 0;
        self.out
            .line(&output::bestmove_line(notation, best, ponder, draw));
    }
}
