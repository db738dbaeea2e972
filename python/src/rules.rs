//! Rule verdicts for Python: `Outcome`, built from the board crate's one
//! judge (`Position::outcome`, which the engine's search and the arena use).
//! `Board.outcome` and `adjudicate` (in `board`) return it.

use pyo3::prelude::*;

use board::{Outcome as CoreOutcome, Position};

use crate::color::Color;

/// How a game ended: ``winner`` (a ``Color``, ``None`` for a draw),
/// ``reason`` (``"checkmate"``, ``"stalemate"``, ``"perpetual check"``,
/// ``"perpetual chase"``, ``"mutual perpetual"``, ``"repetition draw"``,
/// ``"60-move limit"`` or ``"insufficient material"``) and ``ply``, the
/// number of moves of the history after which the rules decided it.
#[pyclass(module = "chariot", frozen, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The winner; `None` for a draw.
    #[pyo3(get)]
    winner: Option<Color>,
    /// The rule's name.
    #[pyo3(get)]
    reason: &'static str,
    /// Plies played from the setup when the game ended.
    #[pyo3(get)]
    ply: usize,
}

impl Outcome {
    /// The verdict on `pos` after `ply` moves from the setup, `None` while
    /// play goes on.
    pub fn of(pos: &Position, ply: usize) -> Option<Outcome> {
        match pos.outcome() {
            CoreOutcome::Ongoing => None,
            CoreOutcome::Decided { winner, reason } => Some(Outcome {
                winner: winner.map(Color::from),
                reason: reason.name(),
                ply,
            }),
        }
    }
}

#[pymethods]
impl Outcome {
    /// The side that lost, ``None`` for a draw.
    #[getter]
    fn loser(&self) -> Option<Color> {
        self.winner.map(|w| match w {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        })
    }

    /// Whether the game is drawn.
    #[getter]
    fn is_draw(&self) -> bool {
        self.winner.is_none()
    }

    /// The PGN result: ``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``.
    fn result(&self) -> &'static str {
        match self.winner {
            Some(Color::Red) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    fn __repr__(&self) -> String {
        let winner = match self.winner {
            Some(Color::Red) => "Color.RED",
            Some(Color::Black) => "Color.BLACK",
            None => "None",
        };
        format!(
            "Outcome(winner={winner}, reason={:?}, ply={})",
            self.reason, self.ply
        )
    }
}
