//! What training learns: a run's settings ([`Config`]), the target of a
//! sample and the loss against it. Both the run ([`crate::trainer`]) and
//! the steps ([`crate::optim`]) read it, so it sits below the two.
//!
//! Loss, per position: `(sigmoid(y × SCALE / k) − t)²` where `y` is the
//! network's output, `k` is [`Config::eval_scale`] (centipawns per unit of
//! the logistic), and the target blends the game result with the search
//! score: `t = λ × (result + 1) / 2 + (1 − λ) × sigmoid(score / k)`.

use engine::nnue::network::SCALE;

use crate::kernels::Backend;
use crate::model::sigmoid;

/// Training settings; [`Config::default`] gives the documented defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Passes over the training set.
    pub epochs: usize,
    /// Positions per optimiser step.
    pub batch_size: usize,
    /// Initial learning rate (Adam).
    pub lr: f32,
    /// Multiply the learning rate by [`Config::lr_gamma`] every this many
    /// epochs.
    pub lr_step: usize,
    /// The learning-rate factor at each step of the schedule.
    pub lr_gamma: f32,
    /// Weight of the game result in the target (0: score only, 1: result
    /// only).
    pub lambda: f32,
    /// Centipawns per unit of the logistic in the loss.
    pub eval_scale: f32,
    /// Fraction of the positions held out for validation.
    pub validation: f32,
    /// Seed of the initial weights and the shuffle.
    pub seed: u64,
    /// Worker threads (gradients, updates, losses).
    pub threads: usize,
    /// Train each position as itself and as its left-right mirror.
    pub mirror: bool,
    /// The kernels' backend (every backend gives the same network).
    pub backend: Backend,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            epochs: 10,
            batch_size: 16384,
            lr: 0.001,
            lr_step: 4,
            lr_gamma: 0.3,
            lambda: 0.3,
            eval_scale: 400.0,
            validation: 0.05,
            seed: 1,
            threads: 1,
            mirror: false,
            backend: Backend::detect(),
        }
    }
}

/// The training target of a sample (see the module documentation).
pub fn target(score: i16, result: i8, cfg: &Config) -> f32 {
    let wdl = (f32::from(result) + 1.0) / 2.0;
    cfg.lambda * wdl + (1.0 - cfg.lambda) * sigmoid(f32::from(score) / cfg.eval_scale)
}

/// The loss of a score in centipawns (any evaluation's) against a sample's
/// labels: the yardstick that puts the network and the hand-written
/// evaluation on one scale.
pub fn loss_of_cp(cp: f32, score: i16, result: i8, cfg: &Config) -> f32 {
    let d = sigmoid(cp / cfg.eval_scale) - target(score, result, cfg);
    d * d
}

/// The factor from the network's output to the logistic's argument.
#[allow(clippy::cast_precision_loss)]
pub(crate) fn out_scale(cfg: &Config) -> f32 {
    SCALE as f32 / cfg.eval_scale
}
