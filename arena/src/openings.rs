//! Opening suites: building one from game records (the `arena openings`
//! subcommand that made `arena/data/openings.epd`), and reading one, which
//! is `book::openings`'s (the file format is described there).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::io::BufRead;
use std::path::Path;

use anyhow::{Context, Result, bail};
use board::{GameResult, Move, Position};
use book::pgn::{TsvGame, is_tsv_filler};

pub use book::openings::Opening;

/// Reads an opening list (`book::openings`, shared with `chariot datagen`).
///
/// # Errors
/// As [`book::openings::load`], naming the file.
pub fn load(path: &Path) -> Result<Vec<Opening>> {
    book::openings::load(path).with_context(|| format!("in openings file {}", path.display()))
}

/// Reads an opening list from text (see [`load`]).
///
/// # Errors
/// As [`book::openings::parse`].
pub fn parse(text: &str) -> Result<Vec<Opening>> {
    Ok(book::openings::parse(text)?)
}

/// Settings of the suite builder.
#[derive(Clone, Copy, Debug)]
pub struct BuildSettings {
    /// Shallowest opening depth in plies.
    pub min_plies: usize,
    /// Deepest opening depth in plies.
    pub max_plies: usize,
    /// Positions to select.
    pub count: usize,
    /// Least number of games that must have passed through a position.
    pub min_games: u32,
    /// Largest allowed distance of Red's score from ½ in those games.
    pub max_imbalance: f64,
}

/// What the builder knows of one position.
struct Seen {
    fen: String,
    line: Vec<Move>,
    games: u32,
    /// Red's points in half-point units over games with a known result.
    red_half_points: u32,
    decided_or_drawn: u32,
    draws: u32,
}

/// Builds a balanced opening suite from game records in the `ccpd-games.iccs.tsv`
/// layout (header line, then `game<TAB>result<TAB>plies<TAB>moves`), read
/// line by line with the `book` crate's reader of that layout.
///
/// 1. Replay the first `max_plies` plies of every game with a known result;
///    tally every position at plies `min_plies..=max_plies` by Zobrist key
///    (the smaller of the position's and its mirror's, so transpositions
///    and mirrored lines merge): games through it, Red's score, draws.
/// 2. Keep positions seen in at least `min_games` games whose Red score is
///    within `max_imbalance` of ½ — lines both colours were happy to play.
/// 3. Group them by the position at `min_plies` (the line's trunk) and keep
///    one per trunk, the deepest, then the most played: different trunks
///    give different games rather than one line at five depths.
/// 4. Rank the trunks by draw rate, then by games; take `count`.
///
/// Returns the EPD text, with `c0` (the moves from the start) and `c1`
/// (games, Red's score, draw rate) operations.
///
/// # Errors
/// Unreadable input or fewer than `count` positions qualifying.
pub fn build(input: impl BufRead, settings: &BuildSettings) -> Result<(String, usize)> {
    let tallied = tally_positions(input, settings)?;
    let chosen = choose(&tallied, settings)?;
    Ok((epd_text(&chosen), tallied.games_read))
}

/// What step 1 of [`build`] learns from the game records.
struct Tallied {
    /// Every position in the depth range, by mirror-merged key.
    seen: HashMap<u64, Seen>,
    /// The trunk (position at `min_plies`) of the first line that reached
    /// each position.
    trunk_of: HashMap<u64, u64>,
    /// Games with a known result.
    games_read: usize,
}

/// Step 1 of [`build`]: every position at plies `min_plies..=max_plies`
/// of every game with a known result.
fn tally_positions(input: impl BufRead, settings: &BuildSettings) -> Result<Tallied> {
    let mut seen: HashMap<u64, Seen> = HashMap::new();
    // The trunk (position at `min_plies`) of the first line that reached each position.
    let mut trunk_of: HashMap<u64, u64> = HashMap::new();
    let mut games_read = 0usize;
    for (i, line) in input.lines().enumerate() {
        let line = line.with_context(|| format!("reading line {}", i + 1))?;
        // Malformed lines are skipped, as the book builder skips them.
        if is_tsv_filler(&line) {
            continue;
        }
        let Some(game) = TsvGame::parse(&line) else {
            continue;
        };
        let red_half = match game.result {
            Some(GameResult::RedWins) => 2,
            Some(GameResult::Draw) => 1,
            Some(GameResult::BlackWins) => 0,
            None => continue,
        };
        games_read += 1;
        let mut pos = Position::startpos();
        let mut line_moves = Vec::new();
        let mut trunk = 0;
        for (ply, text) in game.moves.iter().take(settings.max_plies).enumerate() {
            let Ok(m) = pos.parse_move(text) else { break };
            if pos.play(m).is_err() {
                break;
            }
            line_moves.push(m);
            let plies = ply + 1;
            if plies < settings.min_plies {
                continue;
            }
            // A position and its left-right mirror are the same opening:
            // tally both under the smaller key.
            let key = pos.key().min(pos.mirrored_key());
            if plies == settings.min_plies {
                trunk = key;
            }
            let entry = match seen.entry(key) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(v) => {
                    trunk_of.insert(key, trunk);
                    v.insert(Seen {
                        fen: pos.fen(),
                        line: line_moves.clone(),
                        games: 0,
                        red_half_points: 0,
                        decided_or_drawn: 0,
                        draws: 0,
                    })
                }
            };
            entry.games += 1;
            entry.red_half_points += red_half;
            entry.decided_or_drawn += 1;
            entry.draws += u32::from(red_half == 1);
        }
    }

    Ok(Tallied {
        seen,
        trunk_of,
        games_read,
    })
}

/// Steps 2 to 4 of [`build`]: the balanced positions, one per trunk, the
/// `count` best.
fn choose<'a>(tallied: &'a Tallied, settings: &BuildSettings) -> Result<Vec<&'a Seen>> {
    let Tallied {
        seen,
        trunk_of,
        games_read,
    } = tallied;
    // Steps 2 and 3.
    let mut best_per_trunk: HashMap<u64, u64> = HashMap::new();
    for (&key, s) in seen {
        let red_score = f64::from(s.red_half_points) / (2.0 * f64::from(s.decided_or_drawn.max(1)));
        if s.games < settings.min_games || (red_score - 0.5).abs() > settings.max_imbalance {
            continue;
        }
        let Ok(pos) = Position::from_fen(&s.fen) else {
            continue;
        };
        if !pos.has_legal_move() || pos.in_check() {
            continue;
        }
        let trunk = trunk_of.get(&key).copied().unwrap_or(key);
        let better = |old: &Seen| {
            (s.line.len(), s.games, std::cmp::Reverse(&s.fen))
                > (old.line.len(), old.games, std::cmp::Reverse(&old.fen))
        };
        match best_per_trunk.entry(trunk) {
            Entry::Vacant(v) => {
                v.insert(key);
            }
            Entry::Occupied(mut o) => {
                if seen.get(o.get()).is_none_or(better) {
                    o.insert(key);
                }
            }
        }
    }

    // Step 4.
    let mut chosen: Vec<&Seen> = best_per_trunk
        .values()
        .filter_map(|k| seen.get(k))
        .collect();
    chosen.sort_by(|a, b| {
        let rate = |s: &Seen| f64::from(s.draws) / f64::from(s.decided_or_drawn.max(1));
        rate(b)
            .total_cmp(&rate(a))
            .then(b.games.cmp(&a.games))
            .then(a.fen.cmp(&b.fen))
    });
    chosen.dedup_by(|a, b| a.fen == b.fen);
    if chosen.len() < settings.count {
        bail!(
            "only {} positions qualify (of {games_read} games); relax the settings",
            chosen.len()
        );
    }
    chosen.truncate(settings.count);
    Ok(chosen)
}

/// The EPD lines of the chosen positions, with `c0` (the moves from the
/// start) and `c1` (games, Red's score, draw rate).
fn epd_text(chosen: &[&Seen]) -> String {
    let mut out = String::new();
    for s in chosen {
        let fields: Vec<&str> = s.fen.split_whitespace().collect();
        let moves: Vec<String> = s.line.iter().map(ToString::to_string).collect();
        let red_score = f64::from(s.red_half_points) / (2.0 * f64::from(s.decided_or_drawn));
        let _ = writeln!(
            out,
            "{} {} - - c0 \"{}\"; c1 \"games {} red {:.1}% draws {:.1}%\";",
            fields[0],
            fields[1],
            moves.join(" "),
            s.games,
            100.0 * red_score,
            100.0 * f64::from(s.draws) / f64::from(s.decided_or_drawn)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fen_and_epd_lines() {
        let text = "# comment\n\n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1\n\
            rnbakabnr/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - c0 \"h2e2 h7e7\"; c1 \"x\";\n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b\n";
        let ops = parse(text).unwrap();
        assert_eq!(ops.len(), 3);
        assert_eq!(ops[0].position.fen(), board::START_FEN);
        assert_eq!(
            ops[1].position.fen(),
            "rnbakabnr/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
        );
        assert_eq!(ops[2].position.side_to_move(), board::Color::Black);
        assert!(parse("# nothing\n").is_err());
        assert!(parse("garbage w\n").is_err());
        // Stalemated side to move: no game to play.
        assert!(parse("3k5/9/9/9/9/9/9/9/3r1r3/4K4 w - - 0 1\n").is_err());
    }

    #[test]
    fn builds_balanced_trunks() {
        // Three games share the trunk h2e2 h9g7 (2 plies) and reach
        // h0g2 i9h9 at ply 4; results 1-0, 0-1, 1/2-1/2 → Red 50 %.
        // A fourth line (c3c4 …) is only played once and drops out.
        let tsv = "game\tresult\tplies\tmoves\n\
            1\t1-0\t4\th2e2 h9g7 h0g2 i9h9\n\
            2\t0-1\t5\th2e2 h9g7 h0g2 i9h9 i0h0\n\
            3\t1/2-1/2\t4\th2e2 h9g7 h0g2 i9h9\n\
            4\t1-0\t4\tc3c4 g6g5 b0c2 b9c7\n\
            5\t*\t4\th2e2 h9g7 h0g2 i9h9\n";
        let settings = BuildSettings {
            min_plies: 2,
            max_plies: 4,
            count: 1,
            min_games: 2,
            max_imbalance: 0.1,
        };
        let (text, games) = build(tsv.as_bytes(), &settings).unwrap();
        assert_eq!(games, 4);
        assert_eq!(
            text,
            "rnbakabr1/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - c0 \"h2e2 h9g7 h0g2 i9h9\"; \
             c1 \"games 3 red 50.0% draws 33.3%\";\n"
        );
        let reread = parse(&text).unwrap();
        assert_eq!(reread.len(), 1);
        assert!(
            build(
                tsv.as_bytes(),
                &BuildSettings {
                    count: 2,
                    ..settings
                }
            )
            .is_err()
        );
    }
}
