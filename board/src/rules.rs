//! Game-end judging (`docs/rules.md` §4): mate and stalemate, repetition
//! with perpetual check and chase, the 60-move limit and insufficient
//! material. Work in progress: the types and entry points are final.

use crate::{Color, Position};

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

impl Verdict {
    /// The verdict as a game outcome, `side` being the side to move.
    pub fn to_outcome(self, side: Color) -> Outcome {
        match self {
            Verdict::Win(reason) => Outcome::Decided { winner: Some(side), reason },
            Verdict::Loss(reason) => Outcome::Decided { winner: Some(!side), reason },
            Verdict::Draw(reason) => Outcome::Decided { winner: None, reason },
        }
    }
}

impl Position {
    /// Whole-game judgement (arena, protocol at the root), in the order of
    /// `docs/rules.md` §4: no legal move, repetition (threefold: two earlier
    /// occurrences), move limit, insufficient material.
    pub fn outcome(&self) -> Outcome {
        if !self.has_legal_move() {
            let reason = if self.in_check() { Reason::Checkmate } else { Reason::Stalemate };
            return Verdict::Loss(reason).to_outcome(self.side_to_move());
        }
        match self.rule_verdict(0) {
            Some(v) => v.to_outcome(self.side_to_move()),
            None => Outcome::Ongoing,
        }
    }

    /// Search verdict at a node `plies_from_root` plies below the search
    /// root: repetition (one earlier occurrence after the root suffices,
    /// two when at or before it), move limit and insufficient material.
    /// Does not test for mate or stalemate except where a draw rule would
    /// otherwise apply.
    pub fn rule_verdict(&self, plies_from_root: usize) -> Option<Verdict> {
        let _ = plies_from_root;
        if self.rule60() >= 120 {
            if !self.has_legal_move() {
                let reason = if self.in_check() { Reason::Checkmate } else { Reason::Stalemate };
                return Some(Verdict::Loss(reason));
            }
            return Some(Verdict::Draw(Reason::MoveLimit));
        }
        None
    }
}
