//! Training samples in memory: for each position, the active input rows of
//! the side to move's perspective and of the other side's, the search score
//! and the game result. About 80 bytes a position ([`Dataset::bytes`]).
//!
//! The samples come from games files (`engine::nnue::games`): each game is
//! replayed and its positions pass the [`Selector`]'s filters, so the
//! filters can change without generating the data again. A sample
//! remembers its game, so that the validation split holds out whole games.
//!
//! Mirroring (`--mirror`) stores nothing: an [`Entry`] names a sample and
//! whether to see it left-right mirrored, and [`mirror_rows`] computes the
//! mirrored rows when the sample is trained, so the data set keeps one
//! sample per position.

use std::path::Path;

use anyhow::{Context, Result};
use arrayvec::ArrayVec;
use board::{Color, PieceKind, Position, Square};
use engine::nnue::features::{self, MAX_ACTIVE};
use engine::nnue::games::{self, Selector};

/// Samples, stored flat: sample `i` has `counts[i]` pieces, its side to
/// move's rows at `rows[starts[i]..][..counts[i]]` and the other side's
/// right after.
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    rows: Vec<u16>,
    starts: Vec<u32>,
    counts: Vec<u8>,
    scores: Vec<i16>,
    results: Vec<i8>,
    /// The game each sample came from, so that the validation split holds
    /// out whole games (a position's mirror and its neighbours in the game
    /// included).
    groups: Vec<u32>,
    next_group: u32,
}

/// One sample, borrowed from a [`Dataset`] (or, mirrored, from a
/// [`MirrorRows`]).
#[derive(Clone, Copy, Debug)]
pub struct Sample<'a> {
    /// Input rows of the side to move's perspective.
    pub us: &'a [u16],
    /// Input rows of the other side's perspective.
    pub them: &'a [u16],
    /// Search score, centipawns, side to move's view.
    pub score: i16,
    /// Game result, side to move's view: 1, 0 or −1.
    pub result: i8,
}

/// Room for the rows of a mirrored sample, which the data set does not
/// store (see [`Dataset::entry`]).
#[derive(Clone, Debug, Default)]
pub struct MirrorRows {
    us: ArrayVec<u16, MAX_ACTIVE>,
    them: ArrayVec<u16, MAX_ACTIVE>,
}

/// A sample as an epoch trains it: its index in the [`Dataset`] and
/// whether it is seen left-right mirrored (`--mirror`; see
/// [`mirror_rows`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry(u32);

impl Entry {
    /// Sample `index`, mirrored or not.
    ///
    /// # Panics
    /// If `index` is 2³¹ or more (a data set that large does not fit in
    /// memory anyway).
    pub fn new(index: usize, mirrored: bool) -> Entry {
        let i = u32::try_from(index)
            .ok()
            .filter(|&i| i < 1 << 31)
            .expect("fewer than 2^31 samples");
        Entry(i << 1 | u32::from(mirrored))
    }

    /// The sample's index.
    pub fn index(self) -> usize {
        (self.0 >> 1) as usize
    }

    /// Whether the sample is seen mirrored.
    pub fn mirrored(self) -> bool {
        self.0 & 1 == 1
    }
}

/// The rows of one perspective's view of the left-right mirrored
/// position, from its rows of the position itself.
///
/// A row is `bucket × INPUTS + (relative colour × 7 + kind) × 90 +
/// relative square` (`docs/nnue.md` §1). Mirroring moves each piece to the
/// other side of the board's middle file, and a perspective's relative
/// square is at most rank-flipped, which keeps files: so the relative
/// square is mirrored in place, and the bucket becomes the one of the
/// perspective's own general on its mirrored palace point. The rows come in
/// the order of `rows`, which is not the square order
/// [`features::active`] gives; the tests compare them as sets.
pub fn mirror_rows(rows: &[u16]) -> ArrayVec<u16, MAX_ACTIVE> {
    let own_king = PieceKind::King.index();
    let split = |row: u16| {
        let within = usize::from(row) % features::INPUTS;
        (within / Square::NUM, within % Square::NUM)
    };
    // A perspective's relative squares are absolute squares as Red sees
    // them, so Red's bucket function reads them directly.
    let bucket = rows
        .iter()
        .map(|&row| split(row))
        .find(|&(piece, _)| piece == own_king)
        .and_then(|(_, sq)| Square::from_index(sq))
        .map_or(0, |king| features::bucket(Color::Red, king.mirror()));
    rows.iter()
        .map(|&row| {
            let (piece, sq) = split(row);
            let mirrored = Square::from_index(sq).map_or(sq, |s| s.mirror().index());
            // Below TOTAL_INPUTS, so it fits in u16.
            #[allow(clippy::cast_possible_truncation)]
            let row = (bucket * features::INPUTS + piece * Square::NUM + mirrored) as u16;
            row
        })
        .collect()
}

impl Dataset {
    /// An empty dataset.
    pub fn new() -> Dataset {
        Dataset::default()
    }

    /// Reads every game of a games file (plain or `.xz`) and adds the
    /// positions `selector` keeps, one sample each, the game's number in
    /// the data set as their group. (Mirrors are not stored: an epoch
    /// trains on them through [`Entry::mirrored`].)
    ///
    /// # Errors
    /// An unreadable file or a game that does not replay (with its number).
    pub fn load(&mut self, path: &Path, selector: &mut Selector) -> Result<()> {
        let reader = games::open(path).with_context(|| format!("in {}", path.display()))?;
        for game in reader {
            let game = game.with_context(|| format!("in {}", path.display()))?;
            let group = self.next_group;
            self.next_group += 1;
            game.replay(|pos, ply| {
                if let Ok(score) = selector.judge(pos, ply) {
                    let result = game.result.for_side(pos.side_to_move());
                    self.push(pos, score, result, group, false);
                }
            })
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
        Ok(())
    }

    /// Adds one position (optionally mirrored left-right) with its labels,
    /// as a sample of game `group`. The groups decide the validation split
    /// ([`crate::trainer::split`]): give the positions of one game one
    /// group.
    pub fn push(&mut self, pos: &Position, score: i16, result: i8, group: u32, mirror: bool) {
        let side: Color = pos.side_to_move();
        self.groups.push(group);
        self.next_group = self.next_group.max(group.saturating_add(1));
        let pieces = features::pieces_of(pos)
            .map(move |(p, sq): (board::Piece, Square)| (p, if mirror { sq.mirror() } else { sq }));
        let us = features::active(side, pieces.clone());
        let them = features::active(!side, pieces);
        // Datasets stay far below 4 billion rows.
        #[allow(clippy::cast_possible_truncation)]
        self.starts.push(self.rows.len() as u32);
        #[allow(clippy::cast_possible_truncation)]
        self.counts.push(us.len() as u8);
        self.rows.extend_from_slice(&us);
        self.rows.extend_from_slice(&them);
        self.scores.push(score);
        self.results.push(result);
    }

    /// The game of sample `i` (see [`Dataset::push`]).
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn group(&self, i: usize) -> u32 {
        self.groups[i]
    }

    /// Number of games the samples came from (every game loaded, those
    /// that gave no sample too).
    pub fn games(&self) -> u32 {
        self.next_group
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// Sample `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn get(&self, i: usize) -> Sample<'_> {
        let start = self.starts[i] as usize;
        let n = usize::from(self.counts[i]);
        Sample {
            us: &self.rows[start..start + n],
            them: &self.rows[start + n..start + 2 * n],
            score: self.scores[i],
            result: self.results[i],
        }
    }

    /// The sample an entry trains: sample `e.index()`, its rows mirrored
    /// into `room` when `e.mirrored()` (the rules are symmetric, so the
    /// labels stay).
    ///
    /// # Panics
    /// If the index is not below `len()`.
    pub fn entry<'a>(&'a self, e: Entry, room: &'a mut MirrorRows) -> Sample<'a> {
        let s = self.get(e.index());
        if !e.mirrored() {
            return s;
        }
        room.us = mirror_rows(s.us);
        room.them = mirror_rows(s.them);
        Sample {
            us: &room.us,
            them: &room.them,
            ..s
        }
    }

    /// Bytes of memory the samples take (their vectors' lengths, not
    /// their capacities).
    pub fn bytes(&self) -> usize {
        2 * self.rows.len()
            + 4 * self.starts.len()
            + self.counts.len()
            + 2 * self.scores.len()
            + self.results.len()
            + 4 * self.groups.len()
    }
}
