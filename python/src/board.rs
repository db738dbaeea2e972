//! `Move` and `Board`: the board crate's position with its move stack, as
//! Python objects, and `adjudicate`, which replays a move list on a board
//! and asks the rules after each move. A `Board` owns a `board::Position`
//! (which keeps the game history the rules judge) and the moves pushed
//! since its setup; everything else is a thin conversion. Move texts are
//! read by `book::notation` (ICCS, WXF or Chinese) and written by
//! [`crate::notation`].

use std::hash::{Hash, Hasher};

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use board::{Color as CoreColor, Move, Piece, Position, Square};
use book::notation::parse_any;

use crate::color::Color;
use crate::errors::{self, Kind};
use crate::notation::{self, Style};
use crate::rules::Outcome;

/// A square given as an index 0–89 (``rank * 9 + file``, ``a0`` = 0) or a
/// name such as ``"e0"``.
#[derive(FromPyObject)]
pub enum SquareArg {
    /// An index.
    Index(i64),
    /// A name.
    Name(String),
}

impl SquareArg {
    /// The square, or a `ValueError` naming what is wrong.
    pub fn square(&self) -> PyResult<Square> {
        match self {
            SquareArg::Index(i) => usize::try_from(*i)
                .ok()
                .and_then(Square::from_index)
                .ok_or_else(|| PyValueError::new_err(format!("square index {i} is not 0-89"))),
            SquareArg::Name(s) => s.parse().map_err(|_| {
                let shown: String = s.chars().take(20).collect();
                PyValueError::new_err(format!("{shown:?} is not a square name (a0-i9)"))
            }),
        }
    }
}

/// A move: a from-square and a to-square. ``str(move)`` is its ICCS text
/// (``"h2e2"``); ``Move("h2e2")`` reads one (without checking legality,
/// which is the board's business). Moves are equal when their squares are,
/// hashable, and ordered by their 16-bit code.
#[pyclass(name = "Move", module = "chariot", frozen, eq, hash, ord)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PyMove(pub Move);

#[pymethods]
impl PyMove {
    #[new]
    fn py_new(iccs: &str) -> PyResult<PyMove> {
        iccs.trim().parse().map(PyMove).map_err(|_| {
            let shown: String = iccs.chars().take(40).collect();
            errors::err(Kind::InvalidMove, format!("{shown:?} is not an ICCS move"))
        })
    }

    /// The square the piece leaves, 0–89.
    // Python's names for the squares (python-chess uses the same).
    #[allow(clippy::wrong_self_convention)]
    #[getter]
    fn from_square(&self) -> usize {
        self.0.from().index()
    }

    /// The square the piece reaches, 0–89.
    #[allow(clippy::wrong_self_convention)]
    #[getter]
    fn to_square(&self) -> usize {
        self.0.to().index()
    }

    /// The ICCS text, e.g. ``"h2e2"`` (the same as ``str(move)``).
    fn iccs(&self) -> String {
        self.0.to_string()
    }

    /// The move in WXF letters (``"C2.5"``) in ``board``, where it must be
    /// legal (else ``IllegalMoveError``).
    fn wxf(&self, board: &Board) -> PyResult<String> {
        board.write(self.0, Style::Wxf)
    }

    /// The move in Chinese notation (``"炮二平五"``) in ``board``, where it
    /// must be legal (else ``IllegalMoveError``).
    fn chinese(&self, board: &Board) -> PyResult<String> {
        board.write(self.0, Style::Chinese)
    }

    /// The left-right mirror image of the move (file a ↔ i).
    fn mirror(&self) -> PyMove {
        PyMove(self.0.mirror())
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Move('{}')", self.0)
    }
}

/// A move given as a `Move` or as text in ICCS, WXF or Chinese notation.
#[derive(FromPyObject)]
pub enum MoveArg {
    /// A `Move` object.
    Move(PyMove),
    /// Text.
    Text(String),
}

/// A xiangqi position with the moves played from its setup.
///
/// ``Board()`` is the start position, ``Board(fen)`` any legal position (the
/// checks of docs/rules.md §5; a ``FenError`` names the first problem).
/// ``push``/``pop`` play and take back moves; the history is what the rule
/// verdicts (``outcome``) judge. ``str(board)`` is a text diagram,
/// ``len(board)`` the number of pieces and iterating yields
/// ``(square, piece)`` pairs of the occupied points. Two boards are equal
/// when their FENs are (placement, side to move and counters; the history
/// is not compared), and hash by their Zobrist key.
#[pyclass(module = "chariot")]
#[derive(Clone)]
pub struct Board {
    pub(crate) pos: Position,
    pub(crate) moves: Vec<Move>,
}

impl Board {
    /// A board at `pos` with no moves pushed.
    pub fn at(pos: Position) -> Board {
        Board {
            pos,
            moves: Vec::new(),
        }
    }

    /// The legal move `arg` names here.
    pub fn resolve(&self, arg: &MoveArg) -> PyResult<Move> {
        match arg {
            MoveArg::Move(m) => {
                if self.pos.is_legal(m.0) {
                    Ok(m.0)
                } else {
                    Err(errors::err(
                        Kind::IllegalMove,
                        format!("illegal move {} in {}", m.0, self.pos.fen()),
                    ))
                }
            }
            MoveArg::Text(t) => self.parse(t),
        }
    }

    /// Reads a move in any notation and checks it is legal.
    pub fn parse(&self, text: &str) -> PyResult<Move> {
        parse_any(&self.pos, text).map_err(|e| errors::notation_error(text, &e, &self.pos.fen()))
    }

    /// Plays a legal move.
    pub fn play(&mut self, m: Move) {
        self.pos.make_move(m);
        self.moves.push(m);
    }

    fn write(&self, m: Move, style: Style) -> PyResult<String> {
        notation::write(&self.pos, m, style).ok_or_else(|| {
            errors::err(
                Kind::IllegalMove,
                format!("illegal move {m} in {}", self.pos.fen()),
            )
        })
    }
}

#[pymethods]
impl Board {
    #[new]
    #[pyo3(signature = (fen = None))]
    fn py_new(fen: Option<&str>) -> PyResult<Board> {
        match fen {
            None => Ok(Board::at(Position::startpos())),
            Some(f) => Position::from_fen(f)
                .map(Board::at)
                .map_err(|e| errors::fen_error(f, &e)),
        }
    }

    /// The position's FEN, all six fields.
    fn fen(&self) -> String {
        self.pos.fen()
    }

    /// The side to move.
    #[getter]
    fn turn(&self) -> Color {
        self.pos.side_to_move().into()
    }

    /// The move number (FEN field 6): 1 at the start, +1 after Black moves.
    #[getter]
    fn fullmove_number(&self) -> u16 {
        self.pos.fullmove_number()
    }

    /// The move-limit counter (FEN field 5): plies since the last capture,
    /// not counting checks past the tenth and their replies (§4.4).
    #[getter]
    fn halfmove_clock(&self) -> u16 {
        self.pos.rule60()
    }

    /// The Zobrist key of the position (an unsigned 64-bit integer), the
    /// key Chariot's books and table use.
    #[getter]
    fn zobrist_key(&self) -> u64 {
        self.pos.key()
    }

    /// The moves pushed since the setup, oldest first.
    #[getter]
    fn move_stack(&self) -> Vec<PyMove> {
        self.moves.iter().copied().map(PyMove).collect()
    }

    /// Every legal move, in generation order.
    fn legal_moves(&self) -> Vec<PyMove> {
        self.pos.legal_moves().into_iter().map(PyMove).collect()
    }

    /// Every legal move as ICCS text (faster than ``legal_moves`` when only
    /// text is wanted).
    fn legal_moves_iccs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let moves = self.pos.legal_moves();
        PyList::new(py, moves.iter().map(ToString::to_string))
    }

    /// The number of legal moves.
    fn count_legal_moves(&self) -> usize {
        self.pos.count_legal_moves()
    }

    /// Whether ``move`` (a ``Move`` or text in any notation) is legal here.
    /// Unreadable text raises ``InvalidMoveError``.
    fn is_legal(&self, r#move: MoveArg) -> PyResult<bool> {
        match r#move {
            MoveArg::Move(m) => Ok(self.pos.is_legal(m.0)),
            MoveArg::Text(t) => match parse_any(&self.pos, &t) {
                Ok(_) => Ok(true),
                Err(book::notation::NotationError::Unreadable(_)) => Err(errors::notation_error(
                    &t,
                    &book::notation::NotationError::Unreadable("unreadable"),
                    &self.pos.fen(),
                )),
                Err(_) => Ok(false),
            },
        }
    }

    /// The legal move that ``text`` (ICCS ``h2e2``, WXF ``C2.5`` or Chinese
    /// ``炮二平五``) describes here. ``InvalidMoveError`` for unreadable
    /// text, ``IllegalMoveError`` when no single legal move fits.
    fn parse_move(&self, text: &str) -> PyResult<PyMove> {
        self.parse(text).map(PyMove)
    }

    /// Plays ``move`` (a ``Move`` or text in any notation); it must be
    /// legal.
    fn push(&mut self, r#move: MoveArg) -> PyResult<()> {
        let m = self.resolve(&r#move)?;
        self.play(m);
        Ok(())
    }

    /// Plays a sequence of moves (``Move`` objects or texts) in one call.
    /// On an illegal move the board is left as it was before the call.
    fn push_moves(&mut self, moves: Vec<MoveArg>) -> PyResult<()> {
        let depth = self.moves.len();
        for (i, arg) in moves.iter().enumerate() {
            match self.resolve(arg) {
                Ok(m) => self.play(m),
                Err(e) => {
                    while self.moves.len() > depth {
                        self.pop_move();
                    }
                    let note = format!("move {} of the sequence", i + 1);
                    return Err(chain(e, &note));
                }
            }
        }
        Ok(())
    }

    /// Takes back the last pushed move and returns it (``IndexError`` when
    /// none was pushed).
    fn pop(&mut self) -> PyResult<PyMove> {
        self.pop_move()
            .map(PyMove)
            .ok_or_else(|| PyIndexError::new_err("pop from a board with no moves pushed"))
    }

    /// The last pushed move, or ``None``.
    fn peek(&self) -> Option<PyMove> {
        self.moves.last().copied().map(PyMove)
    }

    /// Whether the side to move is in check.
    fn is_check(&self) -> bool {
        self.pos.in_check()
    }

    /// Whether ``move`` (legal here) would give check.
    fn gives_check(&mut self, r#move: MoveArg) -> PyResult<bool> {
        let m = self.resolve(&r#move)?;
        Ok(self.pos.gives_check(m))
    }

    /// Whether ``move`` (legal here) captures.
    fn is_capture(&self, r#move: MoveArg) -> PyResult<bool> {
        let m = self.resolve(&r#move)?;
        Ok(self.pos.is_capture(m))
    }

    /// Whether the side to move is checkmated (in check, no legal move).
    fn is_checkmate(&self) -> bool {
        self.pos.in_check() && !self.pos.has_legal_move()
    }

    /// Whether the side to move has no legal move while not in check (a
    /// loss in xiangqi).
    fn is_stalemate(&self) -> bool {
        !self.pos.in_check() && !self.pos.has_legal_move()
    }

    /// The rules' verdict on the game so far (docs/rules.md §4): mate,
    /// stalemate, perpetual check or chase, mutual perpetual, repetition,
    /// the 60-move limit or insufficient material, judged over the history
    /// since the setup by the judge the engine and arena use. ``None``
    /// while play goes on.
    fn outcome(&self) -> Option<Outcome> {
        Outcome::of(&self.pos, self.moves.len())
    }

    /// Whether ``outcome()`` is not ``None``.
    fn is_game_over(&self) -> bool {
        self.outcome().is_some()
    }

    /// The piece on ``square`` (an index 0–89 or a name like ``"e0"``) as
    /// its FEN letter (upper case Red, lower case Black), or ``None``.
    fn piece_at(&self, square: SquareArg) -> PyResult<Option<char>> {
        Ok(self.pos.piece_at(square.square()?).map(Piece::to_char))
    }

    /// The squares (indices) of ``color``'s general.
    fn king(&self, color: Color) -> usize {
        let c = match color {
            Color::Red => CoreColor::Red,
            Color::Black => CoreColor::Black,
        };
        self.pos.king_square(c).index()
    }

    /// The left-right mirror of the position (file a ↔ i), with no moves
    /// pushed.
    fn mirror(&self) -> Board {
        Board::at(self.pos.mirror())
    }

    /// A copy with the same position and move stack.
    fn copy(&self) -> Board {
        self.clone()
    }

    /// The board at its setup, before any pushed move.
    fn root(&self) -> Board {
        self.root_board()
    }

    /// ``move`` (legal here) in WXF letters.
    fn wxf(&self, r#move: MoveArg) -> PyResult<String> {
        let m = self.resolve(&r#move)?;
        self.write(m, Style::Wxf)
    }

    /// ``move`` (legal here) in Chinese notation.
    fn chinese(&self, r#move: MoveArg) -> PyResult<String> {
        let m = self.resolve(&r#move)?;
        self.write(m, Style::Chinese)
    }

    /// Leaf count of the legal move tree ``depth`` plies deep (the same as
    /// ``chariot.perft(board, depth)``).
    fn perft(&self, py: Python<'_>, depth: u32) -> PyResult<u64> {
        crate::detach::count(py, &self.pos, |pos, stop| pos.perft_until(depth, &stop))
    }

    fn __copy__(&self) -> Board {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Board {
        self.clone()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<Board>() {
            Ok(o) => self.pos.fen() == o.borrow().pos.fen(),
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.pos.key().hash(&mut h);
        h.finish()
    }

    fn __len__(&self) -> usize {
        self.pos.occupied().into_iter().count() as usize
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut items = Vec::new();
        for sq in self.pos.occupied() {
            if let Some(p) = self.pos.piece_at(sq) {
                items.push(PyTuple::new(py, [sq.to_string(), p.to_char().to_string()])?);
            }
        }
        PyList::new(py, items)?.try_iter().map(Bound::into_any)
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Board('{}')", self.pos.fen())
    }
}

impl Board {
    /// The board at its setup.
    pub fn root_board(&self) -> Board {
        let mut b = self.clone();
        while b.pop_move().is_some() {}
        b
    }

    fn pop_move(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.pos.unmake_move();
        Some(m)
    }
}

/// `e` with `note` added to its message, same exception class.
pub fn chain(e: PyErr, note: &str) -> PyErr {
    Python::attach(|py| {
        let msg = e.value(py).to_string();
        let class = e.get_type(py);
        match class.call1((format!("{note}: {msg}"),)) {
            Ok(v) => PyErr::from_value(v),
            Err(_) => e,
        }
    })
}

/// Replays ``moves`` (``Move`` objects or texts in any notation) from
/// ``board`` (default: the start position; its own pushed moves count as
/// history) and returns the first verdict of the rules, with the ply at
/// which it fell, or ``None`` when the game is still going after the last
/// move. Moves after the verdict are not looked at. An illegal move raises
/// ``IllegalMoveError`` naming its place in the list.
#[pyfunction]
#[pyo3(signature = (moves, board = None))]
pub fn adjudicate(moves: Vec<MoveArg>, board: Option<&Board>) -> PyResult<Option<Outcome>> {
    let mut b = board
        .cloned()
        .unwrap_or_else(|| Board::at(Position::startpos()));
    if let Some(o) = Outcome::of(&b.pos, b.moves.len()) {
        return Ok(Some(o));
    }
    for (i, arg) in moves.iter().enumerate() {
        let m = b
            .resolve(arg)
            .map_err(|e| chain(e, &format!("move {} of the list", i + 1)))?;
        b.play(m);
        if let Some(o) = Outcome::of(&b.pos, b.moves.len()) {
            return Ok(Some(o));
        }
    }
    Ok(None)
}
