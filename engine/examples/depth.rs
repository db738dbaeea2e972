//! Prints one line per completed iteration of a search of a FEN, for
//! time-to-depth measurements:
//! `cargo run --release -p engine --example depth -- [--threads N] <depth> [<hash MB>] [<FEN>]`.

use std::time::Instant;

use board::Position;
use engine::{Engine, Event, Limits};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut threads = 1;
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        threads = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(0);
        args.drain(i..(i + 2).min(args.len()));
    }
    let depth = args.first().and_then(|d| d.parse().ok()).unwrap_or(10);
    let hash = args.get(1).and_then(|h| h.parse().ok()).unwrap_or(16);
    let fen = args.get(2).map_or(board::START_FEN, String::as_str);
    let pos = match Position::from_fen(fen) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("depth: {e}");
            std::process::exit(2);
        }
    };
    let mut engine = Engine::new();
    if let Err(e) = engine.set_hash_mb(hash) {
        eprintln!("depth: {e}");
        std::process::exit(2);
    }
    if let Err(e) = engine.set_threads(threads) {
        eprintln!("depth: {e}");
        std::process::exit(2);
    }
    let start = Instant::now();
    engine.start(
        pos,
        Limits { depth: Some(depth), ..Limits::default() },
        Box::new(move |ev| {
            if let Event::Iteration(r) = ev {
                let pv: Vec<String> = r.pv.iter().take(6).map(ToString::to_string).collect();
                println!(
                    "depth {:>2} seldepth {:>2} score {} nodes {:>10} time {:>7.3} s nps {:>8} hashfull {:>4} pv {}",
                    r.depth,
                    r.seldepth,
                    r.score,
                    r.nodes,
                    start.elapsed().as_secs_f64(),
                    r.nps,
                    r.hashfull,
                    pv.join(" ")
                );
            }
        }),
    );
    let r = engine.wait();
    // As a GUI reads it: `bestmove h2e2 ponder h9g7`, or `bestmove (none)`.
    match (r.best, r.ponder) {
        (Some(best), Some(ponder)) => println!("bestmove {best} ponder {ponder}"),
        (Some(best), None) => println!("bestmove {best}"),
        (None, _) => println!("bestmove (none)"),
    }
}
