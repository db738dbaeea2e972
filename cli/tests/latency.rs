//! Responsiveness figures, measured and printed, never asserted: the
//! `isready` round trip and the `stop` → `bestmove` delay during a search
//! with a 1 GB table, median and worst of 100 each; and the time from `go`
//! to a book move from the start position with a long clock, the book
//! check included, median and worst of 50 from an empty table.
//!
//! Run with `cargo test --release -p chariot-cli --test latency -- --ignored --nocapture`.

mod common;

use std::time::{Duration, Instant};

use common::{Engine, SOON};

fn summary(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let median = samples[samples.len() / 2];
    let worst = samples[samples.len() - 1];
    println!(
        "{name}: median {:.3} ms, worst {:.3} ms over {}",
        median.as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3,
        samples.len()
    );
}

#[test]
#[ignore = "a measurement, not a check; run it with --release --ignored --nocapture"]
fn latency_with_1gb_table() {
    let mut e = Engine::ucci();
    e.send("setoption hashsize 1024");
    e.sync();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(500));
    let mut ready = Vec::new();
    for _ in 0..100 {
        let t0 = Instant::now();
        e.send("isready");
        let (_, _, at) = e.wait_for("readyok", SOON, |l| l == "readyok");
        ready.push(at.duration_since(t0));
        std::thread::sleep(Duration::from_millis(5));
    }
    e.send("stop");
    e.final_line(SOON);
    let mut stop = Vec::new();
    for _ in 0..100 {
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(50));
        let t0 = Instant::now();
        e.send("stop");
        let (_, _, at) = e.final_line(SOON);
        stop.push(at.duration_since(t0));
    }
    summary("isready -> readyok during a search", ready);
    summary("stop -> bestmove", stop);
}

#[test]
#[ignore = "a measurement, not a check; run it with --release --ignored --nocapture"]
fn book_move_with_a_long_clock() {
    let mut e = Engine::ucci();
    let mut took = Vec::new();
    for _ in 0..50 {
        took.push(e.timed_go_from_start("go time 600000 increment 0").2);
    }
    summary(
        "go -> book move (start position, 10 min clock, checked)",
        took,
    );
}
