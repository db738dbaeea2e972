//! Conformance transcripts against the real binary: the 30 cases of
//! `docs/ucci.md` §10 (`transcripts`, `case_NN_…`) and our own (`extra_…`),
//! covering every class of bad input, one module per part of the contract.
//! Ordering and content are checked exactly in every build. The
//! contract's time bounds are checked as written in a release build
//! (`cargo test --release -p chariot-cli --test conformance`, which
//! `.ci/run` runs); a debug build, many times slower and run beside the
//! whole workspace's tests, gets ten times as long
//! (`test_support::contract_bound`). The modules are one test binary, so
//! the engine is linked once.

#[path = "../common/mod.rs"]
mod common;

mod book;
mod extras;
mod go;
mod lines;
mod options;
mod positions;
mod transcripts;

use std::time::{Duration, Instant};

use common::{Engine, S0, SOON, legal_best, pos};
use test_support::contract_bound as bound;

/// Deadline for a shallow search to finish in a debug build.
const SEARCH: Duration = Duration::from_secs(30);

fn bestmove_of(e: &mut Engine, fen: Option<&str>, moves: &[&str]) -> board::Move {
    let (_, line, _) = e.final_line(SEARCH);
    legal_best(&line, &pos(fen, moves))
}

/// Sends `position`, `go depth 1` and checks the rejection pattern of §9 b.
fn rejected(position: &str, naming: &str) -> Engine {
    let mut e = Engine::ucci();
    e.send_all(&[position, "go depth 1"]);
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "nobestmove", "{before:?}");
    assert!(before.len() >= 2, "{before:?}");
    assert!(
        before.iter().all(|l| l.starts_with("info string ")),
        "{before:?}"
    );
    assert!(
        before[0].contains(naming),
        "{before:?} should name {naming}"
    );
    e
}
