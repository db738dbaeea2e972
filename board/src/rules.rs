//! Game-end judging (rules.md §4).
//!
//! NOTE TO THE RULES DEVELOPER (delete this paragraph when you write the module docs):
//! read /work/notes/common.md first — team rules for working in this shared tree
//! (own CARGO_TARGET_DIR, commit only your own paths with `git commit -- <paths>`,
//! never `git add -A`) and the exact API names the engine and arena developers
//! are coding against. The types below are that API; fill in the logic.

use crate::Color;

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
