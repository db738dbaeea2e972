//! What a datagen run reports: the [`Summary`] of the games written
//! (results, endings, and what the default filters keep and drop, with
//! their reasons) and the progress line on stderr.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::Result;
use board::GameResult;
use engine::datagen::{Ending, PlayedGame};
use engine::nnue::games::{Dropped, Filters, Selector};

use super::EXHAUSTED_AFTER;

/// `println!` for the summary, which survives a closed stdout: a reader
/// that went away drops the lines, and the run still records its chunk in
/// the manifest afterwards.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// What a run produced.
#[derive(Debug)]
pub(super) struct Summary {
    pub(super) games: u64,
    pub(super) skipped: u64,
    /// Self-play seeds passed over: their start was drawn before.
    pub(super) repeated: u64,
    /// The run ended because no new start could be drawn.
    pub(super) exhausted: bool,
    pub(super) plies: u64,
    pub(super) scored: u64,
    pub(super) selector: Selector,
    pub(super) results: [u64; 3],
    pub(super) endings: [u64; 5],
    pub(super) elapsed: Duration,
    pub(super) bytes: u64,
    /// The evaluation of the searches, described.
    pub(super) eval: String,
}

impl Summary {
    pub(super) fn new() -> Summary {
        Summary {
            games: 0,
            skipped: 0,
            repeated: 0,
            exhausted: false,
            plies: 0,
            scored: 0,
            selector: Selector::new(Filters::default()),
            results: [0; 3],
            endings: [0; 5],
            elapsed: Duration::ZERO,
            bytes: 0,
            eval: String::new(),
        }
    }

    /// Counts a written game and runs the default filters over it.
    pub(super) fn add(&mut self, g: &PlayedGame) -> Result<()> {
        let r = &g.record;
        self.games += 1;
        self.plies += r.plies.len() as u64;
        self.scored += r.scored() as u64;
        self.results[match r.result {
            GameResult::RedWins => 0,
            GameResult::Draw => 1,
            GameResult::BlackWins => 2,
        }] += 1;
        self.endings[g.ending as usize] += 1;
        let selector = &mut self.selector;
        r.replay(|pos, ply| {
            let _ = selector.judge(pos, ply);
        })
        .map_err(|e| anyhow::anyhow!("a generated game does not replay: {e}"))
    }

    fn per_second(&self, n: u64) -> f64 {
        n as f64 / self.elapsed.as_secs_f64().max(1e-3)
    }

    pub(super) fn print(&self, out: &Path) {
        let s = &self.selector;
        say!(
            "Wrote {} games ({} plies, {} searched) to {} ({} bytes) in {:.1} s",
            self.games,
            self.plies,
            self.scored,
            out.display(),
            self.bytes,
            self.elapsed.as_secs_f64()
        );
        say!(
            "Kept positions (default filters): {} ({:.0}/s); searched positions {:.0}/s",
            s.kept,
            self.per_second(s.kept),
            self.per_second(self.scored)
        );
        say!(
            "Dropped: {} in check, {} capture played, {} mate or rule scores, {} not quiet, \
             {} duplicates, {} unscored",
            s.count(Dropped::InCheck),
            s.count(Dropped::CaptureBest),
            s.count(Dropped::Decided),
            s.count(Dropped::Noisy),
            s.count(Dropped::Duplicate),
            s.count(Dropped::Unscored)
        );
        say!(
            "Results: {} Red wins, {} draws, {} Black wins; endings: {} by the rules, \
             {} wins adjudicated, {} draws adjudicated, {} at the ply cap, {} as recorded; \
             {} recorded games skipped; {} repeated starts passed over",
            self.results[0],
            self.results[1],
            self.results[2],
            self.endings[Ending::Rules as usize],
            self.endings[Ending::WinAdjudicated as usize],
            self.endings[Ending::DrawAdjudicated as usize],
            self.endings[Ending::PlyCap as usize],
            self.endings[Ending::Recorded as usize],
            self.skipped,
            self.repeated
        );
        if self.exhausted {
            say!(
                "Stopped early: no new start in {EXHAUSTED_AFTER} draws in a row; the openings \
                 and --random-plies allow no more distinct games"
            );
        }
    }
}

/// What a run aims at, for the progress line's estimate: `u64::MAX`
/// where no number of games or kept positions was asked for.
#[derive(Clone, Copy, Debug)]
pub(super) struct Targets {
    pub(super) games: u64,
    pub(super) positions: u64,
    /// `--seconds`: no game starts after them.
    pub(super) seconds: Option<u64>,
}

/// The progress line on stderr: games, kept positions, rates, and an
/// estimate of the time left toward whichever target was given (none when
/// the run has no target but its source, such as every game of a PGN file).
pub(super) fn progress(s: &Summary, targets: Targets, terminal: bool) {
    let line = progress_line(s, targets);
    if terminal {
        eprint!("\r{line}   ");
    } else {
        eprintln!("{line}");
    }
    let _ = std::io::stderr().flush();
}

/// The text of [`progress`]'s line.
pub(super) fn progress_line(s: &Summary, targets: Targets) -> String {
    let kept = s.selector.kept;
    let (rate, game_rate) = (s.per_second(kept), s.per_second(s.games));
    let eta = if targets.positions != u64::MAX && rate > 0.0 {
        Some(targets.positions.saturating_sub(kept) as f64 / rate)
    } else if targets.games != u64::MAX && game_rate > 0.0 {
        Some(targets.games.saturating_sub(s.games) as f64 / game_rate)
    } else {
        // No game starts after the deadline; the games under way then
        // finish, which this estimate leaves out.
        targets
            .seconds
            .map(|secs| (secs as f64 - s.elapsed.as_secs_f64()).max(0.0))
    };
    let eta = eta.map_or_else(String::new, |eta| format!(", ETA {eta:.0} s"));
    format!(
        "{} games, {kept} kept positions, {rate:.0} kept/s{eta}",
        s.games
    )
}
