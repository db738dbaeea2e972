//! `Color`, a side, as a Python object (``Color.RED``, ``Color.BLACK``).

use pyo3::prelude::*;

use board::Color as CoreColor;

/// A side: ``Color.RED`` moves first, ``Color.BLACK`` second.
#[pyclass(module = "chariot", eq, eq_int, frozen, hash)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    /// Red, the side that moves first (upper-case FEN letters).
    #[pyo3(name = "RED")]
    Red = 0,
    /// Black (lower-case FEN letters).
    #[pyo3(name = "BLACK")]
    Black = 1,
}

impl From<CoreColor> for Color {
    fn from(c: CoreColor) -> Color {
        match c {
            CoreColor::Red => Color::Red,
            CoreColor::Black => Color::Black,
        }
    }
}

#[pymethods]
impl Color {
    /// The other side.
    #[getter]
    fn opposite(&self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    fn __str__(&self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }
}
