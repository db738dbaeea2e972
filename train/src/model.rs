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
//!
//! **The factoriser.** Where an architecture has several input buckets
//! (`squares-attack`), a piece on a square has one row per bucket, and a
//! bucket seldom seen would learn its rows from little data. The float
//! network then has [`factor_rows`] more first-layer rows, one per piece
//! and square, shared by every bucket: a perspective's row `r` in the
//! engine's layout is trained as `r` plus its factor row ([`model_rows`]),
//! so what all buckets have in common is learned from all the data. The
//! export adds each factor row into the bucket rows that share it (and
//! clips the sum to ±[`WEIGHT_LIMIT`], which the sums of trained networks
//! stay far inside), so the engine's file has the engine's rows only. A
//! factor row starts at zero: at first every bucket is its own.

use engine::nnue::features::{Arch, HIDDEN, MAX_ACTIVE, squares};
use engine::nnue::network::{MAX_OUTPUT_WEIGHT, QA, QB, SCALE};
use engine::nnue::{Network, simd};
use rand_core::RngCore;

use crate::dataset::Sample;
use crate::kernels::{self, Backend, Row};

/// The bound on every weight and bias, in float units.
pub const WEIGHT_LIMIT: f32 = 1.98;

/// The most first-layer rows a float network has ([`model_rows_of`]: the
/// engine's and the factoriser's).
pub const MAX_MODEL_ROWS: usize = {
    let mut most = 0;
    let mut i = 0;
    while i < Arch::ALL.len() {
        if model_rows_of(Arch::ALL[i]) > most {
            most = model_rows_of(Arch::ALL[i]);
        }
        i += 1;
    }
    most
};

/// The factoriser's first-layer rows of `arch` (see the module
/// documentation): one per piece and square where the architecture has
/// several input buckets, none where it has one.
pub const fn factor_rows(arch: Arch) -> usize {
    if arch.input_buckets() > 1 {
        squares::INPUTS
    } else {
        0
    }
}

/// The float network's first-layer rows of `arch`: the engine's, then the
/// factoriser's.
pub const fn model_rows_of(arch: Arch) -> usize {
    arch.inputs() + factor_rows(arch)
}

/// Room for one perspective's rows in the float network's layout.
#[derive(Clone, Debug)]
pub struct ModelRows([u16; 2 * MAX_ACTIVE]);

impl Default for ModelRows {
    fn default() -> ModelRows {
        ModelRows([0; 2 * MAX_ACTIVE])
    }
}

/// The float network's rows of one perspective whose rows in the engine's
/// layout are `rows`: the same rows where `arch` has no factoriser;
/// otherwise the rows and then, in the same order, each one's factor row
/// (written into `room`).
#[inline]
pub fn model_rows<'a>(arch: Arch, rows: &'a [u16], room: &'a mut ModelRows) -> &'a [u16] {
    if factor_rows(arch) == 0 {
        return rows;
    }
    let n = rows.len().min(MAX_ACTIVE);
    // Factor rows are below MAX_MODEL_ROWS, which fits in u16.
    #[allow(clippy::cast_possible_truncation)]
    let base = arch.inputs() as u16;
    // The input count per bucket is a few thousand: it fits in u16.
    #[allow(clippy::cast_possible_truncation)]
    let per_bucket = squares::INPUTS as u16;
    room.0[..n].copy_from_slice(&rows[..n]);
    for (f, &r) in room.0[n..2 * n].iter_mut().zip(rows) {
        *f = base + r % per_bucket;
    }
    &room.0[..2 * n]
}

// Model rows are stored as `u16`.
const _: () = assert!(MAX_MODEL_ROWS < 1 << 16);

/// The network's parameters in `f32`, laid out as the engine's.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// The engine's architecture it has the shape of.
    pub arch: Arch,
    /// First layer: one row per input ([`Arch::inputs`] of them), then
    /// the factoriser's ([`factor_rows`]).
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
    rows_us: ModelRows,
    rows_them: ModelRows,
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
            rows_us: ModelRows::default(),
            rows_them: ModelRows::default(),
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
        // The factor rows start at zero, after the random draws, so an
        // architecture without them draws what it always drew.
        let ft = (0..arch.inputs())
            .map(|_| Row::from_fn(|_| uniform(rng, ft_limit)))
            .chain((0..factor_rows(arch)).map(|_| Row::ZERO))
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
        let us = model_rows(self.arch, s.us, &mut pass.rows_us);
        kernels::hidden(b, &self.ft_bias, &self.ft, us, &mut pass.us);
        let them = model_rows(self.arch, s.them, &mut pass.rows_them);
        kernels::hidden(b, &self.ft_bias, &self.ft, them, &mut pass.them);
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
        let us = model_rows(self.arch, s.us, &mut pass.rows_us);
        kernels::add_rows(b, &mut grad.ft, us, &pass.d_us);
        let them = model_rows(self.arch, s.them, &mut pass.rows_them);
        kernels::add_rows(b, &mut grad.ft, them, &pass.d_them);
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
            ft: vec![Row::ZERO; model_rows_of(arch)],
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

    /// The first layer in the engine's layout: each row with its factor
    /// row added (clipped to ±[`WEIGHT_LIMIT`]) where the architecture has
    /// a factoriser, the rows themselves otherwise.
    pub fn engine_rows(&self) -> Vec<Row> {
        let inputs = self.arch.inputs();
        if factor_rows(self.arch) == 0 {
            return self.ft[..inputs].to_vec();
        }
        (0..inputs)
            .map(|r| {
                let (row, factor) = (&self.ft[r], &self.ft[inputs + r % squares::INPUTS]);
                Row::from_fn(|j| (row[j] + factor[j]).clamp(-WEIGHT_LIMIT, WEIGHT_LIMIT))
            })
            .collect()
    }

    /// The quantised network: first layer `round(w × QA)` (in the
    /// engine's layout, [`FloatNetwork::engine_rows`]), output weights
    /// `round(w × QB)` (within ±127), output biases `round(b × QA × QB)`.
    pub fn quantise(&self) -> Network {
        #[allow(clippy::cast_precision_loss)]
        let (qa, qb) = (QA as f32, QB as f32);
        // Every value is clipped to WEIGHT_LIMIT, so the casts stay in range.
        #[allow(clippy::cast_possible_truncation)]
        let q16 = |w: f32, q: f32, limit: f32| (w * q).round().clamp(-limit, limit) as i16;
        let ft = self
            .engine_rows()
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn factor_rows_are_shared_by_the_buckets_and_folded_at_export() {
        assert_eq!(factor_rows(Arch::Squares), 0);
        let arch = Arch::SquaresByAttack;
        let inputs = arch.inputs();
        assert_eq!(factor_rows(arch), squares::INPUTS);
        // The same piece on the same square in buckets 0 and 3 shares one
        // factor row.
        let per = squares::INPUTS as u16;
        let rows = [5, 3 * per + 5, 2 * per + 700];
        let mut room = ModelRows::default();
        let got = model_rows(arch, &rows, &mut room);
        let base = inputs as u16;
        assert_eq!(
            got,
            &[
                5,
                3 * per + 5,
                2 * per + 700,
                base + 5,
                base + 5,
                base + 700
            ]
        );
        let mut room = ModelRows::default();
        assert_eq!(model_rows(Arch::Squares, &rows[..1], &mut room), &rows[..1]);

        let mut net = FloatNetwork::random(arch, &mut Pcg64Mcg::new(3));
        assert_eq!(net.ft.len(), inputs + squares::INPUTS);
        assert!(net.ft[inputs..].iter().all(|r| *r == Row::ZERO));
        net.ft[inputs + 5] = Row::from_fn(|_| 0.25);
        let folded = net.engine_rows();
        assert_eq!(folded.len(), inputs);
        for r in [5, squares::INPUTS + 5, 3 * squares::INPUTS + 5] {
            assert_eq!(folded[r], Row::from_fn(|j| net.ft[r][j] + 0.25));
        }
        assert_eq!(folded[6], net.ft[6]);
        // A sum past the limit is clipped.
        net.ft[inputs + 6] = Row::from_fn(|_| WEIGHT_LIMIT);
        net.ft[6] = Row::from_fn(|_| 1.0);
        assert_eq!(net.engine_rows()[6], Row::from_fn(|_| WEIGHT_LIMIT));
    }
}
