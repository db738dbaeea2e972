//! Time allocation: turns [`Limits`] into a soft bound (no new iteration
//! after it) and a hard bound (the search is aborted at it), both measured
//! from the moment the clocks start — the `go`, or `ponderhit` for a ponder
//! search.

use std::time::Duration;

use crate::{Clock, Limits};

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
/// Sudden death: the share of the remaining time one move may plan for.
const SUDDEN_DEATH_MOVES: u32 = 30;
/// The hard bound is this many times the soft one, …
const HARD_FACTOR: u32 = 4;
/// … but never more than this share of the usable time (per mille).
const HARD_SHARE_PER_MILLE: u32 = 600;
/// After a ponder hit, the hard bound is at most this many times the soft.
const PONDER_HARD_FACTOR: u32 = 2;

/// The time bounds of one search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimeBudget {
    /// Do not start another iteration after this.
    pub(crate) soft: Option<Duration>,
    /// Abort the search at this.
    pub(crate) hard: Option<Duration>,
}

impl TimeBudget {
    /// The bounds for `limits`; `None` fields mean unlimited.
    pub(crate) fn new(limits: &Limits) -> TimeBudget {
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
        TimeBudget { soft, hard }
    }
}

/// Soft and hard bounds for a clock.
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
        .map_or(SUDDEN_DEATH_MOVES, |m| m.min(50));
    let inc = clock.increment * 3 / 4;
    let cap = usable * HARD_SHARE_PER_MILLE / 1000;
    let soft = (usable / moves + inc)
        .min(cap)
        .max(Duration::from_millis(1));
    let hard = (soft * HARD_FACTOR).min(cap).max(soft);
    (soft, hard)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
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
                hard: None
            }
        );
    }
}
