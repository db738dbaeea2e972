//! Chariot's own book format: [`Book`], a sorted array of fixed-size
//! records keyed by the canonical Zobrist key of a position, looked up by
//! binary search. This module owns the byte layout and the canonical
//! orientation; the text form lives in `text`, the choice among moves in the
//! crate root.
//!
//! # Byte layout (version 1, all integers little-endian)
//!
//! Header, 24 bytes:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `CHARBOOK` |
//! | 8 | 4 | version, `1` |
//! | 12 | 4 | number of records `n` |
//! | 16 | 8 | key check: the Zobrist key of the start position with Black to move, so a book built with another key table is refused |
//!
//! Then `n` records of 24 bytes, strictly increasing by `(key, move)`:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | canonical key: `min(key, mirrored key)` of the position |
//! | 8 | 2 | the move in the canonical orientation, `from << 7 \| to` with squares numbered `rank * 9 + file` (`board::Move::to_u16`) |
//! | 10 | 2 | weight (0 = kept for its statistics but never chosen) |
//! | 12 | 4 | wins of the side that made the move |
//! | 16 | 4 | draws |
//! | 20 | 4 | losses of the side that made the move |
//!
//! The file is exactly `24 + 24 n` bytes.
//!
//! # Canonical orientation
//!
//! A position and its left-right mirror share their book moves. A position
//! is stored once, under the smaller of its key and its mirror's key; when
//! the mirror's key is the smaller, the stored moves are mirrored too. A
//! symmetric position (equal keys, such as the start position) keeps its
//! moves as played, so both mirror images of a move appear.

use board::{Move, Position};

use crate::error::BookError;

/// The first eight bytes of every Chariot book.
pub const MAGIC: [u8; 8] = *b"CHARBOOK";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Size of the header in bytes.
pub const HEADER_LEN: usize = 24;
/// Size of one record in bytes.
pub const RECORD_LEN: usize = 24;

/// Win, draw and loss counts of the side that made a move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Wdl {
    /// Games the mover's side went on to win.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games the mover's side lost.
    pub losses: u32,
}

impl Wdl {
    /// All games counted.
    pub fn games(self) -> u64 {
        u64::from(self.wins) + u64::from(self.draws) + u64::from(self.losses)
    }
}

/// One record: a position (by canonical key), a move in the canonical
/// orientation, its weight and statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Canonical Zobrist key of the position ([`canonical_key`]).
    pub key: u64,
    /// The move, in the canonical orientation.
    pub mv: Move,
    /// How often to choose it, relative to the position's other moves.
    pub weight: u16,
    /// Results after it.
    pub wdl: Wdl,
}

/// A move found for a position, already turned to the probed position's
/// orientation and checked for legality.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The legal move.
    pub mv: Move,
    /// Its weight.
    pub weight: u32,
    /// Its results, when the book records them (`BOOK.DAT` does not).
    pub wdl: Option<Wdl>,
}

/// The canonical key of `pos` and whether it is the mirror's key (then the
/// stored moves are mirror images of the moves in `pos`).
pub fn canonical_key(pos: &Position) -> (u64, bool) {
    let key = pos.key();
    let mirrored = pos.mirrored_key();
    if mirrored < key {
        (mirrored, true)
    } else {
        (key, false)
    }
}

/// The key check stored in the header (see the module docs).
fn key_check() -> u64 {
    Position::startpos().key() ^ Position::side_key()
}

/// A Chariot opening book held in memory, records sorted by `(key, move)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Book {
    entries: Vec<Entry>,
}

impl Book {
    /// A book of `entries`, in any order.
    ///
    /// # Errors
    /// [`BookError::BadRecord`] if two entries share a key and a move.
    pub fn from_entries(mut entries: Vec<Entry>) -> Result<Book, BookError> {
        entries.sort_unstable_by_key(|e| (e.key, e.mv.to_u16()));
        for (i, pair) in entries.windows(2).enumerate() {
            if (pair[0].key, pair[0].mv) == (pair[1].key, pair[1].mv) {
                return Err(BookError::BadRecord {
                    index: i + 1,
                    reason: "duplicate position and move",
                });
            }
        }
        Ok(Book { entries })
    }

    /// The records, sorted by `(key, move)`.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no records.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of distinct positions.
    pub fn positions(&self) -> usize {
        self.entries.chunk_by(|a, b| a.key == b.key).count()
    }

    /// Whether `data` starts like a Chariot book.
    pub fn is_chariot_book(data: &[u8]) -> bool {
        data.starts_with(&MAGIC)
    }

    /// Reads a book from its bytes, checking the header, the length, every
    /// move value and the order of the records.
    ///
    /// # Errors
    /// [`BookError::UnknownFormat`] without the magic,
    /// [`BookError::UnsupportedVersion`], [`BookError::LengthMismatch`] for a
    /// truncated file, [`BookError::KeyTableMismatch`], or
    /// [`BookError::BadRecord`].
    pub fn from_bytes(data: &[u8]) -> Result<Book, BookError> {
        if data.len() < HEADER_LEN || !Book::is_chariot_book(data) {
            return Err(BookError::UnknownFormat { len: data.len() });
        }
        let version = u32_at(data, 8);
        if version != VERSION {
            return Err(BookError::UnsupportedVersion(version));
        }
        let count = u32_at(data, 12);
        let expected = HEADER_LEN as u64 + RECORD_LEN as u64 * u64::from(count);
        if expected != data.len() as u64 {
            return Err(BookError::LengthMismatch {
                expected,
                actual: data.len() as u64,
            });
        }
        if u64_at(data, 16) != key_check() {
            return Err(BookError::KeyTableMismatch);
        }
        let mut entries = Vec::with_capacity(data.len() / RECORD_LEN);
        for (index, rec) in data[HEADER_LEN..].chunks_exact(RECORD_LEN).enumerate() {
            let Some(mv) = Move::from_u16(u16_at(rec, 8)) else {
                return Err(BookError::BadRecord {
                    index,
                    reason: "not a move between two squares",
                });
            };
            let entry = Entry {
                key: u64_at(rec, 0),
                mv,
                weight: u16_at(rec, 10),
                wdl: Wdl {
                    wins: u32_at(rec, 12),
                    draws: u32_at(rec, 16),
                    losses: u32_at(rec, 20),
                },
            };
            let prev = entries.last().map(|e: &Entry| (e.key, e.mv.to_u16()));
            if prev.is_some_and(|p| p >= (entry.key, mv.to_u16())) {
                return Err(BookError::BadRecord {
                    index,
                    reason: "records are not in strictly increasing (key, move) order",
                });
            }
            entries.push(entry);
        }
        Ok(Book { entries })
    }

    /// The bytes of the book file.
    ///
    /// # Panics
    /// Never for books of fewer than 2³² records (far beyond any real book);
    /// larger books panic rather than write a wrong count.
    pub fn to_bytes(&self) -> Vec<u8> {
        let count = u32::try_from(self.entries.len()).expect("a book has fewer than 2^32 records");
        let mut out = Vec::with_capacity(HEADER_LEN + RECORD_LEN * self.entries.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&count.to_le_bytes());
        out.extend_from_slice(&key_check().to_le_bytes());
        for e in &self.entries {
            out.extend_from_slice(&e.key.to_le_bytes());
            out.extend_from_slice(&e.mv.to_u16().to_le_bytes());
            out.extend_from_slice(&e.weight.to_le_bytes());
            out.extend_from_slice(&e.wdl.wins.to_le_bytes());
            out.extend_from_slice(&e.wdl.draws.to_le_bytes());
            out.extend_from_slice(&e.wdl.losses.to_le_bytes());
        }
        out
    }

    /// The records stored under canonical key `key` (binary search).
    pub fn records(&self, key: u64) -> &[Entry] {
        let start = self.entries.partition_point(|e| e.key < key);
        let len = self.entries[start..].partition_point(|e| e.key == key);
        &self.entries[start..start + len]
    }

    /// The book's moves for `pos`, in its orientation, legal ones only,
    /// heaviest first (ties in move order).
    ///
    /// 1. Take the canonical key and whether it is the mirror's.
    /// 2. Find the run of records with that key.
    /// 3. Mirror each move back if the mirror's key was used.
    /// 4. Drop any move that is not legal in `pos` (a key collision or a
    ///    damaged book must never produce an illegal move).
    pub fn probe(&self, pos: &Position) -> Vec<BookMove> {
        let (key, mirrored) = canonical_key(pos);
        let mut out: Vec<BookMove> = self
            .records(key)
            .iter()
            .map(|e| BookMove {
                mv: if mirrored { e.mv.mirror() } else { e.mv },
                weight: u32::from(e.weight),
                wdl: Some(e.wdl),
            })
            .filter(|m| pos.is_legal(m.mv))
            .collect();
        sort_moves(&mut out);
        out
    }
}

/// Heaviest first, then by move text, so output is stable.
pub(crate) fn sort_moves(moves: &mut [BookMove]) {
    moves.sort_by(|a, b| {
        b.weight
            .cmp(&a.weight)
            .then_with(|| a.mv.to_string().cmp(&b.mv.to_string()))
    });
}

fn u16_at(data: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([data[at], data[at + 1]])
}

fn u32_at(data: &[u8], at: usize) -> u32 {
    let mut b = [0; 4];
    b.copy_from_slice(&data[at..at + 4]);
    u32::from_le_bytes(b)
}

fn u64_at(data: &[u8], at: usize) -> u64 {
    let mut b = [0; 8];
    b.copy_from_slice(&data[at..at + 8]);
    u64::from_le_bytes(b)
}
