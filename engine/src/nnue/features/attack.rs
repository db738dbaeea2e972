//! Input buckets by attacking material ([`super::Arch::SquaresByAttack`],
//! file format 6): the squares encoding's rows ([`super::squares`]) once
//! per [`BUCKETS`] buckets, a perspective's bucket chosen by whether its
//! own side still has a chariot and whether it still has a horse or a
//! cannon (`docs/nnue.md` §1).
//!
//! It is Pikafish's attack bucket: what a side can still attack with
//! changes what its pieces' squares are worth (a soldier's advance, the
//! advisors' and elephants' value), and it takes four buckets, where
//! king buckets take nine and about nine times the data. The trainer
//! shares one factor row among the four buckets of a piece on a square
//! (`train`'s factoriser), so a bucket seldom seen still learns what is
//! common to all of them.
//!
//! Material only falls in xiangqi (no promotion, no drop), so a bucket
//! only ever changes when a capture takes a side's last chariot or its
//! last horse or cannon, and then that side's perspective is refreshed
//! ([`changed`]).

use board::{Color, Piece, PieceKind, Position, Square};

use super::MAX_ACTIVE;
use super::squares::{self, INPUTS};

/// Buckets: own chariot or not, times own horse or cannon or not.
pub const BUCKETS: usize = 4;

/// Every input row of the first layer, all buckets together.
pub const TOTAL_INPUTS: usize = BUCKETS * INPUTS;

/// The bucket of a side that has `chariots` chariots and `minors` horses
/// and cannons together.
#[inline]
pub const fn bucket_of(chariots: u32, minors: u32) -> usize {
    2 * (chariots > 0) as usize + (minors > 0) as usize
}

/// The bucket of `perspective` in `pos`.
#[inline]
pub fn bucket(perspective: Color, pos: &Position) -> usize {
    let count = |kind: PieceKind| pos.pieces(perspective, kind).count();
    bucket_of(
        count(PieceKind::Rook),
        count(PieceKind::Knight) + count(PieceKind::Cannon),
    )
}

/// The bucket of `perspective` for a placement given as `(piece, square)`
/// pairs (see [`super::Arch::active`]).
pub fn bucket_in(perspective: Color, pieces: impl Iterator<Item = (Piece, Square)>) -> usize {
    let (mut chariots, mut minors) = (0, 0);
    for (p, _) in pieces.filter(|(p, _)| p.color() == perspective) {
        match p.kind() {
            PieceKind::Rook => chariots += 1,
            PieceKind::Knight | PieceKind::Cannon => minors += 1,
            _ => {}
        }
    }
    bucket_of(chariots, minors)
}

/// Whether a move that took `captured` changed `perspective`'s bucket, in
/// `pos`, a position at or after that move on the same line of play:
/// the captured piece was the side's and no piece of its group (chariots;
/// horses and cannons) is left. Because material never comes back, that
/// group was present before the capture and is absent now.
#[inline]
pub fn changed(perspective: Color, captured: Option<Piece>, pos: &Position) -> bool {
    let Some(c) = captured.filter(|c| c.color() == perspective) else {
        return false;
    };
    let none = |kind: PieceKind| pos.pieces(perspective, kind).is_empty();
    match c.kind() {
        PieceKind::Rook => none(PieceKind::Rook),
        PieceKind::Knight | PieceKind::Cannon => none(PieceKind::Knight) && none(PieceKind::Cannon),
        _ => false,
    }
}

/// The input row of `piece` on `sq` for `perspective` in bucket `bucket`.
#[inline]
pub fn index(perspective: Color, bucket: usize, piece: Piece, sq: Square) -> usize {
    squares::index(perspective, bucket, piece, sq)
}

/// See [`super::Arch::mirror_into`]: the left-right mirror keeps the
/// material, so each row stays in its bucket with its square mirrored.
pub fn mirror_into<'a>(rows: &[u16], out: &'a mut [u16; MAX_ACTIVE]) -> &'a [u16] {
    let n = rows.len().min(MAX_ACTIVE);
    for (o, &row) in out.iter_mut().zip(rows) {
        let (bucket, within) = (usize::from(row) / INPUTS, usize::from(row) % INPUTS);
        // Below TOTAL_INPUTS, so it fits in u16.
        #[allow(clippy::cast_possible_truncation)]
        {
            *o = (bucket * INPUTS) as u16 + squares::MIRRORED[within];
        }
    }
    &out[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_by_hand() {
        assert_eq!(bucket_of(0, 0), 0);
        assert_eq!(bucket_of(0, 3), 1);
        assert_eq!(bucket_of(1, 0), 2);
        assert_eq!(bucket_of(2, 4), 3);
        let start = Position::startpos();
        for side in Color::ALL {
            assert_eq!(bucket(side, &start), 3);
            assert_eq!(bucket_in(side, super::super::pieces_of(&start)), 3);
        }
        // Red: a chariot and a cannon; Black: the general alone.
        let pos =
            Position::from_fen("3k5/9/9/9/9/9/9/9/9/R2CK4 w - - 0 1").expect("a legal position");
        assert_eq!(bucket(Color::Red, &pos), 3);
        assert_eq!(bucket(Color::Black, &pos), 0);
        assert_eq!(bucket_in(Color::Black, super::super::pieces_of(&pos)), 0);
    }

    #[test]
    fn rows_stay_in_range() {
        for persp in Color::ALL {
            for b in 0..BUCKETS {
                for pi in 0..Piece::NUM {
                    let p = Piece::from_index(pi).expect("piece");
                    for sq in Square::all() {
                        let row = index(persp, b, p, sq);
                        assert_eq!(row / INPUTS, b);
                        assert!(row < TOTAL_INPUTS);
                    }
                }
            }
        }
    }
}
