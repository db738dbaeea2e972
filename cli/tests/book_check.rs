//! The book check (`docs/book-formats.md` §3, `docs/ucci.md` §4): from the
//! start position the book's main lines are played at once whatever the
//! clock, the choice among them follows the weights, a book move that
//! hangs a chariot is refused for the search's move, and the session
//! answers while the check runs.

mod common;

use std::time::Duration;

use board::{Move, Position};
use common::{Engine, SOON, legal_best};
use protocol::command::Command;
use protocol::output::{Captured, Output};
use protocol::session::{Input, Session};

/// Red's a-file pawn is gone, so the chariot can take the pawn on a6 —
/// where Black's chariot takes it back: a chariot for a pawn.
const HANGING: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/2P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// The built-in book's moves from the start position, with their weights.
fn start_candidates() -> Vec<(Move, u32)> {
    let set = book::BookSet::open(book::BUILTIN_SPEC).expect("the built-in book");
    set.candidates(&Position::startpos())
}

/// From the start position, with ten minutes on the clock, the book move
/// comes at once and the check keeps it, every time. A search planning on
/// that clock would take about 20 s (a thirtieth of it); the bound is
/// generous for a debug build on a loaded machine, while a release build
/// answers in about 20 ms (`docs/book-formats.md` §3).
#[test]
fn the_main_line_is_played_at_once_with_a_long_clock() {
    let candidates = start_candidates();
    let mut e = Engine::ucci();
    for _ in 0..5 {
        let (before, line, took) = e.timed_go_from_start("go time 600000 increment 0");
        assert!(took < Duration::from_secs(3), "{took:?}: {before:?}");
        let m = legal_best(&line, &Position::startpos());
        assert!(
            candidates.iter().any(|&(c, _)| c == m),
            "{m} is not a book move"
        );
        let played = format!("info string book move {m} played");
        assert!(
            before.iter().any(|l| l.starts_with(&played)),
            "no verdict for {m}: {before:?}"
        );
        assert!(!before.iter().any(|l| l.contains("refused")), "{before:?}");
    }
    e.assert_protocol_only();
}

/// Runs a whole session in-process on `lines` (batch mode, so every `go`
/// runs to its end before the next line) with the book's random state
/// `seed`; returns its output.
fn batch_session(lines: &[String], seed: u64) -> String {
    let (tx, rx) = crossbeam_channel::unbounded();
    for line in std::iter::once("setoption batch true").chain(lines.iter().map(String::as_str)) {
        tx.send(Input::Line(line.parse::<Command>())).expect("send");
    }
    tx.send(Input::Eof).expect("send");
    drop(tx);
    let captured = Captured::default();
    Session::new(Output::new(Box::new(captured.clone())))
        .with_book_seed(seed)
        .run(&rx);
    captured.text()
}

/// Across many games the move played follows the book's weights: with a
/// fixed seed, the session plays exactly the picks of a book set with the
/// same seed (the check never overrules one of them), and each move's
/// share is within four standard deviations of its weight's.
#[test]
fn the_choice_follows_the_weights() {
    const TRIES: usize = 300;
    const SEED: u64 = 0x5eed_b00c;
    let start = Position::startpos();
    let mut lines = Vec::new();
    for _ in 0..TRIES {
        lines.push("position startpos".to_string());
        lines.push("go time 600000 increment 0".to_string());
    }
    let text = batch_session(&lines, SEED);
    let played: Vec<Move> = text
        .lines()
        .filter(|l| l.starts_with("bestmove"))
        .map(|l| legal_best(l, &start))
        .collect();
    assert_eq!(played.len(), TRIES, "{text}");
    assert!(!text.contains("refused"), "{text}");
    let mut twin = book::BookSet::open(book::BUILTIN_SPEC)
        .expect("the built-in book")
        .with_seed(SEED);
    let picks: Vec<Move> = (0..TRIES)
        .map(|_| twin.pick(&start, 100).expect("a book move").mv)
        .collect();
    assert_eq!(
        played, picks,
        "the session played other moves than the book chose"
    );
    let candidates = start_candidates();
    let total: u32 = candidates.iter().map(|&(_, w)| w).sum();
    #[allow(clippy::cast_precision_loss)]
    for &(m, w) in &candidates {
        let p = f64::from(w) / f64::from(total);
        let n = TRIES as f64;
        let count = played.iter().filter(|&&x| x == m).count() as f64;
        let sigma = (n * p * (1.0 - p)).sqrt();
        assert!(
            (count - n * p).abs() <= 4.0 * sigma + 1.0,
            "{m}: played {count} times in {TRIES}, weight {w} of {total} expects {:.1}",
            n * p
        );
    }
    // The main line is the most played, as its weight (58 %) says.
    let main = candidates[0].0;
    assert_eq!(main.to_string(), "h2e2");
    assert!(played.iter().filter(|&&m| m == main).count() * 2 > TRIES);
}

/// Writes a one-position book proposing `mv` in `fen`, weight 100, in a
/// scratch directory the test keeps as long as it needs the book.
fn tiny_book(name: &str, fen: &str, mv: &str) -> (test_support::Scratch, String) {
    let book = book::text::import(&format!("{fen}\t{mv}\t100\t1\t0\t0\n")).expect("a book");
    let dir = test_support::scratch_dir("book-check");
    let path = dir.join(format!("{name}.book"));
    std::fs::write(&path, book.to_bytes()).expect("write book");
    let path = path.display().to_string();
    (dir, path)
}

/// A book move that loses a chariot for a pawn is refused, and the move
/// of the search that follows is played.
#[test]
fn a_book_blunder_is_refused_for_the_searchs_move() {
    let (_dir, path) = tiny_book("hanging", HANGING, "a0a6");
    let pos = Position::from_fen(HANGING).expect("a legal position");
    for dialect in ["ucci", "uci"] {
        let mut e = if dialect == "ucci" {
            Engine::ucci()
        } else {
            Engine::uci()
        };
        e.send(&format!("setoption bookfiles {path}"));
        assert!(e.sync().is_empty(), "the book opens");
        e.send_all(&[
            &format!("position fen {HANGING}"),
            "go wtime 60000 btime 60000 time 60000",
        ]);
        let (before, line, _) = e.final_line(SOON);
        let m = legal_best(&line, &pos);
        assert_ne!(m.to_string(), "a0a6", "{dialect}: {before:?}");
        let announced = before
            .iter()
            .position(|l| l == "info string book move a0a6 among a0a6(100); checking it by search")
            .unwrap_or_else(|| panic!("{dialect}: no announcement: {before:?}"));
        let refused = before
            .iter()
            .position(|l| {
                l.starts_with("info string book move a0a6 refused: at depth 6 it scores ")
            })
            .unwrap_or_else(|| panic!("{dialect}: not refused: {before:?}"));
        assert!(announced < refused, "{before:?}");
        assert!(
            before[refused].ends_with("; searching for another move"),
            "{}",
            before[refused]
        );
        // The search that chose the move reported after the refusal.
        assert!(
            before[refused..]
                .iter()
                .any(|l| l.starts_with("info depth ") && l.contains(" pv ")),
            "{dialect}: {before:?}"
        );
        e.assert_protocol_only();
    }
}

/// `isready` and `stop` are answered while the check searches, and a check
/// stopped before its verdict plays the book move.
#[test]
fn the_session_answers_during_the_check() {
    let candidates = start_candidates();
    let mut e = Engine::ucci();
    for stop in [false, true] {
        e.send_all(&["setoption newgame", "position startpos"]);
        e.sync();
        e.send_all(&["go time 600000 increment 0", "isready"]);
        if stop {
            e.send("stop");
        }
        let (before, line, _) = e.final_line(SOON);
        let m = legal_best(&line, &Position::startpos());
        assert!(candidates.iter().any(|&(c, _)| c == m), "{m}");
        // `readyok` came before the final line, or right after it when
        // the check had already ended.
        if !before.iter().any(|l| l == "readyok") {
            e.expect_line("readyok");
        }
        // A `stop` that came after the final line is answered as when idle.
        let after = e.sync();
        assert!(
            after.is_empty() || (stop && after == ["nobestmove"]),
            "one final line only: {after:?}"
        );
    }
    e.assert_protocol_only();
}
