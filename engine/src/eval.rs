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
//! trivially consistent (no incremental state to go stale). Every table is
//! written for Red and symmetric left-right; Black reads it through
//! [`Square::flip`], so the evaluation of a colour-flipped position is the
//! exact negation and that of a mirrored position is equal (tests).

use std::fmt::Write as _;

use board::{Bitboard, Color, PieceKind, Position, Square};

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

/// No square (end of a line in [`STEP`]).
const NONE: u8 = u8::MAX;

/// `STEP[sq][d]`: the neighbour of `sq` in direction `d` (file+, file−,
/// rank+, rank−), or [`NONE`] off the board.
static STEP: [[u8; 4]; Square::NUM] = {
    let mut t = [[NONE; 4]; Square::NUM];
    let mut i = 0;
    while i < Square::NUM {
        let (f, r) = ((i % 9) as i32, (i / 9) as i32);
        let dirs = [(1, 0), (-1, 0), (0, 1), (0, -1)];
        let mut d = 0;
        while d < 4 {
            let (nf, nr) = (f + dirs[d].0, r + dirs[d].1);
            if nf >= 0 && nf < 9 && nr >= 0 && nr < 10 {
                t[i][d] = (nr * 9 + nf) as u8;
            }
            d += 1;
        }
        i += 1;
    }
    t
};

/// `HORSE[sq][k]`: (leg, target) of the horse's `k`-th move from `sq`, or
/// ([`NONE`], [`NONE`]) off the board.
static HORSE: [[(u8, u8); 8]; Square::NUM] = {
    let moves: [((i32, i32), (i32, i32)); 8] = [
        ((0, 1), (1, 2)),
        ((0, 1), (-1, 2)),
        ((0, -1), (1, -2)),
        ((0, -1), (-1, -2)),
        ((1, 0), (2, 1)),
        ((1, 0), (2, -1)),
        ((-1, 0), (-2, 1)),
        ((-1, 0), (-2, -1)),
    ];
    let mut t = [[(NONE, NONE); 8]; Square::NUM];
    let mut i = 0;
    while i < Square::NUM {
        let (f, r) = ((i % 9) as i32, (i / 9) as i32);
        let mut k = 0;
        while k < 8 {
            let ((lf, lr), (tf, tr)) = moves[k];
            let (nf, nr) = (f + tf, r + tr);
            if nf >= 0 && nf < 9 && nr >= 0 && nr < 10 {
                t[i][k] = (((r + lr) * 9 + f + lf) as u8, (nr * 9 + nf) as u8);
            }
            k += 1;
        }
        i += 1;
    }
    t
};

/// The square with index `i` (always in range: the tables hold only
/// board squares besides [`NONE`]).
#[inline]
fn sq_at(i: u8) -> Square {
    Square::from_index_panicking(i as usize)
}

fn horse_moves(pos: &Position, sq: Square, color: Color) -> usize {
    HORSE[sq.index()]
        .iter()
        .filter(|&&(leg, target)| {
            target != NONE
                && pos.piece_at(sq_at(leg)).is_none()
                && pos
                    .piece_at(sq_at(target))
                    .is_none_or(|p| p.color() != color)
        })
        .count()
}

/// What a chariot or cannon sees along one line from point `p` given the
/// line's occupancy: the empty points before the first blocker (both
/// directions together) and, per direction, the first and second
/// blockers' points ([`NO_POINT`] if none).
#[derive(Clone, Copy)]
struct LineView {
    empties: u8,
    first: [u8; 2],
    second: [u8; 2],
}

const NO_POINT: u8 = u8::MAX;

const fn line_views<const LEN: usize, const OCC: usize>() -> [[LineView; OCC]; LEN] {
    let empty = LineView {
        empties: 0,
        first: [NO_POINT; 2],
        second: [NO_POINT; 2],
    };
    let mut t = [[empty; OCC]; LEN];
    let mut p = 0;
    while p < LEN {
        let mut occ = 0;
        while occ < OCC {
            let mut v = empty;
            let mut dir = 0;
            while dir < 2 {
                let step: i32 = if dir == 0 { 1 } else { -1 };
                let mut i = p as i32 + step;
                let mut blockers = 0;
                while i >= 0 && i < LEN as i32 && blockers < 2 {
                    if occ & (1 << i) != 0 {
                        if blockers == 0 {
                            v.first[dir] = i as u8;
                        } else {
                            v.second[dir] = i as u8;
                        }
                        blockers += 1;
                    } else if blockers == 0 {
                        v.empties += 1;
                    }
                    i += step;
                }
                dir += 1;
            }
            t[p][occ] = v;
            occ += 1;
        }
        p += 1;
    }
    t
}

/// Views along a rank (9 points) and a file (10 points).
static RANK_VIEW: [[LineView; 512]; 9] = line_views::<9, 512>();
static FILE_VIEW: [[LineView; 1024]; 10] = line_views::<10, 1024>();

/// `RANK_SPREAD[x]`: bit `10 f` set for each bit `f` of the 9-bit rank
/// occupancy `x`.
static RANK_SPREAD: [u128; 512] = {
    let mut t = [0u128; 512];
    let mut x = 0;
    while x < 512 {
        let mut f = 0;
        while f < 9 {
            if x & (1 << f) != 0 {
                t[x] |= 1u128 << (10 * f);
            }
            f += 1;
        }
        x += 1;
    }
    t
};

/// The occupancy of the board by rank and by file, gathered once per
/// evaluation so that line pieces need no square-by-square walks.
struct Lines {
    ranks: [u16; 10],
    files: [u16; 9],
}

impl Lines {
    fn new(pos: &Position) -> Lines {
        let occ = pos.occupied().0;
        let mut ranks = [0u16; 10];
        for (r, rank) in ranks.iter_mut().enumerate() {
            *rank = ((occ >> (r * 9)) & 0x1ff) as u16;
        }
        // Transpose: each rank's bits are spread to bit `10 f` of a
        // 90-bit word and shifted by the rank, leaving file `f`'s ten bits
        // at `10 f`.
        let mut transposed = 0u128;
        for (r, &rank) in ranks.iter().enumerate() {
            transposed |= RANK_SPREAD[usize::from(rank)] << r;
        }
        let mut files = [0u16; 9];
        for (f, file) in files.iter_mut().enumerate() {
            *file = ((transposed >> (10 * f)) & 0x3ff) as u16;
        }
        Lines { ranks, files }
    }
}

/// Chariot moves (`cannon = false`) or cannon moves (slides plus the
/// capture over a screen).
fn line_moves(pos: &Position, lines: &Lines, sq: Square, color: Color, cannon: bool) -> i32 {
    let (f, r) = (sq.file().index(), sq.rank().index());
    let rank = &RANK_VIEW[f][usize::from(lines.ranks[r])];
    let file = &FILE_VIEW[r][usize::from(lines.files[f])];
    let enemy = |i: usize| {
        pos.piece_at(sq_at(i as u8))
            .is_some_and(|p| p.color() != color)
    };
    let mut n = i32::from(rank.empties) + i32::from(file.empties);
    for dir in 0..2 {
        let (on_rank, on_file) = if cannon {
            (rank.second[dir], file.second[dir])
        } else {
            (rank.first[dir], file.first[dir])
        };
        if on_rank != NO_POINT && enemy(r * 9 + usize::from(on_rank)) {
            n += 1;
        }
        if on_file != NO_POINT && enemy(usize::from(on_file) * 9 + f) {
            n += 1;
        }
    }
    n
}

/// Pieces strictly between two squares of one file.
fn between_on_file(pos: &Position, a: Square, b: Square) -> usize {
    let (lo, hi) = if a.rank().index() < b.rank().index() {
        (a, b)
    } else {
        (b, a)
    };
    let mut n = 0;
    let mut cur = STEP[lo.index()][2];
    while cur != NONE && cur as usize != hi.index() {
        n += usize::from(pos.piece_at(sq_at(cur)).is_some());
        cur = STEP[cur as usize][2];
    }
    n
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
    side_terms_with(pos, &Lines::new(pos), color)
}

/// [`side_terms`] with the line occupancy already gathered.
fn side_terms_with(pos: &Position, lines: &Lines, color: Color) -> Terms {
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
        t.mobility +=
            (line_moves(pos, lines, sq, color, false) - ROOK_MOBILITY_BASE) * ROOK_MOBILITY;
    }
    let enemy_king = pos.king_square(them);
    for sq in pos.pieces(color, PieceKind::Cannon) {
        t.mobility +=
            (line_moves(pos, lines, sq, color, true) - CANNON_MOBILITY_BASE) * CANNON_MOBILITY;
        t.cannons += screen_bias;
        if sq.file() == enemy_king.file()
            && let Some(&bonus) = CANNON_LINE.get(between_on_file(pos, sq, enemy_king))
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
    let lines = Lines::new(pos);
    let red = side_terms_with(pos, &lines, Color::Red).total()
        - side_terms_with(pos, &lines, Color::Black).total();
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
            let lines = Lines::new(&pos);
            for color in Color::ALL {
                for (kind, cannon) in [(PieceKind::Rook, false), (PieceKind::Cannon, true)] {
                    for sq in pos.pieces(color, kind) {
                        let fast = line_moves(&pos, &lines, sq, color, cannon);
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
