//! `arena pool`: the games of earlier runs, read back from their PGN files
//! and scored together as one match.
//!
//! A fixed-effort test that stops undecided goes on with openings it has
//! not played (`--skip-openings`), in a new run with its own PGN; the
//! decision belongs to all the pairs together. This module owns finding
//! the pairs again: the arena numbers a pair's games as rounds `2k − 1` and
//! `2k` of its run, whatever order they finished in, so pairs are taken by
//! round, never by position in the file. The statistics and the report are
//! the match's own (`stats`, `sprt`, `tally::write_pairing`); [`json`]
//! gives the same counts to programs that pool runs as they arrive
//! (`tools/cluster`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Result, bail};
use board::GameResult;
use book::pgn::PgnGame;

use crate::sprt::{EloModel, Sprt, SprtState};
use crate::stats::{GameScore, Pentanomial, Trinomial};
use crate::tally::write_pairing;

/// One PGN file to pool: its name for messages, its text, and how many
/// of its pairs to count (`None`: all).
pub struct Source {
    /// The file's name, for messages.
    pub name: String,
    /// The PGN text.
    pub text: String,
    /// Count only pairs 1 ..= this many (by round).
    pub max_pairs: Option<u64>,
}

/// Splits `FILE[:PAIRS]`: a trailing `:N` (digits only) limits the pairs.
pub fn split_source(arg: &str) -> (&str, Option<u64>) {
    match arg.rsplit_once(':') {
        Some((file, n)) if !file.is_empty() && !n.is_empty() => match n.parse() {
            Ok(n) => (file, Some(n)),
            Err(_) => (arg, None),
        },
        _ => (arg, None),
    }
}

/// A run kept only as its counts, from the engine's side, where its PGN
/// is gone: `W-D-L:LL,L,D,W,WW` (games won, drawn and lost; then pairs
/// that scored 0, ½, 1, 1½ and 2 points), as `docs/lab/strength.md` records
/// every run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The text it was read from, for the report.
    pub name: String,
    /// The run's games.
    pub games: Trinomial,
    /// The run's pairs.
    pub pairs: Pentanomial,
}

impl Recorded {
    /// Reads `W-D-L:LL,L,D,W,WW` and checks that the two halves describe
    /// one run: twice as many games as pairs, and the same points.
    ///
    /// # Errors
    /// Text that is not in that form, or counts that disagree.
    pub fn parse(arg: &str) -> Result<Self> {
        let form = "expected W-D-L:LL,L,D,W,WW (games, then pairs by points)";
        let Some((games, pairs)) = arg.split_once(':') else {
            bail!("recorded run '{arg}': {form}");
        };
        let numbers = |text: &str, sep: char, n: usize| -> Option<Vec<u64>> {
            let v: Vec<u64> = text
                .split(sep)
                .map(|x| x.trim().parse().ok())
                .collect::<Option<_>>()?;
            (v.len() == n).then_some(v)
        };
        let (Some(g), Some(p)) = (numbers(games, '-', 3), numbers(pairs, ',', 5)) else {
            bail!("recorded run '{arg}': {form}");
        };
        let games = Trinomial {
            wins: g[0],
            draws: g[1],
            losses: g[2],
        };
        let pairs = Pentanomial {
            counts: [p[0], p[1], p[2], p[3], p[4]],
        };
        let total = games.wins + games.draws + games.losses;
        if total != 2 * pairs.pairs() {
            bail!(
                "recorded run '{arg}': {total} games but {} pairs",
                pairs.pairs()
            );
        }
        let half_points = 2 * games.wins + games.draws;
        let pair_half_points: u64 = (0..5u64).map(|k| k * pairs.counts[k as usize]).sum();
        if half_points != pair_half_points {
            bail!(
                "recorded run '{arg}': the games score {} points, the pairs {}",
                half_points as f64 / 2.0,
                pair_half_points as f64 / 2.0
            );
        }
        Ok(Self {
            name: format!("recorded {}-{}-{}", games.wins, games.draws, games.losses),
            games,
            pairs,
        })
    }
}

/// What pooling found: the engine's games and pairs against its
/// opponents, in all files and per file.
#[derive(Debug)]
pub struct Pooled {
    /// The engine whose results are counted.
    pub engine: String,
    /// Its opponents' names, in the order met.
    pub opponents: Vec<String>,
    /// All counted games, from the engine's side.
    pub games: Trinomial,
    /// All counted pairs.
    pub pairs: Pentanomial,
    /// Per file: name, pairs counted, and pairs left out (a game missing
    /// or without a result).
    pub files: Vec<(String, Pentanomial, u64)>,
}

/// The engine's score in `game`, or `None` for a game without a result.
fn score_of(game: &PgnGame, engine: &str) -> Option<GameScore> {
    let red = game.tag("Red") == Some(engine);
    let score = match game.result() {
        Some(GameResult::RedWins) => GameScore::Win,
        Some(GameResult::BlackWins) => GameScore::Loss,
        Some(GameResult::Draw) => GameScore::Draw,
        None => return None,
    };
    Some(if red { score } else { score.flip() })
}

/// Pools the pairs of `sources` for `engine` (default: Red in the first
/// game of the first file).
///
/// # Errors
/// A game without a numeric `Round`, a round that appears twice in one
/// file (two runs appended to one PGN cannot be told apart), the two
/// games of a pair that are not one opening with colours swapped, or a
/// pair the engine does not play in.
pub fn pool(sources: &[Source], engine: Option<&str>) -> Result<Pooled> {
    let mut engine = engine.map(str::to_string);
    let mut pooled = Pooled {
        engine: String::new(),
        opponents: Vec::new(),
        games: Trinomial::default(),
        pairs: Pentanomial::default(),
        files: Vec::new(),
    };
    for source in sources {
        let mut rounds: BTreeMap<u64, PgnGame> = BTreeMap::new();
        for game in book::pgn::parse_games(&source.text) {
            let Some(round) = game.tag("Round").and_then(|r| r.trim().parse::<u64>().ok()) else {
                bail!(
                    "{}: the game at line {} has no round number (not an arena PGN?)",
                    source.name,
                    game.line
                );
            };
            let line = game.line;
            if rounds.insert(round, game).is_some() {
                bail!(
                    "{}: round {round} appears twice (line {line}); one PGN file per run",
                    source.name
                );
            }
        }
        let engine = match &engine {
            Some(e) => e.clone(),
            None => {
                let first = rounds.values().next().and_then(|g| g.tag("Red"));
                let Some(first) = first else {
                    bail!("{}: no games", source.name);
                };
                engine = Some(first.to_string());
                first.to_string()
            }
        };
        let last_pair = rounds.keys().next_back().map_or(0, |r| r.div_ceil(2));
        let last_pair = source.max_pairs.map_or(last_pair, |m| m.min(last_pair));
        let mut pairs = Pentanomial::default();
        let mut left_out = 0;
        for k in 1..=last_pair {
            let (Some(a), Some(b)) = (rounds.get(&(2 * k - 1)), rounds.get(&(2 * k))) else {
                left_out += 1;
                continue;
            };
            let players = |g: &PgnGame| {
                (
                    g.tag("Red").unwrap_or_default().to_string(),
                    g.tag("Black").unwrap_or_default().to_string(),
                )
            };
            let ((a_red, a_black), (b_red, b_black)) = (players(a), players(b));
            if a.tag("FEN") != b.tag("FEN") || a_red != b_black || a_black != b_red {
                bail!(
                    "{}: rounds {} and {} are not one opening with colours swapped",
                    source.name,
                    2 * k - 1,
                    2 * k
                );
            }
            let opponent = if a_red == engine {
                a_black
            } else if a_black == engine {
                a_red
            } else {
                bail!(
                    "{}: '{engine}' does not play rounds {} and {} ({a_red} against {a_black})",
                    source.name,
                    2 * k - 1,
                    2 * k
                );
            };
            let (Some(first), Some(second)) = (score_of(a, &engine), score_of(b, &engine)) else {
                left_out += 1;
                continue;
            };
            if !pooled.opponents.contains(&opponent) {
                pooled.opponents.push(opponent);
            }
            pairs.add(first, second);
            pooled.pairs.add(first, second);
            pooled.games.add(first);
            pooled.games.add(second);
        }
        pooled.engine = engine;
        pooled.files.push((source.name.clone(), pairs, left_out));
    }
    Ok(pooled)
}

/// Adds runs kept only as counts ([`Recorded`]) to what the PGN files
/// gave; each is reported as a file is.
pub fn add_recorded(pooled: &mut Pooled, recorded: &[Recorded]) {
    for run in recorded {
        pooled.games.wins += run.games.wins;
        pooled.games.draws += run.games.draws;
        pooled.games.losses += run.games.losses;
        for (total, n) in pooled.pairs.counts.iter_mut().zip(run.pairs.counts) {
            *total += n;
        }
        pooled.files.push((run.name.clone(), run.pairs, 0));
    }
}

/// The report: one line per file, then the pooled pairing block as a
/// match's final report prints it.
pub fn report(pooled: &Pooled, sprt: Option<&Sprt>) -> String {
    let mut out = String::new();
    for (name, pairs, left_out) in &pooled.files {
        let c = pairs.counts;
        let _ = write!(
            out,
            "{name}: {} pairs [{}, {}, {}, {}, {}]",
            pairs.pairs(),
            c[0],
            c[1],
            c[2],
            c[3],
            c[4]
        );
        if let Some(e) = pairs.elo() {
            let _ = write!(out, ", Elo {e}");
        }
        if *left_out > 0 {
            let _ = write!(out, " ({left_out} incomplete pairs left out)");
        }
        out.push('\n');
    }
    let opponents = if pooled.opponents.is_empty() {
        "its recorded opponents".to_string()
    } else {
        pooled.opponents.join(" / ")
    };
    write_pairing(
        &mut out,
        &pooled.engine,
        &opponents,
        &pooled.games,
        &pooled.pairs,
        sprt,
    );
    out.trim_end().to_string()
}

/// The pooled counts as one JSON object, for programs:
///
/// ```text
/// {"engine": "new", "opponents": ["base"],
///  "games": {"wins": 3, "draws": 1, "losses": 2},
///  "pairs": {"counts": [1, 0, 0, 1, 1], "total": 3},
///  "elo": "+40.1 ± 90.2" or null, "nelo": … or null,
///  "files": [{"name": "run1.pgn", "counts": [0, 0, 0, 1, 1], "pairs": 2, "left_out": 1}, …],
///  "sprt": null or {"elo0": 0.0, "elo1": 5.0, "alpha": 0.05, "beta": 0.05,
///           "model": "normalized", "llr": 0.87, "lower": -2.94, "upper": 2.94,
///           "state": "continue" | "H0" | "H1"}}
/// ```
///
/// Elo figures are the pairs' estimates as the text report writes them.
pub fn json(pooled: &Pooled, sprt: Option<&Sprt>) -> String {
    use serde_json::{Value, json};
    let files: Vec<Value> = pooled
        .files
        .iter()
        .map(|(name, pairs, left_out)| {
            json!({"name": name, "counts": pairs.counts, "pairs": pairs.pairs(), "left_out": left_out})
        })
        .collect();
    let sprt = sprt.map(|s| {
        let llr = s.llr(&pooled.pairs);
        let (lower, upper) = s.bounds();
        json!({
            "elo0": s.elo0,
            "elo1": s.elo1,
            "alpha": s.alpha,
            "beta": s.beta,
            "model": match s.model {
                EloModel::Normalized => "normalized",
                EloModel::Logistic => "logistic",
            },
            "llr": llr,
            "lower": lower,
            "upper": upper,
            "state": match s.state(llr) {
                SprtState::Continue => "continue",
                SprtState::AcceptH0 => "H0",
                SprtState::AcceptH1 => "H1",
            },
        })
    });
    let g = &pooled.games;
    json!({
        "engine": pooled.engine,
        "opponents": pooled.opponents,
        "games": {"wins": g.wins, "draws": g.draws, "losses": g.losses},
        "pairs": {"counts": pooled.pairs.counts, "total": pooled.pairs.pairs()},
        "elo": pooled.pairs.elo().map(|e| e.to_string()),
        "nelo": pooled.pairs.normalized_elo().map(|e| e.to_string()),
        "files": files,
        "sprt": sprt,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

    /// A game in the arena's PGN layout.
    fn game(round: u64, red: &str, black: &str, result: &str, fen: &str) -> String {
        format!(
            "[Game \"Chinese Chess\"]\n[Event \"arena\"]\n[Round \"{round}\"]\n[Red \"{red}\"]\n\
             [Black \"{black}\"]\n[Result \"{result}\"]\n[FEN \"{fen}\"]\n[Format \"ICCS\"]\n\n\
             1. h2e2 h7e7 {result}\n\n"
        )
    }

    fn source(name: &str, games: &[String], max_pairs: Option<u64>) -> Source {
        Source {
            name: name.to_string(),
            text: games.concat(),
            max_pairs,
        }
    }

    #[test]
    fn sources_split_a_pair_count() {
        assert_eq!(split_source("a.pgn:240"), ("a.pgn", Some(240)));
        assert_eq!(split_source("a.pgn"), ("a.pgn", None));
        assert_eq!(split_source("c:/x.pgn"), ("c:/x.pgn", None));
        assert_eq!(split_source("a.pgn:"), ("a.pgn:", None));
        assert_eq!(split_source(":5"), (":5", None));
    }

    #[test]
    fn pairs_are_found_by_round_in_any_order() {
        // Run 1 (finishing order 2, 1, 4, 3; round 6 never finished):
        // pair 1 new wins both, pair 2 a win and a draw. Run 2: pair 1
        // two losses, pair 2 counted only if asked for.
        let run1 = [
            game(2, "base", "new", "0-1", FEN),
            game(1, "new", "base", "1-0", FEN),
            game(
                4,
                "base",
                "new",
                "1/2-1/2",
                "9/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
            ),
            game(3, "new", "base", "1-0", "9/9/9/9/9/9/9/9/9/4K4 w - - 0 1"),
            game(5, "new", "base", "1-0", FEN),
        ];
        let run2 = [
            game(1, "new", "main", "0-1", FEN),
            game(2, "main", "new", "1-0", FEN),
            game(3, "new", "main", "1-0", FEN),
            game(4, "main", "new", "0-1", FEN),
        ];
        let pooled = pool(
            &[source("run1", &run1, None), source("run2", &run2, Some(1))],
            None,
        )
        .unwrap();
        assert_eq!(pooled.engine, "new");
        assert_eq!(pooled.opponents, ["base", "main"]);
        assert_eq!(pooled.pairs.counts, [1, 0, 0, 1, 1]);
        assert_eq!(
            (pooled.games.wins, pooled.games.draws, pooled.games.losses),
            (3, 1, 2)
        );
        assert_eq!(pooled.files[0].1.counts, [0, 0, 0, 1, 1]);
        assert_eq!(pooled.files[0].2, 1, "pair 3 has no second game");
        assert_eq!(pooled.files[1].1.pairs(), 1);
        // From the other side, every pair is mirrored.
        let theirs = pool(&[source("run1", &run1, None)], Some("base")).unwrap();
        assert_eq!(theirs.pairs.counts, [1, 1, 0, 0, 0]);
        let text = report(&pooled, None);
        assert!(text.contains("run1: 2 pairs [0, 0, 0, 1, 1]"), "{text}");
        assert!(text.contains("(1 incomplete pairs left out)"), "{text}");
        assert!(text.contains("new vs base / main: W 3 D 1 L 2"), "{text}");
        // The same counts for programs, with the SPRT's standing.
        let sprt = crate::config::parse_sprt(&["elo0=0", "elo1=5"]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json(&pooled, Some(&sprt))).unwrap();
        assert_eq!(v["engine"], "new");
        assert_eq!(v["opponents"], serde_json::json!(["base", "main"]));
        assert_eq!(v["pairs"]["counts"], serde_json::json!([1, 0, 0, 1, 1]));
        assert_eq!(v["pairs"]["total"], 3);
        assert_eq!(
            v["games"],
            serde_json::json!({"wins": 3, "draws": 1, "losses": 2})
        );
        assert_eq!(v["files"][0]["pairs"], 2);
        assert_eq!(v["files"][0]["left_out"], 1);
        assert_eq!(v["files"][1]["name"], "run2");
        assert_eq!(v["files"][1]["counts"], serde_json::json!([1, 0, 0, 0, 0]));
        let llr = sprt.llr(&pooled.pairs);
        assert_eq!(v["sprt"]["llr"].as_f64(), Some(llr));
        assert_eq!(v["sprt"]["state"], "continue");
        assert_eq!(v["sprt"]["upper"].as_f64(), Some(sprt.bounds().1));
        assert_eq!(v["elo"], pooled.pairs.elo().unwrap().to_string());
        let bare: serde_json::Value = serde_json::from_str(&json(&pooled, None)).unwrap();
        assert!(bare["sprt"].is_null());
    }

    #[test]
    fn what_cannot_be_paired_is_refused() {
        let twice = [
            game(1, "new", "base", "1-0", FEN),
            game(2, "base", "new", "1-0", FEN),
            game(1, "new", "base", "0-1", FEN),
        ];
        let e = pool(&[source("twice", &twice, None)], None).unwrap_err();
        assert!(e.to_string().contains("round 1 appears twice"), "{e}");
        let unswapped = [
            game(1, "new", "base", "1-0", FEN),
            game(2, "new", "base", "1-0", FEN),
        ];
        let e = pool(&[source("same", &unswapped, None)], None).unwrap_err();
        assert!(
            e.to_string()
                .contains("not one opening with colours swapped"),
            "{e}"
        );
        let ok = [
            game(1, "new", "base", "1-0", FEN),
            game(2, "base", "new", "1-0", FEN),
        ];
        let e = pool(&[source("ok", &ok, None)], Some("other")).unwrap_err();
        assert!(
            e.to_string()
                .contains("'other' does not play rounds 1 and 2"),
            "{e}"
        );
        let e = pool(&[source("empty", &[], None)], None).unwrap_err();
        assert!(e.to_string().contains("no games"), "{e}");
        let no_round = "[Game \"Chinese Chess\"]\n[Red \"a\"]\n\n1. h2e2 *\n".to_string();
        let e = pool(&[source("bare", &[no_round], None)], None).unwrap_err();
        assert!(e.to_string().contains("no round number"), "{e}");
    }

    #[test]
    fn recorded_runs_are_checked_and_pooled_as_files_are() {
        let run = Recorded::parse("505-530-485:76,165,271,159,89").unwrap();
        assert_eq!(run.name, "recorded 505-530-485");
        assert_eq!(run.pairs.pairs(), 760);
        // Games that do not make the pairs, and points that do not match.
        for (bad, why) in [
            ("505-530-485:76,165,271,159,90", "1520 games but 761 pairs"),
            (
                "506-529-485:76,165,271,159,89",
                "the games score 770.5 points, the pairs 770",
            ),
            ("505-530-485", "expected W-D-L:LL,L,D,W,WW"),
            ("505-530:76,165,271,159,89", "expected"),
            ("505-530-485:76,165,271,159", "expected"),
            ("a-b-c:1,2,3,4,5", "expected"),
        ] {
            let e = Recorded::parse(bad).unwrap_err().to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
        // Added to a PGN run, the totals are the sum and the run has its line.
        let games = [
            game(1, "new", "base", "1-0", FEN),
            game(2, "base", "new", "1/2-1/2", FEN),
        ];
        let mut pooled = pool(&[source("run1", &games, None)], None).unwrap();
        add_recorded(&mut pooled, &[Recorded::parse("3-1-0:0,0,0,1,1").unwrap()]);
        assert_eq!(pooled.pairs.counts, [0, 0, 0, 2, 1]);
        assert_eq!(
            (pooled.games.wins, pooled.games.draws, pooled.games.losses),
            (4, 2, 0)
        );
        let text = report(&pooled, None);
        assert!(
            text.contains("recorded 3-1-0: 2 pairs [0, 0, 0, 1, 1]"),
            "{text}"
        );
    }
}
