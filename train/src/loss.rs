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
    /// How the learning rate falls from [`Config::lr`] over the epochs
    /// ([`crate::trainer::learning_rate`]).
    pub lr_schedule: LrSchedule,
    /// [`LrSchedule::Step`]: multiply the learning rate by
    /// [`Config::lr_gamma`] every this many epochs.
    pub lr_step: usize,
    /// [`LrSchedule::Step`]: the learning-rate factor at each step.
    pub lr_gamma: f32,
    /// [`LrSchedule::Cosine`]: the learning rate of the last epoch.
    pub lr_final: f32,
    /// Weight of the game result in the target (0: score only, 1: result
    /// only) in the first epoch.
    pub lambda: f32,
    /// The weight of the result in the last epoch: λ moves in a straight
    /// line from [`Config::lambda`] to this over the epochs
    /// ([`crate::trainer::lambda`]); `None` keeps it.
    pub lambda_end: Option<f32>,
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
            lr_schedule: LrSchedule::Step,
            lr_step: 4,
            lr_gamma: 0.3,
            lr_final: 0.000_1,
            lambda: 0.3,
            lambda_end: None,
            eval_scale: 400.0,
            validation: 0.05,
            seed: 1,
            threads: 1,
            mirror: false,
            backend: Backend::detect(),
        }
    }
}

/// How the learning rate falls over a run's epochs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LrSchedule {
    /// Multiplied by [`Config::lr_gamma`] every [`Config::lr_step`] epochs.
    #[default]
    Step,
    /// Half a cosine wave from [`Config::lr`] in the first epoch to
    /// [`Config::lr_final`] in the last.
    Cosine,
}

impl std::str::FromStr for LrSchedule {
    type Err = String;

    fn from_str(text: &str) -> Result<LrSchedule, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "step" => Ok(LrSchedule::Step),
            "cosine" => Ok(LrSchedule::Cosine),
            other => Err(format!(
                "unknown learning-rate schedule {other:?}: step or cosine"
            )),
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
