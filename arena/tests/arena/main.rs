//! Black-box tests of the `arena` binary, one module per part of what it
//! promises: engine faults (`faults`), the games and their PGN (`games`),
//! the statistics and `arena pool` (`sprt`), opening suites
//! (`openings`) and the command line's life (`cli`). The harness shared
//! by them (the mock engine, scratch directories, reading the PGN the
//! arena writes, leak checks) is here. The modules are one test binary.

mod cli;
mod faults;
mod games;
mod openings;
mod sprt;

use board::{Color, Position};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

const MOCK: &str = env!("CARGO_BIN_EXE_mock-engine");

/// A fresh, empty scratch directory for one test, removed when it ends.
fn scratch(name: &str) -> test_support::Scratch {
    test_support::scratch_dir(&format!("arena-{name}"))
}

/// Runs the arena with `args`, failing the test if it takes longer than
/// `limit`; returns stdout.
fn run_arena(args: &[String], limit: Duration) -> String {
    let mut child = Command::new(ARENA)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("arena did not finish within {limit:?}: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "arena failed: {}\n{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(ToString::to_string).collect()
}

/// `--engine` arguments for two mock engines, `a` and `b`.
fn two_mocks() -> Vec<String> {
    let mut args = strings(&["--engine", "name=a", &format!("cmd={MOCK}")]);
    args.extend(strings(&["--engine", "name=b", &format!("cmd={MOCK}")]));
    args
}

/// A game of a PGN file the arena wrote, read by the project's one PGN
/// reader (`book::pgn`), with its tags by name.
struct PgnGame {
    tags: HashMap<String, String>,
    moves: Vec<String>,
    result_token: String,
}

fn parse_pgn(text: &str) -> Vec<PgnGame> {
    book::pgn::parse_games(text)
        .into_iter()
        .map(|g| PgnGame {
            tags: g.tags.into_iter().collect(),
            moves: g.moves,
            result_token: g
                .movetext_result
                .map_or_else(|| "*".to_string(), |r| r.to_string()),
        })
        .collect()
}

/// Checks one game's internal consistency: the moves replay legally from
/// the FEN, the ply count and result agree, and a game that ended by a rule
/// ends in a position where the rules say so.
fn check_game(game: &PgnGame) {
    assert_eq!(game.tags["Format"], "ICCS");
    assert_eq!(game.tags["SetUp"], "1");
    assert_eq!(game.tags["Result"], game.result_token);
    assert!(!game.tags["TerminationDetails"].is_empty());
    assert!(["1-0", "0-1", "1/2-1/2"].contains(&game.result_token.as_str()));
    let mut pos = Position::from_fen(&game.tags["FEN"]).unwrap();
    for m in &game.moves {
        assert!(
            m.len() == 5 && m.as_bytes()[2] == b'-',
            "ICCS form H2-E2: {m}"
        );
        let mv = pos
            .parse_move(m)
            .unwrap_or_else(|e| panic!("{e} in {:?}", game.tags));
        pos.play(mv).unwrap();
    }
    assert_eq!(game.tags["PlyCount"], game.moves.len().to_string());
    if let board::Outcome::Decided { winner, reason } = pos.outcome() {
        assert_eq!(game.tags["Termination"], reason.name());
        let expected = match winner {
            Some(Color::Red) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        };
        assert_eq!(game.result_token, expected);
    }
}

/// Whether process `pid` is gone (or a zombie: dead, awaiting its reaper).
fn process_gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .next()
                .unwrap_or("");
            state == "Z" || state == "X"
        }
    }
}

/// Every mock engine that wrote its pid into `dir` has ended.
fn assert_no_leaks(dir: &Path) -> usize {
    let pids: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!pids.is_empty(), "no engine was started");
    // Give the kernel a moment to tear down processes killed just now.
    let deadline = Instant::now() + Duration::from_secs(2);
    for pid in &pids {
        while !process_gone(pid) {
            assert!(
                Instant::now() < deadline,
                "engine process {pid} still running after the arena exited"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    pids.len()
}

/// Two mock engines `a` and `b` that ignore `quit` and record their pids
/// in `dir/pids`: that folder and the `--engine` arguments.
fn quit_ignoring_pair(dir: &Path) -> (PathBuf, Vec<String>) {
    let pids = dir.join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let pid_dir = format!("arg={}", pids.display());
    let mut args = Vec::new();
    for name in ["a", "b"] {
        args.extend(strings(&[
            "--engine",
            &format!("name={name}"),
            &format!("cmd={MOCK}"),
            "arg=--ignore-quit",
            "arg=--pid-dir",
            &pid_dir,
        ]));
    }
    (pids, args)
}
