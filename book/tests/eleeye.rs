//! The `BOOK.DAT` reader against ElephantEye's real book, whose known
//! answers are listed in `docs/book-formats.md`. The file is LGPL data that
//! is not part of this repository: these tests run when
//! `CHARIOT_ELEEYE_BOOK` names it at build time and are otherwise listed as
//! ignored with that instruction (see `book/build.rs`); run with `--ignored`
//! without it they fail saying what is missing.

use board::Position;
use book::{AnyBook, BookSet, EleeyeBook};

/// Where the build found the book (`book/build.rs`).
const BOOK_DAT: Option<&str> = option_env!("CHARIOT_ELEEYE_BOOK");

fn load() -> Vec<u8> {
    let Some(path) = BOOK_DAT else {
        panic!("set CHARIOT_ELEEYE_BOOK to ElephantEye's BOOK.DAT (docs/book-formats.md §1)");
    };
    std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn moves(book: &EleeyeBook, pos: &Position) -> Vec<(String, u32)> {
    book.probe(pos)
        .iter()
        .map(|m| (m.mv.to_string(), m.weight))
        .collect()
}

fn owned(list: &[(&str, u32)]) -> Vec<(String, u32)> {
    list.iter().map(|&(m, w)| (m.to_string(), w)).collect()
}

#[test]
#[cfg_attr(
    not(eleeye_book),
    ignore = "needs ElephantEye's BOOK.DAT: CHARIOT_ELEEYE_BOOK=/path/to/BOOK.DAT (docs/book-formats.md §1)"
)]
fn known_answers_of_the_real_book() {
    let data = load();
    assert_eq!(data.len(), 96_648);
    let book = EleeyeBook::from_bytes(&data).unwrap();
    assert_eq!(book.len(), 12_081);
    let mut pos = Position::startpos();
    assert_eq!(
        moves(&book, &pos),
        owned(&[
            ("b2e2", 1473),
            ("h2e2", 1473),
            ("c3c4", 546),
            ("g3g4", 546),
            ("c0e2", 311),
            ("g0e2", 311),
            ("b0c2", 89),
            ("h0g2", 89),
            ("b2f2", 42),
            ("h2d2", 42),
            ("b2d2", 37),
            ("h2f2", 37),
            ("b0a2", 18),
            ("h0i2", 18),
            ("b2g2", 2),
            ("h2c2", 2),
        ])
    );
    // After h2e2 only the mirror (b2e2) is stored; its moves come back
    // mirrored.
    pos.play("h2e2".parse().unwrap()).unwrap();
    assert_eq!(
        moves(&book, &pos),
        owned(&[("h9g7", 761), ("b9c7", 172), ("h7e7", 97), ("b7e7", 1)])
    );
    let mut mirror = Position::startpos();
    mirror.play("b2e2".parse().unwrap()).unwrap();
    assert_eq!(
        moves(&book, &mirror),
        owned(&[("b9c7", 761), ("h9g7", 172), ("b7e7", 97), ("h7e7", 1)])
    );
}

#[test]
#[cfg_attr(
    not(eleeye_book),
    ignore = "needs ElephantEye's BOOK.DAT: CHARIOT_ELEEYE_BOOK=/path/to/BOOK.DAT (docs/book-formats.md §1)"
)]
fn every_move_the_real_book_gives_along_its_main_lines_is_legal() {
    let data = load();
    let set = BookSet::from_books(vec![AnyBook::from_bytes(&data).unwrap()]);
    // Follow the heaviest move for 20 plies from the start; every move the
    // set returns must be legal where it is played.
    let mut pos = Position::startpos();
    let mut plies = 0;
    while let Some(choice) = set.choose(&pos, 0, 0) {
        assert!(pos.is_legal(choice.mv));
        for (mv, _) in &choice.candidates {
            assert!(pos.is_legal(*mv), "{mv} in {}", pos.fen());
        }
        pos.play(choice.mv).unwrap();
        plies += 1;
        if plies == 20 {
            break;
        }
    }
    assert!(
        plies >= 8,
        "the main line left the book after {plies} plies"
    );
}

#[test]
#[cfg_attr(
    not(eleeye_book),
    ignore = "needs ElephantEye's BOOK.DAT: CHARIOT_ELEEYE_BOOK=/path/to/BOOK.DAT (docs/book-formats.md §1)"
)]
fn truncated_book_dat_is_refused() {
    let data = load();
    let err = AnyBook::from_bytes(&data[..data.len() - 3]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "not an opening book (96645 bytes: no Chariot book header, and not a whole number of 8-byte BOOK.DAT records)"
    );
    // Records out of order (first and last swapped) are refused too.
    let mut swapped = data.clone();
    let n = swapped.len();
    swapped[..8].copy_from_slice(&data[n - 8..]);
    swapped[n - 8..].copy_from_slice(&data[..8]);
    assert_eq!(
        AnyBook::from_bytes(&swapped).unwrap_err().to_string(),
        "book record 1: BOOK.DAT locks are not in ascending order"
    );
}
