//! Training data: one fixed-size record per position, in a file with a
//! small header. `chariot datagen` writes it, the trainer reads it.
//!
//! File: a 16-byte header (magic `CHDATA\r\n`, format version `u32`,
//! record size `u32`, little-endian) followed by records of
//! [`RECORD_BYTES`] bytes each, nothing else. Files can be concatenated
//! after stripping the header of all but the first.
//!
//! Record (all little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 0–11 | occupancy: bit `i` set when square `i` holds a piece (bits 90–95 zero) |
//! | 12–27 | the pieces of the occupied squares in square order, one [`Piece::index`] per nibble, low nibble first; unused nibbles zero |
//! | 28 | side to move: 0 Red, 1 Black |
//! | 29–30 | search score, `i16`, centipawns, side to move's view |
//! | 31 | game result, `i8`, side to move's view: 1 win, 0 draw, −1 loss |
//!
//! Counters (move-limit, move number) and history are not kept: the
//! network sees only the placement and the side to move.

use std::fmt;
use std::io::{self, Read, Write};

use board::{Color, Piece, Position, Setup, Square};

/// The data file's first 8 bytes.
pub const DATA_MAGIC: [u8; 8] = *b"CHDATA\r\n";
/// The data format version this build reads and writes.
pub const DATA_VERSION: u32 = 1;
/// Bytes per record.
pub const RECORD_BYTES: usize = 32;
/// Bytes of the file header.
pub const DATA_HEADER_BYTES: usize = 16;

/// Why a data file or record was refused.
#[derive(Debug)]
pub enum DataError {
    /// Reading or writing failed.
    Io(io::Error),
    /// Not a Chariot data file.
    BadMagic,
    /// A version or record size this build does not read.
    WrongVersion {
        /// The file's version.
        version: u32,
        /// The file's record size.
        record_bytes: u32,
    },
    /// The file ends inside a record.
    Truncated,
    /// A record whose fields are impossible (record number from 0, what).
    BadRecord(u64, &'static str),
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(e) => write!(f, "data file: {e}"),
            DataError::BadMagic => f.write_str("not a Chariot data file (bad magic)"),
            DataError::WrongVersion {
                version,
                record_bytes,
            } => write!(
                f,
                "data format version {version} with {record_bytes}-byte records; \
                 this build reads version {DATA_VERSION} with {RECORD_BYTES}-byte records"
            ),
            DataError::Truncated => f.write_str("data file ends inside a record"),
            DataError::BadRecord(n, what) => write!(f, "data record {n}: {what}"),
        }
    }
}

impl std::error::Error for DataError {}

impl From<io::Error> for DataError {
    fn from(e: io::Error) -> DataError {
        DataError::Io(e)
    }
}

/// One training position with its labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    /// Occupied squares, bit = square index.
    pub occupancy: u128,
    /// Piece indices of the occupied squares in square order, two per byte.
    pub pieces: [u8; 16],
    /// Side to move.
    pub side: Color,
    /// Search score, centipawns, side to move's view.
    pub score: i16,
    /// Game result, side to move's view: 1 win, 0 draw, −1 loss.
    pub result: i8,
}

impl Record {
    /// Packs a position with its labels.
    pub fn new(pos: &Position, score: i16, result: i8) -> Record {
        let mut occupancy = 0u128;
        let mut pieces = [0u8; 16];
        let mut n = 0;
        for sq in Square::all() {
            if let Some(p) = pos.piece_at(sq) {
                occupancy |= 1 << sq.index();
                if n < 32 {
                    // Piece indices are below 14: a nibble.
                    #[allow(clippy::cast_possible_truncation)]
                    let nib = p.index() as u8;
                    pieces[n / 2] |= nib << (4 * (n % 2));
                }
                n += 1;
            }
        }
        Record {
            occupancy,
            pieces,
            side: pos.side_to_move(),
            score,
            result: result.clamp(-1, 1),
        }
    }

    /// The pieces as `(piece, square)` pairs, in square order (the
    /// feature encoder's input). A nibble that names no piece is skipped;
    /// [`Record::from_bytes`] refuses such records anyway.
    pub fn pieces(&self) -> impl Iterator<Item = (Piece, Square)> + Clone + '_ {
        let mut bits = self.occupancy;
        let mut n = 0usize;
        std::iter::from_fn(move || {
            while bits != 0 {
                let sq = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let k = n;
                n += 1;
                let nib = self.pieces.get(k / 2).map(|b| (b >> (4 * (k % 2))) & 15);
                if let (Some(p), Some(s)) = (
                    nib.and_then(|v| Piece::from_index(usize::from(v))),
                    Square::from_index(sq),
                ) {
                    return Some((p, s));
                }
            }
            None
        })
    }

    /// The position (move counters zero and one, no history).
    ///
    /// # Errors
    /// The [`board::FenError`] of an impossible placement.
    pub fn to_position(&self) -> Result<Position, board::FenError> {
        let mut setup = Setup {
            board: [None; 90],
            side: self.side,
            rule60: 0,
            fullmove: 1,
        };
        for (p, sq) in self.pieces() {
            setup.board[sq.index()] = Some(p);
        }
        Position::from_setup(&setup)
    }

    /// The record's bytes.
    pub fn to_bytes(&self) -> [u8; RECORD_BYTES] {
        let mut b = [0u8; RECORD_BYTES];
        b[..12].copy_from_slice(&self.occupancy.to_le_bytes()[..12]);
        b[12..28].copy_from_slice(&self.pieces);
        b[28] = u8::from(self.side == Color::Black);
        b[29..31].copy_from_slice(&self.score.to_le_bytes());
        b[31] = self.result.to_le_bytes()[0];
        b
    }

    /// Decodes and checks a record: occupancy within the board, at most 32
    /// pieces, every used nibble a piece and every unused one zero, a side
    /// byte of 0 or 1, a result of −1, 0 or 1. Legality of the placement is
    /// left to [`Record::to_position`].
    ///
    /// # Errors
    /// [`DataError::BadRecord`] naming the first failed check (`number` is
    /// the record's place in its file, for the message).
    pub fn from_bytes(b: &[u8; RECORD_BYTES], number: u64) -> Result<Record, DataError> {
        let mut occ = [0u8; 16];
        occ[..12].copy_from_slice(&b[..12]);
        let occupancy = u128::from_le_bytes(occ);
        if occupancy >> Square::NUM != 0 {
            return Err(DataError::BadRecord(number, "occupancy beyond square 89"));
        }
        let count = occupancy.count_ones() as usize;
        if count > 32 {
            return Err(DataError::BadRecord(number, "more than 32 pieces"));
        }
        let mut pieces = [0u8; 16];
        pieces.copy_from_slice(&b[12..28]);
        for k in 0..32 {
            let nib = (pieces[k / 2] >> (4 * (k % 2))) & 15;
            if (k < count && usize::from(nib) >= Piece::NUM) || (k >= count && nib != 0) {
                return Err(DataError::BadRecord(number, "bad piece nibble"));
            }
        }
        let side = match b[28] {
            0 => Color::Red,
            1 => Color::Black,
            _ => return Err(DataError::BadRecord(number, "side to move not 0 or 1")),
        };
        let result = i8::from_le_bytes([b[31]]);
        if !(-1..=1).contains(&result) {
            return Err(DataError::BadRecord(number, "result not -1, 0 or 1"));
        }
        Ok(Record {
            occupancy,
            pieces,
            side,
            score: i16::from_le_bytes([b[29], b[30]]),
            result,
        })
    }
}

/// Writes a data file: the header at creation, then records as they come.
#[derive(Debug)]
pub struct RecordWriter<W: Write> {
    out: W,
    written: u64,
}

impl<W: Write> RecordWriter<W> {
    /// Starts a file by writing its header.
    ///
    /// # Errors
    /// The writer's I/O error.
    pub fn new(mut out: W) -> Result<RecordWriter<W>, DataError> {
        let mut header = [0u8; DATA_HEADER_BYTES];
        header[..8].copy_from_slice(&DATA_MAGIC);
        header[8..12].copy_from_slice(&DATA_VERSION.to_le_bytes());
        // RECORD_BYTES is 32.
        #[allow(clippy::cast_possible_truncation)]
        header[12..16].copy_from_slice(&(RECORD_BYTES as u32).to_le_bytes());
        out.write_all(&header)?;
        Ok(RecordWriter { out, written: 0 })
    }

    /// Appends one record.
    ///
    /// # Errors
    /// The writer's I/O error.
    pub fn write(&mut self, r: &Record) -> Result<(), DataError> {
        self.out.write_all(&r.to_bytes())?;
        self.written += 1;
        Ok(())
    }

    /// Records written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// Flushes and returns the inner writer.
    ///
    /// # Errors
    /// The writer's I/O error.
    pub fn finish(mut self) -> Result<W, DataError> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads a data file record by record (an iterator of results; it stops
/// after the first error).
#[derive(Debug)]
pub struct RecordReader<R: Read> {
    input: R,
    read: u64,
    failed: bool,
}

impl<R: Read> RecordReader<R> {
    /// Opens a data file by reading and checking its header.
    ///
    /// # Errors
    /// [`DataError::BadMagic`], [`DataError::WrongVersion`],
    /// [`DataError::Truncated`] for a file shorter than the header, or the
    /// reader's I/O error.
    pub fn new(mut input: R) -> Result<RecordReader<R>, DataError> {
        let mut header = [0u8; DATA_HEADER_BYTES];
        if read_full(&mut input, &mut header)? != DATA_HEADER_BYTES {
            return Err(DataError::Truncated);
        }
        if header[..8] != DATA_MAGIC {
            return Err(DataError::BadMagic);
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        let record_bytes = u32::from_le_bytes([header[12], header[13], header[14], header[15]]);
        if version != DATA_VERSION || record_bytes as usize != RECORD_BYTES {
            return Err(DataError::WrongVersion {
                version,
                record_bytes,
            });
        }
        Ok(RecordReader {
            input,
            read: 0,
            failed: false,
        })
    }
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match input.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

impl<R: Read> Iterator for RecordReader<R> {
    type Item = Result<Record, DataError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let mut buf = [0u8; RECORD_BYTES];
        let item = match read_full(&mut self.input, &mut buf) {
            Ok(0) => return None,
            Ok(RECORD_BYTES) => Record::from_bytes(&buf, self.read),
            Ok(_) => Err(DataError::Truncated),
            Err(e) => Err(DataError::Io(e)),
        };
        self.read += 1;
        self.failed = item.is_err();
        Some(item)
    }
}
