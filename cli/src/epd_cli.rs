//! `chariot epd`: runs a suite of test positions (`docs/rules.md` §9) —
//! searches each with the engine, says whether the move played solves it,
//! from which iteration on it did, and sums up.
//!
//! Reading the file is `book::epd`'s; this module owns what solving means
//! ([`Goal`]), the search of each position and the report. Malformed lines
//! and exit statuses follow [`crate::cases`]: 0 when every position is
//! read and solved, 1 when one is not solved or a line is malformed, 2 for
//! bad arguments, an unreadable file or a suite without a position to
//! solve.

use std::io::{ErrorKind, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use board::Move;
use book::epd::{self, Record};
use engine::{Engine, Event, Limits, Report, Score, SearchResult};

use crate::cases::{FAILED, Leniency, Malformed, USAGE};

/// Arguments of `chariot epd`.
#[derive(clap::Args)]
#[command(
    group(clap::ArgGroup::new("limit").args(["depth", "nodes", "movetime"])),
    about = "Run a suite of test positions (EPD with bm, am, dm, id) and report which are solved",
    long_about = "Run a suite of test positions and report which are solved.\n\n\
        Each line of SUITE is a position (FEN) followed by EPD operations: `bm` the moves \
        that solve it, `am` the moves that fail it, `dm N` mate in N moves, `id` its name; \
        moves in ICCS (h2e2), WXF (C2=5) or Chinese (炮二平五). Every operation a position \
        has must hold. Each position is searched from a fresh table; a line per position \
        says whether it was solved, the move played, the depth reached and from which \
        iteration on the move was a solution. A malformed line (or one that asks nothing) \
        is named on stderr with its line number and skipped, and fails the run unless \
        --lenient.",
    after_help = "Examples:\n  \
        chariot epd tests/data/positions.epd --depth 8\n  \
        chariot epd engine/data/mistakes.epd --nodes 500000 --threads 2\n\n\
        Exit status: 0 when every position is read and solved, 1 when any is not solved \
        or a line is malformed (0 with --lenient if the rest are solved), 2 for bad \
        arguments, an unreadable file or a suite with no position to solve."
)]
pub struct EpdArgs {
    /// The suite: one position per line, a FEN followed by `bm`, `am`,
    /// `dm` and `id` operations (moves in ICCS, WXF or Chinese).
    #[arg(value_name = "SUITE")]
    suite: PathBuf,
    /// Search each position to this depth.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(engine::MAX_DEPTH)))]
    depth: Option<u32>,
    /// Search each position this many nodes.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    nodes: Option<u64>,
    /// Search each position this many milliseconds (the default: 1000).
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    movetime: Option<u64>,
    /// Search threads.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=engine::MAX_THREADS as u64))]
    threads: usize,
    /// Hash table size in MB.
    #[arg(long, value_name = "MB", default_value_t = engine::DEFAULT_HASH_MB,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=engine::MAX_HASH_MB as u64))]
    hash: usize,
    /// The table's replacement rule, for the table experiments (`off`,
    /// `always`, `depth`, `two-tier`, `two-tier-aged`, `bucket`): any but
    /// `two-tier` runs the experiment build of the search.
    #[arg(long, value_name = "POLICY", value_parser = parse_policy)]
    tt: Option<engine::TtPolicy>,
    #[command(flatten)]
    leniency: Leniency,
}

fn parse_policy(text: &str) -> Result<engine::TtPolicy, String> {
    text.parse()
}

/// The thinking time when no limit is given.
const DEFAULT_MOVETIME: Duration = Duration::from_secs(1);

/// What a position asks of the move played (`docs/rules.md` §9): every
/// operation it has must hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goal {
    /// `bm`: the move is one of these (when not empty).
    pub best: Vec<Move>,
    /// `am`: the move is none of these.
    pub avoid: Vec<Move>,
    /// `dm`: the score is a mate for the side to move in at most this
    /// many moves.
    pub mate: Option<u32>,
}

impl Goal {
    /// The goal of `record`; `None` when it asks nothing.
    pub fn of(record: &Record) -> Option<Goal> {
        record.has_goal().then(|| Goal {
            best: record.best.clone(),
            avoid: record.avoid.clone(),
            mate: record.mate,
        })
    }

    /// Whether playing `mv` with the search's `score` solves the position.
    pub fn solved_by(&self, mv: Move, score: Score) -> bool {
        let mate_ok = self.mate.is_none_or(|n| {
            // A mate in n moves is 2n − 1 plies away.
            let plies = i64::from(n) * 2 - 1;
            matches!(score, Score::Mate(p) if p > 0 && i64::from(p) <= plies)
        });
        (self.best.is_empty() || self.best.contains(&mv)) && !self.avoid.contains(&mv) && mate_ok
    }

    /// The goal in EPD words, for a failure line: `bm h2e2; dm 2`.
    fn describe(&self) -> String {
        let moves = |ms: &[Move]| ms.iter().map(Move::to_string).collect::<Vec<_>>().join(" ");
        let mut parts = Vec::new();
        if !self.best.is_empty() {
            parts.push(format!("bm {}", moves(&self.best)));
        }
        if !self.avoid.is_empty() {
            parts.push(format!("am {}", moves(&self.avoid)));
        }
        if let Some(n) = self.mate {
            parts.push(format!("dm {n}"));
        }
        parts.join("; ")
    }
}

/// The iteration from which on the search's best move solved the
/// position: its depth, time and nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The iteration's depth.
    pub depth: u32,
    /// Time since the search started.
    pub time: Duration,
    /// Nodes searched by then.
    pub nodes: u64,
}

/// Follows a search's iterations: the first of the run of iterations,
/// up to the latest, whose best move solves the goal.
#[derive(Debug)]
struct Tracker<'a> {
    goal: &'a Goal,
    since: Option<Solved>,
}

impl Tracker<'_> {
    fn iteration(&mut self, report: &Report) {
        let Some(&mv) = report.pv.first() else {
            return;
        };
        if report.multipv != 1 {
            return;
        }
        if self.goal.solved_by(mv, report.score) {
            self.since.get_or_insert(Solved {
                depth: report.depth,
                time: report.time,
                nodes: report.nodes,
            });
        } else {
            self.since = None;
        }
    }
}

/// One position's outcome.
struct Outcome {
    result: SearchResult,
    /// `Some` when the move played solves the position.
    solved: Option<Solved>,
}

/// Runs the subcommand.
pub fn run(args: &EpdArgs) -> ExitCode {
    let name = args.suite.display().to_string();
    let data = match std::fs::read(&args.suite) {
        Ok(d) => d,
        Err(e) => return usage(&format!("cannot read {name}: {e}")),
    };
    let text = String::from_utf8_lossy(&data);
    let mut cases = Vec::new();
    let mut malformed = Malformed::new("epd", args.leniency);
    for entry in epd::parse(&text) {
        match entry {
            Ok(record) => match Goal::of(&record) {
                Some(goal) => cases.push((record, goal)),
                None => malformed.report(&args.suite, record.line, "no bm, am or dm operation"),
            },
            Err(e) => malformed.report(&args.suite, e.line, &e.kind),
        }
    }
    if cases.is_empty() {
        return malformed.nothing_to_check(&args.suite, "position to solve");
    }
    let mut engine = Engine::new();
    if let Err(e) = engine
        .set_hash_mb(args.hash)
        .and_then(|()| engine.set_threads(args.threads))
        .and_then(|()| {
            engine.set_experiment(args.tt.map(|policy| engine::Experiment {
                policy,
                ..engine::Experiment::default()
            }))
        })
    {
        return usage(&e.to_string());
    }
    let limits = limits(args);
    match solve_all(&mut engine, &cases, &limits, &malformed) {
        Ok(all_solved) => malformed.exit(all_solved),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chariot epd: cannot write the output: {e}");
            ExitCode::from(FAILED)
        }
    }
}

fn usage(message: &str) -> ExitCode {
    eprintln!("chariot epd: {message}");
    ExitCode::from(USAGE)
}

/// The search limits of every position.
fn limits(args: &EpdArgs) -> Limits {
    let movetime = match (args.depth, args.nodes, args.movetime) {
        (None, None, None) => Some(DEFAULT_MOVETIME),
        (_, _, ms) => ms.map(Duration::from_millis),
    };
    Limits {
        depth: args.depth,
        nodes: args.nodes,
        movetime,
        ..Limits::default()
    }
}

/// Searches every case, printing a line for each and the summary;
/// returns whether all were solved.
fn solve_all(
    engine: &mut Engine,
    cases: &[(Record, Goal)],
    limits: &Limits,
    malformed: &Malformed,
) -> std::io::Result<bool> {
    let mut out = std::io::stdout().lock();
    let started = Instant::now();
    let mut solved = 0usize;
    for (record, goal) in cases {
        let outcome = solve(engine, record, goal, limits);
        solved += usize::from(outcome.solved.is_some());
        writeln!(out, "{}", case_line(record, goal, &outcome))?;
        out.flush()?;
    }
    #[allow(clippy::cast_precision_loss)]
    let percent = 100.0 * solved as f64 / cases.len() as f64;
    write!(
        out,
        "Solved {solved} of {} ({percent:.1} %) in {:.3} s",
        cases.len(),
        started.elapsed().as_secs_f64()
    )?;
    writeln!(out, "{}", malformed.clause())?;
    out.flush()?;
    Ok(solved == cases.len())
}

/// Searches one position from a fresh table and fresh histories.
fn solve(engine: &mut Engine, record: &Record, goal: &Goal, limits: &Limits) -> Outcome {
    let mut tracker = Tracker { goal, since: None };
    engine.new_game();
    let result = engine.search(record.position.clone(), limits.clone(), &mut |event| {
        if let Event::Iteration(report) = event {
            tracker.iteration(&report);
        }
    });
    let since = tracker.since;
    let solved = result
        .best
        .filter(|&mv| goal.solved_by(mv, result.score))
        .map(|_| {
            // A final move that no iteration reported solves from the end.
            since.unwrap_or(Solved {
                depth: result.depth,
                time: result.time,
                nodes: result.nodes,
            })
        });
    Outcome { result, solved }
}

/// The report line of one position.
fn case_line(record: &Record, goal: &Goal, outcome: &Outcome) -> String {
    let r = &outcome.result;
    let played = r
        .best
        .map_or_else(|| "(none)".to_string(), |m| m.to_string());
    let verdict = if outcome.solved.is_some() {
        "solved"
    } else {
        "FAILED"
    };
    let mut line = format!(
        "{verdict} {played:<5} depth {:>2}  score {:<9}",
        r.depth,
        protocol::output::uci_score(r.score)
    );
    match outcome.solved {
        Some(s) => line.push_str(&format!(
            "  from depth {} ({:.1} ms, {} nodes)",
            s.depth,
            s.time.as_secs_f64() * 1000.0,
            s.nodes
        )),
        None => line.push_str(&format!("  wanted {}", goal.describe())),
    }
    line.push_str(&format!("  line {}", record.line));
    if let Some(id) = &record.id {
        line.push_str(&format!(" \"{id}\""));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use test_support::mv;

    #[test]
    fn every_operation_must_hold() {
        let bm = Goal {
            best: vec![mv("h2e2"), mv("b2e2")],
            avoid: vec![],
            mate: None,
        };
        assert!(bm.solved_by(mv("h2e2"), Score::Cp(0)));
        assert!(bm.solved_by(mv("b2e2"), Score::Cp(-50)));
        assert!(!bm.solved_by(mv("c3c4"), Score::Cp(0)));
        let am = Goal {
            best: vec![],
            avoid: vec![mv("h2e2")],
            mate: None,
        };
        assert!(am.solved_by(mv("c3c4"), Score::Cp(0)));
        assert!(!am.solved_by(mv("h2e2"), Score::Cp(0)));
        let dm = Goal {
            best: vec![],
            avoid: vec![],
            mate: Some(2),
        };
        assert!(dm.solved_by(mv("h2e2"), Score::Mate(3)));
        assert!(dm.solved_by(mv("h2e2"), Score::Mate(1)));
        assert!(!dm.solved_by(mv("h2e2"), Score::Mate(5)));
        assert!(!dm.solved_by(mv("h2e2"), Score::Mate(-2)));
        assert!(!dm.solved_by(mv("h2e2"), Score::Cp(900)));
        let all = Goal {
            best: vec![mv("h2e2")],
            avoid: vec![mv("b2e2")],
            mate: Some(1),
        };
        assert!(all.solved_by(mv("h2e2"), Score::Mate(1)));
        assert!(!all.solved_by(mv("h2e2"), Score::Cp(300)));
        assert_eq!(all.describe(), "bm h2e2; am b2e2; dm 1");
    }

    fn report(depth: u32, m: &str, score: Score) -> Report {
        Report {
            depth,
            seldepth: depth,
            multipv: 1,
            score,
            bound: engine::Bound::Exact,
            rule: None,
            nodes: u64::from(depth) * 100,
            nps: 0,
            time: Duration::from_millis(u64::from(depth)),
            hashfull: 0,
            pv: vec![mv(m)],
        }
    }

    #[test]
    fn the_solving_run_restarts_when_the_move_changes() {
        let goal = Goal {
            best: vec![mv("h2e2")],
            avoid: vec![],
            mate: None,
        };
        let mut t = Tracker {
            goal: &goal,
            since: None,
        };
        for (depth, m) in [
            (1, "h2e2"),
            (2, "h2e2"),
            (3, "b2e2"),
            (4, "h2e2"),
            (5, "h2e2"),
        ] {
            t.iteration(&report(depth, m, Score::Cp(10)));
        }
        assert_eq!(
            t.since,
            Some(Solved {
                depth: 4,
                time: Duration::from_millis(4),
                nodes: 400
            })
        );
        t.iteration(&report(6, "c3c4", Score::Cp(10)));
        assert_eq!(t.since, None);
    }
}
