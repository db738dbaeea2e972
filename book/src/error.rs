//! [`BookError`]: every way opening a book, reading its text form or
//! resolving a file can fail. Nothing in this crate panics on a bad file.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// Why a book could not be opened or read.
#[derive(Debug)]
#[non_exhaustive]
pub enum BookError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: io::Error,
    },
    /// The data is shorter than a Chariot book header and no `BOOK.DAT`
    /// either (not a multiple of 8 bytes, or empty).
    UnknownFormat {
        /// Its length in bytes.
        len: usize,
    },
    /// A Chariot book header with a version this build cannot read.
    UnsupportedVersion(u32),
    /// The header's record count does not match the file length: the file
    /// was truncated or has trailing bytes.
    LengthMismatch {
        /// Bytes the header promises.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// The book was written with a different Zobrist key table, so its keys
    /// mean nothing to this build.
    KeyTableMismatch,
    /// A record is malformed or out of order.
    BadRecord {
        /// Its index in the file.
        index: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A book file could not be used; the inner error says why.
    InFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        error: Box<BookError>,
    },
    /// A line of the text form could not be used.
    Text {
        /// The 1-based line number.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            BookError::UnknownFormat { len } => write!(
                f,
                "not an opening book ({len} bytes: no Chariot book header, and not a whole \
                 number of 8-byte BOOK.DAT records)"
            ),
            BookError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "Chariot book version {v} is not supported (this build reads version 1)"
                )
            }
            BookError::LengthMismatch { expected, actual } => write!(
                f,
                "book is truncated or damaged: its header promises {expected} bytes, the file has \
                 {actual}"
            ),
            BookError::KeyTableMismatch => {
                write!(
                    f,
                    "book was built with a different Zobrist key table; rebuild it"
                )
            }
            BookError::BadRecord { index, reason } => write!(f, "book record {index}: {reason}"),
            BookError::InFile { path, error } => write!(f, "{}: {error}", path.display()),
            BookError::Text { line, message } => write!(f, "line {line}: {message}"),
        }
    }
}

// Every message already says its cause (`path: why`), so no error names a
// `source`: a reporter walking the chain (anyhow's `{:#}`) would print the
// cause twice.
impl std::error::Error for BookError {}
