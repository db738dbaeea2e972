//! Precomputed move and attack tables, built by `const fn` at compile time.
//!
//! Sliding pieces (chariot, cannon) are looked up one line at a time: a rank
//! is 9 points and a file 10, so a line's occupancy is at most a 10-bit
//! number and every (position on the line, occupancy) pair has its answer in
//! a table. Leapers with a blocking point (horse leg, elephant eye) are
//! looked up by square and the 4-bit occupancy of the four blocking points.
//!
//! The tables are plain `u128` because `const` construction cannot use the
//! operators of [`Bitboard`]; every function here takes and returns
//! `Bitboard`, converting at the lookup, so the raw bits stay in this file.

use crate::bitboard::Bitboard;
use crate::types::{Color, Square};

/// A bit mask over one line: bit `i` is the `i`-th point of the rank or file.
type LineMask = u16;

/// Per line position and occupancy: the empty points before the first
/// blocker in each direction (quiet moves of chariot and cannon), the same
/// plus the first blockers (chariot attacks), and the second blockers
/// (cannon captures).
struct LineTable<const LEN: usize, const OCC: usize> {
    slide: [[LineMask; OCC]; LEN],
    rook: [[LineMask; OCC]; LEN],
    cannon: [[LineMask; OCC]; LEN],
}

const fn line_table<const LEN: usize, const OCC: usize>() -> LineTable<LEN, OCC> {
    let mut t = LineTable {
        slide: [[0; OCC]; LEN],
        rook: [[0; OCC]; LEN],
        cannon: [[0; OCC]; LEN],
    };
    let mut p = 0;
    while p < LEN {
        let mut occ = 0;
        while occ < OCC {
            let mut dir = 0;
            while dir < 2 {
                let step: i32 = if dir == 0 { 1 } else { -1 };
                let mut i = p as i32 + step;
                let mut screens = 0;
                while i >= 0 && i < LEN as i32 {
                    let bit = 1 << i;
                    if occ & bit != 0 {
                        if screens == 0 {
                            t.rook[p][occ] |= bit as LineMask;
                        } else {
                            t.cannon[p][occ] |= bit as LineMask;
                            break;
                        }
                        screens += 1;
                    } else if screens == 0 {
                        t.slide[p][occ] |= bit as LineMask;
                        t.rook[p][occ] |= bit as LineMask;
                    }
                    i += step;
                }
                dir += 1;
            }
            occ += 1;
        }
        p += 1;
    }
    t
}

static RANK: LineTable<9, 512> = line_table::<9, 512>();
static FILE: LineTable<10, 1024> = line_table::<10, 1024>();

/// `FILE_SPREAD[m]` puts bit `r` of a file mask on square `r * 9` (file a).
static FILE_SPREAD: [u128; 1024] = {
    let mut t = [0u128; 1024];
    let mut m = 0;
    while m < 1024 {
        let mut r = 0;
        while r < 10 {
            if m >> r & 1 != 0 {
                t[m] |= 1u128 << (r * 9);
            }
            r += 1;
        }
        m += 1;
    }
    t
};

/// Bits 0, 9, 18, …: one point per rank on file a.
const FILE_A: u128 = {
    let mut b = 0u128;
    let mut r = 0;
    while r < 10 {
        b |= 1u128 << (r * 9);
        r += 1;
    }
    b
};

/// The occupancy of rank `rank` as a 9-bit line mask (bit = file).
#[inline]
pub(crate) fn rank_occupancy(occ: Bitboard, rank: usize) -> usize {
    (occ.0 >> (rank * 9)) as usize & 0x1ff
}

/// Which of the three line tables to read.
#[derive(Clone, Copy)]
pub(crate) enum Line {
    /// Empty points up to the first blocker.
    Slide,
    /// Slide plus the first blockers.
    Rook,
    /// The second blockers.
    Cannon,
}

/// The squares a line piece on `sq` reaches, given the occupancy of the
/// whole board (`occ`) and of `sq`'s file as a 10-bit mask (`file_occ`).
#[inline]
pub(crate) fn line_attacks(line: Line, sq: Square, occ: Bitboard, file_occ: usize) -> Bitboard {
    let f = sq.file().index();
    let r = sq.rank().index();
    let ro = rank_occupancy(occ, r);
    let (rank_mask, file_mask) = match line {
        Line::Slide => (RANK.slide[f][ro], FILE.slide[r][file_occ]),
        Line::Rook => (RANK.rook[f][ro], FILE.rook[r][file_occ]),
        Line::Cannon => (RANK.cannon[f][ro], FILE.cannon[r][file_occ]),
    };
    Bitboard::from_bits((u128::from(rank_mask) << (r * 9)) | (FILE_SPREAD[file_mask as usize] << f))
}

const fn sq_bit(file: i32, rank: i32) -> u128 {
    if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
        1u128 << (rank * 9 + file)
    } else {
        0
    }
}

/// Orthogonal neighbour steps, in the order of the leg bits.
const ORTHO: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// Diagonal neighbour steps, in the order of the eye/leg bits.
const DIAG: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Square index of each neighbour, 127 when off the board: bit 127 of an
/// occupancy is never set, so an off-board neighbour reads as empty, and the
/// tables never lead a piece off the board anyway.
const fn neighbours(steps: [(i32, i32); 4]) -> [[u8; 4]; 90] {
    let mut t = [[127u8; 4]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut i = 0;
        while i < 4 {
            let (nf, nr) = (f + steps[i].0, r + steps[i].1);
            if nf >= 0 && nf < 9 && nr >= 0 && nr < 10 {
                t[s][i] = (nr * 9 + nf) as u8;
            }
            i += 1;
        }
        s += 1;
    }
    t
}

static ORTHO_NEIGHBOURS: [[u8; 4]; 90] = neighbours(ORTHO);
static DIAG_NEIGHBOURS: [[u8; 4]; 90] = neighbours(DIAG);

/// A 4-bit mask of which of the four given neighbours of `sq` are occupied.
#[inline]
fn block_mask(table: &[[u8; 4]; 90], sq: Square, occ: Bitboard) -> usize {
    let n = &table[sq.index()];
    let occ = occ.0;
    ((occ >> n[0]) as usize & 1)
        | (((occ >> n[1]) as usize & 1) << 1)
        | (((occ >> n[2]) as usize & 1) << 2)
        | (((occ >> n[3]) as usize & 1) << 3)
}

/// `KNIGHT_MOVES[sq][legs]`: horse targets from `sq` when the orthogonal
/// neighbours in `legs` (bit order of `ORTHO`) are occupied.
static KNIGHT_MOVES: [[u128; 16]; 90] = {
    let mut t = [[0u128; 16]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut legs = 0;
        while legs < 16 {
            let mut i = 0;
            while i < 4 {
                if legs >> i & 1 == 0 {
                    let (df, dr) = ORTHO[i];
                    // Leg one step along (df, dr), then one diagonal step outwards.
                    if df != 0 {
                        t[s][legs] |= sq_bit(f + 2 * df, r + 1) | sq_bit(f + 2 * df, r - 1);
                    } else {
                        t[s][legs] |= sq_bit(f + 1, r + 2 * dr) | sq_bit(f - 1, r + 2 * dr);
                    }
                }
                i += 1;
            }
            legs += 1;
        }
        s += 1;
    }
    t
};

/// `KNIGHT_ATTACKERS[sq][legs]`: squares from which a horse attacks `sq`
/// when the diagonal neighbours of `sq` in `legs` are occupied. A horse's leg
/// towards `sq` is always one of `sq`'s diagonal neighbours.
static KNIGHT_ATTACKERS: [[u128; 16]; 90] = {
    let mut t = [[0u128; 16]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut legs = 0;
        while legs < 16 {
            let mut i = 0;
            while i < 4 {
                let (df, dr) = DIAG[i];
                let on_board = f + df >= 0 && f + df < 9 && r + dr >= 0 && r + dr < 10;
                if legs >> i & 1 == 0 && on_board {
                    t[s][legs] |= sq_bit(f + 2 * df, r + dr) | sq_bit(f + df, r + 2 * dr);
                }
                i += 1;
            }
            legs += 1;
        }
        s += 1;
    }
    t
};

/// `BISHOP_MOVES[sq][eyes]`: elephant targets from `sq` (never across the
/// river) when the diagonal neighbours in `eyes` are occupied.
static BISHOP_MOVES: [[u128; 16]; 90] = {
    let mut t = [[0u128; 16]; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut eyes = 0;
        while eyes < 16 {
            let mut i = 0;
            while i < 4 {
                let (df, dr) = DIAG[i];
                let (tf, tr) = (f + 2 * df, r + 2 * dr);
                let same_side = (r <= 4) == (tr <= 4);
                if eyes >> i & 1 == 0 && same_side {
                    t[s][eyes] |= sq_bit(tf, tr);
                }
                i += 1;
            }
            eyes += 1;
        }
        s += 1;
    }
    t
};

const fn in_palace(file: i32, rank: i32) -> bool {
    file >= 3 && file <= 5 && (rank <= 2 || rank >= 7) && rank >= 0 && rank < 10
}

/// Advisor (diagonal) or general (orthogonal) steps that stay in the palace.
const fn palace_steps(steps: [(i32, i32); 4]) -> [u128; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if in_palace(f, r) {
            let mut i = 0;
            while i < 4 {
                let (tf, tr) = (f + steps[i].0, r + steps[i].1);
                // Both palaces are 3 ranks deep, so a step never jumps between them.
                if in_palace(tf, tr) {
                    t[s] |= sq_bit(tf, tr);
                }
                i += 1;
            }
        }
        s += 1;
    }
    t
}

static ADVISOR_MOVES: [u128; 90] = palace_steps(DIAG);
static KING_MOVES: [u128; 90] = palace_steps(ORTHO);

/// `PAWN_MOVES[color][sq]`: forward, and sideways once across the river.
static PAWN_MOVES: [[u128; 90]; 2] = {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let fwd: i32 = if c == 0 { 1 } else { -1 };
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as i32, (s / 9) as i32);
            t[c][s] = sq_bit(f, r + fwd);
            let crossed = if c == 0 { r >= 5 } else { r <= 4 };
            if crossed {
                t[c][s] |= sq_bit(f + 1, r) | sq_bit(f - 1, r);
            }
            s += 1;
        }
        c += 1;
    }
    t
};

/// `PAWN_ATTACKERS[color][sq]`: squares from which a soldier of `color`
/// attacks `sq`.
static PAWN_ATTACKERS: [[u128; 90]; 2] = {
    let mut t = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut from = 0;
        while from < 90 {
            let mut m = PAWN_MOVES[c][from];
            while m != 0 {
                let to = m.trailing_zeros() as usize;
                t[c][to] |= 1u128 << from;
                m &= m - 1;
            }
            from += 1;
        }
        c += 1;
    }
    t
};

/// Horse targets from `sq` on a board with occupancy `occ`.
#[inline]
pub(crate) fn knight_moves(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard::from_bits(KNIGHT_MOVES[sq.index()][block_mask(&ORTHO_NEIGHBOURS, sq, occ)])
}

/// Squares from which a horse would attack `sq` on a board with occupancy `occ`.
#[inline]
pub(crate) fn knight_attackers(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard::from_bits(KNIGHT_ATTACKERS[sq.index()][block_mask(&DIAG_NEIGHBOURS, sq, occ)])
}

/// Elephant targets from `sq` on a board with occupancy `occ`.
#[inline]
pub(crate) fn bishop_moves(sq: Square, occ: Bitboard) -> Bitboard {
    Bitboard::from_bits(BISHOP_MOVES[sq.index()][block_mask(&DIAG_NEIGHBOURS, sq, occ)])
}

/// Advisor targets from `sq` (inside the palace).
#[inline]
pub(crate) fn advisor_moves(sq: Square) -> Bitboard {
    Bitboard::from_bits(ADVISOR_MOVES[sq.index()])
}

/// General targets from `sq` (inside the palace; facing is checked elsewhere).
#[inline]
pub(crate) fn king_moves(sq: Square) -> Bitboard {
    Bitboard::from_bits(KING_MOVES[sq.index()])
}

/// Soldier targets of `color` from `sq`.
#[inline]
pub(crate) fn pawn_moves(color: Color, sq: Square) -> Bitboard {
    Bitboard::from_bits(PAWN_MOVES[color.index()][sq.index()])
}

/// Squares from which a soldier of `color` attacks `sq`.
#[inline]
pub(crate) fn pawn_attackers(color: Color, sq: Square) -> Bitboard {
    Bitboard::from_bits(PAWN_ATTACKERS[color.index()][sq.index()])
}

/// `BETWEEN[a][b]`: the squares strictly between two squares of one rank or
/// file (empty for other pairs).
static BETWEEN: [[u128; 90]; 90] = {
    let mut t = [[0u128; 90]; 90];
    let mut a = 0;
    while a < 90 {
        let (af, ar) = ((a % 9) as i32, (a / 9) as i32);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = ORTHO[d];
            let mut between = 0u128;
            let (mut f, mut r) = (af + df, ar + dr);
            while f >= 0 && f < 9 && r >= 0 && r < 10 {
                let b = (r * 9 + f) as usize;
                t[a][b] = between;
                between |= 1u128 << b;
                f += df;
                r += dr;
            }
            d += 1;
        }
        a += 1;
    }
    t
};

/// The squares strictly between `a` and `b` when they share a rank or file.
#[inline]
pub(crate) fn between(a: Square, b: Square) -> Bitboard {
    Bitboard::from_bits(BETWEEN[a.index()][b.index()])
}

/// `LINES_THROUGH[sq]`: every square of `sq`'s rank and file but `sq`.
static LINES_THROUGH: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut o = 0;
        while o < 90 {
            if o != s && (o % 9 == s % 9 || o / 9 == s / 9) {
                t[s] |= 1u128 << o;
            }
            o += 1;
        }
        s += 1;
    }
    t
};

/// The squares sharing a rank or a file with `sq`: where a change can
/// alter what a chariot or cannon sees of `sq`.
#[inline]
pub(crate) fn lines_through(sq: Square) -> Bitboard {
    Bitboard::from_bits(LINES_THROUGH[sq.index()])
}

/// `DIAG_POINTS[sq]`: the diagonal neighbours of `sq` as a set.
static DIAG_POINTS: [u128; 90] = {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < 4 {
            let n = DIAG_NEIGHBOURS[s][i];
            if n < 90 {
                t[s] |= 1u128 << n;
            }
            i += 1;
        }
        s += 1;
    }
    t
};

/// The points that can be the leg of a horse attacking `sq` (its diagonal
/// neighbours): only emptying one of them can give such a horse the attack.
#[inline]
pub(crate) fn horse_leg_points(sq: Square) -> Bitboard {
    Bitboard::from_bits(DIAG_POINTS[sq.index()])
}

/// The bits of `set` on `sq`'s file as a 10-bit mask (bit = rank),
/// gathered one rank at a time; `set` is expected to be sparse.
#[inline]
pub(crate) fn file_bits(set: Bitboard, sq: Square) -> usize {
    let mut col = (set.0 >> sq.file().index()) & FILE_A;
    let mut m = 0;
    while col != 0 {
        m |= 1 << (col.trailing_zeros() / 9);
        col &= col - 1;
    }
    m
}

/// The occupancy `occ` and `sq`'s file occupancy `file_occ` with the
/// pieces of `first` lifted: given the first blockers seen from `sq`, the
/// lines from `sq` then run on to the second ones (a cannon's targets
/// past its screen, the third pieces along the general's rays).
#[inline]
pub(crate) fn lift(
    occ: Bitboard,
    file_occ: usize,
    first: Bitboard,
    sq: Square,
) -> (Bitboard, usize) {
    (occ.minus(first), file_occ & !file_bits(first, sq))
}

/// The bits of `occ` on file `file` as a 10-bit mask (bit = rank), taken
/// one rank at a time without branches (a full file holds ten pieces).
#[inline]
pub(crate) fn file_mask(occ: Bitboard, file: usize) -> u16 {
    let col = occ.0 >> file;
    let mut m = 0;
    let mut r = 0;
    while r < 10 {
        m |= ((col >> (r * 9)) as u16 & 1) << r;
        r += 1;
    }
    m
}

/// The diagonal neighbours of `sq` that are the leg of a horse in `horses`
/// aiming at `sq`: the points whose emptying would let such a horse attack.
#[inline]
pub(crate) fn horse_legs_towards(sq: Square, horses: Bitboard) -> Bitboard {
    let mut legs = Bitboard::EMPTY;
    for (i, &n) in DIAG_NEIGHBOURS[sq.index()].iter().enumerate() {
        // The attackers through leg `i` are those of the table entry where
        // only the other three legs are blocked.
        if n < 90
            && Bitboard::from_bits(KNIGHT_ATTACKERS[sq.index()][0b1111 & !(1 << i)])
                .intersects(horses)
        {
            legs = legs.with(Square::from_bit(u32::from(n)));
        }
    }
    legs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn squares(b: Bitboard) -> Vec<String> {
        let mut v: Vec<String> = b.map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn knight_legs() {
        assert_eq!(
            squares(knight_moves(sq("b0"), Bitboard::EMPTY)),
            ["a2", "c2", "d1"]
        );
        // Leg at b1 blocks the two forward jumps.
        assert_eq!(
            squares(knight_moves(sq("b0"), Bitboard::from_square(sq("b1")))),
            ["d1"]
        );
        // Attackers of e0 with the e1-d1 region empty.
        assert_eq!(
            squares(knight_attackers(sq("e0"), Bitboard::EMPTY)),
            ["c1", "d2", "f2", "g1"]
        );
    }

    #[test]
    fn bishops_stay_home() {
        assert_eq!(
            squares(bishop_moves(sq("c4"), Bitboard::EMPTY)),
            ["a2", "e2"]
        );
        assert_eq!(
            squares(bishop_moves(sq("c5"), Bitboard::EMPTY)),
            ["a7", "e7"]
        );
    }

    #[test]
    fn lines() {
        let occ = Bitboard::from_square(sq("e3")).with(sq("e6"));
        let fo = file_bits(occ, sq("e0"));
        assert_eq!(
            squares(line_attacks(Line::Cannon, sq("e0"), occ, fo)),
            ["e6"]
        );
        assert_eq!(
            squares(line_attacks(Line::Rook, sq("e0"), occ, fo)).len(),
            8 + 3
        );
    }
}
