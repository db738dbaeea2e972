//! The `chariot` command line outside its subcommands: `--version` and
//! `--help`.

use std::process::{Command, Output};

fn chariot(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(args)
        .output()
        .expect("chariot runs")
}

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
