//! FEN reading: every validation error is reached, accepted variants read
//! alike, and no input panics.

use board::{Color, FenError, Piece, PieceKind, Position, START_FEN, Square};

fn err(fen: &str) -> FenError {
    Position::from_fen(fen).expect_err(fen)
}

fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

#[test]
fn each_validation_error_is_reached() {
    use FenError::*;
    assert_eq!(err(""), Empty);
    assert_eq!(err("   \t "), Empty);
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR"),
        FieldCount(1)
    );
    assert_eq!(err(&format!("{START_FEN} extra")), FieldCount(7));
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w"),
        RankCount(9)
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR/9 w"),
        RankCount(11)
    );
    assert_eq!(
        err("rnbakabnr/8/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        RankLength { rank: 8, points: 8 }
    );
    assert_eq!(
        err("rnbakabnrr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        RankLength {
            rank: 9,
            points: 10
        }
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/0/RNBAKABNR w"),
        UnknownLetter('0')
    );
    assert_eq!(
        err("rnbakabnx/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        UnknownLetter('x')
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x"),
        BadSide("x".into())
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 1e3 1"),
        BadCounter("1e3".into())
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 -"),
        BadCounter("-".into())
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1"),
        BadCounter("x".into())
    );
    assert_eq!(
        err("rnba1abnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
        MissingKing(Color::Black)
    );
    assert_eq!(
        err("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w"),
        MissingKing(Color::Red)
    );
    assert_eq!(err("3kk4/9/9/9/9/9/9/9/9/4K4 w"), ExtraKing(Color::Black));
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/9/8K w"),
        KingOutsidePalace(Color::Red, sq("i0"))
    );
    assert_eq!(err("4k4/9/9/9/9/9/9/9/9/3KK4 w"), ExtraKing(Color::Red));
    assert_eq!(
        err("3k5/9/9/9/9/9/9/4k4/9/4K4 w"),
        KingOutsidePalace(Color::Black, sq("e2"))
    );
    assert_eq!(
        err("3k5/9/9/9/9/9/9/9/9/RRR1K4 w"),
        TooMany(Color::Red, PieceKind::Rook)
    );
    assert_eq!(
        err("3k5/9/9/9/9/ppp6/ppp6/9/9/4K4 w"),
        TooMany(Color::Black, PieceKind::Pawn)
    );
    let red = |k| Piece::new(Color::Red, k);
    let black = |k| Piece::new(Color::Black, k);
    assert_eq!(
        err("3k5/9/9/9/9/9/9/9/3A5/4K4 w"),
        UnreachableSquare(red(PieceKind::Advisor), sq("d1"))
    );
    assert_eq!(
        err("3k5/9/9/9/9/4B4/9/9/9/4K4 w"),
        UnreachableSquare(red(PieceKind::Bishop), sq("e4"))
    );
    assert_eq!(
        err("3k5/9/9/9/9/9/9/9/9/B3K4 w"),
        UnreachableSquare(red(PieceKind::Bishop), sq("a0"))
    );
    assert_eq!(
        err("3k5/9/9/9/9/9/9/9/P8/4K4 w"),
        UnreachableSquare(red(PieceKind::Pawn), sq("a1"))
    );
    assert_eq!(
        err("3k5/9/9/9/9/1P7/9/9/9/4K4 w"),
        UnreachableSquare(red(PieceKind::Pawn), sq("b4"))
    );
    assert_eq!(
        err("3k5/9/9/1p7/9/9/9/9/9/4K4 w"),
        UnreachableSquare(black(PieceKind::Pawn), sq("b6"))
    );
    assert_eq!(
        err("3ka4/9/9/9/9/9/9/9/9/4K4 w"),
        UnreachableSquare(black(PieceKind::Advisor), sq("e9"))
    );
    assert_eq!(err("4k4/9/9/9/9/9/9/9/9/4K4 w"), GeneralsFacing);
    assert_eq!(err("4k4/9/9/9/9/9/9/9/4R4/4K4 w"), SideNotToMoveInCheck);
}

#[test]
fn positions_other_programs_accept_are_rejected() {
    // From the reference data's "deliberately left out" list.
    assert_eq!(
        err("4k4/9/9/9/9/9/9/9/4R4/4K4 w"),
        FenError::SideNotToMoveInCheck
    );
    assert_eq!(
        err("rnbakabnr/9/4c4/p1p1C1p1p/9/9/P1P3P1P/1C5c1/9/RNBAKABNR b"),
        FenError::SideNotToMoveInCheck
    );
    assert!(matches!(
        err("4k4/9/9/9/9/9/9/4n4/3A5/3K5 w"),
        FenError::UnreachableSquare(..)
    ));
}

#[test]
fn accepted_variants_read_alike() {
    let start = Position::startpos();
    for fen in [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR W - -",
        "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1",
        "  rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR \t w   -  -  0 0 ",
    ] {
        let pos = Position::from_fen(fen).expect(fen);
        assert_eq!(pos.fen(), start.fen(), "{fen}");
        assert_eq!(pos.key(), start.key());
    }
    let black = Position::from_fen(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12",
    )
    .unwrap();
    assert_eq!(black.side_to_move(), Color::Black);
    assert_eq!(black.rule60(), 7);
    assert_eq!(
        black.fen(),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12"
    );
    assert_ne!(black.key(), start.key());
    // Counters beyond 65535 saturate.
    let big = Position::from_fen(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 65536 99999999999999999999999",
    )
    .expect("large counters");
    assert_eq!(big.rule60(), u16::MAX);
    assert_eq!(big.fullmove_number(), u16::MAX);
    assert_eq!(big.key(), start.key());
    // Negative and fractional counters get the same treatment as huge
    // ones: the nearest counter that exists (fractions truncated).
    for (counters, rule60, fullmove) in [
        ("-1 -5", 0, 1),
        ("+3 +4", 3, 4),
        ("7.9 12.5", 7, 12),
        ("-0.5 0.5", 0, 1),
        ("0 0", 0, 1),
    ] {
        let p = Position::from_fen(&format!(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - {counters}"
        ))
        .unwrap_or_else(|e| panic!("{counters}: {e}"));
        assert_eq!(
            (p.rule60(), p.fullmove_number()),
            (rule60, fullmove),
            "{counters}"
        );
        assert_eq!(p.key(), start.key());
    }
}

#[test]
fn no_input_panics() {
    // Mutations of real FENs: every byte replaced, deleted or duplicated.
    let bases = [
        START_FEN,
        "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
        "1C2ka3/9/C1Nab1n2/p3p3p/6p2/9/P3P3P/3AB4/3p2c2/c1BAK4 w - - 0 1",
    ];
    let alphabet = [
        "", "0", "9", "/", " ", "k", "K", "p", "x", "\u{e9}", "\u{5e05}", "-", "w", "b", "10",
        "99999",
    ];
    let mut accepted = 0;
    for base in bases {
        for i in 0..=base.len() {
            if !base.is_char_boundary(i) {
                continue;
            }
            for ins in alphabet {
                let mut s = String::from(&base[..i]);
                s.push_str(ins);
                let rest = &base[i..];
                let skip = rest.chars().next().map_or(0, char::len_utf8);
                for tail in [rest, &rest[skip..]] {
                    let fen = format!("{s}{tail}");
                    if let Ok(pos) = Position::from_fen(&fen) {
                        accepted += 1;
                        assert_eq!(
                            Position::from_fen(&pos.fen()).map(|p| p.key()),
                            Ok(pos.key())
                        );
                    }
                }
            }
        }
    }
    // Some mutations stay valid (inserting an empty string, swapping a side letter...).
    assert!(accepted >= bases.len(), "{accepted}");
}
