//! [`BookBuilder`]: turns replayed games into a [`Book`]. It counts, for
//! every canonical position of a game's opening and the move played there,
//! the wins, draws and losses of the side that played it, then keeps the
//! moves played often enough that did not lose more than they scored.
//! Reading the game files is `pgn`'s job; this module only sees moves.
//!
//! Rules:
//! * a game is replayed from its start with a legality check on every move;
//!   a game with an illegal move is skipped whole and counted, never half
//!   used;
//! * games without a known result are skipped (their moves carry no
//!   verdict);
//! * a game counts a (position, move) pair once even if it repeats it;
//! * near-duplicates — games from the same start that share their first
//!   [`DUPLICATE_PLIES`] plies, which the CCPD records hold many of under
//!   differently written player names — count once (two distinct master
//!   games rarely agree for thirty moves);
//! * a move is kept when it was played in at least `min_games` games and
//!   lost no more games than it won and drew together;
//! * its weight is `2 × wins + draws` (half-points scored, doubled), capped
//!   at 65,535;
//! * finally only the positions reachable from a game's start position
//!   through positions of the book (any legal move from a book position) are
//!   kept: every record can then be written with its FEN and its move
//!   checked for legality, and the rest could only be met after two moves
//!   outside the book.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::hash::{Hash, Hasher};

use board::{GameResult, Move, Position};

use crate::format::{Book, Entry, Wdl, canonical_key};
use crate::text::reachable_fens;

/// Plies that identify a near-duplicate game.
pub const DUPLICATE_PLIES: usize = 60;

/// What to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Only the first `max_ply` plies of each game are counted.
    pub max_ply: usize,
    /// A move must have been played in this many games to be kept.
    pub min_games: u32,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        BuildOptions {
            max_ply: 24,
            min_games: 8,
        }
    }
}

/// Why a game was not used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// Its record could not be read (bad tag, malformed line).
    Unreadable,
    /// Its start position is not a legal position.
    BadSetup,
    /// A move could not be read or resolved.
    UnreadableMove,
    /// A move is not legal.
    IllegalMove,
    /// The result is unknown.
    UnknownResult,
    /// It has no moves.
    NoMoves,
    /// A near-duplicate of a game already counted.
    Duplicate,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::Unreadable => "unreadable record",
            SkipReason::BadSetup => "bad start position",
            SkipReason::UnreadableMove => "unreadable move",
            SkipReason::IllegalMove => "illegal move",
            SkipReason::UnknownResult => "unknown result",
            SkipReason::NoMoves => "no moves",
            SkipReason::Duplicate => "near-duplicate",
        })
    }
}

/// What a build read, skipped and kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BuildSummary {
    /// Games offered to the builder.
    pub games_read: u64,
    /// Games counted.
    pub games_used: u64,
    /// Games skipped, by reason.
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Distinct (position, move) pairs seen.
    pub pairs_seen: usize,
    /// Pairs dropped as played too rarely.
    pub dropped_rare: usize,
    /// Pairs dropped as losing.
    pub dropped_losing: usize,
    /// Records dropped because their position cannot be reached from a
    /// start position through book positions.
    pub dropped_unreachable: usize,
    /// Positions in the book.
    pub positions: usize,
    /// Records (position, move) in the book.
    pub moves: usize,
}

impl fmt::Display for BuildSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "games read:     {}", self.games_read)?;
        writeln!(f, "games used:     {}", self.games_used)?;
        let skipped: u64 = self.skipped.values().sum();
        writeln!(f, "games skipped:  {skipped}")?;
        for (reason, n) in &self.skipped {
            writeln!(f, "  {reason}: {n}")?;
        }
        writeln!(
            f,
            "pairs seen:     {} (dropped {} rare, {} losing, {} unreachable)",
            self.pairs_seen, self.dropped_rare, self.dropped_losing, self.dropped_unreachable
        )?;
        writeln!(f, "book positions: {}", self.positions)?;
        write!(f, "book moves:     {}", self.moves)
    }
}

/// Accumulates games into book statistics.
#[derive(Debug, Default)]
pub struct BookBuilder {
    options: BuildOptions,
    stats: HashMap<(u64, Move), Wdl>,
    seen_games: HashSet<u64>,
    starts: HashMap<u64, Position>,
    summary: BuildSummary,
}

impl BookBuilder {
    /// An empty builder.
    pub fn new(options: BuildOptions) -> BookBuilder {
        BookBuilder {
            options,
            ..BookBuilder::default()
        }
    }

    /// Counts a game that could not even be replayed.
    pub fn skip(&mut self, reason: SkipReason) {
        self.summary.games_read += 1;
        *self.summary.skipped.entry(reason).or_default() += 1;
    }

    /// Replays `moves` from `start` and counts the game.
    ///
    /// # Errors
    /// The reason the game was skipped (it is counted in the summary too).
    pub fn add_game(
        &mut self,
        start: &Position,
        moves: &[Move],
        result: Option<GameResult>,
    ) -> Result<(), SkipReason> {
        let outcome = self.try_add(start, moves, result);
        if let Err(reason) = outcome {
            self.skip(reason);
        }
        outcome
    }

    fn try_add(
        &mut self,
        start: &Position,
        moves: &[Move],
        result: Option<GameResult>,
    ) -> Result<(), SkipReason> {
        let winner = result.ok_or(SkipReason::UnknownResult)?.winner();
        if moves.is_empty() {
            return Err(SkipReason::NoMoves);
        }
        // Replay the whole game first: only a fully legal game is used.
        let mut pos = start.clone();
        let mut pairs = Vec::with_capacity(self.options.max_ply.min(moves.len()));
        for (ply, &mv) in moves.iter().enumerate() {
            if !pos.is_legal(mv) {
                return Err(SkipReason::IllegalMove);
            }
            if ply < self.options.max_ply {
                let (key, mirrored) = canonical_key(&pos);
                pairs.push((
                    key,
                    if mirrored { mv.mirror() } else { mv },
                    pos.side_to_move(),
                ));
            }
            pos.make_move(mv);
        }
        let mut hasher = DefaultHasher::new();
        start.key().hash(&mut hasher);
        moves
            .iter()
            .take(DUPLICATE_PLIES)
            .for_each(|m| m.to_u16().hash(&mut hasher));
        if !self.seen_games.insert(hasher.finish()) {
            return Err(SkipReason::Duplicate);
        }
        let mut counted = HashSet::with_capacity(pairs.len());
        for (key, mv, mover) in pairs {
            if !counted.insert((key, mv)) {
                continue;
            }
            let wdl = self.stats.entry((key, mv)).or_default();
            match winner {
                None => wdl.draws += 1,
                Some(w) if w == mover => wdl.wins += 1,
                Some(_) => wdl.losses += 1,
            }
        }
        self.starts
            .entry(start.key())
            .or_insert_with(|| start.clone());
        self.summary.games_read += 1;
        self.summary.games_used += 1;
        Ok(())
    }

    /// The book of the moves kept so far, and the summary.
    ///
    /// # Panics
    /// Never: the statistics hold each (key, move) pair once.
    pub fn finish(&self) -> (Book, BuildSummary) {
        let mut summary = self.summary.clone();
        summary.pairs_seen = self.stats.len();
        let mut entries = Vec::new();
        for (&(key, mv), &wdl) in &self.stats {
            if wdl.games() < u64::from(self.options.min_games) {
                summary.dropped_rare += 1;
            } else if u64::from(wdl.losses) > u64::from(wdl.wins) + u64::from(wdl.draws) {
                summary.dropped_losing += 1;
            } else {
                let weight =
                    (2 * u64::from(wdl.wins) + u64::from(wdl.draws)).min(u64::from(u16::MAX));
                entries.push(Entry {
                    key,
                    mv,
                    weight: u16::try_from(weight).unwrap_or(u16::MAX),
                    wdl,
                });
            }
        }
        let book = Book::from_entries(entries).expect("statistics hold each pair once");
        let roots: Vec<Position> = self.starts.values().cloned().collect();
        let reachable = reachable_fens(&book, &roots);
        let before = book.len();
        let kept: Vec<Entry> = book
            .entries()
            .iter()
            .copied()
            .filter(|e| reachable.contains_key(&e.key))
            .collect();
        summary.dropped_unreachable = before - kept.len();
        let book = Book::from_entries(kept).expect("a subset of a valid book is valid");
        summary.positions = book.positions();
        summary.moves = book.len();
        (book, summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(text: &str) -> Vec<Move> {
        text.split_whitespace()
            .map(|m| m.parse().unwrap())
            .collect()
    }

    #[test]
    fn counts_mirror_merged_results_and_filters() {
        let start = Position::startpos();
        let mut b = BookBuilder::new(BuildOptions {
            max_ply: 2,
            min_games: 2,
        });
        assert_eq!(
            b.add_game(&start, &moves("h2e2 h9g7 h0g2"), Some(GameResult::RedWins)),
            Ok(())
        );
        // The mirror image of the first game: same canonical pairs after ply 1.
        assert_eq!(
            b.add_game(&start, &moves("b2e2 b9c7"), Some(GameResult::Draw)),
            Ok(())
        );
        assert_eq!(
            b.add_game(&start, &moves("h2e2 h9g7"), Some(GameResult::BlackWins)),
            Ok(())
        );
        assert_eq!(
            b.add_game(&start, &moves("c3c4"), Some(GameResult::RedWins)),
            Ok(())
        );
        assert_eq!(
            b.add_game(&start, &moves("h2e2 h9g7"), Some(GameResult::BlackWins)),
            Err(SkipReason::Duplicate)
        );
        assert_eq!(
            b.add_game(&start, &moves("h2e2 h2e2"), Some(GameResult::Draw)),
            Err(SkipReason::IllegalMove)
        );
        assert_eq!(
            b.add_game(&start, &moves("h2e2"), None),
            Err(SkipReason::UnknownResult)
        );
        let (book, summary) = b.finish();
        assert_eq!(summary.games_read, 7);
        assert_eq!(summary.games_used, 4);
        assert_eq!(summary.skipped.values().sum::<u64>(), 3);
        // h2e2: 2 games (W, L) -> kept, weight 2; b2e2: 1 game -> rare;
        // c3c4: 1 game -> rare; h9g7 after h2e2 (and its mirror b9c7 after
        // b2e2): 3 games for Black (L, D, W) -> weight 3.
        assert_eq!(summary.pairs_seen, 4);
        assert_eq!(summary.dropped_rare, 2);
        assert_eq!(book.len(), 2);
        let mut pos = Position::startpos();
        let got = book.probe(&pos);
        assert_eq!(got.len(), 1);
        assert_eq!(
            (got[0].mv.to_string(), got[0].weight),
            ("h2e2".to_string(), 2)
        );
        assert_eq!(
            got[0].wdl,
            Some(Wdl {
                wins: 1,
                draws: 0,
                losses: 1
            })
        );
        pos.play("b2e2".parse().unwrap()).unwrap();
        let got = book.probe(&pos);
        assert_eq!(
            (got[0].mv.to_string(), got[0].weight),
            ("b9c7".to_string(), 3)
        );
        assert_eq!(
            got[0].wdl,
            Some(Wdl {
                wins: 1,
                draws: 1,
                losses: 1
            })
        );
    }
}
