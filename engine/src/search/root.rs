//! The root of the search: the root moves with their scores and lines,
//! the iterative-deepening loop with its aspiration windows, when to stop
//! between iterations, the reports built from the root moves, and the
//! hooks through which the one node function (`node`'s `search`) does the
//! root's own duties at ply 0: which moves it searches and in what order
//! ([`Search::next_root_move`]), the per-move node counts, the `currmove`
//! reports and the recording of each root move's score and line.
//!
//! The root searches its moves in the root list's order, the last pass's
//! best first, because that order already holds what every earlier
//! iteration learnt about these very moves, which no history table holds
//! as well. Its other differences from an interior node are branches on
//! `root` in the node function, each with its reason; `node`'s module doc
//! lists them.

use std::sync::atomic::Ordering;

use arrayvec::ArrayVec;
use board::Move;

use super::{Mode, NodeKind, Search, rule};
use crate::movepick::{MoveClass, MovePicker, QuietOrder};
use crate::params;
use crate::score::{Bound, INFINITE, MATE, MATE_BOUND, MAX_DEPTH, MAX_PLY, Score, is_decisive};
use crate::{Event, Report, SearchResult};

/// A root move with its scores and line.
#[derive(Clone, Debug)]
pub(super) struct RootMove {
    pub(super) mv: Move,
    /// This iteration's score, `-INFINITE` until searched.
    pub(super) score: i32,
    /// The last completed iteration's score.
    pub(super) prev_score: i32,
    /// The line the score belongs to, starting with `mv`.
    pub(super) pv: ArrayVec<Move, MAX_PLY>,
    /// Nodes this thread spent on the move in the current iteration
    /// (aspiration re-searches included), for the time signals.
    pub(super) nodes: u64,
}

/// Sorts root moves best first, stably (equal scores keep their order),
/// in place: the library's stable sort would allocate a buffer of root
/// moves on every pass, and there are at most a few dozen.
fn sort_by_score(moves: &mut [RootMove]) {
    for i in 1..moves.len() {
        let mut j = i;
        while j > 0 && moves[j - 1].score < moves[j].score {
            moves.swap(j - 1, j);
            j -= 1;
        }
    }
}

impl RootMove {
    /// A root move not searched yet.
    fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -INFINITE,
            prev_score: -INFINITE,
            pv: std::iter::once(mv).collect(),
            nodes: 0,
        }
    }

    /// The score of the latest iteration that searched this move: this
    /// one's if it got to the move, else the last completed one's.
    fn settled_score(&self) -> i32 {
        if self.score == -INFINITE {
            self.prev_score
        } else {
            self.score
        }
    }
}

impl<M: Mode> Search<'_, M> {
    /// The internal score of the best root move and its line as a report
    /// at `depth`, once the search has ended.
    pub(crate) fn best_line(&self, depth: u32) -> Option<(i32, Report)> {
        let best = self.root_moves.first()?;
        let raw = best.settled_score();
        Some((raw, self.report(depth, 0)))
    }

    /// Runs the iterative deepening loop and returns the result; the
    /// search's event callback receives the reports.
    pub(crate) fn iterate(&mut self) -> SearchResult {
        let result = self.iterate_inner();
        // An infinite search, or a ponder search not yet hit, ends only at
        // `stop` (or `ponderhit`), even when it ran out of things to search.
        // Helpers just end: the main thread stops them when it ends. The
        // handle's `stop` and `ponderhit` wake the wait.
        if self.is_main() {
            let control = self.control;
            let infinite = self.limits.infinite;
            control.wake.wait_while(|| {
                let pondering = control.pondering.load(Ordering::SeqCst);
                (infinite || pondering) && !control.stop.load(Ordering::SeqCst)
            });
        }
        result
    }

    fn iterate_inner(&mut self) -> SearchResult {
        if let Some(net) = self.net {
            self.acc.reset(net, &self.pos);
        }
        let mut result = SearchResult {
            score: Score::Cp(self.evaluate()),
            ..SearchResult::empty()
        };
        let legal = self.pos.legal_moves();
        let allowed: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|m| self.limits.root_moves.is_empty() || self.limits.root_moves.contains(m))
            .collect();
        if self.limits.depth == Some(0) {
            return result;
        }
        if allowed.is_empty() {
            // No legal move: lost (mate or stalemate); no allowed move: no answer.
            result.score = if legal.is_empty() {
                Score::Mate(0)
            } else {
                Score::Cp(0)
            };
            return result;
        }
        self.order_root(&allowed);
        // Helpers ignore the depth limit, like the clock: they keep every
        // core busy until the main thread has completed the last iteration
        // and stops them (and the move is then the main thread's).
        let max_depth = self
            .limits
            .depth
            .filter(|_| self.is_main())
            .map_or(MAX_DEPTH, |d| d.min(MAX_DEPTH));
        let lines = self.limits.weakening.map_or(1, |w| w.candidates);
        let multipv = self
            .limits
            .multipv
            .max(lines)
            .clamp(1, self.root_moves.len());
        let mut completed = 0;
        for depth in 1..=max_depth {
            if self.skips(depth) {
                continue;
            }
            self.root_depth = depth as i32;
            // The main thread always completes its first iteration; a
            // helper stops whenever the main thread does.
            self.may_stop = depth > 1 || !self.is_main();
            for rm in self.root_moves.iter_mut() {
                rm.prev_score = rm.settled_score();
                rm.nodes = 0;
            }
            for pv_idx in 0..multipv {
                self.seldepth = 0;
                self.pv_idx = pv_idx;
                self.aspiration(depth);
                if self.stopped {
                    break;
                }
            }
            if self.stopped {
                break;
            }
            // Each line is its own search, started from what the earlier
            // ones left in the table and histories, so a later line can
            // come out above an earlier one: lines are reported, and the
            // move is chosen, in score order (stable, so ties keep the
            // search's order).
            sort_by_score(&mut self.root_moves[..multipv]);
            completed = depth;
            let best = &self.root_moves[0];
            let all_nodes = self.root_moves.iter().map(|rm| rm.nodes).sum();
            self.signals
                .record(best.mv, best.score, best.nodes, all_nodes);
            for pv_idx in 0..multipv {
                let report = self.report(depth, pv_idx);
                (self.on_event)(Event::Iteration(report));
            }
            if self.iteration_ends_search(depth) {
                break;
            }
        }
        let chosen = self.limits.weakening.map_or(0, |w| {
            let scores: ArrayVec<i32, 16> = self.root_moves[..multipv.min(16)]
                .iter()
                .map(RootMove::settled_score)
                .collect();
            crate::weaken::choose(&w, &scores)
        });
        let best = &self.root_moves[chosen];
        let score = best.settled_score();
        let (score, rule) = rule::public_score(&self.pos, score, &best.pv);
        result.best = Some(best.mv);
        result.ponder = best
            .pv
            .get(1)
            .copied()
            .or_else(|| self.ponder_from_table(best.mv));
        result.score = score;
        result.rule = rule;
        result.depth = completed;
        result.nodes = self.nodes;
        result.time = self.elapsed();
        result
    }

    /// A reply to `best` from the table, for when the PV was cut short
    /// (a table cut-off right below the root): checked for legality.
    fn ponder_from_table(&self, best: Move) -> Option<Move> {
        let mut p = self.pos.clone();
        p.make_move(best);
        let hit = self.tt.probe(p.key(), 1);
        hit.moves().into_iter().flatten().find(|&m| p.is_legal(m))
    }

    /// Whether to stop after completing iteration `depth`.
    fn iteration_ends_search(&self, depth: u32) -> bool {
        // Helpers search on until the main thread stops them (or to the
        // depth limit).
        if !self.is_main() {
            return false;
        }
        let best = self.root_moves[0].score;
        if let Some(m) = self.limits.mate
            && best >= MATE_BOUND
            && MATE - best < 2 * m as i32
        {
            return true;
        }
        if self.node_budget_spent() || self.soft_node_budget_spent() {
            return true;
        }
        if self.limits.infinite || self.control.pondering.load(Ordering::Relaxed) {
            return false;
        }
        let timed = self.limits.clock.is_some() || self.limits.movetime.is_some();
        // A forced reply needs no thought when the clock runs.
        if timed && self.root_moves.len() == 1 && depth >= 1 && self.limits.clock.is_some() {
            return true;
        }
        self.budget
            .scaled_soft(self.signals)
            .is_some_and(|soft| self.clock_elapsed() >= soft)
    }

    /// Searches the current root line at `depth` with an aspiration
    /// window around its last score, widening on failure. After each
    /// search the line's root moves are sorted best first.
    fn aspiration(&mut self, depth: u32) {
        let prev = self.root_moves[self.pv_idx].prev_score;
        let mut delta = params::aspiration_window();
        let (mut alpha, mut beta) =
            if depth as i32 >= params::aspiration_depth() && !is_decisive(prev) {
                ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
            } else {
                (-INFINITE, INFINITE)
            };
        loop {
            for rm in &mut self.root_moves[self.pv_idx..] {
                rm.score = -INFINITE;
            }
            let score = self.search(alpha, beta, depth as i32, 0, NodeKind::Pv);
            sort_by_score(&mut self.root_moves[self.pv_idx..]);
            if self.stopped {
                return;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
            } else {
                return;
            }
            delta += delta / 2 + params::aspiration_widen();
            if delta > 1000 {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    /// The root moves (`moves`, the allowed ones) in their first order:
    /// the picker's, with no killers or countermove yet. Each pass then
    /// sorts them by its scores, best first, and the next pass searches
    /// them in that order.
    fn order_root(&mut self, moves: &[Move]) {
        let table = self.tt.probe(self.pos.key(), 0).moves();
        let mut picker = MovePicker::new(table, QuietOrder::default());
        self.root_moves.clear();
        while let Some((mv, _, _)) = picker.next(&self.pos, self.h) {
            // The picker may hand a table move out twice.
            if moves.contains(&mv) && !self.root_moves.iter().any(|rm| rm.mv == mv) {
                self.root_moves.push(RootMove::new(mv));
            }
        }
        // Moves the picker leaves out (none, as `movepick`'s tests check
        // against full generation) still get searched.
        for &mv in moves {
            if !self.root_moves.iter().any(|rm| rm.mv == mv) {
                self.root_moves.push(RootMove::new(mv));
            }
        }
    }

    /// The root's next move and where it stands in the root list: the
    /// current line's moves (those from `pv_idx` on) in the list's order,
    /// `next` counting those handed out. The line's first move is its best
    /// of the last pass and goes as the table's move; the others go as
    /// captures or quiet moves, so that quiet ones are reduced when late.
    pub(super) fn next_root_move(&self, next: &mut usize) -> Option<(usize, Move, MoveClass)> {
        let i = self.pv_idx + *next;
        let mv = self.root_moves.get(i)?.mv;
        *next += 1;
        let class = if i == self.pv_idx {
            MoveClass::TableMove
        } else if self.pos.is_capture(mv) {
            MoveClass::GoodCapture
        } else {
            MoveClass::Quiet
        };
        Some((i, mv, class))
    }

    /// Tells the caller which root move is searched now, as the
    /// `searched`-th of the line.
    pub(super) fn report_currmove(&mut self, mv: Move, searched: usize) {
        let event = Event::CurrMove {
            mv,
            number: self.pv_idx + searched + 1,
            depth: self.root_depth as u32,
        };
        (self.on_event)(event);
    }

    /// Records root move `i`'s result of this pass: a score that is the
    /// line's first or beats alpha is kept with its line; any other only
    /// bounds the move from above and leaves it unsearched (`-INFINITE`),
    /// so that it sorts after those with a score.
    pub(super) fn record_root_move(&mut self, i: usize, score: i32, kept: bool) {
        let rm = &mut self.root_moves[i];
        if kept {
            rm.score = score;
            rm.pv.clear();
            rm.pv.push(rm.mv);
            rm.pv.extend(self.stack.pv(1).take(MAX_PLY - 1));
        } else {
            rm.score = -INFINITE;
        }
    }

    /// The report for line `pv_idx` after iteration `depth`.
    fn report(&self, depth: u32, pv_idx: usize) -> Report {
        let rm = &self.root_moves[pv_idx];
        let raw = rm.settled_score();
        let (score, rule) = rule::public_score(&self.pos, raw, &rm.pv);
        let time = self.elapsed();
        let nodes = self.total_nodes();
        Report {
            depth,
            seldepth: self.seldepth.max(depth as usize) as u32,
            multipv: pv_idx + 1,
            score,
            bound: Bound::Exact,
            rule,
            nodes,
            nps: crate::report::nodes_per_second(nodes, time),
            time,
            hashfull: self.tt.hashfull(),
            pv: rm.pv.to_vec(),
        }
    }
}
