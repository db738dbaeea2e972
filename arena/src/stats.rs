//! Match statistics: game and game-pair tallies, Elo with a 95 % interval,
//! and normalized Elo.
//!
//! Everything here is plain arithmetic on counts; the tournament loop feeds
//! it results and prints what it returns.
//!
//! The SPRT built on these tallies is `sprt`'s.

use std::fmt;

/// The two-sided 95 % quantile of the standard normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Weight given to an empty outcome bin so that a one-sided or all-draw
/// sample still has a positive variance (the same idea fishtest calls
/// regularisation); small enough not to move real results.
const EMPTY_BIN_WEIGHT: f64 = 1e-3;

/// The Elo difference that a mean score `s` (0 < s < 1) corresponds to under
/// the logistic model: s = 1 / (1 + 10^(−elo/400)). Infinite at 0 and 1.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // `+ 0.0` turns −0.0 (s = ½) into 0.0 for printing.
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// The expected score of an Elo difference under the logistic model.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Normalized Elo per unit of t-value: nElo = t · 800 / ln 10, where t is
/// the score excess over ½ divided by the per-game standard deviation.
/// (At a per-game standard deviation of ½ — no draws — nElo and Elo agree
/// near 0: d(Elo)/ds = 1600/ln 10 at s = ½.)
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// An Elo estimate with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// The point estimate.
    pub elo: f64,
    /// Lower end of the 95 % interval.
    pub lower: f64,
    /// Upper end of the 95 % interval.
    pub upper: f64,
}

impl EloEstimate {
    /// Half the width of the interval: the "±" figure (NaN when the
    /// samples show no spread to estimate it from).
    pub fn error(&self) -> f64 {
        (self.upper - self.lower) / 2.0
    }
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.elo.is_finite() && self.error().is_nan() {
            write!(f, "{:+.1} ± n/a", self.elo)
        } else if self.elo.is_finite() && self.error().is_finite() {
            write!(f, "{:+.1} ± {:.1}", self.elo, self.error())
        } else if self.elo.is_finite() {
            write!(f, "{:+.1} ± inf", self.elo)
        } else {
            write!(f, "{}inf", if self.elo > 0.0 { "+" } else { "-" })
        }
    }
}

/// Mean and variance of a discrete distribution given as (value, count)
/// pairs, with the total count. `None` when there is no sample.
pub fn mean_var(bins: &[(f64, f64)]) -> Option<(f64, f64, f64)> {
    let n: f64 = bins.iter().map(|&(_, c)| c).sum();
    if n <= 0.0 {
        return None;
    }
    let mu = bins.iter().map(|&(x, c)| x * c).sum::<f64>() / n;
    let var = bins
        .iter()
        .map(|&(x, c)| c * (x - mu) * (x - mu))
        .sum::<f64>()
        / n;
    Some((n, mu, var))
}

/// Elo and its 95 % interval from samples.
///
/// The interval is built on the Elo scale itself, which is the logit of the
/// score: Elo ± 1.96 · se · dElo/ds, with se the standard error of the mean
/// score and dElo/ds = 400 / (ln 10 · s · (1 − s)). It used to be built on
/// the score scale (s ± 1.96 · se, each end converted to Elo, as cutechess
/// and fastchess do), but that interval leaves (0, 1) whenever the score is
/// near an edge for the number of games — W D L W gives s = 0.625 ± 0.41 —
/// and an end beyond 1 is an infinite Elo: the error bar went back to
/// `± inf` after it had been finite. On the Elo scale the bar is finite
/// whenever the samples differ (then 0 < s < 1), so once finite it stays
/// finite.
fn elo_of_bins(bins: &[(f64, f64)]) -> Option<EloEstimate> {
    let (n, mu, var) = mean_var(bins)?;
    let elo = elo_from_score(mu);
    // Identical samples (one game, or all draws) say nothing about the
    // spread: the interval is unknown, not zero wide.
    if var == 0.0 {
        return Some(EloEstimate {
            elo,
            lower: f64::NAN,
            upper: f64::NAN,
        });
    }
    let slope = 400.0 / (std::f64::consts::LN_10 * mu * (1.0 - mu));
    let half = Z95 * (var / n).sqrt() * slope;
    Some(EloEstimate {
        elo,
        lower: elo - half,
        upper: elo + half,
    })
}

/// The score of one game from the point of view of one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameScore {
    /// 1 point.
    Win,
    /// ½ point.
    Draw,
    /// 0 points.
    Loss,
}

impl GameScore {
    /// Points in half-point units (2, 1, 0).
    pub fn half_points(self) -> usize {
        match self {
            GameScore::Win => 2,
            GameScore::Draw => 1,
            GameScore::Loss => 0,
        }
    }

    /// The same game from the opponent's side.
    pub fn flip(self) -> GameScore {
        match self {
            GameScore::Win => GameScore::Loss,
            GameScore::Draw => GameScore::Draw,
            GameScore::Loss => GameScore::Win,
        }
    }
}

/// Win/draw/loss counts of one player against another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Trinomial {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Trinomial {
    /// Counts one game.
    pub fn add(&mut self, score: GameScore) {
        match score {
            GameScore::Win => self.wins += 1,
            GameScore::Draw => self.draws += 1,
            GameScore::Loss => self.losses += 1,
        }
    }

    /// Number of games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Points scored (a draw is ½).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }

    /// Mean score per game, `None` before the first game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.points() / n as f64)
    }

    pub fn bins(&self) -> [(f64, f64); 3] {
        [
            (1.0, self.wins as f64),
            (0.5, self.draws as f64),
            (0.0, self.losses as f64),
        ]
    }

    /// Elo with a 95 % interval, treating games as independent.
    pub fn elo(&self) -> Option<EloEstimate> {
        elo_of_bins(&self.bins())
    }
}

/// Counts of game pairs (the same opening with colours swapped) by the
/// points one player scored in the pair: index 0 = 0 points (two losses),
/// 1 = ½, 2 = 1 (a win and a loss, or two draws), 3 = 1½, 4 = 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// The five counts.
    pub counts: [u64; 5],
}

impl Pentanomial {
    /// Counts one finished pair.
    pub fn add(&mut self, first: GameScore, second: GameScore) {
        self.counts[first.half_points() + second.half_points()] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Per-game score of each bin with its count.
    fn bins(&self) -> [(f64, f64); 5] {
        let mut bins = [(0.0, 0.0); 5];
        for (i, bin) in bins.iter_mut().enumerate() {
            *bin = (i as f64 / 4.0, self.counts[i] as f64);
        }
        bins
    }

    /// The bins with empty ones given a tiny weight, so that the variance
    /// is positive whenever there is at least one pair.
    pub fn regularized_bins(&self) -> [(f64, f64); 5] {
        let mut bins = self.bins();
        if self.pairs() > 0 {
            for bin in &mut bins {
                if bin.1 == 0.0 {
                    bin.1 = EMPTY_BIN_WEIGHT;
                }
            }
        }
        bins
    }

    /// Elo with a 95 % interval from the pairs (the variance of pair
    /// results, which accounts for the correlation inside a pair).
    pub fn elo(&self) -> Option<EloEstimate> {
        elo_of_bins(&self.bins())
    }

    /// Normalized Elo with a 95 % interval: the score excess over ½ in units
    /// of the per-game standard deviation σ = √(2·`var_pair`), scaled by
    /// 800 / ln 10. `None` before the first pair or when every pair ended
    /// alike (σ = 0).
    pub fn normalized_elo(&self) -> Option<EloEstimate> {
        let (n, mu, var) = mean_var(&self.bins())?;
        let sigma = (2.0 * var).sqrt();
        if sigma <= 0.0 {
            return None;
        }
        let half = Z95 * (var / n).sqrt();
        let nelo = |s: f64| (s - 0.5) / sigma * NELO_PER_T;
        Some(EloEstimate {
            elo: nelo(mu),
            lower: nelo(mu - half),
            upper: nelo(mu + half),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_a_score() {
        // s = 0.75: 1/s − 1 = 1/3, log10(1/3) = −0.477121, × −400 = 190.849.
        assert!(close(elo_from_score(0.75), 190.849, 1e-3));
        // s = 0.5 → 0; symmetric around ½.
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.25), -190.849, 1e-3));
        assert!(close(score_from_elo(190.849), 0.75, 1e-6));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn trinomial_elo_and_interval() {
        // W 30, D 40, L 30 → s = (30 + 20)/100 = 0.5, Elo 0.
        // var = (30·0.25 + 40·0 + 30·0.25)/100 = 0.15; se = √(0.15/100) = 0.0387298;
        // half = 1.959964 · 0.0387298 = 0.0759090 in score; dElo/ds at ½ is
        // 400 / (ln 10 · 0.25) = 694.871, so ± 52.747.
        let t = Trinomial {
            wins: 30,
            draws: 40,
            losses: 30,
        };
        let e = t.elo().unwrap();
        assert_eq!(t.score(), Some(0.5));
        assert_eq!(e.elo, 0.0);
        assert!(close(e.upper, 52.747, 0.01), "{e:?}");
        assert!(close(e.lower, -52.747, 0.01), "{e:?}");
        assert!(close(e.error(), 52.747, 0.01));

        // W 60, D 20, L 20 → s = 0.7; elo(0.7) = −400·log10(0.428571) = 147.19.
        // var = (60·0.09 + 20·0.04 + 20·0.49)/100 = 0.16; se = 0.04; half = 0.0783986;
        // dElo/ds = 400 / (ln 10 · 0.7 · 0.3) = 827.228, so ± 64.853:
        // upper 212.04, lower 82.34.
        let t = Trinomial {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let e = t.elo().unwrap();
        assert!(close(e.elo, 147.19, 0.01), "{e:?}");
        assert!(close(e.upper, 212.04, 0.01), "{e:?}");
        assert!(close(e.lower, 82.34, 0.01), "{e:?}");
        assert_eq!(Trinomial::default().elo(), None);
    }

    #[test]
    fn pentanomial_counts_and_elo() {
        let mut p = Pentanomial::default();
        p.add(GameScore::Win, GameScore::Loss);
        p.add(GameScore::Draw, GameScore::Draw);
        p.add(GameScore::Win, GameScore::Win);
        p.add(GameScore::Loss, GameScore::Draw);
        assert_eq!(p.counts, [0, 1, 2, 0, 1]);

        // Pairs [LL LD DD/WL WD WW] = [5, 20, 50, 20, 5] (100 pairs): symmetric, μ = ½.
        // var = (5·0.25 + 20·0.0625 + 50·0 + 20·0.0625 + 5·0.25)/100 = 0.05;
        // se = √(0.05/100) = 0.0223607, half = 0.0438262 in score,
        // × 694.871 = 30.454 in Elo.
        let p = Pentanomial {
            counts: [5, 20, 50, 20, 5],
        };
        let e = p.elo().unwrap();
        assert_eq!(e.elo, 0.0);
        assert!(close(e.upper, 30.454, 0.01), "{e:?}");
        // nElo: σ = √(2·0.05) = 0.316228; upper = 0.0438262 / 0.316228 · 347.436 = 48.15.
        let n = p.normalized_elo().unwrap();
        assert_eq!(n.elo, 0.0);
        assert!(close(n.upper, 48.15, 0.01), "{n:?}");
    }

    #[test]
    fn identical_samples_leave_the_interval_unknown() {
        let e = elo_of_bins(&[(0.5, 7.0)]).expect("samples");
        assert!(close(e.elo, 0.0, 1e-9));
        assert!(e.error().is_nan());
        assert_eq!(e.to_string(), "+0.0 ± n/a");
        assert!(elo_of_bins(&[]).is_none());
    }

    #[test]
    fn error_bar_once_finite_stays_finite() {
        // W D L: s = ½, finite. One more win: s = 0.625 with 4 games, whose
        // score interval (0.625 ± 0.406) passed 1 and read `± inf`.
        let t = Trinomial {
            wins: 2,
            draws: 1,
            losses: 1,
        };
        let e = t.elo().unwrap();
        assert!(e.error().is_finite(), "{e:?}");
        assert!(
            close(e.elo, 88.74, 0.01) && close(e.error(), 301.13, 0.01),
            "{e:?}"
        );
        assert_eq!(e.to_string(), "+88.7 ± 301.1");

        // Every sequence of up to 8 games, and of up to 5 pairs: once the
        // bar is finite, it never turns infinite (nor unknown) again.
        let scores = [GameScore::Win, GameScore::Draw, GameScore::Loss];
        for code in 0..3usize.pow(8) {
            let (mut t, mut c, mut finite) = (Trinomial::default(), code, false);
            for _ in 0..8 {
                t.add(scores[c % 3]);
                c /= 3;
                let bar = t.elo().unwrap().error();
                assert!(!finite || bar.is_finite(), "{t:?}");
                finite |= bar.is_finite();
            }
        }
        for code in 0..5usize.pow(5) {
            let (mut p, mut c, mut finite) = (Pentanomial::default(), code, false);
            for _ in 0..5 {
                p.counts[c % 5] += 1;
                c /= 5;
                let bar = p.elo().unwrap().error();
                assert!(!finite || bar.is_finite(), "{p:?}");
                finite |= bar.is_finite();
            }
        }
    }
}
