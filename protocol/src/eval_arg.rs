//! The `--eval` argument of the command-line tools (`bench`, `datagen`):
//! which evaluation their searches use. One reader, so the tools agree.

use std::path::Path;
use std::sync::Arc;

use engine::nnue::Network;

/// Reads an `--eval` value: `Ok(None)` is the hand-written evaluation.
///
/// # Errors
/// A network file that does not load, with the loader's reason.
pub fn read(text: &str) -> Result<Option<Arc<Network>>, String> {
    match text {
        "builtin" => Ok(engine::nnue::embedded()),
        "hand" => Ok(None),
        path => Network::load(Path::new(path))
            .map(|n| Some(Arc::new(n)))
            .map_err(|e| e.to_string()),
    }
}
