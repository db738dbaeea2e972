//! Score adjudication: ending a game early when both engines' own scores
//! agree, for some moves running, that one side is lost (`--resign`) or
//! that the game is level (`--draw`). The rules of the game are judged
//! elsewhere (`board`); this module only reads the engines' scores. It is
//! a part of playing a game, so a child of `game`, whose result types it
//! returns.

use board::{GameResult, Position};

use super::{GameSettings, Termination};

/// Score adjudication after a move: `scores[i]` is the mover's own score
/// at ply i (`None` when it reported none).
pub fn adjudicate_scores(
    scores: &[Option<i32>],
    pos: &Position,
    settings: &GameSettings,
) -> Option<(GameResult, Termination)> {
    let last = |count: usize, offset: usize| -> Option<Vec<i32>> {
        (0..count)
            .map(|k| {
                scores
                    .len()
                    .checked_sub(1 + offset + 2 * k)
                    .and_then(|i| scores[i])
            })
            .collect()
    };
    if let Some(rule) = settings.resign {
        // The side that just moved is !side_to_move.
        if let (Some(mover), Some(other)) = (last(rule.moves, 0), last(rule.moves, 1)) {
            let mover_color = !pos.side_to_move();
            if mover.iter().all(|&s| s <= -rule.score) && other.iter().all(|&s| s >= rule.score) {
                return Some((
                    GameResult::win_for(!mover_color),
                    Termination::ResignAdjudication,
                ));
            }
            if mover.iter().all(|&s| s >= rule.score) && other.iter().all(|&s| s <= -rule.score) {
                return Some((
                    GameResult::win_for(mover_color),
                    Termination::ResignAdjudication,
                ));
            }
        }
    }
    if let Some(rule) = settings.draw
        && usize::from(pos.fullmove_number()) >= rule.after
        && let (Some(mover), Some(other)) = (last(rule.moves, 0), last(rule.moves, 1))
        && mover.iter().chain(&other).all(|s| s.abs() <= rule.score)
    {
        return Some((GameResult::Draw, Termination::DrawAdjudication));
    }
    None
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::{DrawRule, ResignRule, TimeControl};

    fn settings(resign: Option<ResignRule>, draw: Option<DrawRule>) -> GameSettings {
        GameSettings {
            tc: TimeControl::Depth(1),
            margin: Duration::ZERO,
            grace: Duration::ZERO,
            move_timeout: Duration::ZERO,
            resign,
            draw,
            max_plies: 100,
        }
    }

    #[test]
    fn resign_needs_both_sides() {
        let s = settings(
            Some(ResignRule {
                score: 500,
                moves: 2,
            }),
            None,
        );
        // After 4 plies Red is to move; the mover of ply 4 was Black.
        let mut pos = Position::startpos();
        for m in ["h2e2", "h9g7", "h0g2", "i9h9"] {
            pos.play(m.parse().unwrap()).unwrap();
        }
        // Red (plies 1, 3) says +600, +700; Black (plies 2, 4) says −600, −900: Black resigns.
        let scores = [Some(600), Some(-600), Some(700), Some(-900)];
        assert_eq!(
            adjudicate_scores(&scores, &pos, &s),
            Some((GameResult::RedWins, Termination::ResignAdjudication))
        );
        // Red agreeing only once is not enough.
        let scores = [Some(100), Some(-600), Some(700), Some(-900)];
        assert_eq!(adjudicate_scores(&scores, &pos, &s), None);
        // A missing score breaks the run.
        let scores = [Some(600), None, Some(700), Some(-900)];
        assert_eq!(adjudicate_scores(&scores, &pos, &s), None);
        // The mover winning: Red resigns.
        let scores = [Some(-600), Some(600), Some(-700), Some(900)];
        assert_eq!(
            adjudicate_scores(&scores, &pos, &s),
            Some((GameResult::BlackWins, Termination::ResignAdjudication))
        );
    }

    #[test]
    fn draw_needs_move_number_and_both_sides() {
        let mut pos = Position::startpos();
        for m in ["h2e2", "h9g7", "h0g2", "i9h9"] {
            pos.play(m.parse().unwrap()).unwrap();
        }
        // Full move 3 now.
        let scores = [Some(5), Some(-3), Some(0), Some(8)];
        let s = settings(
            None,
            Some(DrawRule {
                score: 10,
                moves: 2,
                after: 3,
            }),
        );
        assert_eq!(
            adjudicate_scores(&scores, &pos, &s),
            Some((GameResult::Draw, Termination::DrawAdjudication))
        );
        let s = settings(
            None,
            Some(DrawRule {
                score: 10,
                moves: 2,
                after: 4,
            }),
        );
        assert_eq!(adjudicate_scores(&scores, &pos, &s), None);
        let s = settings(
            None,
            Some(DrawRule {
                score: 5,
                moves: 2,
                after: 3,
            }),
        );
        assert_eq!(adjudicate_scores(&scores, &pos, &s), None);
        let s = settings(
            None,
            Some(DrawRule {
                score: 10,
                moves: 3,
                after: 3,
            }),
        );
        assert_eq!(adjudicate_scores(&scores, &pos, &s), None);
    }
}
