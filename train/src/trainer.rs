//! The training run: the validation split, the shuffle, the learning-rate
//! schedule, the epochs and their reports. What is learned (the settings,
//! the target, the loss) is [`crate::loss`]'s; the steps themselves
//! (gradients on the worker threads, Adam) are [`crate::optim`]'s.
//!
//! Validation: a game goes to the validation set when a hash of its
//! number in the data set (the sample's group, [`Dataset::group`]) and the
//! seed falls below [`Config::validation`], so the validation set holds
//! whole games: never a position whose neighbours in its game, or whose
//! mirror, are trained on.
//!
//! Mirroring ([`Config::mirror`]): each epoch trains every training
//! position twice, as itself and as its left-right mirror, the two as two
//! [`Entry`]s shuffled among the others; the mirrored rows are computed when
//! the sample is trained ([`Dataset::entry`]), so the data set holds one
//! sample per position. The validation loss covers the mirrors
//! too.
//!
//! Reproducibility: the shuffle and the initial weights come from one
//! `rand_pcg` generator seeded by [`Config::seed`], and the optimiser
//! ([`crate::optim`]) adds the gradients in an order fixed by the thread
//! count, so a run repeats exactly for a seed and thread count: the same
//! data files give the same network file, byte for byte, with the same
//! build on any CPU.

use std::time::Instant;

use rand_core::RngCore;
use rand_pcg::Pcg64Mcg;

use crate::dataset::{Dataset, Entry};
use crate::loss::{Config, LrSchedule};
use crate::model::FloatNetwork;
use crate::optim::{Sparse, loss_sum};

/// What one epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch number (0: before training).
    pub epoch: usize,
    /// The learning rate used.
    pub lr: f32,
    /// The weight of the game result in the target
    /// ([`Config::lambda`]; [`lambda`]).
    pub lambda: f32,
    /// Mean loss over the training positions of this epoch.
    pub train_loss: f32,
    /// Mean loss over the validation positions after the epoch (`NaN`
    /// without a validation set).
    pub validation_loss: f32,
    /// Samples (positions and, with [`Config::mirror`], their mirrors) per
    /// second of this epoch: forward, backward and update.
    pub positions_per_second: f32,
}

/// Mean loss of `net` over the samples `indices` of `data` (not mirrored).
pub fn loss(net: &FloatNetwork, data: &Dataset, indices: &[usize], cfg: &Config) -> f32 {
    if indices.is_empty() {
        return f32::NAN;
    }
    let sum = loss_sum(net, data, &entries(indices, false), cfg, cfg.backend);
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    {
        (sum / indices.len() as f64) as f32
    }
}

/// The validation and training samples (see the module documentation):
/// by group (game), never by position, so that the positions of one game
/// land on one side.
pub fn split(data: &Dataset, cfg: &Config) -> (Vec<usize>, Vec<usize>) {
    (0..data.len()).partition(|&i| {
        let h = splitmix(u64::from(data.group(i)) ^ cfg.seed.rotate_left(32));
        #[allow(clippy::cast_precision_loss)]
        let unit = (h >> 11) as f64 / (1u64 << 53) as f64;
        unit < f64::from(cfg.validation.clamp(0.0, 0.5))
    })
}

/// The splitmix64 finaliser: a well-mixed hash of a 64-bit value.
fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A deterministic Fisher–Yates shuffle.
fn shuffle<T>(v: &mut [T], rng: &mut Pcg64Mcg) {
    for i in (1..v.len()).rev() {
        let j = usize::try_from(rng.next_u64() % (i as u64 + 1)).unwrap_or(0);
        v.swap(i, j);
    }
}

/// The entries an epoch trains for the samples `indices`: each sample,
/// and with `mirror` its mirror right after it.
pub fn entries(indices: &[usize], mirror: bool) -> Vec<Entry> {
    let views: &[bool] = if mirror { &[false, true] } else { &[false] };
    indices
        .iter()
        .flat_map(|&i| views.iter().map(move |&m| Entry::new(i, m)))
        .collect()
}

/// The learning rate of `epoch` (from 1) under `cfg`'s schedule.
pub fn learning_rate(cfg: &Config, epoch: usize) -> f32 {
    match cfg.lr_schedule {
        LrSchedule::Step => {
            let exponent =
                i32::try_from(epoch.saturating_sub(1) / cfg.lr_step.max(1)).unwrap_or(i32::MAX);
            cfg.lr * cfg.lr_gamma.powi(exponent)
        }
        LrSchedule::Cosine => {
            let wave = (std::f64::consts::PI * progress(cfg, epoch)).cos();
            let (first, last) = (f64::from(cfg.lr), f64::from(cfg.lr_final));
            #[allow(clippy::cast_possible_truncation)]
            let lr = (last + (first - last) * (1.0 + wave) / 2.0) as f32;
            lr
        }
    }
}

/// λ, the weight of the game result in the target, in `epoch` (from 1):
/// [`Config::lambda`] in the first epoch, [`Config::lambda_end`] in the
/// last, on a straight line between.
pub fn lambda(cfg: &Config, epoch: usize) -> f32 {
    match cfg.lambda_end {
        None => cfg.lambda,
        Some(end) => {
            let t = progress(cfg, epoch);
            let (first, last) = (f64::from(cfg.lambda), f64::from(end));
            #[allow(clippy::cast_possible_truncation)]
            let lambda = (first + (last - first) * t) as f32;
            lambda
        }
    }
}

/// The settings epoch `epoch` (from 1) trains and is measured with: the
/// run's, with that epoch's λ.
pub fn at_epoch(cfg: &Config, epoch: usize) -> Config {
    Config {
        lambda: lambda(cfg, epoch),
        ..cfg.clone()
    }
}

/// How far `epoch` (from 1) lies from the first epoch (0) to the last (1).
#[allow(clippy::cast_precision_loss)]
fn progress(cfg: &Config, epoch: usize) -> f64 {
    let last = cfg.epochs.saturating_sub(1);
    if last == 0 {
        0.0
    } else {
        epoch.saturating_sub(1).min(last) as f64 / last as f64
    }
}

/// Trains a network of the data's architecture ([`Dataset::arch`]) on
/// `data`. `on_epoch` sees the state before training
/// (epoch 0) and each epoch's report; `on_batch` sees (batches done in the
/// epoch, batches in the epoch) for a progress line.
///
/// # Errors
/// The worker threads could not be started.
pub fn train(
    data: &Dataset,
    cfg: &Config,
    mut on_epoch: impl FnMut(&EpochReport),
    mut on_batch: impl FnMut(usize, usize),
) -> anyhow::Result<FloatNetwork> {
    let mut rng = Pcg64Mcg::new(u128::from(cfg.seed) << 1 | 1);
    let net = FloatNetwork::random(data.arch(), &mut rng);
    let (val, train_set) = split(data, cfg);
    let val = entries(&val, cfg.mirror);
    let mut train_set = entries(&train_set, cfg.mirror);
    let mut opt = Sparse::new(net, cfg.threads, cfg.backend)?;
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let mean = |sum: f64, n: usize| {
        if n == 0 {
            f32::NAN
        } else {
            (sum / n as f64) as f32
        }
    };
    on_epoch(&EpochReport {
        epoch: 0,
        lr: cfg.lr,
        lambda: cfg.lambda,
        train_loss: mean(opt.loss(data, &train_set, cfg), train_set.len()),
        validation_loss: mean(opt.loss(data, &val, cfg), val.len()),
        positions_per_second: 0.0,
    });
    for epoch in 1..=cfg.epochs {
        let lr = learning_rate(cfg, epoch);
        let now = at_epoch(cfg, epoch);
        shuffle(&mut train_set, &mut rng);
        let start = Instant::now();
        let loss_sum = opt.epoch(data, &train_set, &now, lr, &mut on_batch);
        let secs = start.elapsed().as_secs_f32().max(1e-6);
        #[allow(clippy::cast_precision_loss)]
        on_epoch(&EpochReport {
            epoch,
            lr,
            lambda: now.lambda,
            train_loss: mean(loss_sum, train_set.len()),
            validation_loss: mean(opt.loss(data, &val, &now), val.len()),
            positions_per_second: train_set.len() as f32 / secs,
        });
    }
    Ok(opt.into_network())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(epochs: usize) -> Config {
        Config {
            epochs,
            ..Config::default()
        }
    }

    #[test]
    fn the_step_schedule_drops_by_gamma_every_step() {
        let c = Config {
            lr: 1e-3,
            lr_step: 6,
            lr_gamma: 0.3,
            ..cfg(15)
        };
        let rates: Vec<f32> = (1..=15).map(|e| learning_rate(&c, e)).collect();
        assert!(rates[..6].iter().all(|&r| r == 1e-3));
        assert!(rates[6..12].iter().all(|&r| r == 1e-3 * 0.3));
        assert!(rates[12..].iter().all(|&r| r == 1e-3 * 0.3 * 0.3));
    }

    #[test]
    fn the_cosine_schedule_falls_from_the_first_rate_to_the_last() {
        let c = Config {
            lr_schedule: LrSchedule::Cosine,
            lr: 1e-3,
            lr_final: 1e-5,
            ..cfg(11)
        };
        let rates: Vec<f32> = (1..=11).map(|e| learning_rate(&c, e)).collect();
        assert!((rates[0] - 1e-3).abs() < 1e-9, "{rates:?}");
        assert!((rates[10] - 1e-5).abs() < 1e-9, "{rates:?}");
        assert!(
            (rates[5] - (1e-3 + 1e-5) / 2.0).abs() < 1e-8,
            "the midpoint"
        );
        assert!(rates.windows(2).all(|w| w[1] < w[0]), "{rates:?}");
        // One epoch trains at the first rate.
        assert_eq!(learning_rate(&Config { epochs: 1, ..c }, 1), 1e-3);
    }

    #[test]
    fn lambda_moves_on_a_line_or_stays() {
        let still = Config {
            lambda: 0.3,
            ..cfg(5)
        };
        assert!((1..=5).all(|e| lambda(&still, e) == 0.3));
        let moving = Config {
            lambda: 1.0,
            lambda_end: Some(0.5),
            ..cfg(5)
        };
        let l: Vec<f32> = (1..=5).map(|e| lambda(&moving, e)).collect();
        assert_eq!(l, [1.0, 0.875, 0.75, 0.625, 0.5]);
    }

    #[test]
    fn schedules_parse_by_name() {
        assert_eq!("step".parse::<LrSchedule>(), Ok(LrSchedule::Step));
        assert_eq!(" Cosine".parse::<LrSchedule>(), Ok(LrSchedule::Cosine));
        assert!("linear".parse::<LrSchedule>().is_err());
    }
}
