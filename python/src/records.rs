//! Game records and opening books for Python: PGN games (`Game`,
//! `read_pgn`, `write_pgn`), EPD suites (`EpdRecord`, `read_epd`) and books
//! (`Book`, `BookEntry`). Reading, replaying and probing are the `book`
//! crate's (`book::pgn`, `book::epd`, `book::AnyBook`); this module adds
//! the PGN writer (tags, numbered movetext in ICCS, WXF or Chinese) and the
//! conversions.

use std::fmt::Write as _;
use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use board::{Move, Position, START_FEN};
use book::epd;
use book::pgn::{self, PgnGame};
use book::{AnyBook, BookMove};

use crate::board::{Board, MoveArg, PyMove};
use crate::errors::{self, Kind};
use crate::notation::{self, Style};

/// One game: its tags (``headers``), start position and moves, replayed
/// and checked move by move.
///
/// ``Game(board=None, moves=(), headers=None)`` builds one (moves as
/// ``Move`` objects or text in any notation, played from ``board``, default
/// the start position); ``Game.from_board(board)`` takes a board's move
/// stack. ``read_pgn`` returns them from PGN text.
#[pyclass(module = "chariot")]
#[derive(Clone)]
pub struct Game {
    start: Position,
    moves: Vec<Move>,
    /// The tag pairs in order.
    tags: Vec<(String, String)>,
    /// The 1-based line of the game in the text read (0 when built).
    #[pyo3(get)]
    line: usize,
    /// The result from the movetext when no `Result` tag says it.
    movetext_result: Option<String>,
}

impl Game {
    /// Replays a parsed game, naming the game and ply on failure.
    fn replay(g: &PgnGame) -> Result<Game, String> {
        let (start, moves) = g
            .replay()
            .map_err(|e| format!("game at line {}: {e}", g.line))?;
        Ok(Game {
            start,
            moves,
            tags: g
                .tags
                .iter()
                .map(|(k, v)| (k.clone(), unescape(v)))
                .collect(),
            line: g.line,
            movetext_result: g.movetext_result.map(|r| r.to_string()),
        })
    }

    fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn result_text(&self) -> String {
        self.tag("Result")
            .map(str::trim)
            .filter(|r| pgn::parse_result(r).is_some())
            .map(str::to_string)
            .or_else(|| self.movetext_result.clone())
            .unwrap_or_else(|| "*".to_string())
    }

    /// The game as PGN in `style` (`None`: ICCS).
    fn write(&self, style: Option<Style>) -> String {
        let mut out = String::new();
        let escape = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"");
        let skip = ["fen", "setup", "format", "result"];
        let mut has_game = false;
        for (name, value) in &self.tags {
            if skip.contains(&name.to_ascii_lowercase().as_str()) {
                continue;
            }
            has_game |= name.eq_ignore_ascii_case("game");
            let _ = writeln!(out, "[{name} \"{}\"]", escape(value));
        }
        if !has_game {
            out.insert_str(0, "[Game \"Chinese Chess\"]\n");
        }
        let result = self.result_text();
        let _ = writeln!(out, "[Result \"{result}\"]");
        let fen = self.start.fen();
        if fen != START_FEN {
            let _ = writeln!(out, "[SetUp \"1\"]\n[FEN \"{fen}\"]");
        }
        let format = match style {
            None => "ICCS",
            Some(Style::Wxf) => "WXF",
            Some(Style::Chinese) => "Chinese",
        };
        let _ = writeln!(out, "[Format \"{format}\"]\n");
        let mut pos = self.start.clone();
        let mut line = String::new();
        let mut number = pos.fullmove_number();
        let mut tokens = Vec::with_capacity(self.moves.len() + 1);
        for (i, &m) in self.moves.iter().enumerate() {
            let red = pos.side_to_move() == board::Color::Red;
            let text = match style {
                None => format!("{}-{}", m.from(), m.to()).to_ascii_uppercase(),
                Some(s) => notation::write(&pos, m, s).unwrap_or_else(|| m.to_string()),
            };
            if red {
                tokens.push(format!("{number}. {text}"));
            } else if i == 0 {
                tokens.push(format!("{number}... {text}"));
            } else {
                tokens.push(text);
            }
            if !red {
                number += 1;
            }
            pos.make_move(m);
        }
        tokens.push(result);
        for t in tokens {
            if !line.is_empty() && line.chars().count() + 1 + t.chars().count() > 79 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&t);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }
}

/// A tag value as written (`\\` and `\"` escaped, as PGN writers
/// do) back to its text; `book::pgn` keeps values as written.
fn unescape(v: &str) -> String {
    if !v.contains('\\') {
        return v.to_string();
    }
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        match (c, chars.clone().next()) {
            ('\\', Some(n @ ('\\' | '"'))) => {
                out.push(n);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// A notation name as a writer style (`None`: ICCS).
fn style_of(notation: &str) -> PyResult<Option<Style>> {
    match notation.to_ascii_lowercase().as_str() {
        "iccs" => Ok(None),
        "wxf" => Ok(Some(Style::Wxf)),
        "chinese" => Ok(Some(Style::Chinese)),
        other => Err(PyValueError::new_err(format!(
            "notation {:?} is not 'iccs', 'wxf' or 'chinese'",
            other.chars().take(20).collect::<String>()
        ))),
    }
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (board = None, moves = Vec::new(), headers = None))]
    fn py_new(
        board: Option<&Board>,
        moves: Vec<MoveArg>,
        headers: Option<Vec<(String, String)>>,
    ) -> PyResult<Game> {
        let mut b = board
            .cloned()
            .unwrap_or_else(|| Board::at(Position::startpos()));
        let start = b.pos.clone();
        let mut played = Vec::with_capacity(moves.len());
        for (i, arg) in moves.iter().enumerate() {
            let m = b
                .resolve(arg)
                .map_err(|e| crate::board::chain(e, &format!("move {} of the game", i + 1)))?;
            b.play(m);
            played.push(m);
        }
        Ok(Game {
            start,
            moves: played,
            tags: headers.unwrap_or_default(),
            line: 0,
            movetext_result: None,
        })
    }

    /// A game of ``board``'s pushed moves from its setup.
    #[staticmethod]
    #[pyo3(signature = (board, headers = None))]
    fn from_board(board: &Board, headers: Option<Vec<(String, String)>>) -> Game {
        let root = board.root_board();
        Game {
            start: root.pos,
            moves: board.moves.clone(),
            tags: headers.unwrap_or_default(),
            line: 0,
            movetext_result: None,
        }
    }

    /// The tags as a dict, in file order.
    #[getter]
    fn headers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.tags {
            d.set_item(k, v)?;
        }
        Ok(d)
    }

    /// Sets (or replaces) tag ``name``.
    fn set_header(&mut self, name: String, value: String) {
        match self
            .tags
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(&name))
        {
            Some(slot) => slot.1 = value,
            None => self.tags.push((name, value)),
        }
    }

    /// The moves of the main line.
    #[getter]
    fn moves(&self) -> Vec<PyMove> {
        self.moves.iter().copied().map(PyMove).collect()
    }

    /// The result: ``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or ``"*"``.
    #[getter]
    fn result(&self) -> String {
        self.result_text()
    }

    /// The start position.
    fn board(&self) -> Board {
        Board::at(self.start.clone())
    }

    /// The position after the last move, with the moves on its stack.
    fn end(&self) -> Board {
        let mut b = Board::at(self.start.clone());
        for &m in &self.moves {
            b.play(m);
        }
        b
    }

    /// The game as PGN text, moves in ``notation``: ``"iccs"`` (default,
    /// ``H2-E2``), ``"wxf"`` or ``"chinese"``.
    #[pyo3(signature = (notation = "iccs"))]
    fn pgn(&self, notation: &str) -> PyResult<String> {
        Ok(self.write(style_of(notation)?))
    }

    fn __len__(&self) -> usize {
        self.moves.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<Game {} moves, result {}, line {}>",
            self.moves.len(),
            self.result_text(),
            self.line
        )
    }
}

/// Parses and replays every game of `text` without the GIL.
fn read_games(py: Python<'_>, text: String, skip_errors: bool) -> PyResult<Vec<Game>> {
    let outcome: Result<Vec<Game>, String> = py.detach(move || {
        let mut games = Vec::new();
        for g in pgn::parse_games(&text) {
            match Game::replay(&g) {
                Ok(game) => games.push(game),
                Err(e) if !skip_errors => return Err(e),
                Err(_) => {}
            }
        }
        Ok(games)
    });
    outcome.map_err(|e| errors::err(Kind::Pgn, e))
}

/// Reads every game of PGN ``text`` (xqbase style: Chinese, WXF or ICCS
/// moves, docs/rules.md §8), replaying each with full legality checks.
/// A game that cannot be replayed raises ``PgnError`` naming its line,
/// ply and move, unless ``skip_errors`` drops it. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (text, skip_errors = false))]
pub fn read_pgn(py: Python<'_>, text: String, skip_errors: bool) -> PyResult<Vec<Game>> {
    read_games(py, text, skip_errors)
}

/// ``read_pgn`` on a file (UTF-8; ``.xz`` files are decompressed).
/// ``OSError`` when it cannot be read.
#[pyfunction]
#[pyo3(signature = (path, skip_errors = false))]
pub fn read_pgn_file(py: Python<'_>, path: PathBuf, skip_errors: bool) -> PyResult<Vec<Game>> {
    let text = pgn::read_text(&path).map_err(|e| errors::book_error(&e))?;
    read_games(py, text, skip_errors)
}

/// The games as one PGN text, separated by blank lines.
#[pyfunction]
#[pyo3(signature = (games, notation = "iccs"))]
pub fn write_pgn(games: Vec<PyRef<'_, Game>>, notation: &str) -> PyResult<String> {
    let style = style_of(notation)?;
    let texts: Vec<String> = games.iter().map(|g| g.write(style)).collect();
    Ok(texts.join("\n"))
}

/// One position of an EPD suite with its operations: ``bm`` (best moves),
/// ``am`` (moves to avoid), ``dm`` (mate in so many moves), ``id`` and
/// every other operation as written (``operations``).
#[pyclass(module = "chariot", frozen)]
#[derive(Clone)]
pub struct EpdRecord {
    /// The 1-based line in the suite.
    #[pyo3(get)]
    line: usize,
    /// The position fields as written.
    #[pyo3(get)]
    fen: String,
    /// The `bm` moves.
    #[pyo3(get)]
    bm: Vec<PyMove>,
    /// The `am` moves.
    #[pyo3(get)]
    am: Vec<PyMove>,
    /// The `dm` count.
    #[pyo3(get)]
    dm: Option<u32>,
    /// The `id`.
    #[pyo3(get)]
    id: Option<String>,
    /// The other operations with their operands, in order.
    ops: Vec<(String, Vec<String>)>,
    position: Position,
}

#[pymethods]
impl EpdRecord {
    /// The operations other than ``bm``, ``am``, ``dm`` and ``id``: a dict
    /// from opcode to its operands (a quoted string is one operand).
    #[getter]
    fn operations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (op, operands) in &self.ops {
            d.set_item(op, operands)?;
        }
        Ok(d)
    }

    /// The position.
    fn board(&self) -> Board {
        Board::at(self.position.clone())
    }

    /// The record as one EPD line (position fields, then ``bm``, ``am``,
    /// ``dm``, ``id`` and the other operations).
    fn epd(&self) -> String {
        let fields: Vec<&str> = self.fen.split_whitespace().take(4).collect();
        let mut out = fields.join(" ");
        let quote = |s: &str| {
            if s.contains(|c: char| c.is_whitespace() || c == ';') || s.is_empty() {
                format!("\"{s}\"")
            } else {
                s.to_string()
            }
        };
        for (op, moves) in [("bm", &self.bm), ("am", &self.am)] {
            if !moves.is_empty() {
                let list: Vec<String> = moves.iter().map(|m| m.0.to_string()).collect();
                let _ = write!(out, " {op} {};", list.join(" "));
            }
        }
        if let Some(n) = self.dm {
            let _ = write!(out, " dm {n};");
        }
        if let Some(id) = &self.id {
            let _ = write!(out, " id \"{id}\";");
        }
        for (op, operands) in &self.ops {
            let list: Vec<String> = operands.iter().map(|o| quote(o)).collect();
            if list.is_empty() {
                let _ = write!(out, " {op};");
            } else {
                let _ = write!(out, " {op} {};", list.join(" "));
            }
        }
        out
    }

    fn __repr__(&self) -> String {
        format!("<EpdRecord line {}: {}>", self.line, self.epd())
    }
}

/// Reads an EPD suite (docs/rules.md §9): one record per position line;
/// blank and ``#`` lines are skipped. A bad line raises ``EpdError``
/// naming its line number, unless ``skip_errors`` drops it.
#[pyfunction]
#[pyo3(signature = (text, skip_errors = false))]
pub fn read_epd(text: &str, skip_errors: bool) -> PyResult<Vec<EpdRecord>> {
    let mut out = Vec::new();
    for r in epd::parse(text) {
        match r {
            Ok(r) => out.push(EpdRecord {
                line: r.line,
                fen: r.fen,
                bm: r.best.into_iter().map(PyMove).collect(),
                am: r.avoid.into_iter().map(PyMove).collect(),
                dm: r.mate,
                id: r.id,
                ops: r
                    .other
                    .into_iter()
                    .map(|op| (op.opcode, op.operands))
                    .collect(),
                position: r.position,
            }),
            Err(e) if !skip_errors => return Err(errors::err(Kind::Epd, e.to_string())),
            Err(_) => {}
        }
    }
    Ok(out)
}

/// ``read_epd`` on a file. ``OSError`` when it cannot be read.
#[pyfunction]
#[pyo3(signature = (path, skip_errors = false))]
pub fn read_epd_file(path: PathBuf, skip_errors: bool) -> PyResult<Vec<EpdRecord>> {
    let text = pgn::read_text(&path).map_err(|e| errors::book_error(&e))?;
    read_epd(&text, skip_errors)
}

/// A book move: ``move``, its ``weight`` and, where the book keeps them
/// (Chariot's format, not BOOK.DAT), the mover's ``wins``, ``draws`` and
/// ``losses`` after it (else ``None``).
#[pyclass(module = "chariot", frozen, get_all)]
#[derive(Clone)]
pub struct BookEntry {
    /// The move, legal in the probed position.
    r#move: PyMove,
    /// Its weight.
    weight: u32,
    /// Games the mover's side won after it.
    wins: Option<u32>,
    /// Games drawn.
    draws: Option<u32>,
    /// Games the mover's side lost.
    losses: Option<u32>,
}

impl From<BookMove> for BookEntry {
    fn from(b: BookMove) -> BookEntry {
        BookEntry {
            r#move: PyMove(b.mv),
            weight: b.weight,
            wins: b.wdl.map(|w| w.wins),
            draws: b.wdl.map(|w| w.draws),
            losses: b.wdl.map(|w| w.losses),
        }
    }
}

#[pymethods]
impl BookEntry {
    fn __repr__(&self) -> String {
        format!("<BookEntry {} weight {}>", self.r#move.0, self.weight)
    }
}

/// An opening book: Chariot's own format or ElephantEye's ``BOOK.DAT``
/// (told apart by the header). ``Book.open(path)``, ``Book.from_bytes(data)``
/// or ``Book.builtin()`` (the book built into Chariot). ``probe(board)``
/// lists the legal book moves, heaviest first. A corrupt book raises
/// ``BookError``.
#[pyclass(module = "chariot", frozen)]
pub struct Book {
    book: AnyBook,
}

#[pymethods]
impl Book {
    /// Opens a book file of either format.
    #[staticmethod]
    fn open(path: PathBuf) -> PyResult<Book> {
        AnyBook::open(&path)
            .map(|book| Book { book })
            .map_err(|e| match e {
                book::BookError::InFile { error, path } => {
                    errors::err(Kind::Book, format!("{}: {error}", path.display()))
                }
                e => errors::book_error(&e),
            })
    }

    /// Reads a book of either format from bytes.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Book> {
        AnyBook::from_bytes(data)
            .map(|book| Book { book })
            .map_err(|e| errors::book_error(&e))
    }

    /// The book built into Chariot (from the CCPD game records, CC BY 4.0).
    #[staticmethod]
    fn builtin() -> PyResult<Book> {
        Book::from_bytes(book::BUILTIN_BOOK)
    }

    /// ``"chariot"`` or ``"eleeye"``.
    #[getter]
    fn format(&self) -> &'static str {
        match self.book {
            AnyBook::Chariot(_) => "chariot",
            AnyBook::Eleeye(_) => "eleeye",
        }
    }

    /// The legal book moves for ``board``, heaviest first.
    fn probe(&self, board: &Board) -> Vec<BookEntry> {
        self.book
            .probe(&board.pos)
            .into_iter()
            .map(BookEntry::from)
            .collect()
    }

    /// The book moves for ``board`` as a dict from ``Move`` to weight.
    fn weights<'py>(&self, py: Python<'py>, board: &Board) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for b in self.book.probe(&board.pos) {
            d.set_item(PyMove(b.mv), b.weight)?;
        }
        Ok(d)
    }

    /// The number of records (move entries) in the book.
    fn __len__(&self) -> usize {
        match &self.book {
            AnyBook::Chariot(b) => b.len(),
            AnyBook::Eleeye(b) => b.len(),
        }
    }

    fn __repr__(&self) -> String {
        format!("<Book {} with {} records>", self.format(), self.__len__())
    }
}

/// Adds the classes and functions of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add_class::<EpdRecord>()?;
    m.add_class::<BookEntry>()?;
    m.add_class::<Book>()?;
    m.add_function(wrap_pyfunction!(read_pgn, m)?)?;
    m.add_function(wrap_pyfunction!(read_pgn_file, m)?)?;
    m.add_function(wrap_pyfunction!(write_pgn, m)?)?;
    m.add_function(wrap_pyfunction!(read_epd, m)?)?;
    m.add_function(wrap_pyfunction!(read_epd_file, m)?)?;
    Ok(())
}
