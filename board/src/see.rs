//! Static exchange evaluation: what a capture wins or loses once every
//! recapture on its square has been played out, each side taking with its
//! least valuable piece and free to stop when going on would lose.
//!
//! Xiangqi makes the exchange less static than chess: a cannon needs
//! exactly one screen, so every capture can give a cannon its screen or
//! take it away, and a horse can be blocked by a leg that empties or
//! fills. The attackers are therefore recomputed from the occupancy after
//! every capture instead of being collected once. Legality is left out,
//! as in chess engines, with one exception a general cannot do without:
//! the general never takes on a square the other side still attacks (or
//! that faces the other general). A pinned piece still counts as an
//! attacker; the slow twin in the tests plays the exchange with legal
//! moves and measures how rarely that matters.

use crate::attacks::{self, Line};
use crate::{Bitboard, Color, Move, PieceKind, Position, Square};

/// The longest exchange followed (32 pieces cannot make more captures).
const MAX_EXCHANGE: usize = 34;

impl Position {
    /// The material balance of playing `m` and then the best sequence of
    /// recaptures on its target square, from the mover's point of view,
    /// with the piece values given by kind index (the general's is never
    /// read: it is taken last, and only when safe). `m` is expected to be
    /// legal; a quiet move scores the loss of the mover if the square is
    /// attacked, else 0.
    pub fn see(&self, m: Move, values: &[i32; PieceKind::NUM]) -> i32 {
        let (from, to) = (m.from(), m.to());
        let Some(mover) = self.piece_at(from) else {
            return 0;
        };
        let mut occ = self.occupied().without(from);
        let mut gain = [0i32; MAX_EXCHANGE];
        gain[0] = self.piece_at(to).map_or(0, |p| values[p.kind().index()]);
        let mut on_square = mover.kind();
        let mut side = !mover.color();
        let mut d = 0;
        while d + 1 < MAX_EXCHANGE {
            // A general on the square ends the exchange: taking it is not
            // a capture but a mate, and it only went there if safe.
            if on_square == PieceKind::King {
                break;
            }
            let Some((sq, kind)) = self.least_attacker(to, side, occ, values) else {
                break;
            };
            if kind == PieceKind::King && self.attacked_for_general(to, !side, occ.without(sq)) {
                break;
            }
            d += 1;
            gain[d] = values[on_square.index()] - gain[d - 1];
            on_square = kind;
            occ = occ.without(sq);
            side = !side;
        }
        while d > 0 {
            gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
            d -= 1;
        }
        gain[0]
    }

    /// The least valuable piece of `side` (general last, ties by square)
    /// that attacks `to` on a board with occupancy `occ`, pieces off `occ`
    /// having left the board.
    fn least_attacker(
        &self,
        to: Square,
        side: Color,
        occ: Bitboard,
        values: &[i32; PieceKind::NUM],
    ) -> Option<(Square, PieceKind)> {
        let mut best: Option<(i32, Square, PieceKind)> = None;
        for kind in PieceKind::ALL {
            if kind == PieceKind::King {
                continue;
            }
            // The iterator's `next`, not `first`: it trusts that no bit
            // above the board is set and skips the range check, which
            // showed in the bench's instruction count.
            let Some(sq) = self.attackers_of_kind(to, side, kind, occ).next() else {
                continue;
            };
            let v = values[kind.index()];
            if best.is_none_or(|(bv, _, _)| v < bv) {
                best = Some((v, sq, kind));
            }
        }
        if let Some((_, sq, kind)) = best {
            return Some((sq, kind));
        }
        let king = self.king_square(side);
        (occ.contains(king) && attacks::king_moves(king).contains(to))
            .then_some((king, PieceKind::King))
    }

    /// The pieces of `side` and `kind` on `occ` that attack `to`.
    fn attackers_of_kind(
        &self,
        to: Square,
        side: Color,
        kind: PieceKind,
        occ: Bitboard,
    ) -> Bitboard {
        let own = self.pieces(side, kind) & occ;
        if own.is_empty() {
            return Bitboard::EMPTY;
        }
        let target = Bitboard::from_square(to);
        match kind {
            PieceKind::Rook => {
                attacks::line_attacks(Line::Rook, to, occ, attacks::file_bits(occ, to)) & own
            }
            PieceKind::Cannon => {
                attacks::line_attacks(Line::Cannon, to, occ, attacks::file_bits(occ, to)) & own
            }
            PieceKind::Knight => attacks::knight_attackers(to, occ) & own,
            PieceKind::Pawn => attacks::pawn_attackers(side, to) & own,
            // At most two each: ask every one (their tables hold only the
            // squares they can stand on).
            PieceKind::Advisor => own
                .filter(|&a| attacks::advisor_moves(a).intersects(target))
                .fold(Bitboard::EMPTY, Bitboard::with),
            PieceKind::Bishop => own
                .filter(|&b| attacks::bishop_moves(b, occ).intersects(target))
                .fold(Bitboard::EMPTY, Bitboard::with),
            PieceKind::King => attacks::king_moves(to) & own,
        }
    }

    /// Whether a general of `!by` standing on `to` would be attacked by
    /// `by` on a board with occupancy `occ`: by any piece, or by the
    /// facing general.
    fn attacked_for_general(&self, to: Square, by: Color, occ: Bitboard) -> bool {
        let theirs_king = self.king_square(by);
        if occ.contains(theirs_king)
            && theirs_king.file() == to.file()
            && !attacks::between(theirs_king, to).intersects(occ)
        {
            return true;
        }
        PieceKind::ALL
            .into_iter()
            .any(|k| self.attackers_of_kind(to, by, k, occ).is_nonempty())
    }
}
