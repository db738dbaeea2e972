//! The input features and the architecture constants.
//!
//! Each perspective (Red's and Black's) sees the board as if it played
//! from the bottom: a piece is encoded by its kind (7), its colour relative
//! to the perspective (own = 0, enemy = 1) and its square, rank-flipped for
//! Black ([`Square::flip`]) so that each side's general starts on rank 0.
//! That gives `2 × 7 × 90 = 1260` inputs per king bucket. Because both
//! perspectives share one set of weights, the colour-flipped position (ranks
//! reversed, colours swapped, the other side to move) produces the same two
//! accumulators with their roles swapped, and so the same score: the
//! colour-flip symmetry holds by construction. Left-right mirror symmetry
//! does not: files are not folded, so the network may (and after training
//! on mirrored data, nearly does) score a mirrored position alike.
//!
//! King buckets: the general never leaves its 9-point palace, so the own
//! general's perspective-relative square selects one of at most 9 buckets,
//! each with its own 1260 inputs. The format carries the bucket count;
//! [`BUCKETS`] is 1 for now (every palace point maps to bucket 0) because
//! 9 buckets need about 9 times the data to train. Raising it changes
//! [`KING_BUCKET`] and the format version; the accumulator already
//! refreshes a perspective when its general changes bucket.

use board::{Color, Piece, PieceKind, Square};

/// Inputs per king bucket: relative colour (2) × kind (7) × square (90).
pub const INPUTS: usize = 2 * PieceKind::NUM * Square::NUM;

/// Number of king buckets (see the module documentation).
pub const BUCKETS: usize = 1;

/// Every input row of the first layer, all buckets together.
pub const TOTAL_INPUTS: usize = BUCKETS * INPUTS;

/// Width of the hidden layer (the accumulator), per perspective. A multiple
/// of 16 so that the AVX2 path works on whole 256-bit registers.
pub const HIDDEN: usize = 256;

/// The most features one perspective can have active: 16 pieces a side.
pub const MAX_ACTIVE: usize = 32;

/// The bucket of each palace point, by perspective-relative file (3–5, as
/// 0–2) and rank (0–2). All zero while [`BUCKETS`] is 1.
pub const KING_BUCKET: [[u8; 3]; 3] = [[0; 3]; 3];

/// A square as `perspective` sees it: Black's view is rank-flipped.
#[inline]
pub const fn relative_square(perspective: Color, sq: Square) -> Square {
    match perspective {
        Color::Red => sq,
        Color::Black => sq.flip(),
    }
}

/// The king bucket of `perspective` whose general stands on `own_king`
/// (an absolute square, which must be in that side's palace; any other
/// square is treated as bucket 0, which only a hand-made setup can reach).
#[inline]
pub fn bucket(perspective: Color, own_king: Square) -> usize {
    let rel = relative_square(perspective, own_king);
    let (file, rank) = (rel.file().index(), rel.rank().index());
    if (3..=5).contains(&file) && rank <= 2 {
        usize::from(KING_BUCKET[rank][file - 3])
    } else {
        0
    }
}

/// The input row of `piece` on `sq` for `perspective` in bucket `bucket`.
#[inline]
pub fn index(perspective: Color, bucket: usize, piece: Piece, sq: Square) -> usize {
    let rel_colour = usize::from(piece.color() != perspective);
    let rel_sq = relative_square(perspective, sq).index();
    bucket * INPUTS + (rel_colour * PieceKind::NUM + piece.kind().index()) * Square::NUM + rel_sq
}

/// The active input rows of `perspective` for a placement given as
/// `(piece, square)` pairs (a position's pieces or a training record's).
/// Pieces past [`MAX_ACTIVE`] are ignored; a legal position has at most 32.
pub fn active(
    perspective: Color,
    pieces: impl Iterator<Item = (Piece, Square)> + Clone,
) -> arrayvec::ArrayVec<u16, MAX_ACTIVE> {
    let king = Piece::new(perspective, PieceKind::King);
    let b = pieces
        .clone()
        .find(|&(p, _)| p == king)
        .map_or(0, |(_, sq)| bucket(perspective, sq));
    let mut out = arrayvec::ArrayVec::new();
    for (p, sq) in pieces {
        // TOTAL_INPUTS < 65536, so the row fits in u16.
        #[allow(clippy::cast_possible_truncation)]
        let row = index(perspective, b, p, sq) as u16;
        if out.try_push(row).is_err() {
            break;
        }
    }
    out
}

/// The pieces of a position as `(piece, square)` pairs, in square order.
pub fn pieces_of(pos: &board::Position) -> impl Iterator<Item = (Piece, Square)> + Clone + '_ {
    pos.occupied()
        .filter_map(move |sq| pos.piece_at(sq).map(|p| (p, sq)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_are_in_range_and_distinct() {
        let mut seen = vec![false; TOTAL_INPUTS];
        for persp in Color::ALL {
            seen.iter_mut().for_each(|s| *s = false);
            for pi in 0..Piece::NUM {
                let p = Piece::from_index(pi).expect("piece");
                for sq in Square::all() {
                    let i = index(persp, 0, p, sq);
                    assert!(i < TOTAL_INPUTS);
                    assert!(!seen[i], "row {i} used twice");
                    seen[i] = true;
                }
            }
        }
    }

    #[test]
    fn colour_flip_gives_the_same_rows() {
        for pi in 0..Piece::NUM {
            let p = Piece::from_index(pi).expect("piece");
            let q = Piece::new(!p.color(), p.kind());
            for sq in Square::all() {
                assert_eq!(
                    index(Color::Red, 0, p, sq),
                    index(Color::Black, 0, q, sq.flip())
                );
            }
        }
    }
}
