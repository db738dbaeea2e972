//! Opening suites: the start positions that matches and self-play games
//! are played from (`arena/data/openings*.epd`), read by the arena and by
//! `chariot datagen` alike.
//!
//! One position per line: a FEN (2 to 6 fields) or an EPD line
//! (`<board> <side> - - ` followed by `opcode operand;` operations, which
//! are ignored here). Blank lines and lines starting with `#` are skipped.
//! A position where the side to move has no legal move is refused, since
//! no game can be played from it.

use std::fmt;
use std::path::Path;

use board::{FenError, Position};

/// A start position of a suite.
#[derive(Clone)]
pub struct Opening {
    /// The position to play from.
    pub position: Position,
}

impl Opening {
    /// The standard start position.
    pub fn startpos() -> Opening {
        Opening {
            position: Position::startpos(),
        }
    }
}

/// Why a suite could not be read.
#[derive(Debug)]
pub enum OpeningsError {
    /// The file could not be read.
    Io(std::io::Error),
    /// A line's FEN is not a legal position (1-based line number).
    BadFen {
        /// The line.
        line: usize,
        /// The FEN as read.
        fen: String,
        /// Why.
        error: FenError,
    },
    /// The side to move has no legal move at this line.
    NoMove {
        /// The line.
        line: usize,
    },
    /// The suite holds no position.
    Empty,
}

impl fmt::Display for OpeningsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningsError::Io(e) => write!(f, "{e}"),
            OpeningsError::BadFen { line, fen, error } => {
                write!(f, "line {line}: bad FEN '{fen}': {error}")
            }
            OpeningsError::NoMove { line } => {
                write!(f, "line {line}: the side to move has no legal move")
            }
            OpeningsError::Empty => f.write_str("no positions"),
        }
    }
}

impl std::error::Error for OpeningsError {}

/// The FEN part of one line: the first two fields, plus the counters when
/// the line is a full FEN (fields 5 and 6 numeric); EPD operations dropped.
fn fen_of_line(line: &str) -> String {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let numeric = |i: usize| fields.get(i).is_some_and(|f| f.parse::<u32>().is_ok());
    let take = if numeric(4) && numeric(5) {
        6
    } else {
        fields.len().min(4)
    };
    fields[..take].join(" ")
}

/// The default suite, `arena/data/openings.epd` (240 balanced openings),
/// built in so that a tool run from any directory, or installed, plays
/// the positions a run from the repository's root plays.
pub const BUILTIN: &str = include_str!("../../arena/data/openings.epd");

/// The built-in suite ([`BUILTIN`]), read.
///
/// # Errors
/// As [`parse`] (a test keeps the file readable).
pub fn builtin() -> Result<Vec<Opening>, OpeningsError> {
    parse(BUILTIN)
}

/// Reads a suite from a file.
///
/// # Errors
/// An unreadable file, or as [`parse`].
pub fn load(path: &Path) -> Result<Vec<Opening>, OpeningsError> {
    let text = std::fs::read_to_string(path).map_err(OpeningsError::Io)?;
    parse(&text)
}

/// Reads a suite from text.
///
/// # Errors
/// An invalid FEN or a position without a legal move (with its line
/// number), or a suite without a position.
pub fn parse(text: &str) -> Result<Vec<Opening>, OpeningsError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fen = fen_of_line(line);
        let position = match Position::from_fen(&fen) {
            Ok(p) => p,
            Err(error) => {
                return Err(OpeningsError::BadFen {
                    line: i + 1,
                    fen,
                    error,
                });
            }
        };
        if !position.has_legal_move() {
            return Err(OpeningsError::NoMove { line: i + 1 });
        }
        out.push(Opening { position });
    }
    if out.is_empty() {
        return Err(OpeningsError::Empty);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_and_epd_lines_comments_and_errors() {
        let text = "# a suite\n\n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - bm h2e2;\n\
            rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 3 7\n";
        let list = parse(text).expect("two openings");
        assert_eq!(list.len(), 2);
        assert_eq!(list[1].position.fullmove_number(), 7);
        match parse("# header\nrnbakabnr/9 w\n") {
            Err(OpeningsError::BadFen { line: 2, .. }) => {}
            other => panic!("{:?}", other.map(|l| l.len())),
        }
        assert!(matches!(parse("# nothing\n"), Err(OpeningsError::Empty)));
        // Black to move, mated: no game can start there.
        assert!(matches!(
            parse("3k5/3R5/3R5/9/9/9/9/9/9/4K4 b - - 0 1\n"),
            Err(OpeningsError::NoMove { line: 1 })
        ));
    }

    #[test]
    fn the_built_in_suite_reads() {
        assert_eq!(builtin().map(|list| list.len()).ok(), Some(240));
    }
}
