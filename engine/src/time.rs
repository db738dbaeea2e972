//! Time allocation: turns [`Limits`] into a soft bound (no new iteration
//! after it) and a hard bound (the search is aborted at it), both measured
//! from the moment the clocks start — the `go`, or `ponderhit` for a ponder
//! search. On a clock the soft bound is then scaled after each iteration by
//! what the search has learnt ([`TimeSignals`]): a best move that keeps
//! changing, a falling score or effort spread over many moves ask for more
//! time; a settled, uncontested move for less.

use std::time::Duration;

use board::Move;

use crate::{Clock, Limits, params};

/// The `Move Overhead` a clock has unless the GUI sets one (Pikafish's
/// default).
pub const DEFAULT_MOVE_OVERHEAD: Duration = Duration::from_millis(10);
/// The engine's own lag margin on a clock, beyond the move overhead: 5 %
/// of the remaining time, between these bounds. With the default move
/// overhead the whole margin is 15 to 50 ms.
const MIN_LAG_MARGIN: Duration = Duration::from_millis(5);
const MAX_LAG_MARGIN: Duration = Duration::from_millis(40);
/// Part of a fixed `movetime` never used, for the GUI's and the OS's lag.
const MOVETIME_MARGIN: Duration = Duration::from_millis(15);
/// After a ponder hit, the hard bound is at most this many times the soft.
const PONDER_HARD_FACTOR: u32 = 2;

/// The time bounds of one search. Public so that a front end can show
/// them (the protocol's debug mode does, for checking a GUI's `Move
/// Overhead`); only the search acts on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    /// Do not start another iteration after this.
    pub(crate) soft: Option<Duration>,
    /// Abort the search at this.
    pub(crate) hard: Option<Duration>,
    /// Whether the soft bound may be scaled by the search's signals: only
    /// a clock's target is an estimate; a fixed `movetime` means exactly
    /// that much.
    adaptive: bool,
}

impl TimeBudget {
    /// No new iteration after this, before the search's signals scale it
    /// (see [`TimeBudget::adaptive`]); `None`: unlimited.
    pub fn soft(&self) -> Option<Duration> {
        self.soft
    }

    /// The search is aborted at this; `None`: unlimited.
    pub fn hard(&self) -> Option<Duration> {
        self.hard
    }

    /// Whether the search scales the soft bound by what its iterations
    /// say (best-move stability, a falling score, the best move's share
    /// of the nodes: ×0.45 to ×2.2, never past the hard bound): on a
    /// clock, not for a fixed `movetime`.
    pub fn adaptive(&self) -> bool {
        self.adaptive
    }

    /// The soft bound after the search's `signals`: scaled on a clock,
    /// never beyond the hard bound; as is otherwise.
    pub(crate) fn scaled_soft(&self, signals: &TimeSignals) -> Option<Duration> {
        let soft = self.soft?;
        if !self.adaptive {
            return Some(soft);
        }
        let scaled = soft.mul_f64(signals.scale());
        Some(self.hard.map_or(scaled, |hard| scaled.min(hard)))
    }

    /// The bounds for `limits`; `None` fields mean unlimited.
    pub fn new(limits: &Limits) -> TimeBudget {
        let mut soft: Option<Duration> = None;
        let mut hard: Option<Duration> = None;
        if let Some(mt) = limits.movetime {
            // A fixed budget: use all of it but the lag margin.
            let margin = (mt / 20).clamp(Duration::from_millis(1), MOVETIME_MARGIN);
            let h = mt.saturating_sub(margin).max(Duration::from_millis(1));
            soft = Some(h);
            hard = Some(h);
        }
        if let Some(clock) = limits.clock {
            let (s, h) = clock_budget(&clock);
            soft = Some(soft.map_or(s, |x| x.min(s)));
            hard = Some(hard.map_or(h, |x| x.min(h)));
        }
        if limits.ponder
            && let (Some(s), Some(h)) = (soft, hard)
        {
            // After `ponderhit` the search already holds the pondering
            // time's depth and the iteration in progress is a long one;
            // finishing it may overrun the target only twice, so the move
            // follows soon after the hit (`docs/ucci.md` §10, case 16:
            // within 1 s on a 10 s clock).
            hard = Some(h.min(s * PONDER_HARD_FACTOR).max(s));
        }
        TimeBudget {
            soft,
            hard,
            adaptive: limits.clock.is_some() && limits.movetime.is_none(),
        }
    }
}

/// What the iterations so far say about how hard the move is, kept by the
/// main thread and read between iterations.
#[derive(Clone, Debug, Default)]
pub(crate) struct TimeSignals {
    /// The best move of the last completed iteration.
    best: Option<Move>,
    /// Completed iterations in a row that kept that best move (0: it just
    /// changed, or the first iteration).
    stable: u32,
    /// The score of each completed iteration, in order.
    scores: Vec<i32>,
    /// The best move's share of the last iteration's root nodes (1.0
    /// before any is known).
    best_share: f64,
}

impl TimeSignals {
    /// Forgets the last search's iterations, keeping the memory.
    pub(crate) fn clear(&mut self) {
        let mut scores = std::mem::take(&mut self.scores);
        scores.clear();
        *self = TimeSignals {
            scores,
            ..TimeSignals::default()
        };
    }

    /// Records a completed iteration: its best move and score, and the
    /// root nodes spent on the best move and on all moves.
    pub(crate) fn record(&mut self, best: Move, score: i32, best_nodes: u64, all_nodes: u64) {
        if self.best == Some(best) {
            self.stable += 1;
        } else {
            self.best = Some(best);
            self.stable = 0;
        }
        self.scores.push(score);
        self.best_share = if all_nodes == 0 {
            1.0
        } else {
            best_nodes as f64 / all_nodes as f64
        };
    }

    /// The factor for the soft bound, in [0.45, 2.2], the product of three
    /// (the figures are the defaults of [`params`]):
    /// - stability: ×1.4 when the best move just changed, falling by 0.1
    ///   per iteration it held, to ×0.8 after six;
    /// - a falling score: against the score three iterations back (the
    ///   first one's early on), ×(1 + drop/300) between ×0.9 and ×1.5, so
    ///   a position going wrong gets time to find a way out;
    /// - effort: ×(1.6 − share) between ×0.7 and ×1.2, where share is the
    ///   best move's part of the last iteration's nodes: when the
    ///   alternatives are refuted cheaply the choice is easy.
    ///
    /// Decisive scores are left out of the drop (a mate score is not a
    /// trend) and the first few iterations are too short to matter.
    pub(crate) fn scale(&self) -> f64 {
        let stability = (per_mille(params::time_stability_base())
            - per_mille(params::time_stability_step()) * f64::from(self.stable.min(6)))
        .max(per_mille(params::time_stability_floor()));
        let now = self.scores.last().copied().unwrap_or(0);
        let then = self
            .scores
            .len()
            .checked_sub(4)
            .map_or(self.scores.first(), |i| self.scores.get(i))
            .copied()
            .unwrap_or(now);
        let falling = if crate::score::is_decisive(now) || crate::score::is_decisive(then) {
            1.0
        } else {
            (1.0 + f64::from(then - now) / f64::from(params::time_falling_divisor()))
                .clamp(0.9, 1.5)
        };
        let effort = (per_mille(params::time_effort_base()) - self.best_share).clamp(0.7, 1.2);
        (stability * falling * effort).clamp(
            per_mille(params::time_min_scale()),
            per_mille(params::time_max_scale()),
        )
    }
}

/// A per-mille parameter as a factor.
fn per_mille(value: i32) -> f64 {
    f64::from(value) / 1000.0
}

/// Soft and hard bounds for a clock (the figures below are the defaults
/// of [`params`]).
///
/// 1. Keep back the move overhead (the GUI's `Move Overhead`) plus a lag
///    margin of 5 % of the clock between 5 and 40 ms, but never more than
///    half the clock: whatever the GUI claims, a move gets some time.
/// 2. The per-move target is the usable time divided by the moves to go
///    (or by 30 in sudden death and Fischer), plus most of the increment.
/// 3. The hard bound allows overrunning the target four times in a hard
///    iteration, capped at 60 % of the usable time so one move never
///    empties the clock.
fn clock_budget(clock: &Clock) -> (Duration, Duration) {
    let overhead = (clock.overhead + (clock.time / 20).clamp(MIN_LAG_MARGIN, MAX_LAG_MARGIN))
        .min(clock.time / 2);
    let usable = clock.time.saturating_sub(overhead);
    let moves = clock
        .moves_to_go
        .filter(|&m| m > 0)
        .map_or(params::time_moves().unsigned_abs(), |m| m.min(50));
    let inc = clock.increment * 3 / 4;
    let cap = usable * params::time_hard_share().unsigned_abs() / 1000;
    let soft = (usable / moves + inc)
        .min(cap)
        .max(Duration::from_millis(1));
    let hard = (soft * params::time_hard_factor().unsigned_abs())
        .min(cap)
        .max(soft);
    (soft, hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn signals(moves: &[(&str, i32)], share: (u64, u64)) -> TimeSignals {
        let mut s = TimeSignals::default();
        for &(m, score) in moves {
            let mv: Move = m.parse().expect("a move");
            s.record(mv, score, share.0, share.1);
        }
        s
    }

    #[test]
    fn a_settled_uncontested_move_takes_less_time() {
        let settled: Vec<(&str, i32)> = (0..8).map(|_| ("h2e2", 30)).collect();
        let easy = signals(&settled, (95, 100));
        // 0.8 (stable) × 1.0 (flat) × 0.7 (95 % of the nodes).
        assert!((easy.scale() - 0.56).abs() < 1e-9, "{}", easy.scale());
        let hard = signals(&[("h2e2", 30), ("b2e2", 30)], (30, 100));
        // 1.4 (just changed) × 1.0 × 1.2 (30 % of the nodes).
        assert!((hard.scale() - 1.68).abs() < 1e-9, "{}", hard.scale());
    }

    #[test]
    fn a_falling_score_asks_for_time_and_the_scale_stays_bounded() {
        let falling = [("h2e2", 80), ("h2e2", 60), ("h2e2", 20), ("h2e2", -70)];
        let s = signals(&falling, (60, 100));
        // Stable for 3: 1.1; drop 150 against 3 back: 1.5; effort 1.0.
        assert!((s.scale() - 1.65).abs() < 1e-9, "{}", s.scale());
        let worst = signals(&[("h2e2", 900), ("b2e2", -900)], (0, 100));
        assert!((worst.scale() - per_mille(params::time_max_scale())).abs() < 1e-9);
        // A mate score is not a trend.
        let mate = signals(&[("h2e2", 0), ("h2e2", -crate::score::MATE + 9)], (50, 100));
        assert!(
            (mate.scale() - 1.3 * 1.0 * 1.1).abs() < 1e-9,
            "{}",
            mate.scale()
        );
    }

    #[test]
    fn movetime_is_not_scaled_and_a_clock_stays_under_its_hard_bound() {
        let busy = signals(&[("h2e2", 900), ("b2e2", -900)], (0, 100));
        let fixed = Limits {
            movetime: Some(ms(1000)),
            ..Limits::default()
        };
        let b = TimeBudget::new(&fixed);
        assert_eq!(b.scaled_soft(&busy), b.soft);
        let clock = Limits {
            clock: Some(Clock {
                time: ms(3000),
                increment: ms(30),
                moves_to_go: None,
                ..Clock::default()
            }),
            ..Limits::default()
        };
        let b = TimeBudget::new(&clock);
        let scaled = b.scaled_soft(&busy).expect("a bound");
        assert!(scaled > b.soft.expect("a bound") * 2 && b.hard.is_some_and(|h| scaled <= h));
    }

    #[test]
    fn sudden_death_one_second_with_increment() {
        let (soft, hard) = clock_budget(&Clock {
            time: ms(1000),
            increment: ms(10),
            moves_to_go: None,
            ..Clock::default()
        });
        // usable = 1000 - 50 = 950; 950/30 = 31.666 ms + 7.5 ms.
        assert_eq!(soft, Duration::from_nanos(39_166_666));
        assert_eq!(hard, soft * 4);
        assert!(hard < ms(570));
    }

    #[test]
    fn nearly_empty_clock_stays_below_it() {
        let (soft, hard) = clock_budget(&Clock {
            time: ms(30),
            increment: ms(10),
            moves_to_go: None,
            ..Clock::default()
        });
        // overhead = 15 ms (half the clock), usable 15, cap 60 % of it.
        assert_eq!(hard, ms(9));
        assert!(soft <= hard);
    }

    #[test]
    fn move_overhead_is_kept_back_from_every_move() {
        let budget = |overhead: u64| {
            clock_budget(&Clock {
                time: ms(3000),
                increment: ms(0),
                moves_to_go: Some(1),
                overhead: ms(overhead),
            })
        };
        // One move to go: the hard cap, 60 % of the usable time, rules.
        // The default (10 ms) keeps the old 50 ms margin on a 3 s clock.
        assert_eq!(budget(10), (ms(1770), ms(1770)));
        assert_eq!(budget(0), (ms(1776), ms(1776)));
        // 1 s overhead + 40 ms margin: usable 1960 ms.
        assert_eq!(budget(1000), (ms(1176), ms(1176)));
        // Never more than half the clock, whatever the GUI says.
        assert_eq!(budget(60_000), (ms(900), ms(900)));
    }

    #[test]
    fn moves_to_go_divides_the_clock() {
        let (soft, _) = clock_budget(&Clock {
            time: ms(60_000),
            increment: ms(0),
            moves_to_go: Some(10),
            ..Clock::default()
        });
        assert_eq!(soft, ms(5_995));
    }

    #[test]
    fn a_ponder_hit_overruns_the_target_at_most_twice() {
        let clock = Clock {
            time: ms(10_000),
            increment: ms(0),
            moves_to_go: None,
            ..Clock::default()
        };
        let normal = TimeBudget::new(&Limits {
            clock: Some(clock),
            ..Limits::default()
        });
        let ponder = TimeBudget::new(&Limits {
            clock: Some(clock),
            ponder: true,
            ..Limits::default()
        });
        // usable 9950 ms: soft 331.666 ms, hard 4 × soft normally.
        assert_eq!(ponder.soft, normal.soft);
        assert_eq!(normal.hard, normal.soft.map(|s| s * 4));
        assert_eq!(ponder.hard, normal.soft.map(|s| s * 2));
        assert!(ponder.hard.is_some_and(|h| h < ms(1000)));
    }

    #[test]
    fn movetime_and_clock_take_the_smaller() {
        let limits = Limits {
            movetime: Some(ms(100)),
            clock: Some(Clock {
                time: ms(60_000),
                increment: ms(0),
                moves_to_go: None,
                ..Clock::default()
            }),
            ..Limits::default()
        };
        let b = TimeBudget::new(&limits);
        assert_eq!(b.hard, Some(ms(95)));
        assert_eq!(
            TimeBudget::new(&Limits::default()),
            TimeBudget {
                soft: None,
                hard: None,
                adaptive: false,
            }
        );
    }
}
