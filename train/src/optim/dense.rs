//! [`Dense`], the optimiser the tests hold [`Sparse`](super::Sparse) to:
//! every weight's gradient, Adam over every weight every step (the
//! parent's docs say why the two agree bit for bit).

use super::{add_row, loss_sum, slice_gradient, slices, step_size};
use crate::dataset::{Dataset, Entry};
use crate::kernels::{self, Backend};
use crate::loss::Config;
use crate::model::{FloatNetwork, Pass, WEIGHT_LIMIT};

/// The slow twin of [`Sparse`](super::Sparse): dense gradients, dense
/// Adam, one thread.
pub struct Dense {
    net: FloatNetwork,
    m: FloatNetwork,
    v: FloatNetwork,
    t: u32,
    grads: Vec<FloatNetwork>,
    threads: usize,
    backend: Backend,
}

impl Dense {
    /// Starts from `net`, with batches sliced as `threads` threads slice
    /// them.
    pub fn new(net: FloatNetwork, threads: usize, backend: Backend) -> Dense {
        let threads = threads.max(1);
        let arch = net.arch;
        Dense {
            net,
            m: FloatNetwork::zeros(arch),
            v: FloatNetwork::zeros(arch),
            t: 0,
            grads: (0..threads).map(|_| FloatNetwork::zeros(arch)).collect(),
            threads,
            backend,
        }
    }

    /// Trains one pass over `entries` in batches of `cfg.batch_size` at
    /// learning rate `lr`, calling `on_batch(done, total)` after each, and
    /// returns the summed training loss.
    pub fn epoch(
        &mut self,
        data: &Dataset,
        entries: &[Entry],
        cfg: &Config,
        lr: f32,
        mut on_batch: impl FnMut(usize, usize),
    ) -> f64 {
        let mut pass = Pass::new(self.backend);
        let mut sum = 0.0;
        let total = entries.len().div_ceil(cfg.batch_size.max(1));
        for (b, batch) in entries.chunks(cfg.batch_size.max(1)).enumerate() {
            let mut used = 0;
            for (slice, grad) in slices(batch, self.threads).zip(&mut self.grads) {
                grad.clear();
                sum += slice_gradient(
                    &self.net,
                    data,
                    slice,
                    batch.len(),
                    cfg,
                    &mut pass,
                    grad,
                    None,
                );
                used += 1;
            }
            let (first, rest) = self.grads.split_at_mut(1);
            let sum_grad = &mut first[0];
            for g in &rest[..used - 1] {
                for (a, b) in sum_grad.rows_mut().zip(g.rows()) {
                    add_row(a, b);
                }
                for (a, b) in sum_grad.out_bias.iter_mut().zip(&g.out_bias) {
                    *a += b;
                }
            }
            self.t += 1;
            let step = step_size(self.t, lr);
            for (((p, m), v), g) in self
                .net
                .rows_mut()
                .zip(self.m.rows_mut())
                .zip(self.v.rows_mut())
                .zip(sum_grad.rows())
            {
                kernels::adam(self.backend, p, m, v, g, step, WEIGHT_LIMIT);
            }
            let (p, m, v) = (&mut self.net, &mut self.m, &mut self.v);
            let biases = p.out_bias.iter_mut().zip(&mut m.out_bias);
            for ((p, m), (v, &g)) in biases.zip(v.out_bias.iter_mut().zip(&sum_grad.out_bias)) {
                kernels::adam_one(p, m, v, g, step, WEIGHT_LIMIT);
            }
            on_batch(b + 1, total);
        }
        sum
    }

    /// The summed loss over `entries`.
    pub fn loss(&self, data: &Dataset, entries: &[Entry], cfg: &Config) -> f64 {
        loss_sum(&self.net, data, entries, cfg, self.backend)
    }

    /// The network.
    pub fn network(&self) -> &FloatNetwork {
        &self.net
    }
}
