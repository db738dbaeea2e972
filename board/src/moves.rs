//! The compact [`Move`]: a from-square and a to-square in 16 bits, printed
//! and parsed in ICCS coordinates (`h2e2`). Legality is the position's
//! business, not the move's.

use std::fmt;
use std::num::NonZeroU16;
use std::str::FromStr;

use arrayvec::ArrayVec;

use crate::types::Square;

/// A move, `from << 7 | to` in a `NonZeroU16`. From and to always differ, so
/// the value is never zero and `Option<Move>` costs nothing extra.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(NonZeroU16);

const _: () = assert!(std::mem::size_of::<Option<Move>>() == 2);

/// Room for every legal move of any xiangqi position: with the piece counts
/// and squares FEN validation allows, at most 2 × 17 (chariots) + 2 × 17
/// (cannons) + 2 × 8 (horses) + 2 × 4 (elephants) + 2 × 4 (advisors) +
/// 5 × 3 (soldiers) + 4 (general) = 119.
pub const MAX_MOVES: usize = 128;

/// A fixed-capacity list of moves.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;

impl Move {
    /// The move from `from` to `to`, or `None` when they are the same square.
    #[inline]
    pub const fn new(from: Square, to: Square) -> Option<Move> {
        match NonZeroU16::new(((from.index() as u16) << 7) | to.index() as u16) {
            Some(v) if from.index() != to.index() => Some(Move(v)),
            _ => None,
        }
    }

    /// The move from `from` to `to`, which must differ.
    ///
    /// # Panics
    /// If `from == to`.
    #[inline]
    #[track_caller]
    pub const fn new_panicking(from: Square, to: Square) -> Move {
        match Move::new(from, to) {
            Some(m) => m,
            None => panic!("a move needs two different squares"),
        }
    }

    /// The move from `from` to `to` for callers that know the squares differ
    /// (move generation); debug builds check it.
    #[inline]
    pub(crate) const fn new_unchecked_distinct(from: Square, to: Square) -> Move {
        debug_assert!(from.index() != to.index());
        let v = ((from.index() as u16) << 7) | to.index() as u16;
        // from != to, so v != 0; `unwrap_or` keeps this free of panics and unsafe.
        Move(match NonZeroU16::new(v) {
            Some(v) => v,
            None => NonZeroU16::MIN,
        })
    }

    /// Where the piece comes from.
    #[inline]
    pub const fn from(self) -> Square {
        Square::from_bit((self.0.get() >> 7) as u32)
    }

    /// Where it goes.
    #[inline]
    pub const fn to(self) -> Square {
        Square::from_bit((self.0.get() & 0x7f) as u32)
    }

    /// The raw 16-bit value (never 0), for hash tables and books.
    #[inline]
    pub const fn to_u16(self) -> u16 {
        self.0.get()
    }

    /// Reads a raw value back; `None` unless it encodes two different
    /// on-board squares.
    pub const fn from_u16(v: u16) -> Option<Move> {
        let from = (v >> 7) as usize;
        let to = (v & 0x7f) as usize;
        if v >> 14 != 0 || from >= 90 || to >= 90 || from == to {
            return None;
        }
        match (Square::from_index(from), Square::from_index(to)) {
            (Some(from), Some(to)) => Move::new(from, to),
            _ => None,
        }
    }

    /// The left-right mirror image of the move.
    #[must_use]
    pub const fn mirror(self) -> Move {
        Move::new_panicking(self.from().mirror(), self.to().mirror())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Why a move text could not be read (before any legality test).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseMoveError(pub String);

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot read move '{}': expected ICCS like h2e2", self.0)
    }
}

impl std::error::Error for ParseMoveError {}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// Reads ICCS, case-insensitively, with or without the hyphen (`H2-E2`).
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        let err = || ParseMoveError(s.chars().take(32).collect());
        // Byte slicing below is only safe on ASCII text.
        if !s.is_ascii() {
            return Err(err());
        }
        let b = s.as_bytes();
        let (from, to) = match b.len() {
            4 => (&s[..2], &s[2..]),
            5 if b[2] == b'-' => (&s[..2], &s[3..]),
            _ => return Err(err()),
        };
        let from: Square = from.parse().map_err(|_| err())?;
        let to: Square = to.parse().map_err(|_| err())?;
        Move::new(from, to).ok_or_else(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iccs_round_trip() {
        let m: Move = "h2e2".parse().unwrap();
        assert_eq!(m.to_string(), "h2e2");
        assert_eq!("H2-E2".parse::<Move>(), Ok(m));
        assert_eq!(Move::from_u16(m.to_u16()), Some(m));
        assert_eq!(m.mirror().to_string(), "b2e2");
        for bad in [
            "", "h2", "h2h2", "h2e", "z2e2", "h2-e", "h2xe2", "é2e2", "h2e2e",
            // Four or five bytes with a character across the split point.
            "aé2", "a€", "h2é", "h€e2", "ab-é",
        ] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
        assert_eq!(Move::from_u16(0), None);
        assert_eq!(Move::from_u16(0xffff), None);
    }
}
