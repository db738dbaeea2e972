//! NNUE: an efficiently updatable neural evaluation, in the format and with
//! the features that Chariot's own pipeline (`chariot datagen`, the `train`
//! crate) produces. `docs/nnue.md` is the specification of both files this
//! module reads and writes.
//!
//! What lives where:
//! - [`features`]: the architectures ([`features::Arch`], named by what
//!   they encode, each with its file format version) — the input
//!   encoding (piece kind × relative colour × perspective-relative
//!   square, every square per input bucket) and the output buckets — and
//!   the constants they share.
//! - [`network`]: the quantised weights, the network file (header,
//!   payload, checksum) and its validating loader.
//! - [`accumulator`]: the hidden layer kept per perspective, refreshed from
//!   a position or updated by adding and removing features.
//! - [`simd`]: the output layer (squared clipped ReLU and the dot product
//!   with one output bucket's weights), scalar and AVX2, chosen at run
//!   time.
//! - [`stack`]: the search's per-ply accumulators, updated lazily.
//! - [`games`]: the training data as whole games (moves and search scores),
//!   and the filters that choose the positions to train on.
//!
//! - [`embedded`]: the network compiled into the binary, the default
//!   evaluation of every search, and [`EvalSource`]: how the tools and
//!   the options name an evaluation, and the one loader of it.
//!
//! The search owns an [`AccumulatorStack`] per thread and calls it from
//! its make and unmake (`search::Search`).

pub mod accumulator;
pub mod features;
pub mod games;
pub mod network;
pub mod simd;
pub mod stack;

pub use accumulator::Accumulator;
pub use network::{Network, NetworkError};
pub use stack::AccumulatorStack;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// The network file compiled into the binary (`docs/nnue.md`; its data,
/// training command and test are in the lineage table of
/// `docs/lab/strength.md`). An empty file would build an engine without a
/// network, which evaluates by hand.
static EMBEDDED_FILE: &[u8] = include_bytes!("../../nets/default.nnue");

/// The embedded network, read once; `None` when the build has none.
/// The file is checked by the same loader as any other, and a test
/// demands that it loads.
pub fn embedded() -> Option<Arc<Network>> {
    static NET: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    NET.get_or_init(|| {
        if EMBEDDED_FILE.is_empty() {
            return None;
        }
        Network::from_bytes(EMBEDDED_FILE).ok().map(Arc::new)
    })
    .clone()
}

#[cfg(test)]
pub(crate) mod tests;

/// An evaluation as the command-line tools (`--eval`) and the engine
/// options (`EvalFile`) name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalSource {
    /// The network compiled into the binary ([`embedded`]), or the
    /// hand-written evaluation in a build without one.
    Embedded,
    /// The hand-written evaluation.
    Hand,
    /// A network file.
    File(PathBuf),
}

impl EvalSource {
    /// Reads a name: `builtin`, `<builtin>` or nothing for
    /// [`EvalSource::Embedded`], `hand` or `<hand>` for
    /// [`EvalSource::Hand`] (either case), anything else as a file path.
    pub fn parse(text: &str) -> EvalSource {
        let text = text.trim();
        let lower = text.to_ascii_lowercase();
        match lower.as_str() {
            "" | "builtin" | "<builtin>" => EvalSource::Embedded,
            "hand" | "<hand>" => EvalSource::Hand,
            _ => EvalSource::File(PathBuf::from(text)),
        }
    }

    /// The network this names (`None`: the hand-written evaluation).
    ///
    /// # Errors
    /// A network file that does not load, with the loader's reason.
    pub fn load(&self) -> Result<Option<Arc<Network>>, NetworkError> {
        match self {
            EvalSource::Embedded => Ok(embedded()),
            EvalSource::Hand => Ok(None),
            EvalSource::File(path) => Network::load(path).map(|n| Some(Arc::new(n))),
        }
    }
}
