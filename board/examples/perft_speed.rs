//! Perft speed benchmark:
//! `cargo run --release -p board --example perft_speed [DEPTH] [full|copy]`.
//!
//! Prints the leaf count, time and leaves per second for the start position:
//! with bulk counting at the last ply (default), making and unmaking every
//! leaf (`full`), or copy-make every leaf (`copy`: each child is a clone of
//! its parent with the move made, the parent left untouched), which is the
//! alternative to make/unmake the board crate was measured against.

use std::time::Instant;

use board::Position;

/// Copy-make perft: the parent is never modified.
fn perft_copy(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for m in pos.legal_moves() {
        let mut child = pos.clone();
        child.make_move(m);
        total += perft_copy(&child, depth - 1);
    }
    total
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let depth = args.get(1).and_then(|d| d.parse().ok()).unwrap_or(5);
    let mode = args.get(2).map_or("bulk", String::as_str);
    let mut pos = Position::startpos();
    let start = Instant::now();
    let (nodes, what) = match mode {
        "full" => (pos.perft_full(depth), "make/unmake, every leaf made"),
        "copy" => (perft_copy(&pos, depth), "copy-make, every leaf made"),
        _ => (pos.perft(depth), "bulk-counted last ply"),
    };
    let secs = start.elapsed().as_secs_f64();
    #[allow(clippy::cast_precision_loss)]
    let rate = nodes as f64 / secs / 1e6;
    println!("perft({depth}) = {nodes} in {secs:.3} s: {rate:.1} M leaves/s ({what})");
}
