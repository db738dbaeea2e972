//! Static evaluation: material, piece-square tables and xiangqi terms.
//!
//! Scores are centipawn-like. Each term is computed per side (from that
//! side's point of view) and the evaluation is Red's minus Black's;
//! [`evaluate`] turns it to the side to move's view.
//!
//! Terms: material; piece-square tables; mobility of chariots, horses and
//! cannons; cannons (screens on the board, lines to the enemy general);
//! soldiers across the river (linked pairs, pressure on a weakened
//! palace); the defence (advisors and elephants missing, weighed by the
//! attackers the enemy has left; a lone general).
//!
//! Everything is recomputed from the board: with at most 32 pieces a full
//! pass costs little next to move generation, and it keeps the terms
//! trivially consistent (no incremental state to go stale). Where pieces
//! reach comes from [`board::geometry`], the tables move generation uses,
//! so mobility cannot drift from the rules. Every table is written for Red
//! and symmetric left-right; Black reads it through
//! [`Square::flip`], so the evaluation of a colour-flipped position is the
//! exact negation and that of a mirrored position is equal (tests).

use std::fmt::Write as _;

use board::{Bitboard, Color, PieceKind, Position, SeeValues, Square, geometry};

/// Material values by [`PieceKind::index`] (general: 0, never captured).
pub const PIECE_VALUE: [i32; PieceKind::NUM] = [0, 200, 200, 420, 950, 460, 100];

/// [`PIECE_VALUE`] as the static exchange evaluation counts it (its
/// cheapest-first order of the kinds worked out once, here).
pub const SEE_VALUES: SeeValues = SeeValues::new(PIECE_VALUE);

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

/// The full tables by colour, kind and square (Black's read through the
/// colour flip), expanded once at compile time.
static PST_FULL: [[[i16; Square::NUM]; PieceKind::NUM]; 2] = {
    let mut t = [[[0; Square::NUM]; PieceKind::NUM]; 2];
    let mut k = 0;
    while k < PieceKind::NUM {
        let mut i = 0;
        while i < Square::NUM {
            let (f, r) = (i % 9, i / 9);
            let col = if f > 4 { 8 - f } else { f };
            t[0][k][i] = PST[k][r][col];
            t[1][k][(9 - r) * 9 + f] = PST[k][r][col];
            i += 1;
        }
        k += 1;
    }
    t
};

/// Mobility bonus of a horse by its number of moves (a horse with no
/// move is nearly lost).
const HORSE_MOBILITY: [i32; 9] = [-40, -22, -10, -2, 4, 9, 13, 16, 18];
/// Bonus per chariot move beyond a typical six.
const ROOK_MOBILITY: i32 = 3;
const ROOK_MOBILITY_BASE: i32 = 6;
/// Bonus per cannon move beyond a typical eight.
const CANNON_MOBILITY: i32 = 1;
const CANNON_MOBILITY_BASE: i32 = 8;
/// Cannons gain (horses lose) this much per piece on the board beyond 16,
/// in eighths: cannons need screens, horses need room.
const SCREEN_SCALE_EIGHTHS: i32 = 12;
/// A cannon on the enemy general's file with nothing between (the
/// "hollow" central cannon), one screen (check) or two (a loaded line).
const CANNON_LINE: [i32; 3] = [70, 20, 14];
/// Two crossed soldiers side by side.
const LINKED_SOLDIERS: i32 = 18;
/// A crossed soldier near the palace, per enemy advisor missing.
const SOLDIER_VS_MISSING_ADVISOR: i32 = 12;
/// Penalty per missing advisor / elephant, per enemy attack unit.
const MISSING_ADVISOR: i32 = 3;
const MISSING_ELEPHANT: i32 = 2;
/// Extra penalty per enemy attack unit for a general with neither.
const LONE_GENERAL: i32 = 5;

/// Terms of the evaluation for one side, from that side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Terms {
    /// Material.
    pub material: i32,
    /// Piece-square tables.
    pub pst: i32,
    /// Chariot, horse and cannon mobility.
    pub mobility: i32,
    /// Cannon screens and lines to the enemy general.
    pub cannons: i32,
    /// Soldiers across the river.
    pub soldiers: i32,
    /// Advisors and elephants against the enemy's attackers; a lone general.
    pub defence: i32,
}

impl Terms {
    /// Sum of the terms.
    pub fn total(&self) -> i32 {
        self.material + self.pst + self.mobility + self.cannons + self.soldiers + self.defence
    }

    fn rows(&self) -> [(&'static str, i32); 6] {
        [
            ("Material", self.material),
            ("Piece-square", self.pst),
            ("Mobility", self.mobility),
            ("Cannons", self.cannons),
            ("Soldiers", self.soldiers),
            ("Defence", self.defence),
        ]
    }
}

/// Legal-looking horse moves (leg empty, target not one's own piece).
fn horse_moves(pos: &Position, sq: Square, color: Color) -> usize {
    (geometry::knight_moves(sq, pos.occupied()) & !pos.occupied_by(color)).count() as usize
}

/// Chariot moves (`cannon = false`) or cannon moves (slides plus the
/// capture over a screen).
fn line_moves(pos: &Position, sq: Square, color: Color, cannon: bool) -> i32 {
    let occ = pos.occupied();
    let n = if cannon {
        geometry::cannon_slides(sq, occ).count()
            + (geometry::cannon_hops(sq, occ) & pos.occupied_by(!color)).count()
    } else {
        (geometry::rook_attacks(sq, occ) & !pos.occupied_by(color)).count()
    };
    n as i32
}

/// Pieces strictly between two squares of one line.
fn screens_between(pos: &Position, a: Square, b: Square) -> usize {
    (geometry::between(a, b) & pos.occupied()).count() as usize
}

fn count(pos: &Position, color: Color, kind: PieceKind) -> i32 {
    pos.pieces(color, kind).count() as i32
}

fn crossed_soldiers(pos: &Position, color: Color) -> Bitboard {
    let mut b = Bitboard::EMPTY;
    for sq in pos.pieces(color, PieceKind::Pawn) {
        if !sq.on_own_side(color) {
            b |= Bitboard::from_square(sq);
        }
    }
    b
}

/// How much attacking force `color` has against the enemy palace.
fn attack_units(pos: &Position, color: Color) -> i32 {
    3 * count(pos, color, PieceKind::Rook)
        + 2 * count(pos, color, PieceKind::Knight)
        + 2 * count(pos, color, PieceKind::Cannon)
        + crossed_soldiers(pos, color).count() as i32
}

/// The terms of `color`, from its point of view.
pub fn side_terms(pos: &Position, color: Color) -> Terms {
    let them = !color;
    let mut t = Terms::default();
    for kind in PieceKind::ALL {
        let table = &PST_FULL[color.index()][kind.index()];
        for sq in pos.pieces(color, kind) {
            t.material += PIECE_VALUE[kind.index()];
            t.pst += i32::from(table[sq.index()]);
        }
    }
    let on_board = pos.occupied().count() as i32 - 2;
    let screen_bias = (on_board - 16) * SCREEN_SCALE_EIGHTHS / 8;
    for sq in pos.pieces(color, PieceKind::Knight) {
        t.mobility += HORSE_MOBILITY[horse_moves(pos, sq, color)];
        t.cannons -= screen_bias;
    }
    for sq in pos.pieces(color, PieceKind::Rook) {
        t.mobility += (line_moves(pos, sq, color, false) - ROOK_MOBILITY_BASE) * ROOK_MOBILITY;
    }
    let enemy_king = pos.king_square(them);
    for sq in pos.pieces(color, PieceKind::Cannon) {
        t.mobility += (line_moves(pos, sq, color, true) - CANNON_MOBILITY_BASE) * CANNON_MOBILITY;
        t.cannons += screen_bias;
        if sq.file() == enemy_king.file()
            && let Some(&bonus) = CANNON_LINE.get(screens_between(pos, sq, enemy_king))
        {
            t.cannons += bonus;
        }
    }
    let crossed = crossed_soldiers(pos, color);
    let missing_enemy_advisors = 2 - count(pos, them, PieceKind::Advisor).min(2);
    for sq in crossed {
        if sq.offset(1, 0).is_some_and(|n| crossed.contains(n)) {
            t.soldiers += LINKED_SOLDIERS;
        }
        let rel_rank = sq.rank().relative_to(color);
        let f = sq.file().index();
        if rel_rank >= 6 && (2..=6).contains(&f) {
            t.soldiers += SOLDIER_VS_MISSING_ADVISOR * missing_enemy_advisors;
        }
    }
    let units = attack_units(pos, them);
    let advisors = count(pos, color, PieceKind::Advisor).min(2);
    let elephants = count(pos, color, PieceKind::Bishop).min(2);
    t.defence -=
        (2 - advisors) * MISSING_ADVISOR * units + (2 - elephants) * MISSING_ELEPHANT * units;
    if advisors == 0 && elephants == 0 {
        t.defence -= LONE_GENERAL * units;
    }
    t
}

/// The evaluation from the side to move's point of view.
pub fn evaluate(pos: &Position) -> i32 {
    let red = side_terms(pos, Color::Red).total() - side_terms(pos, Color::Black).total();
    if pos.side_to_move() == Color::Red {
        red
    } else {
        -red
    }
}

/// A term-by-term breakdown (each side's view and the difference, Red's
/// view), ending with the line `Final evaluation: <n> (Red's view)`.
pub fn eval_trace(pos: &Position) -> String {
    let red = side_terms(pos, Color::Red);
    let black = side_terms(pos, Color::Black);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<14} {:>7} {:>7} {:>7}",
        "Term", "Red", "Black", "Total"
    );
    for ((name, r), (_, b)) in red.rows().into_iter().zip(black.rows()) {
        let _ = writeln!(s, "{name:<14} {r:>7} {b:>7} {:>7}", r - b);
    }
    let total = red.total() - black.total();
    let _ = writeln!(s, "Final evaluation: {total} (Red's view)");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The colour-flipped FEN: ranks reversed, cases swapped, other side
    /// to move.
    fn flip_fen(fen: &str) -> String {
        let mut fields = fen.split(' ');
        let board = fields.next().unwrap_or("");
        let side = fields.next().unwrap_or("w");
        let ranks: Vec<String> = board
            .split('/')
            .rev()
            .map(|r| {
                r.chars()
                    .map(|c| {
                        if c.is_ascii_uppercase() {
                            c.to_ascii_lowercase()
                        } else {
                            c.to_ascii_uppercase()
                        }
                    })
                    .collect()
            })
            .collect();
        let side = if side == "w" { "b" } else { "w" };
        format!("{} {side} - - 0 1", ranks.join("/"))
    }

    #[test]
    fn symmetric_under_colour_flip_and_mirror() {
        for fen in crate::bench::POSITIONS {
            let pos = Position::from_fen(fen).expect("bench FEN");
            let e = evaluate(&pos);
            let flipped = Position::from_fen(&flip_fen(fen)).expect("flipped FEN");
            assert_eq!(evaluate(&flipped), e, "colour flip of {fen}");
            assert_eq!(evaluate(&pos.mirror()), e, "mirror of {fen}");
            assert_eq!(evaluate(&flipped.mirror()), e, "both of {fen}");
        }
    }

    /// The slow twin of [`line_moves`]: walk each ray square by square.
    fn line_moves_by_walking(pos: &Position, sq: Square, color: Color, cannon: bool) -> i32 {
        let mut n = 0;
        for (df, dr) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let mut cur = sq;
            let mut screened = false;
            while let Some(next) = cur.offset(df, dr) {
                cur = next;
                match pos.piece_at(cur) {
                    None => n += i32::from(!screened),
                    Some(p) if !cannon || screened => {
                        n += i32::from(p.color() != color);
                        break;
                    }
                    Some(_) => screened = true,
                }
            }
        }
        n
    }

    #[test]
    fn line_tables_agree_with_walking() {
        let mut checked = 0;
        for fen in crate::bench::POSITIONS {
            let pos = Position::from_fen(fen).expect("bench FEN");
            for color in Color::ALL {
                for (kind, cannon) in [(PieceKind::Rook, false), (PieceKind::Cannon, true)] {
                    for sq in pos.pieces(color, kind) {
                        let fast = line_moves(&pos, sq, color, cannon);
                        assert_eq!(
                            fast,
                            line_moves_by_walking(&pos, sq, color, cannon),
                            "{fen} {sq}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 150);
    }

    #[test]
    fn start_position_is_balanced_and_traced() {
        let pos = Position::startpos();
        assert_eq!(evaluate(&pos), 0);
        let trace = eval_trace(&pos);
        assert!(trace.ends_with("Final evaluation: 0 (Red's view)\n"));
        let red = side_terms(&pos, Color::Red);
        assert_eq!(red.material, 2 * (200 + 200 + 420 + 950 + 460) + 5 * 100);
        // Both central-file lines are open for no cannon; no soldier crossed.
        assert_eq!(red.soldiers, 0);
        assert_eq!(red.defence, 0);
    }

    #[test]
    fn xiangqi_terms_point_the_right_way() {
        // Red cannon on the centre file with nothing between it and the
        // black general (hollow cannon) versus behind two screens.
        let hollow = Position::from_fen("3akab2/9/9/9/9/9/9/4C4/9/3K5 w - - 0 1").expect("FEN");
        assert_eq!(
            side_terms(&hollow, Color::Red).cannons,
            CANNON_LINE[0] + (4 - 16) * 12 / 8
        );
        // A horse in the corner with its legs blocked has no move.
        let boxed = Position::from_fen("4k4/9/9/9/9/9/9/9/R8/NN1K5 w - - 0 1").expect("FEN");
        assert_eq!(
            horse_moves(&boxed, "a0".parse().expect("sq"), Color::Red),
            0
        );
        // Missing advisors cost more against more attackers.
        let bare = Position::from_fen("4k4/9/9/9/9/9/9/9/9/R2K4R w - - 0 1").expect("FEN");
        let b = side_terms(&bare, Color::Black);
        assert_eq!(b.defence, -(2 * 3 * 6 + 2 * 2 * 6 + 5 * 6));
    }
}
