//! Chase detection for repetition judging (`docs/rules.md` §4.3 step 4).
//! The exact definition is in the [`rules`](super) module documentation.

use crate::{Move, Piece, PieceKind, Position, Square};

/// Piece identities for one cycle: every piece on the board gets a number
/// when the analysis starts, and the number travels with the piece through
/// the cycle's moves. No move of a cycle captures, so the
/// numbering stays one-to-one. At most 32 pieces exist, so a set of
/// identities fits in a `u32`.
pub(crate) struct Ids {
    board: [u8; 90],
}

impl Ids {
    /// Numbers the pieces of `pos` in square order.
    pub(crate) fn new(pos: &Position) -> Ids {
        let mut board = [0; 90];
        for (id, sq) in pos.occupied().enumerate() {
            // At most 32 pieces: the index fits.
            board[sq.index()] = id as u8;
        }
        Ids { board }
    }

    /// The identity of the piece on `sq`.
    fn get(&self, sq: Square) -> u32 {
        u32::from(self.board[sq.index()])
    }

    /// Follows non-capturing move `m`: the piece on `m.from()` goes to
    /// `m.to()`.
    pub(crate) fn moved(&mut self, m: Move) {
        self.board[m.to().index()] = self.board[m.from().index()];
    }
}

/// Whether an attack of `attacker` on `target` is a chase whatever the
/// protection: horse or cannon on a chariot, advisor or elephant on a
/// chariot, horse or cannon.
pub(crate) fn is_weaker_attacker(attacker: PieceKind, target: PieceKind) -> bool {
    use PieceKind::{Advisor, Bishop, Cannon, Knight, Rook};
    match attacker {
        Knight | Cannon => target == Rook,
        Advisor | Bishop => matches!(target, Rook | Knight | Cannon),
        _ => false,
    }
}

/// Whether `target` can be chased at all: never the general, never a
/// soldier still on its own side of the river.
pub(crate) fn can_be_target(target: Piece, sq: Square) -> bool {
    match target.kind() {
        PieceKind::King => false,
        PieceKind::Pawn => !sq.on_own_side(target.color()),
        _ => true,
    }
}

/// Whether `kind` may attack freely (its attacks are never chases).
pub(crate) fn chases_freely(kind: PieceKind) -> bool {
    matches!(kind, PieceKind::King | PieceKind::Pawn)
}

/// Whether the side to move could take back on `sq`: one of its legal
/// moves ends there.
pub(crate) fn can_recapture(pos: &Position, sq: Square) -> bool {
    pos.legal_captures().iter().any(|m| m.to() == sq)
}

/// The identities of the enemy pieces the side to move chases in `pos`
/// (`pos` is scratch space: every move made on it is taken back).
///
/// The side to move must not be in check: a cycle with a check never gets
/// here, and the null move used for the mutual-attack test needs it.
pub(crate) fn chased(pos: &mut Position, ids: &Ids) -> u32 {
    debug_assert!(!pos.in_check());
    let us = pos.side_to_move();
    let mut set = 0u32;
    for m in pos.legal_captures() {
        let (from, to) = (m.from(), m.to());
        let (Some(attacker), Some(target)) = (pos.piece_at(from), pos.piece_at(to)) else {
            continue;
        };
        let id_bit = 1u32 << ids.get(to);
        if set & id_bit != 0 || chases_freely(attacker.kind()) || !can_be_target(target, to) {
            continue;
        }
        if !is_weaker_attacker(attacker.kind(), target.kind()) {
            pos.make_move(m);
            let protected = can_recapture(pos, to);
            pos.unmake_move();
            if protected {
                continue;
            }
            if attacker.kind() == target.kind() && target_takes_back(pos, m) {
                continue;
            }
        }
        set |= id_bit;
    }
    debug_assert_eq!(pos.side_to_move(), us);
    set
}

/// Whether, with the attacker's side having passed, the target of capture
/// `m` could legally capture the attacker (a mutual attack).
fn target_takes_back(pos: &mut Position, m: Move) -> bool {
    pos.make_null_move();
    let back = Move::new(m.to(), m.from()).is_some_and(|b| pos.is_legal(b));
    pos.unmake_null_move();
    back
}

/// [`chased`] for the side *not* to move: what the side that just moved
/// chases now. The side to move must not be in check.
pub(crate) fn chased_by_mover(pos: &mut Position, ids: &Ids) -> u32 {
    pos.make_null_move();
    let set = chased(pos, ids);
    pos.unmake_null_move();
    set
}
