//! The engine's extras (`docs/ucci.md` §7): `probe`, `d`, `eval`, `go
//! perft`, `bench`.

use super::*;

#[test]
fn extra_probe() {
    let mut e = Engine::ucci();
    e.send("probe startpos");
    assert_eq!(
        e.wait_for("pophash", SOON, |l| l.starts_with("pophash")).1,
        "pophash"
    );
    e.send("go depth 4");
    let best = bestmove_of(&mut e, None, &[]);
    e.send("probe startpos");
    let line = e.wait_for("pophash", SOON, |l| l.starts_with("pophash")).1;
    assert!(
        line.starts_with(&format!("pophash bestmove {best}")),
        "{line}"
    );
    assert!(line.contains(" depth "), "{line}");
    for bad in ["probe", "probe fen garbage", "probe startpos moves a0a9"] {
        e.send(bad);
        assert_eq!(
            e.wait_for("pophash", SOON, |l| l.starts_with("pophash")).1,
            "pophash",
            "{bad}"
        );
    }
}

#[test]
fn extra_probe_during_search() {
    let mut e = Engine::ucci();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("probe startpos");
    let (before, line, _) = e.wait_for("pophash", SOON, |l| l.starts_with("pophash"));
    assert!(!before.iter().any(|l| l.starts_with("bestmove")));
    assert!(line.starts_with("pophash"));
    e.send("stop");
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_display() {
    let mut e = Engine::ucci();
    e.send_all(&["position fen 4k4/9/9/9/4c4/9/4P4/9/9/3K5 w - - 0 1", "d"]);
    let (before, _, _) = e.wait_for("Checkers", SOON, |l| l.starts_with("Checkers:"));
    assert!(
        before
            .iter()
            .any(|l| l == "Fen: 4k4/9/9/9/4c4/9/4P4/9/9/3K5 w - - 0 1"),
        "{before:?}"
    );
    let key = before.iter().find_map(|l| l.strip_prefix("Key: ")).unwrap();
    assert_eq!(key.len(), 16);
    let want = pos(Some("4k4/9/9/9/4c4/9/4P4/9/9/3K5 w - - 0 1"), &[]).key();
    assert_eq!(u64::from_str_radix(key, 16).unwrap(), want);
    e.send_all(&["position fen 4k4/9/9/9/4c4/9/4P4/9/9/4K4 w - - 0 1", "d"]);
    assert_eq!(
        e.wait_for("Checkers", SOON, |l| l.starts_with("Checkers:"))
            .1,
        "Checkers: e5"
    );
}

#[test]
fn extra_eval() {
    let mut e = Engine::uci();
    e.send("eval");
    let line = e
        .wait_for("final evaluation", SOON, |l| {
            l.starts_with("Final evaluation: ")
        })
        .1;
    assert!(line.ends_with("(Red's view)"), "{line}");
}

#[test]
fn extra_perft() {
    let mut e = Engine::ucci();
    e.send("go perft 2");
    let (before, line, _) = e.wait_for("perft total", SEARCH, |l| l.starts_with("Nodes searched"));
    assert_eq!(line, "Nodes searched: 1920");
    assert_eq!(before.len(), 45, "44 moves and a blank line: {before:?}");
    assert_eq!(before[44], "");
    let sum: u64 = before[..44]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1920);
    // The same lines, in the same order, as `chariot perft 2`.
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(["perft", "2"])
        .output()
        .expect("chariot perft runs");
    let cli = String::from_utf8_lossy(&cli.stdout);
    let cli_moves: Vec<&str> = cli.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        before[..44],
        cli_moves[..],
        "go perft and chariot perft agree"
    );
    e.send("go perft 0");
    assert!(
        e.wait_for("perft 0", SOON, |l| l.starts_with("Nodes searched"))
            .0
            .is_empty()
    );
    assert_eq!(e.seen.last().unwrap(), "Nodes searched: 1");
    e.send("go perft x");
    let before = e.sync();
    assert_eq!(before.len(), 1);
    assert!(before[0].starts_with("info string go perft"));
    assert!(
        e.quiet_for(Duration::from_millis(200)).is_empty(),
        "no bestmove after perft"
    );
}

#[test]
fn extra_deep_perft_can_be_stopped() {
    // A count that would run for ages leaves the engine responsive:
    // `isready` is answered, `stop` ends the count, queued lines follow.
    let mut e = Engine::ucci();
    e.send_all(&["go perft 64", "position startpos moves h2e2"]);
    std::thread::sleep(Duration::from_millis(200));
    // How soon: protocol/tests/timing.rs, in-process.
    let before = e.sync();
    assert!(before.is_empty(), "{before:?}");
    e.send("stop");
    let (before, _, _) = e.wait_for("perft stopped", SOON, |l| l == "info string perft stopped");
    assert!(before.is_empty(), "{before:?}");
    // The queued position was applied after the count.
    e.send("go perft 1");
    let (before, line, _) = e.wait_for("perft total", SEARCH, |l| l.starts_with("Nodes searched"));
    assert_eq!(line, "Nodes searched: 45", "{before:?}");
    // `quit` during a count ends it and the session.
    e.send_all(&["go perft 64", "quit"]);
    e.expect_line("bye");
    e.exit_within(Duration::from_secs(5)).expect("exits");
}

#[test]
fn extra_bench_subcommand() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args([
            "bench",
            "--depth",
            "1",
            "--tt",
            "depth",
            "--store-qs",
            "off",
            "--hash",
            "4",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Nodes searched: "), "{text}");
    assert!(text.contains("Hash: 4 MB  TT: depth"), "{text}");
    // A table below 1 MB, for the table experiments.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(["bench", "--depth", "1", "--hash", "0.25", "--stats"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Hash: 256 KiB  TT: two-tier"), "{text}");
    for bad in [
        &["bench", "--tt", "nope"][..],
        &["bench", "--depth", "x"],
        &["bench", "--hash", "0"],
        &["bench", "--hash", "0.0001"],
        &["bench", "--hash", "NaN"],
        &["bench", "--hash", "65537"],
        &["bench", "--store-qs", "maybe"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
            .args(bad)
            .output()
            .expect("runs");
        assert!(!out.status.success(), "{bad:?}");
        assert!(!out.stderr.is_empty());
    }
}
