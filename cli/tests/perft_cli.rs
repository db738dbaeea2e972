//! `chariot perft` from the command line: divide output, EPD suites, and
//! bad arguments answered with a message and exit status 2.

use std::process::Output;

mod common;
use common::chariot;

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn divide_of_the_start_position() {
    let out = chariot(&["perft", "2"]);
    assert!(out.status.success());
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // 44 root moves, sorted, then a blank line and the total.
    let moves: Vec<&str> = lines
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    assert_eq!(moves.len(), 44);
    let mut sorted = moves.clone();
    sorted.sort_unstable();
    assert_eq!(moves, sorted);
    assert!(moves.contains(&"h2e2: 45"), "{moves:?}");
    assert!(text.contains("\nNodes searched: 1920\n"), "{text}");
    assert!(text.contains("Nodes/second: "));
}

#[test]
fn fen_given_as_separate_words() {
    let out = chariot(&[
        "perft",
        "3",
        "3k5/9/9/9/9/9/9/3n5/R8/4K4",
        "w",
        "-",
        "-",
        "0",
        "1",
    ]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("Nodes searched: 324\n"));
    let out = chariot(&["perft", "1", "3k5/9/9/9/9/9/9/3n5/R8/4K4 w - - 0 1"]);
    assert!(stdout(&out).contains("Nodes searched: 4\n"));
}

#[test]
fn bad_arguments_exit_with_status_2() {
    for args in [
        &["perft"][..],
        &["perft", "x"],
        &["perft", "-1"],
        &["perft", "99999999999999999999"],
        &["perft", "2", "garbage"],
        &["perft", "2", "4k4/9/9/9/9/9/9/9/9/4K4", "w"],
        &["perft", "--epd", "/nonexistent/suite.epd"],
    ] {
        let out = chariot(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
}

#[test]
fn epd_suite_passes_and_mismatch_fails() {
    let dir = test_support::scratch_dir("perft");
    let good = dir.join("good.epd");
    let bad = dir.join("bad.epd");
    let suite = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/perft.epd");
    let out = chariot(&["perft", "--epd", suite, "--max-nodes", "100000"]);
    assert!(out.status.success(), "{}", stdout(&out));
    assert!(stdout(&out).contains(" 0 mismatches"));
    std::fs::write(&good, "3k5/9/9/9/9/9/9/3n5/R8/4K4 w - - 0 1 ;D1 4 ;D2 22\n").unwrap();
    std::fs::write(&bad, "3k5/9/9/9/9/9/9/3n5/R8/4K4 w - - 0 1 ;D1 4 ;D2 23\n").unwrap();
    let ok = chariot(&["perft", "--epd", good.to_str().unwrap()]);
    assert!(ok.status.success());
    assert!(stdout(&ok).starts_with("2 counts checked on 1 positions, 0 mismatches"));
    let fail = chariot(&["perft", "--epd", bad.to_str().unwrap()]);
    assert_eq!(fail.status.code(), Some(1));
    let text = stdout(&fail);
    assert!(
        text.contains("MISMATCH line 1 depth 2: expected 23, got 22"),
        "{text}"
    );
    assert!(text.contains("  a1d1: "), "divide printed: {text}");
    // A malformed line is named with its file and line on stderr and fails
    // the suite, but the others are still checked; --lenient only names it.
    let mixed = dir.join("mixed.epd");
    std::fs::write(
        &mixed,
        "rnbakabnr/9 w ;D1 44\n3k5/9/9/9/9/9/9/3n5/R8/4K4 w - - 0 1 ;D1 4\n\
         3k5/9/9/9/9/9/9/3n5/R8/4K4 w - - 0 1 ;D1 four\n",
    )
    .unwrap();
    let mixed_name = mixed.to_str().unwrap();
    let out = chariot(&["perft", "--epd", mixed_name]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("chariot perft: {mixed_name}:1: invalid FEN: ")),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "chariot perft: {mixed_name}:3: expected ';Dn count', got 'D1 four'; skipped"
        )),
        "{err}"
    );
    assert!(
        text.contains("1 counts checked on 1 positions, 0 mismatches")
            && text.contains("; 2 malformed lines skipped"),
        "{text}"
    );
    let out = chariot(&["perft", "--epd", mixed_name, "--lenient"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Nothing to check is an error of its own.
    let empty = dir.join("empty.epd");
    std::fs::write(&empty, "# no positions\n\n").unwrap();
    let out = chariot(&["perft", "--epd", empty.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("has no position with perft counts"),
        "{out:?}"
    );
}

#[test]
fn every_bad_depth_gets_the_depth_message() {
    for depth in ["-1", "99", "-99999999999999999999", "x"] {
        let out = chariot(&["perft", depth]);
        assert_eq!(out.status.code(), Some(2), "{depth}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            err.trim_end(),
            format!(
                "chariot perft: perft depth must be a whole number from 0 to 64, not '{depth}'"
            ),
            "{depth}"
        );
    }
}
