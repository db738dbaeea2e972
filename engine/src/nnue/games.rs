//! Training data as whole games: the start position, each ply's move and
//! search score, and the result. `chariot datagen` writes it, the trainer
//! reads it, and the filters that decide which positions teach the
//! network are applied when it is read ([`Selector`]), so a filter can
//! change without generating anything again. `docs/nnue.md` §3 is the
//! specification.
//!
//! File (little-endian): a 16-byte header — magic `CHGAMES\n`, format
//! version `u32`, a reserved `u32` (0) — then games, nothing else. Files
//! can be concatenated after stripping the header of all but the first.
//!
//! Game:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | length `n` of the start position's FEN (1–255) |
//! | `n` | the FEN, ASCII (placement, side to move, counters) |
//! | 1 | result, Red's view: 0 Black wins, 1 draw, 2 Red wins |
//! | 2 | plies `p`, `u16` |
//! | `4p` | per ply: the move (`u16`, [`Move::to_u16`]) and the search score of the position before it (`i16`, centipawns or the search's mate scale, side to move's view; `i16::MIN`: not searched, e.g. a random opening ply) |
//!
//! A reader replays every game and refuses one whose FEN or moves are not
//! legal, so a damaged file is found, not trained on.

use std::collections::HashSet;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::path::Path;

use board::{GameResult, Move, Position};

use crate::eval::SEE_VALUES;
use crate::score::MATE_BOUND;

/// The file's first 8 bytes.
pub const GAMES_MAGIC: [u8; 8] = *b"CHGAMES\n";
/// The format version this build reads and writes.
pub const GAMES_VERSION: u32 = 1;
/// Bytes of the file header.
pub const GAMES_HEADER_BYTES: usize = 16;
/// The score of a ply that was not searched.
const UNSCORED: i16 = i16::MIN;

/// A game's result as its byte in the file: Red's view, 0 Black wins,
/// 1 draw, 2 Red wins.
fn result_byte(result: GameResult) -> u8 {
    match result {
        GameResult::BlackWins => 0,
        GameResult::Draw => 1,
        GameResult::RedWins => 2,
    }
}

/// The result a byte of the file stands for ([`result_byte`]'s inverse).
fn result_from_byte(b: u8) -> Option<GameResult> {
    match b {
        0 => Some(GameResult::BlackWins),
        1 => Some(GameResult::Draw),
        2 => Some(GameResult::RedWins),
        _ => None,
    }
}

/// One ply of a game: the move played and the search's score of the
/// position it was played from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// The move played.
    pub mv: Move,
    /// The search score, side to move's view (`None`: not searched).
    pub score: Option<i16>,
}

/// A game as the data file holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The start position's FEN.
    pub start: String,
    /// The plies, in order.
    pub plies: Vec<Ply>,
    /// The result.
    pub result: GameResult,
}

impl GameRecord {
    /// Replays the game, calling `f` with each position before its ply
    /// (the position carries the game's history from the start).
    ///
    /// # Errors
    /// The start FEN does not parse, or ply `i` is not legal.
    pub fn replay(&self, mut f: impl FnMut(&Position, &Ply)) -> Result<(), String> {
        let mut pos = Position::from_fen(&self.start).map_err(|e| format!("start: {e}"))?;
        for (i, ply) in self.plies.iter().enumerate() {
            if !pos.is_legal(ply.mv) {
                return Err(format!("ply {}: illegal move {}", i + 1, ply.mv));
            }
            f(&pos, ply);
            pos.make_move(ply.mv);
        }
        Ok(())
    }

    /// Scored plies (positions a search labelled).
    pub fn scored(&self) -> usize {
        self.plies.iter().filter(|p| p.score.is_some()).count()
    }
}

/// Why a games file or a game in it was refused.
#[derive(Debug)]
pub enum GamesError {
    /// Reading or writing failed.
    Io(io::Error),
    /// Not a Chariot games file.
    BadMagic,
    /// A format version this build does not read.
    WrongVersion(u32),
    /// The file ends inside a game.
    Truncated,
    /// A game whose content is impossible (game number from 0, what).
    BadGame(u64, String),
}

impl fmt::Display for GamesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GamesError::Io(e) => write!(f, "games file: {e}"),
            GamesError::BadMagic => f.write_str("not a Chariot games file (bad magic)"),
            GamesError::WrongVersion(v) => write!(
                f,
                "games format version {v}; this build reads version {GAMES_VERSION}"
            ),
            GamesError::Truncated => f.write_str("games file ends inside a game"),
            GamesError::BadGame(n, what) => write!(f, "game {n}: {what}"),
        }
    }
}

impl std::error::Error for GamesError {}

impl From<io::Error> for GamesError {
    fn from(e: io::Error) -> GamesError {
        GamesError::Io(e)
    }
}

/// Writes games to a file.
pub struct GameWriter<W: Write> {
    out: W,
}

impl<W: Write> GameWriter<W> {
    /// A writer that has written the header.
    ///
    /// # Errors
    /// Writing the header failed.
    pub fn new(mut out: W) -> io::Result<GameWriter<W>> {
        out.write_all(&GAMES_MAGIC)?;
        out.write_all(&GAMES_VERSION.to_le_bytes())?;
        out.write_all(&0u32.to_le_bytes())?;
        Ok(GameWriter { out })
    }

    /// Appends one game.
    ///
    /// # Errors
    /// Writing failed, or the game cannot be stored: a FEN of more than
    /// 255 bytes, more than 65,535 plies, or a score of `i16::MIN`.
    pub fn write(&mut self, game: &GameRecord) -> io::Result<()> {
        let invalid = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
        let fen = u8::try_from(game.start.len())
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| invalid("a FEN of 1 to 255 bytes"))?;
        let plies = u16::try_from(game.plies.len()).map_err(|_| invalid("at most 65535 plies"))?;
        let mut buf = Vec::with_capacity(4 + game.start.len() + 4 * game.plies.len());
        buf.push(fen);
        buf.extend_from_slice(game.start.as_bytes());
        buf.push(result_byte(game.result));
        buf.extend_from_slice(&plies.to_le_bytes());
        for p in &game.plies {
            let score = match p.score {
                Some(UNSCORED) => return Err(invalid("a score of i16::MIN")),
                Some(s) => s,
                None => UNSCORED,
            };
            buf.extend_from_slice(&p.mv.to_u16().to_le_bytes());
            buf.extend_from_slice(&score.to_le_bytes());
        }
        self.out.write_all(&buf)
    }

    /// Flushes and returns the output.
    ///
    /// # Errors
    /// Flushing failed.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Reads games from a file, checking each by replaying it.
pub struct GameReader<R: Read> {
    input: R,
    /// Games read so far (the next game's number).
    games: u64,
}

impl<R: Read> GameReader<R> {
    /// A reader positioned after a valid header.
    ///
    /// # Errors
    /// The header is missing, not a games file, or another version.
    pub fn new(mut input: R) -> Result<GameReader<R>, GamesError> {
        let mut header = [0u8; GAMES_HEADER_BYTES];
        read_exact_or(&mut input, &mut header, GamesError::BadMagic)?;
        if header[..8] != GAMES_MAGIC {
            return Err(GamesError::BadMagic);
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if version != GAMES_VERSION {
            return Err(GamesError::WrongVersion(version));
        }
        Ok(GameReader { input, games: 0 })
    }

    /// The next game, or `None` at the end of the file.
    ///
    /// # Errors
    /// A read error, a file that ends inside a game, or a game that does
    /// not replay (bad FEN, result byte or move).
    pub fn next_game(&mut self) -> Result<Option<GameRecord>, GamesError> {
        let mut len = [0u8; 1];
        match self.input.read(&mut len) {
            Ok(0) => return Ok(None),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return self.next_game(),
            Err(e) => return Err(GamesError::Io(e)),
        }
        let n = self.games;
        self.games += 1;
        let bad = |what: String| GamesError::BadGame(n, what);
        let mut fen = vec![0u8; usize::from(len[0])];
        read_exact_or(&mut self.input, &mut fen, GamesError::Truncated)?;
        let start = String::from_utf8(fen).map_err(|_| bad("a FEN that is not ASCII".into()))?;
        let mut head = [0u8; 3];
        read_exact_or(&mut self.input, &mut head, GamesError::Truncated)?;
        let result =
            result_from_byte(head[0]).ok_or_else(|| bad(format!("result byte {}", head[0])))?;
        let count = usize::from(u16::from_le_bytes([head[1], head[2]]));
        let mut raw = vec![0u8; 4 * count];
        read_exact_or(&mut self.input, &mut raw, GamesError::Truncated)?;
        let mut plies = Vec::with_capacity(count);
        for (i, c) in raw.chunks_exact(4).enumerate() {
            let mv = Move::from_u16(u16::from_le_bytes([c[0], c[1]]))
                .ok_or_else(|| bad(format!("ply {}: no move", i + 1)))?;
            let score = i16::from_le_bytes([c[2], c[3]]);
            plies.push(Ply {
                mv,
                score: (score != UNSCORED).then_some(score),
            });
        }
        let game = GameRecord {
            start,
            plies,
            result,
        };
        game.replay(|_, _| {}).map_err(bad)?;
        Ok(Some(game))
    }
}

impl<R: Read> Iterator for GameReader<R> {
    type Item = Result<GameRecord, GamesError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_game().transpose()
    }
}

/// Opens a games file for reading: plain, or xz-compressed when its name
/// ends in `.xz` (decompressed in-process).
///
/// # Errors
/// The file cannot be opened, or its header is not a games header.
pub fn open(path: &Path) -> Result<GameReader<Box<dyn Read + Send>>, GamesError> {
    let file = BufReader::new(File::open(path)?);
    let input: Box<dyn Read + Send> = if path.extension().is_some_and(|e| e == "xz") {
        Box::new(liblzma::read::XzDecoder::new(file))
    } else {
        Box::new(file)
    };
    GameReader::new(input)
}

/// `read_exact`, with a short read reported as `short`.
fn read_exact_or(
    input: &mut impl Read,
    buf: &mut [u8],
    short: GamesError,
) -> Result<(), GamesError> {
    input.read_exact(buf).map_err(|e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            short
        } else {
            GamesError::Io(e)
        }
    })
}

/// Why a scored position is not trained on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dropped {
    /// The ply was not searched (a random opening ply).
    Unscored,
    /// The side to move is in check: the score is about the escape.
    InCheck,
    /// The move played (the search's best move, in self-play) captures:
    /// the score is about the exchange.
    CaptureBest,
    /// A mate or rule-verdict score, which no evaluation should imitate.
    Decided,
    /// The side to move has a capture that wins material by the exchange
    /// evaluation: the position is not quiet.
    Noisy,
    /// The same position (by key) was kept before.
    Duplicate,
}

/// Which filters apply; [`Filters::default`] is every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct Filters {
    /// Drop positions in check.
    pub in_check: bool,
    /// Drop positions whose move played captures.
    pub capture_best: bool,
    /// Drop mate and rule-verdict scores.
    pub decided: bool,
    /// Drop positions with a winning capture.
    pub noisy: bool,
    /// Drop positions kept before.
    pub duplicates: bool,
}

impl Default for Filters {
    fn default() -> Filters {
        Filters {
            in_check: true,
            capture_best: true,
            decided: true,
            noisy: true,
            duplicates: true,
        }
    }
}

/// Applies [`Filters`] to the positions of a data set, remembering the
/// positions kept (for the duplicate filter) and counting what it drops.
#[derive(Debug, Default)]
pub struct Selector {
    filters: Filters,
    seen: HashSet<u64>,
    /// Positions kept.
    pub kept: u64,
    /// Positions dropped, by reason, in [`Dropped`]'s order.
    pub dropped: [u64; 6],
}

impl Selector {
    /// A selector applying `filters`.
    pub fn new(filters: Filters) -> Selector {
        Selector {
            filters,
            ..Selector::default()
        }
    }

    /// Whether the position `pos`, from which `ply` was played, is trained
    /// on (`Ok` with its score), and why not.
    ///
    /// # Errors
    /// The reason the position is dropped.
    pub fn judge(&mut self, pos: &Position, ply: &Ply) -> Result<i16, Dropped> {
        let verdict = self.verdict(pos, ply);
        match verdict {
            Ok(_) => self.kept += 1,
            Err(d) => self.dropped[d as usize] += 1,
        }
        verdict
    }

    fn verdict(&mut self, pos: &Position, ply: &Ply) -> Result<i16, Dropped> {
        let f = self.filters;
        let score = ply.score.ok_or(Dropped::Unscored)?;
        if f.decided && i32::from(score).abs() >= MATE_BOUND {
            return Err(Dropped::Decided);
        }
        if f.in_check && pos.in_check() {
            return Err(Dropped::InCheck);
        }
        if f.capture_best && pos.is_capture(ply.mv) {
            return Err(Dropped::CaptureBest);
        }
        if f.noisy
            && pos
                .legal_captures()
                .iter()
                .any(|&m| pos.see_ge(m, 1, &SEE_VALUES))
        {
            return Err(Dropped::Noisy);
        }
        if f.duplicates && !self.seen.insert(pos.key()) {
            return Err(Dropped::Duplicate);
        }
        Ok(score)
    }

    /// Positions dropped for `reason`.
    pub fn count(&self, reason: Dropped) -> u64 {
        self.dropped[reason as usize]
    }
}

#[cfg(test)]
mod tests;
