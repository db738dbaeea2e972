//! What a run shows while it plays. On a terminal, a progress bar (games
//! done, rate, ETA, the standings) is drawn on stderr below the lines that
//! go to stdout; when stdout is not a terminal (a log file, a pipe, a
//! test) there is no bar and the lines are all there is: one per started
//! game until the first result, then one per finished game.
//!
//! What the lines say is the tournament's and the tally's business; this
//! module only decides where they go. A stdout that closes under a run (the
//! reader of a pipe went away: `arena … | head`) panics nothing: the lines
//! stop, stderr says why once, and the run is told to stop
//! ([`Progress::closed`]).

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// The output of a run: stdout lines and, on a terminal, the bar.
pub struct Progress {
    bar: Option<ProgressBar>,
    /// Whether a game has finished: until then every game start gets a
    /// line, so a long first game does not leave the screen silent.
    any_finished: bool,
    /// Whether a write to stdout has failed: later lines are dropped.
    closed: bool,
}

impl Progress {
    /// The output of a run of `total` games, with a bar when stdout is a
    /// terminal.
    pub fn new(total: u64) -> Progress {
        Progress::with_bar(std::io::stdout().is_terminal(), total)
    }

    fn with_bar(bar: bool, total: u64) -> Progress {
        let bar = bar.then(|| {
            let style = ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {pos}/{len} games, {rate}, ETA {eta}\n{wide_msg}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", |state: &ProgressState, w: &mut dyn fmt::Write| {
                let _ = write!(w, "{:.1} games/min", 60.0 * state.per_sec());
            })
            .progress_chars("=> ");
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
                .with_style(style);
            // Redrawn by a timer too, so the clock and the ETA move while
            // a long game is played.
            bar.enable_steady_tick(Duration::from_millis(500));
            bar
        });
        Progress {
            bar,
            any_finished: false,
            closed: false,
        }
    }

    /// Prints a line to stdout (above the bar). The first write that
    /// fails closes the output: it is noted on stderr, and later lines are
    /// dropped.
    pub fn line(&mut self, text: &str) {
        if self.closed {
            return;
        }
        let written = match &self.bar {
            Some(bar) => bar.suspend(|| stdout_line(text)),
            None => stdout_line(text),
        };
        if let Err(e) = written {
            self.closed = true;
            self.note(&format!("arena: cannot write to stdout: {e}"));
        }
    }

    /// Whether stdout has failed: a run stops then, as on Ctrl-C.
    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Prints a line to stderr (above the bar).
    pub fn note(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{text}")),
            None => eprintln!("{text}"),
        }
    }

    /// A game started: a line while no game has finished yet.
    pub fn started(&mut self, text: &str) {
        if !self.any_finished {
            self.line(text);
        }
    }

    /// A game finished; `standings` is shown under the bar.
    pub fn finished(&mut self, standings: &str) {
        self.any_finished = true;
        if let Some(bar) = &self.bar {
            bar.set_message(standings.to_string());
            bar.inc(1);
        }
    }

    /// Removes the bar before the report.
    pub fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Writes `text` and a newline to stdout, flushed: `println!` without its
/// panic when stdout is closed.
///
/// # Errors
/// The write's, such as a broken pipe.
pub fn stdout_line(text: &str) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()
}
