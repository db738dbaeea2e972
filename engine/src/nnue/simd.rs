//! The network's integer kernels: the accumulator's copy-and-update and
//! the output layer (squared clipped ReLU of both accumulators and the dot
//! product with the output weights), scalar, AVX2 and AVX-512.
//!
//! Exactness: an activation `c = clamp(x, 0, QA)` is at most 255 and an
//! output weight at most 127 in absolute value (the loader checks), so
//! `c × w` fits an `i16` and `c × w × c` at most 8,258,175. The AVX2 path
//! keeps eight `i32` lanes, each summing `2 × HIDDEN / 8 = 128` such terms
//! (at most 1.06 billion, below `i32::MAX`), and adds the eight lanes as
//! `i64` (folding two lanes first could reach 2.11 billion, too close to
//! the bound to rely on); the scalar path sums in `i64`. Both therefore
//! compute the same exact integer, and the tests demand equality, not
//! closeness. A hidden layer wider than 1,024 would need the lanes widened
//! before the loop ends (the assertion below). The AVX-512 path keeps
//! sixteen lanes of half as many terms each, further from the bound.
//!
//! The backend is picked at run time with `is_x86_feature_detected!`, so one
//! binary runs everywhere and uses the widest vectors the CPU has: at a
//! 512-wide hidden layer the network's kernels were a sixth of datagen's
//! profile, and 512-bit registers halve their instructions.

use super::features::HIDDEN;
use super::network::{QA, QB, SCALE};

// Eight lanes of `2 × HIDDEN / 8` terms of at most 8,258,175 each must fit
// an `i32` (the module documentation).
const _: () = assert!((2 * HIDDEN / 8) as i64 * 8_258_175 <= i32::MAX as i64);

/// Which implementation runs the SIMD kernels: the engine's output layer
/// here, and the trainer's kernels (`train/src/kernels.rs`), which share
/// this choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Backend {
    /// Portable Rust (the compiler may still vectorise it with SSE2).
    Scalar,
    /// 256-bit integer SIMD; only where the CPU supports AVX2.
    Avx2,
    /// 512-bit integer SIMD (AVX-512 F and BW) for the engine's kernels;
    /// the trainer's float kernels run their AVX2 versions under it.
    Avx512,
}

impl Backend {
    /// Every backend, slowest first (their order): tests compare each
    /// available one with the scalar one.
    pub const ALL: [Backend; 3] = [Backend::Scalar, Backend::Avx2, Backend::Avx512];

    /// The fastest backend this CPU supports, asked of the CPU once per
    /// process.
    pub fn detect() -> Backend {
        static BEST: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
        *BEST.get_or_init(Backend::probe)
    }

    /// Whether this CPU can run the backend: each backend needs what the
    /// slower ones need and more (the 512-bit one runs AVX2 code too, the
    /// trainer's), so it is one comparison with [`Backend::detect`], which
    /// the kernels' dispatch asks on every call.
    #[inline]
    pub fn available(self) -> bool {
        self <= Backend::detect()
    }

    /// The CPU's features, read.
    fn probe() -> Backend {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") {
                return if has!("avx512f") && has!("avx512bw") {
                    Backend::Avx512
                } else {
                    Backend::Avx2
                };
            }
        }
        Backend::Scalar
    }
}

/// `Σ screlu(us) · w[0] + Σ screlu(them) · w[1]`, with `screlu(x) =
/// clamp(x, 0, QA)²`: the output before the bias and the scaling. A backend
/// the CPU lacks falls back to the scalar one.
pub fn output_sum(
    backend: Backend,
    us: &[i16; HIDDEN],
    them: &[i16; HIDDEN],
    w: &[[i16; HIDDEN]; 2],
) -> i64 {
    match backend {
        #[cfg(target_arch = "x86_64")]
        Backend::Avx2 if backend.available() => {
            // SAFETY: the CPU supports AVX2 (checked just above), the only
            // requirement of `avx2::output_sum`.
            unsafe { avx2::output_sum(us, them, w) }
        }
        #[cfg(target_arch = "x86_64")]
        Backend::Avx512 if backend.available() => {
            // SAFETY: the CPU supports AVX-512 F and BW (checked just
            // above), the only requirement of `avx512::output_sum`.
            unsafe { avx512::output_sum(us, them, w) }
        }
        _ => output_sum_scalar(us, them, w),
    }
}

/// The scalar twin of the AVX2 output layer.
pub fn output_sum_scalar(us: &[i16; HIDDEN], them: &[i16; HIDDEN], w: &[[i16; HIDDEN]; 2]) -> i64 {
    let mut sum = 0i64;
    for (acc, weights) in [us, them].into_iter().zip(w) {
        for (&x, &wt) in acc.iter().zip(weights) {
            let c = i64::from(x.clamp(0, QA as i16));
            sum += c * c * i64::from(wt);
        }
    }
    sum
}

/// Centipawns from the output sum and the output bias: the sum carries
/// `QA² × QB`, the bias `QA × QB`, and the float output times [`SCALE`] is
/// centipawns. Integer division rounds toward zero.
pub fn finish(sum: i64, out_bias: i32) -> i32 {
    let qa = i64::from(QA);
    let v = (sum / qa + i64::from(out_bias)) * i64::from(SCALE) / (qa * i64::from(QB));
    // A sum of 2 × HIDDEN terms of at most 8.3 million, scaled down:
    // always fits.
    #[allow(clippy::cast_possible_truncation)]
    {
        v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
    }
}

/// Adds a first-layer row to an accumulator, wrapping on overflow exactly as
/// the 16-bit SIMD adds do (a trained network never comes near it).
#[inline]
pub fn add_row(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, &r) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(r);
    }
}

/// Subtracts a first-layer row from an accumulator (wrapping, as
/// [`add_row`]).
#[inline]
pub fn sub_row(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, &r) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(r);
    }
}

/// `out = prev + add − Σ subs` in one pass: the copy-and-update of a
/// move (one or two rows removed, one added), reading each input once.
/// Wraps on overflow like [`add_row`].
pub fn copy_update(
    backend: Backend,
    out: &mut [i16; HIDDEN],
    prev: &[i16; HIDDEN],
    add: &[i16; HIDDEN],
    subs: &[&[i16; HIDDEN]],
) {
    match (backend, subs) {
        #[cfg(target_arch = "x86_64")]
        (Backend::Avx2, [s1]) if backend.available() => {
            // SAFETY: AVX2 is available (checked just above).
            unsafe { avx2::copy_update::<false>(out, prev, add, s1, s1) }
        }
        #[cfg(target_arch = "x86_64")]
        (Backend::Avx2, [s1, s2]) if backend.available() => {
            // SAFETY: AVX2 is available (checked just above).
            unsafe { avx2::copy_update::<true>(out, prev, add, s1, s2) }
        }
        #[cfg(target_arch = "x86_64")]
        (Backend::Avx512, [s1]) if backend.available() => {
            // SAFETY: AVX-512 F and BW are available (checked just above).
            unsafe { avx512::copy_update::<false>(out, prev, add, s1, s1) }
        }
        #[cfg(target_arch = "x86_64")]
        (Backend::Avx512, [s1, s2]) if backend.available() => {
            // SAFETY: AVX-512 F and BW are available (checked just above).
            unsafe { avx512::copy_update::<true>(out, prev, add, s1, s2) }
        }
        _ => {
            *out = *prev;
            add_row(out, add);
            for s in subs {
                sub_row(out, s);
            }
        }
    }
}

/// The two kernels on one register width, written once: `$lanes` 16-bit
/// lanes a register, the intrinsics of that width, and the features they
/// need. The horizontal sum goes through memory, `$lanes / 2` `i32`
/// lanes added as `i64` (the module documentation).
#[cfg(target_arch = "x86_64")]
macro_rules! kernels {
    (
        $module:ident, $features:literal, $lanes:literal, $vec:ident,
        $load:ident, $store:ident, $set1:ident, $zero:ident,
        $add16:ident, $sub16:ident, $max16:ident, $min16:ident, $mullo16:ident,
        $madd16:ident, $add32:ident
    ) => {
        mod $module {
            use std::arch::x86_64::{
                $add16, $add32, $load, $madd16, $max16, $min16, $mullo16, $set1, $store, $sub16,
                $vec, $zero,
            };

            use super::{HIDDEN, QA};

            // The loops step a register at a time.
            const _: () = assert!(HIDDEN.is_multiple_of($lanes));

            /// `out = prev + add − s1 (− s2 when TWO)`, a register at a time.
            ///
            /// # Safety
            /// The CPU must support the module's features.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn copy_update<const TWO: bool>(
                out: &mut [i16; HIDDEN],
                prev: &[i16; HIDDEN],
                add: &[i16; HIDDEN],
                s1: &[i16; HIDDEN],
                s2: &[i16; HIDDEN],
            ) {
                for i in (0..HIDDEN).step_by($lanes) {
                    // SAFETY: `i + $lanes <= HIDDEN` (a multiple of it):
                    // every unaligned load and the store stay inside their
                    // arrays, and `out` is a distinct `&mut`, so it aliases
                    // no input.
                    unsafe {
                        let at = |a: &[i16; HIDDEN]| a.as_ptr().add(i).cast::<$vec>();
                        let mut v = $add16($load(at(prev)), $load(at(add)));
                        v = $sub16(v, $load(at(s1)));
                        if TWO {
                            v = $sub16(v, $load(at(s2)));
                        }
                        $store(out.as_mut_ptr().add(i).cast::<$vec>(), v);
                    }
                }
            }

            /// The output layer (the module documentation says why its
            /// 32-bit lanes cannot overflow).
            ///
            /// # Safety
            /// The CPU must support the module's features.
            #[target_feature(enable = $features)]
            pub(super) unsafe fn output_sum(
                us: &[i16; HIDDEN],
                them: &[i16; HIDDEN],
                w: &[[i16; HIDDEN]; 2],
            ) -> i64 {
                let zero = $zero();
                #[allow(clippy::cast_possible_truncation)]
                let qa = $set1(QA as i16);
                let mut total = $zero();
                for (acc, weights) in [us, them].into_iter().zip(w) {
                    for i in (0..HIDDEN).step_by($lanes) {
                        // SAFETY: `i + $lanes <= HIDDEN` (a multiple of it),
                        // so both unaligned loads stay inside the arrays.
                        let (x, wt) = unsafe {
                            (
                                $load(acc.as_ptr().add(i).cast::<$vec>()),
                                $load(weights.as_ptr().add(i).cast::<$vec>()),
                            )
                        };
                        let c = $min16($max16(x, zero), qa);
                        let cw = $mullo16(c, wt);
                        total = $add32(total, $madd16(cw, c));
                    }
                }
                let mut lanes = [0i32; $lanes / 2];
                // SAFETY: `lanes` is one register wide, the store's width.
                unsafe { $store(lanes.as_mut_ptr().cast::<$vec>(), total) };
                // Each lane alone fits an `i32`; their sum is taken as `i64`.
                lanes.into_iter().map(i64::from).sum()
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
kernels!(
    avx2,
    "avx2",
    16,
    __m256i,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    _mm256_set1_epi16,
    _mm256_setzero_si256,
    _mm256_add_epi16,
    _mm256_sub_epi16,
    _mm256_max_epi16,
    _mm256_min_epi16,
    _mm256_mullo_epi16,
    _mm256_madd_epi16,
    _mm256_add_epi32
);

#[cfg(target_arch = "x86_64")]
kernels!(
    avx512,
    "avx512f,avx512bw",
    32,
    __m512i,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_set1_epi16,
    _mm512_setzero_si512,
    _mm512_add_epi16,
    _mm512_sub_epi16,
    _mm512_max_epi16,
    _mm512_min_epi16,
    _mm512_mullo_epi16,
    _mm512_madd_epi16,
    _mm512_add_epi32
);
