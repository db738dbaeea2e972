//! The built-in book (built from the CCPD games, see `book/data/NOTICE`):
//! it opens like a master, every move it stores is legal in its position,
//! and its text form reads back to the same bytes.

use board::Position;
use book::{BUILTIN_BOOK, Book, BookSet, text};
use test_support::mv;

#[test]
fn the_start_position_gets_the_main_line_openings() {
    let set = BookSet::open("<builtin>").unwrap();
    let start = Position::startpos();
    let candidates: Vec<(String, u32)> = set
        .candidates(&start)
        .iter()
        .map(|(m, w)| (m.to_string(), *w))
        .collect();
    let top: Vec<(&str, u32)> = candidates
        .iter()
        .take(9)
        .map(|(m, w)| (m.as_str(), *w))
        .collect();
    assert_eq!(
        top,
        [
            ("h2e2", 17441), // central cannon
            ("c3c4", 5306),  // soldier opening
            ("g0e2", 2661),  // elephant opening
            ("b0c2", 1104),  // horse opening
            ("h2d2", 979),
            ("g3g4", 788),
            ("b2e2", 505), // central cannon, left-hand
            ("h0g2", 423),
            ("h2f2", 339),
        ]
    );
    assert_eq!(candidates.len(), 16);
    assert_eq!(set.choose(&start, 0, 7).unwrap().mv, mv("h2e2"));
    // Black answers the central cannon with the screen horses or the
    // same-direction cannon, in either orientation.
    for first in ["h2e2", "b2e2"] {
        let mut pos = Position::startpos();
        pos.play(mv(first)).unwrap();
        let answers: Vec<(String, u32)> = set
            .candidates(&pos)
            .iter()
            .map(|(m, w)| (m.to_string(), *w))
            .take(3)
            .collect();
        let want: [(&str, u32); 3] = if first == "h2e2" {
            [("h9g7", 10163), ("b9c7", 2713), ("h7e7", 2065)]
        } else {
            [("b9c7", 10163), ("h9g7", 2713), ("b7e7", 2065)]
        };
        let want: Vec<(String, u32)> = want.iter().map(|&(m, w)| (m.to_string(), w)).collect();
        assert_eq!(answers, want, "after {first}");
    }
}

#[test]
fn every_stored_move_is_legal_and_the_text_form_round_trips() {
    let book = Book::from_bytes(BUILTIN_BOOK).unwrap();
    assert_eq!((book.len(), book.positions()), (5925, 4541));
    assert!(BUILTIN_BOOK.len() <= 300_000);
    // The dump finds every record's position; the import re-checks each
    // move for legality in that position.
    let (dumped, stats) = text::dump(&book);
    assert_eq!((stats.with_fen, stats.key_only), (5925, 0));
    let imported = text::import(&dumped).unwrap();
    assert_eq!(imported.to_bytes(), BUILTIN_BOOK);
    // And probing each dumped position returns its moves, legal ones only.
    let mut checked = 0;
    for line in dumped.lines().filter(|l| !l.starts_with('#')) {
        let fen = line.split('\t').next().unwrap();
        let pos = Position::from_fen(fen).unwrap();
        let moves = book.probe(&pos);
        assert!(
            !moves.is_empty() && moves.iter().all(|m| pos.is_legal(m.mv)),
            "{fen}"
        );
        checked += 1;
    }
    assert_eq!(checked, 5925);
}

#[test]
fn following_the_book_never_repeats_and_stays_legal() {
    let set = BookSet::open("<builtin>").unwrap();
    let mut total = 0;
    for seed in 0..20u64 {
        let mut pos = Position::startpos();
        let mut plies = 0;
        while let Some(choice) = set.choose(&pos, 100, seed.wrapping_mul(31).wrapping_add(plies)) {
            assert!(pos.is_legal(choice.mv));
            pos.play(choice.mv).unwrap();
            let key = pos.key();
            assert!(pos.history().iter().all(|s| s.key != key));
            plies += 1;
        }
        assert!(plies >= 2, "seed {seed}: only {plies} book plies");
        total += plies;
    }
    // The walks are a function of the seeds (rand_pcg streams): the same
    // total on every run and machine.
    assert_eq!(total, 333);
}
