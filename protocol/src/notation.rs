//! How moves are written on the wire: the move notation of the session,
//! which every move read (`position … moves`, `banmoves`, `searchmoves`,
//! `probe`) and written (`bestmove`, `ponder`, `pv`, `currmove`, `go perft`,
//! diagnostics) goes through. The board crate knows only ICCS; this module
//! translates at the edge.
//!
//! Two notations exist:
//!
//! * **ICCS** (the default, UCCI and Pikafish's UCI): files `a`–`i`, ranks
//!   `0`–`9` from Red's back rank, so Red's central cannon is `h2e2`.
//! * **Ranks 1–10**, the Fairy-Stockfish / cutechess dialect, chosen by a GUI
//!   that sets `UCI_Variant`: the same files with every rank one higher, so
//!   the same move is `h3e3` and Black's back rank is `10`. A square is two
//!   or three characters, so a move is four to six.

use std::fmt;

use board::{File, Move, Position, Rank, Square};

use crate::command::quote;

/// The notation of moves read and written by the session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Notation {
    /// ICCS, ranks 0–9 (`h2e2`).
    #[default]
    Iccs,
    /// Fairy-Stockfish's xiangqi notation, ranks 1–10 (`h3e3`).
    Ranks1To10,
}

/// A move shown in a notation; see [`Notation::show`].
#[derive(Clone, Copy, Debug)]
pub struct Shown(Notation, Move);

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Shown(notation, m) = *self;
        match notation {
            Notation::Iccs => write!(f, "{m}"),
            Notation::Ranks1To10 => {
                for sq in [m.from(), m.to()] {
                    write!(f, "{}{}", sq.file().to_char(), sq.rank().index() + 1)?;
                }
                Ok(())
            }
        }
    }
}

impl Notation {
    /// `m` as this notation writes it (lower case, no hyphen).
    pub fn show(self, m: Move) -> Shown {
        Shown(self, m)
    }

    /// Reads `text` as a move of this notation, case-insensitively and with
    /// an optional hyphen between the squares, and checks that it is legal
    /// in `pos`.
    ///
    /// # Errors
    /// Why the move cannot be played, in words that name the move as
    /// written. In ICCS, a move that reads as a legal move with ranks 1–10
    /// gets a hint at `UCI_Variant`.
    pub fn read(self, pos: &Position, text: &str) -> Result<Move, String> {
        let m = match self {
            Notation::Iccs => match pos.parse_move(text) {
                Ok(m) => return Ok(m),
                Err(e) => {
                    let hint = if Notation::Ranks1To10.read(pos, text).is_ok() {
                        " (it is legal with ranks 1-10: send \
                         'setoption name UCI_Variant value xiangqi' to use them)"
                    } else {
                        ""
                    };
                    return Err(format!("{}{hint}", quote(&e.to_string())));
                }
            },
            Notation::Ranks1To10 => parse_ranks_1_to_10(text).ok_or_else(|| {
                format!(
                    "cannot read move '{}': expected ranks 1-10 like h3e3 (UCI_Variant is set)",
                    quote(text)
                )
            })?,
        };
        if pos.is_legal(m) {
            Ok(m)
        } else {
            Err(format!("illegal move {}", self.show(m)))
        }
    }
}

/// A square with ranks 1–10 (`a1`…`i10`) from the start of `text`; returns
/// the square and the bytes it used.
fn square_1_to_10(text: &[u8]) -> Option<(Square, usize)> {
    let (&f, rest) = text.split_first()?;
    let file = File::new(f.to_ascii_lowercase().checked_sub(b'a')?)?;
    let (rank, used) = match rest {
        [b'1', b'0', ..] => (10, 2),
        [d @ b'1'..=b'9', ..] => (d - b'0', 1),
        _ => return None,
    };
    let rank = Rank::new(rank - 1)?;
    Some((Square::new(file, rank), 1 + used))
}

/// A move with ranks 1–10, such as `h3e3`, `a10a9` or `H3-E3`.
fn parse_ranks_1_to_10(text: &str) -> Option<Move> {
    let bytes = text.as_bytes();
    let (from, used) = square_1_to_10(bytes)?;
    let rest = &bytes[used..];
    let rest = rest.strip_prefix(b"-").unwrap_or(rest);
    let (to, used) = square_1_to_10(rest)?;
    if used != rest.len() {
        return None;
    }
    Move::new(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iccs(text: &str) -> Move {
        text.parse().unwrap()
    }

    #[test]
    fn shows_both_notations() {
        let m = iccs("h2e2");
        assert_eq!(Notation::Iccs.show(m).to_string(), "h2e2");
        assert_eq!(Notation::Ranks1To10.show(m).to_string(), "h3e3");
        assert_eq!(Notation::Ranks1To10.show(iccs("h9g7")).to_string(), "h10g8");
        assert_eq!(Notation::Ranks1To10.show(iccs("a0a9")).to_string(), "a1a10");
    }

    #[test]
    fn reads_ranks_1_to_10_of_every_length() {
        assert_eq!(parse_ranks_1_to_10("h3e3"), Some(iccs("h2e2")));
        assert_eq!(parse_ranks_1_to_10("H3-E3"), Some(iccs("h2e2")));
        assert_eq!(parse_ranks_1_to_10("h10g8"), Some(iccs("h9g7")));
        assert_eq!(parse_ranks_1_to_10("a4a10"), Some(iccs("a3a9")));
        assert_eq!(parse_ranks_1_to_10("a10a9"), Some(iccs("a9a8")));
        assert_eq!(parse_ranks_1_to_10("a10-a1"), Some(iccs("a9a0")));
        for bad in [
            "",
            "h",
            "h0e3",
            "h3e0",
            "h11e3",
            "j3e3",
            "h3e3x",
            "h3",
            "h3e",
            "a10a",
            "a10a100",
            "h3--e3",
            "h3e3\u{e9}",
            "\u{e9}",
            "a1a1",
        ] {
            assert_eq!(parse_ranks_1_to_10(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn every_move_reads_back_in_both_notations() {
        let pos = Position::startpos();
        for m in pos.legal_moves() {
            for n in [Notation::Iccs, Notation::Ranks1To10] {
                assert_eq!(n.read(&pos, &n.show(m).to_string()), Ok(m));
            }
        }
    }

    #[test]
    fn errors_name_the_move_as_written_and_hint_at_the_variant() {
        let pos = Position::startpos();
        let err = Notation::Iccs.read(&pos, "h3e3").unwrap_err();
        assert!(err.contains("h3e3") && err.contains("UCI_Variant"), "{err}");
        assert!(
            !Notation::Iccs
                .read(&pos, "h2e3")
                .unwrap_err()
                .contains("UCI_Variant")
        );
        let err = Notation::Ranks1To10.read(&pos, "h2e2").unwrap_err();
        assert_eq!(err, "illegal move h2e2");
        let err = Notation::Ranks1To10.read(&pos, "h0e0").unwrap_err();
        assert!(err.contains("ranks 1-10"), "{err}");
    }
}
