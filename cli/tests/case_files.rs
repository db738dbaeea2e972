//! The one policy of the commands that read files of cases
//! (`cli/src/cases.rs`), for `book build`, `book import` and `data
//! check` (`epd` and `perft --epd` have theirs in their own files): a
//! malformed record is named with its file and line, the run goes on, the
//! status is 1 (0 with `--lenient`), and nothing to check is status 2.
//! Also: `<builtin>` is a book wherever a book file is read.

use std::path::Path;

mod common;
use common::chariot;

const SAMPLE_PGN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../book/tests/data/ccpd-sample.pgn"
);

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A scratch directory for one test, removed when it ends.
fn scratch(name: &str) -> test_support::Scratch {
    test_support::scratch_dir(&format!("cases-{name}"))
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

#[test]
fn book_build_names_a_bad_record_and_goes_on() {
    let dir = scratch("build");
    let sample = std::fs::read_to_string(SAMPLE_PGN).expect("sample");
    // The sample's games, then one whose third move cannot be played.
    let bad_line = sample.lines().count() + 2;
    let games = dir.join("games.pgn");
    std::fs::write(
        &games,
        format!("{sample}\n[Result \"1-0\"]\n\n1. 炮二平五 馬８進７ 2. 炮五進九 1-0\n"),
    )
    .expect("write");
    let out = dir.join("out.book");
    let build = |extra: &[&str]| {
        let mut args = vec!["book", "build", "--out", s(&out), "--min-games", "1"];
        args.extend_from_slice(extra);
        args.push(s(&games));
        chariot(&args)
    };
    let o = build(&[]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let named = format!(
        "chariot book build: {}:{bad_line}: game record: ply 3",
        s(&games)
    );
    assert!(err.contains(&named), "want {named} in {err}");
    assert!(
        text(&o.stdout).contains("; 1 malformed line skipped"),
        "{}",
        text(&o.stdout)
    );
    // The other games made the book all the same.
    let probe = chariot(&["book", "probe", s(&out)]);
    assert!(probe.status.success());
    assert!(!text(&probe.stdout).contains("no book moves"));
    assert_eq!(build(&["--lenient"]).status.code(), Some(0));
    // A file without a game record is nothing to build from.
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, "\n").expect("write");
    let o = chariot(&[
        "book",
        "build",
        "--out",
        s(&dir.join("none.book")),
        s(&empty),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("has no game record"));
    assert!(!dir.join("none.book").exists(), "no empty book written");
}

#[test]
fn book_import_names_every_bad_line() {
    let dir = scratch("import");
    let dumped = chariot(&["book", "dump", "<builtin>"]);
    assert!(dumped.status.success(), "{}", text(&dumped.stderr));
    // The header comment, ten records, a bad line at line 3 and the first
    // record again at line 13.
    let mut lines: Vec<String> = text(&dumped.stdout).lines().map(String::from).collect();
    assert!(lines.len() > 11 && lines[0].starts_with('#'));
    lines.truncate(11);
    lines.insert(2, "not a book line".to_string());
    lines.push(lines[1].clone());
    let input = dir.join("book.txt");
    std::fs::write(&input, lines.join("\n")).expect("write");
    let out = dir.join("imported.book");
    let o = chariot(&["book", "import", s(&input), "--out", s(&out)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{}:3: expected FEN", s(&input))),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}:13: position and move", s(&input))),
        "{err}"
    );
    assert!(text(&o.stdout).contains("wrote ") && text(&o.stdout).contains("(10 records"));
    let o = chariot(&["book", "import", s(&input), "--out", s(&out), "--lenient"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "# nothing\n").expect("write");
    let o = chariot(&["book", "import", s(&empty), "--out", s(&out)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}

#[test]
fn builtin_is_a_book_wherever_a_book_is_read() {
    let o = chariot(&["book", "probe", "<builtin>"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("h2e2 weight "),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn data_check_names_a_bad_chunk_and_an_empty_manifest_is_an_error() {
    let dir = scratch("data");
    let manifest = dir.join("MANIFEST.toml");
    std::fs::write(
        &manifest,
        "name = \"test\"\nformat = \"chariot games v1\"\n\n[[chunk]]\n\
         file = \"missing.games.xz\"\nsha256 = \"00\"\nbytes = 1\n\
         command = \"chariot datagen\"\nengine = \"chariot\"\neval = \"hand\"\n\
         seed = 1\ngames = 1\nplies = 1\nscored = 1\nkept = 1\nseconds = 1.0\n",
    )
    .expect("write");
    let o = chariot(&["data", "check", s(&dir)]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with(&format!(
            "chariot data check: {}: ",
            s(&dir.join("missing.games.xz"))
        )) && err.trim_end().ends_with("; skipped"),
        "{err}"
    );
    std::fs::write(
        &manifest,
        "name = \"test\"\nformat = \"chariot games v1\"\n",
    )
    .expect("write");
    let o = chariot(&["data", "check", s(&dir)]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("has no chunk"));
    let o = chariot(&["data", "check", s(&dir.join("nowhere"))]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
}
