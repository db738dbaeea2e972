//! FEN text to an unchecked [`Setup`], and the checks that turn a setup into
//! a [`Position`](crate::Position). Nothing here panics, whatever the input.

use std::fmt;

use crate::types::{Color, Piece, PieceKind, Square};

/// The start position.
pub const START_FEN: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

/// Everything a FEN says, read but not yet checked for legality.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The piece on each square, by square index.
    pub board: [Option<Piece>; 90],
    /// Side to move.
    pub side: Color,
    /// Plies since the last capture (FEN field 5).
    pub rule60: u16,
    /// Move number (FEN field 6), at least 1.
    pub fullmove: u16,
}

/// Why a FEN was refused: its text (first group) or the position it
/// describes (second group, the checks of `docs/rules.md` §5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FenError {
    /// No fields at all.
    Empty,
    /// Fewer than 2 or more than 6 whitespace-separated fields.
    FieldCount(usize),
    /// The board field does not have exactly 10 ranks.
    RankCount(usize),
    /// A rank (counted from the top, 9 first) does not describe exactly 9 points.
    RankLength {
        /// The rank, 9 (Black's back rank) to 0.
        rank: u8,
        /// How many points it described.
        points: usize,
    },
    /// A character that is neither a piece letter nor a digit 1–9.
    UnknownLetter(char),
    /// The side field is not `w`, `r` or `b`.
    BadSide(String),
    /// Field 5 or 6 is not a non-negative integer that fits.
    BadCounter(String),
    /// A side has no general.
    MissingKing(Color),
    /// A side has more than one general.
    ExtraKing(Color),
    /// A general outside its palace.
    KingOutsidePalace(Color, Square),
    /// More pieces of a kind than a side starts with.
    TooMany(Color, PieceKind),
    /// An advisor, elephant or soldier on a point it can never reach.
    UnreachableSquare(Piece, Square),
    /// The generals face each other on an open file.
    GeneralsFacing,
    /// The side that is not to move is in check.
    SideNotToMoveInCheck,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FenError::Empty => f.write_str("empty FEN"),
            FenError::FieldCount(n) => write!(f, "FEN has {n} fields, expected 2 to 6"),
            FenError::RankCount(n) => write!(f, "FEN board has {n} ranks, expected 10"),
            FenError::RankLength { rank, points } => {
                write!(f, "FEN rank {rank} describes {points} points, expected 9")
            }
            FenError::UnknownLetter(c) => write!(f, "unknown character {c:?} in FEN board"),
            FenError::BadSide(s) => write!(f, "side to move {s:?} is not w, r or b"),
            FenError::BadCounter(s) => write!(f, "move counter {s:?} is not a valid number"),
            FenError::MissingKing(c) => write!(f, "{c} has no general"),
            FenError::ExtraKing(c) => write!(f, "{c} has more than one general"),
            FenError::KingOutsidePalace(c, sq) => {
                write!(f, "{c} general on {sq} is outside its palace")
            }
            FenError::TooMany(c, k) => write!(f, "{c} has too many of kind {k}"),
            FenError::UnreachableSquare(p, sq) => {
                write!(
                    f,
                    "{} {} on {sq}, a point it can never reach",
                    p.color(),
                    p.kind()
                )
            }
            FenError::GeneralsFacing => f.write_str("the generals face each other on an open file"),
            FenError::SideNotToMoveInCheck => f.write_str("the side not to move is in check"),
        }
    }
}

impl std::error::Error for FenError {}

impl Setup {
    /// Reads a FEN of 2 to 6 fields (`docs/rules.md` §5); checks only the
    /// text, not whether the position could arise.
    ///
    /// # Errors
    /// The first textual problem found, as a [`FenError`].
    pub fn parse(fen: &str) -> Result<Setup, FenError> {
        let fields: Vec<&str> = fen.split_ascii_whitespace().collect();
        match fields.len() {
            0 => return Err(FenError::Empty),
            2..=6 => {}
            n => return Err(FenError::FieldCount(n)),
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 10 {
            return Err(FenError::RankCount(ranks.len()));
        }
        let mut board = [None; 90];
        for (i, text) in ranks.iter().enumerate() {
            let rank = 9 - i;
            let mut file = 0usize;
            for c in text.chars() {
                if let Some(d) = c.to_digit(10).filter(|d| (1..=9).contains(d)) {
                    file += d as usize;
                } else if let Some(p) = Piece::from_char(c) {
                    if file < 9 {
                        board[rank * 9 + file] = Some(p);
                    }
                    file += 1;
                } else {
                    return Err(FenError::UnknownLetter(c));
                }
            }
            if file != 9 {
                return Err(FenError::RankLength {
                    rank: rank as u8,
                    points: file,
                });
            }
        }
        let side = match fields[1] {
            "w" | "W" | "r" | "R" => Color::Red,
            "b" | "B" => Color::Black,
            s => return Err(FenError::BadSide(s.chars().take(16).collect())),
        };
        let counter = |i: usize, default: u16| -> Result<u16, FenError> {
            match fields.get(i) {
                None => Ok(default),
                Some(s) => read_counter(s)
                    .ok_or_else(|| FenError::BadCounter(s.chars().take(16).collect())),
            }
        };
        let rule60 = counter(4, 0)?;
        let fullmove = counter(5, 1)?.max(1);
        Ok(Setup {
            board,
            side,
            rule60,
            fullmove,
        })
    }

    /// The checks that make a setup a legal position, except the one that
    /// needs attack tables (side not to move in check), which
    /// [`Position::from_setup`](crate::Position::from_setup) adds.
    pub(crate) fn validate_placement(&self) -> Result<(), FenError> {
        let mut counts = [[0u8; 7]; 2];
        let mut kings: [Option<Square>; 2] = [None, None];
        for sq in Square::all() {
            let Some(p) = self.board[sq.index()] else {
                continue;
            };
            let (c, k) = (p.color(), p.kind());
            counts[c.index()][k.index()] += 1;
            if counts[c.index()][k.index()] > k.max_count() {
                return Err(if k == PieceKind::King {
                    FenError::ExtraKing(c)
                } else {
                    FenError::TooMany(c, k)
                });
            }
            if k == PieceKind::King {
                if !sq.in_palace(c) {
                    return Err(FenError::KingOutsidePalace(c, sq));
                }
                kings[c.index()] = Some(sq);
            }
            if !p.can_stand_on(sq) {
                return Err(FenError::UnreachableSquare(p, sq));
            }
        }
        for c in Color::ALL {
            if kings[c.index()].is_none() {
                return Err(FenError::MissingKing(c));
            }
        }
        Ok(())
    }
}

/// Reads a move counter (FEN fields 5 and 6) by one rule for every number
/// a GUI may send, since a counter never makes a position illegal:
///
/// 1. It must be a decimal number: an optional sign, digits, and an
///    optional fraction (`12`, `+3`, `-1`, `7.5`, `.5`); anything else
///    (`x`, `-`, `1e3`, `nan`) is refused.
/// 2. A fraction is dropped (the number is truncated toward zero).
/// 3. The result is clamped into `0..=65535`: a negative counter reads as
///    0, a huge one as 65535 (every count from 120 plies on means the same
///    to the move limit). The caller then raises a move number of 0 to 1.
///
/// So a huge, a negative and a fractional counter are all accepted, each
/// as the nearest counter that exists.
fn read_counter(text: &str) -> Option<u16> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !digits(whole) || !digits(fraction) {
        return None;
    }
    if negative {
        return Some(0);
    }
    // Digits only: the parse fails only when empty (`.5`) or by overflow.
    Some(match whole.trim_start_matches('0') {
        "" => 0,
        w => w.parse::<u16>().unwrap_or(u16::MAX),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_by_one_rule() {
        for (text, want) in [
            ("0", Some(0)),
            ("17", Some(17)),
            ("+17", Some(17)),
            ("0017", Some(17)),
            ("65535", Some(65535)),
            ("65536", Some(65535)),
            ("99999999999999999999999999", Some(65535)),
            ("-1", Some(0)),
            ("-99999999999999999999999999", Some(0)),
            ("-0", Some(0)),
            ("7.9", Some(7)),
            ("7.", Some(7)),
            (".5", Some(0)),
            ("-2.5", Some(0)),
            ("99999999999999999999.5", Some(65535)),
            ("", None),
            ("-", None),
            ("+", None),
            (".", None),
            ("x", None),
            ("1e3", None),
            ("nan", None),
            ("1.2.3", None),
            ("--1", None),
            ("1-", None),
            ("\u{663}", None),
        ] {
            assert_eq!(read_counter(text), want, "{text:?}");
        }
    }

    #[test]
    fn advisor_and_elephant_points() {
        let reachable = |kind: PieceKind, color: Color| {
            Square::all()
                .filter(|&sq| {
                    let mut s = Setup::parse("4k4/9/9/9/9/9/9/9/9/4K4 w").unwrap();
                    s.board[sq.index()] = Some(Piece::new(color, kind));
                    s.validate_placement().is_ok()
                })
                .count()
        };
        assert_eq!(reachable(PieceKind::Advisor, Color::Red), 5);
        assert_eq!(reachable(PieceKind::Advisor, Color::Black), 5);
        assert_eq!(reachable(PieceKind::Bishop, Color::Red), 7);
        assert_eq!(reachable(PieceKind::Bishop, Color::Black), 7);
        // Soldiers: 5 points on each of their ranks 3 and 4 and all 45 beyond
        // the river, less e9 where the Black general stands in this setup.
        assert_eq!(reachable(PieceKind::Pawn, Color::Red), 54);
    }
}
