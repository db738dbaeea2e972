//! Board geometry for code outside this crate: where chariots, cannons and
//! horses reach on a given occupancy, the squares between two points of a
//! line, and the occupancy of one rank or file.
//!
//! These are thin views of the compile-time tables of the private `attacks`
//! module, so an evaluation or a tool sees exactly the lines and legs that
//! move generation uses instead of keeping its own copy of them. The
//! occupancy is any [`Bitboard`] (the position's, or one with pieces
//! lifted); legality (pins, the generals facing) is not considered.

use crate::attacks::{self, Line};
use crate::bitboard::Bitboard;
use crate::types::{File, Rank, Square};

/// The occupancy of `file` as a 10-bit mask, bit `r` for rank `r`.
#[inline]
pub fn file_occupancy(occ: Bitboard, file: File) -> u16 {
    attacks::file_mask(occ, file.index())
}

/// The occupancy of `rank` as a 9-bit mask, bit `f` for file `f`.
#[inline]
pub fn rank_occupancy(occ: Bitboard, rank: Rank) -> u16 {
    // Nine bits: the cast keeps all of them.
    attacks::rank_occupancy(occ, rank.index()) as u16
}

fn line(line: Line, sq: Square, occ: Bitboard) -> Bitboard {
    let file_occ = usize::from(file_occupancy(occ, sq.file()));
    attacks::line_attacks(line, sq, occ, file_occ)
}

/// The squares a chariot on `sq` attacks: every empty square up to the
/// first piece in each direction, and that piece's square (of either
/// colour; mask out one's own pieces for moves).
#[inline]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    line(Line::Rook, sq, occ)
}

/// The empty squares a cannon on `sq` can slide to: those before the first
/// piece in each direction.
#[inline]
pub fn cannon_slides(sq: Square, occ: Bitboard) -> Bitboard {
    line(Line::Slide, sq, occ)
}

/// The squares a cannon on `sq` attacks over a screen: the second piece in
/// each direction (of either colour; mask with the enemy for captures).
#[inline]
pub fn cannon_hops(sq: Square, occ: Bitboard) -> Bitboard {
    line(Line::Cannon, sq, occ)
}

/// The squares a horse on `sq` reaches: the leg (the orthogonal neighbour
/// it passes) must be empty; targets of either colour are included.
#[inline]
pub fn knight_moves(sq: Square, occ: Bitboard) -> Bitboard {
    attacks::knight_moves(sq, occ)
}

/// The squares strictly between `a` and `b` when they share a rank or a
/// file; empty otherwise (and for neighbours).
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    attacks::between(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().expect("square")
    }

    fn set(squares: &[&str]) -> Bitboard {
        squares
            .iter()
            .fold(Bitboard::EMPTY, |b, s| b | Bitboard::from_square(sq(s)))
    }

    #[test]
    fn lines_and_occupancy() {
        let occ = set(&["e0", "e3", "e6", "c3", "h3"]);
        assert_eq!(file_occupancy(occ, sq("e0").file()), 0b100_1001);
        assert_eq!(rank_occupancy(occ, sq("e3").rank()), 0b1001_0100);
        assert_eq!(
            rook_attacks(sq("e3"), occ),
            set(&[
                "e0", "e1", "e2", "e4", "e5", "e6", "d3", "c3", "f3", "g3", "h3"
            ])
        );
        assert_eq!(cannon_slides(sq("e0"), occ).count(), 2 + 8);
        assert_eq!(cannon_hops(sq("e0"), occ), set(&["e6"]));
        assert_eq!(
            between(sq("e0"), sq("e6")),
            set(&["e1", "e2", "e3", "e4", "e5"])
        );
        assert_eq!(between(sq("e0"), sq("f1")), Bitboard::EMPTY);
        assert_eq!(
            knight_moves(sq("e3"), occ),
            set(&["d1", "f1", "c2", "g2", "c4", "g4", "d5", "f5"])
        );
        assert_eq!(
            knight_moves(sq("e2"), occ),
            set(&["d0", "f0", "c1", "g1", "c3", "g3"])
        );
    }
}
