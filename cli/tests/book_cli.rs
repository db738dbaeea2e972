//! `chariot book` on compressed game records: `.xz` files are read
//! in-process, so a machine without the `xz` program builds the same book
//! from them as from the plain text.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

const SAMPLE_PGN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../book/tests/data/ccpd-sample.pgn"
);

/// `chariot book …` with an empty `PATH`: no external program can be run.
fn chariot_without_path(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(args)
        .env("PATH", "")
        .output()
        .expect("chariot runs")
}

fn xz_compress(text: &[u8], to: &Path) {
    let file = std::fs::File::create(to).expect("create");
    let mut enc = liblzma::write::XzEncoder::new(file, 6);
    enc.write_all(text).expect("compress");
    enc.finish().expect("finish");
}

#[test]
fn xz_games_build_the_same_book_without_the_xz_program() {
    let dir = test_support::scratch_dir("book-cli");
    let pgn = std::fs::read(SAMPLE_PGN).unwrap();
    let xz = dir.join("sample.pgn.xz");
    xz_compress(&pgn, &xz);
    let plain_book = dir.join("plain.book");
    let xz_book = dir.join("xz.book");
    let args = |out: &Path, games: &str| {
        vec![
            "book".to_string(),
            "build".to_string(),
            "--out".to_string(),
            out.display().to_string(),
            "--min-games".to_string(),
            "1".to_string(),
            games.to_string(),
        ]
    };
    for (out, games) in [
        (&plain_book, SAMPLE_PGN.to_string()),
        (&xz_book, xz.display().to_string()),
    ] {
        let a = args(out, &games);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = chariot_without_path(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{games}: {err}");
        // stderr is a pipe here: plain progress lines, no bar.
        let name = Path::new(&games)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            err.lines().any(|l| l.starts_with(&format!("{name}: "))
                && l.contains(" games (100.0 %), ")
                && l.contains(" games/s, done in ")),
            "{err}"
        );
        assert!(!err.contains('\r'), "{err:?}");
    }
    let (plain, packed) = (
        std::fs::read(&plain_book).unwrap(),
        std::fs::read(&xz_book).unwrap(),
    );
    assert!(plain.len() > 64, "a book with moves");
    assert_eq!(plain, packed);
    // A damaged .xz file is a clear error, not a crash.
    let bad = dir.join("bad.pgn.xz");
    std::fs::write(&bad, b"not xz at all").unwrap();
    let out = dir.join("bad.book");
    let a = args(&out, &bad.display().to_string());
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = chariot_without_path(&a);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.pgn.xz") && err.contains("xz"), "{err}");
}
