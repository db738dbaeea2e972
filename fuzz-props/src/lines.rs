//! Random protocol lines for the stable fuzzers: a small reproducible
//! generator, lines that are valid or nearly so, and the mutations that
//! turn them into garbage (noise tokens, shuffles, cuts inside UTF-8,
//! wide characters, binary junk). `cli/tests/fuzz.rs` sends them to
//! the real binary; `fuzz-props/examples/storm.rs` feeds millions of them
//! through [`super::protocol`]'s property in-process.

use rand::{Rng as _, RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The fuzzers' random stream: a seeded PCG, so a failing seed replays.
pub struct Rng(Pcg64Mcg);

impl Rng {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(Pcg64Mcg::seed_from_u64(seed))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.0.gen_range(0..n.max(1))
    }

    /// One of `items` (not empty).
    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Lines that are valid or nearly so; mutation turns them into garbage.
/// None of them starts a search without a limit (an infinite search would
/// hold every later line in the queue, which is correct but slow to test).
pub const SEEDS: &[&str] = &[
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

/// Tokens put into lines.
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

/// `line` mutated at random (one time in eight, only re-joined with
/// different white space).
pub fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
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
                .map(|_| u8::try_from(rng.next_u64() & 0xff).unwrap_or(0))
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

/// A random line: one of [`SEEDS`] (which it returns too), kept as it is
/// one time in three, mutated otherwise. No line ending.
pub fn random_line(rng: &mut Rng) -> (&'static str, Vec<u8>) {
    let seed_line = rng.pick(SEEDS);
    let bytes = if rng.below(3) == 0 {
        seed_line.as_bytes().to_vec()
    } else {
        mutate(rng, seed_line)
    };
    (seed_line, bytes)
}
