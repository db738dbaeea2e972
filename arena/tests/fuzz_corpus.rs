//! Replays the `arena_config` fuzz corpus (`fuzz/corpus/arena_config/`: the
//! seeds and every past finding) through the property the cargo-fuzz
//! target checks (`arena::fuzzing::config`), so stable CI keeps it.

use std::path::PathBuf;

#[test]
fn arena_config_corpus() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/arena_config");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    files.sort();
    let mut accepted = 0;
    for file in &files {
        let data = std::fs::read(file).expect("a corpus file");
        println!("{}", file.display());
        accepted += usize::from(arena::fuzzing::config(&data));
    }
    // The clock and node seeds are whole tournaments: the checks of an
    // accepted configuration must have run.
    assert!(accepted >= 2, "only {accepted} of {} accepted", files.len());
}

/// The seeds that must be refused stay refused, so the count above means
/// what it says.
#[test]
fn refused_configurations() {
    for bad in [
        "--engine name=a cmd=x --engine name=a cmd=y --depth 4",
        "--engine cmd=a --engine cmd=b --tc 0",
        "--engine cmd=a --engine cmd=b --tc 5 --sprt elo0=1 elo1=1",
        "--engine cmd=a --engine cmd=b --tc 5 --openings o.epd\n9/9/9 w",
    ] {
        assert!(!arena::fuzzing::config(bad.as_bytes()), "{bad:?} accepted");
    }
    assert!(arena::fuzzing::config(
        b"--engine cmd=a --engine cmd=b --nodes 10 --sprt elo0=0 elo1=5"
    ));
}
