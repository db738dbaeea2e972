//! Chariot's book format: build → bytes → dump → import → identical bytes,
//! mirrored lookups, absent positions, damaged files, and the choice of a
//! move by a `BookSet` (weights, variety, no repetition, legality).

use board::{GameResult, Position};
use book::builder::{BookBuilder, BuildOptions};
use book::pgn;
use book::{AnyBook, Book, BookError, BookSet, Entry, Wdl, canonical_key, text};
use test_support::mv;

const SAMPLE_PGN: &str = include_str!("data/ccpd-sample.pgn");

fn after(moves: &str) -> Position {
    let mut pos = Position::startpos();
    for m in moves.split_whitespace() {
        pos.play(mv(m)).unwrap();
    }
    pos
}

fn listed(book: &Book, pos: &Position) -> Vec<(String, u32)> {
    book.probe(pos)
        .iter()
        .map(|m| (m.mv.to_string(), m.weight))
        .collect()
}

fn sample_book() -> Book {
    let mut builder = BookBuilder::new(BuildOptions {
        max_ply: 16,
        min_games: 2,
    });
    for game in pgn::parse_games(SAMPLE_PGN) {
        let (start, moves) = game.replay().unwrap();
        builder.add_game(&start, &moves, game.result()).unwrap();
    }
    let (book, summary) = builder.finish();
    assert_eq!(summary.games_used, 32);
    book
}

/// A book with one hand-made position: the start with `weights`.
fn start_book(weights: &[(&str, u16)]) -> Book {
    let start = Position::startpos();
    let entries = weights
        .iter()
        .map(|&(m, weight)| Entry {
            key: canonical_key(&start).0,
            mv: mv(m),
            weight,
            wdl: Wdl::default(),
        })
        .collect();
    Book::from_entries(entries).unwrap()
}

#[test]
fn build_dump_import_gives_identical_bytes() {
    let book = sample_book();
    let bytes = book.to_bytes();
    assert_eq!(
        bytes.len(),
        book::HEADER_LEN + book::RECORD_LEN * book.len()
    );
    assert_eq!(Book::from_bytes(&bytes).unwrap(), book);
    let (dumped, stats) = text::dump(&book);
    assert_eq!(stats.key_only, 0);
    assert_eq!(stats.with_fen, book.len());
    let imported = text::import(&dumped).unwrap();
    assert_eq!(imported.to_bytes(), bytes);
    // The start position of the sample: the central cannon dominates.
    assert_eq!(listed(&book, &Position::startpos())[0].0, "h2e2");
}

#[test]
fn key_only_lines_round_trip() {
    // A position the walk from the start position cannot reach.
    let far = Position::from_fen("4k4/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1").unwrap();
    let (key, mirrored) = canonical_key(&far);
    assert!(!mirrored);
    let book = Book::from_entries(vec![Entry {
        key,
        mv: mv("e1d2"),
        weight: 3,
        wdl: Wdl {
            wins: 1,
            draws: 1,
            losses: 0,
        },
    }])
    .unwrap();
    let (dumped, stats) = text::dump(&book);
    assert_eq!(stats.key_only, 1);
    assert!(dumped.contains(&format!("key:{key:016x}\te1d2\t3\t1\t1\t0")));
    assert_eq!(text::import(&dumped).unwrap().to_bytes(), book.to_bytes());
    // Probing checks legality: the advisor cannot leave the palace.
    assert_eq!(listed(&book, &far), Vec::<(String, u32)>::new());
}

#[test]
fn import_reports_bad_lines() {
    let start = board::START_FEN;
    for (text, want) in [
        (
            format!("{start}\th2e2\t5\t1\t2"),
            "line 1: cannot read move '1'",
        ),
        (
            "h2e2\t5\t1\t2".to_string(),
            "line 1: expected FEN, move, weight, wins, draws, losses",
        ),
        (
            format!("{start}\th2e3\t5\t1\t2\t3"),
            "line 1: h2e3 is not legal in rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        ),
        (
            format!("{start}\th2e2\t70000\t1\t2\t3"),
            "line 1: weight 70000 is above 65535",
        ),
        (
            format!("{start}\th2e2\tx\t1\t2\t3"),
            "line 1: bad weight 'x'",
        ),
        (
            format!("# c\n{start}\th2e2\t1\t1\t2\t3\n{start}\th2e2\t1\t1\t2\t3"),
            "line 3: position and move h2e2 already given",
        ),
        (
            "key:zz\th2e2\t1\t1\t2\t3".to_string(),
            "line 1: bad key 'zz'",
        ),
        (
            "rnbakabnr/9 w\th2e2\t1\t1\t2\t3".to_string(),
            "line 1: bad FEN: ",
        ),
    ] {
        let err = text::import(&text).unwrap_err().to_string();
        assert!(err.starts_with(want), "{err} / {want}");
    }
}

#[test]
fn mirrored_positions_share_their_moves() {
    let book = sample_book();
    // After h2e2 and after b2e2 (its mirror) the moves are mirror images.
    let right = listed(&book, &after("h2e2"));
    let left = listed(&book, &after("b2e2"));
    assert!(!right.is_empty());
    let mirrored: Vec<(String, u32)> = right
        .iter()
        .map(|(m, w)| (mv(m).mirror().to_string(), *w))
        .collect();
    let mut left_sorted = left.clone();
    left_sorted.sort();
    let mut mirrored_sorted = mirrored;
    mirrored_sorted.sort();
    assert_eq!(left_sorted, mirrored_sorted);
    // A hand-made book: a move stored for one orientation is found, mirrored,
    // from the other.
    let pos = after("h2e2");
    let (key, mirrored) = canonical_key(&pos);
    let stored = if mirrored {
        mv("h9g7").mirror()
    } else {
        mv("h9g7")
    };
    let hand = Book::from_entries(vec![Entry {
        key,
        mv: stored,
        weight: 7,
        wdl: Wdl::default(),
    }])
    .unwrap();
    assert_eq!(listed(&hand, &pos), [("h9g7".to_string(), 7)]);
    assert_eq!(listed(&hand, &after("b2e2")), [("b9c7".to_string(), 7)]);
}

#[test]
fn absent_positions_give_nothing() {
    let book = sample_book();
    let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1").unwrap();
    assert!(book.probe(&pos).is_empty());
    let set = BookSet::from_books(vec![AnyBook::Chariot(book)]);
    assert_eq!(set.choose(&pos, 100, 1), None);
    assert!(set.candidates(&pos).is_empty());
}

#[test]
fn damaged_files_are_refused_with_clear_errors() {
    let bytes = sample_book().to_bytes();
    let n = bytes.len();
    let check = |data: &[u8], want: &str| {
        let err = AnyBook::from_bytes(data).unwrap_err().to_string();
        assert_eq!(err, want);
    };
    check(
        &bytes[..n - 1],
        &format!(
            "book is truncated or damaged: its header promises {n} bytes, the file has {}",
            n - 1
        ),
    );
    check(
        &bytes[..30],
        &format!("book is truncated or damaged: its header promises {n} bytes, the file has 30"),
    );
    check(
        &bytes[..10],
        "not an opening book (10 bytes: no Chariot book header, and not a whole number of 8-byte BOOK.DAT records)",
    );
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 24]);
    check(
        &longer,
        &format!(
            "book is truncated or damaged: its header promises {n} bytes, the file has {}",
            n + 24
        ),
    );
    let mut version = bytes.clone();
    version[8] = 2;
    check(
        &version,
        "Chariot book version 2 is not supported (this build reads version 1)",
    );
    let mut keys = bytes.clone();
    keys[16] ^= 1;
    check(
        &keys,
        "book was built with a different Zobrist key table; rebuild it",
    );
    let mut bad_move = bytes.clone();
    bad_move[24 + 8] = 0;
    bad_move[24 + 9] = 0;
    check(&bad_move, "book record 0: not a move between two squares");
    let mut unsorted = bytes.clone();
    unsorted[24..48].copy_from_slice(&bytes[48..72]);
    unsorted[48..72].copy_from_slice(&bytes[24..48]);
    check(
        &unsorted,
        "book record 1: records are not in strictly increasing (key, move) order",
    );
    // Garbage of BOOK.DAT's shape is read as BOOK.DAT only if sorted.
    let garbage: Vec<u8> = (0..64u8).rev().collect();
    check(
        &garbage,
        "book record 1: BOOK.DAT locks are not in ascending order",
    );
}

#[test]
fn open_reports_missing_files_and_reads_specs() {
    let err = BookSet::open("/nonexistent/chariot.book").unwrap_err();
    assert!(matches!(err, BookError::Io { .. }));
    assert!(err.to_string().starts_with("/nonexistent/chariot.book: "));
    assert!(BookSet::open("").unwrap().is_empty());
    assert!(BookSet::open("<empty>").unwrap().is_empty());
    assert_eq!(BookSet::open(" <builtin> ; ").unwrap().books().len(), 1);
    let dir = test_support::scratch_dir("book-test");
    let path = dir.join("bad.book");
    std::fs::write(&path, b"CHARBOOK\x01\0\0\0").unwrap();
    let err = BookSet::open(&format!("<builtin>;{}", path.display())).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: not an opening book (12 bytes: no Chariot book header, and not a whole number of 8-byte BOOK.DAT records)",
            path.display()
        )
    );
    let good = dir.join("good.book");
    std::fs::write(&good, start_book(&[("h2e2", 1)]).to_bytes()).unwrap();
    // Leniently, the books that open are kept, in order, whatever the
    // order of the bad ones; each bad one is reported.
    for spec in [
        format!("/missing.book;{};{}", path.display(), good.display()),
        format!("{};/missing.book;{}", good.display(), path.display()),
    ] {
        let (set, failed) = BookSet::open_available(&spec);
        assert_eq!(set.books().len(), 1, "{spec}");
        assert_eq!(failed.len(), 2, "{spec}");
        assert!(failed.iter().any(|e| matches!(e, BookError::Io { .. })));
        assert!(failed.iter().any(|e| matches!(e, BookError::InFile { .. })));
    }
    let (set, failed) = BookSet::open_available("/missing.book;<builtin>");
    assert_eq!((set.books().len(), failed.len()), (1, 1));
    assert!(set.choose(&Position::startpos(), 100, 7).is_some());
    let set = BookSet::open(&format!("{};<builtin>", good.display())).unwrap();
    assert_eq!(set.books().len(), 2);
    // The first book with a move answers.
    assert_eq!(
        set.choose(&Position::startpos(), 0, 0).unwrap().mv,
        mv("h2e2")
    );
}

#[test]
fn pick_steps_its_own_random_state() {
    let pos = Position::startpos();
    let picks = |seed: u64| {
        let mut set = set_with(&[("h2e2", 2), ("c3c4", 1), ("g0e2", 1)]).with_seed(seed);
        (0..64)
            .map(|_| set.pick(&pos, 100).unwrap().mv)
            .collect::<Vec<_>>()
    };
    // The same seed repeats the same picks; the picks vary from one to the
    // next, as the choices of successive games do.
    assert_eq!(picks(5), picks(5));
    let seq = picks(5);
    assert!(seq.iter().any(|&m| m != seq[0]));
    // Each pick is `choose` with the stepped state.
    let mut set = set_with(&[("h2e2", 2), ("c3c4", 1)]).with_seed(5);
    let stepped = 5u64
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    assert_eq!(set.pick(&pos, 100), set.choose(&pos, 100, stepped));
    // No book, no pick.
    assert_eq!(BookSet::default().pick(&pos, 100), None);
}

#[test]
fn variety_shapes_the_choice() {
    let set = BookSet::from_books(vec![AnyBook::Chariot(start_book(&[
        ("h2e2", 2),
        ("c3c4", 1),
        ("g0e2", 1),
    ]))]);
    let pos = Position::startpos();
    let choice = set.choose(&pos, 0, 12345).unwrap();
    assert_eq!(choice.mv, mv("h2e2"));
    assert_eq!(
        choice.candidates,
        [(mv("h2e2"), 2), (mv("c3c4"), 1), (mv("g0e2"), 1)]
    );
    let count = |variety: u32| {
        let mut n = [0usize; 3];
        for seed in 0..4000u64 {
            let m = set.choose(&pos, variety, seed).unwrap().mv;
            let i = choice.candidates.iter().position(|(c, _)| *c == m).unwrap();
            n[i] += 1;
        }
        n
    };
    // Same seed, same move.
    assert_eq!(set.choose(&pos, 100, 99), set.choose(&pos, 100, 99));
    // Variety 1 is all but best-only; 100 is proportional (2:1:1); 10000 is
    // nearly uniform.
    assert_eq!(count(1), [4000, 0, 0]);
    let prop = count(100);
    assert_eq!(prop.iter().sum::<usize>(), 4000);
    assert!((1900..=2100).contains(&prop[0]), "{prop:?}");
    assert!(
        (900..=1100).contains(&prop[1]) && (900..=1100).contains(&prop[2]),
        "{prop:?}"
    );
    let flat = count(10_000);
    assert!(flat.iter().all(|n| (1200..=1470).contains(n)), "{flat:?}");
}

#[test]
fn zero_weight_and_repeating_moves_are_never_chosen() {
    let set = BookSet::from_books(vec![AnyBook::Chariot(start_book(&[
        ("h0g2", 10),
        ("h2e2", 1),
        ("c3c4", 0),
    ]))]);
    assert_eq!(
        set.candidates(&Position::startpos()),
        [(mv("h0g2"), 10), (mv("h2e2"), 1)]
    );
    // Back at the start after four plies: h0g2 would repeat the position
    // after the first move.
    let pos = after("h0g2 h9g7 g2h0 g7h9");
    assert_eq!(set.candidates(&pos), [(mv("h2e2"), 1)]);
    for seed in 0..50 {
        assert_eq!(set.choose(&pos, 100, seed).unwrap().mv, mv("h2e2"));
    }
    // A stored move that is not legal (no piece on a2) is dropped however
    // heavy it is.
    let odd = set_with(&[("a2a3", 50), ("h2e2", 1)]);
    assert_eq!(odd.candidates(&Position::startpos()), [(mv("h2e2"), 1)]);
    assert_eq!(pgn::parse_result("1-0"), Some(Some(GameResult::RedWins)));
    assert_eq!(pgn::parse_result("*"), Some(None));
    assert_eq!(pgn::parse_result("1-O"), None);
}

fn set_with(weights: &[(&str, u16)]) -> BookSet {
    BookSet::from_books(vec![AnyBook::Chariot(start_book(weights))])
}

/// A small deterministic generator for the garbage tests.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

#[test]
fn garbage_never_panics_and_never_yields_an_illegal_move() {
    let mut rng = Lcg(42);
    let good = sample_book().to_bytes();
    let start = Position::startpos();
    let mut opened = 0;
    for round in 0..3000 {
        // Random bytes, a damaged copy of a good book, or a good header with
        // random records.
        let data: Vec<u8> = match round % 3 {
            0 => (0..rng.next() % 200).map(|_| rng.next() as u8).collect(),
            1 => {
                let mut d = good.clone();
                for _ in 0..1 + rng.next() % 4 {
                    let i = (rng.next() as usize) % d.len();
                    d[i] = rng.next() as u8;
                }
                d
            }
            _ => {
                let mut d = good[..24].to_vec();
                let n = 1 + rng.next() % 4;
                d[12..16].copy_from_slice(&(n as u32).to_le_bytes());
                let key = canonical_key(&start).0;
                for i in 0..n {
                    d.extend_from_slice(&key.to_le_bytes());
                    d.extend_from_slice(
                        &((i as u16) << 7 | rng.next() as u16 & 0x7f).to_le_bytes(),
                    );
                    d.extend_from_slice(&[rng.next() as u8; 14]);
                }
                d
            }
        };
        if let Ok(book) = AnyBook::from_bytes(&data) {
            opened += 1;
            for m in book.probe(&start) {
                assert!(start.is_legal(m.mv));
            }
        }
    }
    assert!(opened > 0);
    // Move texts built from the symbols the readers know.
    let symbols: Vec<char> =
        "車马炮兵卒相象仕士帥將前後中一二三四五六七八九１２３４５進退平+-=.CRHEAKPfra19"
            .chars()
            .collect();
    for _ in 0..20_000 {
        let len = 3 + rng.next() % 4;
        let text: String = (0..len)
            .map(|_| symbols[(rng.next() as usize) % symbols.len()])
            .collect();
        if let Ok(m) = book::notation::parse_any(&start, &text) {
            assert!(start.is_legal(m), "{text} -> {m}");
        }
    }
    // PGN text cut at random places.
    for _ in 0..200 {
        let cut = (rng.next() as usize) % SAMPLE_PGN.len();
        let cut = (0..=cut)
            .rev()
            .find(|&i| SAMPLE_PGN.is_char_boundary(i))
            .unwrap();
        for game in pgn::parse_games(&SAMPLE_PGN[cut..]) {
            let _ = game.replay();
        }
    }
}
