//! The check a book move passes before it is played
//! (`docs/book-formats.md` §3, `docs/ucci.md` §4): its searches, their
//! limits and the verdict. It stops a book blunder, not a main line.
//!
//! The check is a short state machine that [`super::Go`] drives, one
//! engine search per step, so that a front end answers `isready`, `stop`
//! and `quit` during it as during any search:
//!
//! 1. Search every allowed move to [`CHECK_DEPTH`], bounded also by the
//!    `go`'s own clock or `movetime`. If the book move comes out best, it
//!    is played.
//! 2. Otherwise search the book move alone to the same depth: no clock (the
//!    engine plays a lone root move after one iteration under a clock),
//!    but within the `go`'s remaining `movetime`, half the clock left and
//!    as many nodes as the first search took (at least
//!    [`MIN_BOOK_NODES`]). One move on the table the first search filled
//!    costs less than all of them, so the whole check takes at most about
//!    twice the first search's time, which the clock bounds.
//! 3. If the first search's best move scores more than [`REFUSAL_MARGIN`]
//!    above the book move, the book move is refused and the position is
//!    searched with the `go`'s limits, less the time the check took.
//!    Otherwise the book move is played.
//!
//! A search that ends short of [`CHECK_DEPTH`] (a clock too short for the
//! check) gives no verdict, and the book move is played: the check needs
//! a search of meaningful depth to overrule master games. This module
//! decides; [`super::Go`] starts the searches, and the front end prints
//! the [`Verdict`].

use std::time::Duration;

use board::Move;

use crate::{Limits, Score, SearchResult};

/// The depth both searches of the check complete before the book move can
/// be refused. At depth 6 the search sees a piece left hanging, or lost to
/// a short combination, through the quiescence search; and from the start
/// position the two searches take 20,165 and 3,439 nodes (one thread, an
/// empty table), some 25 ms, so a book move comes well within 100 ms.
pub const CHECK_DEPTH: u32 = 6;

/// How many centipawns the best move must score above the book move, both
/// searched to [`CHECK_DEPTH`], for the book move to be refused: more than
/// a third of a chariot. A horse (420) or a cannon (460) lost for nothing
/// exceeds it. Searched so, the best move and the book's moves differ by
/// up to 296 cp over the 2,779 moves of the built-in book's main lines to
/// ply 16 (median 34; `docs/book-formats.md` §3 has the measurement), so no
/// main line comes near it.
pub const REFUSAL_MARGIN: i32 = 350;

/// The fewest nodes the second search may take, whatever the first took:
/// room for depth [`CHECK_DEPTH`] where the first search found most of
/// its answers in the table. (Over the built-in book's main lines the
/// second search never needed more nodes than the first:
/// `examples/book_check_gaps.rs` reports no check left unfinished.)
pub const MIN_BOOK_NODES: u64 = 20_000;

/// A book move under check, with the `go`'s limits and the first search's
/// result once it has one.
#[derive(Clone, Debug)]
pub struct BookCheck {
    mv: Move,
    /// The limits of the `go` (clock or `movetime` only: the book is not
    /// asked otherwise).
    limits: Limits,
    /// The first search's result, once it has ended with another move.
    best: Option<SearchResult>,
}

/// What follows a search of the check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Run this search next: the book move alone.
    Search(Limits),
    /// Play the book move.
    Play(Verdict),
    /// The book move is refused: search the position with these limits
    /// and play the search's move.
    Refuse(Verdict, Limits),
}

/// Why the book move is played or refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The search of every move chose the book move.
    Agreed {
        /// The depth it reached.
        depth: u32,
    },
    /// A search ended short of [`CHECK_DEPTH`]; the book move is played
    /// unchecked.
    Unchecked {
        /// The depth it reached.
        depth: u32,
    },
    /// Another move scores better, by `gap` (within the margin: played;
    /// beyond it: refused).
    Compared {
        /// The search's best move.
        best: Move,
        /// Its score.
        best_score: Score,
        /// The book move's score.
        book_score: Score,
        /// `best_score − book_score` as [`Score::value`] gives them.
        gap: i32,
    },
}

impl BookCheck {
    /// Starts checking book move `mv` for a `go` with `limits`; returns
    /// the check and the limits of its first search.
    pub fn new(mv: Move, limits: Limits) -> (BookCheck, Limits) {
        let first = Limits {
            depth: Some(CHECK_DEPTH),
            ..limits.clone()
        };
        let check = BookCheck {
            mv,
            limits,
            best: None,
        };
        (check, first)
    }

    /// The book move.
    pub fn book_move(&self) -> Move {
        self.mv
    }

    /// What follows a search of the check that ended with `result`,
    /// `elapsed` after the `go`.
    pub fn next(&mut self, result: &SearchResult, elapsed: Duration) -> Step {
        let Some(first) = &self.best else {
            if result.best == Some(self.mv) {
                return Step::Play(Verdict::Agreed {
                    depth: result.depth,
                });
            }
            if result.depth < CHECK_DEPTH || result.best.is_none() {
                return Step::Play(Verdict::Unchecked {
                    depth: result.depth,
                });
            }
            self.best = Some(result.clone());
            let charged = charge(&self.limits, elapsed);
            // Never more than half the clock left, whatever the nodes.
            let half_clock = charged.clock.map(|c| c.time / 2);
            let movetime = match (charged.movetime, half_clock) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            return Step::Search(Limits {
                depth: Some(CHECK_DEPTH),
                nodes: Some(result.nodes.max(MIN_BOOK_NODES)),
                movetime,
                clock: None,
                root_moves: vec![self.mv],
                ..charged
            });
        };
        if result.depth < CHECK_DEPTH {
            return Step::Play(Verdict::Unchecked {
                depth: result.depth,
            });
        }
        let Some(best) = first.best else {
            return Step::Play(Verdict::Unchecked { depth: 0 });
        };
        let gap = first.score.value() - result.score.value();
        let verdict = Verdict::Compared {
            best,
            best_score: first.score,
            book_score: result.score,
            gap,
        };
        if gap > REFUSAL_MARGIN {
            Step::Refuse(verdict, charge(&self.limits, elapsed))
        } else {
            Step::Play(verdict)
        }
    }
}

impl Verdict {
    /// Whether the book move is refused: another move scores more than
    /// [`REFUSAL_MARGIN`] above it.
    pub fn refuses(&self) -> bool {
        matches!(self, Verdict::Compared { gap, .. } if *gap > REFUSAL_MARGIN)
    }
}

/// `limits` with the time already spent taken off the clock and the fixed
/// move time.
fn charge(limits: &Limits, elapsed: Duration) -> Limits {
    let mut limits = limits.clone();
    if let Some(clock) = &mut limits.clock {
        clock.time = clock.time.saturating_sub(elapsed);
    }
    if let Some(movetime) = &mut limits.movetime {
        *movetime = movetime.saturating_sub(elapsed);
    }
    limits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Clock;

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    fn result(best: &str, score: Score, depth: u32, nodes: u64) -> SearchResult {
        SearchResult {
            best: Some(mv(best)),
            ponder: None,
            score,
            rule: None,
            depth,
            nodes,
            time: Duration::ZERO,
        }
    }

    fn go_limits() -> Limits {
        Limits {
            clock: Some(Clock {
                time: Duration::from_secs(60),
                increment: Duration::from_secs(1),
                ..Clock::default()
            }),
            movetime: Some(Duration::from_secs(5)),
            ..Limits::default()
        }
    }

    #[test]
    fn the_first_search_keeps_the_go_limits_and_adds_the_depth() {
        let (check, first) = BookCheck::new(mv("h2e2"), go_limits());
        assert_eq!(check.book_move(), mv("h2e2"));
        assert_eq!(
            first,
            Limits {
                depth: Some(CHECK_DEPTH),
                ..go_limits()
            }
        );
    }

    #[test]
    fn a_book_move_the_search_agrees_with_is_played_at_once() {
        let (mut check, _) = BookCheck::new(mv("h2e2"), go_limits());
        let step = check.next(&result("h2e2", Score::Cp(30), 6, 30_000), Duration::ZERO);
        assert_eq!(step, Step::Play(Verdict::Agreed { depth: 6 }));
        // Even short of the depth: the search had nothing better.
        let (mut check, _) = BookCheck::new(mv("h2e2"), go_limits());
        let step = check.next(&result("h2e2", Score::Cp(30), 2, 300), Duration::ZERO);
        assert_eq!(step, Step::Play(Verdict::Agreed { depth: 2 }));
    }

    #[test]
    fn the_second_search_is_the_book_move_alone_without_the_clock() {
        let (mut check, _) = BookCheck::new(mv("h2e2"), go_limits());
        let ms = Duration::from_millis;
        let step = check.next(&result("b2e2", Score::Cp(40), 6, 30_000), ms(40));
        let Step::Search(second) = step else {
            panic!("{step:?}");
        };
        assert_eq!(
            second,
            Limits {
                depth: Some(CHECK_DEPTH),
                nodes: Some(30_000),
                movetime: Some(ms(4_960)),
                root_moves: vec![mv("h2e2")],
                ..Limits::default()
            }
        );
        // A first search that found its answers in the table still leaves
        // the second room; on a clock alone, half the clock left bounds it.
        let clock_only = Limits {
            movetime: None,
            ..go_limits()
        };
        let (mut check, _) = BookCheck::new(mv("h2e2"), clock_only);
        let Step::Search(second) = check.next(&result("b2e2", Score::Cp(40), 6, 50), ms(1000))
        else {
            panic!("no second search");
        };
        assert_eq!(second.nodes, Some(MIN_BOOK_NODES));
        assert_eq!(second.movetime, Some(ms(29_500)));
        assert_eq!(second.clock, None);
    }

    fn verdict_after(best: Score, book: Score) -> Step {
        let (mut check, _) = BookCheck::new(mv("h2e2"), go_limits());
        let first = check.next(&result("b2e2", best, 6, 30_000), Duration::ZERO);
        assert!(matches!(first, Step::Search(_)), "{first:?}");
        check.next(&result("h2e2", book, 6, 5_000), Duration::from_millis(100))
    }

    #[test]
    fn only_a_clear_loss_is_refused() {
        let compared = |best_score, book_score, gap| Verdict::Compared {
            best: mv("b2e2"),
            best_score,
            book_score,
            gap,
        };
        let (cp, mate) = (Score::Cp, Score::Mate);
        // A main line a little worse than the search's choice is played.
        assert_eq!(
            verdict_after(cp(40), cp(-10)),
            Step::Play(compared(cp(40), cp(-10), 50))
        );
        assert_eq!(
            verdict_after(cp(300), cp(-50)),
            Step::Play(compared(cp(300), cp(-50), REFUSAL_MARGIN))
        );
        // One centipawn more is a blunder: the go's limits, less the
        // time the check took, search for another move.
        let mut rest = go_limits();
        if let Some(c) = &mut rest.clock {
            c.time = Duration::from_millis(59_900);
        }
        rest.movetime = Some(Duration::from_millis(4_900));
        assert_eq!(
            verdict_after(cp(300), cp(-51)),
            Step::Refuse(compared(cp(300), cp(-51), REFUSAL_MARGIN + 1), rest.clone())
        );
        // A book move into a mate, or past a mate, is refused too.
        assert!(matches!(
            verdict_after(cp(0), mate(-4)),
            Step::Refuse(Verdict::Compared { .. }, _)
        ));
        assert!(matches!(
            verdict_after(mate(3), cp(200)),
            Step::Refuse(Verdict::Compared { .. }, _)
        ));
    }

    #[test]
    fn a_search_short_of_the_depth_gives_no_verdict() {
        let (mut check, _) = BookCheck::new(mv("h2e2"), go_limits());
        let step = check.next(&result("b2e2", Score::Cp(900), 3, 900), Duration::ZERO);
        assert_eq!(step, Step::Play(Verdict::Unchecked { depth: 3 }));
        let (mut check, _) = BookCheck::new(mv("h2e2"), go_limits());
        let _ = check.next(&result("b2e2", Score::Cp(900), 6, 30_000), Duration::ZERO);
        let step = check.next(&result("h2e2", Score::Cp(-900), 4, 60_000), Duration::ZERO);
        assert_eq!(step, Step::Play(Verdict::Unchecked { depth: 4 }));
    }
}
