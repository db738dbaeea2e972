//! NNUE: an efficiently updatable neural evaluation, in the format and with
//! the features that Chariot's own pipeline (`chariot datagen`, the `train`
//! crate) produces. `docs/nnue.md` is the specification of both files this
//! module reads and writes.
//!
//! What lives where:
//! - [`features`]: the input encoding (piece kind × relative colour ×
//!   perspective-relative square, per king bucket) and the architecture
//!   constants.
//! - [`network`]: the quantised weights, the network file (header,
//!   payload, checksum) and its validating loader.
//! - [`accumulator`]: the hidden layer kept per perspective, refreshed from
//!   a position or updated by adding and removing features.
//! - [`simd`]: the output layer (squared clipped ReLU and the dot product),
//!   scalar and AVX2, chosen at run time.
//! - [`data`]: the training record (a packed position with its search
//!   score and game result) and its streaming writer and reader.
//!
//! Not here: wiring the network into the search (the search keeps its own
//! per-ply stack of accumulators) and choosing it as the default
//! evaluation; both wait for games that show the network is stronger.

pub mod accumulator;
pub mod data;
pub mod features;
pub mod network;
pub mod simd;

pub use accumulator::Accumulator;
pub use network::{Network, NetworkError};

#[cfg(test)]
mod tests;
