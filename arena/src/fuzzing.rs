//! The property the `arena_config` fuzz target checks, written once:
//! `fuzz/` (cargo-fuzz, nightly) calls it on generated inputs, and
//! `arena/tests/fuzz_corpus.rs` (stable) replays the seed corpus and every
//! past finding through it.
//!
//! The arena's inputs are its command line and its openings file. One fuzz
//! input carries both: the first line is the command line (words split on
//! white space, after the program name), the rest is the openings file that
//! any `--openings PATH` reads. Nothing is started: the configuration is
//! built exactly as a run would build it, then checked.

use std::time::Duration;

use anyhow::Result;
use board::Position;

use crate::cli;
use crate::config::TimeControl;
use crate::openings::{self, Opening};
use crate::stats::Pentanomial;
use crate::tournament::Tournament;

/// `arena_config`: never panics on any command line or openings text, and
/// what it accepts is sound — two or more distinctly named engines, at
/// least one game and one worker, a clock that prints and re-reads as
/// itself, SPRT rates and bounds that make sense, and openings that are
/// legal positions with a move to play, whose FENs round-trip. Returns
/// whether the command line was accepted as a tournament, so that a test
/// can tell the check ran.
pub fn config(data: &[u8]) -> bool {
    let text = String::from_utf8_lossy(data);
    let (line, file) = text.split_once('\n').unwrap_or((&text, ""));
    // The openings text is an input of its own, whatever the command says.
    if let Ok(list) = openings::parse(file) {
        check_openings(&list);
    }
    let words: Vec<String> = std::iter::once("arena")
        .chain(line.split_whitespace())
        .map(str::to_string)
        .collect();
    let load = |_: &std::path::Path| -> Result<Vec<Opening>> { openings::parse(file) };
    match cli::configure_from_words(&words, load) {
        Ok(Some(tournament)) => {
            check_tournament(&tournament);
            true
        }
        Ok(None) | Err(_) => false,
    }
}

fn check_openings(list: &[Opening]) {
    assert!(!list.is_empty(), "an accepted openings file is empty");
    for opening in list {
        let pos = &opening.position;
        let fen = pos.fen();
        let again = Position::from_fen(&fen).unwrap_or_else(|e| panic!("{fen:?} re-read: {e}"));
        assert_eq!(again.key(), pos.key(), "{fen} changes its key when re-read");
        assert!(pos.has_legal_move(), "opening {fen} has no legal move");
    }
}

fn check_tournament(t: &Tournament) {
    assert!(t.engines.len() >= 2, "a tournament of {}", t.engines.len());
    for (i, e) in t.engines.iter().enumerate() {
        assert!(
            t.engines[..i].iter().all(|o| o.name != e.name),
            "two engines named {:?}",
            e.name
        );
    }
    assert!(t.games >= 1 && t.concurrency >= 1, "no game or no worker");
    assert!(t.settings.max_plies >= 1, "a game of no plies");
    assert!(!t.settings.move_timeout.is_zero(), "no time for a move");
    if let TimeControl::Clock { base, increment } = t.settings.tc {
        assert!(!base.is_zero(), "a clock without base time");
        let printed = t.settings.tc.to_string();
        match TimeControl::parse_clock(&printed) {
            Ok(TimeControl::Clock {
                base: b,
                increment: i,
            }) => {
                let close = |x: Duration, y: Duration| x.abs_diff(y) <= Duration::from_micros(1);
                assert!(
                    close(b, base) && close(i, increment),
                    "{printed} re-reads differently"
                );
            }
            other => panic!("clock {printed} re-reads as {other:?}"),
        }
    }
    if let Some(sprt) = &t.sprt {
        assert_ne!(sprt.elo0, sprt.elo1, "SPRT with equal bounds");
        let (lower, upper) = sprt.bounds();
        assert!(
            lower.is_finite() && upper.is_finite() && lower < 0.0 && upper > 0.0,
            "SPRT bounds {lower} {upper}"
        );
        // The statistics of any tally must not panic (a NaN only delays
        // the verdict to the game cap, which the run reports).
        for counts in [
            [0, 0, 0, 0, 0],
            [1, 0, 0, 0, 0],
            [0, 0, 3, 0, 0],
            [5, 1, 7, 2, 9],
        ] {
            let _ = sprt.state(sprt.llr(&Pentanomial { counts }));
        }
    }
    check_openings(&t.openings);
}
