//! Chariot's NNUE trainer, in plain Rust so that it runs anywhere the
//! engine builds: no GPU, no Python, no multi-gigabyte install.
//!
//! - [`dataset`]: reads games files into compact samples (the active
//!   feature rows of both perspectives in one architecture's encoding,
//!   the output bucket and the two labels), one per position, each
//!   remembering its game; mirrors are computed when trained, not stored.
//! - [`model`]: the float network of an engine architecture, its forward
//!   and backward passes (the backward pass touches only the first-layer
//!   rows of the pieces on the board and the sample's output bucket), and
//!   the quantisation to `engine::nnue::Network`.
//! - [`kernels`]: the hot loops (hidden-layer row sums, the output layer,
//!   the backward row updates, Adam), portable and AVX2, chosen at run
//!   time and equal to the bit.
//! - [`optim`]: the training step — gradients on a pool of worker threads
//!   kept for the run, merged in a fixed order, and Adam on only the
//!   first-layer rows a batch touches, exactly as dense Adam would move
//!   them — and its dense slow twin.
//! - [`loss`]: what is learned — a run's settings, the target that blends
//!   the game's result with the search's score, and the loss.
//! - [`trainer`]: the learning-rate schedule, the validation split by
//!   whole games, the shuffle, and the per-epoch reports.
//!
//! The architectures and the quantisation are the engine's
//! (`engine::nnue::features::Arch`, `engine::nnue::network`): the trainer
//! picks one (`--arch`, `squares` by default) but never decides its shape,
//! so an exported file always fits the engine that built it. A run is a
//! function of its data files, architecture, seed and thread count: the
//! same network file, byte for byte, with the same build on any CPU
//! (`docs/nnue.md` §5).

pub mod dataset;
pub mod kernels;
pub mod loss;
pub mod model;
pub mod optim;
pub mod trainer;

pub use dataset::{Dataset, Entry, MirrorRows, Sample};
pub use loss::{Config, LrSchedule};
pub use model::FloatNetwork;
pub use trainer::{EpochReport, train};
