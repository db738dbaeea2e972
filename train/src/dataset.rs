//! Training samples in memory: for each position, the active input rows of
//! the side to move's perspective and of the other side's in one
//! architecture's encoding ([`Arch`]), its output bucket, the search score
//! and the game result. About 80 bytes a position ([`Dataset::bytes`]).
//!
//! The samples come from games files (`engine::nnue::games`): each game is
//! replayed and its positions pass the [`Selector`]'s filters, so the
//! filters can change without generating the data again. A sample
//! remembers its game, so that the validation split holds out whole games.
//!
//! Mirroring (`--mirror`) stores nothing: an [`Entry`] names a sample and
//! whether to see it left-right mirrored, and the architecture computes
//! the mirrored rows when the sample is trained ([`Arch::mirror_into`]),
//! so the data set keeps one sample per position.

use std::path::Path;

use anyhow::{Context, Result};
use board::{Color, Position, Square};
use engine::nnue::features::{self, Arch, MAX_ACTIVE};
use engine::nnue::games::{self, Selector};

/// Samples, stored flat, each as one record so that training, which
/// visits them in random order, reads one place per sample: sample `i`
/// starts at `records[starts[i]]` with a header of two values (its piece
/// count `n` in bits 0–5, the result + 1 in bits 6–7, the output bucket in
/// bits 8–15; the score's bits), then its side to move's `n` rows, then
/// the other side's `n`.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// The encoding of the rows.
    arch: Arch,
    records: Vec<u16>,
    starts: Vec<u32>,
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
    /// The output bucket that scores it ([`Arch::output_bucket`]).
    pub bucket: u8,
}

/// Room for the rows of a mirrored sample, which the data set does not
/// store (see [`Dataset::entry`]).
#[derive(Clone, Debug, Default)]
pub struct MirrorRows {
    us: [u16; MAX_ACTIVE],
    them: [u16; MAX_ACTIVE],
}

/// A sample as an epoch trains it: its index in the [`Dataset`] and
/// whether it is seen left-right mirrored (`--mirror`; see
/// [`Dataset::entry`]).
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

/// Asks the CPU to bring the cache line of `what`'s first value into the
/// caches (nothing off x86-64).
#[inline]
fn prefetch<T>(what: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch reads no memory architecturally and never
        // faults, and SSE, its only requirement, is part of every x86-64
        // CPU; the address is that of a borrowed slice anyway.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(what.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = what;
}

impl Dataset {
    /// An empty dataset whose samples are encoded for `arch`.
    pub fn new(arch: Arch) -> Dataset {
        Dataset {
            arch,
            records: Vec::new(),
            starts: Vec::new(),
            groups: Vec::new(),
            next_group: 0,
        }
    }

    /// The architecture the samples are encoded for: a network trained on
    /// them has its shape.
    pub fn arch(&self) -> Arch {
        self.arch
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
        let us = self.arch.active(side, pieces.clone());
        let them = self.arch.active(!side, pieces);
        // The output bucket is read off the position as it stands: a bucket
        // rule must give a position and its mirror the same one.
        let bucket = self.arch.output_bucket(pos);
        // Datasets stay far below 4 billion values; a perspective has at
        // most MAX_ACTIVE (32) rows, the result is −1, 0 or 1 and a bucket
        // is below 256, so the header's bits hold them.
        #[allow(clippy::cast_possible_truncation)]
        self.starts.push(self.records.len() as u32);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let header =
            us.len() as u16 | ((result.clamp(-1, 1) + 1) as u16) << 6 | (bucket as u16) << 8;
        #[allow(clippy::cast_sign_loss)]
        self.records.extend_from_slice(&[header, score as u16]);
        self.records.extend_from_slice(&us);
        self.records.extend_from_slice(&them);
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
        self.starts.len()
    }

    /// Whether there is no sample.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Sample `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn get(&self, i: usize) -> Sample<'_> {
        let start = self.starts[i] as usize;
        let (header, score) = (self.records[start], self.records[start + 1]);
        let n = usize::from(header & 0x3f);
        let rows = &self.records[start + 2..start + 2 + 2 * n];
        // The header and the score are the bits `push` stored.
        #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
        let (result, score) = ((header >> 6 & 3) as i8 - 1, score as i16);
        Sample {
            us: &rows[..n],
            them: &rows[n..],
            score,
            result,
            bucket: (header >> 8) as u8,
        }
    }

    /// Asks the CPU to start fetching what a loop over `entries` will
    /// read `distance` samples after sample `i` (its record), and where
    /// the record after that one starts (`2 × distance` ahead), so that
    /// the loop does not wait for memory at each sample: the data set is
    /// far larger than the caches and training reads it in random order.
    /// A hint: it changes no result.
    #[inline]
    pub fn prefetch(&self, entries: &[Entry], i: usize, distance: usize) {
        if let Some(start) = entries
            .get(i + 2 * distance)
            .and_then(|e| self.starts.get(e.index()))
        {
            prefetch(std::slice::from_ref(start));
        }
        if let Some(record) = entries
            .get(i + distance)
            .and_then(|e| self.starts.get(e.index()))
            .and_then(|&start| self.records.get(start as usize..))
        {
            // A record is the 4-byte header and up to 128 bytes of rows:
            // three cache lines at most.
            for line in record.chunks(32).take(3) {
                prefetch(line);
            }
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
        Sample {
            us: self.arch.mirror_into(s.us, &mut room.us),
            them: self.arch.mirror_into(s.them, &mut room.them),
            ..s
        }
    }

    /// Bytes of memory the samples take (their vectors' lengths, not
    /// their capacities).
    pub fn bytes(&self) -> usize {
        2 * self.records.len() + 4 * self.starts.len() + 4 * self.groups.len()
    }
}
