//! The squares encoding ([`super::Arch::Squares`], file format 3):
//! `2 × 7 × 90 = 1260` inputs per king bucket,
//! `input = bucket × 1260 + (relative colour × 7 + kind) × 90 + relative
//! square` (`docs/nnue.md` §1).
//!
//! Files are not folded: left-right mirror symmetry is only learned (the
//! trainer's `--mirror`), not built in, and 45 % of the rows are squares
//! where that piece never stands.
//!
//! King buckets: the general never leaves its 9-point palace, so the own
//! general's perspective-relative square selects one of at most 9 buckets,
//! each with its own 1260 inputs. The format carries the bucket count;
//! [`BUCKETS`] is 1 (every palace point maps to bucket 0) because 9
//! buckets need about 9 times the data to train. Raising it changes
//! [`KING_BUCKET`] and the format version; the accumulator already
//! refreshes a perspective when its general changes bucket.

use board::{Color, Piece, PieceKind, Square};

use super::{MAX_ACTIVE, relative_square};

/// Inputs per king bucket: relative colour (2) × kind (7) × square (90).
pub const INPUTS: usize = 2 * PieceKind::NUM * Square::NUM;

/// Number of king buckets (see the module documentation).
pub const BUCKETS: usize = 1;

/// Every input row of the first layer, all buckets together.
pub const TOTAL_INPUTS: usize = BUCKETS * INPUTS;

/// The bucket of each palace point, by perspective-relative file (3–5, as
/// 0–2) and rank (0–2). All zero while [`BUCKETS`] is 1.
pub const KING_BUCKET: [[u8; 3]; 3] = [[0; 3]; 3];

/// The king bucket of `perspective` whose general stands on `own_king`
/// (an absolute square, which must be in that side's palace; any other
/// square is treated as bucket 0, which only a hand-made setup can reach).
#[inline]
pub fn bucket(perspective: Color, own_king: Square) -> u8 {
    let rel = relative_square(perspective, own_king);
    let (file, rank) = (rel.file().index(), rel.rank().index());
    if (3..=5).contains(&file) && rank <= 2 {
        KING_BUCKET[rank][file - 3]
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

/// Each row of a bucket's inputs, mirrored left-right within the bucket:
/// the piece block kept, the square's file reflected.
pub(super) const MIRRORED: [u16; INPUTS] = {
    let mut table = [0u16; INPUTS];
    let mut i = 0;
    while i < INPUTS {
        let (piece, sq) = (i / Square::NUM, i % Square::NUM);
        let mirrored = match Square::from_index(sq) {
            Some(s) => s.mirror().index(),
            None => sq,
        };
        // Below INPUTS, so it fits in u16.
        #[allow(clippy::cast_possible_truncation)]
        {
            table[i] = (piece * Square::NUM + mirrored) as u16;
        }
        i += 1;
    }
    table
};

/// See [`super::Arch::mirror_into`]. Mirroring moves each piece to the
/// other side of the board's middle file, and a perspective's relative
/// square is at most rank-flipped, which keeps files: so the relative
/// square is mirrored in place, and the bucket becomes the one of the
/// perspective's own general on its mirrored palace point.
pub fn mirror_into<'a>(rows: &[u16], out: &'a mut [u16; MAX_ACTIVE]) -> &'a [u16] {
    let within = |row: u16| usize::from(row) % INPUTS;
    let b = if BUCKETS == 1 {
        0
    } else {
        // The own general's rows are the first block; a perspective's
        // relative squares are absolute squares as Red sees them, so
        // Red's bucket function reads them directly.
        let king = PieceKind::King.index() * Square::NUM;
        rows.iter()
            .map(|&row| within(row))
            .find(|w| (king..king + Square::NUM).contains(w))
            .and_then(|w| Square::from_index(w - king))
            .map_or(0, |sq| usize::from(bucket(Color::Red, sq.mirror())))
    };
    // Below TOTAL_INPUTS, so it fits in u16.
    #[allow(clippy::cast_possible_truncation)]
    let base = (b * INPUTS) as u16;
    let n = rows.len().min(MAX_ACTIVE);
    for (o, &row) in out.iter_mut().zip(rows) {
        *o = base + MIRRORED[within(row)];
    }
    &out[..n]
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
}
