//! The search's per-ply stack of accumulators, updated lazily.
//!
//! The search makes many moves whose child it never evaluates: captures
//! that SEE prunes right after the make, futile quiet moves, nodes in check
//! (they take no static evaluation), null moves. So a make only records
//! what changed (a `Delta`) and marks the new ply stale; the accumulator
//! of a ply is brought up to date when that ply is evaluated, from the
//! nearest ancestor that is, by replaying the recorded deltas one ply at a
//! time (each a fused copy-and-update, which leaves the plies in between
//! fresh for their other children), or, where a move on the way changed a
//! side's input bucket (a general's, or a capture's: see
//! `features::Arch::bucket_changed`), by refreshing that side and applying
//! all the deltas to the top for the other. Unmake is a pop.
//!
//! The slow twin is [`Accumulator::new`] (a refresh from the position):
//! `tests` cross-checks the stack against it along random games with
//! captures, null moves and unevaluated plies.

use board::{Color, Move, Position};

use super::accumulator::{Accumulator, Delta};
use super::network::Network;
use super::simd::Backend;

/// Accumulators by ply from the search root, with the changes between
/// them. Index 0 is the root.
pub struct AccumulatorStack {
    accs: Vec<Accumulator>,
    deltas: Vec<Delta>,
    /// Whether `accs[i]` describes ply `i`'s position.
    fresh: Vec<bool>,
    top: usize,
    backend: Backend,
}

impl AccumulatorStack {
    /// A stack for `plies` plies below the root.
    pub fn new(plies: usize) -> AccumulatorStack {
        AccumulatorStack {
            accs: vec![Accumulator::default(); plies + 1],
            deltas: vec![None; plies + 1],
            fresh: vec![false; plies + 1],
            top: 0,
            backend: Backend::detect(),
        }
    }

    /// Starts over at `pos`, the search root.
    pub fn reset(&mut self, net: &Network, pos: &Position) {
        self.top = 0;
        self.accs[0].refresh(net, pos);
        self.fresh[0] = true;
    }

    /// Records `m`, about to be made in `pos` (the position before it).
    /// Past the stack's depth the push is ignored and so is the matching
    /// pop, and evaluations there refresh (the search never goes so deep).
    #[inline]
    pub fn push(&mut self, pos: &Position, m: Move) {
        let moved = pos.piece_at(m.from());
        self.push_delta(moved.map(|p| (p, m, pos.piece_at(m.to()))));
    }

    /// Records a null move.
    #[inline]
    pub fn push_null(&mut self) {
        self.push_delta(None);
    }

    #[inline]
    fn push_delta(&mut self, d: Delta) {
        self.top += 1;
        if self.top < self.accs.len() {
            self.deltas[self.top] = d;
            self.fresh[self.top] = false;
        }
    }

    /// Forgets the last push.
    #[inline]
    pub fn pop(&mut self) {
        self.top = self.top.saturating_sub(1);
    }

    /// The network's score of `pos` (the position at the top of the
    /// stack) for its side to move.
    pub fn evaluate(&mut self, net: &Network, pos: &Position) -> i32 {
        let (side, bucket) = (pos.side_to_move(), net.arch().output_bucket(pos));
        if self.top >= self.accs.len() {
            return Accumulator::new(net, pos).evaluate_with(net, side, bucket, self.backend);
        }
        self.bring_up_to_date(net, pos);
        self.accs[self.top].evaluate_with(net, side, bucket, self.backend)
    }

    /// Makes `accs[top]` describe `pos`.
    fn bring_up_to_date(&mut self, net: &Network, pos: &Position) {
        let top = self.top;
        if self.fresh[top] {
            return;
        }
        let Some(base) = (0..top).rev().find(|&i| self.fresh[i]) else {
            self.accs[top].refresh(net, pos);
            self.fresh[top] = true;
            return;
        };
        // The common case, one ply: the position's own last move (or null
        // move) is that ply's change, and `update_from` copies and updates
        // in one pass.
        if top - base == 1 {
            let (below, above) = self.accs.split_at_mut(top);
            above[0].update_from(&below[base], net, pos, self.backend);
            self.fresh[top] = true;
            return;
        }
        let arch = net.arch();
        let buckets = Color::ALL.map(|persp| arch.input_bucket(persp, pos));
        let changes = self.deltas[base + 1..=top].iter().flatten();
        let changed = |persp: Color| changes.clone().any(|&c| arch.bucket_changed(persp, c, pos));
        let refresh = Color::ALL.map(changed);
        if refresh == [false; 2] {
            // No move changed a side's input bucket on the way: every ply
            // from `base` up is one fused copy-and-update of the ply below
            // it, and the plies in between become fresh for the siblings
            // that will need them.
            for i in base + 1..=top {
                let (below, above) = self.accs.split_at_mut(i);
                above[0].update_by(&below[i - 1], net, buckets, self.deltas[i], self.backend);
                self.fresh[i] = true;
            }
            return;
        }
        let (below, above) = self.accs.split_at_mut(top);
        let (prev, out) = (&below[base], &mut above[0]);
        for persp in Color::ALL {
            // A move that changed this side's input bucket on the way
            // changed every row of it: refresh the side from the position.
            // If none did, the side stayed in its present bucket, and every
            // recorded change is one of this bucket.
            if refresh[persp.index()] {
                out.refresh_side(net, pos, persp);
                continue;
            }
            let kb = buckets[persp.index()];
            out.values[persp.index()] = prev.values[persp.index()];
            for &(p, m, cap) in changes.clone() {
                out.add(net, persp, kb, p, m.to());
                out.remove(net, persp, kb, p, m.from());
                if let Some(c) = cap {
                    out.remove(net, persp, kb, c, m.to());
                }
            }
        }
        self.fresh[top] = true;
    }
}
