//! Output buckets by the major pieces on the board
//! ([`super::Arch::SquaresByMajors`], file format 5): the squares
//! encoding's inputs ([`super::squares`]) and [`BUCKETS`] output layers, one
//! chosen per position by how many chariots each side has and how many
//! horses and cannons together (`docs/nnue.md` §1).
//!
//! The rule is Pikafish's layer-stack rule, which its tests chose among
//! material rules for xiangqi: chariots decide most (a side without one
//! plays another game), then whether many or few horses and cannons are
//! left, then whether the sides are level in them. Counts are the side to
//! move's and the other side's, so the colour-flipped position falls in
//! the same bucket (the network's colour symmetry holds) and so does the
//! left-right mirror (the trainer's `--mirror` keeps a sample's bucket).
//!
//! | chariots (us, them) | bucket |
//! |---|---|
//! | equal, `c` each | `4c` + 2 if the horses and cannons (each side's counted up to 4) add to 4 or more, + 1 if both sides have as many |
//! | 2 and 1 | 12 |
//! | 1 and 2 | 13 |
//! | some and none | 14 |
//! | none and some | 15 |

use board::{Color, PieceKind, Position};

/// Output layers: 12 for level chariots (0, 1 or 2 a side, by 4 kinds of
/// horse-and-cannon balance), 4 for the unequal ones.
pub const BUCKETS: usize = 16;

/// The bucket of a position whose side to move has `us_chariots` and
/// `us_minors` (horses and cannons together) and whose other side has
/// `them_chariots` and `them_minors`. Counts above the game's (two
/// chariots, four horses and cannons) count as the game's most.
pub const fn bucket_of(
    us_chariots: u32,
    them_chariots: u32,
    us_minors: u32,
    them_minors: u32,
) -> usize {
    let (us_c, them_c) = (min(us_chariots, 2), min(them_chariots, 2));
    let (us_m, them_m) = (min(us_minors, 4), min(them_minors, 4));
    if us_c == them_c {
        (4 * us_c + if us_m + them_m >= 4 { 2 } else { 0 } + if us_m == them_m { 1 } else { 0 })
            as usize
    } else if us_c == 2 && them_c == 1 {
        12
    } else if us_c == 1 && them_c == 2 {
        13
    } else if them_c == 0 {
        14
    } else {
        15
    }
}

const fn min(a: u32, b: u32) -> u32 {
    if a < b { a } else { b }
}

/// The output bucket of `pos` (see the module documentation).
#[inline]
pub fn bucket(pos: &Position) -> usize {
    let us = pos.side_to_move();
    let count = |side: Color, kind: PieceKind| pos.pieces(side, kind).count();
    let minors = |side: Color| count(side, PieceKind::Knight) + count(side, PieceKind::Cannon);
    bucket_of(
        count(us, PieceKind::Rook),
        count(!us, PieceKind::Rook),
        minors(us),
        minors(!us),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bucket_is_reached_and_none_beyond() {
        let mut seen = [0u32; BUCKETS];
        for us_c in 0..=2 {
            for them_c in 0..=2 {
                for us_m in 0..=4 {
                    for them_m in 0..=4 {
                        seen[bucket_of(us_c, them_c, us_m, them_m)] += 1;
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
        // Level chariots: 25 minor pairs each, spread over four buckets.
        assert_eq!(seen[..12].iter().sum::<u32>(), 3 * 25);
        assert_eq!(seen[12..].iter().sum::<u32>(), 6 * 25);
    }

    #[test]
    fn the_rule_by_hand() {
        // The start: two chariots and four minors a side, level.
        assert_eq!(bucket(&Position::startpos()), 4 * 2 + 2 + 1);
        assert_eq!(bucket_of(2, 2, 4, 4), 11);
        assert_eq!(bucket_of(1, 1, 1, 2), 4);
        assert_eq!(bucket_of(0, 0, 0, 0), 1);
        assert_eq!(bucket_of(2, 1, 0, 4), 12);
        assert_eq!(bucket_of(1, 2, 4, 0), 13);
        assert_eq!(bucket_of(1, 0, 0, 0), 14);
        assert_eq!(bucket_of(2, 0, 0, 0), 14);
        assert_eq!(bucket_of(0, 2, 0, 0), 15);
        // Counts past the game's are the game's most.
        assert_eq!(bucket_of(3, 9, 7, 5), bucket_of(2, 2, 4, 4));
        // The other side to move sees the counts swapped.
        let pos =
            Position::from_fen("3k5/9/9/9/9/9/9/9/9/R2CK4 w - - 0 1").expect("a legal position");
        assert_eq!(bucket(&pos), 14);
        let pos =
            Position::from_fen("3k5/9/9/9/9/9/9/9/9/R2CK4 b - - 0 1").expect("a legal position");
        assert_eq!(bucket(&pos), 15);
    }
}
