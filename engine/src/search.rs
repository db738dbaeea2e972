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
//!
//! This module owns the thread's state and the interior nodes; its
//! children own the root (`root`: iterative deepening, aspiration, the
//! root moves and reports), quiescence (`quiescence`), stopping (`stop`:
//! node counts, limits, the clock), the naming of the rule behind a root
//! score (`rule`) and the pruning and reduction tests of an interior node
//! (`prune`). Move ordering is `movepick.rs` and `history.rs`; scores are
//! `score.rs`.

use board::{Move, Position};

use crate::eval::evaluate;
pub use crate::history::Histories;
use crate::history::{PieceTo, QuietContext};
use crate::movepick::{MoveClass, MovePicker, QuietOrder};
use crate::nnue::{AccumulatorStack, Network};
use crate::score::{Bound, INFINITE, MATE, MATE_BOUND, MAX_PLY, is_decisive, verdict_score};
use crate::time::{TimeBudget, TimeSignals};
use crate::tt::{TranspositionTable, TtHit};
use crate::{Limits, Shared};

mod prune;
mod quiescence;
mod root;
mod rule;
mod stop;

use prune::{LateMovePruning, futile};
use root::RootMove;

/// The least depth at which a node without a table move is reduced a ply.
const IIR_DEPTH: i32 = 4;

/// Entries of the per-thread evaluation cache (a power of two).
const EVAL_CACHE_SIZE: usize = 1 << 16;
/// The network's scores are clamped to this, far from the decisive band.
const NET_SCORE_LIMIT: i32 = 10_000;

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
    /// What the completed iterations say about the move's difficulty, for
    /// the soft time bound (main thread).
    signals: TimeSignals,
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
    /// The move a singular-extension search at each ply leaves out (see
    /// [`SearchThread::singular`]).
    excluded: [Option<Move>; MAX_PLY + 2],
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
            signals: TimeSignals::default(),
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
            excluded: [None; MAX_PLY + 2],
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

    /// Fail-soft PVS at an interior node `ply` plies from the root.
    fn search(&mut self, alpha: i32, beta: i32, depth: i32, ply: usize, kind: NodeKind) -> i32 {
        let Node {
            mut alpha,
            beta,
            key,
            hit,
            repeated,
            in_check,
            static_eval,
            improving,
        } = match self.open_node(alpha, beta, depth, ply, kind) {
            Ok(node) => node,
            Err(score) => return score,
        };
        let pv_node = kind == NodeKind::Pv;
        let tt_moves = hit.moves();
        let excluded = self.excluded[ply];
        // Internal iterative reduction: a node the table knows no move for
        // was not searched before (or not usefully), so its move order is
        // guesswork; search it a ply shallower, and the next iteration,
        // finding the move this one stores, searches it at full depth.
        let depth = if depth >= IIR_DEPTH && tt_moves[0].is_none() && excluded.is_none() {
            depth - 1
        } else {
            depth
        };
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
        let after_evasion = ply >= 1 && self.static_evals[ply - 1].is_none();
        let lmp = LateMovePruning::new(depth, improving, after_evasion);
        let singular = if excluded.is_none() && !repeated && ply > 0 {
            singular_candidate(&hit, depth)
        } else {
            None
        };
        let mut picker = MovePicker::new(tt_moves, order);
        while let Some((mv, class, order_score)) = picker.next(&self.pos, self.h) {
            if Some(mv) == excluded {
                continue;
            }
            // The table's move, when it looks singular, is tested before
            // it is made: extended if it is, and the node cut at once if
            // even without it the search beats beta.
            let mut singular_ext = 0;
            if let Some((smv, tt_score)) = singular
                && smv == mv
            {
                match self.singular(mv, tt_score, beta, depth, ply) {
                    Singular::Stopped => return 0,
                    Singular::MultiCut(s) => return s,
                    Singular::Extend(e) => singular_ext = e,
                }
            }
            let capture = self.pos.is_capture(mv);
            let pt = self.piece_to(mv);
            let quiet_late = class == MoveClass::Quiet && searched > 0 && best > -MATE_BOUND;
            if !pv_node && !in_check && quiet_late && lmp.prunes(&self.pos, mv, searched) {
                continue;
            }
            // Futility: a quiet move at low depth that cannot lift the
            // static evaluation near alpha is not searched (unless it
            // checks).
            let futile_quiet =
                !pv_node && quiet_late && static_eval.is_some_and(|se| futile(se, depth, alpha));
            // SEE pruning: at low depth, a move that loses more material
            // in the exchange on its square than the depth can win back
            // (unless it checks: sacrifices that mate begin with a check).
            // A futile move goes whatever the exchange says, so the
            // exchange is not asked.
            let see_losing = !futile_quiet
                && !pv_node
                && !in_check
                && searched > 0
                && best > -MATE_BOUND
                && class != MoveClass::Hash
                && self.see_loses(mv, capture, depth);
            self.moved[ply] = pt;
            self.make(mv);
            let gives_check = self.pos.in_check();
            if (see_losing || futile_quiet) && !gives_check {
                self.unmake();
                continue;
            }
            let extension = if (ply as i32) < 2 * self.root_depth {
                let check = i32::from(gives_check);
                if singular_ext < 0 {
                    check + singular_ext
                } else {
                    check.max(singular_ext)
                }
            } else {
                0
            };
            let new_depth = depth - 1 + extension;
            let score = if searched == 0 {
                -self.search(-beta, -alpha, new_depth, ply + 1, kind.first_child())
            } else {
                let late = searched >= if pv_node { 4 } else { 2 };
                let r =
                    if depth >= 3 && late && class == MoveClass::Quiet && !gives_check && !in_check
                    {
                        self.late_reduction(depth, searched, pv_node, improving, order_score)
                            .clamp(0, new_depth - 1)
                    } else {
                        0
                    };
                self.search_late_move(alpha, beta, new_depth, r, ply, pv_node)
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
        if let Some(bm) = best_move {
            self.reward_quiet(bm, &quiets_tried, ctx, ply, depth, best >= beta);
        }
        if searched == 0 {
            if excluded.is_some() {
                // Only the excluded move is legal: it is singular.
                return alpha_orig;
            }
            // Every move was pruned, which needs one searched first, so
            // none was legal: mated or stalemated, both lost in xiangqi.
            return -MATE + ply as i32;
        }
        let bound = Bound::of_result(best, alpha_orig, beta);
        if !repeated && excluded.is_none() {
            self.tt.store(key, ply, best_move, best, depth, bound);
        }
        best
    }

    /// The singular-extension test of table move `mv` (stored as a lower
    /// bound `tt_score`): the node is searched again at half depth without
    /// it, against a bar `2 × depth` below its score. Every other move
    /// failing that bar makes `mv` singular (extended one ply); the search
    /// without it beating beta cuts the node (multi-cut); a table score at
    /// or above beta that is not singular reduces `mv` a ply.
    fn singular(&mut self, mv: Move, tt_score: i32, beta: i32, depth: i32, ply: usize) -> Singular {
        let bar = tt_score - 2 * depth;
        self.excluded[ply] = Some(mv);
        let s = self.search(bar - 1, bar, (depth - 1) / 2, ply, NodeKind::NonPv);
        self.excluded[ply] = None;
        if self.stopped {
            Singular::Stopped
        } else if s < bar {
            Singular::Extend(1)
        } else if bar >= beta {
            Singular::MultiCut(bar)
        } else if tt_score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }

    /// Everything a node does before its moves: quiescence at depth 0, the
    /// node count and stop poll, the rules' verdict, mate-distance pruning,
    /// the table's cut-off, the static evaluation, and pruning by it.
    /// `Err` carries the node's score when one of them already decides it.
    fn open_node(
        &mut self,
        mut alpha: i32,
        mut beta: i32,
        depth: i32,
        ply: usize,
        kind: NodeKind,
    ) -> Result<Node, i32> {
        if depth <= 0 {
            return Err(self.qsearch(alpha, beta, ply));
        }
        let pv_node = kind == NodeKind::Pv;
        self.pv_len[ply] = ply;
        self.nodes += 1;
        if self.poll() {
            return Err(0);
        }
        self.seldepth = self.seldepth.max(ply);
        let repeated = self.judge(ply)?;
        if ply >= MAX_PLY - 1 {
            return Err(self.evaluate());
        }
        // Mate-distance pruning: no line from here beats a mate already
        // found closer to the root.
        alpha = alpha.max(-MATE + ply as i32);
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return Err(alpha);
        }
        let key = self.pos.key();
        let hit = self.probe(key, ply);
        let excluding = self.excluded[ply].is_some();
        if !pv_node
            && !repeated
            && !excluding
            && let Some(e) = hit.cutting(depth, alpha, beta)
        {
            self.tt_stats.cutoffs += 1;
            return Err(e.score);
        }
        let in_check = self.pos.in_check();
        let static_eval = if in_check {
            None
        } else {
            Some(self.evaluate())
        };
        self.static_evals[ply] = static_eval;
        let improving = self.improving(ply);
        if !pv_node
            && !excluding
            && let Some(static_eval) = static_eval
            && !is_decisive(beta)
            && let Some(s) = self.prune_before_moves(beta, depth, ply, kind, static_eval, improving)
        {
            return Err(s);
        }
        Ok(Node {
            alpha,
            beta,
            key,
            hit,
            repeated,
            in_check,
            static_eval,
            improving,
        })
    }

    /// Searches a move after the first with a null window around `alpha`,
    /// reduced by `r`; a reduced search that beats alpha is repeated at
    /// full depth, and at a PV node one that lands inside the window is
    /// searched again with the full window. The move is already made. The
    /// root's pass uses it too (`ply` 0, always a PV node).
    fn search_late_move(
        &mut self,
        alpha: i32,
        beta: i32,
        new_depth: i32,
        r: i32,
        ply: usize,
        pv_node: bool,
    ) -> i32 {
        let mut s = -self.search(-alpha - 1, -alpha, new_depth - r, ply + 1, NodeKind::NonPv);
        if s > alpha && r > 0 {
            s = -self.search(-alpha - 1, -alpha, new_depth, ply + 1, NodeKind::NonPv);
        }
        if pv_node && s > alpha && s < beta {
            s = -self.search(-beta, -alpha, new_depth, ply + 1, NodeKind::Pv);
        }
        s
    }

    /// Teaches the histories a node's result when its best move is quiet:
    /// a bonus for it, a malus for the quiet moves tried before it.
    fn reward_quiet(
        &mut self,
        best: Move,
        tried: &[(Move, PieceTo)],
        ctx: QuietContext,
        ply: usize,
        depth: i32,
        cut: bool,
    ) {
        if !self.pos.is_capture(best)
            && let Some(pt) = self.piece_to(best)
        {
            self.h.update_quiet((best, pt), tried, ctx, ply, depth, cut);
        }
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
}

/// What [`SearchThread::singular`] found.
enum Singular {
    /// The search stopped meanwhile.
    Stopped,
    /// The node's score without searching its moves.
    MultiCut(i32),
    /// Plies to add to (or, negative, take from) the move's depth.
    Extend(i32),
}

/// Least depth at which the table move is tested for singularity.
const SINGULAR_DEPTH: i32 = 7;

/// The table move and its score, when it is worth a singularity test: a
/// lower bound (or exact score) not decided by mate, searched nearly as
/// deep as this node.
fn singular_candidate(hit: &TtHit, depth: i32) -> Option<(Move, i32)> {
    if depth < SINGULAR_DEPTH {
        return None;
    }
    let e = hit.entries.iter().flatten().find(|e| e.mv.is_some())?;
    let deep = i32::from(e.depth) >= depth - 3;
    let lower = matches!(e.bound, Bound::Lower | Bound::Exact);
    (deep && lower && !is_decisive(e.score)).then_some((e.mv?, e.score))
}

/// What a node knows once it is open and not yet decided (see
/// `SearchThread::open_node`).
struct Node {
    /// The window after mate-distance pruning.
    alpha: i32,
    beta: i32,
    /// The position's key, for the table store at the end.
    key: u64,
    /// What the table holds for it.
    hit: TtHit,
    /// The position repeats one on the path: its score depends on the path
    /// and stays out of the table.
    repeated: bool,
    in_check: bool,
    /// `None` in check.
    static_eval: Option<i32>,
    /// See `SearchThread::improving`.
    improving: bool,
}

/// What a node is to the search, which decides what it may skip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NodeKind {
    /// On the principal variation: searched with an open window, never
    /// cut off by the table or pruned by the static evaluation.
    Pv,
    /// Searched with a null window to prove a bound.
    NonPv,
    /// A null-window node where null-move pruning is off: right after a
    /// null move (two passes in a row prove nothing) and the null move's
    /// verification search.
    NoNull,
}

impl NodeKind {
    /// Whether the node may try a null move.
    fn null_move_allowed(self) -> bool {
        self != NodeKind::NoNull
    }

    /// The kind of the node's first child: a PV node's first move
    /// continues the PV; below any other node, null move is allowed again.
    fn first_child(self) -> NodeKind {
        if self == NodeKind::Pv {
            NodeKind::Pv
        } else {
            NodeKind::NonPv
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tt::TtEntry;

    fn entry(mv: Option<Move>, score: i32, depth: u8, bound: Bound) -> Option<TtEntry> {
        Some(TtEntry {
            mv,
            score,
            depth,
            bound,
            generation: 0,
        })
    }

    #[test]
    fn singular_candidates_are_deep_lower_bounds_with_a_move() {
        let mv = Position::startpos().parse_move("h2e2").ok();
        let hit = |e: Option<TtEntry>| TtHit { entries: [e, None] };
        let lower = entry(mv, 35, 8, Bound::Lower);
        // Deep enough (entry depth ≥ node depth − 3), from SINGULAR_DEPTH on.
        assert_eq!(singular_candidate(&hit(lower), 11), Some((mv.unwrap(), 35)));
        assert_eq!(singular_candidate(&hit(lower), 7), Some((mv.unwrap(), 35)));
        assert_eq!(singular_candidate(&hit(lower), 6), None);
        assert_eq!(singular_candidate(&hit(lower), 12), None);
        // An exact score qualifies; an upper bound says nothing of the move.
        assert!(singular_candidate(&hit(entry(mv, 35, 8, Bound::Exact)), 9).is_some());
        assert_eq!(
            singular_candidate(&hit(entry(mv, 35, 8, Bound::Upper)), 9),
            None
        );
        // A mate score is not tested: the bar below it means nothing.
        assert_eq!(
            singular_candidate(&hit(entry(mv, MATE - 10, 8, Bound::Lower)), 9),
            None
        );
        // The first entry with a move is the one tested.
        let both = TtHit {
            entries: [entry(None, 50, 10, Bound::Lower), lower],
        };
        assert_eq!(singular_candidate(&both, 9), Some((mv.unwrap(), 35)));
    }
}
