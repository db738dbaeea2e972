//! The opening book in play (`docs/ucci.md` §3, `docs/book-formats.md`):
//! only for clock-limited searches, weakened levels, variety, bad book
//! files.

use super::*;

#[test]
fn extra_book_only_for_clock_limited_searches() {
    let mut e = Engine::ucci();
    e.send("go time 60000 increment 0");
    let (before, line, _) = e.final_line(SEARCH);
    let m = legal_best(&line, &board::Position::startpos());
    let announced = format!("info string book move {m}");
    let at = before
        .iter()
        .position(|l| l.starts_with(&announced))
        .unwrap_or_else(|| panic!("no announcement: {before:?}"));
    assert!(
        before[at..].iter().any(|l| l.starts_with("info depth ")),
        "the book move is checked by a search: {before:?}"
    );
    for go in ["go depth 2", "go nodes 3000", "go ponder time 60000"] {
        e.send(go);
        if go.contains("ponder") {
            std::thread::sleep(Duration::from_millis(300));
            e.send("stop");
        }
        let (before, line, _) = e.final_line(SEARCH);
        legal_best(&line, &board::Position::startpos());
        assert!(
            !before.iter().any(|l| l.contains("book move")),
            "{go}: {before:?}"
        );
    }
    e.send_all(&["setoption usebook false", "go movetime 200"]);
    let (before, _, _) = e.final_line(SEARCH);
    assert!(
        !before.iter().any(|l| l.contains("book move")),
        "{before:?}"
    );
    e.send_all(&[
        "setoption usebook true",
        "setoption bookfiles /no/such/book.obk",
    ]);
    let before = e.sync();
    assert_eq!(before.len(), 1, "{before:?}");
    e.send("go movetime 200");
    let (before, _, _) = e.final_line(SEARCH);
    assert!(
        !before.iter().any(|l| l.contains("book move")),
        "{before:?}"
    );
}

#[test]
fn extra_a_weakened_level_plays_the_book() {
    // A level's node budget must not read as a node-limited `go`: skill 3
    // and UCI_Elo 1000 ask the book as full strength does.
    for setup in [
        &["setoption name Skill Level value 3"][..],
        &[
            "setoption name UCI_LimitStrength value true",
            "setoption name UCI_Elo value 1000",
        ][..],
    ] {
        let mut e = Engine::uci();
        e.send_all(setup);
        e.send_all(&["position startpos", "go wtime 60000 btime 60000"]);
        let (before, line, _) = e.final_line(SEARCH);
        legal_best(&line, &board::Position::startpos());
        assert!(
            before
                .iter()
                .any(|l| l.starts_with("info string book move ")),
            "{setup:?}: {before:?}"
        );
    }
}

#[test]
fn extra_book_variety_zero_plays_the_heaviest_move() {
    let mut e = Engine::uci();
    e.send("setoption name BookVariety value 0");
    for _ in 0..3 {
        e.send("go movetime 100");
        let (before, _, _) = e.final_line(SEARCH);
        let line = before
            .iter()
            .find(|l| l.starts_with("info string book move "))
            .unwrap_or_else(|| panic!("no book move: {before:?}"));
        // "book move M among M1(w1) M2(w2) …", heaviest first.
        let words: Vec<&str> = line.split_whitespace().collect();
        let heaviest = words[6].split('(').next().unwrap_or_default();
        assert_eq!(words[4], heaviest, "{line}");
    }
}

/// A list of books with a missing one plays from the books that opened,
/// in either order, and names the missing one with the OS's whole words.
#[test]
fn extra_books_degrade_gracefully() {
    for spec in ["/missing.book;<builtin>", "<builtin>;/missing.book"] {
        let mut e = Engine::uci();
        e.send(&format!("setoption name BookFile value {spec}"));
        let diag = e.sync();
        assert_eq!(
            diag,
            [
                "info string book /missing.book not opened: No such file or directory (os error 2); \
              using the 1 book that opened"
            ],
            "{spec}"
        );
        e.send_all(&["position startpos", "go movetime 200"]);
        let (before, _, _) = e.final_line(SEARCH);
        assert!(
            before
                .iter()
                .any(|l| l.starts_with("info string book move ")),
            "{spec}: {before:?}"
        );
    }
    let mut e = Engine::ucci();
    // A long path is shortened in the middle; the reason stays whole.
    let long = format!("/missing{}/x.book", "/deep".repeat(40));
    e.send(&format!("setoption bookfiles {long};/missing.book"));
    let diag = e.sync();
    assert_eq!(diag.len(), 2, "{diag:?}");
    for d in &diag {
        assert!(
            d.ends_with(
                " not opened: No such file or directory (os error 2); playing without a book"
            ),
            "{d}"
        );
    }
    assert!(diag[0].starts_with("info string book /missing/deep/") && diag[0].contains("..."));
    assert!(
        diag[0].contains("/x.book not opened: ") && diag[0].len() < 220,
        "{}",
        diag[0]
    );
}
