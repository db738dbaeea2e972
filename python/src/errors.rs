//! The package's exceptions, and the conversions from the library crates'
//! typed errors to them. Every error a Python caller can cause ends here as
//! a documented exception whose message names the problem; nothing a
//! caller passes reaches a panic.
//!
//! The hierarchy (all importable from `chariot`):
//!
//! * `ChariotError(Exception)`: the base of every error below.
//! * `FenError(ChariotError, ValueError)`: a FEN that is unreadable or not a
//!   legal position (`docs/rules.md` §5).
//! * `MoveError(ChariotError, ValueError)`, with `InvalidMoveError` (text
//!   that is no move in any notation read) and `IllegalMoveError` (a move
//!   that is not legal in the position, or text that fits no legal move or
//!   several).
//! * `PgnError`, `EpdError`, `BookError` (each also a `ValueError`): a game
//!   record, suite or book that cannot be used. Files that cannot be read
//!   raise the usual `OSError`s.
//! * `EngineError(ChariotError, RuntimeError)`, with `EngineClosedError`
//!   (the engine was closed) and `EngineBusyError` (another thread is
//!   searching with it).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use board::FenError as CoreFenError;
use book::notation::NotationError;

create_exception!(
    chariot,
    ChariotError,
    PyException,
    "The base of every error the chariot package raises."
);

/// Declares an exception deriving from [`ChariotError`] and one builtin
/// exception, so that `except ValueError` and `except ChariotError` both
/// catch it. `create_exception!` takes a single base; the second is added by
/// building the class with `type(name, bases, dict)`.
fn exception_class<'py>(
    py: Python<'py>,
    name: &str,
    bases: &[Bound<'py, PyAny>],
    doc: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let ns = pyo3::types::PyDict::new(py);
    ns.set_item("__doc__", doc)?;
    ns.set_item("__module__", "chariot")?;
    let bases = PyTuple::new(py, bases)?;
    py.get_type::<pyo3::types::PyType>()
        .call1((name, bases, ns))
}

/// The exception classes, built once when the module is imported.
pub struct Classes {
    fen: Py<PyAny>,
    invalid_move: Py<PyAny>,
    illegal_move: Py<PyAny>,
    pgn: Py<PyAny>,
    epd: Py<PyAny>,
    book: Py<PyAny>,
    engine: Py<PyAny>,
    engine_closed: Py<PyAny>,
    engine_busy: Py<PyAny>,
}

static CLASSES: std::sync::OnceLock<Classes> = std::sync::OnceLock::new();

/// Which of the package's exceptions to raise.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// `FenError`.
    Fen,
    /// `InvalidMoveError`.
    InvalidMove,
    /// `IllegalMoveError`.
    IllegalMove,
    /// `PgnError`.
    Pgn,
    /// `EpdError`.
    Epd,
    /// `BookError`.
    Book,
    /// `EngineError`.
    Engine,
    /// `EngineClosedError`.
    EngineClosed,
    /// `EngineBusyError`.
    EngineBusy,
}

/// An exception of `kind` with `message`.
pub fn err(kind: Kind, message: impl Into<String>) -> PyErr {
    let message = message.into();
    let Some(classes) = CLASSES.get() else {
        // Only reachable if the module failed to initialise.
        return PyRuntimeError::new_err(message);
    };
    let class = match kind {
        Kind::Fen => &classes.fen,
        Kind::InvalidMove => &classes.invalid_move,
        Kind::IllegalMove => &classes.illegal_move,
        Kind::Pgn => &classes.pgn,
        Kind::Epd => &classes.epd,
        Kind::Book => &classes.book,
        Kind::Engine => &classes.engine,
        Kind::EngineClosed => &classes.engine_closed,
        Kind::EngineBusy => &classes.engine_busy,
    };
    Python::attach(|py| match class.bind(py).call1((message,)) {
        Ok(instance) => PyErr::from_value(instance),
        Err(e) => e,
    })
}

/// A FEN the board crate refused.
pub fn fen_error(fen: &str, e: &CoreFenError) -> PyErr {
    let shown: String = fen.chars().take(120).collect();
    err(Kind::Fen, format!("{e} (in FEN {shown:?})"))
}

/// A move text the notation reader could not resolve.
pub fn notation_error(text: &str, e: &NotationError, fen: &str) -> PyErr {
    let shown: String = text.chars().take(40).collect();
    match e {
        NotationError::Unreadable(_) => err(Kind::InvalidMove, format!("{shown:?}: {e}")),
        _ => err(Kind::IllegalMove, format!("{shown:?}: {e} in {fen}")),
    }
}

/// A book error: unreadable files as `OSError`, the rest as `BookError`.
pub fn book_error(e: &book::BookError) -> PyErr {
    match e {
        book::BookError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => err(Kind::Book, e.to_string()),
    }
}

/// Creates the exception classes and adds them to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let base = py.get_type::<ChariotError>().into_any();
    let value_error = py.get_type::<PyValueError>().into_any();
    let runtime_error = py.get_type::<PyRuntimeError>().into_any();
    m.add("ChariotError", &base)?;
    let make = |name: &str, bases: &[Bound<'_, PyAny>], doc: &str| -> PyResult<Py<PyAny>> {
        let class = exception_class(py, name, bases, doc)?;
        m.add(name, &class)?;
        Ok(class.unbind())
    };
    let fen = make(
        "FenError",
        &[base.clone(), value_error.clone()],
        "A FEN that cannot be read or is not a legal position; the message names the problem.",
    )?;
    let move_error = make(
        "MoveError",
        &[base.clone(), value_error.clone()],
        "The base of InvalidMoveError and IllegalMoveError.",
    )?;
    let mv = move_error.bind(py).clone();
    let invalid_move = make(
        "InvalidMoveError",
        std::slice::from_ref(&mv),
        "Text that is not a move in ICCS, WXF or Chinese notation.",
    )?;
    let illegal_move = make(
        "IllegalMoveError",
        std::slice::from_ref(&mv),
        "A move that is not legal in the position, or text that fits no legal move (or several).",
    )?;
    let pgn = make(
        "PgnError",
        &[base.clone(), value_error.clone()],
        "A game record that cannot be read or replayed.",
    )?;
    let epd = make(
        "EpdError",
        &[base.clone(), value_error.clone()],
        "A line of an EPD suite that cannot be read.",
    )?;
    let book_class = make(
        "BookError",
        &[base.clone(), value_error],
        "An opening book that is corrupt or of an unknown format.",
    )?;
    let engine = make(
        "EngineError",
        &[base, runtime_error],
        "An engine setting or search that failed.",
    )?;
    let eng = engine.bind(py).clone();
    let engine_closed = make(
        "EngineClosedError",
        std::slice::from_ref(&eng),
        "The engine was closed.",
    )?;
    let engine_busy = make(
        "EngineBusyError",
        std::slice::from_ref(&eng),
        "Another thread is searching with this engine.",
    )?;
    // A second import of the module (subinterpreters) keeps the first set.
    let _ = CLASSES.set(Classes {
        fen,
        invalid_move,
        illegal_move,
        pgn,
        epd,
        book: book_class,
        engine,
        engine_closed,
        engine_busy,
    });
    Ok(())
}
