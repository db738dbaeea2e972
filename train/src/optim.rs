//! Training steps: a batch's gradient and Adam's update, in two
//! implementations that give the same weights, bit for bit.
//!
//! - [`Sparse`], the one the trainer runs: a pool of `threads` worker
//!   threads kept for the whole run (rayon's), each with its own scratch
//!   gradient, and a first layer updated only where a batch touches it.
//! - [`Dense`], its slow twin and the tests' reference: one thread, a dense
//!   gradient of every weight, Adam over every weight every step (`dense`).
//!
//! Both split a batch into the same `threads` contiguous slices, sum each
//! slice's gradient sample by sample from zero, and add the slices' sums in
//! slice order, so the result depends on the seed and the thread count and
//! on nothing else (not the scheduling, not the CPU: see
//! [`crate::kernels`]).
//!
//! Why the sparse first layer is exact. At step `t` dense Adam moves every
//! weight, those with a zero gradient too: `m ← β₁m + (1 − β₁)·0`, `v ←
//! β₂v + (1 − β₂)·0·0`, `p ← clip(p − sₜ·m / (√v + ε))`, `sₜ` being step
//! `t`'s learning rate with its bias corrections. [`Sparse`] keeps, per
//! first-layer row, the step its values are current through, and replays
//! the zero-gradient steps a row missed — each with its own `sₜ`, through
//! the same kernel with a gradient of zeros, so in the same operation order
//! — before anything reads the row: before a batch that touches it, at the
//! end of each epoch, and so before any validation, export or
//! quantisation. A row that has never had a gradient needs no replay: its
//! moments are exactly `+0`, a zero-gradient step keeps them `+0` and moves
//! `p` by `sₜ·(+0)/(√(+0) + ε) = +0`, which leaves every `p` as it is, and
//! the clip does nothing to a weight already within it. That spares 45 %
//! of the squares encoding's 1,260 rows (squares where no piece of that
//! kind can stand) and, in small batches, the rare ones.

use engine::nnue::features::MAX_INPUTS;
use rayon::prelude::*;

use crate::dataset::{Dataset, Entry, MirrorRows};
use crate::kernels::{self, BETA1, BETA2, Backend, Row};
use crate::loss::{Config, out_scale, target};
use crate::model::{FloatNetwork, Pass, WEIGHT_LIMIT, sigmoid};

mod dense;
pub use dense::Dense;

/// The step size of Adam's step `t` (from 1) at learning rate `lr`: the
/// rate with both bias corrections, `lr × √(1 − β₂ᵗ) / (1 − β₁ᵗ)`.
pub fn step_size(t: u32, lr: f32) -> f32 {
    let t = i32::try_from(t).unwrap_or(i32::MAX);
    let c1 = 1.0 - BETA1.powi(t);
    let c2 = 1.0 - BETA2.powi(t);
    lr * c2.sqrt() / c1
}

/// `a += b`, value by value: how partial gradients are merged, the same
/// in both optimisers.
fn add_row(a: &mut Row, b: &Row) {
    for (x, y) in a.iter_mut().zip(b.iter()) {
        *x += y;
    }
}

/// A batch's slices, one per thread (fewer when the batch is short).
fn slices(batch: &[Entry], threads: usize) -> std::slice::Chunks<'_, Entry> {
    batch.chunks(batch.len().div_ceil(threads.max(1)).max(1))
}

/// Adds the gradient of the loss over `slice` (divided by the batch's
/// length) to `grad` and returns the slice's summed loss; marks the rows it
/// touches in `touched`, if given.
#[allow(clippy::too_many_arguments)]
fn slice_gradient(
    net: &FloatNetwork,
    data: &Dataset,
    slice: &[Entry],
    batch_len: usize,
    cfg: &Config,
    pass: &mut Pass,
    grad: &mut FloatNetwork,
    mut touched: Option<&mut RowSet>,
) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let inv = 1.0 / batch_len as f32;
    let k = out_scale(cfg);
    let mut sum = 0.0f64;
    let mut room = MirrorRows::default();
    for (i, &e) in slice.iter().enumerate() {
        data.prefetch(slice, i, 1);
        let s = data.entry(e, &mut room);
        let p = sigmoid(net.forward(&s, pass) * k);
        let d = p - target(s.score, s.result, cfg);
        sum += f64::from(d * d);
        let dy = 2.0 * d * p * (1.0 - p) * k * inv;
        net.backward(&s, pass, dy, grad);
        if let Some(t) = touched.as_deref_mut() {
            t.insert_rows(s.us);
            t.insert_rows(s.them);
        }
    }
    sum
}

/// The summed loss of `net` over `entries`, without the gradient.
pub(crate) fn loss_sum(
    net: &FloatNetwork,
    data: &Dataset,
    entries: &[Entry],
    cfg: &Config,
    b: Backend,
) -> f64 {
    let mut pass = Pass::new(b);
    let k = out_scale(cfg);
    let mut room = MirrorRows::default();
    entries
        .iter()
        .enumerate()
        .map(|(i, &e)| {
            data.prefetch(entries, i, 1);
            let s = data.entry(e, &mut room);
            let d = sigmoid(net.forward(&s, &mut pass) * k) - target(s.score, s.result, cfg);
            f64::from(d * d)
        })
        .sum()
}

/// A set of first-layer rows, as a bitmap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowSet([u64; MAX_INPUTS.div_ceil(64)]);

impl Default for RowSet {
    fn default() -> RowSet {
        RowSet([0; MAX_INPUTS.div_ceil(64)])
    }
}

impl RowSet {
    /// Adds rows.
    ///
    /// # Panics
    /// If a row is not a first-layer row.
    pub fn insert_rows(&mut self, rows: &[u16]) {
        for &r in rows {
            self.0[usize::from(r) / 64] |= 1 << (r % 64);
        }
    }

    /// Whether row `r` is in the set.
    pub fn contains(&self, r: usize) -> bool {
        self.0.get(r / 64).is_some_and(|w| w >> (r % 64) & 1 == 1)
    }

    /// Adds every row of `other`.
    pub fn union(&mut self, other: &RowSet) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a |= b;
        }
    }

    /// The rows, ascending.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(i, &w)| {
            std::iter::successors((w != 0).then_some(w), |&w| {
                let rest = w & (w - 1);
                (rest != 0).then_some(rest)
            })
            .map(move |w| i * 64 + w.trailing_zeros() as usize)
        })
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether there is no row.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

/// One worker's scratch: its gradient and the rows it touched.
///
/// Invariant: every first-layer row of `grad` outside `touched` is `+0.0`
/// (rows are cleared by the worker before its next slice), so a row's
/// partial sums can be added whole without knowing who touched it.
struct Worker {
    grad: FloatNetwork,
    /// Rows of this worker's slice of the current batch.
    touched: RowSet,
    /// Rows of this worker's slice of the next batch, which the update
    /// must bring up to date.
    next: RowSet,
    pass: Pass,
}

/// One worker's share of a step.
struct Share<'a> {
    /// Its slice of the batch.
    slice: &'a [Entry],
    /// Its slice of the next batch (empty at the end of an epoch).
    next: &'a [Entry],
    /// The batch's length (the gradient is a mean over it).
    batch_len: usize,
    /// Whether the worker's `next` already holds the rows of `slice`:
    /// the previous step marked them, its next slice being this one.
    marked: bool,
}

impl Worker {
    /// Computes the gradient of its share's slice and marks the rows of
    /// its next slice.
    fn run(&mut self, net: &FloatNetwork, data: &Dataset, share: &Share<'_>, cfg: &Config) -> f64 {
        for r in self.touched.iter() {
            self.grad.ft[r] = Row::ZERO;
        }
        for row in self.grad.small_rows_mut() {
            *row = Row::ZERO;
        }
        self.grad.out_bias.iter_mut().for_each(|b| *b = 0.0);
        let mark = if share.marked {
            self.touched = std::mem::take(&mut self.next);
            None
        } else {
            self.touched = RowSet::default();
            Some(&mut self.touched)
        };
        let sum = slice_gradient(
            net,
            data,
            share.slice,
            share.batch_len,
            cfg,
            &mut self.pass,
            &mut self.grad,
            mark,
        );
        self.next = RowSet::default();
        let mut room = MirrorRows::default();
        for (i, &e) in share.next.iter().enumerate() {
            // Little work a sample here: fetch further ahead.
            data.prefetch(share.next, i, 8);
            let s = data.entry(e, &mut room);
            self.next.insert_rows(s.us);
            self.next.insert_rows(s.them);
        }
        sum
    }
}

/// First-layer rows per task of the parallel update.
const CHUNK_ROWS: usize = 45;

/// Brings one first-layer row up to step `to`: replays the zero-gradient
/// steps it missed (see the module documentation).
#[allow(clippy::too_many_arguments)]
fn catch_up(
    b: Backend,
    p: &mut Row,
    m: &mut Row,
    v: &mut Row,
    last: &mut u32,
    live: bool,
    to: u32,
    steps: &[f32],
) {
    if live {
        while *last < to {
            *last += 1;
            kernels::adam(b, p, m, v, &Row::ZERO, steps[*last as usize], WEIGHT_LIMIT);
        }
    }
    *last = (*last).max(to);
}

/// The trainer's optimiser: gradients on a persistent pool of worker
/// threads, a sparse first layer, lazy Adam (see the module
/// documentation).
///
/// Invariant: between calls, every first-layer row is current through the
/// last step (`last[r] == steps.len() − 1`), so [`Sparse::network`] is the
/// network dense Adam would have.
pub struct Sparse {
    net: FloatNetwork,
    m: FloatNetwork,
    v: FloatNetwork,
    /// Per first-layer row: the step its values are current through.
    last: Vec<u32>,
    /// Per first-layer row: whether its missed steps change it (it has had
    /// a gradient, or it started outside the clip).
    live: Vec<bool>,
    /// The step size of each step so far (index 0 unused).
    steps: Vec<f32>,
    workers: Vec<Worker>,
    pool: rayon::ThreadPool,
    backend: Backend,
}

impl Sparse {
    /// Starts from `net` with `threads` worker threads.
    ///
    /// # Errors
    /// The threads could not be started.
    pub fn new(net: FloatNetwork, threads: usize, backend: Backend) -> anyhow::Result<Sparse> {
        let threads = threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("chariot-train-{i}"))
            .build()?;
        let (arch, rows) = (net.arch, net.ft.len());
        let live = net
            .ft
            .iter()
            .map(|row| !row.iter().all(|w| w.abs() <= WEIGHT_LIMIT))
            .collect();
        Ok(Sparse {
            net,
            m: FloatNetwork::zeros(arch),
            v: FloatNetwork::zeros(arch),
            last: vec![0; rows],
            live,
            steps: vec![0.0],
            workers: (0..threads)
                .map(|_| Worker {
                    grad: FloatNetwork::zeros(arch),
                    touched: RowSet::default(),
                    next: RowSet::default(),
                    pass: Pass::new(backend),
                })
                .collect(),
            pool,
            backend,
        })
    }

    /// Trains one pass over `entries`, as [`Dense::epoch`] does, and
    /// brings every row up to date at the end.
    pub fn epoch(
        &mut self,
        data: &Dataset,
        entries: &[Entry],
        cfg: &Config,
        lr: f32,
        mut on_batch: impl FnMut(usize, usize),
    ) -> f64 {
        let batches: Vec<&[Entry]> = entries.chunks(cfg.batch_size.max(1)).collect();
        let mut sum = 0.0;
        for (b, batch) in batches.iter().enumerate() {
            let next = batches.get(b + 1).copied().unwrap_or(&[]);
            // From the second batch on, the workers marked this batch's
            // rows in the step before (same batch, same slices).
            sum += self.step(data, batch, next, b > 0, cfg, lr);
            on_batch(b + 1, batches.len());
        }
        self.flush();
        sum
    }

    /// One step on `batch`, whose rows are current; leaves the rows of
    /// `next` current for the next step. `marked`: the previous step was
    /// given this batch as its `next`.
    fn step(
        &mut self,
        data: &Dataset,
        batch: &[Entry],
        next: &[Entry],
        marked: bool,
        cfg: &Config,
        lr: f32,
    ) -> f64 {
        let Sparse {
            net,
            m,
            v,
            last,
            live,
            steps,
            workers,
            pool,
            backend,
        } = self;
        let threads = workers.len();
        let parts: Vec<&[Entry]> = slices(batch, threads).collect();
        let next_parts: Vec<&[Entry]> = slices(next, threads).collect();
        let used = parts.len();
        let t = u32::try_from(steps.len()).unwrap_or(u32::MAX);
        steps.push(step_size(t, lr));
        pool.install(|| {
            // 1. Gradients: each worker its slice, into its own scratch.
            let net_now: &FloatNetwork = net;
            let sums: Vec<f64> = workers
                .par_iter_mut()
                .enumerate()
                .map(|(i, w)| {
                    let share = Share {
                        slice: parts.get(i).copied().unwrap_or(&[]),
                        next: next_parts.get(i).copied().unwrap_or(&[]),
                        batch_len: batch.len(),
                        marked,
                    };
                    w.run(net_now, data, &share, cfg)
                })
                .collect();
            // 2. The update, row by row in parallel: a touched row gets
            // step `t` with its partial sums added in worker order; a row
            // the next batch touches catches up to `t`.
            let grads: Vec<&FloatNetwork> = workers[..used].iter().map(|w| &w.grad).collect();
            let mut touched = RowSet::default();
            let mut upcoming = RowSet::default();
            for w in &workers[..used] {
                touched.union(&w.touched);
            }
            for w in workers.iter() {
                upcoming.union(&w.next);
            }
            let b = *backend;
            let steps = &steps[..];
            net.ft
                .par_chunks_mut(CHUNK_ROWS)
                .zip(m.ft.par_chunks_mut(CHUNK_ROWS))
                .zip(v.ft.par_chunks_mut(CHUNK_ROWS))
                .zip(last.par_chunks_mut(CHUNK_ROWS))
                .zip(live.par_chunks_mut(CHUNK_ROWS))
                .enumerate()
                .for_each(|(c, ((((p, m), v), last), live))| {
                    let rows = p.iter_mut().zip(m).zip(v).zip(last).zip(live);
                    for (k, ((((p, m), v), last), live)) in rows.enumerate() {
                        let r = c * CHUNK_ROWS + k;
                        if touched.contains(r) {
                            debug_assert_eq!(*last + 1, t, "row {r} read before it was current");
                            let mut g = grads[0].ft[r];
                            for grad in &grads[1..] {
                                add_row(&mut g, &grad.ft[r]);
                            }
                            kernels::adam(b, p, m, v, &g, steps[t as usize], WEIGHT_LIMIT);
                            *last = t;
                            *live = true;
                        } else if upcoming.contains(r) {
                            catch_up(b, p, m, v, last, *live, t, steps);
                        }
                    }
                });
            // 3. The small layers, dense, their partial sums added in the
            // same order.
            let mut g: Vec<Row> = grads[0].small_rows().copied().collect();
            let mut g_bias = grads[0].out_bias.clone();
            for grad in &grads[1..] {
                for (a, x) in g.iter_mut().zip(grad.small_rows()) {
                    add_row(a, x);
                }
                for (a, x) in g_bias.iter_mut().zip(&grad.out_bias) {
                    *a += x;
                }
            }
            let step = steps[t as usize];
            for (((p, m), v), g) in net
                .small_rows_mut()
                .zip(m.small_rows_mut())
                .zip(v.small_rows_mut())
                .zip(&g)
            {
                kernels::adam(b, p, m, v, g, step, WEIGHT_LIMIT);
            }
            let biases = net.out_bias.iter_mut().zip(&mut m.out_bias);
            for ((p, m), (v, &g)) in biases.zip(v.out_bias.iter_mut().zip(&g_bias)) {
                kernels::adam_one(p, m, v, g, step, WEIGHT_LIMIT);
            }
            sums.iter().sum()
        })
    }

    /// Brings every first-layer row up to the last step.
    fn flush(&mut self) {
        let Sparse {
            net,
            m,
            v,
            last,
            live,
            steps,
            pool,
            backend,
            ..
        } = self;
        let to = u32::try_from(steps.len() - 1).unwrap_or(u32::MAX);
        let b = *backend;
        let steps = &steps[..];
        pool.install(|| {
            net.ft
                .par_iter_mut()
                .zip(m.ft.par_iter_mut())
                .zip(v.ft.par_iter_mut())
                .zip(last.par_iter_mut())
                .zip(live.par_iter())
                .for_each(|((((p, m), v), last), live)| {
                    catch_up(b, p, m, v, last, *live, to, steps);
                });
        });
    }

    /// The summed loss over `entries`, computed on the worker threads.
    pub fn loss(&self, data: &Dataset, entries: &[Entry], cfg: &Config) -> f64 {
        let parts: Vec<&[Entry]> = slices(entries, self.workers.len()).collect();
        let sums: Vec<f64> = self.pool.install(|| {
            parts
                .par_iter()
                .map(|part| loss_sum(&self.net, data, part, cfg, self.backend))
                .collect()
        });
        sums.iter().sum()
    }

    /// The network (every row up to date: see the invariant).
    pub fn network(&self) -> &FloatNetwork {
        &self.net
    }

    /// The network, giving up the optimiser.
    pub fn into_network(self) -> FloatNetwork {
        self.net
    }
}
