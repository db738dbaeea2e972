//! The table's unit tests: layout, store rule, ageing, mate scores,
//! torn entries and the comparison policies.

use super::*;
use crate::score::{MATE, MAX_PLY, to_tt};

fn mv(s: &str) -> Move {
    s.parse().expect("test move")
}

/// Two distinct keys that share a bucket in a table of any size.
const K1: u64 = 0x0123_0000_0000_0005;
const K2: u64 = 0x4567_0000_0000_0005;
const K3: u64 = 0x89ab_0000_0000_0005;

fn entry(t: &TranspositionTable, key: u64, tier: usize) -> Option<TtEntry> {
    t.probe(key, 0).entries[tier]
}

#[test]
fn size_is_a_power_of_two_of_buckets() {
    let t = TranspositionTable::new(1);
    assert_eq!(t.buckets(), (1 << 20) / BUCKET_BYTES);
    let t = TranspositionTable::try_new(3, TtPolicy::TwoTier).expect("3 MB");
    assert_eq!(t.buckets(), (2 << 20) / BUCKET_BYTES);
    assert!(TranspositionTable::try_new(0, TtPolicy::TwoTier).is_none());
    assert!(TranspositionTable::try_new(usize::MAX, TtPolicy::TwoTier).is_none());
    assert!(TranspositionTable::try_new(MAX_HASH_MB + 1, TtPolicy::TwoTier).is_none());
}

#[test]
fn every_bound_round_trips() {
    let t = TranspositionTable::new(1);
    for (i, bound) in [Bound::Exact, Bound::Lower, Bound::Upper]
        .into_iter()
        .enumerate()
    {
        let key = 0x1000 + i as u64 * 0x10_0001;
        t.store(key, 3, Some(mv("h2e2")), -123 + i as i32, 7, bound);
        let e = t.probe(key, 3).entries[0].expect("stored entry");
        assert_eq!(
            e,
            TtEntry {
                mv: Some(mv("h2e2")),
                score: -123 + i as i32,
                depth: 7,
                bound,
                generation: 0
            }
        );
    }
    let exact = TtEntry {
        mv: None,
        score: 50,
        depth: 4,
        bound: Bound::Exact,
        generation: 0,
    };
    assert!(exact.cuts(4, 0, 10) && !exact.cuts(5, 0, 10));
    let lower = TtEntry {
        bound: Bound::Lower,
        ..exact
    };
    assert!(lower.cuts(4, 0, 50) && !lower.cuts(4, 0, 51));
    let upper = TtEntry {
        bound: Bound::Upper,
        ..exact
    };
    assert!(upper.cuts(4, 50, 100) && !upper.cuts(4, 49, 100));
    assert!(!t.probe(0x9999, 0).any());
}

#[test]
fn deeper_entry_spills_tier_one_into_tier_two() {
    let t = TranspositionTable::new(1);
    t.store(K1, 0, Some(mv("a0a1")), 10, 5, Bound::Exact);
    assert_eq!(entry(&t, K1, 0).map(|e| e.depth), Some(5));
    // Deeper: takes tier 1, the old tier-1 entry moves to tier 2.
    t.store(K2, 0, Some(mv("b0c2")), 20, 7, Bound::Lower);
    assert_eq!(entry(&t, K2, 0).map(|e| (e.depth, e.score)), Some((7, 20)));
    assert_eq!(entry(&t, K1, 1).map(|e| (e.depth, e.score)), Some((5, 10)));
    // Shallower: goes to tier 2, evicting the spilled entry.
    t.store(K3, 0, None, 30, 3, Bound::Upper);
    assert_eq!(entry(&t, K2, 0).map(|e| e.depth), Some(7));
    assert_eq!(entry(&t, K3, 1).map(|e| (e.depth, e.score)), Some((3, 30)));
    assert!(!t.probe(K1, 0).any());
    // Equal depth counts as deeper.
    t.store(K1, 0, None, 40, 7, Bound::Exact);
    assert_eq!(entry(&t, K1, 0).map(|e| e.score), Some(40));
    assert_eq!(entry(&t, K2, 1).map(|e| e.score), Some(20));
}

#[test]
fn same_position_in_tier_one_is_overwritten_not_spilled() {
    let t = TranspositionTable::new(1);
    t.store(K2, 0, None, 5, 2, Bound::Exact);
    t.store(K1, 0, Some(mv("h2e2")), 10, 4, Bound::Exact);
    t.store(K1, 0, None, 11, 6, Bound::Upper);
    let hit = t.probe(K1, 0);
    assert_eq!(
        hit.entries[0].map(|e| (e.score, e.depth, e.mv)),
        Some((11, 6, Some(mv("h2e2"))))
    );
    // K2, spilled by the first K1 store, stays in tier 2.
    assert_eq!(entry(&t, K2, 1).map(|e| e.score), Some(5));
    assert_eq!(hit.moves(), [Some(mv("h2e2")), None]);
}

#[test]
fn both_tiers_give_moves_and_cutoffs() {
    let t = TranspositionTable::new(1);
    t.store(K1, 0, Some(mv("h2e2")), 100, 8, Bound::Lower);
    t.store(K1, 0, Some(mv("b2e2")), -50, 2, Bound::Upper);
    let hit = t.probe(K1, 0);
    assert_eq!(hit.moves(), [Some(mv("h2e2")), Some(mv("b2e2"))]);
    // Tier 1 cuts a fail-high window at depth 8; tier 2 cuts a low one
    // at depth 2 that tier 1 cannot.
    assert_eq!(hit.cutting(8, 0, 90).map(|e| e.score), Some(100));
    assert_eq!(hit.cutting(2, -40, 200).map(|e| e.score), Some(-50));
    assert_eq!(hit.cutting(3, -40, 200), None);
}

#[test]
fn older_generation_loses_priority_and_hashfull_counts_current() {
    let t = TranspositionTable::new(1);
    t.store(K1, 0, None, 1, 20, Bound::Exact);
    assert_eq!(t.hashfull(), 1);
    t.new_search();
    assert_eq!(t.hashfull(), 0);
    t.store(K2, 0, None, 2, 1, Bound::Exact);
    assert_eq!(
        entry(&t, K2, 0).map(|e| (e.depth, e.generation)),
        Some((1, 1))
    );
    assert_eq!(
        entry(&t, K1, 1).map(|e| (e.depth, e.generation)),
        Some((20, 0))
    );
    // Same generation now: a shallower entry must go to tier 2.
    t.store(K3, 0, None, 3, 0, Bound::Exact);
    assert_eq!(entry(&t, K3, 1).map(|e| e.depth), Some(0));
    t.clear();
    assert!(!t.probe(K2, 0).any());
    assert_eq!(t.generation(), 0);
}

#[test]
fn a_new_table_is_empty_and_usable_everywhere() {
    let t = TranspositionTable::new(2);
    assert_eq!(t.buckets(), 2 * (1 << 20) / BUCKET_BYTES);
    assert_eq!(t.slots().count(), 2 * t.buckets());
    assert!(t.slots().all(|s| s.raw() == (0, 0)));
    // Every bucket sits inside one cache line, and the size is reported
    // as allocated.
    assert_eq!(t.buckets.as_ptr() as usize % BUCKET_BYTES, 0);
    assert_eq!(t.size_mb(), 2);
    assert_eq!(TranspositionTable::new(100).size_mb(), 64);
    assert_eq!(TranspositionTable::new(3).size_mb(), 2);
    assert_eq!(t.hashfull(), 0);
    // The first and the last bucket take entries.
    let last = t.mask;
    for key in [0, last, K1] {
        t.store(key, 0, None, 7, 3, Bound::Exact);
        assert_eq!(entry(&t, key, 0).map(|e| e.score), Some(7));
    }
    assert!(TranspositionTable::try_new(0, TtPolicy::TwoTier).is_none());
}

#[test]
fn a_table_can_be_smaller_than_a_megabyte() {
    let t = TranspositionTable::try_new_kib(256, TtPolicy::TwoTier).expect("256 KiB");
    assert_eq!(t.buckets(), 256 * 1024 / BUCKET_BYTES);
    assert_eq!((t.size_kib(), t.size_mb()), (256, 0));
    // Rounded down to a power of two of buckets, as in MB.
    let t = TranspositionTable::try_new_kib(300, TtPolicy::Bucket).expect("300 KiB");
    assert_eq!((t.size_kib(), t.policy()), (256, TtPolicy::Bucket));
    let t = TranspositionTable::try_new_kib(1, TtPolicy::TwoTier).expect("1 KiB");
    assert_eq!(t.buckets(), 1024 / BUCKET_BYTES);
    t.store(K1, 0, None, 9, 2, Bound::Lower);
    assert_eq!(entry(&t, K1, 0).map(|e| e.score), Some(9));
    assert!(TranspositionTable::try_new_kib(0, TtPolicy::TwoTier).is_none());
    assert!(TranspositionTable::try_new_kib(MAX_HASH_MB * 1024 + 1, TtPolicy::TwoTier).is_none());
}

#[test]
fn a_huge_table_is_built_without_touching_its_pages() {
    // 16 GB of lazily zeroed pages: fast, and no real memory used until
    // written. Skipped where the system will not map that much.
    let t0 = std::time::Instant::now();
    if let Some(t) = TranspositionTable::try_new(16 << 10, TtPolicy::TwoTier) {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(1),
            "{:?}",
            t0.elapsed()
        );
        t.store(K1, 0, None, 5, 1, Bound::Exact);
        assert_eq!(entry(&t, K1, 0).map(|e| e.score), Some(5));
    }
}

#[test]
fn mate_scores_are_stored_relative_to_the_node() {
    let t = TranspositionTable::new(1);
    // Found 4 plies from the root: mate 10 plies from the root is 6
    // from the node.
    t.store(K1, 4, None, MATE - 10, 5, Bound::Exact);
    assert_eq!(t.probe(K1, 4).entries[0].map(|e| e.score), Some(MATE - 10));
    assert_eq!(t.probe(K1, 6).entries[0].map(|e| e.score), Some(MATE - 12));
    assert_eq!(t.probe(K1, 0).entries[0].map(|e| e.score), Some(MATE - 6));
    t.store(K2, 3, None, -(MATE - 7), 5, Bound::Upper);
    assert_eq!(
        t.probe(K2, 1).entries[0].map(|e| e.score),
        Some(-(MATE - 5))
    );
    for ply in 0..MAX_PLY {
        for s in [
            MATE - ply as i32 - 1,
            MATE - 120,
            0,
            777,
            -(MATE - 100),
            -(MATE - 40),
        ] {
            assert_eq!(from_tt(to_tt(s, ply), ply), s);
        }
    }
    assert_eq!(to_tt(MATE - 10, 4), MATE - 6);
    assert_eq!(to_tt(1234, 9), 1234);
}

#[test]
fn torn_entry_is_a_miss() {
    let t = TranspositionTable::new(1);
    t.store(K1, 0, None, 1, 3, Bound::Exact);
    t.store(K2, 0, None, 2, 4, Bound::Exact);
    // Simulate two racing writers: K2's check word with another data word.
    let slots = &t.buckets[(K1 & t.mask) as usize].0;
    let other = encode(Some(mv("a0a1")), 99, 9, Bound::Lower, 0);
    slots[0].data.store(other, Ordering::Relaxed);
    assert!(t.probe(K2, 0).entries[0].is_none());
    assert!(t.probe(K1, 0).entries[0].is_none());
}

#[test]
fn single_slot_policies() {
    let off = TranspositionTable::with_policy(1, TtPolicy::Off);
    off.store(K1, 0, None, 1, 3, Bound::Exact);
    assert!(!off.probe(K1, 0).any());

    let always = TranspositionTable::with_policy(1, TtPolicy::Always);
    always.store(K1, 0, None, 1, 9, Bound::Exact);
    always.store(K2, 0, None, 2, 1, Bound::Exact);
    assert!(!always.probe(K1, 0).any());
    assert_eq!(always.probe(K2, 0).entries[0].map(|e| e.score), Some(2));

    let depth = TranspositionTable::with_policy(1, TtPolicy::Depth);
    depth.store(K1, 0, None, 1, 9, Bound::Exact);
    depth.store(K2, 0, None, 2, 1, Bound::Exact);
    assert!(!depth.probe(K2, 0).any());
    assert_eq!(depth.probe(K1, 0).entries[0].map(|e| e.score), Some(1));
    depth.new_search();
    depth.store(K2, 0, None, 2, 1, Bound::Exact);
    assert_eq!(depth.probe(K2, 0).entries[0].map(|e| e.score), Some(2));
    assert_eq!("two-tier".parse::<TtPolicy>(), Ok(TtPolicy::TwoTier));
    assert_eq!("bucket".parse::<TtPolicy>(), Ok(TtPolicy::Bucket));
    assert_eq!(
        "two-tier-aged".parse::<TtPolicy>(),
        Ok(TtPolicy::TwoTierAged)
    );
    assert!("lru".parse::<TtPolicy>().is_err());
}

/// Under the aged two-tier rule a deep entry of the previous search keeps
/// tier 1 against the next search's shallow stores, and loses it only as
/// its age's worth ([`AGE_WEIGHT`] plies a search) wears its depth down; the
/// all-or-nothing rule gives tier 1 up at the first store of a new search.
#[test]
fn a_deep_entry_survives_shallow_stores_under_gradual_ageing() {
    let aged = TranspositionTable::with_policy(1, TtPolicy::TwoTierAged);
    let plain = TranspositionTable::with_policy(1, TtPolicy::TwoTier);
    for t in [&aged, &plain] {
        t.store(K1, 0, Some(mv("h2e2")), 40, 12, Bound::Exact);
        t.new_search();
        t.store(K2, 0, None, 5, 3, Bound::Lower);
        t.store(K3, 0, None, 6, 2, Bound::Upper);
    }
    // Aged: K1 (depth 12, one search old: worth 8) holds tier 1; the
    // shallow stores share tier 2, the later one in it.
    assert_eq!(entry(&aged, K1, 0).map(|e| e.depth), Some(12));
    assert_eq!(entry(&aged, K3, 1).map(|e| e.depth), Some(2));
    assert!(!aged.probe(K2, 0).any());
    // All-or-nothing: K2 took tier 1 and K1 spilled, then K3 evicted K1.
    assert!(!plain.probe(K1, 0).any());
    // A result as deep as K1's worth takes tier 1 from it.
    aged.store(K2, 0, None, 5, 12 - AGE_WEIGHT, Bound::Lower);
    assert_eq!(entry(&aged, K2, 0).map(|e| e.depth), Some(8));
    assert_eq!(entry(&aged, K1, 1).map(|e| e.depth), Some(12), "spilled");
    // Three searches later K1's worth is 12 − 16 < 0: anything takes it.
    for _ in 0..3 {
        aged.new_search();
    }
    aged.store(K1, 0, None, 1, 0, Bound::Upper);
    assert_eq!(entry(&aged, K1, 0).map(|e| e.depth), Some(0));
}

/// The bucket rule updates a position in its own slot and otherwise evicts
/// the slot worth least (depth less age).
#[test]
fn the_bucket_rule_evicts_the_least_worth() {
    let t = TranspositionTable::with_policy(1, TtPolicy::Bucket);
    t.store(K1, 0, Some(mv("h2e2")), 10, 9, Bound::Exact);
    t.store(K2, 0, None, 20, 4, Bound::Lower);
    // K3 evicts K2 (worth 4 against 9).
    t.store(K3, 0, None, 30, 5, Bound::Lower);
    assert!(!t.probe(K2, 0).any());
    assert!(t.probe(K1, 0).any() && t.probe(K3, 0).any());
    // K1 updated in place; a much shallower result of the same search
    // does not overwrite it, but keeps nothing else out either.
    t.store(K1, 0, None, 11, 3, Bound::Upper);
    let k1 = t
        .probe(K1, 0)
        .entries
        .into_iter()
        .flatten()
        .next()
        .expect("K1");
    assert_eq!((k1.depth, k1.score), (9, 10));
    t.store(K1, 0, None, 12, 8, Bound::Lower);
    let k1 = t
        .probe(K1, 0)
        .entries
        .into_iter()
        .flatten()
        .next()
        .expect("K1");
    assert_eq!((k1.depth, k1.score, k1.mv), (8, 12, Some(mv("h2e2"))));
    // After two searches K3 (5 − 8) is worth less than K1 (8 − 8): K2
    // evicts K3.
    t.new_search();
    t.new_search();
    t.store(K2, 0, None, 20, 1, Bound::Lower);
    assert!(!t.probe(K3, 0).any());
    assert!(t.probe(K1, 0).any() && t.probe(K2, 0).any());
}

/// `hashfull`'s loop over whole buckets counts what the slow count over
/// the first 1,000 slots counts: entries of the current generation, with
/// older ones and empty slots left out, in a full-size table and in one
/// smaller than the sample.
#[test]
fn hashfull_counts_the_current_generation_of_the_first_thousand_slots() {
    use rand::{Rng as _, SeedableRng};
    let slow = |t: &TranspositionTable| {
        let n = t.slots().count().min(1000);
        let generation = t.generation();
        let used = t
            .slots()
            .take(n)
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                bound_bits(d) != 0 && gen_of(d) == generation
            })
            .count();
        (used * 1000 / n) as u32
    };
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(33);
    for t in [
        TranspositionTable::new(1),
        TranspositionTable::try_new_kib(8, TtPolicy::TwoTier).expect("8 KiB"),
    ] {
        let mut seen = Vec::new();
        for round in 0..6 {
            for _ in 0..rng.gen_range(50..400) {
                let key = rng.r#gen::<u64>();
                t.store(key, 0, None, 0, rng.gen_range(0..20), Bound::Exact);
            }
            assert_eq!(t.hashfull(), slow(&t), "round {round}");
            seen.push(t.hashfull());
            t.new_search();
        }
        assert!(seen.iter().any(|&h| h > 0), "nothing counted: {seen:?}");
    }
}
