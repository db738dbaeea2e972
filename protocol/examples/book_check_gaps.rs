//! Runs the book check (`engine::play::book_check`) on every move of the
//! built-in book along its main lines and prints what it decides, for
//! choosing and re-checking the check's depth and margin
//! (`docs/book-formats.md` §3):
//! `cargo run --release -p protocol --example book_check_gaps -- [PLIES] [SHARE %]`.
//!
//! From the start position it follows every book move holding at least
//! SHARE per cent (default 5) of its position's weight, PLIES plies deep
//! (default 16), and checks each book move of each position reached, with
//! a fresh table per move and no clock. It prints the verdicts, the gap
//! between the search's best move and the book move (largest first), and
//! the time each check took. A measurement, not a test: it asserts nothing.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use board::{Move, Position};
use engine::play::book_check::{BookCheck, CHECK_DEPTH, REFUSAL_MARGIN, Step, Verdict};
use engine::{Engine, Limits};

/// One checked book move.
struct Checked {
    gap: i32,
    fen: String,
    mv: Move,
    share: f64,
    ply: usize,
}

/// Runs the check of `mv` in `pos` to its verdict; returns it and the time.
fn check(engine: &mut Engine, pos: &Position, mv: Move) -> (Verdict, Duration) {
    let started = Instant::now();
    engine.new_game();
    let (mut check, mut limits) = BookCheck::new(mv, Limits::default());
    loop {
        engine.start(pos.clone(), limits, Box::new(|_| {}));
        let result = engine.wait();
        match check.next(&result, started.elapsed()) {
            Step::Search(next) => limits = next,
            Step::Play(v) | Step::Refuse(v, _) => return (v, started.elapsed()),
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let plies: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(16);
    let min_share: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(5.0) / 100.0;
    let set = match book::BookSet::open(book::BUILTIN_SPEC) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("book_check_gaps: {e}");
            std::process::exit(2);
        }
    };
    let mut engine = Engine::new();
    let mut frontier = vec![Position::startpos()];
    let mut seen = HashSet::new();
    let mut checked = Vec::new();
    let (mut agreed, mut unchecked) = (0usize, 0usize);
    let mut times = Vec::new();
    for ply in 0..plies {
        let mut next = Vec::new();
        for pos in &frontier {
            if !seen.insert(pos.key()) {
                continue;
            }
            let candidates = set.candidates(pos);
            let total: u32 = candidates.iter().map(|&(_, w)| w).sum();
            for &(mv, weight) in &candidates {
                let share = f64::from(weight) / f64::from(total.max(1));
                let (verdict, took) = check(&mut engine, pos, mv);
                times.push(took);
                match verdict {
                    Verdict::Agreed { .. } => agreed += 1,
                    Verdict::Unchecked { .. } => unchecked += 1,
                    Verdict::Compared { gap, .. } => checked.push(Checked {
                        gap,
                        fen: pos.fen(),
                        mv,
                        share,
                        ply,
                    }),
                }
                if share >= min_share {
                    let mut after = pos.clone();
                    after.make_move(mv);
                    next.push(after);
                }
            }
        }
        frontier = next;
    }
    checked.sort_by_key(|c| std::cmp::Reverse(c.gap));
    let moves = agreed + unchecked + checked.len();
    println!(
        "{moves} book moves in {} positions, {plies} plies, depth {CHECK_DEPTH}: \
         {agreed} the search's own choice, {unchecked} unchecked, {} compared",
        seen.len(),
        checked.len()
    );
    let refused = checked.iter().filter(|c| c.gap > REFUSAL_MARGIN).count();
    println!("refused (gap above {REFUSAL_MARGIN}): {refused}");
    for bound in [50, 100, 150, 200, 250, 300] {
        let over = checked.iter().filter(|c| c.gap > bound).count();
        println!("gap above {bound:>3}: {over}");
    }
    if let Some(median) = checked.get(checked.len() / 2) {
        println!("median gap of the compared moves: {}", median.gap);
    }
    println!("largest gaps:");
    for c in checked.iter().take(10) {
        println!(
            "{:>5}  {}  ply {:>2}  share {:>5.1} %  {}",
            c.gap,
            c.mv,
            c.ply,
            c.share * 100.0,
            c.fen
        );
    }
    times.sort();
    if let (Some(max), Some(median)) = (times.last(), times.get(times.len() / 2)) {
        let p99 = times[times.len() * 99 / 100];
        println!(
            "check time: median {:.1} ms, 99th percentile {:.1} ms, max {:.1} ms",
            median.as_secs_f64() * 1000.0,
            p99.as_secs_f64() * 1000.0,
            max.as_secs_f64() * 1000.0
        );
    }
}
