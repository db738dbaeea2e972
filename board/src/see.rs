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

/// The piece values an exchange is counted in, by kind index (the
/// general's is never read: it is taken last, and only when safe), with
/// the kinds other than the general ordered cheapest first, worked out
/// once when the values are made (a `const` in the engine) rather than at
/// every exchange: the search asks hundreds of thousands of them a second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeeValues {
    values: [i32; PieceKind::NUM],
    /// The kinds other than the general, cheapest first (equal values keep
    /// [`PieceKind::ALL`]'s order), so that the search for the least
    /// valuable attacker stops at the first kind that has one.
    order: [PieceKind; PieceKind::NUM - 1],
}

impl SeeValues {
    /// Values by kind index ([`PieceKind::index`]), with the kinds' order
    /// worked out from them (a stable insertion sort, at compile time for
    /// a `const`).
    pub const fn new(values: [i32; PieceKind::NUM]) -> SeeValues {
        let mut order = [PieceKind::Pawn; PieceKind::NUM - 1];
        let mut n = 0;
        let mut k = 0;
        while k < PieceKind::NUM {
            let kind = PieceKind::ALL[k];
            if !matches!(kind, PieceKind::King) {
                // Insertion sort, stable: a kind goes after every kind
                // already placed whose value is not larger.
                let mut i = n;
                while i > 0 && values[order[i - 1].index()] > values[kind.index()] {
                    order[i] = order[i - 1];
                    i -= 1;
                }
                order[i] = kind;
                n += 1;
            }
            k += 1;
        }
        SeeValues { values, order }
    }

    /// The value of a piece of `kind`.
    #[inline]
    pub const fn of(&self, kind: PieceKind) -> i32 {
        self.values[kind.index()]
    }
}

impl Position {
    /// The material balance of playing `m` and then the best sequence of
    /// recaptures on its target square, from the mover's point of view,
    /// in `values`. `m` is expected to be legal; a quiet move scores the
    /// loss of the mover if the square is attacked, else 0.
    pub fn see(&self, m: Move, values: &SeeValues) -> i32 {
        let (from, to) = (m.from(), m.to());
        let Some(mover) = self.piece_at(from) else {
            return 0;
        };
        let mut occ = ExchangeOcc::new(self, to).without(from, to);
        let mut gain = [0i32; MAX_EXCHANGE];
        gain[0] = self.piece_at(to).map_or(0, |p| values.of(p.kind()));
        let mut on_square = mover.kind();
        let mut side = !mover.color();
        let mut d = 0;
        while d + 1 < MAX_EXCHANGE {
            // A general on the square ends the exchange: taking it is not
            // a capture but a mate, and it only went there if safe.
            if on_square == PieceKind::King {
                break;
            }
            let Some((sq, kind)) = self.least_attacker(to, side, occ, &values.order) else {
                break;
            };
            if kind == PieceKind::King && self.attacked_for_general(to, !side, occ.without(sq, to))
            {
                break;
            }
            d += 1;
            gain[d] = values.of(on_square) - gain[d - 1];
            on_square = kind;
            occ = occ.without(sq, to);
            side = !side;
        }
        while d > 0 {
            gain[d - 1] = -(-gain[d - 1]).max(gain[d]);
            d -= 1;
        }
        gain[0]
    }

    /// Whether [`Position::see`] of `m` is at least `threshold`, without
    /// playing the exchange out further than the answer needs: the
    /// exchange never gains more than the piece taken (the other side may
    /// stop), never loses more than the piece that moved beyond it (the
    /// mover may stop after being taken), and a general that takes ends
    /// it. Most of the search's questions are settled by these bounds;
    /// the rest follow the exchange only while it can still change the
    /// answer (Stockfish's `see_ge`): `swap` is what the side that just
    /// captured must keep on the square for the answer to go its way, so
    /// the next capturer stops the exchange as soon as taking would no
    /// longer turn the answer. The test twin asks [`Position::see`] for
    /// every legal move at a range of thresholds.
    pub fn see_ge(&self, m: Move, threshold: i32, values: &SeeValues) -> bool {
        let (from, to) = (m.from(), m.to());
        let Some(mover) = self.piece_at(from) else {
            return threshold <= 0;
        };
        let taken = self.piece_at(to).map_or(0, |p| values.of(p.kind()));
        let mut swap = taken - threshold;
        if swap < 0 {
            return false;
        }
        if mover.kind() == PieceKind::King {
            return true;
        }
        swap = values.of(mover.kind()) - swap;
        if swap <= 0 {
            return true;
        }
        let mut occ = ExchangeOcc::new(self, to).without(from, to);
        let mut side = !mover.color();
        // Whether the answer is "at least `threshold`" if `side` stops now.
        let mut res = true;
        while let Some((sq, kind)) = self.least_attacker(to, side, occ, &values.order) {
            if kind == PieceKind::King {
                // A general takes only when the square is safe, and then
                // nothing takes back: it turns the answer, or cannot move.
                let safe = !self.attacked_for_general(to, !side, occ.without(sq, to));
                return res != safe;
            }
            res = !res;
            swap = values.of(kind) - swap;
            if swap < i32::from(res) {
                break;
            }
            occ = occ.without(sq, to);
            side = !side;
        }
        res
    }

    /// The least valuable piece of `side` (kinds in `order`, the general
    /// last, ties by square) that attacks `to` on a board with occupancy
    /// `occ`, pieces off `occ` having left the board.
    fn least_attacker(
        &self,
        to: Square,
        side: Color,
        occ: ExchangeOcc,
        order: &[PieceKind; PieceKind::NUM - 1],
    ) -> Option<(Square, PieceKind)> {
        for &kind in order {
            // The iterator's `next`, not `first`: it trusts that no bit
            // above the board is set and skips the range check, which
            // showed in the bench's instruction count.
            if let Some(sq) = self.attackers_of_kind(to, side, kind, occ).next() {
                return Some((sq, kind));
            }
        }
        let king = self.king_square(side);
        (occ.all.contains(king) && attacks::king_moves(king).contains(to))
            .then_some((king, PieceKind::King))
    }

    /// The pieces of `side` and `kind` on `occ` that attack `to`. Always
    /// inlined: the exchange asks it several times per capture, and the
    /// call's set-up cost as much as the cheaper kinds' answers.
    #[inline(always)]
    fn attackers_of_kind(
        &self,
        to: Square,
        side: Color,
        kind: PieceKind,
        occ: ExchangeOcc,
    ) -> Bitboard {
        let ExchangeOcc { all: occ, file } = occ;
        let own = self.pieces(side, kind) & occ;
        if own.is_empty() {
            return Bitboard::EMPTY;
        }
        let target = Bitboard::from_square(to);
        match kind {
            PieceKind::Rook => attacks::line_attacks(Line::Rook, to, occ, file) & own,
            PieceKind::Cannon => attacks::line_attacks(Line::Cannon, to, occ, file) & own,
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
    fn attacked_for_general(&self, to: Square, by: Color, occ: ExchangeOcc) -> bool {
        let theirs_king = self.king_square(by);
        if occ.all.contains(theirs_king)
            && theirs_king.file() == to.file()
            && !attacks::between(theirs_king, to).intersects(occ.all)
        {
            return true;
        }
        PieceKind::ALL
            .into_iter()
            .any(|k| self.attackers_of_kind(to, by, k, occ).is_nonempty())
    }
}

/// The occupancy during an exchange on one square: the board less the
/// pieces that have left it, and the same for the square's file as a
/// 10-bit mask (bit = rank), kept in step so that the line attacks of
/// every step need no gathering of the file from the board.
#[derive(Clone, Copy)]
struct ExchangeOcc {
    all: Bitboard,
    file: usize,
}

impl ExchangeOcc {
    /// The position's occupancy, seen from exchange square `to`.
    fn new(pos: &Position, to: Square) -> ExchangeOcc {
        let all = pos.occupied();
        ExchangeOcc {
            all,
            file: usize::from(attacks::file_mask(all, to.file().index())),
        }
    }

    /// The occupancy once the piece on `sq` has left (`to`: the exchange
    /// square).
    #[inline]
    fn without(self, sq: Square, to: Square) -> ExchangeOcc {
        let file = if sq.file() == to.file() {
            self.file & !(1 << sq.rank().index())
        } else {
            self.file
        };
        ExchangeOcc {
            all: self.all.without(sq),
            file,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order is by value, ties in [`PieceKind::ALL`]'s order, the
    /// general left out, as a stable sort would give.
    #[test]
    fn the_kinds_are_ordered_cheapest_first_stably() {
        for values in [
            [0, 200, 200, 420, 950, 460, 100],
            [0, 150, 150, 450, 1000, 450, 150],
            [7, 5, 4, 3, 2, 1, 0],
        ] {
            let mut expected: Vec<PieceKind> = PieceKind::ALL
                .into_iter()
                .filter(|&k| k != PieceKind::King)
                .collect();
            expected.sort_by_key(|k| values[k.index()]);
            let v = SeeValues::new(values);
            assert_eq!(v.order.to_vec(), expected, "{values:?}");
            for k in PieceKind::ALL {
                assert_eq!(v.of(k), values[k.index()]);
            }
        }
    }
}
