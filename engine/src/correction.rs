//! Correction history: what the searches found of the static evaluation's
//! error, by the structure a position shares with others, used to correct
//! the evaluation the pruning reads.
//!
//! The network (or the hand-written evaluation) misjudges some structures
//! consistently: a searched node whose result lies far from its static
//! evaluation says so, and a later position with the same soldiers, or
//! the same other pieces of one side, is likely misjudged the same way.
//! Three tables per side to move keep a running average of that error
//! ([`CorrectionHistory::learn`]): one keyed by both sides' soldiers, one
//! by Red's other pieces, one by Black's. The correction
//! ([`CorrectionHistory::correct`]) weighs the soldiers' table twice and
//! each side's pieces once, an average of three estimates of the same
//! error. It is per thread (no synchronisation, no effect of thread
//! timing on a single-threaded bench) and kept from one search to the
//! next like the move histories, but not aged: an error of the
//! evaluation does not go stale the way a move's order does.

use board::{Color, Move, Piece, PieceKind, Position};

use crate::params;

/// Entries of each table, per side to move (a power of two).
const SIZE: usize = 1 << 14;

/// Fixed-point scale of the stored averages: 1/256 of a centipawn, so
/// that a light weight still moves an entry.
const GRAIN: i32 = 256;

/// Denominator of an update's weight.
const WEIGHT_SCALE: i32 = 256;

/// Averages in [`GRAIN`] units, by side to move and key index.
type Table = [[i16; SIZE]; 2];

/// The structure keys of a position: the XOR of the Zobrist keys of its
/// soldiers (both sides), and of each side's other pieces. The search
/// keeps them move by move ([`CorrectionKeys::after`]); [`CorrectionKeys::of`]
/// computes them afresh, at the root and to check the moves' updates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CorrectionKeys {
    soldiers: u64,
    pieces: [u64; 2],
    stm: usize,
}

impl CorrectionKeys {
    /// The keys of `pos`, from its placement.
    pub(crate) fn of(pos: &Position) -> CorrectionKeys {
        let mut keys = CorrectionKeys {
            soldiers: 0,
            pieces: [0; 2],
            stm: pos.side_to_move() as usize,
        };
        for c in Color::ALL {
            for k in PieceKind::ALL {
                let piece = Piece::new(c, k);
                for sq in pos.pieces(c, k) {
                    keys.toggle(piece, Position::piece_key(piece, sq));
                }
            }
        }
        keys
    }

    /// The keys after `mv` is made in `pos` (whose keys these are).
    #[inline]
    pub(crate) fn after(mut self, pos: &Position, mv: Move) -> CorrectionKeys {
        if let Some(p) = pos.piece_at(mv.from()) {
            self.toggle(
                p,
                Position::piece_key(p, mv.from()) ^ Position::piece_key(p, mv.to()),
            );
        }
        if let Some(victim) = pos.piece_at(mv.to()) {
            self.toggle(victim, Position::piece_key(victim, mv.to()));
        }
        self.stm ^= 1;
        self
    }

    /// The keys after a null move: the same structures, the other side
    /// to move.
    #[inline]
    pub(crate) fn after_null(mut self) -> CorrectionKeys {
        self.stm ^= 1;
        self
    }

    /// Adds or removes `key`, a square's key of `piece`, in the key of
    /// the structure `piece` belongs to.
    #[inline]
    fn toggle(&mut self, piece: Piece, key: u64) {
        if piece.kind() == PieceKind::Pawn {
            self.soldiers ^= key;
        } else {
            self.pieces[piece.color() as usize] ^= key;
        }
    }
}

/// A key's table index: its high bits.
#[inline]
fn index(h: u64) -> usize {
    (h >> (64 - SIZE.trailing_zeros())) as usize
}

/// One thread's correction tables (module docs).
pub(crate) struct CorrectionHistory {
    soldiers: Table,
    pieces: [Table; 2],
}

impl CorrectionHistory {
    /// Empty tables, on the heap (about 200 KB).
    pub(crate) fn new_boxed() -> Box<CorrectionHistory> {
        Box::new(CorrectionHistory {
            soldiers: [[0; SIZE]; 2],
            pieces: [[[0; SIZE]; 2]; 2],
        })
    }

    /// Forgets everything learnt (a new game).
    pub(crate) fn clear(&mut self) {
        // In place: a fresh value would be built on the stack first.
        let tables = self.pieces.iter_mut().chain([&mut self.soldiers]);
        for side in tables.flatten() {
            side.fill(0);
        }
    }

    /// The correction of a static evaluation of a position with `keys`,
    /// in centipawns.
    #[inline]
    pub(crate) fn correction(&self, keys: CorrectionKeys) -> i32 {
        let s = i32::from(self.soldiers[keys.stm][index(keys.soldiers)]);
        let r = i32::from(self.pieces[0][keys.stm][index(keys.pieces[0])]);
        let b = i32::from(self.pieces[1][keys.stm][index(keys.pieces[1])]);
        (2 * s + r + b) / (4 * GRAIN)
    }

    /// `raw` corrected, kept inside `±limit` (the evaluation's own band,
    /// far from the mate scores).
    #[inline]
    pub(crate) fn correct(&self, keys: CorrectionKeys, raw: i32, limit: i32) -> i32 {
        (raw + self.correction(keys)).clamp(-limit, limit)
    }

    /// Learns that a node with `keys`, statically evaluated at `raw`, was
    /// searched `depth` plies deep to `result`: each table's entry moves
    /// toward the error by a weight that grows with the depth, and stays
    /// within `corr_limit` centipawns.
    pub(crate) fn learn(&mut self, keys: CorrectionKeys, raw: i32, result: i32, depth: i32) {
        let limit = params::corr_limit() * GRAIN;
        let target = ((result - raw) * GRAIN).clamp(-limit, limit);
        let weight = (depth + 1).min(params::corr_weight_max());
        let update = |e: &mut i16| {
            let v = (i32::from(*e) * (WEIGHT_SCALE - weight) + target * weight) / WEIGHT_SCALE;
            *e = v.clamp(-limit, limit) as i16;
        };
        update(&mut self.soldiers[keys.stm][index(keys.soldiers)]);
        update(&mut self.pieces[0][keys.stm][index(keys.pieces[0])]);
        update(&mut self.pieces[1][keys.stm][index(keys.pieces[1])]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_table_corrects_nothing() {
        let h = CorrectionHistory::new_boxed();
        let keys = CorrectionKeys::of(&Position::startpos());
        assert_eq!(h.correction(keys), 0);
        assert_eq!(h.correct(keys, 35, 10_000), 35);
    }

    #[test]
    fn a_repeated_error_is_learnt_and_bounded() {
        let mut h = CorrectionHistory::new_boxed();
        let keys = CorrectionKeys::of(&Position::startpos());
        for _ in 0..2000 {
            h.learn(keys, 0, 40, 12);
        }
        // Converges on the error, from below (integer steps round down).
        let c = h.correction(keys);
        assert!((38..=40).contains(&c), "{c}");
        // A larger error is held at the limit (approached from below).
        for _ in 0..2000 {
            h.learn(keys, 0, 5000, 12);
        }
        let limit = params::corr_limit();
        assert!((limit - 1..=limit).contains(&h.correction(keys)));
        // The corrected score stays inside the band it is given.
        assert_eq!(h.correct(keys, 9990, 10_000), 10_000);
        for _ in 0..2000 {
            h.learn(keys, 0, -5000, 12);
        }
        assert!((-limit..=-limit + 1).contains(&h.correction(keys)));
        // The other side to move learnt nothing.
        let mut black = Position::startpos();
        black.make_null_move();
        assert_eq!(h.correction(CorrectionKeys::of(&black)), 0);
        h.clear();
        assert_eq!(h.correction(keys), 0);
    }

    #[test]
    fn keys_kept_move_by_move_equal_keys_computed_afresh() {
        // A long line of moves, captures among them (each ply takes the
        // first capture there is, else a move chosen by the ply), and a
        // null move now and then: the incremental keys never drift from
        // the placement's.
        let mut pos = Position::startpos();
        let mut keys = CorrectionKeys::of(&pos);
        let mut captures = 0;
        for ply in 0..300usize {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if ply % 17 == 5 && !pos.in_check() {
                keys = keys.after_null();
                pos.make_null_move();
            } else {
                let capture = moves
                    .iter()
                    .copied()
                    .find(|m| pos.piece_at(m.to()).is_some());
                let mv = capture.unwrap_or(moves[(ply * 7) % moves.len()]);
                captures += usize::from(capture.is_some());
                keys = keys.after(&pos, mv);
                pos.make_move(mv);
            }
            assert_eq!(keys, CorrectionKeys::of(&pos), "ply {ply}");
        }
        assert!(captures > 10, "{captures} captures");
    }

    #[test]
    fn keys_follow_the_structure_they_name() {
        let start = Position::startpos();
        let keys = CorrectionKeys::of(&start);
        // A chariot move changes Red's pieces key only.
        let mut after = start.clone();
        after
            .play(after.parse_move("a0a1").expect("legal"))
            .expect("legal");
        after.make_null_move();
        let moved = CorrectionKeys::of(&after);
        assert_eq!(moved.soldiers, keys.soldiers);
        assert_eq!(moved.pieces[1], keys.pieces[1]);
        assert_ne!(moved.pieces[0], keys.pieces[0]);
        // A soldier's step changes the soldiers' key only.
        let mut pawn = start.clone();
        pawn.play(pawn.parse_move("c3c4").expect("legal"))
            .expect("legal");
        pawn.make_null_move();
        let stepped = CorrectionKeys::of(&pawn);
        assert_ne!(stepped.soldiers, keys.soldiers);
        assert_eq!(stepped.pieces, keys.pieces);
    }
}
