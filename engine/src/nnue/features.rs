//! The input features and the output buckets of both network formats, and
//! the constants they share (`docs/nnue.md` §1).
//!
//! Each perspective (Red's and Black's) sees the board as if it played
//! from the bottom: a piece is encoded by its kind (7), its colour relative
//! to the perspective (own = 0, enemy = 1) and its square, rank-flipped for
//! Black ([`relative_square`]) so that each side's general starts on rank
//! 0. Both perspectives share one set of weights, so the colour-flipped
//! position (ranks reversed, colours swapped, the other side to move) has
//! the same two accumulators with their roles swapped and the same score,
//! in both formats.
//!
//! An [`Arch`] is one format's encoding; the network file names it by its
//! version, and everything that turns pieces into rows asks it. Both
//! formats this build reads have a hidden layer of [`HIDDEN`] = 512; their
//! inputs are the two encodings formats 1 and 2 introduced with a hidden
//! layer of 256 (files this build refuses, `docs/nnue.md` §2):
//!
//! - [`Arch::V3`] ([`squares`], format 1's inputs: every square for every
//!   piece): `2 × 7 × 90 = 1260` inputs per king bucket, one bucket, one
//!   output.
//! - [`Arch::V4`] ([`half_board`], format 2's inputs): only the squares
//!   each piece can stand on (689 inputs), each perspective mirrored
//!   left-right when its own general stands on the f-file, so that it sees
//!   one canonical half of the board, and [`OUTPUT_BUCKETS`] output layers
//!   chosen by the material on the board ([`material_bucket`]).
//!
//! What the own general decides about a perspective's rows — its king
//! bucket in [`squares`]'s encoding, its mirroring in [`half_board`]'s — is
//! its [`View`]: when a general's move changes its side's view, every row of
//! that side changes and the accumulator refreshes that side.

pub mod half_board;
pub mod squares;

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;
use board::{Color, Piece, PieceKind, Position, Square};

/// Width of the hidden layer (the accumulator), per perspective. A multiple
/// of 16 so that the AVX2 path works on whole 256-bit registers. Formats 1
/// and 2 had 256; 512 came with formats 3 and 4, once almost ten million
/// training positions were stored (9.66 M: `docs/nnue.md` §7).
pub const HIDDEN: usize = 512;

/// The most features one perspective can have active: 16 pieces a side.
pub const MAX_ACTIVE: usize = 32;

/// The most first-layer rows any format has (format 3's 1260).
pub const MAX_INPUTS: usize = squares::TOTAL_INPUTS;

/// Output buckets of format 4 (see [`material_bucket`]).
pub const OUTPUT_BUCKETS: usize = 8;

/// Format 4's output bucket by the number of chariots, horses and cannons
/// on the board, both sides together (0–12). Chosen so that self-play
/// training data spreads as evenly over the buckets as contiguous ranges
/// allow (`docs/nnue.md` §1 has the measurement): 0–1, 2, 3, 4, 5–6, 7–8,
/// 9–10, 11–12. Two pieces, the most common count (a quarter of the
/// positions), has a bucket of its own.
pub const MATERIAL_BUCKET: [u8; 13] = [0, 0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 7];

const _: () = {
    let mut i = 0;
    while i < MATERIAL_BUCKET.len() {
        assert!((MATERIAL_BUCKET[i] as usize) < OUTPUT_BUCKETS);
        i += 1;
    }
    assert!(MAX_INPUTS >= half_board::INPUTS && MAX_INPUTS < 1 << 16);
};

/// A network architecture: how a position becomes input rows and which
/// output layer scores it. One per format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Format 3: every square for every piece, one king bucket, one output
    /// (format 1's inputs, [`HIDDEN`] wide).
    V3,
    /// Format 4: legal squares only, mirrored by the own general's file,
    /// output buckets by material (format 2's inputs, [`HIDDEN`] wide).
    V4,
}

/// What a perspective's own general decides about its rows: the king
/// bucket in format 3 (always 0 while it has one bucket), whether the
/// board is seen mirrored left-right in format 4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct View(u8);

impl View {
    /// Format 4's view of a perspective whose own general stands on the
    /// f-file.
    pub const MIRRORED: View = View(1);

    /// The view as a number: the king bucket, or 1 for mirrored.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl Arch {
    /// Every architecture, by format version.
    pub const ALL: [Arch; 2] = [Arch::V3, Arch::V4];

    /// The format version of its network files.
    pub const fn version(self) -> u32 {
        match self {
            Arch::V3 => 3,
            Arch::V4 => 4,
        }
    }

    /// The architecture of a format version, if this build has it.
    pub const fn from_version(version: u32) -> Option<Arch> {
        match version {
            3 => Some(Arch::V3),
            4 => Some(Arch::V4),
            _ => None,
        }
    }

    /// First-layer rows (inputs, all king buckets together).
    pub const fn inputs(self) -> usize {
        match self {
            Arch::V3 => squares::TOTAL_INPUTS,
            Arch::V4 => half_board::INPUTS,
        }
    }

    /// Output layers.
    pub const fn output_buckets(self) -> usize {
        match self {
            Arch::V3 => 1,
            Arch::V4 => OUTPUT_BUCKETS,
        }
    }

    /// The view of `perspective` whose general stands on `own_king`.
    #[inline]
    pub fn view(self, perspective: Color, own_king: Square) -> View {
        match self {
            Arch::V3 => View(squares::bucket(perspective, own_king)),
            Arch::V4 => half_board::view(own_king),
        }
    }

    /// The input row of `piece` on `sq` for `perspective` in `view`.
    /// `piece` must be able to stand on `sq` ([`Piece::can_stand_on`]), as
    /// every piece of a position can, and in format 4 the view must be the
    /// one of the perspective's general ([`Arch::view`]); otherwise the
    /// row is [`Arch::inputs`] or more, which no network has.
    #[inline]
    pub fn index(self, perspective: Color, view: View, piece: Piece, sq: Square) -> usize {
        match self {
            Arch::V3 => squares::index(perspective, view.index(), piece, sq),
            Arch::V4 => half_board::index(perspective, view, piece, sq),
        }
    }

    /// The active input rows of `perspective` for a placement given as
    /// `(piece, square)` pairs (a position's pieces or a training
    /// record's). A piece on a square it cannot stand on has no row and is
    /// skipped, as are pieces past [`MAX_ACTIVE`]; a position has neither.
    pub fn active(
        self,
        perspective: Color,
        pieces: impl Iterator<Item = (Piece, Square)> + Clone,
    ) -> ArrayVec<u16, MAX_ACTIVE> {
        let king = Piece::new(perspective, PieceKind::King);
        let view = pieces
            .clone()
            .find(|&(p, _)| p == king)
            .map_or(View::default(), |(_, sq)| self.view(perspective, sq));
        let mut out = ArrayVec::new();
        for (p, sq) in pieces {
            let row = self.index(perspective, view, p, sq);
            debug_assert!(row < self.inputs(), "{p} cannot stand on {sq}");
            // Rows are below MAX_INPUTS < 65536.
            #[allow(clippy::cast_possible_truncation)]
            if row < self.inputs() && out.try_push(row as u16).is_err() {
                break;
            }
        }
        out
    }

    /// The rows of one perspective's view of the left-right mirrored
    /// position, computed from its rows of the position itself (the
    /// trainer's `--mirror`), written into `out` and returned. They come
    /// in the order of `rows`, not necessarily the order [`Arch::active`]
    /// gives for the mirrored position.
    pub fn mirror_into<'a>(self, rows: &[u16], out: &'a mut [u16; MAX_ACTIVE]) -> &'a [u16] {
        match self {
            Arch::V3 => squares::mirror_into(rows, out),
            Arch::V4 => half_board::mirror_into(rows, out),
        }
    }

    /// The output layer that scores `pos`.
    #[inline]
    pub fn output_bucket(self, pos: &Position) -> usize {
        match self {
            Arch::V3 => 0,
            Arch::V4 => material_bucket(pos),
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.version())
    }
}

impl FromStr for Arch {
    type Err = String;

    /// `v3` or `v4` (or the bare version number).
    fn from_str(text: &str) -> Result<Arch, String> {
        let digits = text.trim().trim_start_matches(['v', 'V']);
        digits
            .parse()
            .ok()
            .and_then(Arch::from_version)
            .ok_or_else(|| format!("unknown network architecture '{text}' (v3 or v4)"))
    }
}

/// Chariots, horses and cannons on the board, both sides together (0–12):
/// the material that decides format 4's output bucket.
#[inline]
pub fn material(pos: &Position) -> usize {
    let mut n = 0;
    for c in Color::ALL {
        for k in [PieceKind::Rook, PieceKind::Knight, PieceKind::Cannon] {
            n += pos.pieces(c, k).count() as usize;
        }
    }
    n
}

/// Format 4's output bucket of `pos` ([`MATERIAL_BUCKET`] of its
/// [`material`]).
#[inline]
pub fn material_bucket(pos: &Position) -> usize {
    // A position has at most 2 of each of the three kinds a side.
    usize::from(MATERIAL_BUCKET[material(pos).min(12)])
}

/// A square as `perspective` sees it: Black's view is rank-flipped.
#[inline]
pub const fn relative_square(perspective: Color, sq: Square) -> Square {
    match perspective {
        Color::Red => sq,
        Color::Black => sq.flip(),
    }
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
    fn colour_flip_gives_the_same_rows() {
        for arch in Arch::ALL {
            for pi in 0..Piece::NUM {
                let p = Piece::from_index(pi).expect("piece");
                let q = Piece::new(!p.color(), p.kind());
                for sq in Square::all().filter(|&sq| p.can_stand_on(sq)) {
                    for view in [View::default(), View::MIRRORED] {
                        assert_eq!(
                            arch.index(Color::Red, view, p, sq),
                            arch.index(Color::Black, view, q, sq.flip())
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn names_and_versions() {
        for arch in Arch::ALL {
            assert_eq!(Arch::from_version(arch.version()), Some(arch));
            assert_eq!(arch.to_string().parse::<Arch>(), Ok(arch));
        }
        assert_eq!("4".parse::<Arch>(), Ok(Arch::V4));
        // The 256-wide formats are not this build's.
        assert!("v1".parse::<Arch>().is_err());
        assert!("v2".parse::<Arch>().is_err());
        assert!("v5".parse::<Arch>().is_err());
        assert!("".parse::<Arch>().is_err());
        assert_eq!(Arch::from_version(0), None);
    }

    #[test]
    fn material_counts_chariots_horses_and_cannons() {
        let start = Position::startpos();
        assert_eq!(material(&start), 12);
        assert_eq!(material_bucket(&start), 7);
        let ending = Position::from_fen("3k5/9/4r4/9/4p4/9/9/4C4/9/5K3 w - - 0 1").expect("fen");
        assert_eq!(material(&ending), 2);
        assert_eq!(Arch::V4.output_bucket(&ending), 1);
        assert_eq!(Arch::V3.output_bucket(&start), 0);
        // Every bucket is used by some count, in order.
        assert!(MATERIAL_BUCKET.windows(2).all(|w| w[1] >= w[0]));
        assert!(MATERIAL_BUCKET.windows(2).all(|w| w[1] <= w[0] + 1));
        assert_eq!(usize::from(MATERIAL_BUCKET[12]), OUTPUT_BUCKETS - 1);
    }
}
