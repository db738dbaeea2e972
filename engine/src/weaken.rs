//! The choice of a weakened search (strength levels): among the best few
//! root moves, each searched as its own line, one is drawn with a
//! probability that falls with its score's distance from the best
//! (a softmax at a temperature in centipawns). A move more than the
//! allowed loss below the best is never drawn, so a weak level misses what
//! its small search cannot see but does not hand over a piece the search
//! saw; and no move the rules or a mate decide against the mover is drawn
//! while the best is not so decided.
//!
//! `strength.rs` decides the numbers for the protocol's options; the
//! search only narrows its node budget and widens its lines, and calls
//! [`choose`] once at the end.

use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::score::is_decisive;

/// How a weakened search chooses its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weakening {
    /// The root moves it chooses among (searched as that many lines).
    pub candidates: usize,
    /// The softmax temperature in centipawns (0: always the best).
    pub temperature: i32,
    /// Never a move more than this many centipawns below the best.
    pub max_loss: i32,
    /// The seed of the draw.
    pub seed: u64,
}

/// The index of the move to play among `scores` (internal scores of the
/// best lines, best first).
pub(crate) fn choose(w: &Weakening, scores: &[i32]) -> usize {
    let Some(&best) = scores.first() else {
        return 0;
    };
    if w.temperature <= 0 || scores.len() < 2 {
        return 0;
    }
    let lost = |s: i32| is_decisive(s) && s < 0;
    let eligible = |s: i32| s >= best - w.max_loss && (!lost(s) || lost(best));
    let weights: Vec<f64> = scores
        .iter()
        .map(|&s| {
            if eligible(s) {
                (f64::from(s - best) / f64::from(w.temperature)).exp()
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut draw = Pcg64Mcg::seed_from_u64(w.seed).gen_range(0.0..total.max(f64::MIN_POSITIVE));
    for (i, weight) in weights.iter().enumerate() {
        if draw < *weight {
            return i;
        }
        draw -= weight;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::MATE;

    fn w(temperature: i32, max_loss: i32, seed: u64) -> Weakening {
        Weakening {
            candidates: 4,
            temperature,
            max_loss,
            seed,
        }
    }

    #[test]
    fn a_cold_choice_is_the_best() {
        assert_eq!(choose(&w(0, 500, 1), &[30, 29, 28]), 0);
        assert_eq!(choose(&w(50, 500, 1), &[30]), 0);
        assert_eq!(choose(&w(50, 500, 1), &[]), 0);
    }

    #[test]
    fn moves_beyond_the_allowed_loss_or_lost_by_rule_are_never_drawn() {
        // A hung chariot (−900) is never played; a rule loss is never
        // played while the best is not lost.
        let scores = [40, 20, -900, -(MATE - 6)];
        let mut seen = [0; 4];
        for seed in 0..2000 {
            seen[choose(&w(200, 300, seed), &scores)] += 1;
        }
        assert_eq!((seen[2], seen[3]), (0, 0));
        assert!(seen[0] > seen[1] && seen[1] > 600, "{seen:?}");
        // When every move loses, the least bad is not excluded.
        let lost = [-(MATE - 20), -(MATE - 8)];
        assert_eq!(choose(&w(50, 100, 3), &lost), 0);
    }

    /// The draw follows the softmax: at 50 cp a move 35 cp worse is chosen
    /// e^(−0.7) ≈ 0.5 as often as the best.
    #[test]
    fn the_draw_follows_the_softmax() {
        let scores = [100, 65];
        let n = 20_000;
        let second = (0..n)
            .filter(|&s| choose(&w(50, 500, s), &scores) == 1)
            .count();
        let expected = n as f64 * (-0.7f64).exp() / (1.0 + (-0.7f64).exp());
        assert!(
            (second as f64 - expected).abs() < 4.0 * expected.sqrt(),
            "{second}"
        );
        assert_eq!(
            choose(&w(50, 500, 9), &scores),
            choose(&w(50, 500, 9), &scores)
        );
    }
}
