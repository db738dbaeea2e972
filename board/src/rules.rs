//! Game-end judging (`docs/rules.md` §4): mate and stalemate, repetition
//! with perpetual check and perpetual chase, the 60-move limit and
//! insufficient material. One judge serves the search
//! ([`Position::rule_verdict`]) and whole games ([`Position::outcome`]).
//! Scoring, the protocol's `info string` and `banmoves` belong to the engine
//! and protocol crates.
//!
//! # Order of judgement
//!
//! 1. No legal move: the side to move loses, by [`Reason::Checkmate`] if in
//!    check, else by [`Reason::Stalemate`] (xiangqi has no stalemate draw).
//! 2. Repetition (below).
//! 3. Move limit: [`Position::rule60`] `>= 120` is a draw. The counter,
//!    kept by `make_move`, does not advance for a side's checks past the
//!    tenth since the last capture nor for the replies to them (§4.4; ten
//!    is the Asian rules' bound on checks in a claimed 60-move draw).
//! 4. Insufficient material, per the table of §4.5; a *conditional* draw is
//!    withheld when the side to move has a move after which the opponent
//!    has no legal move.
//!
//! A draw rule never overrides a side to move without a legal move: that
//! side loses (rules 3 and 4 test it; a repeated position always has one).
//!
//! # Repetition
//!
//! 1. Look-back window: the positions since the last capture, the last null
//!    move or the setup, whichever is nearest. Only positions with the same
//!    side to move, at least four plies back, can match (nothing shorter
//!    can repeat).
//! 2. Walking back, count the earlier positions with the current key. A
//!    match strictly after the search root (fewer than `plies_from_root`
//!    plies back) is judged at once; a match at or before the root needs a
//!    second earlier occurrence (threefold). Whole-game judgement passes
//!    `plies_from_root = 0`, so it always needs threefold. The *cycle*
//!    judged is the stretch from the matching earlier occurrence to now
//!    (two loops at threefold).
//! 3. Checks: a move "checks" if the opponent is in check after it. If every
//!    move of one side in the cycle checks and not every move of the other,
//!    the checking side loses ([`Reason::PerpetualCheck`]); both:
//!    [`Reason::MutualPerpetual`] draw. A side that checks on some of its
//!    moves only is not punished for them, and step 4 judges the cycle.
//! 4. Chases (no side checked on every move): for each move of the cycle,
//!    checks included,
//!    `newly chased = chased(after the move) \ chased(before the move)`, both
//!    taken for the mover, and each side's sets are intersected over all
//!    its moves. Exactly one side with a non-empty intersection loses
//!    ([`Reason::PerpetualChase`]); both: [`Reason::MutualPerpetual`] draw;
//!    neither: [`Reason::RepetitionDraw`]. Pieces are followed by identity
//!    through the cycle (nothing is captured in it), so chasing a piece
//!    that keeps fleeing counts, and chasing two pieces in turn does not.
//! 5. A win or loss judged at a twofold repetition inside the search is
//!    trusted only for a clean cycle: the move into the position came from
//!    the same position as the time before, no other position strictly
//!    inside the cycle occurs twice in the window, and the move limit is not
//!    reached.
//!    Otherwise the walk goes on looking for a third occurrence, and without
//!    one the repetition gives no verdict (the search continues). Draws are
//!    taken at once.
//!
//! # Repetitions in the search
//!
//! Step 5 holds a twofold verdict back when the cycle is not clean, so a
//! repeated position can be searched on without a verdict.
//! [`Position::judge_node`] says so (`repeated`), and the engine then
//! neither takes a table cut-off at that node nor stores its result: the
//! table's entry for the same position reached another way (earlier in
//! this search, or in the search of a previous move) would otherwise cut
//! off the threefold judgement below it. That was the root of real rule
//! losses (a primed table turned a held position into a forced mate). The
//! alternative, judging every in-search twofold at once as Pikafish does,
//! would trust exactly the cycles step 5 rejects; skipping the table at
//! repeated nodes costs little, since such nodes are rare and their
//! subtrees shallow, and keeps step 5's precision. Wins and losses by
//! rule score like mates at the same distance in the engine.
//!
//! # What "chased" means
//!
//! Side `S` *chases* enemy piece `X` in a position when all of these hold,
//! evaluated as if `S` were to move (a null move when it is not):
//!
//! * `S` has a **legal** capture of `X` with a piece `A`. Legality is the
//!   whole rule about pinned attackers: a piece pinned against its general
//!   (by a chariot, a cannon, a horse whose leg it blocks, or the facing
//!   generals) attacks only what it may legally take, typically the pinner.
//! * `A` is not a general or soldier (they chase freely), and `X` is not a
//!   general nor a soldier on its own side of the river.
//! * Either `A`/`X` is a *weaker-attacker* pair — horse or cannon on a
//!   chariot, advisor or elephant on a chariot, horse or cannon — which
//!   counts whatever the protection; or `X` is *unprotected*: after `A`
//!   takes `X`, the opponent has no legal move onto that square.
//! * For an unprotected `X` of the same kind as `A`: `X` cannot legally
//!   take `A` back (with `X`'s side to move, before any capture). Mutual
//!   attacks between equals are offers to exchange, not chases, unless the
//!   target is pinned or, for horses, has its own leg blocked.
//!
//! # Not covered
//!
//! * Perpetual mate threats (长杀) and other Chinese-rule refinements: a
//!   cycle of threats that are neither checks nor chases is a draw, as under
//!   the Asian rules.
//! * Value judgements in protection: a piece counts as protected whenever
//!   some legal recapture exists. There is no static exchange evaluation,
//!   so outside the weaker-attacker pairs an attack that would still win
//!   material after the recapture is no chase; false protection is
//!   recognised only when the recapture is illegal.
//! * Only a move that creates an attack chases (`after \ before`): a piece
//!   that steps into an attack already standing is not chased by it. A move
//!   that uncovers another piece's attack, or that removes a target's
//!   protection (say by blocking the leg of the horse defending it), does
//!   create a chase, as the definition implies.
//! * A twofold win or loss whose earlier occurrence is the setup position
//!   is never trusted (its predecessor is unknown); the third occurrence
//!   decides.
//! * Mixed cycles (one side checking on some moves and chasing on others)
//!   are not punished unless that side chases one piece on every move,
//!   checks included, as in Pikafish and the Asian rules; the Chinese rules
//!   forbid them.
//! * The roughly hundred diagrammed special cases of the rule books
//!   (sacrifices, exchange offers between different kinds, a chase that is
//!   also a defence) beyond what the definition above implies.

mod chase;
mod material;

use crate::{Color, Position, State};

use chase::Ids;
use material::MaterialDraw;

/// Why a game ended (or a search node was scored by a rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// No legal move while in check.
    Checkmate,
    /// No legal move while not in check (a loss in xiangqi).
    Stalemate,
    /// One side checked on every move of a repetition cycle.
    PerpetualCheck,
    /// One side chased on every move of a repetition cycle.
    PerpetualChase,
    /// Both sides checked (or chased) perpetually: a draw.
    MutualPerpetual,
    /// A repetition in which no rule is broken.
    RepetitionDraw,
    /// 60 moves without capture.
    MoveLimit,
    /// Neither side can mate.
    InsufficientMaterial,
}

impl Reason {
    /// A short English name, for `info string` lines and reports.
    pub fn name(self) -> &'static str {
        match self {
            Reason::Checkmate => "checkmate",
            Reason::Stalemate => "stalemate",
            Reason::PerpetualCheck => "perpetual check",
            Reason::PerpetualChase => "perpetual chase",
            Reason::MutualPerpetual => "mutual perpetual",
            Reason::RepetitionDraw => "repetition draw",
            Reason::MoveLimit => "60-move limit",
            Reason::InsufficientMaterial => "insufficient material",
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A rule verdict from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The side to move wins.
    Win(Reason),
    /// The side to move loses.
    Loss(Reason),
    /// Draw.
    Draw(Reason),
}

impl Verdict {
    /// The game outcome this verdict means when `side` is to move.
    pub fn to_outcome(self, side: Color) -> Outcome {
        match self {
            Verdict::Win(reason) => Outcome::Decided {
                winner: Some(side),
                reason,
            },
            Verdict::Loss(reason) => Outcome::Decided {
                winner: Some(!side),
                reason,
            },
            Verdict::Draw(reason) => Outcome::Decided {
                winner: None,
                reason,
            },
        }
    }

    /// The rule behind the verdict.
    pub fn reason(self) -> Reason {
        match self {
            Verdict::Win(r) | Verdict::Loss(r) | Verdict::Draw(r) => r,
        }
    }
}

/// The state of a whole game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Play goes on.
    Ongoing,
    /// The game is over.
    Decided {
        /// The winner, `None` for a draw.
        winner: Option<Color>,
        /// Why.
        reason: Reason,
    },
}

/// The rules' word on a search node ([`Position::judge_node`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeJudgement {
    /// The verdict, if a rule decides the node.
    pub verdict: Option<Verdict>,
    /// The position occurred earlier in the repetition window (since the
    /// last capture or null move), whether or not that decided anything.
    pub repeated: bool,
}

/// The plies a move-limit draw needs (`docs/rules.md` §4.4).
pub const MOVE_LIMIT_PLIES: u16 = 120;

impl Position {
    /// Whole-game judgement (arena, protocol at the root), in the order of
    /// the module documentation: no legal move, repetition (threefold: two
    /// earlier occurrences since the last capture), move limit, insufficient
    /// material.
    pub fn outcome(&self) -> Outcome {
        if !self.has_legal_move() {
            return Verdict::Loss(self.no_move_reason()).to_outcome(self.side_to_move());
        }
        match self.rule_verdict(0) {
            Some(v) => v.to_outcome(self.side_to_move()),
            None => Outcome::Ongoing,
        }
    }

    /// The search's verdict at a node `plies_from_root` plies below the
    /// search root: repetition (one earlier occurrence strictly after the
    /// root suffices; at or before the root two are needed), move limit and
    /// insufficient material. `None`: no rule applies, search on.
    ///
    /// Mate and stalemate are left to the search, except that a draw by move
    /// limit or material is replaced by the loss when the side to move has
    /// no legal move. Most nodes are settled by one bit of the window's key
    /// filter ([`State::seen`]) and a few ORs; the rest scan the keys back
    /// to the last capture. Nothing is allocated.
    pub fn rule_verdict(&self, plies_from_root: usize) -> Option<Verdict> {
        self.judge_node(plies_from_root).verdict
    }

    /// [`Position::rule_verdict`] together with whether the position
    /// occurred before inside the repetition window (on the search path or
    /// in the game), verdict or not. The search needs the second fact: the
    /// value of a repeated position depends on the path that led to it (a
    /// verdict held back at a twofold may still come at the threefold), so
    /// it must not be taken from, nor given to, the transposition table.
    ///
    /// At most nodes nothing can apply, which is settled inline: the
    /// window's filter ([`State::seen`]) rules out an earlier occurrence,
    /// the move counter is short of the limit, and a soldier, chariot or
    /// horse rules out a material draw. The rest is judged out of line.
    #[inline]
    pub fn judge_node(&self, plies_from_root: usize) -> NodeJudgement {
        if !self.state().may_repeat()
            && self.rule60() < MOVE_LIMIT_PLIES
            && material::attackers_remain(self)
        {
            return NodeJudgement {
                verdict: None,
                repeated: false,
            };
        }
        self.judge_node_fully(plies_from_root)
    }

    /// [`Position::judge_node`] at a node where a rule may apply.
    #[inline(never)]
    fn judge_node_fully(&self, plies_from_root: usize) -> NodeJudgement {
        let (verdict, repeated) = self.repetition_verdict(plies_from_root);
        if verdict.is_some() {
            return NodeJudgement { verdict, repeated };
        }
        NodeJudgement {
            verdict: self.non_repetition_verdict(),
            repeated,
        }
    }

    /// Steps 3 and 4 of the order of judgement: move limit and material.
    fn non_repetition_verdict(&self) -> Option<Verdict> {
        if self.rule60() >= MOVE_LIMIT_PLIES {
            return Some(self.draw_unless_no_move(Reason::MoveLimit));
        }
        match material::material_draw(self) {
            MaterialDraw::No => None,
            MaterialDraw::Direct => Some(self.draw_unless_no_move(Reason::InsufficientMaterial)),
            MaterialDraw::Conditional => {
                if !self.has_legal_move() {
                    Some(Verdict::Loss(self.no_move_reason()))
                } else if material::can_mate_at_once(self) {
                    None
                } else {
                    Some(Verdict::Draw(Reason::InsufficientMaterial))
                }
            }
        }
    }

    fn no_move_reason(&self) -> Reason {
        if self.in_check() {
            Reason::Checkmate
        } else {
            Reason::Stalemate
        }
    }

    fn draw_unless_no_move(&self, reason: Reason) -> Verdict {
        if self.has_legal_move() {
            Verdict::Draw(reason)
        } else {
            Verdict::Loss(self.no_move_reason())
        }
    }

    /// The state of position `k` (0 = the setup, `game_ply()` = now).
    fn state_at(&self, k: usize) -> &State {
        self.history().get(k).unwrap_or(self.state())
    }

    /// Steps 1, 2 and 5 of the repetition rule: find the earlier
    /// occurrences and decide which one, if any, is judged.
    /// Also says whether any earlier occurrence was found.
    fn repetition_verdict(&self, plies_from_root: usize) -> (Option<Verdict>, bool) {
        let now = self.state();
        // Most positions occurred nowhere in the window, which one bit
        // says without the walk.
        if !now.may_repeat() {
            return (None, false);
        }
        let hist = self.history();
        let n = hist.len();
        let mut occurrences = 0;
        // Position `k` may be compared as long as no move after it captured
        // or was a null move: the state after each such move marks the edge,
        // `now.reversible` plies back. The same side is to move an even
        // number of plies back, and a position cannot recur within 4.
        // (A plain loop: `(4..=edge).step_by(2)` compiled to several times
        // the instructions, and this runs at every node.)
        let edge = usize::from(now.reversible).min(n);
        let mut back = 4;
        while back <= edge {
            let k = n - back;
            if hist[k].key == now.key {
                occurrences += 1;
                if occurrences == 2 || back < plies_from_root {
                    let verdict = self.judge_cycle(k);
                    if occurrences == 2
                        || matches!(verdict, Verdict::Draw(_))
                        || self.clean_cycle(k)
                    {
                        return (Some(verdict), true);
                    }
                }
            }
            back += 2;
        }
        (None, occurrences > 0)
    }

    /// Step 5: whether a twofold win or loss over the cycle from position
    /// `start` to now can be trusted.
    fn clean_cycle(&self, start: usize) -> bool {
        let n = self.game_ply();
        if start == 0
            || self.rule60() >= MOVE_LIMIT_PLIES
            || self.state_at(n - 1).key != self.state_at(start - 1).key
        {
            return false;
        }
        // Position `n - 1` repeats `start - 1` by the test above; the others
        // strictly inside the cycle must be unique.
        let window = self.window_start();
        (start + 1..n - 1).all(|k| {
            let key = self.state_at(k).key;
            (window..=n)
                .filter(|&i| self.state_at(i).key == key)
                .count()
                == 1
        })
    }

    /// The oldest position of the repetition window.
    fn window_start(&self) -> usize {
        let n = self.game_ply();
        let mut k = n;
        while k > 0 {
            let s = self.state_at(k);
            if s.captured.is_some() || s.last_move.is_none() {
                break;
            }
            k -= 1;
        }
        k
    }

    /// Steps 3 and 4: judges the cycle from position `start` to now.
    fn judge_cycle(&self, start: usize) -> Verdict {
        let n = self.game_ply();
        // Move `k` leads from position `k` to `k + 1`; it checked if the
        // state after it is in check. The side to move now made the moves
        // an even number of plies before now.
        let mut all_check = [true, true]; // [us, them]
        for k in start..n {
            all_check[(n - k) % 2] &= self.state_at(k + 1).in_check;
        }
        match all_check {
            [true, true] => return Verdict::Draw(Reason::MutualPerpetual),
            [true, false] => return Verdict::Loss(Reason::PerpetualCheck),
            [false, true] => return Verdict::Win(Reason::PerpetualCheck),
            // Checks on only some moves are no offence, but they do not
            // excuse the other side: a side that answers an intermittent
            // check by chasing on every move still loses by the chase, as
            // under the Asian rules, Pikafish and Fairy-Stockfish.
            [false, false] => {}
        }
        match self.chase_sets(start) {
            (true, true) => Verdict::Draw(Reason::MutualPerpetual),
            (true, false) => Verdict::Loss(Reason::PerpetualChase),
            (false, true) => Verdict::Win(Reason::PerpetualChase),
            (false, false) => Verdict::Draw(Reason::RepetitionDraw),
        }
    }

    /// Step 4 over a cycle no side checked through: whether (the side to
    /// move, the other side) chased some piece on every one of its moves.
    fn chase_sets(&self, start: usize) -> (bool, bool) {
        let n = self.game_ply();
        let moves: Vec<_> = (start..n)
            .filter_map(|k| self.state_at(k + 1).last_move)
            .collect();
        // Rebuild the cycle's first position from the current placement by
        // taking the (non-capturing) moves back on a plain board, so that
        // the long game history is not copied.
        let mut setup = self.to_setup();
        for m in moves.iter().rev() {
            setup.board[m.from().index()] = setup.board[m.to().index()].take();
        }
        // The cycle has an even length: the same side was to move.
        setup.side = self.side_to_move();
        let Ok(mut work) = Position::from_setup(&setup) else {
            debug_assert!(false, "cycle start is not a legal position");
            return (false, false);
        };
        let mut ids = Ids::new(&work);
        let us = self.side_to_move();
        let mut chase = crate::ByColor {
            red: u32::MAX,
            black: u32::MAX,
        };
        for &m in &moves {
            let mover = work.side_to_move();
            if chase[mover] == 0 {
                if chase[!mover] == 0 {
                    break;
                }
                work.make_move(m);
                ids.moved(m);
                continue;
            }
            let before = chase::chased(&mut work, &ids);
            work.make_move(m);
            ids.moved(m);
            let after = chase::chased_by_mover(&mut work, &ids);
            chase[mover] &= after & !before;
        }
        (chase[us] != 0, chase[!us] != 0)
    }
}

#[cfg(test)]
mod tests;
