//! How a finished game ended, as its record keeps it: the one result type
//! of the workspace, shared by the training records (`engine`), the PGN and
//! game-list readers (`book`) and the match runner (`arena`). A game whose
//! result is not known (PGN's `*`) has none: `Option<GameResult>`.
//!
//! The rules' verdict on a position is [`crate::Outcome`]; this is what is
//! written down once the game is over, whoever ended it (the rules, an
//! adjudication, a forfeit).

use std::fmt;

use crate::Color;

/// How a game ended, from Red's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// Red won (`1-0`).
    RedWins,
    /// Black won (`0-1`).
    BlackWins,
    /// A draw (`1/2-1/2`).
    Draw,
}

impl GameResult {
    /// The result of a game `winner` won (`None`: a draw).
    pub fn won_by(winner: Option<Color>) -> GameResult {
        match winner {
            Some(Color::Red) => GameResult::RedWins,
            Some(Color::Black) => GameResult::BlackWins,
            None => GameResult::Draw,
        }
    }

    /// The win of `color`.
    pub fn win_for(color: Color) -> GameResult {
        GameResult::won_by(Some(color))
    }

    /// The side that won, `None` for a draw.
    pub fn winner(self) -> Option<Color> {
        match self {
            GameResult::RedWins => Some(Color::Red),
            GameResult::BlackWins => Some(Color::Black),
            GameResult::Draw => None,
        }
    }

    /// The result from `side`'s view: 1 a win, 0 a draw, −1 a loss.
    pub fn for_side(self, side: Color) -> i8 {
        match self.winner() {
            Some(w) if w == side => 1,
            Some(_) => -1,
            None => 0,
        }
    }

    /// The PGN result token: `1-0`, `0-1` or `1/2-1/2`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::RedWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// Reads a PGN result token: `1-0`, `0-1`, `1/2-1/2` (also `½-½`).
    /// `None` for anything else, `*` (no result) included.
    pub fn from_pgn(text: &str) -> Option<GameResult> {
        match text {
            "1-0" => Some(GameResult::RedWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" | "½-½" => Some(GameResult::Draw),
            _ => None,
        }
    }
}

/// The PGN result token ([`GameResult::pgn`]).
impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.pgn())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_and_tokens_agree() {
        for r in [GameResult::RedWins, GameResult::BlackWins, GameResult::Draw] {
            assert_eq!(GameResult::won_by(r.winner()), r);
            assert_eq!(GameResult::from_pgn(r.pgn()), Some(r));
            assert_eq!(r.to_string(), r.pgn());
            assert_eq!(r.for_side(Color::Red), -r.for_side(Color::Black));
        }
        assert_eq!(GameResult::RedWins.for_side(Color::Red), 1);
        assert_eq!(GameResult::BlackWins.for_side(Color::Red), -1);
        assert_eq!(GameResult::Draw.for_side(Color::Black), 0);
        assert_eq!(GameResult::win_for(Color::Black), GameResult::BlackWins);
        assert_eq!(GameResult::from_pgn("½-½"), Some(GameResult::Draw));
        assert_eq!(GameResult::from_pgn("*"), None);
        assert_eq!(GameResult::from_pgn("1-0 "), None);
    }
}
