//! The tournament: which games are played (every pair of engines, each
//! opening twice with colours swapped), the worker threads that play them,
//! and the loop that takes their results — PGN, progress line, SPRT stop.
//! What is counted and how it is reported is `tally`'s.
//!
//! A game pair is the unit of work: one worker plays both games of a pair
//! back to back, so pentanomial statistics see whole pairs. Each worker
//! owns its engine processes; the main thread only counts and writes.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::thread::{self, JoinHandle};

use anyhow::{Context, Result, bail};
use board::ByColor;
use crossbeam_channel::{Receiver, Sender, bounded, never, select, unbounded};

use crate::child::EngineProcess;
use crate::config::{EngineSpec, Protocol, TimeControl};
use crate::game::{GameRecord, GameSettings, Seat, play_game};
use crate::openings::Opening;
use crate::pgn::{self, PgnContext};
use crate::progress::{Progress, stdout_line};
use crate::sprt::{EloModel, Sprt, SprtState};
use crate::tally::{Tally, sprt_verdict};

/// Everything a tournament needs.
pub struct Tournament {
    /// The engines; two make a match, more a round robin.
    pub engines: Vec<EngineSpec>,
    /// How each game is played.
    pub settings: GameSettings,
    /// Games per pair of engines (rounded up to a whole number of pairs).
    pub games: u64,
    /// Games played at the same time.
    pub concurrency: usize,
    /// Start positions, used in order and repeated when exhausted.
    pub openings: Vec<Opening>,
    /// Sequential test (matches only).
    pub sprt: Option<Sprt>,
    /// Where finished games are appended.
    pub pgn: Option<PathBuf>,
    /// PGN `Event`.
    pub event: String,
    /// Where the openings came from, for the banner.
    pub openings_source: String,
}

/// One unit of work: an opening played by engines `a` and `b`, first with
/// `a` as Red, then with colours swapped.
#[derive(Clone, Copy, Debug)]
struct PairJob {
    /// Index of the pair in the schedule; rounds are `2·id + 1`, `2·id + 2`.
    id: u64,
    pairing: usize,
    a: usize,
    b: usize,
    opening: usize,
}

/// What a worker tells the main thread.
enum Message {
    /// Asks for the next pair; `None` comes back when there is no more
    /// work.
    Want(Sender<Option<PairJob>>),
    /// A game begins.
    Started {
        /// Its PGN round.
        round: u64,
        /// Red's name.
        red: String,
        /// Black's name.
        black: String,
    },
    /// A finished game.
    Finished {
        /// The pair it belongs to.
        job: PairJob,
        /// Second game of the pair (`b` was Red).
        second: bool,
        /// The game.
        record: GameRecord,
    },
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunEnd {
    /// Every scheduled game was played, or the SPRT decided.
    Completed,
    /// Ctrl-C or SIGTERM stopped it; the report covers the games finished.
    Interrupted,
}

/// The PGN round of a pair's first or second game.
fn round(job: &PairJob, second: bool) -> u64 {
    2 * job.id + 1 + u64::from(second)
}

impl Tournament {
    /// Pairs each pairing plays: `--games` rounded up to whole pairs. Pair
    /// `k` of a pairing starts from opening `k` modulo the suite's size.
    fn pairs_per_pairing(&self) -> u64 {
        self.games.div_ceil(2)
    }

    fn schedule(&self) -> (Vec<(usize, usize)>, VecDeque<PairJob>) {
        let n = self.engines.len();
        let pairings: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
        let pairs_each = self.pairs_per_pairing();
        let mut jobs = VecDeque::new();
        let mut id = 0;
        // Interleave pairings so a round robin progresses evenly.
        for k in 0..pairs_each {
            for (p, &(a, b)) in pairings.iter().enumerate() {
                let opening = usize::try_from(k % self.openings.len() as u64).unwrap_or(0);
                jobs.push_back(PairJob {
                    id,
                    pairing: p,
                    a,
                    b,
                    opening,
                });
                id += 1;
            }
        }
        (pairings, jobs)
    }

    /// Plays the tournament and prints progress and the report to stdout.
    ///
    /// Ctrl-C (SIGINT), SIGTERM or a stdout that closes stops it: the
    /// games in progress are abandoned, the engines shut down, and the
    /// report covers the games finished.
    ///
    /// # Errors
    /// Bad settings, an unwritable PGN file, or a stdout already closed
    /// before the first game. Engine failures are not errors: they lose
    /// games.
    pub fn run(&self) -> Result<RunEnd> {
        self.check()?;
        let (pairings, jobs) = self.schedule();
        let total = jobs.len() as u64 * 2;
        let pgn = self.open_pgn()?;
        let names: Vec<&str> = self.engines.iter().map(|e| e.name.as_str()).collect();
        stdout_line(&self.banner(total)).context("cannot write to stdout")?;

        // The handler only sends on a channel; the loop below does the rest.
        let (signal_tx, signals) = bounded::<()>(1);
        ctrlc::set_handler(move || {
            let _ = signal_tx.try_send(());
        })
        .context("cannot install the Ctrl-C and SIGTERM handler")?;
        // Dropping `cancel` disconnects every worker's receiver, which ends
        // the waits of every engine at once.
        let (cancel, cancelled) = bounded::<()>(0);
        let (tx, rx) = unbounded::<Message>();
        let handles = self.start_workers(&tx, &cancelled)?;
        drop(tx);

        let mut run = Run {
            tournament: self,
            names: &names,
            tally: Tally::new(self.engines.len(), &pairings),
            progress: Progress::new(total),
            total,
            jobs,
            pgn,
            pgn_error: None,
            stopped: false,
            sprt_stop: None,
            cancel: Some(cancel),
        };
        loop {
            select! {
                recv(rx) -> message => match message {
                    Ok(message) => run.handle(message),
                    Err(_) => break,
                },
                recv(signals) -> _ => run.interrupt("interrupted"),
            }
            // Nobody reads the lines any more (`arena … | head`): stop as
            // on Ctrl-C rather than play games whose report goes nowhere;
            // the PGN keeps every game finished.
            if run.progress.closed() {
                run.interrupt("stdout is closed");
            }
        }
        for handle in handles {
            if handle.join().is_err() {
                eprintln!("warning: a worker thread panicked");
            }
        }
        run.progress.done();
        let interrupted = run.cancel.is_none();
        run.progress.line("");
        if interrupted {
            run.progress
                .line("Interrupted: the games in progress were abandoned.");
        }
        let tc = self.settings.tc.to_string();
        let report = run.tally.report(&names, &tc, self.sprt.as_ref());
        run.progress.line(&report);
        if let (Some(stop), Some(sprt)) = (&run.sprt_stop, &self.sprt) {
            run.progress.line(&stop.line(sprt, run.tally.done));
        }
        match run.pgn_error {
            Some(e) => Err(e),
            None if interrupted => Ok(RunEnd::Interrupted),
            None => Ok(RunEnd::Completed),
        }
    }

    /// What is about to be played: engines, time control, games, openings
    /// and the SPRT, as the first lines of the output.
    fn banner(&self, total: u64) -> String {
        let mut out = String::from("Engines:");
        for (i, e) in self.engines.iter().enumerate() {
            let proto = match e.protocol {
                Protocol::Ucci => "ucci",
                Protocol::Uci => "uci",
            };
            let sep = if i == 0 { " " } else { ", " };
            let _ = write!(out, "{sep}{} ({}, {proto})", e.name, e.cmd.display());
        }
        let _ = write!(
            out,
            "\nTime control: {}; {total} games ({} pairs of games with colours swapped), {} at a time",
            self.settings.tc,
            total / 2,
            self.concurrency.clamp(1, 64)
        );
        let _ = write!(
            out,
            "\nOpenings: {} ({} positions)",
            self.openings_source,
            self.openings.len()
        );
        if let Some(note) = self.repeat_note() {
            let _ = write!(out, "\n{note}");
        }
        if let Some(sprt) = &self.sprt {
            let _ = write!(
                out,
                "\nSPRT: elo0={} elo1={} alpha={} beta={} ({})",
                sprt.elo0,
                sprt.elo1,
                sprt.alpha,
                sprt.beta,
                match sprt.model {
                    EloModel::Normalized => "normalized",
                    EloModel::Logistic => "logistic",
                }
            );
        }
        out
    }

    /// A warning when games will repeat: a search bounded by nodes or
    /// depth (one thread) plays an opening the same way every time, so
    /// once each pairing has used every opening its further pairs are
    /// copies, and the statistics count the copies as new evidence.
    fn repeat_note(&self) -> Option<String> {
        let limit = match self.settings.tc {
            TimeControl::Nodes(_) => "node count",
            TimeControl::Depth(_) => "depth",
            TimeControl::Clock { .. } => return None,
        };
        let fresh = self.openings.len() as u64;
        (self.pairs_per_pairing() > fresh).then(|| {
            format!(
                "Note: at a fixed {limit} a pair from the same opening is usually the same \
                 pair again; only the first {} games of each pairing are new, and the \
                 Elo and SPRT figures count the repeats (use more openings, e.g. \
                 arena/data/openings-wide.epd, and --skip-openings to go on from an \
                 earlier run)",
                2 * fresh
            )
        })
    }

    /// Refuses settings no tournament can be played with, and starts every
    /// engine once.
    fn check(&self) -> Result<()> {
        if self.engines.len() < 2 {
            bail!("need at least two engines");
        }
        if self.sprt.is_some() && self.engines.len() != 2 {
            bail!("--sprt needs exactly two engines");
        }
        if self.openings.is_empty() {
            bail!("no openings");
        }
        // Fail fast on a wrong path or a non-engine, before any game: an
        // engine that cannot start would otherwise lose every game in a
        // blink and a long run would "finish" at once.
        for spec in &self.engines {
            EngineProcess::start(spec, &never())?.quit(self.settings.grace);
        }
        Ok(())
    }

    /// The PGN file, opened for appending.
    fn open_pgn(&self) -> Result<Option<PgnOut>> {
        let Some(path) = &self.pgn else {
            return Ok(None);
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open PGN file {}", path.display()))?;
        Ok(Some(PgnOut {
            file,
            event: self.event.clone(),
            date: pgn::today(),
            time_control: self.settings.tc.to_string(),
        }))
    }

    /// Starts the worker threads, each with its own engine processes.
    fn start_workers(
        &self,
        tx: &Sender<Message>,
        cancelled: &Receiver<()>,
    ) -> Result<Vec<JoinHandle<()>>> {
        let mut handles = Vec::new();
        for w in 0..self.concurrency.clamp(1, 64) {
            let tx = tx.clone();
            let engines = self.engines.clone();
            let settings = self.settings.clone();
            let openings = self.openings.clone();
            let cancelled = cancelled.clone();
            let handle = thread::Builder::new()
                .name(format!("worker-{w}"))
                .spawn(move || worker(&tx, &engines, &settings, &openings, &cancelled))
                .context("cannot start a worker thread")?;
            handles.push(handle);
        }
        Ok(handles)
    }
}

/// The game at which an SPRT reached a bound, and its LLR then (the
/// verdict is that LLR's against the test's bounds).
struct SprtStop {
    game: u64,
    llr: f64,
}

impl SprtStop {
    /// The report's last line: the verdict is the stop's, whatever the
    /// games in progress at the stop did to the LLR afterwards.
    fn line(&self, sprt: &Sprt, done: u64) -> String {
        let mut line = format!(
            "SPRT stopped at game {} (LLR {:.2}): {}",
            self.game,
            self.llr,
            sprt_verdict(sprt.state(self.llr))
        );
        match done.saturating_sub(self.game) {
            0 => {}
            1 => line.push_str("; the game then in progress is counted above"),
            n => {
                let _ = write!(line, "; the {n} games then in progress are counted above");
            }
        }
        line
    }
}

/// The main thread's side of a run: what it counts, hands out and writes.
struct Run<'a> {
    tournament: &'a Tournament,
    names: &'a [&'a str],
    tally: Tally,
    progress: Progress,
    total: u64,
    jobs: VecDeque<PairJob>,
    pgn: Option<PgnOut>,
    /// A PGN write failure ends the run, but only after the games in
    /// progress, so that every engine gets its `quit` and none is left
    /// running.
    pgn_error: Option<anyhow::Error>,
    /// No more jobs are handed out.
    stopped: bool,
    /// Where the SPRT decided, kept for the report: the games then in
    /// progress still finish and count, and can move the LLR back inside
    /// its bounds.
    sprt_stop: Option<SprtStop>,
    /// Held until the run is interrupted (see [`Tournament::run`]).
    cancel: Option<Sender<()>>,
}

impl Run<'_> {
    fn handle(&mut self, message: Message) {
        match message {
            Message::Want(reply) => {
                // Jobs are handed out here, after every result sent before
                // the request has been counted: an SPRT stop takes effect
                // at once and the same in every run.
                let next = if self.stopped {
                    None
                } else {
                    self.jobs.pop_front()
                };
                let _ = reply.send(next);
            }
            Message::Started { round, red, black } => {
                let total = self.total;
                self.progress
                    .started(&format!("Started game {round} of {total}: {red} - {black}"));
            }
            Message::Finished {
                job,
                second,
                record,
            } => self.finished(&job, second, &record),
        }
    }

    fn finished(&mut self, job: &PairJob, second: bool, record: &GameRecord) {
        self.tally.add(job.pairing, job.id, second, record);
        if let Some(out) = &mut self.pgn
            && let Err(e) = out.write(job, second, record)
        {
            self.progress.note(&format!(
                "error: cannot write the PGN file: {e}; finishing the games in progress"
            ));
            self.pgn_error = Some(anyhow::Error::new(e).context("cannot write the PGN file"));
            self.pgn = None;
            self.stopped = true;
        }
        let sprt = self.tournament.sprt.as_ref();
        let standings = self.tally.standings(self.names, sprt);
        let mut line = format!(
            "[{}/{}] {} - {} {} ({}) | {standings}",
            self.tally.done,
            self.total,
            record.red,
            record.black,
            record.result.pgn(),
            record.termination,
        );
        if let Some((llr, state)) = self.tally.sprt(sprt)
            && state != SprtState::Continue
            && !self.stopped
        {
            self.stopped = true;
            let _ = write!(line, " | SPRT stop: {}", sprt_verdict(state));
            self.sprt_stop = Some(SprtStop {
                game: self.tally.done,
                llr,
            });
        }
        self.progress.line(&line);
        if record.termination.is_fault() {
            self.progress.line(&format!("    {}", record.detail));
        }
        self.progress.finished(&standings);
    }

    /// Ctrl-C, SIGTERM or a closed stdout (`why`, for the note): no more
    /// jobs, and every engine wait ends now.
    fn interrupt(&mut self, why: &str) {
        if self.cancel.take().is_some() {
            self.stopped = true;
            self.progress.note(&format!(
                "arena: {why}; stopping the games in progress and the engines"
            ));
        }
    }
}

/// The PGN file and the tags every game of the run shares.
struct PgnOut {
    file: File,
    event: String,
    date: String,
    time_control: String,
}

impl PgnOut {
    /// Appends one game.
    fn write(&mut self, job: &PairJob, second: bool, record: &GameRecord) -> std::io::Result<()> {
        let ctx = PgnContext {
            event: &self.event,
            date: &self.date,
            round: round(job, second),
            time_control: &self.time_control,
        };
        self.file
            .write_all(pgn::write_game(record, &ctx).as_bytes())?;
        self.file.flush()
    }
}

/// A worker: asks for pair jobs until there are none or the run is
/// interrupted, plays them, then shuts its engines down.
fn worker(
    tx: &Sender<Message>,
    engines: &[EngineSpec],
    settings: &GameSettings,
    openings: &[Opening],
    cancelled: &Receiver<()>,
) {
    let mut seats: Vec<Seat> = engines
        .iter()
        .map(|spec| Seat::new(spec.clone(), cancelled.clone()))
        .collect();
    let (reply_tx, reply_rx) = bounded(1);
    'jobs: while tx.send(Message::Want(reply_tx.clone())).is_ok() {
        let Ok(Some(job)) = reply_rx.recv() else {
            break;
        };
        let opening = &openings[job.opening];
        for second in [false, true] {
            let (red, black) = if second {
                (job.b, job.a)
            } else {
                (job.a, job.b)
            };
            let Some((red_seat, black_seat)) = two_mut(&mut seats, red, black) else {
                break;
            };
            let _ = tx.send(Message::Started {
                round: round(&job, second),
                red: red_seat.name().to_string(),
                black: black_seat.name().to_string(),
            });
            let seats = ByColor {
                red: red_seat,
                black: black_seat,
            };
            let Some(record) = play_game(seats, opening, settings) else {
                break 'jobs;
            };
            let finished = Message::Finished {
                job,
                second,
                record,
            };
            if tx.send(finished).is_err() {
                break 'jobs;
            }
        }
    }
    for seat in &mut seats {
        seat.shutdown(settings.grace);
    }
}

/// Two distinct elements of a slice, mutably.
fn two_mut<T>(v: &mut [T], i: usize, j: usize) -> Option<(&mut T, &mut T)> {
    if i == j || i >= v.len() || j >= v.len() {
        return None;
    }
    if i < j {
        let (lo, hi) = v.split_at_mut(j);
        Some((&mut lo[i], &mut hi[0]))
    } else {
        let (lo, hi) = v.split_at_mut(i);
        Some((&mut hi[0], &mut lo[j]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_mut_picks_both() {
        let mut v = [1, 2, 3];
        let (a, b) = two_mut(&mut v, 2, 0).unwrap();
        assert_eq!((*a, *b), (3, 1));
        assert!(two_mut(&mut v, 1, 1).is_none());
        assert!(two_mut(&mut v, 1, 3).is_none());
    }

    #[test]
    fn sprt_stop_keeps_its_verdict() {
        // S94: the stop at game 978 (LLR 2.97), then two games in progress
        // took the final LLR to 2.93, inside the bounds.
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        };
        let stop = SprtStop {
            game: 978,
            llr: 2.97,
        };
        assert_eq!(
            stop.line(&sprt, 980),
            "SPRT stopped at game 978 (LLR 2.97): H1 accepted (pass); the 2 games then in progress are counted above"
        );
        assert_eq!(
            stop.line(&sprt, 979),
            "SPRT stopped at game 978 (LLR 2.97): H1 accepted (pass); the game then in progress is counted above"
        );
        assert_eq!(
            stop.line(&sprt, 978),
            "SPRT stopped at game 978 (LLR 2.97): H1 accepted (pass)"
        );
    }
}
