//! The tournament: which games are played (every pair of engines, each
//! opening twice with colours swapped), the worker threads that play them,
//! and the running tally — progress line, PGN, SPRT stop, final report.
//!
//! A game pair is the unit of work: one worker plays both games of a pair
//! back to back, so pentanomial statistics see whole pairs. Each worker
//! owns its engine processes; the main thread only counts and writes.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::thread;

use anyhow::{Context, Result, bail};
use board::ByColor;
use crossbeam_channel::{Sender, bounded, unbounded};

use crate::child::EngineProcess;
use crate::config::EngineSpec;
use crate::game::{GameRecord, GameResult, GameSettings, Seat, play_game};
use crate::openings::Opening;
use crate::pgn::{self, PgnContext};
use crate::stats::{GameScore, Pentanomial, Sprt, SprtState, Trinomial};

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

/// The running tally of one pair of engines, from `a`'s point of view.
#[derive(Default)]
struct PairingStats {
    a: usize,
    b: usize,
    games: Trinomial,
    pairs: Pentanomial,
    first_of_pair: HashMap<u64, GameScore>,
}

/// The score of engine `a` in a finished game of the pair.
fn score_for_a(result: GameResult, second: bool) -> GameScore {
    let red_score = match result {
        GameResult::RedWins => GameScore::Win,
        GameResult::Draw => GameScore::Draw,
        GameResult::BlackWins => GameScore::Loss,
    };
    if second { red_score.flip() } else { red_score }
}

impl Tournament {
    fn schedule(&self) -> (Vec<(usize, usize)>, VecDeque<PairJob>) {
        let n = self.engines.len();
        let pairings: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .collect();
        let pairs_each = self.games.div_ceil(2);
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
    /// # Errors
    /// Bad settings or an unwritable PGN file. Engine failures are not
    /// errors: they lose games.
    pub fn run(&self) -> Result<()> {
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
            EngineProcess::start(spec)?.quit(self.settings.grace);
        }
        let (pairings, jobs) = self.schedule();
        let total = jobs.len() as u64 * 2;
        let mut pgn_file: Option<File> = match &self.pgn {
            Some(path) => Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .with_context(|| format!("cannot open PGN file {}", path.display()))?,
            ),
            None => None,
        };

        let mut jobs = jobs;
        let (tx, rx) = unbounded::<Message>();
        let workers = self.concurrency.clamp(1, 64);
        let mut handles = Vec::new();
        for w in 0..workers {
            let tx = tx.clone();
            let engines = self.engines.clone();
            let settings = self.settings.clone();
            let openings = self.openings.clone();
            let handle = thread::Builder::new()
                .name(format!("worker-{w}"))
                .spawn(move || worker(&tx, &engines, &settings, &openings))
                .context("cannot start a worker thread")?;
            handles.push(handle);
        }
        drop(tx);
        let mut stopped = false;

        let mut stats: Vec<PairingStats> = pairings
            .iter()
            .map(|&(a, b)| PairingStats {
                a,
                b,
                ..PairingStats::default()
            })
            .collect();
        let mut points = vec![0u64; self.engines.len()]; // half points
        let mut played = vec![0u64; self.engines.len()];
        let mut terminations: BTreeMap<String, u64> = BTreeMap::new();
        let mut faults: BTreeMap<(String, String), u64> = BTreeMap::new();
        let date = pgn::today();
        let tc = self.settings.tc.to_string();
        let mut done = 0u64;
        // A PGN write failure ends the run, but only after the games in
        // progress, so that every engine gets its `quit` and none is left
        // running.
        let mut pgn_error: Option<anyhow::Error> = None;

        for message in &rx {
            let (job, second, record) = match message {
                Message::Want(reply) => {
                    // Jobs are handed out here, after every result sent
                    // before the request has been counted: an SPRT stop
                    // takes effect at once and the same in every run.
                    let _ = reply.send(if stopped { None } else { jobs.pop_front() });
                    continue;
                }
                Message::Finished {
                    job,
                    second,
                    record,
                } => (job, second, record),
            };
            done += 1;
            let score_a = score_for_a(record.result, second);
            let st = &mut stats[job.pairing];
            st.games.add(score_a);
            if let Some(first) = st.first_of_pair.remove(&job.id) {
                let (g1, g2) = if second {
                    (first, score_a)
                } else {
                    (score_a, first)
                };
                st.pairs.add(g1, g2);
            } else {
                st.first_of_pair.insert(job.id, score_a);
            }
            points[job.a] += score_a.half_points() as u64;
            points[job.b] += score_a.flip().half_points() as u64;
            played[job.a] += 1;
            played[job.b] += 1;
            *terminations
                .entry(record.termination.to_string())
                .or_default() += 1;
            if record.termination.is_fault() {
                let loser = match record.result {
                    GameResult::RedWins => &record.black,
                    _ => &record.red,
                };
                *faults
                    .entry((loser.clone(), record.termination.to_string()))
                    .or_default() += 1;
            }

            if let Some(file) = &mut pgn_file {
                let round = 2 * job.id + 1 + u64::from(second);
                let ctx = PgnContext {
                    event: &self.event,
                    date: &date,
                    round,
                    time_control: &tc,
                };
                let written = file
                    .write_all(pgn::write_game(&record, &ctx).as_bytes())
                    .and_then(|()| file.flush());
                if let Err(e) = written {
                    eprintln!(
                        "error: cannot write the PGN file: {e}; finishing the games in progress"
                    );
                    pgn_error = Some(anyhow::Error::new(e).context("cannot write the PGN file"));
                    pgn_file = None;
                    stopped = true;
                }
            }

            let mut line = format!(
                "[{done}/{total}] {} - {} {} ({})",
                record.red,
                record.black,
                record.result.pgn(),
                record.termination
            );
            if stats.len() > 1 {
                let _ = write!(
                    line,
                    " | {}",
                    standings_text(&self.engines, &points, &played)
                );
            }
            if stats.len() == 1 {
                let st = &stats[0];
                let _ = write!(
                    line,
                    " | {}",
                    trinomial_text(
                        &self.engines[st.a].name,
                        &self.engines[st.b].name,
                        &st.games
                    )
                );
                if let Some(sprt) = &self.sprt {
                    let llr = sprt.llr(&st.pairs);
                    let (lo, hi) = sprt.bounds();
                    let _ = write!(line, " | LLR {llr:.2} ({lo:.2}, {hi:.2})");
                    let state = sprt.state(llr);
                    if state != SprtState::Continue && !stopped {
                        stopped = true;
                        let _ = write!(line, " | SPRT stop: {}", sprt_verdict(state));
                    }
                }
            }
            println!("{line}");
            if !record.termination.is_fault() {
                continue;
            }
            println!("    {}", record.detail);
        }
        for handle in handles {
            if handle.join().is_err() {
                eprintln!("warning: a worker thread panicked");
            }
        }

        println!();
        println!(
            "{}",
            self.report(&stats, &points, &played, &terminations, &faults, done)
        );
        pgn_error.map_or(Ok(()), Err)
    }

    fn report(
        &self,
        stats: &[PairingStats],
        points: &[u64],
        played: &[u64],
        terminations: &BTreeMap<String, u64>,
        faults: &BTreeMap<(String, String), u64>,
        done: u64,
    ) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Finished {done} games, time control {}.",
            self.settings.tc
        );
        if self.engines.len() > 2 {
            let _ = writeln!(
                out,
                "{:<20} {:>6} {:>8} {:>7}",
                "Engine", "Games", "Points", "Score"
            );
            let mut order: Vec<usize> = (0..self.engines.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(points[i]));
            for i in order {
                let score = if played[i] > 0 {
                    50.0 * points[i] as f64 / played[i] as f64
                } else {
                    0.0
                };
                let _ = writeln!(
                    out,
                    "{:<20} {:>6} {:>8.1} {:>6.1} %",
                    self.engines[i].name,
                    played[i],
                    points[i] as f64 / 2.0,
                    score
                );
            }
        }
        for st in stats {
            let (a, b) = (&self.engines[st.a].name, &self.engines[st.b].name);
            let _ = writeln!(out, "{}", trinomial_text(a, b, &st.games));
            if let Some(e) = st.pairs.elo() {
                let _ = writeln!(out, "  Elo from pairs: {e} (95 %)");
            }
            if let Some(e) = st.pairs.normalized_elo() {
                let _ = writeln!(out, "  nElo from pairs: {e} (95 %)");
            }
            let c = st.pairs.counts;
            let _ = writeln!(
                out,
                "  Pentanomial [0, 0.5, 1, 1.5, 2]: [{}, {}, {}, {}, {}] ({} pairs)",
                c[0],
                c[1],
                c[2],
                c[3],
                c[4],
                st.pairs.pairs()
            );
            if let Some(sprt) = &self.sprt {
                let llr = sprt.llr(&st.pairs);
                let (lo, hi) = sprt.bounds();
                let model = match sprt.model {
                    crate::stats::EloModel::Normalized => "normalized",
                    crate::stats::EloModel::Logistic => "logistic",
                };
                let _ = writeln!(
                    out,
                    "  SPRT elo0={} elo1={} alpha={} beta={} ({model}): LLR {llr:.2} [{lo:.2}, {hi:.2}] {}",
                    sprt.elo0,
                    sprt.elo1,
                    sprt.alpha,
                    sprt.beta,
                    sprt_verdict(sprt.state(llr))
                );
            }
        }
        let list: Vec<String> = terminations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(out, "Terminations: {}", list.join(", "));
        for ((engine, what), n) in faults {
            let _ = writeln!(out, "Fault: {engine}: {what} x{n}");
        }
        out.trim_end().to_string()
    }
}

fn sprt_verdict(state: SprtState) -> &'static str {
    match state {
        SprtState::Continue => "(no decision yet)",
        SprtState::AcceptH0 => "H0 accepted (fail)",
        SprtState::AcceptH1 => "H1 accepted (pass)",
    }
}

/// `a vs b: W 5 D 4 L 3 [54.2 %] Elo +29.1 ± 45.2`.
fn trinomial_text(a: &str, b: &str, t: &Trinomial) -> String {
    let mut s = format!("{a} vs {b}: W {} D {} L {}", t.wins, t.draws, t.losses);
    if let Some(score) = t.score() {
        let _ = write!(s, " [{:.1} %]", 100.0 * score);
    }
    if let Some(e) = t.elo() {
        let _ = write!(s, " Elo {e}");
    }
    s
}

/// A worker: asks for pair jobs until there are none, plays them, then
/// shuts its engines down.
fn worker(
    tx: &Sender<Message>,
    engines: &[EngineSpec],
    settings: &GameSettings,
    openings: &[Opening],
) {
    let mut seats: Vec<Seat> = engines.iter().cloned().map(Seat::new).collect();
    let (reply_tx, reply_rx) = bounded(1);
    while tx.send(Message::Want(reply_tx.clone())).is_ok() {
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
            let record = play_game(
                ByColor {
                    red: red_seat,
                    black: black_seat,
                },
                opening,
                settings,
            );
            if tx
                .send(Message::Finished {
                    job,
                    second,
                    record,
                })
                .is_err()
            {
                break;
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

/// The round-robin standings for the progress line, leader first:
/// `a 3.5/5, b 2/4, c 1.5/3` (points / games).
fn standings_text(engines: &[EngineSpec], points: &[u64], played: &[u64]) -> String {
    let mut order: Vec<usize> = (0..engines.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(points[i]), played[i]));
    order
        .iter()
        .map(|&i| {
            let whole = points[i] / 2;
            let half = if points[i] % 2 == 1 { ".5" } else { "" };
            format!("{} {whole}{half}/{}", engines[i].name, played[i])
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_scores() {
        assert_eq!(score_for_a(GameResult::RedWins, false), GameScore::Win);
        assert_eq!(score_for_a(GameResult::RedWins, true), GameScore::Loss);
        assert_eq!(score_for_a(GameResult::BlackWins, true), GameScore::Win);
        assert_eq!(score_for_a(GameResult::Draw, true), GameScore::Draw);
    }

    #[test]
    fn two_mut_picks_both() {
        let mut v = [1, 2, 3];
        let (a, b) = two_mut(&mut v, 2, 0).unwrap();
        assert_eq!((*a, *b), (3, 1));
        assert!(two_mut(&mut v, 1, 1).is_none());
        assert!(two_mut(&mut v, 1, 3).is_none());
    }
}
