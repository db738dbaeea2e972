//! The root of the search: the root moves with their scores and lines,
//! the iterative-deepening loop with its aspiration windows, the root
//! pass over the moves (with the favoured move's head start), when to
//! stop between iterations, and the reports built from the root moves.
//! The interior nodes are searched by the parent module.

use std::sync::atomic::Ordering;
use std::time::Duration;

use arrayvec::ArrayVec;
use board::Move;

use super::{Mode, NodeKind, Search, rule};
use crate::history::QuietContext;
use crate::movepick;
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
    nodes: u64,
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

/// First aspiration half-window, centipawns.
const ASPIRATION_WINDOW: i32 = 24;
/// Depth from which aspiration windows are used.
const ASPIRATION_DEPTH: u32 = 5;
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
    /// The internal score of the best root move (head start included) and
    /// its line as a report at `depth`, once the search has ended.
    pub(crate) fn best_line(&self, depth: u32) -> Option<(i32, Report)> {
        let best = self.root_moves.first()?;
        let raw = best.settled_score();
        Some((raw, self.report(depth, 0)))
    }

    /// Runs the iterative deepening loop and returns the result; `on_event`
    /// receives the reports.
    pub(crate) fn iterate(&mut self, on_event: &mut dyn FnMut(Event)) -> SearchResult {
        let result = self.iterate_inner(on_event);
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

    fn iterate_inner(&mut self, on_event: &mut dyn FnMut(Event)) -> SearchResult {
        if let Some(net) = self.net {
            self.acc.reset(net, &self.pos);
        }
        let mut result = SearchResult {
            best: None,
            ponder: None,
            score: Score::Cp(self.evaluate()),
            rule: None,
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
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
        let multipv = self.limits.multipv.clamp(1, self.root_moves.len());
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
                self.aspiration(depth, pv_idx, on_event);
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
                on_event(Event::Iteration(self.report(depth, pv_idx)));
            }
            if self.iteration_ends_search(depth) {
                break;
            }
        }
        let best = &self.root_moves[0];
        let score = best.settled_score();
        let (score, rule) = rule::public_score(&self.pos, self.own_score(best.mv, score), &best.pv);
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
        if self.limits.nodes.is_some_and(|n| self.total_nodes() >= n) {
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

    /// Searches root line `pv_idx` at `depth` with an aspiration window
    /// around the last score, widening on failure.
    fn aspiration(&mut self, depth: u32, pv_idx: usize, on_event: &mut dyn FnMut(Event)) {
        let prev = self.root_moves[pv_idx].prev_score;
        let mut delta = ASPIRATION_WINDOW;
        let (mut alpha, mut beta) = if depth >= ASPIRATION_DEPTH && !is_decisive(prev) {
            ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let score = self.root_search(depth as i32, alpha, beta, pv_idx, on_event);
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
            delta += delta / 2 + 8;
            if delta > 1000 {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    /// Initial root order: captures by MVV/LVA, then the rest by history.
    fn order_root(&mut self, moves: &[Move]) {
        let hit = self.tt.probe(self.pos.key(), 0);
        self.root_moves.clear();
        self.root_moves.extend(
            movepick::sorted(&self.pos, self.h, moves, hit.moves())
                .into_iter()
                .map(RootMove::new),
        );
    }

    /// One pass over the root moves from `pv_idx` on with window
    /// `[alpha, beta]`; afterwards they are sorted best first.
    fn root_search(
        &mut self,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        pv_idx: usize,
        on_event: &mut dyn FnMut(Event),
    ) -> i32 {
        self.nodes += 1;
        self.stack.clear_pv(0);
        for rm in &mut self.root_moves[pv_idx..] {
            rm.score = -INFINITE;
        }
        let mut best = -INFINITE;
        let mut best_move = None;
        let alpha_orig = alpha;
        let in_check = self.pos.in_check();
        for i in pv_idx..self.root_moves.len() {
            let mv = self.root_moves[i].mv;
            on_event(Event::CurrMove {
                mv,
                number: i + 1,
                depth: depth as u32,
            });
            let quiet = !self.pos.is_capture(mv);
            // A favoured move is searched with the window shifted down by
            // its head start, so its score is compared as score + head start.
            let head_start = self.head_start(mv);
            let (a, b) = (
                (alpha - head_start).max(-INFINITE),
                (beta - head_start).max(-INFINITE + 1),
            );
            self.stack[0].moved = self.piece_to(mv);
            let nodes_before = self.nodes;
            self.make(mv);
            let gives_check = self.pos.in_check();
            let new_depth = depth - 1 + i32::from(gives_check);
            let score = if i == pv_idx {
                -self.search(-b, -a, new_depth, 1, NodeKind::Pv)
            } else {
                let r = if depth >= 3 && quiet && !gives_check && !in_check && i >= pv_idx + 4 {
                    (self.reduction(depth, i - pv_idx) - 1).max(0)
                } else {
                    0
                };
                self.search_late_move(a, b, new_depth, r, 0, true)
            };
            let score = if !is_decisive(score) {
                score + head_start
            } else {
                score
            };
            self.unmake();
            self.root_moves[i].nodes += self.nodes - nodes_before;
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
            }
            let rm = &mut self.root_moves[i];
            if i == pv_idx || score > alpha {
                rm.score = score;
                rm.pv.clear();
                rm.pv.push(mv);
                rm.pv.extend(self.stack.pv(1).take(MAX_PLY - 1));
                if score > alpha {
                    best_move = Some(mv);
                    if quiet && let Some(pt) = self.piece_to(mv) {
                        self.h
                            .update_quiet((mv, pt), &[], QuietContext::default(), depth, false);
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        sort_by_score(&mut self.root_moves[pv_idx..]);
        // With a head start the root scores are not the position's own.
        if !self.stopped && pv_idx == 0 && self.limits.favoured.is_none() {
            let bound = Bound::of_result(best, alpha_orig, beta);
            self.store(self.pos.key(), 0, best_move, best, depth, bound);
        }
        best
    }

    /// The head start of root move `mv` (see [`crate::Favoured`]).
    fn head_start(&self, mv: Move) -> i32 {
        match self.limits.favoured {
            Some(f) if f.mv == mv => f.margin.clamp(0, 1000),
            _ => 0,
        }
    }

    /// A root move's score without its head start, as reported.
    fn own_score(&self, mv: Move, s: i32) -> i32 {
        if !is_decisive(s) {
            s - self.head_start(mv)
        } else {
            s
        }
    }

    /// The report for line `pv_idx` after iteration `depth`.
    fn report(&self, depth: u32, pv_idx: usize) -> Report {
        let rm = &self.root_moves[pv_idx];
        let raw = rm.settled_score();
        let (score, rule) = rule::public_score(&self.pos, self.own_score(rm.mv, raw), &rm.pv);
        let time = self.elapsed();
        let nanos = time.as_nanos().max(1);
        let nodes = self.total_nodes();
        Report {
            depth,
            seldepth: self.seldepth.max(depth as usize) as u32,
            multipv: pv_idx + 1,
            score,
            bound: Bound::Exact,
            rule,
            nodes,
            nps: u64::try_from(u128::from(nodes) * 1_000_000_000 / nanos).unwrap_or(u64::MAX),
            time,
            hashfull: self.tt.hashfull(),
            pv: rm.pv.to_vec(),
        }
    }
}
