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

/// Which implementation runs the kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Portable Rust.
    Scalar,
    /// 256-bit float SIMD, where the CPU has AVX2.
    Avx2,
}

impl Backend {
    /// The fastest backend this CPU runs.
    pub fn detect() -> Backend {
        if Backend::Avx2.available() {
            Backend::Avx2
        } else {
            Backend::Scalar
        }
    }

    /// Whether this CPU runs the backend.
    pub fn available(self) -> bool {
        match self {
            Backend::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Avx2 => false,
        }
    }

    /// Whether the AVX2 versions may run: asked for and supported. Every
    /// kernel falls back to the portable version otherwise.
    #[inline]
    fn avx2(self) -> bool {
        self == Backend::Avx2 && self.available()
    }
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

/// One parameter's Adam update, the operation order every backend keeps.
#[inline]
fn adam_one(p: &mut f32, m: &mut f32, v: &mut f32, g: f32, step: f32, limit: f32) {
    *m = BETA1 * *m + (1.0 - BETA1) * g;
    *v = BETA2 * *v + (1.0 - BETA2) * g * g;
    *p = clip_limit(*p - step * *m / (v.sqrt() + EPS), limit);
}

/// A perspective's hidden layer before the activation: `out = bias +
/// Σ table[row]`, the rows added in the order given.
///
/// # Panics
/// If a row is not in `table`.
pub fn hidden(
    backend: Backend,
    bias: &[f32; HIDDEN],
    table: &[[f32; HIDDEN]],
    rows: &[u16],
    out: &mut [f32; HIDDEN],
) {
    #[cfg(target_arch = "x86_64")]
    if backend.avx2() {
        // SAFETY: the CPU has AVX2 (checked by `avx2()`), the one
        // requirement of a function compiled for it.
        unsafe { avx2::hidden(bias, table, rows, out) };
        return;
    }
    let _ = backend;
    *out = *bias;
    for &row in rows {
        for (x, w) in out.iter_mut().zip(&table[usize::from(row)]) {
            *x += w;
        }
    }
}

/// The output layer before its bias: `Σ screlu(us[j]) × w[j] + Σ
/// screlu(them[j]) × w[HIDDEN + j]`, in [`LANES`] partial sums folded by
/// [`fold`].
pub fn output(
    backend: Backend,
    us: &[f32; HIDDEN],
    them: &[f32; HIDDEN],
    w: &[f32; 2 * HIDDEN],
) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if backend.avx2() {
        // SAFETY: the CPU has AVX2 (checked by `avx2()`).
        return unsafe { avx2::output(us, them, w) };
    }
    let _ = backend;
    let mut sums = [0.0f32; LANES];
    for (i, (h, wt)) in us.iter().chain(them).zip(w).enumerate() {
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
pub fn backward_half(
    backend: Backend,
    h: &[f32; HIDDEN],
    w: &[f32; HIDDEN],
    dy: f32,
    gw: &mut [f32; HIDDEN],
    d: &mut [f32; HIDDEN],
) {
    #[cfg(target_arch = "x86_64")]
    if backend.avx2() {
        // SAFETY: the CPU has AVX2 (checked by `avx2()`).
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
pub fn add_rows(backend: Backend, table: &mut [[f32; HIDDEN]], rows: &[u16], d: &[f32; HIDDEN]) {
    #[cfg(target_arch = "x86_64")]
    if backend.avx2() {
        // SAFETY: the CPU has AVX2 (checked by `avx2()`).
        unsafe { avx2::add_rows(table, rows, d) };
        return;
    }
    let _ = backend;
    for &row in rows {
        for (g, x) in table[usize::from(row)].iter_mut().zip(d) {
            *g += x;
        }
    }
}

/// Adam over a slice of parameters with their moments and gradient, step
/// size `step` (the learning rate with both bias corrections), then the
/// clip to `±limit`.
///
/// # Panics
/// If the four slices differ in length.
pub fn adam(
    backend: Backend,
    p: &mut [f32],
    m: &mut [f32],
    v: &mut [f32],
    g: &[f32],
    step: f32,
    limit: f32,
) {
    assert!(p.len() == m.len() && p.len() == v.len() && p.len() == g.len());
    #[cfg(target_arch = "x86_64")]
    if backend.avx2() {
        // SAFETY: the CPU has AVX2 (checked by `avx2()`).
        unsafe { avx2::adam(p, m, v, g, step, limit) };
        return;
    }
    let _ = backend;
    for (((p, m), v), g) in p.iter_mut().zip(m).zip(v).zip(g) {
        adam_one(p, m, v, *g, step, limit);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The AVX2 kernels: safe functions compiled for AVX2, which the
    //! dispatchers above call only on a CPU that has it. Memory is touched
    //! only through [`load`] and [`store`], on whole 8-float arrays.

    use std::arch::x86_64::{
        __m256, _CMP_GT_OQ, _CMP_LT_OQ, _mm256_add_ps, _mm256_and_ps, _mm256_cmp_ps, _mm256_div_ps,
        _mm256_loadu_ps, _mm256_max_ps, _mm256_min_ps, _mm256_mul_ps, _mm256_set1_ps,
        _mm256_setzero_ps, _mm256_sqrt_ps, _mm256_storeu_ps, _mm256_sub_ps,
    };

    use super::{BETA1, BETA2, BLOCK, EPS, HIDDEN, LANES, adam_one, fold};

    const REGS: usize = BLOCK / 8;

    /// Eight floats, as a register.
    #[target_feature(enable = "avx2")]
    fn load(a: &[f32; 8]) -> __m256 {
        // SAFETY: `a` is 8 readable floats; the load is unaligned.
        unsafe { _mm256_loadu_ps(a.as_ptr()) }
    }

    /// A register, into eight floats.
    #[target_feature(enable = "avx2")]
    fn store(a: &mut [f32; 8], x: __m256) {
        // SAFETY: `a` is 8 writable floats, borrowed mutably so nothing
        // else sees them; the store is unaligned.
        unsafe { _mm256_storeu_ps(a.as_mut_ptr(), x) }
    }

    /// `a` as 8-float groups.
    fn groups(a: &[f32]) -> &[[f32; 8]] {
        a.as_chunks().0
    }

    /// `a` as mutable 8-float groups.
    fn groups_mut(a: &mut [f32]) -> &mut [[f32; 8]] {
        a.as_chunks_mut().0
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
    pub(super) fn hidden(
        bias: &[f32; HIDDEN],
        table: &[[f32; HIDDEN]],
        rows: &[u16],
        out: &mut [f32; HIDDEN],
    ) {
        for c in (0..HIDDEN / 8).step_by(REGS) {
            let mut acc = [_mm256_setzero_ps(); REGS];
            for (k, a) in acc.iter_mut().enumerate() {
                *a = load(&groups(bias)[c + k]);
            }
            for &row in rows {
                let w = groups(&table[usize::from(row)]);
                for (k, a) in acc.iter_mut().enumerate() {
                    *a = _mm256_add_ps(*a, load(&w[c + k]));
                }
            }
            for (k, a) in acc.into_iter().enumerate() {
                store(&mut groups_mut(out)[c + k], a);
            }
        }
    }

    /// See [`super::output`].
    #[target_feature(enable = "avx2")]
    pub(super) fn output(us: &[f32; HIDDEN], them: &[f32; HIDDEN], w: &[f32; 2 * HIDDEN]) -> f32 {
        let mut sums = [_mm256_setzero_ps(); LANES / 8];
        let w = groups(w);
        for (half, h) in [us, them].into_iter().enumerate() {
            let h = groups(h);
            for i in (0..HIDDEN / 8).step_by(LANES / 8) {
                for (k, s) in sums.iter_mut().enumerate() {
                    let (x, wt) = (load(&h[i + k]), load(&w[half * HIDDEN / 8 + i + k]));
                    *s = _mm256_add_ps(*s, _mm256_mul_ps(screlu(x), wt));
                }
            }
        }
        let mut lanes = [0.0f32; LANES];
        for (k, s) in sums.into_iter().enumerate() {
            store(&mut groups_mut(&mut lanes)[k], s);
        }
        fold(&lanes)
    }

    /// See [`super::backward_half`].
    #[target_feature(enable = "avx2")]
    pub(super) fn backward_half(
        h: &[f32; HIDDEN],
        w: &[f32; HIDDEN],
        dy: f32,
        gw: &mut [f32; HIDDEN],
        d: &mut [f32; HIDDEN],
    ) {
        let (vdy, two) = (_mm256_set1_ps(dy), _mm256_set1_ps(2.0));
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        let (h, w) = (groups(h), groups(w));
        let (gw, d) = (groups_mut(gw), groups_mut(d));
        for i in 0..HIDDEN / 8 {
            let (x, wt) = (load(&h[i]), load(&w[i]));
            let g = _mm256_add_ps(load(&gw[i]), _mm256_mul_ps(vdy, screlu(x)));
            let inside = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_GT_OQ>(x, zero),
                _mm256_cmp_ps::<_CMP_LT_OQ>(x, one),
            );
            let grad = _mm256_mul_ps(_mm256_mul_ps(_mm256_mul_ps(vdy, wt), two), x);
            store(&mut gw[i], g);
            store(&mut d[i], _mm256_and_ps(inside, grad));
        }
    }

    /// See [`super::add_rows`]; `BLOCK` units of `d` held in registers.
    #[target_feature(enable = "avx2")]
    pub(super) fn add_rows(table: &mut [[f32; HIDDEN]], rows: &[u16], d: &[f32; HIDDEN]) {
        for c in (0..HIDDEN / 8).step_by(REGS) {
            let mut dv = [_mm256_setzero_ps(); REGS];
            for (k, x) in dv.iter_mut().enumerate() {
                *x = load(&groups(d)[c + k]);
            }
            for &row in rows {
                let g = groups_mut(&mut table[usize::from(row)]);
                for (k, x) in dv.iter().enumerate() {
                    let sum = _mm256_add_ps(load(&g[c + k]), *x);
                    store(&mut g[c + k], sum);
                }
            }
        }
    }

    /// See [`super::adam`]; the slices have one length (the dispatcher
    /// asserts it).
    #[target_feature(enable = "avx2")]
    pub(super) fn adam(
        p: &mut [f32],
        m: &mut [f32],
        v: &mut [f32],
        g: &[f32],
        step: f32,
        limit: f32,
    ) {
        let (b1, c1) = (_mm256_set1_ps(BETA1), _mm256_set1_ps(1.0 - BETA1));
        let (b2, c2) = (_mm256_set1_ps(BETA2), _mm256_set1_ps(1.0 - BETA2));
        let (vstep, eps) = (_mm256_set1_ps(step), _mm256_set1_ps(EPS));
        let (hi, lo) = (_mm256_set1_ps(limit), _mm256_set1_ps(-limit));
        let whole = p.len() / 8;
        let (pg, mg, vg, gg) = (groups_mut(p), groups_mut(m), groups_mut(v), groups(g));
        for i in 0..whole {
            let (pi, mi, vi, gi) = (load(&pg[i]), load(&mg[i]), load(&vg[i]), load(&gg[i]));
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
            store(&mut mg[i], mi);
            store(&mut vg[i], vi);
            store(&mut pg[i], pi);
        }
        for i in 8 * whole..p.len() {
            adam_one(&mut p[i], &mut m[i], &mut v[i], g[i], step, limit);
        }
    }
}
