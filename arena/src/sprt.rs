//! The sequential probability ratio test (SPRT) of a match, on the game
//! pairs `stats` tallies.
//!
//! The SPRT is the generalized SPRT in the form fishtest uses, derived here
//! from first principles: the results are treated as samples x (a game
//! scored 0, ½, 1, or a game pair scored 0, ¼, ½, ¾, 1 per game) with an
//! unknown distribution. For a hypothesis "the mean score is s" the most
//! likely distribution with that mean has, to second order, the variance
//! r(s) = Σ p·(x − s)² = var + (μ − s)², so the log-likelihood is
//! −N/2·ln r(s) plus a constant and
//!
//!   LLR = N/2 · ln(r(s0) / r(s1)).
//!
//! The hypotheses are given in Elo and turned into scores by one of two
//! models ([`EloModel`]). Pairs are the samples when available because the
//! two games of a pair share an opening and are correlated; treating them as
//! independent games would understate the variance.

use crate::stats::{NELO_PER_T, Pentanomial, mean_var, score_from_elo};

/// How the SPRT's Elo bounds are turned into expected scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic (BayesElo-free) Elo: s = 1 / (1 + 10^(−elo/400)).
    Logistic,
    /// Normalized Elo, as fishtest uses: s = ½ + elo · (ln 10 / 800) · σ,
    /// with σ the per-game standard deviation measured so far. Bounds then
    /// mean the same statistical effort whatever the draw rate.
    Normalized,
}

/// Where a running SPRT stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtState {
    /// Neither bound crossed yet.
    Continue,
    /// LLR ≤ lower bound: H0 (elo = elo0) accepted — the change fails.
    AcceptH0,
    /// LLR ≥ upper bound: H1 (elo = elo1) accepted — the change passes.
    AcceptH1,
}

/// Parameters of a sequential probability ratio test of H0: elo = elo0
/// against H1: elo = elo1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo under the null hypothesis.
    pub elo0: f64,
    /// Elo under the alternative.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
    /// How the bounds are read.
    pub model: EloModel,
}

impl Sprt {
    /// The LLR bounds (lower, upper) from Wald: ln(β / (1 − α)) and
    /// ln((1 − β) / α); ±2.944 for α = β = 0.05.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The log-likelihood ratio of the pairs so far (0 before any pair).
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        self.llr_of_samples(&pairs.regularized_bins(), 2.0)
    }

    /// The LLR of samples given as (per-game score, count) bins, each
    /// sample made of `games_per_sample` games (2 for pairs): the per-game
    /// standard deviation that normalized Elo needs is √(games · var).
    fn llr_of_samples(&self, bins: &[(f64, f64)], games_per_sample: f64) -> f64 {
        let Some((n, mu, var)) = mean_var(bins) else {
            return 0.0;
        };
        let (s0, s1) = match self.model {
            EloModel::Logistic => (score_from_elo(self.elo0), score_from_elo(self.elo1)),
            EloModel::Normalized => {
                let sigma = (games_per_sample * var).sqrt();
                (
                    0.5 + self.elo0 / NELO_PER_T * sigma,
                    0.5 + self.elo1 / NELO_PER_T * sigma,
                )
            }
        };
        let r0 = var + (mu - s0) * (mu - s0);
        let r1 = var + (mu - s1) * (mu - s1);
        n / 2.0 * (r0 / r1).ln()
    }

    /// Where an LLR stands against the bounds.
    pub fn state(&self, llr: f64) -> SprtState {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtState::AcceptH1
        } else if llr <= lower {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Trinomial;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn sprt_bounds() {
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        };
        let (lo, hi) = sprt.bounds();
        // ln(0.05/0.95) = −ln 19 = −2.944439.
        assert!(close(lo, -2.944_439, 1e-6));
        assert!(close(hi, 2.944_439, 1e-6));
        assert_eq!(sprt.state(3.0), SprtState::AcceptH1);
        assert_eq!(sprt.state(-3.0), SprtState::AcceptH0);
        assert_eq!(sprt.state(2.9), SprtState::Continue);
        // α = 0.05, β = 0.1: ln(0.1/0.95) = −2.251292, ln(0.9/0.05) = 2.890372.
        let (lo, hi) = Sprt { beta: 0.1, ..sprt }.bounds();
        assert!(close(lo, -2.251_292, 1e-6));
        assert!(close(hi, 2.890_372, 1e-6));
    }

    #[test]
    fn sprt_llr_logistic() {
        // Pairs [10, 20, 40, 20, 10] plus 10 more WW: [10, 20, 40, 20, 20], N = 110.
        // Σx·c = 0·10 + .25·20 + .5·40 + .75·20 + 1·20 = 60 → μ = 60/110 = 0.545455.
        // Σx²·c = 0 + .0625·20 + .25·40 + .5625·20 + 1·20 = 42.5 → E[x²] = 0.386364;
        // var = 0.386364 − 0.297521 = 0.088843.
        // Logistic elo0 = 0, elo1 = 10: s0 = 0.5, s1 = 1/(1 + 10^(−0.025)) = 0.514387.
        // r0 = 0.088843 + 0.045455² = 0.090909; r1 = 0.088843 + 0.031068² = 0.089808.
        // LLR = 55 · ln(0.090909 / 0.089808) = 55 · 0.012185 = 0.6702.
        let p = Pentanomial {
            counts: [10, 20, 40, 20, 20],
        };
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 10.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        };
        let llr = sprt.llr(&p);
        assert!(close(llr, 0.6702, 1e-3), "{llr}");
        // Swapping the hypotheses negates the LLR.
        let swapped = Sprt {
            elo0: 10.0,
            elo1: 0.0,
            ..sprt
        };
        assert!(close(swapped.llr(&p), -llr, 1e-12));
    }

    #[test]
    fn sprt_llr_normalized() {
        // Same pairs: μ = 0.545455, var = 0.088843, σ = √(2·var) = 0.421527.
        // nElo 0 and 5: s0 = 0.5, s1 = 0.5 + 5 / 347.436 · 0.421527 = 0.506066.
        // r0 = 0.090909 (as above); r1 = 0.088843 + 0.039389² = 0.090394.
        // LLR = 55 · ln(0.090909 / 0.090394) = 55 · 0.005678 = 0.3123.
        let p = Pentanomial {
            counts: [10, 20, 40, 20, 20],
        };
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        };
        let llr = sprt.llr(&p);
        assert!(close(llr, 0.3123, 1e-3), "{llr}");
        // No pairs yet: nothing known.
        assert_eq!(sprt.llr(&Pentanomial::default()), 0.0);
    }

    #[test]
    fn sprt_llr_agrees_with_published_trinomial_values() {
        // Independent published checks of the normalized GSPRT on game
        // (trinomial) counts: W 36433 L 36027 D 68692 with nElo [0, 2]
        // gives LLR 0.92; W 10871 L 10650 D 20431 with [−1.75, 0.25] gives 2.30.
        let games = |t: Trinomial| t.bins();
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 2.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Normalized,
        };
        let t = Trinomial {
            wins: 36_433,
            draws: 68_692,
            losses: 36_027,
        };
        assert!(close(sprt.llr_of_samples(&games(t), 1.0), 0.92, 0.005));
        let sprt = Sprt {
            elo0: -1.75,
            elo1: 0.25,
            ..sprt
        };
        let t = Trinomial {
            wins: 10_871,
            draws: 20_431,
            losses: 10_650,
        };
        assert!(close(sprt.llr_of_samples(&games(t), 1.0), 2.30, 0.005));
    }

    #[test]
    fn sprt_llr_all_draws_is_finite() {
        // 100 pairs of two draws: regularised bins keep var > 0; μ is ½ to
        // within the tiny weights, so H0 (elo 0) is favoured: LLR < 0.
        let p = Pentanomial {
            counts: [0, 0, 100, 0, 0],
        };
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: EloModel::Logistic,
        };
        let llr = sprt.llr(&p);
        assert!(llr.is_finite() && llr < -2.944, "{llr}");
    }
}
