//! The float network, its hand-written forward and backward passes, and its
//! quantisation.
//!
//! Forward, for one position: each perspective's hidden layer is
//! `h = b₁ + Σ W₁[row]` over its active rows; the activation is
//! `a = clamp(h, 0, 1)²`; the output, through the sample's output bucket
//! `k` (always 0 with one output layer), is `y = b₂[k] + w₂[k][us] · a_us +
//! w₂[k][them] · a_them`, and `y ×` [`SCALE`] is centipawns. Backward uses
//! that `∂a/∂h = 2h` inside `(0, 1)` and 0 outside, and touches only the
//! rows that were active and the sample's output bucket, which is what
//! makes a first layer of hundreds of rows cheap.
//! The arithmetic is [`crate::kernels`]'s, on the backend a [`Pass`]
//! names; every backend gives the same bits.
//!
//! Weights are kept within ±[`WEIGHT_LIMIT`] after every step, so that the
//! quantised accumulator cannot overflow 16 bits (33 rows × 1.98 × 255 is
//! below 16,700) and the quantised output weights stay within the engine's
//! ±127.

use engine::nnue::features::{Arch, HIDDEN};
use engine::nnue::network::{MAX_OUTPUT_WEIGHT, QA, QB, SCALE};
use engine::nnue::{Network, simd};
use rand_core::RngCore;

use crate::dataset::Sample;
use crate::kernels::{self, Backend, Row};

/// The bound on every weight and bias, in float units.
pub const WEIGHT_LIMIT: f32 = 1.98;

/// The network's parameters in `f32`, laid out as the engine's.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The engine's architecture it has the shape of.
    pub arch: Arch,
    /// First layer: one row per input ([`Arch::inputs`] of them).
    pub ft: Vec<Row>,
    /// First-layer biases.
    pub ft_bias: Row,
    /// Output weights by output bucket, side to move's half first.
    pub out: Vec<[Row; 2]>,
    /// Output biases by output bucket.
    pub out_bias: Vec<f32>,
}

/// A uniform float in `[-limit, limit)` from 24 random bits.
fn uniform(rng: &mut impl RngCore, limit: f32) -> f32 {
    #[allow(clippy::cast_precision_loss)]
    let unit = (rng.next_u32() >> 8) as f32 / (1u32 << 24) as f32;
    (unit * 2.0 - 1.0) * limit
}

/// Scratch space of one forward pass, kept for the backward pass, and the
/// kernels' backend.
pub struct Pass {
    backend: Backend,
    us: Row,
    them: Row,
    d_us: Row,
    d_them: Row,
}

impl Pass {
    /// A pass whose kernels run on `backend` (every backend gives the same
    /// bits; see [`crate::kernels`]).
    pub fn new(backend: Backend) -> Pass {
        Pass {
            backend,
            us: Row::ZERO,
            them: Row::ZERO,
            d_us: Row::ZERO,
            d_them: Row::ZERO,
        }
    }
}

impl Default for Pass {
    /// A pass on the fastest backend this CPU runs.
    fn default() -> Pass {
        Pass::new(Backend::detect())
    }
}

impl FloatNetwork {
    /// A network of `arch` with small random weights (uniform, scaled by
    /// the fan-in) from the caller's generator.
    pub fn random(arch: Arch, rng: &mut impl RngCore) -> FloatNetwork {
        // The first layer's fan-in is the ~32 active rows, not all inputs.
        let ft_limit = 1.0 / 32f32.sqrt() / 2.0;
        #[allow(clippy::cast_precision_loss)]
        let out_limit = 1.0 / ((2 * HIDDEN) as f32).sqrt();
        // Drawn in the order of the engine's layout: the first layer row
        // by row, its biases, the output weights bucket by bucket.
        let ft = (0..arch.inputs())
            .map(|_| Row::from_fn(|_| uniform(rng, ft_limit)))
            .collect();
        let ft_bias = Row::from_fn(|_| uniform(rng, ft_limit));
        let out = (0..arch.output_buckets())
            .map(|_| [(); 2].map(|()| Row::from_fn(|_| uniform(rng, out_limit))))
            .collect();
        FloatNetwork {
            arch,
            ft,
            ft_bias,
            out,
            out_bias: vec![0.0; arch.output_buckets()],
        }
    }

    /// The output (before the centipawn scaling) for a sample, leaving the
    /// hidden layers in `pass` for [`FloatNetwork::backward`].
    ///
    /// # Panics
    /// If the network does not have the architecture's shape, or a row or
    /// the output bucket of the sample is not one of the network's.
    pub fn forward(&self, s: &Sample<'_>, pass: &mut Pass) -> f32 {
        let b = pass.backend;
        let k = usize::from(s.bucket);
        kernels::hidden(b, &self.ft_bias, &self.ft, s.us, &mut pass.us);
        kernels::hidden(b, &self.ft_bias, &self.ft, s.them, &mut pass.them);
        kernels::output(b, &pass.us, &pass.them, &self.out[k]) + self.out_bias[k]
    }

    /// The score in centipawns, side to move's view.
    pub fn evaluate_cp(&self, s: &Sample<'_>) -> f32 {
        #[allow(clippy::cast_precision_loss)]
        let scale = SCALE as f32;
        self.forward(s, &mut Pass::default()) * scale
    }

    /// Adds the gradient of the loss for one sample to `grad`, given the
    /// loss's derivative `dy` with respect to the output `y` and the pass of
    /// [`FloatNetwork::forward`]. Of the first layer, only the sample's
    /// rows of `grad` change: the side to move's, then the other side's;
    /// of the output layers, only the sample's bucket.
    ///
    /// # Panics
    /// As [`FloatNetwork::forward`].
    pub fn backward(&self, s: &Sample<'_>, pass: &mut Pass, dy: f32, grad: &mut FloatNetwork) {
        let b = pass.backend;
        let k = usize::from(s.bucket);
        grad.out_bias[k] += dy;
        let [gw_us, gw_them] = &mut grad.out[k];
        let [w_us, w_them] = &self.out[k];
        kernels::backward_half(b, &pass.us, w_us, dy, gw_us, &mut pass.d_us);
        kernels::backward_half(b, &pass.them, w_them, dy, gw_them, &mut pass.d_them);
        for ((g, u), t) in grad
            .ft_bias
            .iter_mut()
            .zip(pass.d_us.iter())
            .zip(pass.d_them.iter())
        {
            *g += u + t;
        }
        kernels::add_rows(b, &mut grad.ft, s.us, &pass.d_us);
        kernels::add_rows(b, &mut grad.ft, s.them, &pass.d_them);
    }

    /// A bound, in centipawns, on how far the quantised network's score of
    /// this sample can lie from the float network's: each hidden value is
    /// off by at most half a step (`0.5 / QA`) per summed row and bias;
    /// the clamp does not enlarge that, and squaring turns an error `e` at
    /// `c` into at most `e × (2c + e)`; each output weight is off by at
    /// most `0.5 / QB`; the integer divisions lose at most two more
    /// centipawns.
    pub fn quantisation_bound(&self, s: &Sample<'_>) -> f32 {
        #[allow(clippy::cast_precision_loss)]
        let (qa, qb, scale) = (QA as f32, QB as f32, SCALE as f32);
        let mut pass = Pass::default();
        self.forward(s, &mut pass);
        #[allow(clippy::cast_precision_loss)]
        let e = (s.us.len() + 1) as f32 * 0.5 / qa;
        let mut bound = 0.5 / (qa * qb);
        let [w_us, w_them] = &self.out[usize::from(s.bucket)];
        let weights = w_us.iter().chain(w_them.iter());
        for (h, w) in pass.us.iter().chain(pass.them.iter()).zip(weights) {
            let c = h.clamp(0.0, 1.0);
            let dc2 = (e * (2.0 * c + e)).min(1.0);
            bound += dc2 * (w.abs() + 0.5 / qb) + c * c * 0.5 / qb;
        }
        bound * scale + 2.0
    }

    /// An all-zero network of `arch`'s shape (a gradient buffer).
    pub fn zeros(arch: Arch) -> FloatNetwork {
        FloatNetwork {
            arch,
            ft: vec![Row::ZERO; arch.inputs()],
            ft_bias: Row::ZERO,
            out: vec![[Row::ZERO; 2]; arch.output_buckets()],
            out_bias: vec![0.0; arch.output_buckets()],
        }
    }

    /// Sets every parameter to zero, keeping the allocation.
    pub fn clear(&mut self) {
        for row in self.rows_mut() {
            *row = Row::ZERO;
        }
        self.out_bias.iter_mut().for_each(|b| *b = 0.0);
    }

    /// The rows beside the first layer's weights, which every step updates
    /// whole: its biases, then each output bucket's two halves.
    pub fn small_rows(&self) -> impl Iterator<Item = &Row> {
        std::iter::once(&self.ft_bias).chain(self.out.iter().flatten())
    }

    /// [`FloatNetwork::small_rows`], mutable.
    pub fn small_rows_mut(&mut self) -> impl Iterator<Item = &mut Row> {
        std::iter::once(&mut self.ft_bias).chain(self.out.iter_mut().flatten())
    }

    /// Every parameter but the output biases, as rows, in a fixed order:
    /// the first layer's, then [`FloatNetwork::small_rows`].
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.ft.iter().chain(self.small_rows())
    }

    /// [`FloatNetwork::rows`], mutable.
    pub fn rows_mut(&mut self) -> impl Iterator<Item = &mut Row> {
        let FloatNetwork {
            ft, ft_bias, out, ..
        } = self;
        ft.iter_mut()
            .chain(std::iter::once(ft_bias))
            .chain(out.iter_mut().flatten())
    }

    /// The quantised network: first layer `round(w × QA)`, output weights
    /// `round(w × QB)` (within ±127), output biases `round(b × QA × QB)`.
    pub fn quantise(&self) -> Network {
        #[allow(clippy::cast_precision_loss)]
        let (qa, qb) = (QA as f32, QB as f32);
        // Every value is clipped to WEIGHT_LIMIT, so the casts stay in range.
        #[allow(clippy::cast_possible_truncation)]
        let q16 = |w: f32, q: f32, limit: f32| (w * q).round().clamp(-limit, limit) as i16;
        let ft = self
            .ft
            .iter()
            .map(|row| std::array::from_fn(|j| q16(row[j], qa, 32767.0)))
            .collect();
        let ft_bias = std::array::from_fn(|j| q16(self.ft_bias[j], qa, 32767.0));
        let max_out = f32::from(MAX_OUTPUT_WEIGHT);
        let out = self
            .out
            .iter()
            .map(|halves| {
                std::array::from_fn(|half| {
                    std::array::from_fn(|j| q16(halves[half][j], qb, max_out))
                })
            })
            .collect();
        #[allow(clippy::cast_possible_truncation)]
        let out_bias = self
            .out_bias
            .iter()
            .map(|b| (b * qa * qb).round() as i32)
            .collect();
        Network::from_parts(self.arch, ft, ft_bias, out, out_bias)
            .expect("the trainer's shapes and clipping match the engine's format")
    }
}

/// The quantised network's score of a sample in centipawns, computed as
/// the engine computes it (its first-layer rows and the output layer of
/// the sample's bucket), without building a position: the trainer's check
/// of its own export.
///
/// # Panics
/// If a row or the bucket of the sample is not one of the network's.
pub fn quantised_cp(net: &Network, s: &Sample<'_>) -> i32 {
    let hidden = |rows: &[u16]| {
        let mut h = *net.ft_bias();
        for &row in rows {
            simd::add_row(&mut h, net.ft_row(usize::from(row)));
        }
        h
    };
    let (us, them) = (hidden(s.us), hidden(s.them));
    let k = usize::from(s.bucket);
    simd::finish(
        simd::output_sum(simd::Backend::detect(), &us, &them, net.out_weights(k)),
        net.out_bias(k),
    )
}

/// The logistic function.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}
