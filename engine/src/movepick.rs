//! Move ordering: the staged picker that hands a node's moves out best
//! first (the root's included), and the class each move belongs to.
//!
//! The picker generates as late as it can: table moves are tried before
//! anything is generated, captures are generated before quiet moves, a
//! capture is asked the static exchange only when its turn comes, and
//! quiet moves are generated and scored (by history, with a bonus for a
//! threatened piece's escape) only once the captures,
//! killers and countermove are done, and not at all once the search says
//! it would prune every one of them (late-move pruning's limit reached).
//! Quiescence uses the same picker with a capture-only scope.
//!
//! A move's class is decided where its order is, by what the move is (a
//! table move, a capture that does or does not lose material, a killer or
//! countermove, any other quiet move), and travels with it: the search
//! prunes and reduces by class and never guesses a class back from an
//! ordering score. The histories that order the quiet moves live in
//! `history.rs`. `tests` checks the picker against full generation.

use arrayvec::ArrayVec;
use board::{Bitboard, MAX_MOVES, Move, PieceKind, Position};

use crate::eval::{PIECE_VALUE, SEE_VALUES};
use crate::history::{Histories, PieceTo, QuietContext};

/// What kind of move the picker handed out, in picking order. The search
/// reduces and prunes quiet moves ([`MoveClass::Quiet`]) more than the
/// rest, and never SEE-prunes a table move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MoveClass {
    /// A move from the table (checked for legality).
    TableMove,
    /// A capture that does not lose material (by victim and capture
    /// history).
    GoodCapture,
    /// A quiet move that refuted a sibling (a killer) or the previous
    /// move (the countermove).
    Refutation,
    /// Any other non-capture (history order, threatened pieces' escapes
    /// first).
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

/// Where the picker is, in the order of the stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    /// Trying table move `i` (before generating anything: a cut-off by
    /// the table move saves the generation).
    TableMove(usize),
    /// About to generate the captures.
    GenerateCaptures,
    /// Handing out captures by victim and capture history; each is asked
    /// the exchange when its turn comes, and one that loses material waits
    /// for the end.
    GoodCaptures,
    /// Trying killer or countermove `i` (checked for legality: they
    /// come from other positions).
    Killers(usize),
    /// About to generate and score the quiet moves.
    GenerateQuiets,
    /// Handing out quiet moves by history and threats.
    Quiets,
    /// Handing out the captures that lose material, in the same order.
    BadCaptures,
    /// Nothing left.
    Done,
}

/// What a picker hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// Every legal move.
    All,
    /// Captures only, none taking less than `min_victim` (quiescence's
    /// delta pruning) and, table moves apart, none that loses material: a
    /// table move that takes enough comes first whatever its exchange.
    Captures { min_victim: i32 },
}

/// Hands out a node's moves in stages, generating as late as it can: the
/// table moves (checked for legality) before anything is generated, then
/// captures that win or break even by the exchange evaluation (by victim
/// and capture history),
/// the killers and the countermove, quiet moves by their histories and
/// the threats they escape, and
/// the losing captures last. A cut-off by an early stage never pays for
/// generating, scoring or ordering the later ones.
pub(crate) struct MovePicker {
    tt_moves: [Option<Move>; 2],
    order: QuietOrder,
    scope: Scope,
    stage: Stage,
    /// Captures, then quiet moves, as (ordering score, move); `next` is
    /// the first not yet handed out.
    moves: ArrayVec<(i32, Move), MAX_MOVES>,
    next: usize,
    /// Losing captures in the order they were found.
    bad: ArrayVec<(i32, Move), MAX_MOVES>,
    next_bad: usize,
    /// Killers and the countermove already handed out.
    tried_killers: [Option<Move>; 3],
    /// The search prunes every quiet move from here on
    /// ([`MovePicker::skip_quiets`]).
    skip_quiets: bool,
}

impl MovePicker {
    /// A picker of every legal move for a node whose table moves are
    /// `tt_moves`.
    pub(crate) fn new(tt_moves: [Option<Move>; 2], order: QuietOrder) -> MovePicker {
        MovePicker::with_scope(tt_moves, order, Scope::All)
    }

    /// A quiescence picker: the captures that take at least `min_victim`
    /// (by [`PIECE_VALUE`]) and do not lose material, the table moves that
    /// take at least as much first, whatever their exchange.
    pub(crate) fn captures(tt_moves: [Option<Move>; 2], min_victim: i32) -> MovePicker {
        MovePicker::with_scope(
            tt_moves,
            QuietOrder::default(),
            Scope::Captures { min_victim },
        )
    }

    fn with_scope(tt_moves: [Option<Move>; 2], order: QuietOrder, scope: Scope) -> MovePicker {
        MovePicker {
            tt_moves,
            order,
            scope,
            stage: Stage::TableMove(0),
            moves: ArrayVec::new(),
            next: 0,
            bad: ArrayVec::new(),
            next_bad: 0,
            tried_killers: [None; 3],
            skip_quiets: false,
        }
    }

    /// Whether `m`, a table move, is one this picker hands out.
    fn in_scope(&self, pos: &Position, m: Move) -> bool {
        match self.scope {
            Scope::All => true,
            Scope::Captures { min_victim } => pos
                .piece_at(m.to())
                .is_some_and(|v| PIECE_VALUE[v.kind().index()] >= min_victim),
        }
    }

    /// The next move, its class and, for a quiet move, its order score
    /// (histories and threat bonus; 0 for the other classes).
    pub(crate) fn next(&mut self, pos: &Position, h: &Histories) -> Option<(Move, MoveClass, i32)> {
        loop {
            match self.stage {
                Stage::TableMove(i) => {
                    self.stage = if i == 0 {
                        Stage::TableMove(1)
                    } else {
                        Stage::GenerateCaptures
                    };
                    // The second slot may repeat the first.
                    let repeat = i == 1 && self.tt_moves[1] == self.tt_moves[0];
                    match self.tt_moves[i] {
                        Some(m) if !repeat && self.in_scope(pos, m) && pos.is_legal(m) => {
                            return Some((m, MoveClass::TableMove, 0));
                        }
                        _ => self.tt_moves[i] = None,
                    }
                }
                Stage::GenerateCaptures => {
                    self.generate_captures(pos, h);
                    self.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => {
                    let Some((order, m)) = self.select() else {
                        self.stage = match self.scope {
                            Scope::All => Stage::Killers(0),
                            Scope::Captures { .. } => Stage::Done,
                        };
                        continue;
                    };
                    if pos.see_ge(m, 0, &SEE_VALUES) {
                        return Some((m, MoveClass::GoodCapture, 0));
                    }
                    if self.scope == Scope::All {
                        self.bad.push((order, m));
                    }
                }
                Stage::Killers(i) => {
                    self.stage = if i < 2 {
                        Stage::Killers(i + 1)
                    } else {
                        Stage::GenerateQuiets
                    };
                    let candidate = match i {
                        0 | 1 => self.order.killers[i],
                        _ => self.order.counter,
                    };
                    if let Some(m) = candidate
                        && !self.tt_moves.contains(&Some(m))
                        && !self.tried_killers.contains(&Some(m))
                        && !pos.is_capture(m)
                        && pos.is_legal(m)
                    {
                        self.tried_killers[i] = Some(m);
                        return Some((m, MoveClass::Refutation, 0));
                    }
                }
                Stage::GenerateQuiets if self.skip_quiets => self.stage = Stage::BadCaptures,
                Stage::GenerateQuiets => {
                    self.generate_quiets(pos, h);
                    self.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    if !self.skip_quiets
                        && let Some((score, m)) = self.select()
                    {
                        return Some((m, MoveClass::Quiet, score));
                    }
                    self.stage = Stage::BadCaptures;
                }
                Stage::BadCaptures => {
                    if let Some(&(_, m)) = self.bad.get(self.next_bad) {
                        self.next_bad += 1;
                        return Some((m, MoveClass::BadCapture, 0));
                    }
                    self.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// From now on, no quiet move: the search would prune each one (late-move
    /// pruning has reached its limit), so none is generated or selected.
    /// The killers and the countermove are still handed out (the search
    /// does not prune them), and so are the losing captures.
    pub(crate) fn skip_quiets(&mut self) {
        self.skip_quiets = true;
    }

    /// Generates the captures in scope, scored by [`capture_order`], less
    /// the table moves.
    /// Kept out of [`MovePicker::next`] (never inlined): `next` is called
    /// for every move handed out and generates at most twice a node, and
    /// inlined, the generation's registers made every call pay to save
    /// them.
    #[inline(never)]
    fn generate_captures(&mut self, pos: &Position, h: &Histories) {
        // Only the victims in scope are generated (often none in
        // quiescence, when the stand-pat score is far below alpha).
        let victims = match self.scope {
            Scope::All => Bitboard::FULL,
            Scope::Captures { min_victim } => {
                let them = !pos.side_to_move();
                PieceKind::ALL
                    .into_iter()
                    .filter(|k| PIECE_VALUE[k.index()] >= min_victim)
                    .fold(Bitboard::EMPTY, |v, k| v | pos.pieces(them, k))
            }
        };
        if victims.is_empty() {
            return;
        }
        for m in pos.legal_captures_of(victims) {
            let (Some(victim), Some(piece)) = (pos.piece_at(m.to()), pos.piece_at(m.from())) else {
                continue;
            };
            if !self.tt_moves.contains(&Some(m)) {
                let pt = PieceTo::new(piece.index(), m.to());
                self.moves.push((capture_order(h, pt, victim.kind()), m));
            }
        }
    }

    /// Generates the quiet moves, scored by history, less the table moves
    /// and the refutations already tried (out of `next`, as
    /// [`MovePicker::generate_captures`]).
    #[inline(never)]
    fn generate_quiets(&mut self, pos: &Position, h: &Histories) {
        self.moves.clear();
        self.next = 0;
        let threats = Threats::new(pos);
        for m in pos.legal_quiets() {
            if self.tt_moves.contains(&Some(m)) || self.tried_killers.contains(&Some(m)) {
                continue;
            }
            let score = pos.piece_at(m.from()).map_or(0, |p| {
                h.quiet_score(PieceTo::new(p.index(), m.to()), self.order.ctx)
                    + threats.escape_bonus(p.kind(), m)
            });
            self.moves.push((score, m));
        }
    }

    /// The best remaining entry of `moves` (selection sort: most nodes cut
    /// after a few moves), the first among equals in the remaining list
    /// (which earlier picks have reordered by their swaps).
    fn select(&mut self) -> Option<(i32, Move)> {
        let rest = &mut self.moves[self.next..];
        let (mut best_i, mut best) = (0, rest.first()?.0);
        // Strictly greater: the earliest of equals stays.
        for (i, &(s, _)) in rest.iter().enumerate().skip(1) {
            if s > best {
                (best_i, best) = (i, s);
            }
        }
        rest.swap(0, best_i);
        let picked = self.moves[self.next];
        self.next += 1;
        Some(picked)
    }
}

/// The points the other side's cheaper pieces attack, for ordering the
/// quiet moves: a piece attacked by a cheaper one that steps to where no
/// piece as cheap attacks it comes early (Stockfish's and Pikafish's
/// threat bonus), with a bonus by what it saves.
struct Threats {
    /// Attacked by a soldier.
    by_pawn: Bitboard,
    /// Attacked by a soldier, advisor or elephant.
    by_defender: Bitboard,
    /// Attacked by any of those, a horse or a cannon.
    by_minor: Bitboard,
    /// The side's own pieces attacked by a cheaper piece.
    threatened: Bitboard,
}

impl Threats {
    fn new(pos: &Position) -> Threats {
        let (us, them) = (pos.side_to_move(), !pos.side_to_move());
        let by_pawn = pos.attacks_by(them, PieceKind::Pawn);
        let by_defender = by_pawn
            | pos.attacks_by(them, PieceKind::Advisor)
            | pos.attacks_by(them, PieceKind::Bishop);
        let by_minor = by_defender
            | pos.attacks_by(them, PieceKind::Knight)
            | pos.attacks_by(them, PieceKind::Cannon);
        let threatened = (pos.pieces(us, PieceKind::Rook) & by_minor)
            | ((pos.pieces(us, PieceKind::Knight) | pos.pieces(us, PieceKind::Cannon))
                & by_defender)
            | ((pos.pieces(us, PieceKind::Advisor) | pos.pieces(us, PieceKind::Bishop)) & by_pawn);
        Threats {
            by_pawn,
            by_defender,
            by_minor,
            threatened,
        }
    }

    /// The bonus of quiet move `m` of a `kind`: a threatened chariot
    /// reaching a point no cheaper piece attacks 16,384 (a third of the
    /// histories' range, as Pikafish's 50,000 is of its own), a horse or
    /// cannon half that, an advisor or elephant a quarter; otherwise 0.
    fn escape_bonus(&self, kind: PieceKind, m: Move) -> i32 {
        if !self.threatened.contains(m.from()) {
            return 0;
        }
        let (safe_from, bonus) = match kind {
            PieceKind::Rook => (self.by_minor, 16_384),
            PieceKind::Knight | PieceKind::Cannon => (self.by_defender, 8_192),
            _ => (self.by_pawn, 4_096),
        };
        if safe_from.contains(m.to()) { 0 } else { bonus }
    }
}

/// The ordering value of a capture (`pt`) of `victim`: the victim's value
/// seven times over, moved by its capture history by up to about one and
/// a half soldiers either way (Stockfish's weighting).
fn capture_order(h: &Histories, pt: PieceTo, victim: PieceKind) -> i32 {
    7 * PIECE_VALUE[victim.index()] + h.capture_score(pt, victim) / 16
}

#[cfg(test)]
mod tests;
