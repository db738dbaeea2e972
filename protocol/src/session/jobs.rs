//! The session's two long jobs and their lifecycles: a `go` on the
//! engine ([`SearchJob`], whose [`Job`] is searching or answered: started
//! by [`go`](super::go), advanced when the engine signals a search's end,
//! held while pondering or infinite, then its one final line) and a `go perft` count on a thread of its own
//! ([`PerftJob`]: started, stopped, its text printed when collected).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;

use board::Reason;
use crossbeam_channel::{Receiver, TryRecvError, never};
use engine::Engine;
use engine::play::{Answer, AnswerKind, Go, Progress};

use super::Session;
use crate::options::Dialect;
use crate::output;

/// Where a `go` stands.
pub(super) enum Job {
    /// The engine searches for the move ([`engine::play::Go`]: the search,
    /// or one of the book check's).
    Searching(Box<Go>),
    /// The engine has answered; the final line waits for `stop` or
    /// `ponderhit` while [`SearchJob::holds`] says so.
    Answered(Answer),
}

/// A `go` in flight, with what the protocol needs to print its final line.
pub(super) struct SearchJob {
    pub(super) state: Job,
    /// Pondering and not yet hit: the final line waits.
    pub(super) pondering: bool,
    /// `go infinite` (or no limit): the final line waits for `stop`.
    pub(super) infinite: bool,
    /// The GUI offered a draw (`go draw`, `ponderhit draw`).
    pub(super) draw_offered: bool,
    /// Rule names already announced by the event callback.
    pub(super) rules_said: Arc<Mutex<Vec<Reason>>>,
}

impl SearchJob {
    /// A ponder or infinite `go` the engine answered without a search: the
    /// answer is printed when `stop` or `ponderhit` comes, as a search's
    /// final line would be.
    pub(super) fn answered(answer: Answer, pondering: bool) -> SearchJob {
        SearchJob {
            state: Job::Answered(answer),
            pondering,
            infinite: !pondering,
            draw_offered: false,
            rules_said: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Whether the final line must still wait although the engine has
    /// answered.
    pub(super) fn holds(&self) -> bool {
        self.pondering || self.infinite
    }

    /// What to wait on for the engine's search to end: its channel while
    /// it searches, then nothing (a disconnected channel is always ready).
    pub(super) fn worker_end(&self, engine: &Engine) -> Receiver<()> {
        match self.state {
            Job::Searching(_) => engine.finished(),
            Job::Answered(_) => never(),
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

    /// Hands the engine's ended search to its [`Go`], which starts the
    /// book check's next search or answers; prints the answer unless it
    /// must be held.
    pub(super) fn collect_search(&mut self) {
        let Some(job) = self.search.as_mut() else {
            return;
        };
        if let Job::Searching(go) = &mut job.state {
            if self.engine.finished().try_recv() != Err(TryRecvError::Disconnected) {
                return;
            }
            let (answer, verdict) = match go.advance(&mut self.engine) {
                Progress::Searching(verdict) => (None, verdict),
                Progress::Done(answer, verdict) => (Some(answer), verdict),
            };
            if let Some(answer) = answer {
                job.state = Job::Answered(answer);
            }
            if let Some((book_move, verdict)) = verdict {
                self.say_verdict(book_move, &verdict);
            }
        }
        if self
            .search
            .as_ref()
            .is_some_and(|j| matches!(j.state, Job::Answered(_)) && !j.holds())
        {
            self.finish();
        }
    }

    pub(super) fn stop_search(&mut self) {
        let Some(mut job) = self.search.take() else {
            return;
        };
        if let Job::Searching(go) = job.state {
            job.state = Job::Answered(go.stop(&mut self.engine));
        }
        job.pondering = false;
        job.infinite = false;
        self.search = Some(job);
        self.finish();
    }

    pub(super) fn ponderhit(&mut self, draw: bool) {
        let Some(job) = self.search.as_mut() else {
            return;
        };
        if !job.pondering {
            if self.options.debug {
                self.diag("ponderhit ignored: not pondering");
            }
            return;
        }
        if let Job::Searching(_) = job.state {
            self.engine.handle().ponderhit();
        }
        job.pondering = false;
        job.draw_offered |= draw;
        self.collect_search();
    }

    /// Prints the final line of the `go` in flight and returns to idle.
    pub(super) fn finish(&mut self) {
        let Some(job) = self.search.take() else {
            return;
        };
        let answer = match job.state {
            Job::Answered(answer) => answer,
            // Not reached: the session collects or stops a search first.
            Job::Searching(go) => go.stop(&mut self.engine),
        };
        if answer.kind != AnswerKind::Searched {
            for line in self.final_lines(&answer) {
                self.out.line(&line);
            }
            return;
        }
        let result = &answer.result;
        if self.dialect == Dialect::Ucci {
            self.out.line(&output::time_nodes_line(
                result.time.as_millis(),
                result.nodes,
            ));
        }
        if let Some(reason) = result.rule {
            let said = job
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
        let Some(best) = result.best else {
            self.out.line(output::no_move_line(self.dialect));
            return;
        };
        let draw = self.dialect == Dialect::Ucci && job.draw_offered && answer.accepts_draw();
        self.out.line(&output::bestmove_line(
            self.notation(),
            best,
            result.ponder,
            draw,
        ));
    }

    /// The final lines of an answer without a search: UCI's mated score
    /// and no move, the depth-0 evaluation and no move, or no move.
    pub(super) fn final_lines(&self, answer: &Answer) -> Vec<String> {
        let none = output::no_move_line(self.dialect).to_string();
        match answer.kind {
            AnswerKind::NoLegalMove if self.dialect == Dialect::Uci => {
                vec!["info depth 0 score mate 0".to_string(), none]
            }
            AnswerKind::DepthZero => vec![
                output::depth_zero_line(self.dialect, output::score_value(answer.result.score)),
                none,
            ],
            _ => vec![none],
        }
    }
}
