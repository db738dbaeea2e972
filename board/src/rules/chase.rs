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
/// The side to move may be in check (a cycle's checks are judged for
/// chases too); then only its legal captures, those that answer the check,
/// count, as everywhere in this definition.
pub(crate) fn chased(pos: &mut Position, ids: &Ids) -> u32 {
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
    pos.pass_for_rules();
    let back = Move::new(m.to(), m.from()).is_some_and(|b| pos.is_legal(b));
    pos.unmake_null_move();
    back
}

/// [`chased`] for the side *not* to move: what the side that just moved
/// chases now. The side to move may be in check (the move gave it).
pub(crate) fn chased_by_mover(pos: &mut Position, ids: &Ids) -> u32 {
    pos.pass_for_rules();
    let set = chased(pos, ids);
    pos.unmake_null_move();
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The squares of the pieces the side to move chases in `fen`.
    fn chased_squares(fen: &str) -> Vec<String> {
        let mut pos = Position::from_fen(fen).unwrap();
        let ids = Ids::new(&pos);
        let set = chased(&mut pos, &ids);
        let mut out: Vec<String> = pos
            .occupied()
            .filter(|&sq| set >> ids.get(sq) & 1 != 0)
            .map(|sq| sq.to_string())
            .collect();
        out.sort();
        out
    }

    #[test]
    fn unprotected_targets() {
        // Chariot h3 on an unprotected horse b3 and cannon h7.
        assert_eq!(
            chased_squares("5k3/9/7c1/9/9/9/1n5R1/9/9/3K5 w"),
            ["b3", "h7"]
        );
        // The same horse protected by a crossed soldier on a3: only the cannon.
        assert_eq!(chased_squares("5k3/9/7c1/9/9/9/pn5R1/9/9/3K5 w"), ["h7"]);
    }

    #[test]
    fn weaker_attackers_chase_protected_pieces() {
        // Horse c2 on chariot e1 protected by chariot i1.
        assert_eq!(chased_squares("9/9/4k4/9/9/9/9/2N6/4r3r/5K3 w"), ["e1"]);
        // Cannon c2 over the soldier c5 on chariot c7 protected by the horse b9.
        assert_eq!(chased_squares("1n3k3/9/2r6/9/2P6/9/9/2C6/9/4K4 w"), ["c7"]);
        // Black's elephant e7 on a horse c5 protected by Red's chariot c0.
        assert_eq!(chased_squares("3k5/9/4b4/9/2N6/9/9/9/9/2R1K4 b"), ["c5"]);
        // A chariot on a horse protected by a chariot is no chase.
        assert_eq!(
            chased_squares("2rk5/9/9/9/2n6/9/9/9/9/2R1K4 w"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn free_attackers_and_immune_targets() {
        // General e1 on an unprotected cannon e2.
        assert_eq!(
            chased_squares("5k3/9/9/9/9/9/P8/4c4/4K4/9 w"),
            Vec::<String>::new()
        );
        // Crossed soldier d6 on an unprotected cannon c6.
        assert_eq!(
            chased_squares("4k4/9/9/2cP5/9/9/9/9/9/5K3 w"),
            Vec::<String>::new()
        );
        // A chariot on Black's soldier e5, still on its own side: no chase;
        // on a crossed soldier c4: a chase.
        assert_eq!(
            chased_squares("3k5/9/9/9/R3p4/9/9/9/9/4K4 w"),
            Vec::<String>::new()
        );
        assert_eq!(chased_squares("3k5/9/9/9/9/R1p6/9/9/9/4K4 w"), ["c4"]);
    }

    #[test]
    fn discovered_attacks() {
        // Black's general on e9 has left e8: the cannon a8 now sees the
        // chariot h8 over the horse c8 (the perpetual-check-against-chase
        // case of the case file).
        assert_eq!(
            chased_squares("c1b1k4/c1n4R1/4b4/9/9/9/9/9/9/3K5 b"),
            ["h8"]
        );
        // With the general back on e8 and the chariot on h9, the cannon a9
        // sees it over the elephant c9 instead.
        assert_eq!(
            chased_squares("c1b4R1/c1n1k4/4b4/9/9/9/9/9/9/3K5 b"),
            ["h9"]
        );
    }

    #[test]
    fn pinned_attackers() {
        // Chariot e3 pinned by the chariot e8 cannot take the horse b3; it
        // may take the pinner, but that is a mutual chariot attack.
        assert_eq!(
            chased_squares("5k3/4r4/9/9/9/9/1n2R4/9/9/4K4 w"),
            Vec::<String>::new()
        );
        // Without the pin the horse is chased.
        assert_eq!(chased_squares("5k3/9/9/9/9/9/1n2R4/9/9/4K4 w"), ["b3"]);
        // Chariot f1 stands on the leg of the horse g1 that would check the
        // general: it may take only that horse, not the cannon f5.
        assert_eq!(chased_squares("3k5/9/9/9/5c3/9/9/9/5Rn2/4K4 w"), ["g1"]);
    }

    #[test]
    fn mutual_attacks_between_equals() {
        // Chariots facing on rank 7, both free: an exchange offer.
        assert_eq!(
            chased_squares("5k3/9/r6R1/9/9/9/9/9/9/3K5 w"),
            Vec::<String>::new()
        );
        // The black chariot e7 is pinned on the e-file and cannot take back.
        assert_eq!(chased_squares("4k4/9/4r2R1/9/9/9/9/4R4/9/3K5 w"), ["e7"]);
        // Horses: red c3 attacks d5 over the leg c4; d5's own leg towards
        // c3 is d4. Free: mutual, no chase. Blocked: a chase.
        assert_eq!(
            chased_squares("4k4/9/9/9/3n5/9/2N6/9/9/3K5 w"),
            Vec::<String>::new()
        );
        assert_eq!(chased_squares("4k4/9/9/9/3n5/3p5/2N6/9/9/3K5 w"), ["d5"]);
    }
}
