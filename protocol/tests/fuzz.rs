//! Seeded fuzzing of the real binary: thousands of random and mutated
//! command lines (valid commands with bad numbers, shuffled tokens, cut
//! FENs, binary junk), after which the engine must still answer `isready`
//! and play a legal move from a valid position.

mod common;

use std::time::Duration;

use common::{Engine, S0, legal_best, pos};

/// A small xorshift generator: reproducible without an external crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n as u64)).unwrap_or(0)
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Lines that are valid or nearly so; mutation turns them into garbage.
/// None of them starts a search without a limit (an infinite search would
/// hold every later line in the queue, which is correct but slow to test).
const SEEDS: &[&str] = &[
    "ucci",
    "uci",
    "isready",
    "position startpos",
    "position startpos moves h2e2 h9g7",
    "position fen rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves b0c2",
    "position fen 3k5/9/9/9/9/9/9/3n5/R8/4K4 w - - 0 1",
    "fen 4k4/9/9/9/4c4/9/4P4/9/9/3K5 b",
    "banmoves h2e2 b0c2",
    "go depth 1",
    "go nodes 300",
    "go movetime 5",
    "go time 50 increment 0",
    "go wtime 40 btime 40",
    "go depth 1 searchmoves h2e2 a3a4",
    "go depth 0",
    "go perft 1",
    "setoption hashsize 1",
    "setoption name Hash value 2",
    "setoption multipv 2",
    "setoption name Clear Hash",
    "setoption usemillisec true",
    "setoption bookfiles <empty>",
    "setoption name OwnBook value false",
    "probe startpos moves h2e2",
    "stop",
    "ponderhit draw",
    "ucinewgame",
    "debug off",
    "d",
    "eval",
];

const NOISE: &[&str] = &[
    "-1",
    "0",
    "99999999999999999999999999",
    "-99999999999",
    "nan",
    "1e9",
    "\t",
    "\r",
    "moves",
    "fen",
    "startpos",
    "name",
    "value",
    "depth",
    "infinite",
    "x",
    "\u{fffd}",
    "h2-e2",
    "I9I0",
    "//////////",
    "aé2",
    "h2€",
    "炮二平五",
    "",
];

/// Characters of more than one byte, put inside tokens so that byte-wise
/// slicing of a token would split one.
const WIDE: &[&str] = &["é", "€", "炮", "\u{1f600}"];

fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
    let mut tokens: Vec<String> = line.split(' ').map(str::to_string).collect();
    match rng.below(8) {
        0 => {
            let i = rng.below(tokens.len());
            tokens[i] = rng.pick(NOISE).to_string();
        }
        1 => {
            let i = rng.below(tokens.len() + 1);
            tokens.insert(i, rng.pick(NOISE).to_string());
        }
        2 => {
            let i = rng.below(tokens.len());
            tokens.remove(i);
        }
        3 => {
            let (i, j) = (rng.below(tokens.len()), rng.below(tokens.len()));
            tokens.swap(i, j);
        }
        4 => {
            // Binary junk.
            let n = rng.below(40);
            return (0..n)
                .map(|_| u8::try_from(rng.next() & 0xff).unwrap_or(0))
                .filter(|&b| b != b'\n')
                .collect();
        }
        5 => {
            // Cut anywhere, even inside a UTF-8 sequence.
            let bytes = line.as_bytes();
            return bytes[..rng.below(bytes.len() + 1)].to_vec();
        }
        6 => {
            // A wide character in place of one character of a token.
            let i = rng.below(tokens.len());
            let chars: Vec<char> = tokens[i].chars().collect();
            let at = rng.below(chars.len() + 1);
            let head: String = chars[..at].iter().collect();
            let tail: String = chars[(at + 1).min(chars.len())..].iter().collect();
            tokens[i] = head + rng.pick(WIDE) + &tail;
        }
        _ => {}
    }
    let sep = rng.pick(&[" ", "  ", "\t", " \t "]);
    tokens.join(sep).into_bytes()
}

fn session(seed: u64, lines: usize) {
    let mut rng = Rng(seed);
    let mut e = Engine::start();
    let mut sent = Vec::new();
    for n in 0..lines {
        let seed_line = rng.pick(SEEDS);
        let bytes = if rng.below(3) == 0 {
            seed_line.as_bytes().to_vec()
        } else {
            mutate(&mut rng, seed_line)
        };
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
