//! The fast paths against their slow twins, to the bit: each AVX2 kernel
//! against its portable version, and the sparse, threaded optimiser
//! against dense single-threaded Adam.

mod common;

use board::{Color, Piece, PieceKind, Square};
use engine::nnue::features::{Arch, MAX_INPUTS};
use rand_core::RngCore;
use rand_pcg::Pcg64Mcg;
use train::kernels::{self, Backend, Row};
use train::model::WEIGHT_LIMIT;
use train::optim::{Dense, RowSet, Sparse};
use train::trainer::entries;
use train::{Config, Dataset, Entry, FloatNetwork, MirrorRows};

use common::{assert_same_bits, synthetic};

/// The backend to test against the portable one; `None` (with a note) on
/// a CPU without AVX2, where there is nothing to compare.
fn simd() -> Option<Backend> {
    if Backend::Avx2.available() {
        Some(Backend::Avx2)
    } else {
        println!("note: this CPU has no AVX2; the SIMD kernels are not compared");
        None
    }
}

/// A float in `[-limit, limit)`, with one value in 16 chosen from the
/// edges a kernel branches on (0, ±0, 1, the clip, just inside and
/// outside them, NaN).
fn value(rng: &mut Pcg64Mcg, limit: f32) -> f32 {
    const EDGES: [f32; 12] = [
        0.0,
        -0.0,
        1.0,
        0.999_999_94,
        1.000_000_1,
        1e-30,
        -1e-30,
        WEIGHT_LIMIT,
        -WEIGHT_LIMIT,
        2.5,
        -2.5,
        f32::NAN,
    ];
    let r = rng.next_u32();
    if r.is_multiple_of(16) {
        EDGES[(r as usize / 16) % EDGES.len()]
    } else {
        uniform(rng, limit)
    }
}

fn values(rng: &mut Pcg64Mcg, limit: f32) -> Row {
    Row::from_fn(|_| value(rng, limit))
}

/// Equal bits; any two NaNs count as equal (x86 gives an operation on
/// two NaNs the first one's payload, and the compiler may swap the
/// operands of a portable add).
fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || x.is_nan() && y.is_nan())
}

/// A float in `[-limit, limit)`, none of the edge values.
fn uniform(rng: &mut Pcg64Mcg, limit: f32) -> f32 {
    #[allow(clippy::cast_precision_loss)]
    let unit = (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
    (unit * 2.0 - 1.0) * limit
}

fn table(rng: &mut Pcg64Mcg, rows: usize) -> Vec<Row> {
    (0..rows).map(|_| values(rng, 0.5)).collect()
}

fn rows(rng: &mut Pcg64Mcg, n: usize, of: usize) -> Vec<u16> {
    (0..n)
        .map(|_| u16::try_from(rng.next_u64() % of as u64).unwrap_or(0))
        .collect()
}

#[test]
fn hidden_and_row_updates_equal_the_portable_kernels() {
    let Some(fast) = simd() else { return };
    let mut rng = Pcg64Mcg::new(3);
    for round in 0..50 {
        let t = table(&mut rng, 64);
        // Repeated rows too: the order of the additions must still agree.
        let r = rows(&mut rng, round % 33, 64);
        let bias = values(&mut rng, 1.0);
        let (mut a, mut b) = (Row::ZERO, Row::ZERO);
        kernels::hidden(Backend::Scalar, &bias, &t, &r, &mut a);
        kernels::hidden(fast, &bias, &t, &r, &mut b);
        assert!(same(&a, &b), "hidden, round {round}");

        let d = values(&mut rng, 0.1);
        let (mut ga, mut gb) = (t.clone(), t.clone());
        kernels::add_rows(Backend::Scalar, &mut ga, &r, &d);
        kernels::add_rows(fast, &mut gb, &r, &d);
        assert!(
            ga.iter().zip(&gb).all(|(x, y)| same(x, y)),
            "add_rows, round {round}"
        );
    }
}

#[test]
fn output_layer_and_backward_equal_the_portable_kernels() {
    let Some(fast) = simd() else { return };
    let mut rng = Pcg64Mcg::new(5);
    for round in 0..200 {
        let us = values(&mut rng, 1.5);
        let them = values(&mut rng, 1.5);
        let w = [values(&mut rng, 1.0), values(&mut rng, 1.0)];
        let (a, b) = (
            kernels::output(Backend::Scalar, &us, &them, &w),
            kernels::output(fast, &us, &them, &w),
        );
        assert_eq!(a.to_bits(), b.to_bits(), "output, round {round}");

        let dy = value(&mut rng, 0.01);
        let wh = values(&mut rng, 1.0);
        let g0 = values(&mut rng, 0.1);
        let (mut ga, mut gb) = (g0, g0);
        let (mut da, mut db) = (Row::ZERO, Row::from_fn(|_| 1.0));
        kernels::backward_half(Backend::Scalar, &us, &wh, dy, &mut ga, &mut da);
        kernels::backward_half(fast, &us, &wh, dy, &mut gb, &mut db);
        assert!(same(&ga, &gb), "output-weight gradient, round {round}");
        assert!(same(&da, &db), "hidden gradient, round {round}");
    }
}

/// The output layer's sum against an exact (f64) one: the kernels add in
/// 32 partial sums of 16 terms folded by a 5-level tree, so a term passes
/// through at most 21 roundings of the running sums and one of its
/// product, and the error is within `22 × 2⁻²⁴ × Σ|term|`.
#[test]
fn output_layer_is_the_dot_product_within_its_rounding_bound() {
    let mut rng = Pcg64Mcg::new(7);
    for backend in [Backend::Scalar, Backend::detect()] {
        for round in 0..200 {
            let us = Row::from_fn(|_| uniform(&mut rng, 1.5));
            let them = Row::from_fn(|_| uniform(&mut rng, 1.5));
            let w = [(); 2].map(|()| Row::from_fn(|_| uniform(&mut rng, 1.0)));
            let terms: Vec<f64> = us
                .iter()
                .chain(them.iter())
                .zip(w[0].iter().chain(w[1].iter()))
                .map(|(&h, &wt)| f64::from(kernels::screlu(h)) * f64::from(wt))
                .collect();
            let exact: f64 = terms.iter().sum();
            let magnitude: f64 = terms.iter().map(|t| t.abs()).sum();
            let got = f64::from(kernels::output(backend, &us, &them, &w));
            let bound = 22.0 * f64::from(f32::EPSILON) / 2.0 * magnitude;
            assert!(
                (got - exact).abs() <= bound,
                "{backend:?} round {round}: {got} vs {exact}, bound {bound}"
            );
        }
    }
}

#[test]
fn adam_equals_the_portable_kernel() {
    let Some(fast) = simd() else { return };
    let mut rng = Pcg64Mcg::new(9);
    for round in 0..100 {
        let p = values(&mut rng, 2.0);
        let m = values(&mut rng, 0.01);
        let v = Row::from_fn(|_| value(&mut rng, 0.001).abs());
        let g = values(&mut rng, 0.01);
        let step = 1e-3 * (1.0 + value(&mut rng, 0.5).abs());
        let (mut pa, mut ma, mut va) = (p, m, v);
        let (mut pb, mut mb, mut vb) = (p, m, v);
        kernels::adam(
            Backend::Scalar,
            &mut pa,
            &mut ma,
            &mut va,
            &g,
            step,
            WEIGHT_LIMIT,
        );
        kernels::adam(fast, &mut pb, &mut mb, &mut vb, &g, step, WEIGHT_LIMIT);
        assert!(same(&pa, &pb), "parameters, round {round}");
        assert!(same(&ma, &mb), "first moments, round {round}");
        assert!(same(&va, &vb), "second moments, round {round}");
        assert!(pa.iter().all(|x| x.abs() <= WEIGHT_LIMIT));
        // The single-value update (the output bias's) is the same too.
        let (mut p1, mut m1, mut v1) = (p[7], m[7], v[7]);
        kernels::adam_one(&mut p1, &mut m1, &mut v1, g[7], step, WEIGHT_LIMIT);
        assert!(same(&[p1, m1, v1], &[pa[7], ma[7], va[7]]), "round {round}");
    }
}

#[test]
fn row_sets_hold_what_was_inserted() {
    let mut set = RowSet::default();
    assert!(set.is_empty());
    let rows: Vec<u16> = vec![0, 63, 64, 1259, 700, 63];
    set.insert_rows(&rows);
    assert_eq!(set.iter().collect::<Vec<_>>(), vec![0, 63, 64, 700, 1259]);
    assert_eq!(set.len(), 5);
    assert!(set.contains(1259) && !set.contains(1) && !set.contains(MAX_INPUTS));
    let mut other = RowSet::default();
    other.insert_rows(&[1, 700]);
    set.union(&other);
    assert_eq!(set.len(), 6);
}

/// A start network of `arch` with large output weights (so that many
/// hidden units pass gradient) and one first-layer row outside the clip
/// that no data touches: dense Adam clips it at the first step, so the
/// sparse optimiser must too.
fn start(arch: Arch) -> (FloatNetwork, usize) {
    let mut net = FloatNetwork::random(arch, &mut Pcg64Mcg::new(21));
    for w in net
        .out
        .iter_mut()
        .flatten()
        .flat_map(|half| half.iter_mut())
    {
        *w *= 6.0;
    }
    // The own advisor on a0, where no advisor stands.
    let a0 = Square::from_index(0).expect("a0");
    let untouched = arch.index(
        Color::Red,
        0,
        Piece::new(Color::Red, PieceKind::Advisor),
        a0,
    );
    net.ft[untouched][3] = 2.5;
    (net, untouched)
}

/// Rows touched by some batch, then by none for at least one batch, then
/// touched again: the steps the sparse optimiser must replay.
fn replayed_rows(data: &Dataset, entries: &[Entry], batch: usize) -> usize {
    let mut room = MirrorRows::default();
    let sets: Vec<RowSet> = entries
        .chunks(batch)
        .map(|b| {
            let mut set = RowSet::default();
            for &e in b {
                let s = data.entry(e, &mut room);
                set.insert_rows(s.us);
                set.insert_rows(s.them);
            }
            set
        })
        .collect();
    (0..data.arch().inputs())
        .filter(|&r| {
            let seen: Vec<bool> = sets.iter().map(|s| s.contains(r)).collect();
            let first = seen.iter().position(|&x| x);
            let gap = first.and_then(|f| seen[f..].iter().position(|&x| !x).map(|g| f + g));
            gap.is_some_and(|g| seen[g..].contains(&true))
        })
        .count()
}

#[test]
fn sparse_training_gives_the_weights_of_dense_adam() {
    for arch in Arch::ALL {
        let (data, _) = synthetic(arch, 48, 13, Some(12));
        let all: Vec<usize> = (0..data.len()).collect();
        let train_set = entries(&all, true);
        let (net, outside) = start(arch);
        for threads in [1, 3] {
            let cfg = Config {
                batch_size: 8,
                threads,
                lambda: 0.2,
                ..Config::default()
            };
            assert!(replayed_rows(&data, &train_set, cfg.batch_size) > 20);
            let mut dense = Dense::new(net.clone(), threads, Backend::Scalar);
            let mut sparse = Sparse::new(net.clone(), threads, Backend::detect()).expect("threads");
            // The learning rate changes between epochs, as the schedule does.
            for (epoch, lr) in [0.01f32, 0.01, 0.002].into_iter().enumerate() {
                let mut order = train_set.clone();
                order.rotate_left(epoch * 5);
                let a = dense.epoch(&data, &order, &cfg, lr, |_, _| {});
                let b = sparse.epoch(&data, &order, &cfg, lr, |_, _| {});
                assert_same_bits(
                    dense.network(),
                    sparse.network(),
                    &format!("{arch}, {threads} threads, epoch {}", epoch + 1),
                );
                // The loss is summed in another grouping: equal to rounding.
                assert!((a - b).abs() <= 1e-9 * a.abs(), "loss {a} vs {b}");
            }
            assert!(sparse.network().ft[outside][3] <= WEIGHT_LIMIT);
            assert_ne!(sparse.network(), &net, "training moved nothing");
        }
    }
}
