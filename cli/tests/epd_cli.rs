//! `chariot epd` through the real binary: every operation and notation,
//! several `bm` moves, failing positions, malformed lines (named with their
//! line numbers and skipped), the exit statuses, and the project's own
//! suites.

use std::path::PathBuf;

mod common;
use common::chariot;

/// Mate in one for Black: the rook g5g1 (WXF `R7+4`, Chinese `车7进4`).
const MATE_IN_1: &str = "C1bak4/3Na4/4b4/7R1/6r1p/2B6/P3P3P/1c1A1n3/4K4/3n1AB2 b - - 7 41";
/// Mate in two for Black with two first moves, c2d0 and c2d4.
const MATE_IN_2: &str = "C1bak4/3Na4/4b4/7R1/6r1p/2B6/P3P3P/1cnAKn3/9/5AB2 b - - 5 40";
/// Red must not let the cannon mate: d2f2, d2g2, d2h2 and d2i2 lose.
const AVOID: &str = "2bk1a3/4a4/4b4/4p2Np/p3c4/8P/P1n1P4/2RC5/3rA4/2BAK4 w - - 23 43";
/// The start position.
const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// Writes `text` to a file in a fresh scratch directory, which the test
/// keeps as long as it needs the file.
fn suite(name: &str, text: &str) -> (test_support::Scratch, PathBuf) {
    let dir = test_support::scratch_dir("epd-cli");
    let path = dir.join(format!("{name}.epd"));
    std::fs::write(&path, text).expect("write suite");
    (dir, path)
}

/// Runs `chariot epd` on `text` with `limit` (e.g. `["--depth", "4"]`);
/// returns the exit code, stdout and stderr.
fn run(name: &str, text: &str, limit: &[&str]) -> (i32, String, String) {
    let (_dir, path) = suite(name, text);
    let path = path.display().to_string();
    let mut args = vec!["epd", path.as_str()];
    args.extend_from_slice(limit);
    let out = chariot(&args);
    (
        out.status.code().expect("an exit code"),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The report line of the position on line `line` of the suite.
fn line_of(stdout: &str, line: usize) -> &str {
    let tag = format!("  line {line}");
    stdout
        .lines()
        .find(|l| l.contains(&format!("{tag} ")) || l.ends_with(&tag))
        .unwrap_or_else(|| panic!("no report of line {line} in {stdout}"))
}

#[test]
fn every_operation_is_solved_and_reported() {
    let text = format!(
        "{MATE_IN_1} ; bm g5g1 ; id \"best move\"\n\
         {AVOID} ; am d2f2 d2g2 d2h2 d2i2 ; id \"avoid\"\n\
         {MATE_IN_1} ; dm 1 ; id \"mate only\"\n\
         {MATE_IN_2} ; bm c2d0 c2d4 ; dm 2 ; id \"two best moves\"\n"
    );
    let (code, out, err) = run("operations", &text, &["--depth", "5"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.is_empty(), "{err}");
    let first = line_of(&out, 1);
    assert!(
        first.starts_with("solved g5g1 ") && first.contains("score mate 1"),
        "{first}"
    );
    assert!(first.contains("from depth 1 ("), "{first}");
    assert!(first.ends_with("line 1 \"best move\""), "{first}");
    let avoid = line_of(&out, 2);
    assert!(avoid.starts_with("solved "), "{avoid}");
    for lost in ["d2f2", "d2g2", "d2h2", "d2i2"] {
        assert!(!avoid.starts_with(&format!("solved {lost}")), "{avoid}");
    }
    assert!(line_of(&out, 3).starts_with("solved g5g1 "), "{out}");
    let two = line_of(&out, 4);
    assert!(
        (two.starts_with("solved c2d0 ") || two.starts_with("solved c2d4 "))
            && two.contains("score mate 2"),
        "{two}"
    );
    assert!(
        out.lines()
            .last()
            .is_some_and(|l| l.starts_with("Solved 4 of 4 (100.0 %) in ")),
        "{out}"
    );
}

#[test]
fn moves_in_every_notation() {
    for (name, text) in [
        ("iccs", "g5g1"),
        ("iccs-hyphen", "G5-G1"),
        ("wxf", "R7+4"),
        ("chinese-simplified", "车7进4"),
        ("chinese-traditional", "車7進4"),
    ] {
        let (code, out, err) = run(
            &format!("notation-{name}"),
            &format!("{MATE_IN_1} ; bm {text}\n"),
            &["--depth", "2"],
        );
        assert_eq!(code, 0, "{text}: {out}{err}");
        assert!(out.starts_with("solved g5g1 "), "{text}: {out}");
    }
    // Both of the mate in two's first moves, written in WXF and Chinese.
    let (code, out, err) = run(
        "notation-mixed",
        &format!("{MATE_IN_2} ; bm N3+4 马3退4 ; dm 2\n"),
        &["--depth", "4"],
    );
    assert_eq!(code, 0, "{out}{err}");
}

#[test]
fn a_failing_position_gives_status_1_and_says_what_was_wanted() {
    let text = format!(
        "{MATE_IN_1} ; bm g5g1\n\
         {START} ; bm a0a1 ; id \"rook lift\"\n\
         {START} ; dm 3\n\
         {MATE_IN_1} ; am g5g1\n"
    );
    let (code, out, err) = run("failing", &text, &["--depth", "3"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.is_empty(), "{err}");
    assert!(line_of(&out, 1).starts_with("solved "), "{out}");
    let rook = line_of(&out, 2);
    assert!(
        rook.starts_with("FAILED ")
            && rook.contains("wanted bm a0a1")
            && rook.ends_with("\"rook lift\""),
        "{rook}"
    );
    assert!(line_of(&out, 3).contains("wanted dm 3"), "{out}");
    let mated = line_of(&out, 4);
    assert!(
        mated.starts_with("FAILED g5g1 ") && mated.contains("wanted am g5g1"),
        "{mated}"
    );
    assert!(out.contains("Solved 1 of 4 (25.0 %)"), "{out}");
}

#[test]
fn malformed_lines_are_named_and_skipped() {
    // CR LF line ends, a comment and a blank line among them.
    let text = format!(
        "# a suite with mistakes\r\n\
         {MATE_IN_1} ; bm g5g1 ; id \"good\"\r\n\
         \r\n\
         rnbakabnr/9/1c5c1 w ; bm h2e2\r\n\
         {START} ; bm h2e3\r\n\
         {START} ; bm 炮九平五\r\n\
         {START} ; dm 0\r\n\
         {START} ; dm two\r\n\
         {START} ; id \"nothing to solve\"\r\n\
         {START}\r\n\
         {START} ; id \"unclosed\r\n\
         {MATE_IN_1} ; dm 1\r\n"
    );
    let (code, out, err) = run("malformed", &text, &["--depth", "2"]);
    assert_eq!(code, 1, "malformed lines fail the run: {out}{err}");
    let errors: Vec<&str> = err.lines().collect();
    let expect = [
        (4, "bad position"),
        (5, "bm 'h2e3'"),
        (6, "bm '炮九平五'"),
        (7, "dm needs one whole number of moves from 1, not '0'"),
        (8, "not 'two'"),
        (9, "no bm, am or dm operation"),
        (10, "no bm, am or dm operation"),
        (11, "a quoted string is not closed"),
    ];
    assert_eq!(errors.len(), expect.len(), "{err}");
    for ((line, why), got) in expect.iter().zip(&errors) {
        assert!(
            got.starts_with("chariot epd: ")
                && got.contains(&format!("malformed.epd:{line}: "))
                && got.contains(why)
                && got.ends_with("skipped"),
            "line {line}: {got}"
        );
    }
    assert!(line_of(&out, 2).starts_with("solved g5g1 "), "{out}");
    assert!(line_of(&out, 12).starts_with("solved g5g1 "), "{out}");
    assert!(
        out.contains("Solved 2 of 2 (100.0 %)") && out.contains("; 8 malformed lines skipped"),
        "{out}"
    );
    // --lenient names them the same way but lets the solved suite pass.
    let (code, out, err) = run("malformed", &text, &["--depth", "2", "--lenient"]);
    assert_eq!(code, 0, "the good lines are solved: {out}{err}");
    assert_eq!(err.lines().count(), expect.len(), "{err}");
}

#[test]
fn a_suite_without_a_position_to_solve_is_an_error() {
    for (name, text) in [
        ("empty", ""),
        ("blank", "\r\n\n  \n"),
        ("comments", "# nothing\n"),
        ("all-bad", "garbage ; bm h2e2\n"),
        ("no-goal", &format!("{START} ; id \"x\"\n")),
    ] {
        let (code, out, err) = run(name, text, &["--depth", "1"]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(out.is_empty(), "{name}: {out}");
        assert!(
            err.lines()
                .last()
                .is_some_and(|l| l.contains(&format!("{name}.epd has no position to solve"))),
            "{name}: {err}"
        );
    }
}

#[test]
fn usage_errors_give_status_2() {
    let (_dir, path) = suite("usage", &format!("{MATE_IN_1} ; bm g5g1\n"));
    let path = path.display().to_string();
    for args in [
        vec!["epd"],
        vec!["epd", "/no/such/suite.epd"],
        vec!["epd", path.as_str(), "--depth", "0"],
        vec!["epd", path.as_str(), "--depth", "3", "--nodes", "1000"],
        vec!["epd", path.as_str(), "--movetime", "x"],
        vec!["epd", path.as_str(), "--threads", "0"],
        vec!["epd", path.as_str(), "--hash", "0"],
        vec!["epd", path.as_str(), "--tt", "lru"],
    ] {
        let out = chariot(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let out = chariot(&["epd", "/no/such/suite.epd"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("chariot epd: cannot read /no/such/suite.epd: "),
        "{err}"
    );
}

#[test]
fn every_limit_runs() {
    let text = format!("{MATE_IN_1} ; bm g5g1\n");
    for limit in [
        &["--nodes", "2000"][..],
        &["--movetime", "50"],
        &["--depth", "3", "--threads", "2", "--hash", "4"],
        &["--depth", "3", "--tt", "off"],
        &["--depth", "3", "--tt", "bucket"],
    ] {
        let (code, out, err) = run("limits", &text, limit);
        assert_eq!(code, 0, "{limit:?}: {out}{err}");
        assert!(out.starts_with("solved g5g1 "), "{limit:?}: {out}");
    }
}

#[test]
fn the_project_suites_run() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let positions = format!("{root}/tests/data/positions.epd");
    let out = chariot(&["epd", &positions, "--depth", "8"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(out.stderr.is_empty());
    assert!(text.contains("Solved 36 of 36 (100.0 %)"), "{text}");
    // The mistakes suite reads whole; whether each is avoided at a small
    // budget is the search's business.
    let mistakes = format!("{root}/engine/data/mistakes.epd");
    let out = chariot(&["epd", &mistakes, "--depth", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{text}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(" of 10 ("), "{text}");
}
