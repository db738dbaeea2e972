//! The transposition table: two tiers per bucket, lock-free entries.
//!
//! This module owns the table's memory, its replacement rule, ageing,
//! occupancy (`hashfull`) and the answer to the protocol's `probe`. It
//! knows nothing of the search: the score bands and their ply adjustment
//! come from the score vocabulary (`score.rs`); probe/hit
//! statistics are counted by each search thread, not here, so that the
//! table needs no shared counters.
//!
//! # Layout
//!
//! The table is a power-of-two array of buckets; a position's bucket is
//! `key & mask` (no division). A bucket is 32 bytes, two entries:
//!
//! * **tier 1, depth-preferred**: keeps the deepest result of the current
//!   search;
//! * **tier 2, always-replace**: takes whatever tier 1 refuses, and whatever
//!   tier 1 loses.
//!
//! An entry is two `AtomicU64` words, `check = key ^ data` and `data`:
//!
//! ```text
//! data bit  63      56 55     48 47   42 41 40 39    32 31          16 15           0
//!          +----------+---------+-------+-----+--------+--------------+--------------+
//!          | (unused) |   gen   |unused |bound| depth  | score (i16)  | move (u16)   |
//!          +----------+---------+-------+-----+--------+--------------+--------------+
//! bound: 0 = empty slot, 1 = upper, 2 = lower, 3 = exact
//! depth: remaining depth in plies (0 = quiescence), u8
//! gen:   the search generation that wrote the entry
//! move:  Move::to_u16, 0 = none
//! ```
//!
//! Readers load both words and accept the entry only if `check ^ data`
//! equals the full 64-bit key. Two threads writing the same slot at once
//! can leave `check` from one write and `data` from the other; the XOR
//! then matches neither key, so a torn entry is seen as a miss instead of
//! being trusted. The full key is compared, so a false hit needs a 64-bit
//! Zobrist collision — negligible. Moves from the table are still checked
//! for legality before they are played.
//!
//! # Store rule (two-tier)
//!
//! 1. If the new entry's depth is at least tier 1's depth, or tier 1 was
//!    written by an older search (or is empty), the new entry takes tier 1
//!    and tier 1's previous entry **spills** into tier 2 (replacing what was
//!    there). When tier 1 held the same position, it is simply overwritten:
//!    spilling a stale copy of the same position would only evict another
//!    position from tier 2.
//! 2. Otherwise the new entry goes into tier 2.
//!
//! A store without a move keeps the move the same position already had in
//! the slot it overwrites.
//!
//! # Ageing
//!
//! [`TranspositionTable::new_search`] increments an 8-bit generation. An
//! entry of an older generation loses its depth priority in tier 1 and is
//! not counted by `hashfull`; it still gives hits until it is overwritten.
//!
//! # Mate scores
//!
//! The search scores a mate as `MATE - ply` with `ply` counted from the
//! root. A table entry must not depend on where the node was reached, so
//! decisive scores (mates and rule wins) are stored as distance from the
//! node: `score + ply` for wins, `score - ply` for losses, and converted
//! back with the probing node's ply.
//!
//! # Comparison policies
//!
//! For measuring what the two tiers buy (the table experiments, run by the
//! search's experiment mode; play calls the two-tier rule directly), the same
//! memory can run other rules (`tt/replace.rs`): as a
//! single-entry-per-slot table (each of the two slots of a bucket is then
//! its own 1-entry bucket indexed by one more key bit), `Always` replaces
//! unconditionally and `Depth` when deeper-or-equal or older; with the
//! two slots of a bucket, `TwoTierAged` is two-tier with tier 1's priority
//! fading by [`AGE_WEIGHT`] plies per search of age instead of lost at
//! once, and `Bucket` is Stockfish's style (the same position's slot
//! updated in place, else the slot with the lowest depth − age worth
//! evicted). `Off` never stores and never hits.
//!
//! # Why two-tier
//!
//! A deep result is expensive to find again, so it keeps its slot against
//! shallower ones (tier 1), while the newest result of any depth still
//! finds a place (tier 2): the move ordering of the current iteration
//! lives there. No rival rule did better in games (each against two-tier,
//! in a crowded table: always-replace clearly worse, the others level
//! within the tests' error); the experiments and their figures are in
//! `docs/lab/measurements.md`, "Transposition table".

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use board::{Move, Position};

use crate::score::{Bound, Score, from_tt};

mod memory;
pub(crate) use memory::prefetch;
mod replace;

use memory::Buckets;

/// Which replacement scheme the table runs (the table experiments; the
/// rules are in `tt/replace.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum TtPolicy {
    /// No table: every probe misses.
    Off,
    /// One entry per slot, always replaced.
    Always,
    /// One entry per slot, replaced by a deeper (or equal) or newer entry.
    Depth,
    /// The specified scheme: depth-preferred tier 1 spilling into
    /// always-replace tier 2.
    #[default]
    TwoTier,
    /// Two tiers, with tier 1's priority fading by age: an entry of `a`
    /// searches ago keeps tier 1 only against depths below its own depth
    /// minus 4 plies (`AGE_WEIGHT`) per search of age, instead of losing it
    /// outright.
    TwoTierAged,
    /// Two equal slots per bucket in the style of Stockfish's: the same
    /// position's slot is updated in place, otherwise the victim is the
    /// slot with the lowest depth − 4 plies (`AGE_WEIGHT`) × age.
    Bucket,
}

/// Plies of depth one search generation of age is worth in the ageing
/// policies ([`TtPolicy::TwoTierAged`], [`TtPolicy::Bucket`]).
pub const AGE_WEIGHT: i32 = 4;

impl std::str::FromStr for TtPolicy {
    type Err = String;

    fn from_str(s: &str) -> Result<TtPolicy, String> {
        match s.to_ascii_lowercase().as_str() {
            "off" => Ok(TtPolicy::Off),
            "always" => Ok(TtPolicy::Always),
            "depth" => Ok(TtPolicy::Depth),
            "two-tier" | "twotier" | "two_tier" => Ok(TtPolicy::TwoTier),
            "two-tier-aged" | "aged" => Ok(TtPolicy::TwoTierAged),
            "bucket" => Ok(TtPolicy::Bucket),
            _ => Err(format!(
                "unknown table policy '{s}' (off, always, depth, two-tier, two-tier-aged, bucket)"
            )),
        }
    }
}

impl std::fmt::Display for TtPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TtPolicy::Off => "off",
            TtPolicy::Always => "always",
            TtPolicy::Depth => "depth",
            TtPolicy::TwoTier => "two-tier",
            TtPolicy::TwoTierAged => "two-tier-aged",
            TtPolicy::Bucket => "bucket",
        })
    }
}

/// A table probe for the protocol's `probe` command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeResult {
    /// Best move stored for the position (legal here).
    pub best: Option<Move>,
    /// A lower bound (score, depth), exact scores included.
    pub lower: Option<(Score, u32)>,
    /// An upper bound (score, depth), exact scores included.
    pub upper: Option<(Score, u32)>,
}

/// One decoded table entry, as the search sees it (score already
/// converted to the probing node's ply).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    /// Best or refutation move, not yet checked for legality.
    pub mv: Option<Move>,
    /// Score (node-relative mates converted to root-relative).
    pub score: i32,
    /// Remaining depth the score was searched to.
    pub depth: u8,
    /// How the score bounds the true value.
    pub bound: Bound,
    /// The generation that wrote it.
    pub generation: u8,
}

impl TtEntry {
    /// Whether this entry's score decides the node for the window
    /// `[alpha, beta]` at remaining depth `depth`.
    pub fn cuts(&self, depth: i32, alpha: i32, beta: i32) -> bool {
        i32::from(self.depth) >= depth
            && match self.bound {
                Bound::Exact => true,
                Bound::Lower => self.score >= beta,
                Bound::Upper => self.score <= alpha,
            }
    }
}

/// What a probe found: up to one entry per tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TtHit {
    /// Entries found, tier 1 first.
    pub entries: [Option<TtEntry>; 2],
}

impl TtHit {
    /// Whether anything was found.
    pub fn any(&self) -> bool {
        self.entries.iter().any(Option::is_some)
    }

    /// The first entry that cuts the window, if any.
    pub fn cutting(&self, depth: i32, alpha: i32, beta: i32) -> Option<TtEntry> {
        self.entries
            .iter()
            .flatten()
            .copied()
            .find(|e| e.cuts(depth, alpha, beta))
    }

    /// The distinct stored moves, tier 1's first.
    pub fn moves(&self) -> [Option<Move>; 2] {
        let a = self.entries[0].and_then(|e| e.mv);
        let b = self.entries[1].and_then(|e| e.mv);
        let a = a.or(b);
        let b = if b == a { None } else { b };
        [a, b]
    }
}

/// Table probe statistics of one search thread, counted by the
/// searches of an experiment ([`crate::Experiment`]) and summed over the
/// threads: play counts none.
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

/// A bucket: the two slots one key indexes, aligned to its own size so
/// that it never straddles a cache line (the allocator only promises 16
/// bytes, which would split every other bucket across two lines).
#[derive(Debug, Default)]
#[repr(C, align(32))]
struct Bucket([Slot; 2]);

const _: () = assert!(std::mem::size_of::<Bucket>() == BUCKET_BYTES);

/// One lock-free slot: `check = key ^ data` and `data`.
#[derive(Debug, Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The entry's data word if it belongs to `key`.
    #[inline]
    fn read(&self, key: u64) -> Option<u64> {
        let data = self.data.load(Ordering::Relaxed);
        let check = self.check.load(Ordering::Relaxed);
        (check ^ data == key && bound_bits(data) != 0).then_some(data)
    }

    /// The raw words (for replacement decisions): key and data, or `None`
    /// when empty or torn beyond use (an empty slot reads as data 0).
    #[inline]
    fn raw(&self) -> (u64, u64) {
        let data = self.data.load(Ordering::Relaxed);
        let check = self.check.load(Ordering::Relaxed);
        (check ^ data, data)
    }

    #[inline]
    fn write(&self, key: u64, data: u64) {
        self.data.store(data, Ordering::Relaxed);
        self.check.store(key ^ data, Ordering::Relaxed);
    }

    fn clear(&self) {
        self.data.store(0, Ordering::Relaxed);
        self.check.store(0, Ordering::Relaxed);
    }
}

#[inline]
fn bound_bits(data: u64) -> u64 {
    (data >> 40) & 3
}

#[inline]
fn depth_of(data: u64) -> u8 {
    (data >> 32) as u8
}

#[inline]
fn gen_of(data: u64) -> u8 {
    (data >> 48) as u8
}

#[inline]
fn move_bits(data: u64) -> u16 {
    data as u16
}

fn encode(mv: Option<Move>, score: i32, depth: u8, bound: Bound, generation: u8) -> u64 {
    let b: u64 = match bound {
        Bound::Upper => 1,
        Bound::Lower => 2,
        Bound::Exact => 3,
    };
    let score = score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16;
    u64::from(mv.map_or(0, Move::to_u16))
        | u64::from(score as u16) << 16
        | u64::from(depth) << 32
        | b << 40
        | u64::from(generation) << 48
}

fn decode(data: u64, ply: usize) -> TtEntry {
    let bound = match bound_bits(data) {
        1 => Bound::Upper,
        2 => Bound::Lower,
        _ => Bound::Exact,
    };
    TtEntry {
        mv: Move::from_u16(move_bits(data)),
        score: from_tt(i32::from((data >> 16) as u16 as i16), ply),
        depth: depth_of(data),
        bound,
        generation: gen_of(data),
    }
}

/// The shared hash table. `Sync`: every slot is a pair of atomics.
#[derive(Debug)]
pub struct TranspositionTable {
    buckets: Buckets,
    /// Buckets minus one.
    mask: u64,
    generation: AtomicU8,
    policy: TtPolicy,
}

/// The table size a new engine starts with, in MB.
pub const DEFAULT_HASH_MB: usize = 16;

/// The largest table accepted, in MB. Allocation is checked, but with
/// memory overcommit a huge table would only fail when touched, so sizes
/// beyond any sensible use are refused up front.
pub const MAX_HASH_MB: usize = 1 << 16;

/// Bytes per bucket (two slots of two words).
pub const BUCKET_BYTES: usize = 32;

impl TranspositionTable {
    /// A table of `mb` megabytes (at least one bucket), two-tier policy.
    ///
    /// # Panics
    /// If the memory cannot be allocated; see [`TranspositionTable::try_new`].
    #[cfg(test)]
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::with_policy(mb, TtPolicy::TwoTier)
    }

    /// A table of `mb` megabytes running `policy`.
    ///
    /// # Panics
    /// If the memory cannot be allocated.
    pub fn with_policy(mb: usize, policy: TtPolicy) -> TranspositionTable {
        TranspositionTable::try_new(mb.max(1), policy).expect("hash table allocation")
    }

    /// A table of `mb` megabytes, rounded down to a power of two of
    /// buckets; `None` for 0 MB, more than [`MAX_HASH_MB`], or a size that
    /// cannot be allocated.
    pub fn try_new(mb: usize, policy: TtPolicy) -> Option<TranspositionTable> {
        if mb > MAX_HASH_MB {
            return None;
        }
        TranspositionTable::try_new_kib(mb.checked_mul(1024)?, policy)
    }

    /// A table of `kib` KiB, rounded down to a power of two of buckets:
    /// the table experiments crowd a table by making it small rather than
    /// by searching long, so they need sizes below the 1 MB `Hash` allows.
    /// `None` for less than one bucket, more than [`MAX_HASH_MB`], or a
    /// size that cannot be allocated.
    pub fn try_new_kib(kib: usize, policy: TtPolicy) -> Option<TranspositionTable> {
        if kib > MAX_HASH_MB * 1024 {
            return None;
        }
        let buckets = kib.checked_mul(1024)? / BUCKET_BYTES;
        if buckets == 0 {
            return None;
        }
        let buckets = 1usize << (usize::BITS - 1 - buckets.leading_zeros());
        Some(TranspositionTable {
            buckets: Buckets::zeroed(buckets)?,
            mask: buckets as u64 - 1,
            generation: AtomicU8::new(0),
            policy,
        })
    }

    /// The size allocated, in MB: the size asked for rounded down to a
    /// power of two of buckets (so 100 MB gives 64; a table below 1 MB
    /// gives 0).
    pub fn size_mb(&self) -> usize {
        self.size_kib() >> 10
    }

    /// The size allocated, in KiB.
    pub fn size_kib(&self) -> usize {
        (self.buckets.len() * BUCKET_BYTES) >> 10
    }

    /// Number of buckets.
    #[cfg(test)]
    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }

    /// Every slot, bucket by bucket.
    fn slots(&self) -> impl Iterator<Item = &Slot> {
        self.buckets.iter().flat_map(|b| &b.0)
    }

    /// The replacement policy.
    pub fn policy(&self) -> TtPolicy {
        self.policy
    }

    /// Empties every slot and resets the generation.
    pub fn clear(&self) {
        for s in self.slots() {
            s.clear();
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search generation (ages every stored entry).
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    /// The current generation.
    pub fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    /// Looks `key` up by the table's policy; scores are converted for a
    /// node `ply` plies from the root.
    #[inline]
    pub fn probe(&self, key: u64, ply: usize) -> TtHit {
        match self.policy {
            TtPolicy::TwoTier | TtPolicy::TwoTierAged | TtPolicy::Bucket => {
                self.probe_two_tier(key, ply)
            }
            TtPolicy::Off => TtHit::default(),
            TtPolicy::Always | TtPolicy::Depth => {
                let mut hit = TtHit::default();
                hit.entries[0] = self.single_slot(key).read(key).map(|d| decode(d, ply));
                hit
            }
        }
    }

    /// Asks the processor to bring `key`'s bucket into its cache, so that
    /// a probe a little later finds it there. The search calls it with the
    /// child's key (`Position::key_after`) before it makes the move, so
    /// that making the move and the child's first steps (the rules'
    /// verdict, mate-distance pruning) hide the memory's latency: without
    /// it the probe was the datagen profile's largest item, almost all of
    /// it waiting for RAM.
    /// A hint only: no result, no effect on what any probe returns.
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        memory::prefetch(self.bucket(key));
    }

    /// [`TranspositionTable::probe`] of a two-slot bucket (two-tier and
    /// the bucket policies), without asking the policy: the path games
    /// take.
    #[inline]
    pub(crate) fn probe_two_tier(&self, key: u64, ply: usize) -> TtHit {
        let bucket = &self.bucket(key).0;
        TtHit {
            entries: [
                bucket[0].read(key).map(|d| decode(d, ply)),
                bucket[1].read(key).map(|d| decode(d, ply)),
            ],
        }
    }

    /// The bucket `key` indexes (the two-slot policies' pair, and what a
    /// prefetch fetches).
    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        &self.buckets[(key & self.mask) as usize]
    }

    /// The one slot of `key` for the one-entry policies: each of a
    /// bucket's two slots is its own one-entry bucket, indexed by one more
    /// key bit.
    #[inline]
    fn single_slot(&self, key: u64) -> &Slot {
        let i = (key & (self.mask << 1 | 1)) as usize;
        &self.buckets[i >> 1].0[i & 1]
    }

    /// Occupancy by the current generation, per mille, sampled over the
    /// first 1000 slots.
    pub fn hashfull(&self) -> u32 {
        // Whole buckets (two slots each) in a plain loop: a short search
        // reports after every iteration, and these thousand loads are most
        // of a report's cost (the slot iterator's `flat_map` added a tenth).
        let buckets = self.buckets.len().min(500);
        let generation = self.generation();
        let current = |s: &Slot| {
            let d = s.data.load(Ordering::Relaxed);
            usize::from(bound_bits(d) != 0 && gen_of(d) == generation)
        };
        let used: usize = self.buckets[..buckets]
            .iter()
            .map(|b| current(&b.0[0]) + current(&b.0[1]))
            .sum();
        (used * 1000 / (buckets * 2).max(1)) as u32
    }

    /// What the table knows about `pos` (root-relative scores), for the
    /// protocol's `probe`: the stored move if legal, and the best bounds.
    pub fn probe_result(&self, pos: &Position) -> Option<ProbeResult> {
        let hit = self.probe(pos.key(), 0);
        if !hit.any() {
            return None;
        }
        let best = hit.moves().into_iter().flatten().find(|&m| pos.is_legal(m));
        let mut lower: Option<(i32, u32)> = None;
        let mut upper: Option<(i32, u32)> = None;
        for e in hit.entries.iter().flatten() {
            let d = u32::from(e.depth);
            if matches!(e.bound, Bound::Lower | Bound::Exact) && lower.is_none_or(|(_, ld)| d > ld)
            {
                lower = Some((e.score, d));
            }
            if matches!(e.bound, Bound::Upper | Bound::Exact) && upper.is_none_or(|(_, ud)| d > ud)
            {
                upper = Some((e.score, d));
            }
        }
        let public = |b: Option<(i32, u32)>| b.map(|(s, d)| (Score::from_raw(s), d));
        Some(ProbeResult {
            best,
            lower: public(lower),
            upper: public(upper),
        })
    }
}

#[cfg(test)]
mod tests;
