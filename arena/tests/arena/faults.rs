//! Engine faults scored as losses with the right reason, against `mock-
//! engine`: illegal moves, garbage, crashes, hangs, the clock, engines that
//! ignore `quit`; no process is leaked.

use super::*;

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
