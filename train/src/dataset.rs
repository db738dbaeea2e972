//! Training samples in memory: for each position, the active input rows of
//! the side to move's perspective and of the other side's, the search score
//! and the game result. About 140 bytes a position.
//!
//! The samples come from games files (`engine::nnue::games`): each game is
//! replayed and its positions pass the [`Selector`]'s filters, so the
//! filters can change without generating the data again. A sample
//! remembers its game, so that the validation split holds out whole games.

use std::path::Path;

use anyhow::{Context, Result};
use board::{Color, Position, Square};
use engine::nnue::features;
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

    /// Reads every game of a games file (plain or `.xz`) and adds the
    /// positions `selector` keeps; with `mirror`, each position's
    /// left-right mirror too (the rules are symmetric, so its labels are
    /// the same).
    ///
    /// # Errors
    /// An unreadable file or a game that does not replay (with its number).
    pub fn load(&mut self, path: &Path, mirror: bool, selector: &mut Selector) -> Result<()> {
        let reader = games::open(path).with_context(|| format!("in {}", path.display()))?;
        for game in reader {
            let game = game.with_context(|| format!("in {}", path.display()))?;
            let group = self.next_group;
            self.next_group += 1;
            game.replay(|pos, ply| {
                if let Ok(score) = selector.judge(pos, ply) {
                    let result = game.result.for_side(pos.side_to_move());
                    self.push(pos, score, result, group, false);
                    if mirror {
                        self.push(pos, score, result, group, true);
                    }
                }
            })
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
        Ok(())
    }

    /// Adds one position (optionally mirrored left-right) with its labels,
    /// as a sample of game `group`.
    pub fn push(&mut self, pos: &Position, score: i16, result: i8, group: u32, mirror: bool) {
        let side: Color = pos.side_to_move();
        self.groups.push(group);
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
