//! `perft` and `divide`: the board crate's move-tree counts, run with the
//! GIL released so other Python threads go on, and interruptible by
//! Ctrl-C (the count asks for pending signals every few thousand nodes).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::board::{Board, PyMove};
use crate::detach;

/// The number of leaves of the legal move tree ``depth`` plies deep from
/// ``board`` (perft). Releases the GIL while it counts.
#[pyfunction]
pub fn perft(py: Python<'_>, board: &Board, depth: u32) -> PyResult<u64> {
    detach::count(py, &board.pos, |pos, stop| pos.perft_until(depth, &stop))
}

/// Perft split by root move: a dict from each legal ``Move`` to the
/// leaves below it (``depth`` plies in all), in generation order.
/// Releases the GIL while it counts.
#[pyfunction]
pub fn divide<'py>(py: Python<'py>, board: &Board, depth: u32) -> PyResult<Bound<'py, PyDict>> {
    let split = detach::count(py, &board.pos, |pos, stop| pos.divide_until(depth, &stop))?;
    let out = PyDict::new(py);
    for (m, n) in split {
        out.set_item(PyMove(m), n)?;
    }
    Ok(out)
}
