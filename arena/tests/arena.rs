//! Black-box tests of the `arena` binary: engine faults scored as losses
//! with the right reason (against `mock-engine`), no leaked processes,
//! score adjudication, round robins, an SPRT that stops, valid PGN, and a
//! short real run of Chariot against itself.
//!
//! One file on purpose, though it is long: every file under `tests/` is
//! linked into a test binary of its own, and these tests share the mock
//! engine's harness and the PGN reader.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use board::{Color, Position};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");
const MOCK: &str = env!("CARGO_BIN_EXE_mock-engine");

/// A fresh, empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
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

/// A parsed PGN game: its tags and ICCS moves.
struct PgnGame {
    tags: HashMap<String, String>,
    moves: Vec<String>,
    result_token: String,
}

fn parse_pgn(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    for chunk in text.split("[Game \"Chinese Chess\"]").skip(1) {
        let mut tags = HashMap::new();
        let mut movetext = String::new();
        for line in chunk.lines() {
            if let Some(tag) = line.strip_prefix('[') {
                let (name, value) = tag.split_once(' ').unwrap();
                tags.insert(
                    name.to_string(),
                    value.trim_end_matches(']').trim_matches('"').to_string(),
                );
            } else {
                movetext.push_str(line);
                movetext.push(' ');
            }
        }
        // Movetext: move numbers, moves, the result; no comments.
        assert!(!movetext.contains('{'), "{movetext}");
        let tokens: Vec<&str> = movetext
            .split_whitespace()
            .filter(|t| !t.ends_with('.'))
            .collect();
        let (result, moves) = tokens.split_last().unwrap();
        games.push(PgnGame {
            tags,
            moves: moves.iter().map(ToString::to_string).collect(),
            result_token: result.to_string(),
        });
    }
    games
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

/// A faulty mock (`bad`) against a good one (`good`, UCI): both games lost
/// by `bad` with `termination`, no process left behind.
fn fault_case(label: &str, mode: &str, termination: &str, limit: &[&str]) {
    let dir = scratch(label);
    let pids = dir.join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let pgn = dir.join("games.pgn");
    let pid_dir = format!("arg={}", pids.display());
    let mut args = strings(&[
        "--engine",
        "name=good",
        &format!("cmd={MOCK}"),
        "proto=uci",
        "arg=--pid-dir",
        &pid_dir,
    ]);
    args.extend(strings(&[
        "--engine",
        "name=bad",
        &format!("cmd={MOCK}"),
        "proto=ucci",
        "arg=--pid-dir",
        &pid_dir,
    ]));
    args.extend(strings(&[
        "arg=--mode",
        &format!("arg={mode}"),
        "arg=--after",
        "arg=1",
    ]));
    args.extend(strings(&[
        "--margin",
        "50",
        "--grace",
        "1500",
        "--games",
        "2",
        "--concurrency",
        "2",
    ]));
    args.extend(strings(&["--pgn", &pgn.display().to_string()]));
    args.extend(strings(limit));
    let start = Instant::now();
    let out = run_arena(&args, Duration::from_secs(30));
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(games.len(), 2, "{out}");
    for g in &games {
        check_game(g);
        assert_eq!(g.tags["Termination"], termination, "{out}");
        let bad_is_red = g.tags["Red"] == "bad";
        assert_eq!(
            g.result_token,
            if bad_is_red { "0-1" } else { "1-0" },
            "{out}"
        );
        // `bad` behaves on its first move and breaks on its second.
        let bad_moves = (g.moves.len() + usize::from(bad_is_red)) / 2;
        assert_eq!(bad_moves, 1, "{out}");
    }
    assert!(
        out.contains(&format!("Fault: bad: {termination} x2")),
        "{out}"
    );
    assert!(out.contains("good vs bad: W 2 D 0 L 0"), "{out}");
    assert!(
        out.contains("Pentanomial [0, 0.5, 1, 1.5, 2]: [0, 0, 0, 0, 1] (1 pairs)"),
        "{out}"
    );
    assert_no_leaks(&pids);
    assert!(start.elapsed() < Duration::from_secs(20));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The clock of the fault tests: short, so a flag falls quickly.
const CLOCK: &[&str] = &["--tc", "0.4+0.02"];

#[test]
fn illegal_move_loses() {
    fault_case("illegal", "illegal", "illegal move", CLOCK);
}

#[test]
fn garbage_reply_loses() {
    fault_case("garbage", "garbage", "unparsable reply", CLOCK);
}

#[test]
fn crash_loses() {
    fault_case("crash", "crash", "engine crash", CLOCK);
}

#[test]
fn hang_loses_and_is_killed() {
    fault_case("hang-clock", "hang", "unresponsive engine", CLOCK);
}

#[test]
fn overstepping_the_clock_loses() {
    fault_case("slow", "slow", "time forfeit", CLOCK);
}

#[test]
fn claiming_no_move_loses() {
    fault_case("nomove", "nomove", "no move", CLOCK);
}

#[test]
fn hang_under_fixed_depth_hits_the_move_timeout() {
    // The depth game has no clock: the per-move timeout catches the hang.
    fault_case(
        "hang-depth",
        "hang",
        "unresponsive engine",
        &["--depth", "3", "--move-timeout", "0.5"],
    );
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

#[test]
fn engines_ignoring_quit_are_killed() {
    let dir = scratch("ignore-quit");
    let (pids, mut args) = quit_ignoring_pair(&dir);
    args.extend(strings(&[
        "--depth",
        "1",
        "--games",
        "2",
        "--grace",
        "200",
        "--max-plies",
        "40",
    ]));
    let out = run_arena(&args, Duration::from_secs(20));
    assert!(out.contains("Terminations: ply limit 2"), "{out}");
    // One start-up check per engine, then one process per engine for the games.
    assert_eq!(assert_no_leaks(&pids), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn score_adjudication() {
    let dir = scratch("adjudication");
    let pgn = dir.join("games.pgn");
    // `up` always claims +800, `down` −800: with resign score=500 moves=2
    // `down` gives up after both have moved twice (4 plies).
    let mut args = strings(&[
        "--engine",
        "name=up",
        &format!("cmd={MOCK}"),
        "arg=--score",
        "arg=800",
    ]);
    args.extend(strings(&[
        "--engine",
        "name=down",
        &format!("cmd={MOCK}"),
        "proto=uci",
        "arg=--score",
        "arg=-800",
    ]));
    args.extend(strings(&[
        "--depth",
        "1",
        "--games",
        "2",
        "--resign",
        "score=500",
        "moves=2",
    ]));
    args.extend(strings(&["--pgn", &pgn.display().to_string()]));
    let out = run_arena(&args, Duration::from_secs(20));
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(games.len(), 2);
    for g in &games {
        check_game(g);
        assert_eq!(g.tags["Termination"], "adjudication: resign");
        assert_eq!(g.moves.len(), 4);
        assert_eq!(
            g.result_token,
            if g.tags["Red"] == "up" { "1-0" } else { "0-1" }
        );
    }
    assert!(out.contains("up vs down: W 2 D 0 L 0"), "{out}");

    // Both at 0 with draw score=10 moves=3 after=1: drawn after 6 plies.
    let pgn = dir.join("draws.pgn");
    let mut args = Vec::new();
    for name in ["x", "y"] {
        args.extend(strings(&[
            "--engine",
            &format!("name={name}"),
            &format!("cmd={MOCK}"),
        ]));
    }
    args.extend(strings(&[
        "--depth", "1", "--games", "2", "--draw", "score=10", "moves=3", "after=1",
    ]));
    args.extend(strings(&["--pgn", &pgn.display().to_string()]));
    let out = run_arena(&args, Duration::from_secs(20));
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(games.len(), 2);
    for g in &games {
        check_game(g);
        assert_eq!(g.tags["Termination"], "adjudication: draw");
        assert_eq!(g.moves.len(), 6);
        assert_eq!(g.result_token, "1/2-1/2");
    }
    assert!(out.contains("x vs y: W 0 D 2 L 0"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn round_robin_with_openings() {
    let dir = scratch("round-robin");
    let pgn = dir.join("games.pgn");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings.epd");
    let mut args = Vec::new();
    for name in ["p", "q", "r"] {
        args.extend(strings(&[
            "--engine",
            &format!("name={name}"),
            &format!("cmd={MOCK}"),
        ]));
    }
    args.extend(strings(&[
        "--nodes",
        "100",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--max-plies",
        "300",
    ]));
    args.extend(strings(&[
        "--openings",
        &openings.display().to_string(),
        "--pgn",
        &pgn.display().to_string(),
    ]));
    let out = run_arena(&args, Duration::from_secs(60));
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    // 3 pairings × 4 games.
    assert_eq!(games.len(), 12, "{out}");
    let suite = std::fs::read_to_string(&openings).unwrap();
    let first_two: Vec<String> = suite
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(2)
        .map(|l| {
            Position::from_fen(&l.split(" c0").next().unwrap().replace(" - -", " - - 0 1"))
                .unwrap()
                .fen()
        })
        .collect();
    let mut rounds: Vec<u64> = Vec::new();
    for g in &games {
        check_game(g);
        assert!(
            first_two.contains(&g.tags["FEN"]),
            "openings are used in order"
        );
        rounds.push(g.tags["Round"].parse().unwrap());
    }
    rounds.sort_unstable();
    assert_eq!(rounds, (1..=12).collect::<Vec<u64>>());
    assert!(out.contains("Finished 12 games"), "{out}");
    for name in ["p", "q", "r"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(name) && l.contains(" 8 ")),
            "{name} played 8 games: {out}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sprt_stops_when_decided() {
    // `bad` plays an illegal move on its first move: every pair is a 2-0
    // for `good`. Logistic elo0 = 0, elo1 = 300: s0 = ½, s1 = 0.849; with
    // μ ≈ 1 and a near-zero variance, r0 ≈ 0.25 and r1 ≈ 0.0228, so each
    // pair adds about ½·ln(0.25/0.0228) = 1.197. The empty bins' weight of
    // 0.001 each (μ = 0.99958, var = 0.00051 at 3 pairs) trims that:
    // 2 pairs give 2.37 < 2.944, 3 pairs 3.57 ≥ 2.944 — the run stops after
    // 6 of its 40 games.
    let mut args = strings(&["--engine", "name=good", &format!("cmd={MOCK}")]);
    args.extend(strings(&[
        "--engine",
        "name=bad",
        &format!("cmd={MOCK}"),
        "arg=--mode",
        "arg=illegal",
        "arg=--after",
        "arg=0",
    ]));
    args.extend(strings(&[
        "--depth",
        "1",
        "--games",
        "40",
        "--sprt",
        "elo0=0",
        "elo1=300",
        "model=logistic",
    ]));
    let out = run_arena(&args, Duration::from_secs(20));
    assert!(out.contains("Finished 6 games"), "{out}");
    assert!(out.contains("[6/40]"), "{out}");
    assert!(out.contains("SPRT stop: H1 accepted (pass)"), "{out}");
    assert!(out.contains("SPRT elo0=0 elo1=300 alpha=0.05 beta=0.05 (logistic): LLR 3.57 [-2.94, 2.94] H1 accepted (pass)"), "{out}");
}

#[test]
fn fixed_searches_warn_when_openings_repeat() {
    // One opening (the start position): at a fixed depth the second pair
    // replays the first, and the banner says so; one pair, or a clock,
    // draws no note.
    let run = |limit: &[&str], games: &str| {
        let mut args = two_mocks();
        args.extend(strings(limit));
        args.extend(strings(&["--games", games]));
        run_arena(&args, Duration::from_secs(20))
    };
    let note = "Note: at a fixed depth a pair from the same opening is usually the same pair again; only the first 2 games of each pairing are new";
    let out = run(&["--depth", "1"], "4");
    assert!(out.lines().any(|l| l.starts_with(note)), "{out}");
    assert!(!run(&["--depth", "1"], "2").contains("Note:"));
    assert!(!run(&["--tc", "1+0.01"], "4").contains("Note:"));
}

#[test]
fn skipped_openings_are_not_played() {
    // Three openings, the first two skipped: every game starts from the
    // third, the banner says so, and the repeat note counts one opening.
    let dir = scratch("skip-openings");
    let suite = dir.join("three.epd");
    let fens = [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1",
        "rnbakabnr/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2",
    ];
    std::fs::write(&suite, fens.join("\n")).unwrap();
    let pgn = dir.join("games.pgn");
    let run = |skip: &str, pgn: Option<&Path>| {
        let mut args = two_mocks();
        args.extend(strings(&[
            "--depth",
            "1",
            "--games",
            "4",
            "--max-plies",
            "60",
        ]));
        args.extend(strings(&["--openings", &suite.display().to_string()]));
        args.extend(strings(&["--skip-openings", skip]));
        if let Some(pgn) = pgn {
            args.extend(strings(&["--pgn", &pgn.display().to_string()]));
        }
        args
    };
    let out = run_arena(&run("2", Some(&pgn)), Duration::from_secs(30));
    assert!(
        out.contains("three.epd, the first 2 skipped (1 positions)"),
        "{out}"
    );
    assert!(
        out.contains("only the first 2 games of each pairing are new"),
        "{out}"
    );
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(games.len(), 4);
    for g in &games {
        assert_eq!(g.tags["FEN"], fens[2]);
    }
    // Skipping every opening, or skipping without a file, is refused.
    let out = Command::new(ARENA).args(run("3", None)).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--skip-openings 3 leaves none of the 3 openings"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut no_file = strings(&["--engine", &format!("cmd={MOCK}"), "--engine"]);
    no_file.extend(strings(&[
        &format!("cmd={MOCK}"),
        "--depth",
        "1",
        "--skip-openings",
        "1",
    ]));
    assert!(
        !Command::new(ARENA)
            .args(&no_file)
            .output()
            .unwrap()
            .status
            .success()
    );
}

#[test]
fn pooled_runs_score_as_the_match_did() {
    // A run's own report and `arena pool` of its PGN agree; two runs
    // pooled count every pair of both; a file holding two runs is refused.
    let dir = scratch("pool");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings.epd");
    let run = |pgn: &Path, skip: &str| {
        let mut args = two_mocks();
        args.extend(strings(&[
            "--nodes",
            "100",
            "--games",
            "6",
            "--concurrency",
            "2",
        ]));
        args.extend(strings(&["--max-plies", "120", "--skip-openings", skip]));
        args.extend(strings(&["--openings", &openings.display().to_string()]));
        args.extend(strings(&["--sprt", "elo0=0", "elo1=50"]));
        args.extend(strings(&["--pgn", &pgn.display().to_string()]));
        run_arena(&args, Duration::from_secs(60))
    };
    let pool = |files: &[&Path]| {
        let mut cmd = Command::new(ARENA);
        cmd.arg("pool")
            .args(files)
            .args(["--sprt", "elo0=0", "elo1=50"]);
        cmd.output().unwrap()
    };
    let block = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("  ") || l.starts_with("a vs b"))
            .map(str::to_string)
            .collect()
    };
    let (first, second) = (dir.join("first.pgn"), dir.join("second.pgn"));
    let out = run(&first, "0");
    let pooled = pool(&[&first]);
    assert!(pooled.status.success());
    let pooled = String::from_utf8_lossy(&pooled.stdout).into_owned();
    assert_eq!(block(&pooled), block(&out), "{pooled}\n---\n{out}");
    assert!(pooled.contains("first.pgn: 3 pairs"), "{pooled}");
    run(&second, "3");
    let both = pool(&[&first, &second]);
    let both = String::from_utf8_lossy(&both.stdout).into_owned();
    assert!(both.contains("(6 pairs)"), "{both}");
    // The same pool for programs: the total is the files' sum.
    let json = Command::new(ARENA)
        .args(["pool", "--json", "--sprt", "elo0=0", "elo1=50", "--"])
        .args([&first, &second])
        .output()
        .unwrap();
    assert!(json.status.success());
    let json = String::from_utf8_lossy(&json.stdout).into_owned();
    assert!(
        json.starts_with('{') && json.contains("\"total\":6"),
        "{json}"
    );
    assert!(
        json.contains("\"pairs\":3}") && json.contains("\"left_out\":0"),
        "{json}"
    );
    assert!(json.contains("\"state\":\""), "{json}");
    // Two runs appended to one file cannot be paired again.
    run(&first, "3");
    let mixed = pool(&[&first]);
    assert!(!mixed.status.success());
    assert!(String::from_utf8_lossy(&mixed.stderr).contains("appears twice"));
}

#[test]
fn bad_command_lines_are_refused() {
    for args in [
        vec!["--engine", "cmd=x"],
        vec![
            "--engine", "name=a", "cmd=x", "--engine", "name=a", "cmd=y", "--depth", "1",
        ],
        vec![
            "--engine", "cmd=x", "--engine", "cmd=y", "--depth", "1", "--tc", "1+0",
        ],
        vec!["--engine", "cmd=x", "--engine", "cmd=y", "--tc", "fast"],
        vec![
            "--engine", "cmd=x", "--engine", "cmd=y", "--depth", "1", "--sprt", "elo0=0",
        ],
    ] {
        let out = Command::new(ARENA).args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(!out.stderr.is_empty());
    }
    // An engine that cannot start stops the run before any game.
    let out = Command::new(ARENA)
        .args([
            "--engine",
            "name=ghost",
            "cmd=/nonexistent/engine",
            "--engine",
            &format!("cmd={MOCK}"),
            "--depth",
            "1",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start engine 'ghost'"));
    assert!(out.stdout.is_empty());
    let help = Command::new(ARENA).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for word in [
        "--engine",
        "--tc",
        "--sprt",
        "--openings",
        "--pgn",
        "option.NAME",
        "proto=ucci|uci",
    ] {
        assert!(help.contains(word), "--help mentions {word}");
    }
}

#[test]
fn a_program_that_is_no_engine_is_refused_in_plain_words() {
    // `cat` echoes `ucci` back and never says `ucciok`; `true` exits at once.
    for (cmd, expected) in [
        (
            "/bin/cat",
            "did not answer 'ucci' with 'ucciok' within 10 s",
        ),
        (
            "/bin/true",
            "exited with exit status: 0 before answering 'ucci'",
        ),
    ] {
        let start = Instant::now();
        let out = Command::new(ARENA)
            .args([
                "--engine",
                "name=notengine",
                &format!("cmd={cmd}"),
                "--engine",
                &format!("cmd={MOCK}"),
                "--depth",
                "1",
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(start.elapsed() < Duration::from_secs(15));
        assert!(err.contains("engine 'notengine' failed to start"), "{err}");
        assert!(err.contains(expected), "{err}");
        assert!(err.contains("proto=uci"), "{err}");
        for debug_text in ["Hung", "Crashed(", "\"exit"] {
            assert!(!err.contains(debug_text), "{err}");
        }
    }
}

/// The workspace's Chariot binary, if built (CI builds release first).
fn chariot() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()?
        .to_path_buf();
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        dirs.push(root.join(dir));
    }
    dirs.push(root.join("target"));
    for dir in dirs {
        for profile in ["release", "debug"] {
            let path = dir.join(profile).join("chariot");
            if path.is_file() {
                return Some(path);
            }
        }
    }
    None
}

/// Plays `games` games between the given `--engine` argument lists (each
/// naming the real Chariot binary through `{cmd}`) with the extra
/// arguments `limits`, from the balanced openings; returns the arena's
/// output and the games of its PGN. `None` when the binary is not built.
fn chariot_match(
    name: &str,
    engines: &[&[&str]],
    limits: &[&str],
    timeout: Duration,
) -> Option<(String, Vec<PgnGame>)> {
    let Some(chariot) = chariot() else {
        println!("note: chariot binary not built (target/release/chariot); skipping the real run");
        return None;
    };
    let dir = scratch(name);
    let pgn = dir.join("games.pgn");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings.epd");
    let cmd = format!("cmd={}", chariot.display());
    let mut args = Vec::new();
    for engine in engines {
        args.push("--engine".to_string());
        args.extend(engine.iter().map(|a| a.replace("{cmd}", &cmd)));
    }
    args.extend(strings(limits));
    args.extend(strings(&[
        "--openings",
        &openings.display().to_string(),
        "--pgn",
        &pgn.display().to_string(),
    ]));
    let out = run_arena(&args, timeout);
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    Some((out, games))
}

#[test]
fn chariot_self_play() {
    let Some((out, games)) = chariot_match(
        "chariot",
        &[
            &["name=ucci", "{cmd}", "proto=ucci", "option.hashsize=8"],
            &["name=uci", "{cmd}", "proto=uci", "option.Hash=8"],
        ],
        &[
            "--tc",
            "1+0.02",
            "--margin",
            "300",
            "--games",
            "4",
            "--concurrency",
            "1",
        ],
        Duration::from_secs(90),
    ) else {
        return;
    };
    assert_eq!(games.len(), 4, "{out}");
    for g in &games {
        check_game(g);
        assert!(!g.moves.is_empty(), "{out}\n{:?}", g.tags);
    }
    // Engine faults would name the engine in the report.
    assert!(!out.contains("Fault:"), "{out}");
    assert!(out.contains("Finished 4 games"), "{out}");
}

/// A low strength level loses to full strength: skill 0 (1,000 nodes a
/// move and a hot draw among its four best lines) against full strength at
/// 20,000 nodes, four games from the balanced openings, scores at most one
/// point, and every game is legal and ends without a fault.
#[test]
fn a_low_level_loses_to_full_strength() {
    let Some((out, games)) = chariot_match(
        "levels",
        &[
            &[
                "name=weak",
                "{cmd}",
                "proto=uci",
                "option.Skill Level=0",
                "option.OwnBook=false",
            ],
            &["name=full", "{cmd}", "proto=uci", "option.OwnBook=false"],
        ],
        &["--nodes", "20000", "--games", "4", "--concurrency", "1"],
        Duration::from_secs(120),
    ) else {
        return;
    };
    assert_eq!(games.len(), 4, "{out}");
    let mut weak_points = 0.0;
    for g in &games {
        check_game(g);
        let weak_red = g.tags["Red"] == "weak";
        weak_points += match (g.result_token.as_str(), weak_red) {
            ("1-0", true) | ("0-1", false) => 1.0,
            ("1/2-1/2", _) => 0.5,
            _ => 0.0,
        };
    }
    assert!(!out.contains("Fault:"), "{out}");
    assert!(
        weak_points <= 1.0,
        "skill 0 scored {weak_points} of 4\n{out}"
    );
}

#[test]
fn opening_suites_are_valid() {
    check_suite("data/openings.epd", 6..=10, 240);
    check_suite("data/openings-wide.epd", 8..=12, 760);
    check_suite("data/openings-deep.epd", 13..=16, 1000);
    check_suite("data/openings-deeper.epd", 17..=20, 1000);
}

/// Every line of a shipped suite: a valid position, reached by its `c0`
/// line of `plies` legal plies from the start; no position twice (nor its
/// mirror); `count` lines and the licence.
fn check_suite(file: &str, plies: std::ops::RangeInclusive<usize>, count_wanted: usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(path).unwrap();
    let mut keys = std::collections::HashSet::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (fen, ops) = line.split_once(" c0 \"").unwrap();
        let pos = Position::from_fen(&format!("{fen} 0 1")).unwrap();
        let moves: Vec<&str> = ops.split('"').next().unwrap().split_whitespace().collect();
        assert!(plies.contains(&moves.len()), "{line}");
        let mut replay = Position::startpos();
        for m in &moves {
            let mv = replay.parse_move(m).unwrap();
            replay.play(mv).unwrap();
        }
        assert_eq!(replay.key(), pos.key(), "{line}");
        assert!(pos.has_legal_move() && !pos.in_check(), "{line}");
        let canonical = pos.key().min(pos.mirrored_key());
        assert!(keys.insert(canonical), "duplicate or mirror: {line}");
        count += 1;
    }
    assert_eq!(count, count_wanted);
    assert!(text.contains("CC BY 4.0"));
}

#[test]
fn what_the_engines_are_sent() {
    // A round robin of three mocks that log their input: UCCI with
    // `usemillisec`, UCI, and UCCI without `usemillisec` (seconds). Games
    // are cut after 2 plies, so every engine moves once per game.
    let dir = scratch("dialogue");
    let log = |name: &str| dir.join(format!("{name}.log"));
    let engines = [
        ("a", "proto=ucci", "option.hashsize=8", None),
        ("b", "proto=uci", "option.Hash=8", None),
        ("c", "proto=ucci", "option.threads=1", Some("arg=--seconds")),
    ];
    let mut args = Vec::new();
    for (name, proto, option, extra) in engines {
        args.extend(strings(&[
            "--engine",
            &format!("name={name}"),
            &format!("cmd={MOCK}"),
            proto,
            option,
        ]));
        args.extend(strings(&[
            "arg=--log",
            &format!("arg={}", log(name).display()),
        ]));
        args.extend(extra.map(ToString::to_string));
    }
    args.extend(strings(&[
        "--tc",
        "3+1",
        "--games",
        "2",
        "--max-plies",
        "2",
    ]));
    let out = run_arena(&args, Duration::from_secs(20));
    assert!(out.contains("Terminations: ply limit 6"), "{out}");
    let read = |name: &str| -> Vec<String> {
        std::fs::read_to_string(log(name))
            .unwrap()
            .lines()
            .map(ToString::to_string)
            .collect()
    };
    let start = format!("position fen {}", board::START_FEN);

    let a = read("a");
    assert_eq!(
        a[..4],
        [
            "ucci",
            "setoption usemillisec true",
            "setoption hashsize 8",
            "isready"
        ]
    );
    assert_eq!(a.iter().filter(|l| *l == "setoption newgame").count(), 4);
    assert_eq!(
        a.iter().filter(|l| *l == &start).count(),
        2,
        "a is Red in two games"
    );
    assert!(a.contains(&"go time 3000 increment 1000 opptime 3000 oppincrement 1000".to_string()));
    for go in a.iter().filter(|l| l.starts_with("go")) {
        let w: Vec<&str> = go.split_whitespace().collect();
        assert_eq!(
            (w[1], w[3], w[5], w[7]),
            ("time", "increment", "opptime", "oppincrement"),
            "{go}"
        );
        assert_eq!((w[4], w[8]), ("1000", "1000"));
    }
    assert_eq!(a.last().map(String::as_str), Some("quit"));

    let b = read("b");
    assert_eq!(b[..3], ["uci", "setoption name Hash value 8", "isready"]);
    assert_eq!(b.iter().filter(|l| *l == "ucinewgame").count(), 4);
    assert!(b.contains(&"go wtime 3000 btime 3000 winc 1000 binc 1000".to_string()));
    for go in b.iter().filter(|l| l.starts_with("go")) {
        let w: Vec<&str> = go.split_whitespace().collect();
        assert_eq!(
            (w[1], w[3], w[5], w[6], w[7], w[8]),
            ("wtime", "btime", "winc", "1000", "binc", "1000"),
            "{go}"
        );
        // Black moves second: Red's clock has been charged and credited.
        if w[2] != "3000" {
            assert!(
                w[2].parse::<u64>().unwrap() > 3000 && w[4] == "3000",
                "{go}"
            );
        }
    }
    // Black's reply comes with the moves so far.
    assert!(
        b.iter().any(
            |l| l.starts_with(&format!("{start} moves ")) && l.split_whitespace().count() == 10
        )
    );

    let c = read("c");
    assert_eq!(c[..3], ["ucci", "setoption threads 1", "isready"]);
    assert!(
        c.contains(&"go time 3 increment 1 opptime 3 oppincrement 1".to_string()),
        "{c:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unwritable_pgn_ends_the_run_without_leaking_engines() {
    // /dev/full accepts the open and fails every write.
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = scratch("pgn-full");
    let (pids, mut args) = quit_ignoring_pair(&dir);
    args.extend(strings(&[
        "--depth",
        "1",
        "--games",
        "8",
        "--concurrency",
        "2",
        "--grace",
        "200",
        "--max-plies",
        "20",
        "--pgn",
        "/dev/full",
    ]));
    let out = Command::new(ARENA)
        .args(&args)
        .output()
        .expect("arena runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("cannot write the PGN file"), "{stderr}");
    // The run stopped early: the games in progress finished, no new ones.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Finished "), "{stdout}");
    assert!(!stdout.contains("[8/8]"), "{stdout}");
    assert_no_leaks(&pids);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A long run of two mock engines, `b` thinking 30 ms a move and both
/// ignoring `quit`: stdout as timed lines, and the arena's process.
fn long_run(
    dir: &Path,
    extra: &[&str],
) -> (PathBuf, std::process::Child, Receiver<(Instant, String)>) {
    let (pids, mut args) = quit_ignoring_pair(dir);
    args.extend(strings(&["arg=--delay", "arg=30"]));
    args.extend(strings(&[
        "--tc",
        "600+0",
        "--games",
        "10000",
        "--concurrency",
        "2",
        "--grace",
        "300",
    ]));
    args.extend(strings(extra));
    let mut child = Command::new(ARENA)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    (pids, child, rx)
}

/// Waits for `child` to exit, failing with `what` once `limit` has passed
/// since `since`.
fn exit_within(
    child: &mut std::process::Child,
    since: Instant,
    limit: Duration,
    what: &str,
) -> std::process::ExitStatus {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(since.elapsed() < limit, "{what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Everything `child` wrote to its piped stderr.
fn stderr_of(child: &mut std::process::Child) -> String {
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    err
}

#[test]
fn banner_and_a_line_before_the_first_result() {
    let dir = scratch("banner");
    let (pids, mut child, lines) = long_run(&dir, &[]);
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.starts_with("[1/")) {
        let (_, line) = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no result line: {seen:?}"));
        seen.push(line);
    }
    let _ = child.kill();
    let _ = child.wait();
    let mock = Path::new(MOCK).display().to_string();
    assert_eq!(
        seen[0],
        format!("Engines: a ({mock}, ucci), b ({mock}, ucci)")
    );
    assert_eq!(
        seen[1],
        "Time control: 600; 10000 games (5000 pairs of games with colours swapped), 2 at a time"
    );
    assert_eq!(seen[2], "Openings: the start position (1 positions)");
    // Both workers' first games are announced before any result.
    assert!(seen[3].starts_with("Started game "), "{seen:?}");
    assert!(seen[4].starts_with("Started game "), "{seen:?}");
    assert!(seen.iter().any(|l| l == "Started game 1 of 10000: a - b"));
    // The engines ignore `quit` and the arena was killed: reap them here.
    for entry in std::fs::read_dir(&pids).unwrap() {
        let pid = entry.unwrap().file_name().to_string_lossy().into_owned();
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_and_sigterm_stop_with_a_summary_and_no_engine_left() {
    for signal in ["INT", "TERM"] {
        let dir = scratch(&format!("signal-{signal}"));
        let (pids, mut child, lines) = long_run(&dir, &["--sprt", "elo0=0", "elo1=5"]);
        let mut out = Vec::new();
        // Wait for three results: with two workers playing pairs back to
        // back, one pair is then complete and the summary has one.
        while !out.iter().any(|l: &String| l.starts_with("[3/")) {
            let (_, line) = lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no results: {out:?}"));
            out.push(line);
        }
        let sent = Instant::now();
        let pid = child.id().to_string();
        assert!(
            Command::new("kill")
                .args([&format!("-{signal}"), &pid])
                .status()
                .unwrap()
                .success()
        );
        let status = exit_within(
            &mut child,
            sent,
            Duration::from_secs(10),
            &format!("SIG{signal}: the arena did not exit"),
        );
        let waited = sent.elapsed();
        out.extend(lines.iter().map(|(_, l)| l));
        let text = out.join("\n");
        let err = stderr_of(&mut child);
        assert_eq!(status.code(), Some(130), "SIG{signal}\n{text}\n{err}");
        // Engines ignore `quit`: 300 ms of grace each, then a kill; the
        // rest of the margin is for a loaded machine.
        assert!(waited < Duration::from_secs(5), "SIG{signal}: {waited:?}");
        assert!(err.contains("interrupted"), "{err}");
        assert!(
            text.contains("Interrupted: the games in progress were abandoned."),
            "{text}"
        );
        let finished = text
            .lines()
            .find_map(|l| l.strip_prefix("Finished "))
            .and_then(|l| l.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no summary: {text}"));
        let results = text.lines().filter(|l| l.starts_with('[')).count() as u64;
        assert!(finished >= 3 && finished == results, "{text}");
        assert!(text.contains("\na vs b: W "), "{text}");
        assert!(text.contains("  Elo from pairs: "), "{text}");
        assert!(
            text.contains("  Pentanomial [0, 0.5, 1, 1.5, 2]: ["),
            "{text}"
        );
        assert!(text.contains("  SPRT elo0=0 elo1=5 "), "{text}");
        assert_no_leaks(&pids);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Spawns the arena with `args` and a stdout whose reader is gone before
/// it starts (`arena … | head` after head has quit): every write fails.
fn arena_with_closed_stdout(args: &[String]) -> std::process::Child {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(ARENA)
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_closed_stdout_ends_pool_quietly() {
    let args = strings(&["pool", "--recorded", "2-2-2:0,1,1,1,0"]);
    let out = arena_with_closed_stdout(&args).wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_stdout_closed_under_a_run_stops_it_as_ctrl_c_does() {
    let dir = scratch("stdout-closed");
    let pgn = dir.join("games.pgn");
    let (pids, mut child, lines) = long_run(&dir, &["--pgn", &pgn.display().to_string()]);
    // Read up to the first result, then go away as `head` would.
    while !lines
        .recv_timeout(Duration::from_secs(60))
        .expect("a result line")
        .1
        .starts_with("[1/")
    {}
    drop(lines);
    // The reader notices at the next line (a game or two of 30 ms moves);
    // the rest of the margin is for a loaded machine.
    let status = exit_within(
        &mut child,
        Instant::now(),
        Duration::from_secs(60),
        "the arena went on playing to a closed stdout",
    );
    let err = stderr_of(&mut child);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("arena: cannot write to stdout: "), "{err}");
    assert!(
        err.contains("arena: stdout is closed; stopping the games in progress"),
        "{err}"
    );
    // Nothing finished is lost: the PGN holds at least the game reported.
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert!(!games.is_empty());
    games.iter().for_each(check_game);
    assert_no_leaks(&pids);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn progress_bar_on_a_terminal_and_plain_lines_elsewhere() {
    let args = [
        "--engine",
        "name=a",
        &format!("cmd={MOCK}"),
        "arg=--delay",
        "arg=20",
        "--engine",
        "name=b",
        &format!("cmd={MOCK}"),
        "--depth",
        "1",
        "--games",
        "2",
    ];
    // Not a terminal: the lines only, as CONTRIBUTING.md's SPRT recipe reads them.
    let piped = run_arena(&strings(&args), Duration::from_secs(60));
    assert!(!piped.contains("ETA"), "{piped}");
    assert!(piped.contains("\n[2/2] b - a 1/2-1/2 (repetition draw) | a vs b: W 0 D 2 L 0"));
    // A terminal, made by util-linux `script` (where it is missing the
    // bar goes unchecked, and the test says so).
    let command = std::iter::once(ARENA)
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ");
    let Ok(out) = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
    else {
        eprintln!("skipped the terminal half: no `script` command");
        return;
    };
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{tty}");
    assert!(tty.contains("/2 games, "), "{tty}");
    assert!(tty.contains(" games/min, ETA "), "{tty}");
    assert!(
        tty.contains("[2/2] b - a 1/2-1/2 (repetition draw)"),
        "{tty}"
    );
    assert!(tty.contains("Finished 2 games"), "{tty}");
}

/// `arena openings` reads `.xz` game lists in-process: the same suite comes
/// out of a compressed list as out of the plain one, with no `xz` program
/// involved (`make-openings.sh` relies on it).
#[test]
fn openings_read_xz_game_lists_in_process() {
    use std::io::Write;
    let dir = scratch("openings-xz");
    let tsv = "game\tresult\tplies\tmoves\n\
        1\t1-0\t4\th2e2 h9g7 h0g2 i9h9\n\
        2\t0-1\t5\th2e2 h9g7 h0g2 i9h9 i0h0\n\
        3\t1/2-1/2\t4\th2e2 h9g7 h0g2 i9h9\n\
        4\t1-0\t4\tc3c4 g6g5 b0c2 b9c7\n";
    let plain = dir.join("games.iccs.tsv");
    std::fs::write(&plain, tsv).unwrap();
    let packed = dir.join("games.iccs.tsv.xz");
    let mut encoder = liblzma::write::XzEncoder::new(Vec::new(), 6);
    encoder.write_all(tsv.as_bytes()).unwrap();
    std::fs::write(&packed, encoder.finish().unwrap()).unwrap();

    let build = |input: &Path, out: &Path| {
        let status = Command::new(ARENA)
            .args(["openings", "--input"])
            .arg(input)
            .arg("--out")
            .arg(out)
            .args(["--count", "1", "--min-plies", "2", "--max-plies", "4"])
            .args(["--min-games", "2", "--max-imbalance", "0.1"])
            .env("PATH", "") // no external decompressor to fall back on
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        std::fs::read_to_string(out).unwrap()
    };
    let from_plain = build(&plain, &dir.join("plain.epd"));
    let from_packed = build(&packed, &dir.join("packed.epd"));
    assert!(from_plain.contains("h2e2 h9g7 h0g2 i9h9"), "{from_plain}");
    assert_eq!(from_plain, from_packed);

    // A damaged .xz file is refused with a message naming it.
    std::fs::write(&packed, b"not xz at all").unwrap();
    let out = Command::new(ARENA)
        .args(["openings", "--input"])
        .arg(&packed)
        .arg("--out")
        .arg(dir.join("bad.epd"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("games.iccs.tsv.xz"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
