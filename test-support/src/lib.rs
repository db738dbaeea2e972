//! Helpers the workspace's tests share, so that each lives once: scratch
//! directories, moves from text, a search to a depth, and the brute-force
//! mate finder the search's mate scores are checked against. Only tests use
//! this crate (a dev-dependency); nothing in it is part of the engine.
//! The board and engine crates' own unit tests cannot use it (it depends
//! on them).
//!
//! Where tests go (CONTRIBUTING.md, "Tests"): unit tests in the module
//! they test, a crate's integration tests in its `tests/`, black-box suites
//! in the `tests` crate, and what two of them would otherwise copy here.

use std::ops::Deref;
use std::path::Path;
use std::time::Duration;

use board::{Move, Position};
use engine::{Engine, Limits, SearchResult};
use tempfile::TempDir;

/// Deadline for a reply a protocol test waits for without timing it;
/// generous so that a loaded 2-core machine never fails it.
pub const SOON: Duration = Duration::from_secs(10);

/// A time bound of the protocol contract (`docs/ucci.md`): as written in a
/// release build, ten times as long in a debug build, which runs many
/// times slower beside the whole workspace's tests.
#[must_use]
pub fn contract_bound(contract_ms: u64) -> Duration {
    Duration::from_millis(if cfg!(debug_assertions) {
        contract_ms * 10
    } else {
        contract_ms
    })
}

/// The move written `text` in ICCS (`h2e2`).
///
/// # Panics
/// If `text` is no move: a test's own typo.
#[must_use]
#[track_caller]
pub fn mv(text: &str) -> Move {
    text.parse().expect("a test move in ICCS")
}

/// Limits of a search to `depth` plies, nothing else.
#[must_use]
pub fn depth(depth: u32) -> Limits {
    Limits {
        depth: Some(depth),
        ..Limits::default()
    }
}

/// Limits of `go mate moves nodes N`: the search ends after the first
/// iteration that shows a mate in at most `moves` moves, or at `nodes`.
#[must_use]
pub fn mate(moves: u32, nodes: u64) -> Limits {
    Limits {
        mate: Some(moves),
        nodes: Some(nodes),
        ..Limits::default()
    }
}

/// `engine`'s search of `pos` to `plies`, waited for.
pub fn search_depth(engine: &mut Engine, pos: Position, plies: u32) -> SearchResult {
    engine.start(pos, depth(plies), Box::new(|_| {}));
    engine.wait()
}

/// The slow twin of the search's mate scores: whether the side to move
/// can leave the opponent without a legal move within `plies` (odd)
/// plies, whatever the opponent does. Brute force, so keep `plies` small.
pub fn forces_no_move(p: &mut Position, plies: u32) -> bool {
    p.legal_moves().into_iter().any(|m| wins_after(p, m, plies))
}

/// Whether the side to move, having played `m`, leaves the opponent
/// without a legal move within `plies` (odd) plies, whatever it answers.
pub fn wins_after(p: &mut Position, m: Move, plies: u32) -> bool {
    p.make_move(m);
    let replies = p.legal_moves();
    let wins = replies.is_empty()
        || (plies >= 3
            && replies.iter().all(|&r| {
                p.make_move(r);
                let w = forces_no_move(p, plies - 2);
                p.unmake_move();
                w
            }));
    p.unmake_move();
    wins
}

/// A fresh, empty directory for one test, removed when dropped (when the
/// test ends, passing or panicking). It reads as the directory's path.
#[derive(Debug)]
pub struct Scratch(TempDir);

/// A new scratch directory whose name starts with `chariot-{name}-`, so
/// that one left behind by a killed run names its test.
///
/// # Panics
/// If the system's temporary directory cannot be written.
#[must_use]
pub fn scratch_dir(name: &str) -> Scratch {
    let dir = tempfile::Builder::new()
        .prefix(&format!("chariot-{name}-"))
        .tempdir()
        .expect("a scratch directory in the system's temporary directory");
    Scratch(dir)
}

impl Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_dirs_are_unique_empty_and_removed_on_drop() {
        let a = scratch_dir("support");
        let b = scratch_dir("support");
        assert_ne!(a.to_path_buf(), b.to_path_buf());
        assert!(a.is_dir() && std::fs::read_dir(&*a).unwrap().next().is_none());
        std::fs::write(a.join("file"), b"x").unwrap();
        let path = a.to_path_buf();
        drop(a);
        assert!(!path.exists());
    }
}
