//! Chariot's NNUE trainer, in plain Rust so that it runs anywhere the
//! engine builds: no GPU, no Python, no multi-gigabyte install.
//!
//! - [`dataset`]: reads games files into compact samples (the active
//!   feature rows of both perspectives and the two labels), one per
//!   position, each remembering its game; mirrors are computed when
//!   trained, not stored.
//! - [`kernels`]: the hot loops (hidden-layer row sums, the output layer,
//!   the backward row updates, Adam), portable and AVX2, chosen at run
//!   time and equal to the bit.
//! - [`model`]: the float network of the engine's architecture, its
//!   forward and backward passes written by hand (the first layer is sparse:
//!   only the rows of the pieces on the board are touched), and the
//!   quantisation to `engine::nnue::Network`.
//! - [`trainer`]: Adam, the loss, the learning-rate schedule, the
//!   validation split by whole games, batches spread over threads, and
//!   progress output.
//!
//! The architecture and the quantisation are the engine's
//! (`engine::nnue::features`, `engine::nnue::network`): the trainer never
//! decides them, so an exported file always fits the engine that built it.

pub mod dataset;
pub mod kernels;
pub mod model;
pub mod trainer;

pub use dataset::{Dataset, Entry, MirrorRows, Sample};
pub use model::FloatNetwork;
pub use trainer::{Config, EpochReport, train};
