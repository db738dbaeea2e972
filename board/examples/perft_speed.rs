//! Perft speed benchmark: `cargo run --release -p board --example perft_speed [DEPTH] [full]`.
//!
//! Prints the leaf count, time and leaves per second for the start position,
//! with bulk counting at the last ply (default) or making every leaf (`full`).

use std::time::Instant;

use board::Position;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth = args.get(1).and_then(|d| d.parse().ok()).unwrap_or(5);
    let full = args.get(2).is_some_and(|a| a == "full");
    let mut pos = Position::startpos();
    let start = Instant::now();
    let nodes = if full {
        pos.perft_full(depth)
    } else {
        pos.perft(depth)
    };
    let secs = start.elapsed().as_secs_f64();
    #[allow(clippy::cast_precision_loss)]
    let rate = nodes as f64 / secs / 1e6;
    println!(
        "perft({depth}) = {nodes} in {secs:.3} s: {rate:.1} M leaves/s ({})",
        if full {
            "every leaf made"
        } else {
            "bulk-counted last ply"
        }
    );
}
