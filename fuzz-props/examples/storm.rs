//! A line storm: millions of random protocol lines through the fuzzing
//! property of whole sessions (`fuzz_props::protocol`: every `go`
//! tamed to depth 1, every `bestmove` and `ponder` checked legal where it
//! was played, never more `bestmove`s than `go`s), on stable and without
//! coverage instrumentation, so that the count of lines tried reaches the
//! millions that libFuzzer's whole-session inputs (about 30 a second) do
//! not. The lines come from `fuzz_props::lines`, the grammar of the
//! seeded test of the real binary.
//!
//! `cargo run --release -p fuzz-props --example storm -- [--lines N] [--seed S] [--threads T]`
//!
//! Each input is 64 random lines with LF or CRLF endings, fed to a fresh
//! session. A broken property stops the run: the input is written to
//! `storm-failure-SEED-N.txt` (replay it with
//! `cargo test -p fuzz-props --test fuzz_corpus` after copying it into
//! `fuzz/corpus/protocol/`) and the exit code is 1. Run it with
//! `MALLOC_MMAP_THRESHOLD_=131072` in the environment: each session frees
//! a 16 MB table, and glibc otherwise serves the next one from the heap
//! with a memset (ten times slower sessions).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use fuzz_props::lines::{Rng, random_line};

/// Lines per session: the most the property feeds to one.
const LINES_PER_INPUT: usize = 64;

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.windows(2)
        .find(|w| w[0] == name)
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(default)
}

/// One thread's share: inputs until `lines` lines are done or another
/// thread failed. Returns the `bestmove` lines checked, or the failing
/// input's file name.
fn storm(seed: u64, lines: u64, done: &AtomicU64, failed: &AtomicBool) -> Result<u64, String> {
    let mut rng = Rng::new(seed);
    let mut checked = 0u64;
    let mut sent = 0u64;
    let mut input_no = 0u64;
    while sent < lines && !failed.load(Ordering::Relaxed) {
        let mut input = Vec::new();
        for _ in 0..LINES_PER_INPUT {
            let (_, line) = random_line(&mut rng);
            input.extend_from_slice(&line);
            input.extend_from_slice(if rng.below(4) == 0 { b"\r\n" } else { b"\n" });
        }
        let n = fuzz_props::protocol_lines(&input) as u64;
        match catch_unwind(AssertUnwindSafe(|| fuzz_props::protocol(&input))) {
            Ok(bestmoves) => checked += bestmoves as u64,
            Err(_) => {
                failed.store(true, Ordering::Relaxed);
                let name = format!("storm-failure-{seed}-{input_no}.txt");
                return match std::fs::write(&name, &input) {
                    Ok(()) => Err(name),
                    Err(e) => Err(format!("{name} (could not be written: {e})")),
                };
            }
        }
        sent += n;
        input_no += 1;
        done.fetch_add(n, Ordering::Relaxed);
    }
    Ok(checked)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let lines: u64 = arg(&args, "--lines", 1_000_000);
    let seed: u64 = arg(&args, "--seed", 1);
    let threads: u64 = arg(&args, "--threads", 1).clamp(1, 64);
    let done = AtomicU64::new(0);
    let failed = AtomicBool::new(false);
    let start = Instant::now();
    let results = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (done, failed) = (&done, &failed);
                let share = lines / threads + u64::from(t < lines % threads);
                s.spawn(move || storm(seed.wrapping_mul(1000).wrapping_add(t), share, done, failed))
            })
            .collect();
        // Progress on stderr while the workers run.
        let mut last = 0;
        while workers.iter().any(|w| !w.is_finished()) {
            std::thread::sleep(std::time::Duration::from_millis(200));
            let n = done.load(Ordering::Relaxed);
            if n / 500_000 > last / 500_000 {
                let rate = n as f64 / start.elapsed().as_secs_f64();
                eprintln!("storm: {n} lines, {rate:.0} lines/s");
            }
            last = n;
        }
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|_| Err("a worker panicked".into())))
            .collect::<Vec<_>>()
    });
    let secs = start.elapsed().as_secs_f64();
    let n = done.load(Ordering::Relaxed);
    let mut checked = 0;
    for r in results {
        match r {
            Ok(c) => checked += c,
            Err(file) => {
                eprintln!("storm: a property broke; the input is in {file}");
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "storm: {n} lines in {secs:.0} s ({:.0} lines/s), seed {seed}, {threads} thread(s); {checked} bestmove lines checked legal; no property broken",
        n as f64 / secs
    );
    ExitCode::SUCCESS
}
