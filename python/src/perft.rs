//! `perft` and `divide`: the board crate's move-tree counts, run with the
//! GIL released so other Python threads go on, and interruptible by
//! Ctrl-C (the count asks for pending signals every few thousand nodes).

use std::cell::{Cell, RefCell};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::board::{Board, PyMove};

/// Nodes between two looks at Python's pending signals.
const SIGNAL_INTERVAL: u32 = 1 << 14;

/// Runs `count` on a copy of `board`'s position without the GIL; a signal
/// handler that raises (`KeyboardInterrupt`) stops it and its error is
/// returned.
fn run_detached<T: Send>(
    py: Python<'_>,
    board: &Board,
    count: impl FnOnce(&mut board::Position, &dyn Fn() -> bool) -> Option<T> + Send,
) -> PyResult<T> {
    let mut pos = board.pos.clone();
    let outcome = py.detach(move || {
        let calls = Cell::new(0u32);
        let error: RefCell<Option<PyErr>> = RefCell::new(None);
        let stop = || {
            let n = calls.get().wrapping_add(1);
            calls.set(n);
            if !n.is_multiple_of(SIGNAL_INTERVAL) {
                return false;
            }
            Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(e) => {
                    *error.borrow_mut() = Some(e);
                    true
                }
            })
        };
        let result = count(&mut pos, &stop);
        (result, error.into_inner())
    });
    match outcome {
        (Some(v), _) => Ok(v),
        (None, Some(e)) => Err(e),
        (None, None) => Err(pyo3::exceptions::PyKeyboardInterrupt::new_err(
            "perft interrupted",
        )),
    }
}

/// The number of leaves of the legal move tree ``depth`` plies deep from
/// ``board`` (perft). Releases the GIL while it counts.
#[pyfunction]
pub fn perft(py: Python<'_>, board: &Board, depth: u32) -> PyResult<u64> {
    run_detached(py, board, |pos, stop| pos.perft_until(depth, &stop))
}

/// Perft split by root move: a dict from each legal ``Move`` to the
/// leaves below it (``depth`` plies in all), in generation order.
/// Releases the GIL while it counts.
#[pyfunction]
pub fn divide<'py>(py: Python<'py>, board: &Board, depth: u32) -> PyResult<Bound<'py, PyDict>> {
    let split = run_detached(py, board, |pos, stop| pos.divide_until(depth, &stop))?;
    let out = PyDict::new(py);
    for (m, n) in split {
        out.set_item(PyMove(m), n)?;
    }
    Ok(out)
}
