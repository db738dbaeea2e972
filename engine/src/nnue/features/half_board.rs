//! Format 4's encoding: one input row for each square a piece can stand
//! on, per relative colour and kind, with each perspective mirrored
//! left-right so that its own general stands on the d- or e-file
//! (`docs/nnue.md` §1).
//!
//! 1. A perspective sees the board rank-flipped for Black, as in format 3
//!    ([`relative_square`]); that keeps files.
//! 2. Its **view** is mirrored when its own general stands on the f-file:
//!    every square it sees is then reflected (file `a` ↔ `i`). The e-file is
//!    its own mirror, so a general there is seen as it stands.
//! 3. Rows are numbered over the squares each piece can stand on
//!    ([`Piece::can_stand_on`]) in the perspective's frame, by relative
//!    colour, kind and square: own general 6 (d- and e-file of the palace,
//!    after the mirroring), advisor 5, elephant 7, horse, chariot and
//!    cannon 90 each, soldier 55; then the enemy's general 9, advisor 5,
//!    elephant 7, 90, 90, 90 and soldier 55: [`INPUTS`] = 689 rows, none
//!    wasted.
//!
//! So a position and its mirror image have the same rows for a perspective
//! whose general is off the e-file: the network sees one canonical half.

use board::{Color, Piece, PieceKind, Square};

use super::{MAX_ACTIVE, View, relative_square};

/// The row of a square no piece of that kind stands on (in that view).
const NONE: u16 = u16::MAX;

/// Whether a piece of relative colour `rc` (0 own, 1 enemy) and kind `kind`
/// has a row on relative square `sq`: it can stand there (the
/// perspective's own pieces are Red's in its frame, the enemy's Black's),
/// and an own general only on the d- or e-file, the canonical half.
const fn has_row(rc: usize, kind: PieceKind, sq: Square) -> bool {
    let color = if rc == 0 { Color::Red } else { Color::Black };
    let own_general = rc == 0 && matches!(kind, PieceKind::King);
    Piece::new(color, kind).can_stand_on(sq) && !(own_general && sq.file().index() > 4)
}

/// Places in the tables below: relative colour (2) × kind × square.
const PLACES: usize = 2 * PieceKind::NUM * Square::NUM;

/// Place `i`'s relative colour, kind index and relative square.
const fn place(i: usize) -> (usize, usize, Square) {
    let Some(sq) = Square::from_index(i % Square::NUM) else {
        panic!("a place's square is below 90")
    };
    (
        i / (PieceKind::NUM * Square::NUM),
        i / Square::NUM % PieceKind::NUM,
        sq,
    )
}

/// The rows in the unmirrored view, by relative colour, kind and relative
/// square, and their number.
const fn number_rows() -> ([[[u16; Square::NUM]; PieceKind::NUM]; 2], usize) {
    let mut rows = [[[NONE; Square::NUM]; PieceKind::NUM]; 2];
    let mut next = 0;
    let mut i = 0;
    while i < PLACES {
        let (rc, k, sq) = place(i);
        if has_row(rc, PieceKind::ALL[k], sq) {
            // At most PLACES rows, so it fits in u16.
            #[allow(clippy::cast_possible_truncation)]
            {
                rows[rc][k][sq.index()] = next as u16;
            }
            next += 1;
        }
        i += 1;
    }
    (rows, next)
}

/// First-layer rows of format 4.
pub const INPUTS: usize = number_rows().1;

const _: () = assert!(INPUTS == 689);

/// The row of each relative colour, kind and relative square in the
/// unmirrored view, or [`NONE`]: the numbering.
const PLAIN: [[[u16; Square::NUM]; PieceKind::NUM]; 2] = number_rows().0;

/// The row of each piece on each absolute square, by perspective and view
/// (`[0]` as seen, `[1]` mirrored), or [`NONE`]: the numbering with the
/// relative colour, the rank flip and the mirroring folded in, so that
/// the accumulator's updates find a row with one load.
static INDEX: [[[[u16; Square::NUM]; Piece::NUM]; 2]; 2] = {
    let mut table = [[[[NONE; Square::NUM]; Piece::NUM]; 2]; 2];
    let mut i = 0;
    while i < 2 * 2 * Piece::NUM * Square::NUM {
        let (persp, mirrored) = (
            i / (2 * Piece::NUM * Square::NUM),
            i / (Piece::NUM * Square::NUM) % 2,
        );
        let (Some(piece), Some(sq)) = (
            Piece::from_index(i / Square::NUM % Piece::NUM),
            Square::from_index(i % Square::NUM),
        ) else {
            panic!("indices below 14 and 90")
        };
        let perspective = if persp == 0 { Color::Red } else { Color::Black };
        let rc = (piece.color() as usize != perspective as usize) as usize;
        let rel = relative_square(perspective, sq);
        let seen = if mirrored == 1 { rel.mirror() } else { rel };
        table[persp][mirrored][piece.index()][sq.index()] =
            PLAIN[rc][piece.kind().index()][seen.index()];
        i += 1;
    }
    table
};

/// Each row's relative colour and kind (`rc × 7 + kind`) and relative
/// square in the unmirrored view: the inverse of the numbering.
static ROW_SQUARES: [(u8, u8); INPUTS] = {
    let mut inverse = [(0u8, 0u8); INPUTS];
    let mut block = 0;
    while block < 2 * PieceKind::NUM {
        let mut s = 0;
        while s < Square::NUM {
            let row = PLAIN[block / PieceKind::NUM][block % PieceKind::NUM][s];
            if row != NONE {
                // block < 14 and s < 90.
                #[allow(clippy::cast_possible_truncation)]
                {
                    inverse[row as usize] = (block as u8, s as u8);
                }
            }
            s += 1;
        }
        block += 1;
    }
    inverse
};

/// The view of a perspective whose general stands on `own_king`: mirrored
/// on the f-file. Relative squares keep the absolute files, so this holds
/// for both perspectives.
#[inline]
pub fn view(own_king: Square) -> View {
    if own_king.file().index() > 4 {
        View::MIRRORED
    } else {
        View::default()
    }
}

/// The input row of `piece` on `sq` for `perspective` in `view` (see
/// [`super::Arch::index`]; `u16::MAX`, above every row, where the piece
/// has none).
#[inline]
pub fn index(perspective: Color, view: View, piece: Piece, sq: Square) -> usize {
    let mirrored = usize::from(view == View::MIRRORED);
    usize::from(INDEX[perspective.index()][mirrored][piece.index()][sq.index()])
}

/// A row's piece, from the perspective's side (Red is its own colour),
/// and its square in the unmirrored frame; `None` above [`INPUTS`].
pub fn row_square(row: usize) -> Option<(Piece, Square)> {
    let &(block, sq) = ROW_SQUARES.get(row)?;
    let (rc, kind) = (
        usize::from(block) / PieceKind::NUM,
        usize::from(block) % PieceKind::NUM,
    );
    let color = if rc == 0 { Color::Red } else { Color::Black };
    Some((
        Piece::new(color, PieceKind::ALL[kind]),
        Square::from_index(usize::from(sq))?,
    ))
}

/// See [`super::Arch::mirror_into`]. With the own general on the d-file
/// (as it stands or after the view's mirroring), the mirrored position's
/// general stands on the other side of the e-file, its view is the
/// opposite and its rows are the same; with the general on the e-file (or
/// none, in a hand-made record) each row's square is mirrored.
pub fn mirror_into<'a>(rows: &[u16], out: &'a mut [u16; MAX_ACTIVE]) -> &'a [u16] {
    let n = rows.len().min(MAX_ACTIVE);
    let own_general = Piece::new(Color::Red, PieceKind::King);
    let canonical_d = rows.iter().any(|&r| {
        row_square(usize::from(r)).is_some_and(|(p, sq)| p == own_general && sq.file().index() == 3)
    });
    for (o, &row) in out.iter_mut().zip(rows) {
        *o = match row_square(usize::from(row)) {
            Some((p, sq)) if !canonical_d => {
                PLAIN[usize::from(p.color() != Color::Red)][p.kind().index()][sq.mirror().index()]
            }
            _ => row,
        };
    }
    &out[..n]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every piece on every square it can stand on, for each perspective
    /// and view (an own general only where it gives that view): distinct
    /// rows below [`INPUTS`], every row used in the unmirrored view, so
    /// none is wasted, and in the mirrored view all but the own general's
    /// three e-file rows (a general there is seen as it stands).
    #[test]
    fn legal_placements_fill_the_rows_exactly() {
        for persp in Color::ALL {
            for mirrored in [false, true] {
                let v = if mirrored {
                    View::MIRRORED
                } else {
                    View::default()
                };
                let mut seen = vec![0u32; INPUTS];
                for pi in 0..Piece::NUM {
                    let p = Piece::from_index(pi).expect("piece");
                    for sq in Square::all().filter(|&sq| p.can_stand_on(sq)) {
                        if p == Piece::new(persp, PieceKind::King) && view(sq) != v {
                            continue;
                        }
                        let row = index(persp, v, p, sq);
                        assert!(row < INPUTS, "{p} on {sq}");
                        seen[row] += 1;
                    }
                }
                assert!(seen.iter().all(|&n| n <= 1), "{persp:?} {mirrored}");
                let unused: Vec<_> = (0..INPUTS)
                    .filter(|&r| seen[r] == 0)
                    .map(|r| row_square(r).expect("a row").1.to_string())
                    .collect();
                let expected: &[&str] = if mirrored { &["e0", "e1", "e2"] } else { &[] };
                assert_eq!(unused, expected, "{persp:?} {mirrored}");
            }
        }
    }

    /// Rows per relative colour and kind: the table of `docs/nnue.md` §1.
    #[test]
    fn rows_per_piece() {
        let mut count = [[0; PieceKind::NUM]; 2];
        for row in 0..INPUTS {
            let (p, sq) = row_square(row).expect("a row's square");
            assert_eq!(index(Color::Red, View::default(), p, sq), row);
            count[p.color().index()][p.kind().index()] += 1;
        }
        assert_eq!(
            count,
            [[6, 5, 7, 90, 90, 90, 55], [9, 5, 7, 90, 90, 90, 55]]
        );
        assert_eq!(row_square(INPUTS), None);
        // The first row of each block, and a few rows, as docs/nnue.md §1
        // lists them.
        let first = |c: Color, k: PieceKind| {
            (0..INPUTS)
                .find(|&r| row_square(r).is_some_and(|(p, _)| p == Piece::new(c, k)))
                .expect("a block")
        };
        let firsts = [Color::Red, Color::Black].map(|c| PieceKind::ALL.map(|k| first(c, k)));
        assert_eq!(
            firsts,
            [
                [0, 6, 11, 18, 108, 198, 288],
                [343, 352, 357, 364, 454, 544, 634]
            ]
        );
        let names = |rows: std::ops::Range<usize>| -> Vec<String> {
            rows.map(|r| row_square(r).expect("a row").1.to_string())
                .collect()
        };
        assert_eq!(names(0..3), ["d0", "e0", "d1"]);
        assert_eq!(names(6..11), ["d0", "f0", "e1", "d2", "f2"]);
        assert_eq!(
            names(679..689),
            ["a5", "c5", "e5", "g5", "i5", "a6", "c6", "e6", "g6", "i6"]
        );
    }

    #[test]
    fn squares_without_a_row_give_none() {
        let advisor = Piece::new(Color::Red, PieceKind::Advisor);
        let a0 = Square::from_index(0).expect("a0");
        assert_eq!(
            usize::from(NONE),
            index(Color::Red, View::default(), advisor, a0)
        );
        // Own general on the f-file in the unmirrored view.
        let f0 = Square::from_index(5).expect("f0");
        let king = Piece::new(Color::Red, PieceKind::King);
        assert!(index(Color::Red, View::default(), king, f0) >= INPUTS);
        assert!(index(Color::Red, View::MIRRORED, king, f0) < INPUTS);
        assert_eq!(view(f0), View::MIRRORED);
        // Black's general on f9 is mirrored too (files are absolute).
        let f9 = Square::from_index(9 * 9 + 5).expect("f9");
        assert_eq!(view(f9), View::MIRRORED);
    }
}
