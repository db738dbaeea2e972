//! The `chariot` Python package's extension module, `chariot._chariot`
//! (the package's `__init__.py` re-exports it). It owns the conversion
//! between Python and the library crates — `board`, `engine`, `book` —
//! and nothing of the game itself: every rule, count, notation read and
//! search is theirs. `protocol` is not used: Python calls the engine
//! itself rather than speaking protocol text to it.
//!
//! Modules, each using only those before it: `errors` (the exceptions),
//! `color` (`Color`), `notation` (writing WXF and Chinese), `rules`
//! (`Outcome`), `detach` (a count without the GIL, interruptible),
//! `board` (`Move`, `Board`, `adjudicate`), `perft`, `records` (PGN, EPD,
//! books) and `engine` (the in-process engine).

// pyo3 hands `#[pyfunction]`/`#[pymethods]` arguments over by value (it
// extracts them from Python objects), so taking them by reference is not
// an option there.
#![allow(clippy::needless_pass_by_value)]

mod board;
mod color;
mod detach;
mod engine;
mod errors;
mod notation;
mod perft;
mod records;
mod rules;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
#[pyo3(name = "_chariot")]
fn chariot_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("START_FEN", ::board::START_FEN)?;
    errors::register(m)?;
    m.add_class::<color::Color>()?;
    m.add_class::<board::PyMove>()?;
    m.add_class::<board::Board>()?;
    m.add_class::<rules::Outcome>()?;
    m.add_function(wrap_pyfunction!(board::adjudicate, m)?)?;
    m.add_function(wrap_pyfunction!(perft::perft, m)?)?;
    m.add_function(wrap_pyfunction!(perft::divide, m)?)?;
    records::register(m)?;
    engine::register(m)?;
    Ok(())
}
