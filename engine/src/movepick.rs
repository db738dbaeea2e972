//! Move ordering: the ordering score of a move, the class it belongs to,
//! and the picker that hands a node's moves out best first.
//!
//! A move's class is decided where its score is, by what the move is (a
//! table move, a capture that does or does not lose material, a killer or
//! countermove, any other quiet move), and travels with it: the search
//! prunes and reduces by class and never guesses a class back from an
//! ordering score. The histories that order the quiet moves live in
//! `history.rs`.

use arrayvec::ArrayVec;
use board::{Move, MoveList, PieceKind, Position};

use crate::eval::PIECE_VALUE;
use crate::history::{Histories, PieceTo, QuietContext};

/// Ordering scores of the classes: every move of a class sorts before
/// every move of the classes below it.
const SCORE_HASH: i32 = 1 << 30;
const SCORE_GOOD_CAPTURE: i32 = 1 << 28;
const SCORE_KILLER: i32 = 1 << 27;
const SCORE_BAD_CAPTURE: i32 = -(1 << 28);

/// Move-ordering value of a victim or attacker (MVV/LVA).
const ORDER_VALUE: [i32; PieceKind::NUM] = [50, 2, 2, 4, 9, 5, 1];

/// What kind of move the picker handed out, in picking order. The search
/// reduces and prunes quiet moves ([`MoveClass::Quiet`]) more than the
/// rest, and never SEE-prunes a table move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveClass {
    /// A move from the table (checked for legality).
    Hash,
    /// A capture that does not lose material (MVV/LVA order).
    GoodCapture,
    /// A killer or the countermove.
    Killer,
    /// Any other non-capture (history order).
    Quiet,
    /// A capture that loses material in the exchange on its square.
    BadCapture,
}

/// What orders a node's quiet moves.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct QuietOrder {
    /// The killers of the node's ply.
    pub(crate) killers: [Option<Move>; 2],
    /// The countermove to the previous move.
    pub(crate) counter: Option<Move>,
    /// The moves above the node, for the continuation histories.
    pub(crate) ctx: QuietContext,
}

/// The class and ordering score of legal move `m` in `pos`: table moves,
/// good captures by MVV/LVA, killers, the countermove, quiet moves by
/// their histories, losing captures last.
pub(crate) fn score_move(
    pos: &Position,
    h: &Histories,
    m: Move,
    tt_moves: [Option<Move>; 2],
    q: &QuietOrder,
) -> (MoveClass, i32) {
    if tt_moves[0] == Some(m) {
        return (MoveClass::Hash, SCORE_HASH);
    }
    if tt_moves[1] == Some(m) {
        return (MoveClass::Hash, SCORE_HASH - 1);
    }
    let Some(piece) = pos.piece_at(m.from()) else {
        return (MoveClass::Quiet, 0);
    };
    if let Some(victim) = pos.piece_at(m.to()) {
        let mvv_lva = ORDER_VALUE[victim.kind().index()] * 16 - ORDER_VALUE[piece.kind().index()];
        if pos.see_ge(m, 0, &PIECE_VALUE) {
            return (MoveClass::GoodCapture, SCORE_GOOD_CAPTURE + mvv_lva);
        }
        return (MoveClass::BadCapture, SCORE_BAD_CAPTURE + mvv_lva);
    }
    if q.killers[0] == Some(m) {
        return (MoveClass::Killer, SCORE_KILLER + 2);
    }
    if q.killers[1] == Some(m) {
        return (MoveClass::Killer, SCORE_KILLER + 1);
    }
    if q.counter == Some(m) {
        return (MoveClass::Killer, SCORE_KILLER);
    }
    let score = h.quiet_score(PieceTo::new(piece.index(), m.to()), q.ctx);
    (MoveClass::Quiet, score)
}

/// `moves` best first by ordering score (a stable sort: equal scores keep
/// the generation order), for the root's first iteration.
pub(crate) fn sorted(
    pos: &Position,
    h: &Histories,
    moves: &[Move],
    tt_moves: [Option<Move>; 2],
) -> Vec<Move> {
    let mut scored: Vec<(i32, Move)> = moves
        .iter()
        .map(|&m| (score_move(pos, h, m, tt_moves, &QuietOrder::default()).1, m))
        .collect();
    scored.sort_by_key(|e| std::cmp::Reverse(e.0));
    scored.into_iter().map(|(_, m)| m).collect()
}

/// Where the picker is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Trying table move `i` (before generating anything: a cut-off by
    /// the table move saves the generation).
    TableMove(usize),
    /// About to generate and score the other moves.
    Generate,
    /// Handing out the generated moves best first.
    Rest,
}

/// Hands out a node's moves in order: the table moves (checked for
/// legality) before generating anything, then the rest by
/// [`score_move`].
pub(crate) struct MovePicker {
    tt_moves: [Option<Move>; 2],
    order: QuietOrder,
    stage: Stage,
    moves: ArrayVec<(i32, MoveClass, Move), 128>,
    next: usize,
}

impl MovePicker {
    /// A picker for a node whose table moves are `tt_moves`.
    pub(crate) fn new(tt_moves: [Option<Move>; 2], order: QuietOrder) -> MovePicker {
        MovePicker {
            tt_moves,
            order,
            stage: Stage::TableMove(0),
            moves: ArrayVec::new(),
            next: 0,
        }
    }

    /// The next move, its class and, for a quiet move, its history score
    /// (0 for the other classes).
    pub(crate) fn next(&mut self, pos: &Position, h: &Histories) -> Option<(Move, MoveClass, i32)> {
        while let Stage::TableMove(i) = self.stage {
            self.stage = if i == 0 {
                Stage::TableMove(1)
            } else {
                Stage::Generate
            };
            if let Some(m) = self.tt_moves[i]
                && pos.is_legal(m)
            {
                return Some((m, MoveClass::Hash, 0));
            }
            self.tt_moves[i] = None;
        }
        if self.stage == Stage::Generate {
            self.stage = Stage::Rest;
            let list: MoveList = pos.legal_moves();
            for &m in &list {
                if self.tt_moves.contains(&Some(m)) {
                    continue;
                }
                let (class, score) = score_move(pos, h, m, [None; 2], &self.order);
                self.moves.push((score, class, m));
            }
        }
        // Selection sort: most nodes cut after a few moves.
        let rest = &mut self.moves[self.next..];
        let (best_i, _) = rest
            .iter()
            .enumerate()
            .max_by_key(|(i, (s, _, _))| (*s, usize::MAX - i))?;
        rest.swap(0, best_i);
        let (score, class, m) = self.moves[self.next];
        self.next += 1;
        let quiet_score = if class == MoveClass::Quiet { score } else { 0 };
        Some((m, class, quiet_score))
    }
}
