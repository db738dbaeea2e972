//! The search: iterative deepening with aspiration windows over a
//! fail-soft principal-variation search, quiescence, check extension,
//! null-move pruning, late-move reductions and mate-distance pruning.
//!
//! A [`SearchThread`] owns everything one thread mutates (node count, PV,
//! ply stack, statistics) and borrows the [`Histories`] kept between
//! searches, the shared table, the stop flag and the limits. There are no
//! mutable globals, so several threads share one table (Lazy SMP, run by
//! the pool in `pool.rs`): thread 0 is the main thread, which alone reads
//! the clock and reports; helpers skip some depths (`skips`) so that they
//! do not all search the same tree.

use std::sync::atomic::Ordering;
use std::time::Duration;

use board::{Color, Move, MoveList, PieceKind, Position, Reason, Verdict};

use crate::eval::{PIECE_VALUE, evaluate};
pub use crate::history::Histories;
use crate::history::{PieceTo, QuietContext};
use crate::nnue::{AccumulatorStack, Network};
use crate::score::{
    Bound, DRAW, INFINITE, MATE, MATE_BOUND, MAX_PLY, Score, is_decisive, verdict_score,
};
use crate::time::TimeBudget;
use crate::tt::{TranspositionTable, TtHit};
use crate::{Event, Limits, Report, SearchResult, Shared};

/// First aspiration half-window, centipawns.
const ASPIRATION_WINDOW: i32 = 24;
/// Depth from which aspiration windows are used.
const ASPIRATION_DEPTH: u32 = 5;
/// Nodes between clock reads (at a few million nodes per second, well
/// under a millisecond).
const CLOCK_CHECK_NODES: u64 = 1024;
/// With several threads, nodes between publishing this thread's count
/// and checking the total against a node limit (a power of two).
const NODE_SHARE_INTERVAL: u64 = 256;
/// Entries of the per-thread evaluation cache (a power of two).
const EVAL_CACHE_SIZE: usize = 1 << 16;
/// The network's scores are clamped to this, far from the decisive band.
const NET_SCORE_LIMIT: i32 = 10_000;
/// Reverse-futility margin per ply of depth.
const STATIC_NULL_MARGIN: i32 = 110;
/// Futility pruning of quiet moves: the static evaluation plus this and
/// a margin per ply of depth must reach alpha.
const FUTILITY_BASE: i32 = 80;
const FUTILITY_PER_DEPTH: i32 = 110;
/// SEE pruning: up to this depth, captures losing more than
/// `SEE_CAPTURE_MARGIN` per ply and quiet moves losing more than
/// `SEE_QUIET_MARGIN` per ply squared are skipped.
const SEE_PRUNE_DEPTH: i32 = 5;
const SEE_CAPTURE_MARGIN: i32 = 100;
const SEE_QUIET_MARGIN: i32 = 30;
/// History score worth one ply less (or more) of reduction.
const HISTORY_REDUCTION_UNIT: i32 = 8_000;
/// Quiescence delta-pruning margin.
const DELTA_MARGIN: i32 = 150;

/// Ordering scores of the move picker's classes.
const SCORE_HASH: i32 = 1 << 30;
const SCORE_GOOD_CAPTURE: i32 = 1 << 28;
const SCORE_KILLER: i32 = 1 << 27;
const SCORE_BAD_CAPTURE: i32 = -(1 << 28);

/// Move-ordering value of a victim or attacker (MVV/LVA).
const ORDER_VALUE: [i32; PieceKind::NUM] = [50, 2, 2, 4, 9, 5, 1];

/// Table probe statistics of one thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TtStats {
    /// Probes made.
    pub probes: u64,
    /// Probes that found the position.
    pub hits: u64,
    /// Probes whose entry ended the node.
    pub cutoffs: u64,
}

impl std::ops::AddAssign for TtStats {
    fn add_assign(&mut self, o: TtStats) {
        self.probes += o.probes;
        self.hits += o.hits;
        self.cutoffs += o.cutoffs;
    }
}

/// A root move with its scores and line.
#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    /// This iteration's score, `-INFINITE` until searched.
    score: i32,
    /// The last completed iteration's score.
    prev_score: i32,
    pv: Vec<Move>,
}

/// Options of a search that the bench changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Store quiescence (depth-0) results in the table.
    pub store_qs: bool,
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions { store_qs: true }
    }
}

/// One searching thread's state.
pub struct SearchThread<'a> {
    tt: &'a TranspositionTable,
    shared: &'a Shared,
    limits: &'a Limits,
    h: &'a mut Histories,
    budget: TimeBudget,
    options: SearchOptions,
    pos: Position,
    /// Nodes visited (search and quiescence).
    pub nodes: u64,
    /// Table statistics.
    pub tt_stats: TtStats,
    seldepth: usize,
    root_depth: i32,
    stopped: bool,
    /// False during the first iteration, which always completes.
    may_stop: bool,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    root_moves: Vec<RootMove>,
    lmr: Box<[[u8; 64]; 64]>,
    /// Evaluations by full key (`i32::MIN`: empty); per thread, so it
    /// needs no synchronisation and cannot make the bench vary.
    eval_cache: Vec<(u64, i32)>,
    /// The move made at each ply (`None`: a null move), for the
    /// continuation histories and countermoves of the plies below.
    moved: [Option<PieceTo>; MAX_PLY + 2],
    /// The static evaluation at each ply (`None` in check), for the
    /// `improving` test.
    static_evals: [Option<i32>; MAX_PLY + 2],
    /// The neural network, when it evaluates instead of the hand-written
    /// evaluation.
    net: Option<&'a Network>,
    /// The network's accumulators by ply (unused without a network).
    acc: AccumulatorStack,
    /// This thread's place in the pool: 0 is the main thread (clock,
    /// reports, the end of the search), others are helpers.
    id: usize,
}

impl<'a> SearchThread<'a> {
    /// A thread ready to search `pos` (with its game history).
    pub(crate) fn new(
        tt: &'a TranspositionTable,
        shared: &'a Shared,
        limits: &'a Limits,
        pos: Position,
        h: &'a mut Histories,
    ) -> SearchThread<'a> {
        let mut lmr = Box::new([[0u8; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                let v = 0.5 + (d as f64).ln() * (n as f64).ln() / 2.25;
                *r = v.max(0.0) as u8;
            }
        }
        SearchThread {
            tt,
            shared,
            limits,
            h,
            budget: TimeBudget::new(limits),
            options: SearchOptions::default(),
            pos,
            nodes: 0,
            tt_stats: TtStats::default(),
            seldepth: 0,
            root_depth: 0,
            stopped: false,
            may_stop: false,
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            root_moves: Vec::new(),
            lmr,
            eval_cache: vec![(0, i32::MIN); EVAL_CACHE_SIZE],
            moved: [None; MAX_PLY + 2],
            static_evals: [None; MAX_PLY + 2],
            net: None,
            acc: AccumulatorStack::new(MAX_PLY + 1),
            id: 0,
        }
    }

    /// Evaluates with `net` instead of the hand-written evaluation.
    pub(crate) fn set_network(&mut self, net: Option<&'a Network>) {
        self.net = net;
    }

    /// Makes `mv` in the searched position, keeping the accumulators in
    /// step. Every move the search makes goes through here and
    /// [`SearchThread::unmake`].
    #[inline]
    fn make(&mut self, mv: Move) {
        if self.net.is_some() {
            self.acc.push(&self.pos, mv);
        }
        self.pos.make_move(mv);
    }

    /// Takes back the last [`SearchThread::make`].
    #[inline]
    fn unmake(&mut self) {
        if self.net.is_some() {
            self.acc.pop();
        }
        self.pos.unmake_move();
    }

    /// Passes the move (null-move pruning).
    #[inline]
    fn make_null(&mut self) {
        if self.net.is_some() {
            self.acc.push_null();
        }
        self.pos.make_null_move();
    }

    /// Takes back [`SearchThread::make_null`].
    #[inline]
    fn unmake_null(&mut self) {
        if self.net.is_some() {
            self.acc.pop();
        }
        self.pos.unmake_null_move();
    }

    /// The quiet-move context of a node at `ply`: the moves made at the
    /// two plies above it.
    fn quiet_context(&self, ply: usize) -> QuietContext {
        QuietContext {
            prev1: ply.checked_sub(1).and_then(|p| self.moved[p]),
            prev2: ply.checked_sub(2).and_then(|p| self.moved[p]),
        }
    }

    /// Sets the bench's options.
    pub(crate) fn set_options(&mut self, options: SearchOptions) {
        self.options = options;
    }

    /// Makes this thread number `id` of the pool (0, the default, is the
    /// main thread).
    pub(crate) fn set_id(&mut self, id: usize) {
        self.id = id;
    }

    fn is_main(&self) -> bool {
        self.id == 0
    }

    /// Whether a helper leaves out iteration `depth`. Helpers are taken in
    /// groups of twenty; within a group, helper `k` gets a cycle length `c`
    /// (1 for the first two, 2 for the next four, 3 for the next six, 4 for
    /// the last eight) and a phase `p` (its place within those of the same
    /// length), and skips the depths where `(depth + p) / c` is odd. So
    /// helper 1 searches only the even depths, helper 2 only the odd ones,
    /// and longer cycles keep the rest a few iterations apart: at any time
    /// the threads work at mixed depths, and a helper ahead of the main
    /// thread fills the table with entries the main thread's next
    /// iteration uses. The main thread skips nothing.
    fn skips(&self, depth: u32) -> bool {
        if self.is_main() {
            return false;
        }
        let mut k = (self.id - 1) % 20;
        let mut cycle = 1;
        while k >= 2 * cycle {
            k -= 2 * cycle;
            cycle += 1;
        }
        ((depth as usize + k) / cycle) % 2 == 1
    }

    /// Makes this thread's node count visible to the others.
    pub(crate) fn publish_nodes(&self) {
        if let Some(c) = self.shared.nodes.get(self.id) {
            c.0.store(self.nodes, Ordering::Relaxed);
        }
    }

    /// Nodes searched by every thread: this one's exact count plus the
    /// others' last published ones. With one thread, exactly `nodes`.
    fn total_nodes(&self) -> u64 {
        let others: u64 = self
            .shared
            .nodes
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != self.id)
            .map(|(_, c)| c.0.load(Ordering::Relaxed))
            .sum();
        self.nodes + others
    }

    /// Whether the node limit is reached: checked at every node with one
    /// thread (so node-limited searches repeat exactly), every
    /// [`NODE_SHARE_INTERVAL`] nodes against the total with several.
    #[inline]
    fn node_limit_reached(&self) -> bool {
        let Some(n) = self.limits.nodes else {
            return false;
        };
        if self.shared.nodes.len() <= 1 {
            self.nodes >= n
        } else {
            self.nodes.is_multiple_of(NODE_SHARE_INTERVAL) && self.total_nodes() >= n
        }
    }

    /// The internal score of the best root move (head start included) and
    /// its line as a report at `depth`, once the search has ended.
    pub(crate) fn best_line(&self, depth: u32) -> Option<(i32, Report)> {
        let best = self.root_moves.first()?;
        let raw = if best.score == -INFINITE {
            best.prev_score
        } else {
            best.score
        };
        Some((raw, self.report(depth, 0)))
    }

    fn elapsed(&self) -> Duration {
        self.shared.epoch.elapsed()
    }

    /// Time since the clocks started (the `go`, or `ponderhit`).
    fn clock_elapsed(&self) -> Duration {
        let start = Duration::from_nanos(self.shared.clock_start_ns.load(Ordering::Relaxed));
        self.elapsed().saturating_sub(start)
    }

    /// Polled at every node: whether to unwind now.
    #[inline]
    fn poll(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes.is_multiple_of(NODE_SHARE_INTERVAL) && self.shared.nodes.len() > 1 {
            self.publish_nodes();
        }
        if !self.may_stop {
            return false;
        }
        if self.shared.stop.load(Ordering::Relaxed) || self.node_limit_reached() {
            self.stopped = true;
        } else if self.is_main()
            && self.nodes.is_multiple_of(CLOCK_CHECK_NODES)
            && let Some(hard) = self.budget.hard
            && !self.shared.pondering.load(Ordering::Relaxed)
            && self.clock_elapsed() >= hard
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Judges a node by the game rules `ply` plies from the root
    /// (`board`'s [`Position::judge_node`]: repetition with perpetual check
    /// and chase, the move limit, insufficient material): `Err(score)` when
    /// a rule decides it, else `Ok(repeated)`, whether the position occurred
    /// before in the repetition window. Rule wins and losses score like
    /// mates at the same distance.
    ///
    /// A repeated node is searched without the table's help: its value
    /// depends on the path (a perpetual whose twofold was not trusted is
    /// judged at the threefold further down), and an entry stored for the
    /// same position reached another way, in this search or an earlier one,
    /// would cut that judgement off. For the same reason its own result is
    /// not stored.
    #[inline]
    fn judge(&self, ply: usize) -> Result<bool, i32> {
        let j = self.pos.judge_node(ply);
        match j.verdict {
            Some(v) => Err(verdict_score(v, ply)),
            None => Ok(j.repeated),
        }
    }

    /// Runs the iterative deepening loop and returns the result; `on_event`
    /// receives the reports.
    pub(crate) fn iterate(&mut self, on_event: &mut dyn FnMut(Event)) -> SearchResult {
        let result = self.iterate_inner(on_event);
        // An infinite search, or a ponder search not yet hit, ends only at
        // `stop` (or `ponderhit`), even when it ran out of things to search.
        // Helpers just end: the main thread stops them when it ends.
        while self.is_main()
            && (self.limits.infinite || self.shared.pondering.load(Ordering::Relaxed))
            && !self.shared.stop.load(Ordering::Relaxed)
            && !(self.limits.ponder
                && !self.shared.pondering.load(Ordering::Relaxed)
                && !self.limits.infinite)
        {
            std::thread::sleep(Duration::from_micros(500));
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
        self.root_moves = self.order_root(&allowed);
        // Helpers ignore the depth limit, like the clock: they keep every
        // core busy until the main thread has completed the last iteration
        // and stops them (and the move is then the main thread's).
        let max_depth = self
            .limits
            .depth
            .filter(|_| self.is_main())
            .map_or(MAX_PLY as u32 - 1, |d| d.min(MAX_PLY as u32 - 1));
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
            for rm in &mut self.root_moves {
                rm.prev_score = if rm.score == -INFINITE {
                    rm.prev_score
                } else {
                    rm.score
                };
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
            completed = depth;
            for pv_idx in 0..multipv {
                on_event(Event::Iteration(self.report(depth, pv_idx)));
            }
            if self.iteration_ends_search(depth) {
                break;
            }
        }
        let best = &self.root_moves[0];
        let score = if best.score == -INFINITE {
            best.prev_score
        } else {
            best.score
        };
        let (score, rule) = self.public_score(self.own_score(best.mv, score), &best.pv);
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
        if self.limits.infinite || self.shared.pondering.load(Ordering::Relaxed) {
            return false;
        }
        let timed = self.limits.clock.is_some() || self.limits.movetime.is_some();
        // A forced reply needs no thought when the clock runs.
        if timed && self.root_moves.len() == 1 && depth >= 1 && self.limits.clock.is_some() {
            return true;
        }
        self.budget
            .soft
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
    fn order_root(&self, moves: &[Move]) -> Vec<RootMove> {
        let hit = self.tt.probe(self.pos.key(), 0);
        let tt_moves = hit.moves();
        let mut scored: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| (self.order_score(m, tt_moves, &QuietOrder::default()), m))
            .collect();
        scored.sort_by_key(|e| std::cmp::Reverse(e.0));
        scored
            .into_iter()
            .map(|(_, mv)| RootMove {
                mv,
                score: -INFINITE,
                prev_score: -INFINITE,
                pv: vec![mv],
            })
            .collect()
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
        self.pv_len[0] = 0;
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
            self.moved[0] = self.piece_to(mv);
            self.make(mv);
            let gives_check = self.pos.in_check();
            let new_depth = depth - 1 + i32::from(gives_check);
            let score = if i == pv_idx {
                -self.search(-b, -a, new_depth, 1, true, true)
            } else {
                let r = if depth >= 3 && quiet && !gives_check && !in_check && i >= pv_idx + 4 {
                    (self.reduction(depth, i - pv_idx) - 1).max(0)
                } else {
                    0
                };
                let mut s = -self.search(-a - 1, -a, new_depth - r, 1, false, true);
                if s > a && r > 0 {
                    s = -self.search(-a - 1, -a, new_depth, 1, false, true);
                }
                if s > a && s < b {
                    s = -self.search(-b, -a, new_depth, 1, true, true);
                }
                s
            };
            let score = if !is_decisive(score) {
                score + head_start
            } else {
                score
            };
            self.unmake();
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
                let len = self.pv_len[1];
                rm.pv.extend(self.pv[1][1..len].iter().flatten());
                if score > alpha {
                    best_move = Some(mv);
                    if quiet && let Some(pt) = self.piece_to(mv) {
                        self.h.update_quiet(
                            (mv, pt),
                            &[],
                            QuietContext::default(),
                            0,
                            depth,
                            false,
                        );
                    }
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                }
            }
        }
        self.root_moves[pv_idx..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
        // With a head start the root scores are not the position's own.
        if !self.stopped && pv_idx == 0 && self.limits.favoured.is_none() {
            let bound = Bound::of_result(best, alpha_orig, beta);
            self.tt
                .store(self.pos.key(), 0, best_move, best, depth, bound);
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

    /// The late-move reduction for the `n`-th move at `depth`.
    #[inline]
    fn reduction(&self, depth: i32, n: usize) -> i32 {
        i32::from(self.lmr[(depth as usize).min(63)][n.min(63)])
    }

    /// Fail-soft PVS at an interior node `ply` plies from the root.
    #[allow(clippy::too_many_lines)]
    fn search(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        pv_node: bool,
        null_ok: bool,
    ) -> i32 {
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply);
        }
        self.pv_len[ply] = ply;
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let repeated = match self.judge(ply) {
            Ok(repeated) => repeated,
            Err(s) => return s,
        };
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        // Mate-distance pruning: no line from here beats a mate already
        // found closer to the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let key = self.pos.key();
        let hit = self.probe(key, ply);
        if !pv_node
            && !repeated
            && let Some(e) = hit.cutting(depth, alpha, beta)
        {
            self.tt_stats.cutoffs += 1;
            return e.score;
        }
        let in_check = self.pos.in_check();
        let static_eval = if in_check {
            None
        } else {
            Some(self.evaluate())
        };
        self.static_evals[ply] = static_eval;
        // Improving: better than two plies ago (our previous turn), so
        // pruning by the static evaluation can afford to be bolder.
        let improving = match (
            static_eval,
            ply.checked_sub(2).map(|p| self.static_evals[p]),
        ) {
            (Some(now), Some(Some(before))) => now > before,
            (Some(_), _) => true,
            (None, _) => false,
        };
        if !pv_node
            && let Some(static_eval) = static_eval
            && !is_decisive(beta)
        {
            // Reverse futility: far above beta at low depth.
            let margin = STATIC_NULL_MARGIN * depth - 40 * i32::from(improving);
            if depth <= 3 && static_eval - margin >= beta {
                return static_eval;
            }
            // Null move, only with attackers left (xiangqi zugzwang lives in
            // endgames without them), verified when material is thin.
            let us = self.pos.side_to_move();
            let attackers = attacker_count(&self.pos, us);
            let rooks = self.pos.pieces(us, PieceKind::Rook).count();
            if null_ok && depth >= 3 && static_eval >= beta && (rooks >= 1 || attackers >= 2) {
                let r = 2 + depth / 4;
                self.moved[ply] = None;
                self.make_null();
                let s = -self.search(-beta, -beta + 1, depth - 1 - r, ply + 1, false, false);
                self.unmake_null();
                if self.stopped {
                    return 0;
                }
                if s >= beta {
                    let s = if s >= MATE_BOUND { beta } else { s };
                    if attackers > 2 && rooks >= 1 {
                        return s;
                    }
                    let v = self.search(beta - 1, beta, depth - 1 - r, ply, false, false);
                    if self.stopped {
                        return 0;
                    }
                    if v >= beta {
                        return s;
                    }
                }
            }
        }

        let alpha_orig = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut searched = 0usize;
        let ctx = self.quiet_context(ply);
        let order = QuietOrder {
            killers: self.h.killers(ply),
            counter: self.h.countermove(ctx.prev1),
            ctx,
        };
        // Quiet moves searched so far, to be punished if another one cuts.
        let mut quiets_tried: arrayvec::ArrayVec<(Move, PieceTo), 64> = arrayvec::ArrayVec::new();
        // Late-move pruning: past this many moves, quiet moves at low
        // depth are not searched at all.
        let lmp_limit = (3 + depth * depth) as usize / if improving { 1 } else { 2 };
        let mut picker = MovePicker::new(hit.moves(), order);
        while let Some((mv, class, order_score)) = picker.next(self) {
            let capture = self.pos.is_capture(mv);
            let pt = self.piece_to(mv);
            let quiet_late = class == MoveClass::Quiet && searched > 0 && best > -MATE_BOUND;
            if !pv_node && !in_check && quiet_late && depth <= 4 && searched >= lmp_limit {
                continue;
            }
            // SEE pruning: at low depth, a move that loses more material
            // in the exchange on its square than the depth can win back
            // (unless it checks: sacrifices that mate begin with a check).
            let see_losing = !pv_node
                && !in_check
                && searched > 0
                && best > -MATE_BOUND
                && depth <= SEE_PRUNE_DEPTH
                && class != MoveClass::Hash
                && {
                    let margin = if capture {
                        -SEE_CAPTURE_MARGIN * depth
                    } else {
                        -SEE_QUIET_MARGIN * depth * depth
                    };
                    self.pos.see(mv, &PIECE_VALUE) < margin
                };
            self.moved[ply] = pt;
            self.make(mv);
            let gives_check = self.pos.in_check();
            if see_losing && !gives_check {
                self.unmake();
                continue;
            }
            // Futility: a quiet move at low depth that cannot lift the
            // static evaluation near alpha is not searched.
            if !pv_node
                && quiet_late
                && !gives_check
                && depth <= 3
                && let Some(se) = static_eval
                && se + FUTILITY_BASE + FUTILITY_PER_DEPTH * depth <= alpha
            {
                self.unmake();
                continue;
            }
            let extension = i32::from(gives_check && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + extension;
            let score = if searched == 0 {
                -self.search(-beta, -alpha, new_depth, ply + 1, pv_node, true)
            } else {
                let late = searched >= if pv_node { 4 } else { 2 };
                let r =
                    if depth >= 3 && late && class == MoveClass::Quiet && !gives_check && !in_check
                    {
                        // History steers the reduction: a move that often
                        // cut elsewhere is reduced less, one that failed
                        // more.
                        let r = self.reduction(depth, searched) - i32::from(pv_node)
                            + i32::from(!improving)
                            - order_score / HISTORY_REDUCTION_UNIT;
                        r.clamp(0, new_depth - 1)
                    } else {
                        0
                    };
                let mut s = -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, false, true);
                if s > alpha && r > 0 {
                    s = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, false, true);
                }
                if pv_node && s > alpha && s < beta {
                    s = -self.search(-beta, -alpha, new_depth, ply + 1, true, true);
                }
                s
            };
            self.unmake();
            if self.stopped {
                return 0;
            }
            searched += 1;
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                    self.update_pv(ply, mv);
                }
            }
            if !capture
                && let Some(pt) = pt
                && !quiets_tried.is_full()
            {
                quiets_tried.push((mv, pt));
            }
        }
        if let Some(bm) = best_move
            && !self.pos.is_capture(bm)
            && let Some(pt) = self.piece_to(bm)
        {
            let cut = best >= beta;
            self.h
                .update_quiet((bm, pt), &quiets_tried, ctx, ply, depth, cut);
        }
        if searched == 0 {
            // Every move was pruned, which needs one searched first, so
            // none was legal: mated or stalemated, both lost in xiangqi.
            return -MATE + ply as i32;
        }
        let bound = Bound::of_result(best, alpha_orig, beta);
        if !repeated {
            self.tt.store(key, ply, best_move, best, depth, bound);
        }
        best
    }

    /// Quiescence: captures (all evasions when in check) until quiet.
    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        self.nodes += 1;
        if self.poll() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let repeated = match self.judge(ply) {
            Ok(repeated) => repeated,
            Err(s) => return s,
        };
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        let key = self.pos.key();
        let hit = self.probe(key, ply);
        if !repeated && let Some(e) = hit.cutting(0, alpha, beta) {
            self.tt_stats.cutoffs += 1;
            return e.score;
        }
        let in_check = self.pos.in_check();
        let alpha_orig = alpha;
        let mut best;
        let stand_pat;
        let moves = if in_check {
            stand_pat = -INFINITE;
            best = -INFINITE;
            self.pos.legal_moves()
        } else {
            stand_pat = self.evaluate();
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
            self.pos.legal_captures()
        };
        let mut scored: arrayvec::ArrayVec<(i32, Move), 128> = arrayvec::ArrayVec::new();
        let tt_moves = hit.moves();
        for &m in &moves {
            let s = self.order_score(m, tt_moves, &QuietOrder::default());
            if !in_check {
                let victim = self
                    .pos
                    .piece_at(m.to())
                    .map_or(0, |p| PIECE_VALUE[p.kind().index()]);
                // Delta pruning and losing captures are skipped.
                if stand_pat + victim + DELTA_MARGIN <= alpha || s < 0 {
                    continue;
                }
            }
            scored.push((s, m));
        }
        scored.sort_unstable_by_key(|e| std::cmp::Reverse(e.0));
        let mut best_move = None;
        for &(_, mv) in &scored {
            self.make(mv);
            let score = -self.qsearch(-beta, -alpha, ply + 1);
            self.unmake();
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    if score >= beta {
                        break;
                    }
                    alpha = score;
                    self.update_pv(ply, mv);
                }
            }
        }
        if in_check && moves.is_empty() {
            return -MATE + ply as i32;
        }
        if self.options.store_qs && !repeated {
            let bound = Bound::of_result(best, alpha_orig, beta);
            self.tt.store(key, ply, best_move, best, 0, bound);
        }
        best
    }

    /// The static evaluation, through the thread's evaluation cache.
    #[inline]
    fn evaluate(&mut self) -> i32 {
        let key = self.pos.key();
        let index = (key as usize) & (EVAL_CACHE_SIZE - 1);
        let (cached_key, cached) = self.eval_cache[index];
        if cached_key == key && cached != i32::MIN {
            return cached;
        }
        let e = match self.net {
            // Clamped far from the mate band, which the search reserves
            // for proven results.
            Some(net) => self
                .acc
                .evaluate(net, &self.pos)
                .clamp(-NET_SCORE_LIMIT, NET_SCORE_LIMIT),
            None => evaluate(&self.pos),
        };
        self.eval_cache[index] = (key, e);
        e
    }

    #[inline]
    fn probe(&mut self, key: u64, ply: usize) -> TtHit {
        let hit = self.tt.probe(key, ply);
        if self.tt.policy() != crate::TtPolicy::Off {
            self.tt_stats.probes += 1;
            if hit.any() {
                self.tt_stats.hits += 1;
            }
        }
        hit
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        self.pv[ply][ply] = Some(mv);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// The continuation key of `mv` in the current position.
    fn piece_to(&self, mv: Move) -> Option<PieceTo> {
        self.pos
            .piece_at(mv.from())
            .map(|p| PieceTo::new(p.index(), mv.to()))
    }

    /// Ordering score of legal move `m`: hash moves, good captures by
    /// MVV/LVA, killers, the countermove, quiet moves by their histories,
    /// losing captures last.
    fn order_score(&self, m: Move, tt_moves: [Option<Move>; 2], q: &QuietOrder) -> i32 {
        if tt_moves[0] == Some(m) {
            return SCORE_HASH;
        }
        if tt_moves[1] == Some(m) {
            return SCORE_HASH - 1;
        }
        let Some(piece) = self.pos.piece_at(m.from()) else {
            return 0;
        };
        if let Some(victim) = self.pos.piece_at(m.to()) {
            let mvv_lva =
                ORDER_VALUE[victim.kind().index()] * 16 - ORDER_VALUE[piece.kind().index()];
            let attacker = PIECE_VALUE[piece.kind().index()];
            let gain = PIECE_VALUE[victim.kind().index()];
            if gain >= attacker || self.pos.see(m, &PIECE_VALUE) >= 0 {
                return SCORE_GOOD_CAPTURE + mvv_lva;
            }
            return SCORE_BAD_CAPTURE + mvv_lva;
        }
        if q.killers[0] == Some(m) {
            return SCORE_KILLER + 2;
        }
        if q.killers[1] == Some(m) {
            return SCORE_KILLER + 1;
        }
        if q.counter == Some(m) {
            return SCORE_KILLER;
        }
        self.h
            .quiet_score(PieceTo::new(piece.index(), m.to()), q.ctx)
    }

    /// The report for line `pv_idx` after iteration `depth`.
    fn report(&self, depth: u32, pv_idx: usize) -> Report {
        let rm = &self.root_moves[pv_idx];
        let raw = if rm.score == -INFINITE {
            rm.prev_score
        } else {
            rm.score
        };
        let (score, rule) = self.public_score(self.own_score(rm.mv, raw), &rm.pv);
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
            pv: rm.pv.clone(),
        }
    }

    /// The public score of an internal one, and the rule behind it when it
    /// is a rule verdict (found at the end of `pv`).
    /// A draw score is named only when the line reaches a position the
    /// rules declare drawn (a 0 may also be an even evaluation).
    fn public_score(&self, s: i32, pv: &[Move]) -> (Score, Option<Reason>) {
        let rule = if is_decisive(s) {
            self.rule_at_end(pv)
        } else if s == DRAW {
            self.draw_along(pv)
        } else {
            None
        };
        (Score::from_raw(s), rule)
    }

    /// The rule of the first position along `pv` that the rules declare
    /// drawn (move limit, repetition, insufficient material), if any.
    fn draw_along(&self, pv: &[Move]) -> Option<Reason> {
        let mut p = self.pos.clone();
        for (i, &m) in pv.iter().enumerate() {
            if !p.is_legal(m) {
                break;
            }
            p.make_move(m);
            match p.rule_verdict(i + 1) {
                Some(Verdict::Draw(r)) => return Some(r),
                Some(_) => return None,
                None => {}
            }
        }
        None
    }

    /// The rule that decides the line `pv` from the root: the first
    /// position along it with a win or loss verdict by rule; `None` when
    /// the line ends in mate (or is cut short: a table cut-off hides the
    /// end, and a mate is then the likelier reading).
    fn rule_at_end(&self, pv: &[Move]) -> Option<Reason> {
        let mut p = self.pos.clone();
        for (i, &m) in pv.iter().enumerate() {
            if !p.is_legal(m) {
                break;
            }
            p.make_move(m);
            if let Some(Verdict::Win(r) | Verdict::Loss(r)) = p.rule_verdict(i + 1) {
                return Some(r).filter(|r| !matches!(r, Reason::Checkmate | Reason::Stalemate));
            }
        }
        None
    }
}

/// What orders a node's quiet moves.
#[derive(Clone, Copy, Debug, Default)]
struct QuietOrder {
    killers: [Option<Move>; 2],
    counter: Option<Move>,
    ctx: QuietContext,
}

/// Which class a picked move belongs to (reductions apply to quiets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MoveClass {
    Hash,
    Capture,
    Killer,
    Quiet,
}

/// Hands out moves in order: the hash moves (checked for legality) before
/// generating anything, then the rest by [`SearchThread::order_score`].
struct MovePicker {
    tt_moves: [Option<Move>; 2],
    order: QuietOrder,
    stage: u8,
    moves: arrayvec::ArrayVec<(i32, Move), 128>,
    next: usize,
}

impl MovePicker {
    fn new(tt_moves: [Option<Move>; 2], order: QuietOrder) -> MovePicker {
        MovePicker {
            tt_moves,
            order,
            stage: 0,
            moves: arrayvec::ArrayVec::new(),
            next: 0,
        }
    }

    /// The next move, its class and its ordering score (0 for hash moves).
    fn next(&mut self, t: &SearchThread<'_>) -> Option<(Move, MoveClass, i32)> {
        while self.stage < 2 {
            let i = self.stage as usize;
            self.stage += 1;
            if let Some(m) = self.tt_moves[i]
                && t.pos.is_legal(m)
            {
                return Some((m, MoveClass::Hash, 0));
            } else {
                self.tt_moves[i] = None;
            }
        }
        if self.stage == 2 {
            self.stage = 3;
            let list: MoveList = t.pos.legal_moves();
            for &m in &list {
                if self.tt_moves.contains(&Some(m)) {
                    continue;
                }
                self.moves
                    .push((t.order_score(m, [None; 2], &self.order), m));
            }
        }
        // Selection sort: most nodes cut after a few moves.
        let rest = &mut self.moves[self.next..];
        let (best_i, _) = rest
            .iter()
            .enumerate()
            .max_by_key(|(i, (s, _))| (*s, usize::MAX - i))?;
        rest.swap(0, best_i);
        let (score, m) = self.moves[self.next];
        self.next += 1;
        let class = if score >= SCORE_GOOD_CAPTURE || score <= SCORE_BAD_CAPTURE + 2000 {
            if score >= SCORE_GOOD_CAPTURE || t.pos.is_capture(m) {
                MoveClass::Capture
            } else {
                MoveClass::Quiet
            }
        } else if score >= SCORE_KILLER {
            MoveClass::Killer
        } else {
            MoveClass::Quiet
        };
        // The class test above already left captures out of `Quiet`.
        let quiet_score = if class == MoveClass::Quiet { score } else { 0 };
        Some((m, class, quiet_score))
    }
}

/// Chariots, horses and cannons of `color`.
fn attacker_count(pos: &Position, color: Color) -> u32 {
    pos.pieces(color, PieceKind::Rook).count()
        + pos.pieces(color, PieceKind::Knight).count()
        + pos.pieces(color, PieceKind::Cannon).count()
}
