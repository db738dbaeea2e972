//! Reading ElephantEye's `BOOK.DAT` (`docs/book-formats.md` §1): its
//! RC4-derived 32-bit Zobrist locks, its 16×16 square numbering, the mirror
//! probe and the legality filter. Read support only; this module derives
//! everything from the format description, no ElephantEye code.

use board::{Move, PieceKind, Position, Square};

use crate::error::BookError;
use crate::format::{BookMove, sort_moves};

/// Size of one `BOOK.DAT` record.
const RECORD_LEN: usize = 8;

/// One `BOOK.DAT` record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Record {
    lock: u32,
    mv: u16,
    weight: u16,
}

/// The lock1 words of ElephantEye's Zobrist scheme: one per (piece, square
/// of the 16×16 board) and one for Black to move.
struct Locks {
    side: u32,
    pieces: Box<[[u32; 256]; 14]>,
}

/// The RC4 output generator, keyed with four zero bytes.
struct Rc4 {
    s: [u8; 256],
    i: u8,
    j: u8,
}

impl Rc4 {
    fn zero_key() -> Rc4 {
        let mut s = [0u8; 256];
        for (i, v) in s.iter_mut().enumerate() {
            *v = i as u8;
        }
        // Key scheduling with the key [0, 0, 0, 0]: every key byte is zero,
        // so only the state bytes move j.
        let mut j = 0u8;
        for i in 0..256 {
            j = j.wrapping_add(s[i]);
            s.swap(i, usize::from(j));
        }
        Rc4 { s, i: 0, j: 0 }
    }

    fn next_byte(&mut self) -> u8 {
        self.i = self.i.wrapping_add(1);
        self.j = self.j.wrapping_add(self.s[usize::from(self.i)]);
        self.s.swap(usize::from(self.i), usize::from(self.j));
        self.s[usize::from(self.s[usize::from(self.i)].wrapping_add(self.s[usize::from(self.j)]))]
    }

    /// Four output bytes, little-endian.
    fn next_word(&mut self) -> u32 {
        u32::from_le_bytes([
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
            self.next_byte(),
        ])
    }

    /// One (key, lock0, lock1) triple; only lock1 is used by the book.
    fn next_lock1(&mut self) -> u32 {
        let _key = self.next_word();
        let _lock0 = self.next_word();
        self.next_word()
    }
}

impl Locks {
    fn new() -> Locks {
        let mut rc4 = Rc4::zero_key();
        let side = rc4.next_lock1();
        let mut pieces = Box::new([[0u32; 256]; 14]);
        for piece in pieces.iter_mut() {
            for sq in piece.iter_mut() {
                *sq = rc4.next_lock1();
            }
        }
        Locks { side, pieces }
    }

    /// The lock1 of `pos`, or of its left-right mirror.
    fn lock(&self, pos: &Position, mirrored: bool) -> u32 {
        let mut lock = if pos.side_to_move() == board::Color::Black {
            self.side
        } else {
            0
        };
        for sq in pos.occupied() {
            if let Some(p) = pos.piece_at(sq) {
                let sq = if mirrored { sq.mirror() } else { sq };
                lock ^= self.pieces[p.index()][to_ee_square(sq)];
            }
        }
        lock
    }
}

// ElephantEye's piece order (king, advisor, elephant, horse, rook, cannon,
// pawn; Red then Black) is the board crate's, so `Piece::index` serves.
const _: () = assert!(PieceKind::Pawn as usize == 6 && PieceKind::Bishop as usize == 2);

/// Our square on ElephantEye's 16×16 board: x = file + 3, y = 3 + (9 − rank).
fn to_ee_square(sq: Square) -> usize {
    let x = sq.file().index() + 3;
    let y = 3 + (9 - sq.rank().index());
    y * 16 + x
}

/// ElephantEye's square back to ours, `None` off the 9×10 board.
fn from_ee_square(sq: u8) -> Option<Square> {
    let x = i32::from(sq & 15) - 3;
    let y = i32::from(sq >> 4) - 3;
    if !(0..9).contains(&x) || !(0..10).contains(&y) {
        return None;
    }
    Square::from_coords(x, 9 - y)
}

/// An ElephantEye move (`from + 256 * to`) as ours, `None` if malformed.
fn decode_move(mv: u16) -> Option<Move> {
    let [from, to] = mv.to_le_bytes();
    Move::new(from_ee_square(from)?, from_ee_square(to)?)
}

/// An ElephantEye `BOOK.DAT` held in memory.
pub struct EleeyeBook {
    records: Vec<Record>,
    locks: Locks,
}

impl std::fmt::Debug for EleeyeBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EleeyeBook")
            .field("records", &self.records.len())
            .finish_non_exhaustive()
    }
}

impl EleeyeBook {
    /// Reads a `BOOK.DAT` from its bytes.
    ///
    /// # Errors
    /// [`BookError::UnknownFormat`] if the data is empty or not a whole
    /// number of records, [`BookError::BadRecord`] if the locks are not in
    /// ascending order or a move does not join two points of the board (a
    /// damaged or foreign file).
    pub fn from_bytes(data: &[u8]) -> Result<EleeyeBook, BookError> {
        if data.is_empty() || !data.len().is_multiple_of(RECORD_LEN) {
            return Err(BookError::UnknownFormat { len: data.len() });
        }
        let mut records = Vec::with_capacity(data.len() / RECORD_LEN);
        for (index, rec) in data.chunks_exact(RECORD_LEN).enumerate() {
            let r = Record {
                lock: u32::from_le_bytes([rec[0], rec[1], rec[2], rec[3]]),
                mv: u16::from_le_bytes([rec[4], rec[5]]),
                weight: u16::from_le_bytes([rec[6], rec[7]]),
            };
            if records.last().is_some_and(|p: &Record| p.lock > r.lock) {
                return Err(BookError::BadRecord {
                    index,
                    reason: "BOOK.DAT locks are not in ascending order",
                });
            }
            // Every move of a real BOOK.DAT joins two points of the board;
            // anything else (zeros, text) is not a BOOK.DAT at all.
            if decode_move(r.mv).is_none() {
                return Err(BookError::BadRecord {
                    index,
                    reason: "BOOK.DAT move is not between two points of the board",
                });
            }
            records.push(r);
        }
        Ok(EleeyeBook {
            records,
            locks: Locks::new(),
        })
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the book has no records (never true for a book read from bytes).
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// ElephantEye's lock1 of `pos` (exposed for tests and tools).
    pub fn lock1(&self, pos: &Position) -> u32 {
        self.locks.lock(pos, false)
    }

    fn run(&self, lock: u32) -> &[Record] {
        let start = self.records.partition_point(|r| r.lock < lock);
        let len = self.records[start..].partition_point(|r| r.lock == lock);
        &self.records[start..start + len]
    }

    /// The book's moves for `pos`, legal ones only, heaviest first.
    ///
    /// 1. Look up the position's lock1; if nothing is stored, look up its
    ///    mirror's and mirror the moves found back.
    /// 2. Drop malformed move values and every move that is not legal in
    ///    `pos`: locks are only 32 bits, so collisions happen.
    pub fn probe(&self, pos: &Position) -> Vec<BookMove> {
        let mut mirrored = false;
        let mut run = self.run(self.locks.lock(pos, false));
        if run.is_empty() {
            mirrored = true;
            run = self.run(self.locks.lock(pos, true));
        }
        let mut out: Vec<BookMove> = run
            .iter()
            .filter_map(|r| {
                let mv = decode_move(r.mv)?;
                let mv = if mirrored { mv.mirror() } else { mv };
                pos.is_legal(mv).then_some(BookMove {
                    mv,
                    weight: u32::from(r.weight),
                    wdl: None,
                })
            })
            .collect();
        sort_moves(&mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_follow_the_16x16_numbering() {
        let a9: Square = "a9".parse().unwrap();
        let i0: Square = "i0".parse().unwrap();
        assert_eq!(to_ee_square(a9), 0x33);
        assert_eq!(to_ee_square(i0), 0xCB);
        assert_eq!(from_ee_square(0x33), Some(a9));
        assert_eq!(from_ee_square(0xCB), Some(i0));
        assert_eq!(from_ee_square(0x00), None);
        assert_eq!(from_ee_square(0xCC), None);
        for sq in Square::all() {
            assert_eq!(from_ee_square(to_ee_square(sq) as u8), Some(sq));
        }
    }

    #[test]
    fn rc4_with_a_zero_key_gives_the_known_stream() {
        // RC4 with key 00 00 00 00: the keystream's first bytes are a
        // published test value of the cipher (de 18 89 41 a3 37 5d 3a).
        let mut rc4 = Rc4::zero_key();
        let first: Vec<u8> = (0..8).map(|_| rc4.next_byte()).collect();
        assert_eq!(first, [0xde, 0x18, 0x89, 0x41, 0xa3, 0x37, 0x5d, 0x3a]);
    }

    #[test]
    fn malformed_data_is_refused() {
        assert!(matches!(
            EleeyeBook::from_bytes(&[]),
            Err(BookError::UnknownFormat { len: 0 })
        ));
        assert!(matches!(
            EleeyeBook::from_bytes(&[0; 12]),
            Err(BookError::UnknownFormat { len: 12 })
        ));
        // Two records with a real move (h2e2 in ElephantEye's numbering),
        // the second lock smaller than the first.
        let ee =
            |name: &str| u16::try_from(to_ee_square(name.parse().expect("square"))).expect("fits");
        let h2e2 = ee("h2") | (ee("e2") << 8);
        let record = |lock: u32| {
            let mut r = lock.to_le_bytes().to_vec();
            r.extend(h2e2.to_le_bytes());
            r.extend(1u16.to_le_bytes());
            r
        };
        assert!(EleeyeBook::from_bytes(&[record(3), record(5)].concat()).is_ok());
        assert!(matches!(
            EleeyeBook::from_bytes(&[record(5), record(3)].concat()),
            Err(BookError::BadRecord { index: 1, .. })
        ));
        // Zeros or text of the right length are not a BOOK.DAT.
        assert!(matches!(
            EleeyeBook::from_bytes(&[0; 4096]),
            Err(BookError::BadRecord { index: 0, .. })
        ));
        assert!(matches!(
            EleeyeBook::from_bytes(b"aaaaaaaabbbbbbbb"),
            Err(BookError::BadRecord { index: 0, .. })
        ));
    }
}
