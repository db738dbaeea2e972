//! Seeded fuzzing of the real binary: thousands of random and mutated
//! command lines (valid commands with bad numbers, shuffled tokens, cut
//! FENs, binary junk), after which the engine must still answer `isready`
//! and play a legal move from a valid position. The lines come from
//! `fuzz_props::lines`.

mod common;

use std::time::Duration;

use common::{Engine, S0, legal_best, pos};
use fuzz_props::lines::{Rng, SEEDS, random_line};

fn session(seed: u64, lines: usize) {
    let mut rng = Rng::new(seed);
    let mut e = Engine::start();
    let mut sent = Vec::new();
    for n in 0..lines {
        let (seed_line, bytes) = random_line(&mut rng);
        // A CR ends a line as LF does, so the engine reads each CR-separated
        // piece as a line of its own; each is made safe on its own.
        let pieces: Vec<Vec<u8>> = bytes
            .split(|&b| b == b'\r')
            .filter_map(|piece| safe_line(piece.to_vec(), seed_line))
            .collect();
        if pieces.is_empty() {
            continue;
        }
        let mut bytes = pieces.join(&b'\r');
        bytes.extend_from_slice(if rng.below(4) == 0 { b"\r\n" } else { b"\n" });
        e.send_raw(&bytes);
        sent.push(bytes);
        // Keep the pipe from filling while the engine is busy.
        if n % 100 == 99 {
            e.sync_long();
        }
    }
    // Whatever happened, the engine must be alive and sane. `isready` is
    // answered at once even during a search, so wait until the queue of
    // short searches has drained and nothing more arrives.
    e.send("stop");
    e.send("ponderhit");
    loop {
        e.sync_long();
        if e.quiet_for(Duration::from_millis(700)).is_empty() {
            break;
        }
    }
    let fen = format!("{S0} w - - 0 1");
    e.send_all(&[
        "setoption multipv 1",
        "ucci",
        &format!("position fen {fen} moves h2e2"),
        "go depth 3",
    ]);
    let (_, line, _) = e.final_line(Duration::from_secs(60));
    legal_best(&line, &pos(Some(&fen), &["h2e2"]));
    e.assert_ascii();
    assert!(sent.len() > lines / 2);
}

/// `line` made harmless to the test's pace, or `None` to leave it out:
/// never a search held until `stop`, a deep perft or a long search (a
/// `movetime` bound is appended to every go), never a big table, never
/// batch mode.
fn safe_line(mut bytes: Vec<u8>, seed_line: &str) -> Option<Vec<u8>> {
    let text = String::from_utf8_lossy(&bytes).to_lowercase();
    let words: Vec<&str> = text.split_ascii_whitespace().collect();
    if words.first() == Some(&"go") {
        if ["perft", "infinite", "ponder"]
            .iter()
            .any(|w| words.contains(w))
        {
            bytes = b"go depth 1".to_vec();
        } else {
            bytes.extend_from_slice(b" movetime 30");
        }
    }
    if text.contains("hash") && !SEEDS.contains(&seed_line) {
        bytes = b"setoption hashsize 2".to_vec();
    }
    if words.first() == Some(&"setoption") && words.contains(&"batch") {
        return None;
    }
    Some(bytes)
}

trait SyncLong {
    fn sync_long(&mut self);
    fn assert_ascii(&self);
}

impl SyncLong for Engine {
    /// `isready` with a deadline long enough for the queued searches.
    fn sync_long(&mut self) {
        self.send("isready");
        self.wait_for("readyok", Duration::from_secs(60), |l| l == "readyok");
    }

    fn assert_ascii(&self) {
        for line in &self.seen {
            assert!(line.is_ascii(), "non-ASCII output {line:?}");
        }
    }
}

#[test]
fn fuzz_seeded_sessions() {
    // Two sessions in parallel threads keep the wall time low.
    let handles: Vec<_> = [0x9e37_79b9_7f4a_7c15_u64, 0xd1b5_4a32_d192_ed03]
        .into_iter()
        .map(|seed| std::thread::spawn(move || session(seed, 1500)))
        .collect();
    for h in handles {
        h.join().expect("fuzz session passed");
    }
}
