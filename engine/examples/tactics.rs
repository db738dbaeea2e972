//! The tactical regression suite: searches each position of an EPD file
//! of decisive mistakes (`am`: the move once played, `pm`: the better one)
//! and counts how many the engine now avoids. `chariot epd` runs the same
//! file as a pass/fail suite; this example adds the count of `pm` moves
//! found.
//!
//! `cargo run --release -p engine --example tactics -- [--ms N] [--inc N] [--nodes N] [FILE]`
//!
//! `--ms`/`--inc` give the thinking time as a fixed time per move of
//! their sum (the yardstick is 600 ms + 50 ms: about what Chariot spends
//! on a hard move at 5 s + 0.05 s); `--nodes` gives a fixed node budget
//! instead (reproducible on a loaded machine).
//! The default file is `engine/data/mistakes.epd`. A measurement, not a
//! test: it prints, and asserts nothing.

use std::time::Duration;

use board::{Move, Position};
use engine::{Engine, Limits};

struct Case {
    fen: String,
    avoid: Move,
    better: Option<Move>,
}

/// The suite's positions with one `am` move each, through the EPD reader
/// `chariot epd` uses (`book::epd`); the `pm` move is optional.
fn load(text: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for record in book::epd::parse(text) {
        let r = match record {
            Ok(r) => r,
            Err(e) => {
                eprintln!("tactics: skipped {e}");
                continue;
            }
        };
        let better = r
            .operands("pm")
            .and_then(|ops| ops.first())
            .and_then(|m| book::notation::parse_any(&r.position, m).ok());
        match r.avoid.as_slice() {
            [avoid] => out.push(Case {
                fen: r.fen,
                avoid: *avoid,
                better,
            }),
            _ => eprintln!("tactics: skipped line {}: not one am move", r.line),
        }
    }
    out
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut ms, mut inc, mut nodes, mut file) = (600u64, 50u64, None, None);
    while let Some(a) = args.next() {
        let mut num = || args.next().and_then(|v| v.parse::<u64>().ok());
        match a.as_str() {
            "--ms" => ms = num().unwrap_or(ms),
            "--inc" => inc = num().unwrap_or(inc),
            "--nodes" => nodes = num(),
            _ => file = Some(a),
        }
    }
    let text = match &file {
        Some(f) => match std::fs::read_to_string(f) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("tactics: {f}: {e}");
                std::process::exit(2);
            }
        },
        None => include_str!("../data/mistakes.epd").to_string(),
    };
    let cases = load(&text);
    let (mut avoided, mut found) = (0, 0);
    for c in &cases {
        let Ok(pos) = Position::from_fen(&c.fen) else {
            continue;
        };
        // A fresh engine per position: the suite measures a fresh search.
        let mut engine = Engine::new();
        let limits = match nodes {
            Some(n) => Limits {
                nodes: Some(n),
                ..Limits::default()
            },
            None => Limits {
                movetime: Some(Duration::from_millis(ms + inc)),
                ..Limits::default()
            },
        };
        engine.start(pos, limits, Box::new(|_| {}));
        let r = engine.wait();
        let played = r
            .best
            .map_or_else(|| "(none)".to_string(), |m| m.to_string());
        let ok = r.best != Some(c.avoid);
        avoided += usize::from(ok);
        found += usize::from(c.better.is_some() && r.best == c.better);
        println!(
            "{} {played:>5} (avoid {}, better {}) depth {:>2} nodes {:>8} score {}  {}",
            if ok { "ok  " } else { "MISS" },
            c.avoid,
            c.better.map_or_else(|| "-".to_string(), |m| m.to_string()),
            r.depth,
            r.nodes,
            r.score,
            c.fen
        );
    }
    println!(
        "avoided {avoided} of {} ({:.0} %); played the better move in {found}",
        cases.len(),
        100.0 * avoided as f64 / cases.len().max(1) as f64
    );
}
