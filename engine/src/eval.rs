//! Static evaluation: material, piece-square tables and xiangqi terms.
//!
//! Scores are centipawn-like, from Red's point of view inside this module;
//! [`evaluate`] turns them to the side to move's view. Every table is
//! written for Red and symmetric left-right; Black reads it through
//! [`Square::flip`], so the evaluation of a colour-flipped position is the
//! exact negation and that of a mirrored position is equal (tests).

use std::fmt::Write as _;

use board::{Color, PieceKind, Position, Square};

/// Material values by [`PieceKind::index`] (general: 0, never captured).
pub const PIECE_VALUE: [i32; PieceKind::NUM] = [0, 200, 200, 420, 950, 460, 100];

/// A half-row of a table: files a–e (file e, the centre, is mirrored onto
/// nothing); files f–i are the mirror of d–a.
type HalfRow = [i16; 5];

/// Piece-square bonuses, Red's view, rank 0 (Red's back rank) first.
const PST: [[HalfRow; 10]; PieceKind::NUM] = [
    // General: stay home, on the centre file.
    [
        [0, 0, 0, -8, 6],
        [0, 0, 0, -14, -6],
        [0, 0, 0, -30, -24],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
    ],
    // Advisor: the palace centre covers most.
    [
        [0, 0, 0, 0, 0],
        [0, 0, 0, 0, 8],
        [0, 0, 0, -4, 0],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
    ],
    // Elephant: central elephants defend both wings.
    [
        [0, 0, 0, 0, 0],
        [0; 5],
        [-4, 0, 0, 0, 8],
        [0; 5],
        [0, 0, -2, 0, 0],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
        [0; 5],
    ],
    // Horse: out of the corners, toward the enemy palace.
    [
        [-16, -8, -4, -6, -10],
        [-8, -2, 2, 0, -14],
        [-4, 4, 6, 6, 2],
        [-2, 6, 10, 8, 8],
        [0, 10, 14, 14, 12],
        [2, 14, 16, 18, 16],
        [4, 18, 20, 24, 18],
        [6, 16, 24, 30, 22],
        [0, 12, 20, 28, 26],
        [-6, 2, 8, 10, 4],
    ],
    // Chariot: open lines, the rib files and the enemy side.
    [
        [-8, 4, -2, 8, 0],
        [-4, 6, 0, 10, 0],
        [-4, 4, 0, 8, 2],
        [0, 8, 4, 10, 6],
        [4, 12, 10, 14, 12],
        [6, 14, 12, 16, 14],
        [6, 14, 12, 18, 16],
        [4, 12, 12, 18, 16],
        [4, 14, 12, 20, 18],
        [4, 10, 8, 14, 12],
    ],
    // Cannon: centre file and home squares early, rank 7 for pins.
    [
        [0, 0, 2, 4, 4],
        [0, 2, 4, 4, 6],
        [2, 2, 0, 4, 12],
        [0, 0, 0, 2, 4],
        [0, 0, 2, 2, 4],
        [-2, 0, 2, 2, 4],
        [0, 0, 0, 2, 4],
        [2, 2, 0, -6, -6],
        [4, 4, 2, -4, -8],
        [6, 6, 0, -6, -8],
    ],
    // Soldier: worth little at home, much across the river near the palace.
    [
        [0; 5],
        [0; 5],
        [0; 5],
        [0, 0, -2, 0, 4],
        [2, 0, 8, 0, 10],
        [10, 18, 22, 28, 30],
        [20, 30, 44, 54, 58],
        [24, 38, 52, 64, 70],
        [20, 34, 46, 56, 60],
        [0, 6, 12, 18, 14],
    ],
];

/// The table value of a Red piece of `kind` on `sq`.
#[inline]
fn pst_red(kind: PieceKind, sq: Square) -> i32 {
    let f = sq.file().index();
    let col = if f > 4 { 8 - f } else { f };
    i32::from(PST[kind.index()][sq.rank().index()][col])
}

/// Material plus table value of `color`'s piece of `kind` on `sq`, from
/// that colour's point of view.
#[inline]
pub fn piece_square(color: Color, kind: PieceKind, sq: Square) -> i32 {
    let rel = if color == Color::Red { sq } else { sq.flip() };
    PIECE_VALUE[kind.index()] + pst_red(kind, rel)
}

/// Terms of the evaluation, each from Red's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// Material.
    pub material: i32,
    /// Piece-square tables.
    pub pst: i32,
}

impl Terms {
    /// Sum of the terms, Red's view.
    pub fn total(&self) -> i32 {
        self.material + self.pst
    }
}

/// Computes every term, Red's view.
pub fn terms(pos: &Position) -> Terms {
    let mut t = Terms::default();
    for color in Color::ALL {
        let sign = if color == Color::Red { 1 } else { -1 };
        for kind in PieceKind::ALL {
            for sq in pos.pieces(color, kind) {
                let rel = if color == Color::Red { sq } else { sq.flip() };
                t.material += sign * PIECE_VALUE[kind.index()];
                t.pst += sign * pst_red(kind, rel);
            }
        }
    }
    t
}

/// The evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let red = terms(pos).total();
    if pos.side_to_move() == Color::Red {
        red
    } else {
        -red
    }
}

/// A term-by-term breakdown (Red's view), ending with the line
/// `Final evaluation: <n> (Red's view)`.
pub fn eval_trace(pos: &Position) -> String {
    let t = terms(pos);
    let mut s = String::new();
    let _ = writeln!(s, "{:<20} {:>7}", "Term", "Red");
    let _ = writeln!(s, "{:<20} {:>7}", "Material", t.material);
    let _ = writeln!(s, "{:<20} {:>7}", "Piece-square", t.pst);
    let _ = writeln!(s, "Final evaluation: {} (Red's view)", t.total());
    s
}
