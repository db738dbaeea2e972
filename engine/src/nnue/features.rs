//! The network architectures this build reads and trains — how a position
//! becomes input rows and which output layer scores it — and the
//! constants they share (`docs/nnue.md` §1).
//!
//! Each perspective (Red's and Black's) sees the board as if it played
//! from the bottom: a piece is encoded by its kind (7), its colour relative
//! to the perspective (own = 0, enemy = 1) and its square, rank-flipped for
//! Black ([`relative_square`]) so that each side's general starts on rank
//! 0. Both perspectives share one set of weights, so the colour-flipped
//! position (ranks reversed, colours swapped, the other side to move) has
//! the same two accumulators with their roles swapped and the same score.
//!
//! An [`Arch`] is named by what it encodes; the network file names it by
//! its format version ([`Arch::version`], [`Arch::from_version`]), and
//! everything that turns pieces into rows asks it. This build has:
//!
//! - [`Arch::Squares`] ([`squares`], format 3): every square for every
//!   piece, `2 × 7 × 90 = 1260` inputs per king bucket, one king bucket,
//!   one output layer, a hidden layer of [`HIDDEN`].
//!
//! Formats 4, 5 and 6 were tried and lost in games (`docs/nnue.md` §7);
//! this build refuses them by name ([`REMOVED_FORMATS`]).
//!
//! A perspective's rows all lie in one input bucket ([`Arch::input_bucket`]):
//! its general's king bucket (one, so far). A move that changes it
//! ([`Arch::bucket_changed`]) changes every row of that side, and the
//! accumulator refreshes that side.

pub mod squares;

use std::fmt;
use std::str::FromStr;

use arrayvec::ArrayVec;
use board::{Color, Move, Piece, PieceKind, Position, Square};

/// Width of the hidden layer (the accumulator), per perspective. A multiple
/// of 64, the trainer's block of a row (the engine's AVX2 and AVX-512 paths
/// need 16 and 32). 256:
/// on the sixth generation's 25 M positions a 256-wide network played
/// better at the clock than the 512-wide one from the same command
/// (`docs/nnue.md` §7, "The recipe").
pub const HIDDEN: usize = 256;

/// The most features one perspective can have active: 16 pieces a side.
pub const MAX_ACTIVE: usize = 32;

/// The most first-layer rows any architecture has.
pub const MAX_INPUTS: usize = {
    let mut most = 0;
    let mut i = 0;
    while i < Arch::ALL.len() {
        if Arch::ALL[i].inputs() > most {
            most = Arch::ALL[i].inputs();
        }
        i += 1;
    }
    most
};

// The active rows of a sample are stored as `u16`.
const _: () = assert!(MAX_INPUTS < 1 << 16);

/// What one move changed: the piece that moved, the move and what it took.
/// The accumulator applies it, the search's stack records one per ply, and
/// [`Arch::bucket_changed`] reads it.
pub type Change = (Piece, Move, Option<Piece>);

/// A format version that was tried, lost in games and was removed
/// (`docs/nnue.md` §7): the loader and the trainer's `--arch` refuse it
/// by name with these words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RemovedFormat {
    /// Its file format version.
    pub version: u32,
    /// The name `--arch` took for it, where it is still refused by name.
    pub name: Option<&'static str>,
    /// What it was, in short (the loader's words).
    pub short: &'static str,
    /// What it was, in full (the trainer's words).
    pub what: &'static str,
}

/// The removed format versions, in order.
pub const REMOVED_FORMATS: [RemovedFormat; 3] = [
    RemovedFormat {
        version: 4,
        name: None,
        short: "the mirrored legal-square format",
        what: "legal-square inputs mirrored by the general's file, output buckets by material",
    },
    RemovedFormat {
        version: 5,
        name: None,
        short: "output layers chosen by the major pieces",
        what: "format 3's inputs, 16 output layers chosen by each side's chariots, horses \
               and cannons",
    },
    RemovedFormat {
        version: 6,
        name: Some("squares-attack"),
        short: "inputs by attack bucket",
        what: "format 3's inputs once per attack bucket, by each side's chariot, horses \
               and cannons",
    },
];

impl RemovedFormat {
    /// The removed format of a version, if it is one.
    pub fn of_version(version: u32) -> Option<RemovedFormat> {
        REMOVED_FORMATS.into_iter().find(|r| r.version == version)
    }
}

/// A network architecture: how a position becomes input rows and which
/// output layer scores it. Named by what it encodes; each has one file
/// format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Every square for every piece, by king bucket ([`squares`]), one
    /// output layer. File format 3.
    Squares,
}

impl Arch {
    /// Every architecture this build reads and trains.
    pub const ALL: [Arch; 1] = [Arch::Squares];

    /// The format version of its network files.
    pub const fn version(self) -> u32 {
        match self {
            Arch::Squares => 3,
        }
    }

    /// The architecture of a format version, if this build has it.
    pub const fn from_version(version: u32) -> Option<Arch> {
        match version {
            3 => Some(Arch::Squares),
            _ => None,
        }
    }

    /// Its name, as the trainer's `--arch` takes it.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::Squares => "squares",
        }
    }

    /// Input buckets: the blocks of rows a perspective's rows all lie in.
    pub const fn input_buckets(self) -> usize {
        match self {
            Arch::Squares => squares::BUCKETS,
        }
    }

    /// First-layer rows (inputs, all input buckets together).
    pub const fn inputs(self) -> usize {
        self.input_buckets() * squares::INPUTS
    }

    /// Output layers (one per output bucket).
    pub const fn output_buckets(self) -> usize {
        match self {
            Arch::Squares => 1,
        }
    }

    /// The input bucket of `perspective` in `pos`.
    #[inline]
    pub fn input_bucket(self, perspective: Color, pos: &Position) -> usize {
        match self {
            Arch::Squares => {
                usize::from(squares::bucket(perspective, pos.king_square(perspective)))
            }
        }
    }

    /// Whether `change`, a move `(moved, m, captured)` on the line of play
    /// to `pos` (its last move or an earlier one), left `perspective` in
    /// another input bucket than the one it had before that move, where
    /// `pos` is a position whose bucket none of the moves after `change`
    /// changed: then every row of that side changed and the side needs a
    /// refresh. A king bucket changes when the own general moves from a
    /// square of another bucket than its present one (it may have gone
    /// there and back: a refresh is still right).
    #[inline]
    pub fn bucket_changed(
        self,
        perspective: Color,
        (moved, m, _captured): Change,
        pos: &Position,
    ) -> bool {
        match self {
            Arch::Squares => {
                squares::BUCKETS > 1
                    && moved == Piece::new(perspective, PieceKind::King)
                    && squares::bucket(perspective, m.from())
                        != squares::bucket(perspective, pos.king_square(perspective))
            }
        }
    }

    /// The input row of `piece` on `sq` for `perspective` in input bucket
    /// `bucket` ([`Arch::input_bucket`]).
    #[inline]
    pub fn index(self, perspective: Color, bucket: usize, piece: Piece, sq: Square) -> usize {
        match self {
            Arch::Squares => squares::index(perspective, bucket, piece, sq),
        }
    }

    /// The active input rows of `perspective` for a placement given as
    /// `(piece, square)` pairs (a position's pieces or a training
    /// record's). Pieces past [`MAX_ACTIVE`] are skipped; a position has
    /// none.
    pub fn active(
        self,
        perspective: Color,
        pieces: impl Iterator<Item = (Piece, Square)> + Clone,
    ) -> ArrayVec<u16, MAX_ACTIVE> {
        let bucket = match self {
            Arch::Squares => {
                let king = Piece::new(perspective, PieceKind::King);
                pieces
                    .clone()
                    .find(|&(p, _)| p == king)
                    .map_or(0, |(_, sq)| usize::from(squares::bucket(perspective, sq)))
            }
        };
        let mut out = ArrayVec::new();
        for (p, sq) in pieces {
            let row = self.index(perspective, bucket, p, sq);
            // Rows are below MAX_INPUTS < 65536.
            #[allow(clippy::cast_possible_truncation)]
            if out.try_push(row as u16).is_err() {
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
            Arch::Squares => squares::mirror_into(rows, out),
        }
    }

    /// The output layer that scores `pos`. Every architecture of this
    /// build has one; the file, the loader, the accumulator and the trainer
    /// keep one output layer per bucket, so that a rule which chooses among
    /// several is added here and in [`Arch::output_buckets`] alone.
    #[inline]
    pub fn output_bucket(self, _pos: &Position) -> usize {
        match self {
            Arch::Squares => 0,
        }
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Arch {
    type Err = String;

    /// An architecture's name (`squares`), or its format version (`3` or
    /// `v3`). A removed format ([`REMOVED_FORMATS`], by its version or its
    /// old name) is named as a format that never shipped.
    fn from_str(text: &str) -> Result<Arch, String> {
        let text = text.trim();
        if let Some(arch) = Arch::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(text))
        {
            return Ok(arch);
        }
        let version = text.trim_start_matches(['v', 'V']).parse::<u32>().ok();
        if let Some(arch) = version.and_then(Arch::from_version) {
            return Ok(arch);
        }
        let known = Arch::ALL
            .map(|a| format!("{a} (format {})", a.version()))
            .join(", ");
        let removed = REMOVED_FORMATS
            .into_iter()
            .find(|r| r.name.is_some_and(|n| n.eq_ignore_ascii_case(text)))
            .or_else(|| version.and_then(RemovedFormat::of_version));
        match removed {
            Some(r) => Err(format!(
                "network format {} ({}) never shipped and was removed; this build trains {known}",
                r.version, r.what
            )),
            None => Err(format!(
                "unknown network architecture '{text}': this build trains {known}"
            )),
        }
    }
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
                for sq in Square::all() {
                    for bucket in 0..squares::BUCKETS {
                        assert_eq!(
                            arch.index(Color::Red, bucket, p, sq),
                            arch.index(Color::Black, bucket, q, sq.flip())
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
            assert_eq!(format!("v{}", arch.version()).parse::<Arch>(), Ok(arch));
            assert_eq!(arch.version().to_string().parse::<Arch>(), Ok(arch));
        }
        assert_eq!("Squares".parse::<Arch>(), Ok(Arch::Squares));
        assert_eq!(Arch::Squares.version(), 3);
        // The 256-wide formats are not this build's, nor the removed 4 to 6.
        for gone in [
            "v1",
            "v2",
            "v4",
            "4",
            "v5",
            "v6",
            "6",
            "squares-attack",
            "squares-majors",
            "v7",
            "",
            "half_board",
        ] {
            assert!(gone.parse::<Arch>().is_err(), "{gone}");
        }
        assert!(
            "v4".parse::<Arch>()
                .is_err_and(|e| e.contains("never shipped") && e.contains("squares (format 3)"))
        );
        assert!(
            "5".parse::<Arch>()
                .is_err_and(|e| e.contains("format 5") && e.contains("never shipped"))
        );
        assert_eq!(
            "v9".parse::<Arch>(),
            Err("unknown network architecture 'v9': this build trains squares (format 3)".into())
        );
        assert!(
            "squares-attack"
                .parse::<Arch>()
                .is_err_and(|e| e.contains("format 6") && e.contains("never shipped"))
        );
        for version in [0, 1, 2, 4, 5, 6, 7] {
            assert_eq!(Arch::from_version(version), None);
        }
    }
}
