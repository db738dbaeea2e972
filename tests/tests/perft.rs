//! Perft against the published counts of `tests/data/perft.epd`.
//!
//! Lines whose count stays under the node budget run in every `cargo test`;
//! `cargo test --release -p chariot-tests --test perft -- --ignored` runs them all
//! (about 20 minutes on one core: depth 6 of the start position alone is
//! 5.4 billion leaves).

use board::Position;

const SUITE: &str = include_str!("../data/perft.epd");

/// Largest leaf count checked in an ordinary (non-ignored) run.
const BUDGET: u64 = 5_000_000;

fn run(min: u64, max: u64) -> usize {
    let mut checked = 0;
    for (n, line) in SUITE.lines().enumerate() {
        let mut parts = line.split(" ;");
        let fen = parts.next().expect("a FEN before the counts");
        let mut pos = Position::from_fen(fen).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        for part in parts {
            let (d, count) = part.trim().split_once(' ').expect("Dn count");
            let depth: u32 = d.trim_start_matches('D').parse().expect("depth");
            let count: u64 = count.parse().expect("count");
            if count < min || count > max {
                continue;
            }
            assert_eq!(
                pos.perft(depth),
                count,
                "line {} depth {depth}: {fen}",
                n + 1
            );
            checked += 1;
        }
    }
    checked
}

#[test]
fn perft_suite_within_budget() {
    assert!(run(0, BUDGET) > 100);
}

#[test]
#[ignore = "deep perft: billions of nodes, run with --release -- --ignored"]
fn perft_suite_deep() {
    run(BUDGET + 1, u64::MAX);
}
