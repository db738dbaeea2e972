//! Replays the fuzz corpus (`fuzz/corpus/<target>/`: the seeds and every
//! past finding) through the same properties the cargo-fuzz targets check
//! (`fuzz_props`), so stable CI keeps them without nightly.

use std::path::PathBuf;

use fuzz_props as fuzzing;

/// Runs every file of `fuzz/corpus/<target>` through `property`.
fn replay(target: &str, mut property: impl FnMut(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus in {}", dir.display());
    for file in files {
        let data = std::fs::read(&file).expect("a corpus file");
        println!("{}", file.display());
        property(&data);
    }
}

#[test]
fn fen_corpus() {
    replay("fen", fuzzing::fen);
}

#[test]
fn moves_corpus() {
    replay("moves", fuzzing::moves);
}

#[test]
fn protocol_corpus() {
    let mut checked = 0;
    replay("protocol", |data| checked += fuzzing::protocol(data));
    // The seeds play moves: the legality check must have seen some.
    assert!(checked >= 4, "only {checked} bestmove lines checked");
}

#[test]
fn book_corpus() {
    replay("book", fuzzing::book);
}

#[test]
fn network_corpus() {
    replay("network", fuzzing::network);
}

#[test]
fn records_corpus() {
    replay("records", fuzzing::records);
}

#[test]
fn games_corpus() {
    replay("games", fuzzing::games);
}

#[test]
fn epd_corpus() {
    replay("epd", fuzzing::epd);
}

/// The shipped network and book are too big for the corpus; they go
/// through the same properties here.
#[test]
fn shipped_network_and_book() {
    fuzzing::network(include_bytes!("../../engine/nets/default.nnue"));
    fuzzing::book(book::BUILTIN_BOOK);
}
