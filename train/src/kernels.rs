//! The trainer's hot loops, each written twice: portable Rust and AVX2
//! (`std::arch`), chosen at run time with `is_x86_feature_detected!`.
//! The model and the optimiser call these and nothing else for their
//! per-unit arithmetic; the caller decides which rows and which batches.
//!
//! Exactness: the two versions of a kernel do the same IEEE operations in
//! the same order, so they give the same bits, and the tests demand
//! equality. Each output unit is computed in its own lane with no
//! reordering; the one reduction, the output layer's dot product, is summed
//! in [`LANES`] partial sums (element `i` into sum `i % LANES`) folded in a
//! fixed tree, and the portable version keeps the same partial sums and
//! the same tree. Multiplies and adds stay separate (no fused multiply-add,
//! which would round once where the portable twin rounds twice): a network
//! trained on a CPU without AVX2 is then the same file, byte for byte.
//!
//! The clamps are written as `max`/`min` with the AVX rules (`max(x, 0)`
//! is `x > 0 ? x : 0`) in both versions, so even a `NaN` is treated alike.
//!
//! The kernels work on [`Row`]s, `HIDDEN` floats aligned to 32 bytes, so
//! that the AVX2 versions load and store whole registers: at an address
//! the compiler cannot prove aligned it splits every 32-byte access in two
//! (a tuning for older CPUs), which made these loops about 1.6 times
//! slower.

use std::ops::{Deref, DerefMut};

use engine::nnue::features::HIDDEN;

/// Partial sums of the output layer's dot product (four AVX2 registers).
pub const LANES: usize = 32;

/// Units handled per pass over a sample's rows: eight AVX2 registers held
/// while every row is added, so that each row is read once per pass.
const BLOCK: usize = 64;

const _: () = assert!(HIDDEN.is_multiple_of(BLOCK) && HIDDEN.is_multiple_of(LANES));

/// Adam's decay rates and its denominator's guard.
pub const BETA1: f32 = 0.9;
/// See [`BETA1`].
pub const BETA2: f32 = 0.999;
/// See [`BETA1`].
pub const EPS: f32 = 1e-8;

/// `HIDDEN` floats (one first-layer row, a bias vector, a perspective's
/// hidden layer), aligned to 32 bytes; reads and writes as a `[f32]`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(32))]
pub struct Row([[f32; 8]; HIDDEN / 8]);

impl Row {
    /// All zeros.
    pub const ZERO: Row = Row([[0.0; 8]; HIDDEN / 8]);

    /// The row whose value `j` is `f(j)`, computed in order of `j`.
    pub fn from_fn(mut f: impl FnMut(usize) -> f32) -> Row {
        let mut row = Row::ZERO;
        for (j, x) in row.iter_mut().enumerate() {
            *x = f(j);
        }
        row
    }
}

impl Deref for Row {
    type Target = [f32];

    fn deref(&self) -> &[f32] {
        self.0.as_flattened()
    }
}

impl DerefMut for Row {
    fn deref_mut(&mut self) -> &mut [f32] {
        self.0.as_flattened_mut()
    }
}

/// Which implementation runs the kernels: the engine's own choice of
/// backend, the same type (portable Rust, or AVX2 where the CPU has it).
pub use engine::nnue::simd::Backend;

/// Whether the AVX2 versions may run for `backend`: asked for (AVX2, or
/// AVX-512, whose CPUs have AVX2 and whose float kernels here are AVX2's)
/// and supported. Every kernel falls back to the portable version
/// otherwise.
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx2(backend: Backend) -> bool {
    matches!(backend, Backend::Avx2 | Backend::Avx512) && backend.available()
}

/// `clamp(x, 0, 1)` as the AVX `max`/`min` compute it.
#[inline]
fn clip(x: f32) -> f32 {
    let c = if x > 0.0 { x } else { 0.0 };
    if c < 1.0 { c } else { 1.0 }
}

/// The activation, `clamp(x, 0, 1)²`.
#[inline]
pub fn screlu(x: f32) -> f32 {
    let c = clip(x);
    c * c
}

/// `p` clipped to `±limit`, as the AVX `min`/`max` compute it.
#[inline]
fn clip_limit(p: f32, limit: f32) -> f32 {
    let a = if p < limit { p } else { limit };
    if a > -limit { a } else { -limit }
}

/// One parameter's Adam update, the operation order every backend keeps
/// (the AVX2 kernel does each lane so).
#[inline]
pub fn adam_one(p: &mut f32, m: &mut f32, v: &mut f32, g: f32, step: f32, limit: f32) {
    *m = BETA1 * *m + (1.0 - BETA1) * g;
    *v = BETA2 * *v + (1.0 - BETA2) * g * g;
    *p = clip_limit(*p - step * *m / (v.sqrt() + EPS), limit);
}

/// A perspective's hidden layer before the activation: `out = bias +
/// Σ table[row]`, the rows added in the order given.
///
/// # Panics
/// If a row is not in `table`.
pub fn hidden(backend: Backend, bias: &Row, table: &[Row], rows: &[u16], out: &mut Row) {
    #[cfg(target_arch = "x86_64")]
    if avx2(backend) {
        // SAFETY: the CPU has AVX2 (checked by `avx2`), the one
        // requirement of a function compiled for it.
        unsafe { avx2::hidden(bias, table, rows, out) };
        return;
    }
    let _ = backend;
    *out = *bias;
    for &row in rows {
        for (x, w) in out.iter_mut().zip(table[usize::from(row)].iter()) {
            *x += w;
        }
    }
}

/// The output layer before its bias: `Σ screlu(us[j]) × w[0][j] + Σ
/// screlu(them[j]) × w[1][j]`, in [`LANES`] partial sums folded by
/// [`fold`].
pub fn output(backend: Backend, us: &Row, them: &Row, w: &[Row; 2]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if avx2(backend) {
        // SAFETY: the CPU has AVX2 (checked by `avx2`).
        return unsafe { avx2::output(us, them, w) };
    }
    let _ = backend;
    let mut sums = [0.0f32; LANES];
    let weights = w[0].iter().chain(w[1].iter());
    for (i, (h, wt)) in us.iter().chain(them.iter()).zip(weights).enumerate() {
        sums[i % LANES] += screlu(*h) * wt;
    }
    fold(&sums)
}

/// The fixed tree that folds the partial sums: the four 8-lane groups
/// pairwise (`(0 + 1) + (2 + 3)`), then within the 8 lanes the upper half
/// onto the lower (`l + l+4`), then `l + l+2`, then `0 + 1`, as the AVX2
/// horizontal sum goes.
pub fn fold(sums: &[f32; LANES]) -> f32 {
    let group = |g: usize| -> [f32; 8] { std::array::from_fn(|l| sums[8 * g + l]) };
    let (a, b, c, d) = (group(0), group(1), group(2), group(3));
    let e: [f32; 8] = std::array::from_fn(|l| (a[l] + b[l]) + (c[l] + d[l]));
    let four: [f32; 4] = std::array::from_fn(|l| e[l] + e[l + 4]);
    let two = [four[0] + four[2], four[1] + four[3]];
    two[0] + two[1]
}

/// One perspective's half of the backward pass below the output: adds
/// `dy × screlu(h)` to the output weights' gradient `gw`, and sets `d` to
/// the gradient at the hidden units, `dy × w × 2h` inside `(0, 1)` and 0
/// outside.
pub fn backward_half(backend: Backend, h: &Row, w: &Row, dy: f32, gw: &mut Row, d: &mut Row) {
    #[cfg(target_arch = "x86_64")]
    if avx2(backend) {
        // SAFETY: the CPU has AVX2 (checked by `avx2`).
        unsafe { avx2::backward_half(h, w, dy, gw, d) };
        return;
    }
    let _ = backend;
    for j in 0..HIDDEN {
        let x = h[j];
        gw[j] += dy * screlu(x);
        d[j] = if x > 0.0 && x < 1.0 {
            dy * w[j] * 2.0 * x
        } else {
            0.0
        };
    }
}

/// Adds `d` to each of `rows` of `table`, in the order given.
///
/// # Panics
/// If a row is not in `table`.
pub fn add_rows(backend: Backend, table: &mut [Row], rows: &[u16], d: &Row) {
    #[cfg(target_arch = "x86_64")]
    if avx2(backend) {
        // SAFETY: the CPU has AVX2 (checked by `avx2`).
        unsafe { avx2::add_rows(table, rows, d) };
        return;
    }
    let _ = backend;
    for &row in rows {
        for (g, x) in table[usize::from(row)].iter_mut().zip(d.iter()) {
            *g += x;
        }
    }
}

/// Adam over a row of parameters with their moments and gradient, step
/// size `step` (the learning rate with both bias corrections), then the
/// clip to `±limit`; each value as [`adam_one`].
pub fn adam(
    backend: Backend,
    p: &mut Row,
    m: &mut Row,
    v: &mut Row,
    g: &Row,
    step: f32,
    limit: f32,
) {
    #[cfg(target_arch = "x86_64")]
    if avx2(backend) {
        // SAFETY: the CPU has AVX2 (checked by `avx2`).
        unsafe { avx2::adam(p, m, v, g, step, limit) };
        return;
    }
    let _ = backend;
    for (((p, m), v), g) in p
        .iter_mut()
        .zip(m.iter_mut())
        .zip(v.iter_mut())
        .zip(g.iter())
    {
        adam_one(p, m, v, *g, step, limit);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The AVX2 kernels: safe functions compiled for AVX2, which the
    //! dispatchers above call only on a CPU that has it. Memory is touched
    //! only through [`load`] and [`store`], on the aligned 8-float groups
    //! of a [`Row`].

    use std::arch::x86_64::{
        __m256, _CMP_GT_OQ, _CMP_LT_OQ, _mm256_add_ps, _mm256_and_ps, _mm256_cmp_ps, _mm256_div_ps,
        _mm256_load_ps, _mm256_max_ps, _mm256_min_ps, _mm256_mul_ps, _mm256_set1_ps,
        _mm256_setzero_ps, _mm256_sqrt_ps, _mm256_store_ps, _mm256_sub_ps,
    };

    use super::{BETA1, BETA2, BLOCK, EPS, HIDDEN, LANES, Row, fold};

    /// Registers held across the rows of a sample.
    const REGS: usize = BLOCK / 8;
    /// Registers in a row.
    const GROUPS: usize = HIDDEN / 8;

    /// Group `i` (floats `8i..8i + 8`) of a row, as a register.
    ///
    /// # Panics
    /// If `i >= HIDDEN / 8`.
    #[target_feature(enable = "avx2")]
    fn load(row: &Row, i: usize) -> __m256 {
        let group = &row.0[i];
        // SAFETY: `group` is 8 readable floats at a multiple of 32 bytes
        // from the start of a `Row`, which is 32-byte aligned, so the
        // aligned load's requirement holds.
        unsafe { _mm256_load_ps(group.as_ptr()) }
    }

    /// A register, into group `i` of a row.
    ///
    /// # Panics
    /// If `i >= HIDDEN / 8`.
    #[target_feature(enable = "avx2")]
    fn store(row: &mut Row, i: usize, x: __m256) {
        let group = &mut row.0[i];
        // SAFETY: `group` is 8 writable floats, 32-byte aligned as in
        // `load`, and borrowed mutably, so nothing else sees the store.
        unsafe { _mm256_store_ps(group.as_mut_ptr(), x) }
    }

    /// `clamp(x, 0, 1)²`, lane by lane, as [`super::screlu`].
    #[target_feature(enable = "avx2")]
    fn screlu(x: __m256) -> __m256 {
        let c = _mm256_min_ps(_mm256_max_ps(x, _mm256_setzero_ps()), _mm256_set1_ps(1.0));
        _mm256_mul_ps(c, c)
    }

    /// See [`super::hidden`]; `BLOCK` units at a time held in registers,
    /// so that each row is read once per pass.
    #[target_feature(enable = "avx2")]
    pub(super) fn hidden(bias: &Row, table: &[Row], rows: &[u16], out: &mut Row) {
        for c in (0..GROUPS).step_by(REGS) {
            let mut acc = [_mm256_setzero_ps(); REGS];
            for (k, a) in acc.iter_mut().enumerate() {
                *a = load(bias, c + k);
            }
            for &row in rows {
                let w = &table[usize::from(row)];
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = _mm256_add_ps(*a, load(w, c + k));
                }
            }
            for (k, a) in acc.into_iter().enumerate() {
                store(out, c + k, a);
            }
        }
    }

    /// See [`super::output`].
    #[target_feature(enable = "avx2")]
    pub(super) fn output(us: &Row, them: &Row, w: &[Row; 2]) -> f32 {
        let mut sums = [_mm256_setzero_ps(); LANES / 8];
        for (h, w) in [us, them].into_iter().zip(w) {
            for i in (0..GROUPS).step_by(LANES / 8) {
                for (k, s) in sums.iter_mut().enumerate() {
                    let (x, wt) = (load(h, i + k), load(w, i + k));
                    *s = _mm256_add_ps(*s, _mm256_mul_ps(screlu(x), wt));
                }
            }
        }
        let mut lanes = Row::ZERO;
        for (k, s) in sums.into_iter().enumerate() {
            store(&mut lanes, k, s);
        }
        let mut partial = [0.0f32; LANES];
        partial.copy_from_slice(&lanes[..LANES]);
        fold(&partial)
    }

    /// See [`super::backward_half`].
    #[target_feature(enable = "avx2")]
    pub(super) fn backward_half(h: &Row, w: &Row, dy: f32, gw: &mut Row, d: &mut Row) {
        let (vdy, two) = (_mm256_set1_ps(dy), _mm256_set1_ps(2.0));
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        for i in 0..GROUPS {
            let (x, wt) = (load(h, i), load(w, i));
            let g = _mm256_add_ps(load(gw, i), _mm256_mul_ps(vdy, screlu(x)));
            let inside = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_GT_OQ>(x, zero),
                _mm256_cmp_ps::<_CMP_LT_OQ>(x, one),
            );
            let grad = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(vdy, wt), two), x);
            store(gw, i, g);
            store(d, i, _mm256_and_ps(inside, grad));
        }
    }

    /// See [`super::add_rows`]; `BLOCK` units of `d` held in registers.
    #[target_feature(enable = "avx2")]
    pub(super) fn add_rows(table: &mut [Row], rows: &[u16], d: &Row) {
        for c in (0..GROUPS).step_by(REGS) {
            let mut dv = [_mm256_setzero_ps(); REGS];
            for (k, x) in dv.iter_mut().enumerate() {
                *x = load(d, c + k);
            }
            for &row in rows {
                let g = &mut table[usize::from(row)];
                for (k, x) in dv.iter().enumerate() {
                    let sum = _mm256_add_ps(load(g, c + k), *x);
                    store(g, c + k, sum);
                }
            }
        }
    }

    /// See [`super::adam`].
    #[target_feature(enable = "avx2")]
    pub(super) fn adam(p: &mut Row, m: &mut Row, v: &mut Row, g: &Row, step: f32, limit: f32) {
        let (b1, c1) = (_mm256_set1_ps(BETA1), _mm256_set1_ps(1.0 - BETA1));
        let (b2, c2) = (_mm256_set1_ps(BETA2), _mm256_set1_ps(1.0 - BETA2));
        let (vstep, eps) = (_mm256_set1_ps(step), _mm256_set1_ps(EPS));
        let (hi, lo) = (_mm256_set1_ps(limit), _mm256_set1_ps(-limit));
        for i in 0..GROUPS {
            let (pi, mi, vi, gi) = (load(p, i), load(m, i), load(v, i), load(g, i));
            let mi = _mm256_add_ps(_mm256_mul_ps(b1, mi), _mm256_mul_ps(c1, gi));
            let vi = _mm256_add_ps(
                _mm256_mul_ps(b2, vi),
                _mm256_mul_ps(_mm256_mul_ps(c2, gi), gi),
            );
            let update = _mm256_div_ps(
                _mm256_mul_ps(vstep, mi),
                _mm256_add_ps(_mm256_sqrt_ps(vi), eps),
            );
            let pi = _mm256_max_ps(_mm256_min_ps(_mm256_sub_ps(pi, update), hi), lo);
            store(m, i, mi);
            store(v, i, vi);
            store(p, i, pi);
        }
    }
}
