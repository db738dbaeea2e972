//! The `chariot` command line outside its subcommands: `--version` and
//! `--help`, and what a closed stdout costs the tools (nothing but their
//! report).

use std::process::{Command, Output};

mod common;
use common::chariot;

#[test]
fn version_names_the_commit_and_the_build_date() {
    let out = chariot(&["--version"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    // "chariot 0.1.0 (commit abc1234, built 2026-11-24)"
    let rest = text
        .trim_end()
        .strip_prefix(&format!("chariot {} (commit ", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{text}"));
    let (commit, date) = rest
        .strip_suffix(')')
        .and_then(|r| r.split_once(", built "))
        .unwrap_or_else(|| panic!("{text}"));
    let hash = commit;
    assert!(
        hash == "unknown" || (hash.len() >= 7 && hash.bytes().all(|b| b.is_ascii_hexdigit())),
        "{text}"
    );
    let parts: Vec<&str> = date.split('-').collect();
    assert_eq!(
        parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
        [4, 2, 2],
        "{text}"
    );
    assert!(
        date.bytes().all(|b| b.is_ascii_digit() || b == b'-'),
        "{text}"
    );
}

#[test]
fn help_says_no_command_starts_the_engine() {
    for flag in ["-h", "--help"] {
        let out = chariot(&[flag]);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("With no command, chariot starts the")
                && text.contains("UCCI")
                && text.contains("UCI"),
            "{flag}: {text}"
        );
    }
}

/// Runs `chariot args` with a stdout whose reader is gone before it
/// starts (`chariot … | head` after head has quit): every write fails.
fn chariot_with_closed_stdout(args: &[&std::ffi::OsStr]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(args)
        .stdout(writer)
        .output()
        .expect("chariot runs")
}

/// A reader that went away loses only the report: `datagen` still writes
/// its games and records them in the manifest, `data check` still checks,
/// and nothing panics.
#[test]
fn a_closed_stdout_costs_datagen_and_data_nothing() {
    let dir = test_support::scratch_dir("closed-stdout");
    let (games, manifest) = (dir.join("sp-0.games"), dir.join("MANIFEST.toml"));
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../arena/data/openings.epd");
    let words = [
        "datagen",
        "--games",
        "2",
        "--nodes",
        "200",
        "--openings",
        openings,
    ];
    let mut args: Vec<&std::ffi::OsStr> = words.iter().map(std::ffi::OsStr::new).collect();
    args.extend(["--out".as_ref(), games.as_os_str()]);
    args.extend(["--manifest".as_ref(), manifest.as_os_str()]);
    let out = chariot_with_closed_stdout(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let listed = std::fs::read_to_string(&manifest).expect("the manifest was written");
    assert!(listed.contains("file = \"sp-0.games\""), "{listed}");
    let out = chariot_with_closed_stdout(&["data".as_ref(), "check".as_ref(), dir.as_os_str()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_closed_stdout_ends_bench_quietly() {
    let args = ["bench", "--depth", "2"].map(std::ffi::OsStr::new);
    let out = chariot_with_closed_stdout(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
}
