//! The plain-text form of a [`Book`]: one line per (position, move), for
//! review, diffs and import. [`dump`] followed by [`import`] gives back the
//! same book, byte for byte.
//!
//! # Line format
//!
//! ```text
//! # comment
//! <FEN> <TAB> <ICCS move> <TAB> <weight> <TAB> <wins> <TAB> <draws> <TAB> <losses>
//! key:<16 hex digits> <TAB> <ICCS move> <TAB> <weight> <TAB> <wins> <TAB> <draws> <TAB> <losses>
//! ```
//!
//! The FEN is the position in the canonical orientation (the one whose key
//! the record is stored under) and the move is written for that position;
//! an imported FEN may be in either orientation, its move is mirrored as
//! needed. Wins and losses are those of the side that made the move. The
//! last five fields are read from the right, so spaces work as separators
//! too.
//!
//! A binary book stores keys, not positions, so [`dump`] finds each record's
//! position by walking from the start position through every legal move of
//! every position it finds in the book. Records it cannot reach that way
//! (books of other start positions, positions reached only through two
//! moves outside the book) are written with their raw key, which [`import`]
//! reads back unchecked.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;

use board::{Move, Position};

use crate::error::BookError;
use crate::format::{Book, Entry, Wdl, canonical_key};

/// What [`dump`] wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpStats {
    /// Records written with a FEN.
    pub with_fen: usize,
    /// Records written with a raw key (position not found by the walk).
    pub key_only: usize,
}

/// The FEN of every position of `book` reachable from `roots` (see the
/// module docs), in the canonical orientation, by canonical key.
pub fn reachable_fens(book: &Book, roots: &[Position]) -> HashMap<u64, String> {
    let mut fens = HashMap::new();
    let mut queue = VecDeque::new();
    for root in roots {
        let (key, _) = canonical_key(root);
        if !fens.contains_key(&key) && !book.records(key).is_empty() {
            fens.insert(key, canonical_fen(root));
            let mut root = root.clone();
            root.clear_history();
            queue.push_back(root);
        }
    }
    while let Some(mut pos) = queue.pop_front() {
        for mv in pos.legal_moves() {
            pos.make_move(mv);
            let (key, _) = canonical_key(&pos);
            if !fens.contains_key(&key) && !book.records(key).is_empty() {
                fens.insert(key, canonical_fen(&pos));
                let mut child = pos.clone();
                child.clear_history();
                queue.push_back(child);
            }
            pos.unmake_move();
        }
    }
    fens
}

/// The FEN of `pos` turned to its canonical orientation, with neutral
/// counters so that dumps do not depend on the path that found it.
fn canonical_fen(pos: &Position) -> String {
    let (_, mirrored) = canonical_key(pos);
    let fen = if mirrored {
        pos.mirror().fen()
    } else {
        pos.fen()
    };
    let mut fields = fen.split_whitespace();
    let placement = fields.next().unwrap_or_default();
    let side = fields.next().unwrap_or("w");
    format!("{placement} {side} - - 0 1")
}

/// The text form of `book`, one line per record in the book's order.
pub fn dump(book: &Book) -> (String, DumpStats) {
    let fens = reachable_fens(book, &[Position::startpos()]);
    let mut out = String::new();
    let mut stats = DumpStats::default();
    out.push_str("# Chariot opening book: FEN, move, weight, wins, draws, losses of the mover\n");
    for e in book.entries() {
        match fens.get(&e.key) {
            Some(fen) => {
                stats.with_fen += 1;
                out.push_str(fen);
            }
            None => {
                stats.key_only += 1;
                let _ = write!(out, "key:{:016x}", e.key);
            }
        }
        let _ = writeln!(
            out,
            "\t{}\t{}\t{}\t{}\t{}",
            e.mv, e.weight, e.wdl.wins, e.wdl.draws, e.wdl.losses
        );
    }
    (out, stats)
}

/// Reads the text form back into a book.
///
/// # Errors
/// [`BookError::Text`] naming the first line that has too few fields, a bad
/// FEN or number, a move that is not legal in its FEN, or a position and
/// move that occurred before.
pub fn import(text: &str) -> Result<Book, BookError> {
    let (book, errors) = import_each(text);
    match errors.into_iter().next() {
        Some(first) => Err(first),
        None => book,
    }
}

/// Reads the text form line by line: the book of the lines that read, and
/// a [`BookError::Text`] for each line that did not (for tools that name
/// every bad line and go on, `chariot book import`).
///
/// # Errors
/// The book itself is an error only when the lines that read do not make
/// a valid book.
pub fn import_each(text: &str) -> (Result<Book, BookError>, Vec<BookError>) {
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    let mut seen = HashSet::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |message: String| BookError::Text {
            line: n + 1,
            message,
        };
        match parse_line(line) {
            Err(message) => errors.push(err(message)),
            Ok(entry) if !seen.insert((entry.key, entry.mv)) => {
                errors.push(err(format!("position and move {} already given", entry.mv)));
            }
            Ok(entry) => entries.push(entry),
        }
    }
    (Book::from_entries(entries), errors)
}

fn parse_line(line: &str) -> Result<Entry, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    if fields.len() < 6 {
        return Err("expected FEN, move, weight, wins, draws, losses".to_string());
    }
    let (head, tail) = fields.split_at(fields.len() - 5);
    let mv: Move = tail[0].parse().map_err(|e| format!("{e}"))?;
    let number = |s: &str, what: &str| s.parse::<u32>().map_err(|_| format!("bad {what} '{s}'"));
    let weight = u16::try_from(number(tail[1], "weight")?)
        .map_err(|_| format!("weight {} is above 65535", tail[1]))?;
    let wdl = Wdl {
        wins: number(tail[2], "wins")?,
        draws: number(tail[3], "draws")?,
        losses: number(tail[4], "losses")?,
    };
    let raw_key = match head {
        [one] => one.strip_prefix("key:"),
        _ => None,
    };
    let (key, mv) = if let Some(hex) = raw_key {
        (
            u64::from_str_radix(hex, 16).map_err(|_| format!("bad key '{hex}'"))?,
            mv,
        )
    } else {
        let fen = head.join(" ");
        let pos = Position::from_fen(&fen).map_err(|e| format!("bad FEN: {e}"))?;
        if !pos.is_legal(mv) {
            return Err(format!("{mv} is not legal in {fen}"));
        }
        let (key, mirrored) = canonical_key(&pos);
        (key, if mirrored { mv.mirror() } else { mv })
    };
    Ok(Entry {
        key,
        mv,
        weight,
        wdl,
    })
}
