//! Chariot's opening books.
//!
//! * [`Book`]: Chariot's own format — records sorted by the canonical
//!   (mirror-merged) Zobrist key, with weights and win/draw/loss counts; the
//!   byte layout is documented in [`mod@format`], the text form
//!   (for review, diffs and import) in [`text`].
//! * [`EleeyeBook`]: ElephantEye's `BOOK.DAT`, read-only.
//! * [`BookSet`]: the books an engine consults, opened from a `;`-separated
//!   list (or the built-in default book), and the weighted-random choice
//!   of a move, with the random state that varies it from game to game.
//! * [`notation`] and [`pgn`]: reading game records (PGN with Chinese, WXF
//!   or ICCS moves), and [`builder`]: turning them into a book.
//! * [`epd`]: reading EPD position suites (`bm`, `am`, `dm`, `id`), whose
//!   moves may be written in any notation [`notation`] reads.
//!
//! The crate depends only on `board`. Every move a book yields has been
//! checked for legality in the position it is for; no malformed file can
//! make it panic.
//!
//! The built-in book is derived from the Chinese Chess Practical Dataset
//! (CCPD) by Yu-Han Tseng and Bo-Nian Chen,
//! <https://github.com/Yvonne761/Chinese-Chess-Practical-Dataset>, licensed
//! CC BY 4.0; converted and filtered (see `book/data/NOTICE`).

pub mod builder;
mod eleeye;
pub mod epd;
mod error;
pub mod format;
pub mod notation;
pub mod openings;
pub mod pgn;
pub mod text;

use std::path::Path;

use board::{Move, Position};
use rand::{Rng as _, RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

pub use eleeye::EleeyeBook;
pub use error::BookError;
pub use format::{
    Book, BookMove, Entry, HEADER_LEN, MAGIC, RECORD_LEN, VERSION, Wdl, canonical_key,
};

/// The default book, built from the CCPD game records (see the crate docs
/// for the credit) and embedded so that every build has it.
pub const BUILTIN_BOOK: &[u8] = include_bytes!("../data/default.book");

/// The spec naming the embedded default book in [`BookSet::open`].
pub const BUILTIN_SPEC: &str = "<builtin>";

/// The spec for "no book" in [`BookSet::open`] (an empty spec works too).
pub const EMPTY_SPEC: &str = "<empty>";

/// One opened book of either format.
#[derive(Debug)]
pub enum AnyBook {
    /// Chariot's own format.
    Chariot(Book),
    /// ElephantEye's `BOOK.DAT`.
    Eleeye(EleeyeBook),
}

impl AnyBook {
    /// Reads a book of either format, told apart by the header: data that
    /// starts with [`MAGIC`] is Chariot's, anything else is tried as
    /// `BOOK.DAT`.
    ///
    /// # Errors
    /// The [`BookError`] of the format it looked like.
    pub fn from_bytes(data: &[u8]) -> Result<AnyBook, BookError> {
        if Book::is_chariot_book(data) {
            Book::from_bytes(data).map(AnyBook::Chariot)
        } else {
            EleeyeBook::from_bytes(data).map(AnyBook::Eleeye)
        }
    }

    /// Reads a book file of either format.
    ///
    /// # Errors
    /// [`BookError::Io`] if it cannot be read, else [`BookError::InFile`]
    /// wrapping the error of [`AnyBook::from_bytes`].
    pub fn open(path: &Path) -> Result<AnyBook, BookError> {
        let data = std::fs::read(path).map_err(|source| BookError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        AnyBook::from_bytes(&data).map_err(|e| BookError::InFile {
            path: path.to_path_buf(),
            error: Box::new(e),
        })
    }

    /// Opens a book by the name a user gives it: [`BUILTIN_SPEC`]
    /// (`<builtin>`) for the book compiled into the binary, anything else
    /// a path ([`AnyBook::open`]). The one reading of a book name, for the
    /// `bookfiles` option and every command that takes a book.
    ///
    /// # Errors
    /// As [`AnyBook::open`].
    pub fn open_named(name: &str) -> Result<AnyBook, BookError> {
        match name {
            BUILTIN_SPEC => AnyBook::from_bytes(BUILTIN_BOOK),
            path => AnyBook::open(Path::new(path)),
        }
    }

    /// The legal book moves for `pos`, heaviest first.
    pub fn probe(&self, pos: &Position) -> Vec<BookMove> {
        match self {
            AnyBook::Chariot(b) => b.probe(pos),
            AnyBook::Eleeye(b) => b.probe(pos),
        }
    }
}

/// The move a [`BookSet`] chose, with the candidates it chose among.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookChoice {
    /// The chosen move, legal in the probed position.
    pub mv: Move,
    /// Every eligible book move with its weight, heaviest first (the chosen
    /// one among them), for an `info` line.
    pub candidates: Vec<(Move, u32)>,
}

/// The books an engine consults, in order, and the random state of its
/// picks ([`BookSet::pick`]).
#[derive(Debug)]
pub struct BookSet {
    books: Vec<AnyBook>,
    /// The stream each pick draws its seed from; seeded from the clock
    /// when the set is made, so that an engine varies its openings from run
    /// to run.
    rng: Pcg64Mcg,
}

impl Default for BookSet {
    /// No book, a clock seed.
    fn default() -> BookSet {
        BookSet::from_books(Vec::new())
    }
}

impl BookSet {
    /// Opens the books named by `spec`: [`BUILTIN_SPEC`] (`<builtin>`) for
    /// the embedded default book, an empty string or [`EMPTY_SPEC`] for no
    /// book, otherwise `;`-separated paths (each Chariot's format or a
    /// `BOOK.DAT`; `<builtin>` may be one of them). Empty items are ignored.
    ///
    /// # Errors
    /// The first book that cannot be opened, with its path.
    pub fn open(spec: &str) -> Result<BookSet, BookError> {
        let (set, mut failed) = BookSet::open_available(spec);
        if failed.is_empty() {
            Ok(set)
        } else {
            Err(failed.swap_remove(0))
        }
    }

    /// Opens every book of `spec` (as [`BookSet::open`] reads it) that can
    /// be opened, in order, and returns the errors of the others, in order:
    /// an engine plays from the books it has rather than from none because
    /// one entry of the list is missing or damaged.
    pub fn open_available(spec: &str) -> (BookSet, Vec<BookError>) {
        let mut books = Vec::new();
        let mut failed = Vec::new();
        for item in spec.split(';').map(str::trim) {
            let opened = match item {
                "" | EMPTY_SPEC => continue,
                name => AnyBook::open_named(name),
            };
            match opened {
                Ok(book) => books.push(book),
                Err(e) => failed.push(e),
            }
        }
        (BookSet::from_books(books), failed)
    }

    /// A set of already opened books, consulted in this order.
    pub fn from_books(books: Vec<AnyBook>) -> BookSet {
        BookSet {
            books,
            rng: Pcg64Mcg::seed_from_u64(clock_seed()),
        }
    }

    /// The same set with its random state set to `seed`, so that its
    /// picks repeat.
    #[must_use]
    pub fn with_seed(mut self, seed: u64) -> BookSet {
        self.rng = Pcg64Mcg::seed_from_u64(seed);
        self
    }

    /// The books, in order.
    pub fn books(&self) -> &[AnyBook] {
        &self.books
    }

    /// Whether there is no book at all.
    pub fn is_empty(&self) -> bool {
        self.books.is_empty()
    }

    /// The eligible moves for `pos`: those of the first book that has any,
    /// heaviest first. A move is eligible when it is legal, has a weight
    /// above zero, and does not lead to a position that occurred earlier in
    /// the game (`pos.history()`), so the book never repeats a position.
    pub fn candidates(&self, pos: &Position) -> Vec<(Move, u32)> {
        let mut scratch = pos.clone();
        for book in &self.books {
            let moves: Vec<(Move, u32)> = book
                .probe(pos)
                .into_iter()
                .filter(|m| m.weight > 0 && !repeats(&mut scratch, m.mv))
                .map(|m| (m.mv, m.weight))
                .collect();
            if !moves.is_empty() {
                return moves;
            }
        }
        Vec::new()
    }

    /// Chooses a book move for `pos`, or `None` when no book has an eligible
    /// one (see [`BookSet::candidates`]).
    ///
    /// `variety` shapes the weights: 0 plays the heaviest move only (the
    /// first in move order among equals); otherwise each weight `w` counts as
    /// `w^(100 / variety)`, so 100 chooses in proportion to the weights, lower
    /// values sharpen toward the heaviest, higher ones flatten toward a
    /// uniform choice. `rng_seed` makes the choice reproducible.
    pub fn choose(&self, pos: &Position, variety: u32, rng_seed: u64) -> Option<BookChoice> {
        let candidates = self.candidates(pos);
        let mv = pick(&candidates, variety, rng_seed)?;
        Some(BookChoice { mv, candidates })
    }

    /// [`BookSet::choose`] with a seed drawn from the set's own random
    /// stream, so that each game's choice is drawn anew.
    pub fn pick(&mut self, pos: &Position, variety: u32) -> Option<BookChoice> {
        let seed = self.rng.next_u64();
        self.choose(pos, variety, seed)
    }
}

/// A seed from the system clock's nanoseconds (a fixed one should the
/// clock stand before 1970).
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x9e37_79b9, |d| {
            u64::try_from(d.as_nanos() & u128::from(u64::MAX)).unwrap_or(0)
        })
}

/// Whether playing `mv` in `pos` gives a position seen earlier in the game.
fn repeats(pos: &mut Position, mv: Move) -> bool {
    pos.make_move(mv);
    let key = pos.key();
    let history = pos.history();
    // The last history entry is the position the move was made from.
    let seen = history.iter().any(|s| s.key == key);
    pos.unmake_move();
    seen
}

/// The weighted-random pick of [`BookSet::choose`] over `candidates`
/// (heaviest first).
fn pick(candidates: &[(Move, u32)], variety: u32, seed: u64) -> Option<Move> {
    let &(best, _) = candidates.first()?;
    if variety == 0 || candidates.len() == 1 {
        return Some(best);
    }
    // Work in logarithms so that large exponents cannot overflow: the
    // shaped weight is exp(e * (ln w - ln w_max)) with e = 100 / variety.
    let exponent = 100.0 / f64::from(variety);
    let max_ln = candidates
        .iter()
        .map(|&(_, w)| f64::from(w).ln())
        .fold(f64::MIN, f64::max);
    let shaped: Vec<f64> = candidates
        .iter()
        .map(|&(_, w)| (exponent * (f64::from(w).ln() - max_ln)).exp())
        .collect();
    let total: f64 = shaped.iter().sum();
    let mut target = unit_interval(seed) * total;
    for (&(mv, _), s) in candidates.iter().zip(&shaped) {
        if target < *s {
            return Some(mv);
        }
        target -= s;
    }
    Some(best)
}

/// A number in `[0, 1)` drawn from a seed's stream.
fn unit_interval(seed: u64) -> f64 {
    Pcg64Mcg::seed_from_u64(seed).gen_range(0.0..1.0)
}
