//! The store rules: which slot a new result takes, and what it evicts,
//! under each [`TtPolicy`]. The two-tier rule is the shipped one and has
//! its own entry point, which play calls without asking the policy; the
//! others serve the table experiments. The parent module owns the layout
//! and the probes.

use board::Move;

use super::{
    AGE_WEIGHT, Slot, TranspositionTable, TtPolicy, bound_bits, depth_of, encode, gen_of, move_bits,
};
use crate::score::{Bound, to_tt};

/// A result about to be stored: the key, and the entry's fields with the
/// score already made relative to the node.
pub(super) struct NewEntry {
    key: u64,
    mv: Option<Move>,
    score: i32,
    depth: u8,
    bound: Bound,
    generation: u8,
}

impl NewEntry {
    fn new(
        generation: u8,
        key: u64,
        ply: usize,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) -> NewEntry {
        NewEntry {
            key,
            mv,
            score: to_tt(score, ply),
            depth: depth.clamp(0, i32::from(u8::MAX)) as u8,
            bound,
            generation,
        }
    }

    /// The data word that replaces slot content `(old_key, old)`. A result
    /// without a move keeps the move the same position already had there
    /// (fail-low nodes know no best move).
    #[inline]
    fn encode_over(&self, old_key: u64, old: u64) -> u64 {
        let mv = self.mv.or_else(|| {
            (old_key == self.key)
                .then(|| Move::from_u16(move_bits(old)))
                .flatten()
        });
        encode(mv, self.score, self.depth, self.bound, self.generation)
    }

    /// Searches since the entry `data` was written (0: this one).
    fn age_of(&self, data: u64) -> i32 {
        i32::from(self.generation.wrapping_sub(gen_of(data)))
    }

    /// An entry's worth when it must compete for its slot: its depth less
    /// [`AGE_WEIGHT`] plies for each search since it was written; an empty
    /// slot is worth least.
    fn worth(&self, data: u64) -> i32 {
        if bound_bits(data) == 0 {
            i32::MIN
        } else {
            i32::from(depth_of(data)) - AGE_WEIGHT * self.age_of(data)
        }
    }
}

impl TranspositionTable {
    /// Stores a search result for `key` found `ply` plies from the root,
    /// following the policy's replacement rule (module docs).
    pub fn store(
        &self,
        key: u64,
        ply: usize,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) {
        let new = NewEntry::new(self.generation(), key, ply, mv, score, depth, bound);
        match self.policy {
            TtPolicy::TwoTier => self.store_entry_two_tier(&new),
            TtPolicy::Off => {}
            TtPolicy::Always => {
                let slot = self.single_slot(key);
                let (k, d) = slot.raw();
                slot.write(key, new.encode_over(k, d));
            }
            TtPolicy::Depth => {
                let slot = self.single_slot(key);
                let (k, d) = slot.raw();
                if bound_bits(d) == 0
                    || k == key
                    || new.depth >= depth_of(d)
                    || gen_of(d) != new.generation
                {
                    slot.write(key, new.encode_over(k, d));
                }
            }
            TtPolicy::TwoTierAged => self.store_two_tier_aged(&new),
            TtPolicy::Bucket => self.store_bucket(&new),
        }
    }

    /// [`TranspositionTable::store`] into a two-tier table, without asking
    /// the policy: the path games take.
    #[inline]
    pub(crate) fn store_two_tier(
        &self,
        key: u64,
        ply: usize,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
    ) {
        let new = NewEntry::new(self.generation(), key, ply, mv, score, depth, bound);
        self.store_entry_two_tier(&new);
    }

    /// The two-tier store rule (module docs): tier 1 to a result at least
    /// as deep or to any result over an older search's entry, which then
    /// spills into tier 2; everything else into tier 2.
    #[inline]
    fn store_entry_two_tier(&self, new: &NewEntry) {
        let slots = &self.bucket(new.key).0;
        let (k1, d1) = slots[0].raw();
        let empty = bound_bits(d1) == 0;
        let takes_tier1 = empty || new.depth >= depth_of(d1) || gen_of(d1) != new.generation;
        self.place_two_tier(slots, new, takes_tier1, (k1, d1));
    }

    /// Two tiers whose tier 1 ages gradually: an older entry keeps tier 1
    /// against results shallower than its depth less its age's worth.
    fn store_two_tier_aged(&self, new: &NewEntry) {
        let slots = &self.bucket(new.key).0;
        let (k1, d1) = slots[0].raw();
        let takes_tier1 = i32::from(new.depth) >= new.worth(d1);
        self.place_two_tier(slots, new, takes_tier1, (k1, d1));
    }

    /// Puts `new` in tier 1 (spilling tier 1's entry into tier 2 unless it
    /// is the same position's) or in tier 2.
    #[inline]
    fn place_two_tier(&self, slots: &[Slot; 2], new: &NewEntry, tier1: bool, (k1, d1): (u64, u64)) {
        if tier1 {
            if bound_bits(d1) != 0 && k1 != new.key {
                slots[1].write(k1, d1);
            }
            slots[0].write(new.key, new.encode_over(k1, d1));
        } else {
            let (k2, d2) = slots[1].raw();
            slots[1].write(new.key, new.encode_over(k2, d2));
        }
    }

    /// The bucket rule: the same position's slot is updated (unless the
    /// new result is much shallower, of this search and not exact);
    /// otherwise the slot worth least is the victim.
    fn store_bucket(&self, new: &NewEntry) {
        let slots = &self.bucket(new.key).0;
        let raw = [slots[0].raw(), slots[1].raw()];
        if let Some(i) = raw
            .iter()
            .position(|&(k, d)| k == new.key && bound_bits(d) != 0)
        {
            let (k, d) = raw[i];
            let keep_old = new.bound != Bound::Exact
                && i32::from(new.depth) + 2 < i32::from(depth_of(d))
                && gen_of(d) == new.generation;
            if !keep_old {
                slots[i].write(k, new.encode_over(k, d));
            }
            return;
        }
        let victim = usize::from(new.worth(raw[1].1) < new.worth(raw[0].1));
        let (k, d) = raw[victim];
        slots[victim].write(new.key, new.encode_over(k, d));
    }
}
