//! The searched position as the search changes it: every move made and
//! taken back here keeps the network's accumulators in step (and asks
//! memory ahead for the child's table bucket and cached evaluation), the
//! static evaluation comes through the thread's cache (and is corrected
//! by the correction history for the pruning, its structure keys kept
//! move by move), and a move's key
//! for the continuation histories is read off the position.

use board::Move;

use super::{Mode, Search};
use crate::correction::CorrectionKeys;
use crate::history::PieceTo;
use crate::score::MATE_BOUND;

/// A node's static evaluation: as the evaluation gave it, and corrected.
#[derive(Clone, Copy, Debug)]
pub(super) struct StaticEval {
    /// The evaluation's own score, which the correction history learns
    /// the error of.
    pub(super) raw: i32,
    /// The position's structure keys, for the lesson.
    pub(super) keys: CorrectionKeys,
    /// The corrected score, which the search reads.
    pub(super) value: i32,
}

/// The network's scores are clamped to this, far from the decisive band.
const NET_SCORE_LIMIT: i32 = 10_000;

/// A network's evaluation as the search uses it: clamped far from the mate
/// band, which the search reserves for proven results.
pub(crate) fn clamp_network_score(score: i32) -> i32 {
    score.clamp(-NET_SCORE_LIMIT, NET_SCORE_LIMIT)
}

impl<M: Mode> Search<'_, M> {
    /// Makes `mv` in the searched position, keeping the accumulators in
    /// step. Every move the search makes goes through here and
    /// [`Search::unmake`].
    #[inline]
    pub(super) fn make(&mut self, mv: Move) {
        // First, so that memory fetches the child's table entry and cached
        // evaluation while the move is made (`TranspositionTable::prefetch`).
        let key = self.pos.key_after(mv);
        self.tt.prefetch(key);
        self.eval_cache.prefetch(key);
        if self.net.is_some() {
            self.acc.push(&self.pos, mv);
        }
        self.keys_above.push(self.keys);
        self.keys = self.keys.after(&self.pos, mv);
        self.pos.make_move(mv);
    }

    /// Takes back the last [`Search::make`].
    #[inline]
    pub(super) fn unmake(&mut self) {
        if self.net.is_some() {
            self.acc.pop();
        }
        self.restore_keys();
        self.pos.unmake_move();
    }

    /// Passes the move (null-move pruning).
    #[inline]
    pub(super) fn make_null(&mut self) {
        self.tt.prefetch(self.pos.key_after_null());
        if self.net.is_some() {
            self.acc.push_null();
        }
        self.keys_above.push(self.keys);
        self.keys = self.keys.after_null();
        self.pos.make_null_move();
    }

    /// Takes back [`Search::make_null`].
    #[inline]
    pub(super) fn unmake_null(&mut self) {
        if self.net.is_some() {
            self.acc.pop();
        }
        self.restore_keys();
        self.pos.unmake_null_move();
    }

    /// The keys of the position a move is taken back to.
    #[inline]
    fn restore_keys(&mut self) {
        if let Some(keys) = self.keys_above.pop() {
            self.keys = keys;
        }
    }

    /// The static evaluation, through the thread's evaluation cache.
    #[inline]
    pub(super) fn evaluate(&mut self) -> i32 {
        let key = self.pos.key();
        if let Some(e) = self.eval_cache.get(key) {
            return e;
        }
        let e = match self.net {
            // Clamped far from the mate band, which the search reserves
            // for proven results.
            Some(net) => clamp_network_score(self.acc.evaluate(net, &self.pos)),
            None => crate::eval::evaluate(&self.pos),
        };
        self.eval_cache.put(key, e);
        e
    }

    /// The static evaluation corrected by what the searches found of its
    /// error in this position's structures (`correction.rs`), for the
    /// pruning and the stand-pat score to read.
    #[inline]
    pub(super) fn static_eval(&mut self) -> StaticEval {
        let raw = self.evaluate();
        let keys = self.keys;
        debug_assert_eq!(keys, CorrectionKeys::of(&self.pos));
        StaticEval {
            raw,
            keys,
            value: self.corr.correct(keys, raw, MATE_BOUND - 1),
        }
    }

    /// The continuation key of `mv` in the current position.
    pub(super) fn piece_to(&self, mv: Move) -> Option<PieceTo> {
        self.pos
            .piece_at(mv.from())
            .map(|p| PieceTo::new(p.index(), mv.to()))
    }
}
