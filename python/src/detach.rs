//! Counting without the GIL: a move-tree count runs on a copy of the
//! position while other Python threads go on, and asks for pending signals
//! every few thousand nodes so that Ctrl-C stops it.

use std::cell::{Cell, RefCell};

use pyo3::prelude::*;

/// Nodes between two looks at Python's pending signals.
const SIGNAL_INTERVAL: u32 = 1 << 14;

/// Runs `count` on a copy of `pos` without the GIL; a signal handler that
/// raises (`KeyboardInterrupt`) stops it and its error is returned.
pub fn count<T: Send>(
    py: Python<'_>,
    pos: &board::Position,
    count: impl FnOnce(&mut board::Position, &dyn Fn() -> bool) -> Option<T> + Send,
) -> PyResult<T> {
    let mut pos = pos.clone();
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
