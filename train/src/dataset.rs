//! Training samples in memory: for each position, the active input rows of
//! the side to move's perspective and of the other side's, the search score
//! and the game result. About 140 bytes a position.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use anyhow::{Context, Result};
use board::Square;
use engine::nnue::data::{Record, RecordReader};
use engine::nnue::features;

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
    /// The record each sample came from: a position and its mirror share
    /// one, so that the validation split never separates them.
    groups: Vec<u32>,
    next_group: u32,
}

/// One sample, borrowed from a [`Dataset`].
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

impl Dataset {
    /// An empty dataset.
    pub fn new() -> Dataset {
        Dataset::default()
    }

    /// Reads every record of a data file; with `mirror`, each position's
    /// left-right mirror is added too (the rules are symmetric, so its
    /// labels are the same).
    ///
    /// # Errors
    /// An unreadable file or a bad record (with its number).
    pub fn load(&mut self, path: &Path, mirror: bool) -> Result<()> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let reader = RecordReader::new(BufReader::new(file))
            .with_context(|| format!("in {}", path.display()))?;
        for record in reader {
            let record = record.with_context(|| format!("in {}", path.display()))?;
            self.push(&record, false);
            if mirror {
                self.push(&record, true);
            }
        }
        Ok(())
    }

    /// Adds one record (optionally mirrored left-right). A mirrored record
    /// pushed right after the same record unmirrored joins its group.
    pub fn push(&mut self, record: &Record, mirror: bool) {
        if !mirror || self.next_group == 0 {
            self.next_group += 1;
        }
        self.groups.push(self.next_group - 1);
        let pieces = record
            .pieces()
            .map(move |(p, sq): (board::Piece, Square)| (p, if mirror { sq.mirror() } else { sq }));
        let us = features::active(record.side, pieces.clone());
        let them = features::active(!record.side, pieces);
        // Datasets stay far below 4 billion rows.
        #[allow(clippy::cast_possible_truncation)]
        self.starts.push(self.rows.len() as u32);
        #[allow(clippy::cast_possible_truncation)]
        self.counts.push(us.len() as u8);
        self.rows.extend_from_slice(&us);
        self.rows.extend_from_slice(&them);
        self.scores.push(record.score);
        self.results.push(record.result);
    }

    /// The group of sample `i` (see [`Dataset::push`]).
    ///
    /// # Panics
    /// If `i >= len()`.
    pub fn group(&self, i: usize) -> u32 {
        self.groups[i]
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
}
