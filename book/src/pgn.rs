//! Reading game records: PGN as xqbase specifies it (`docs/rules.md` §8)
//! with Chinese, WXF or ICCS moves, and the tab-separated ICCS game lists of
//! the CCPD data. This module splits text into games and replays them with
//! full legality checks; reading one Chinese or WXF move is
//! [`crate::notation`]'s job. [`read_text`] loads a record file, `.xz`
//! compressed or not, for every tool that reads one.

use std::fmt;
use std::io::{self, Read};
use std::path::Path;

use board::{GameResult, Move, Position};

use crate::error::BookError;
use crate::notation::{self, NotationError};

/// The text of a game-record file, decompressed in-process when its name
/// ends in `.xz` (the CCPD collections ship so), so that no external `xz`
/// program is needed.
///
/// # Errors
/// [`BookError::Io`] when the file cannot be read, is not valid xz data, or
/// is not UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, BookError> {
    let io_error = |source| BookError::Io {
        path: path.to_path_buf(),
        source,
    };
    let raw = std::fs::read(path).map_err(io_error)?;
    let bytes = if path.extension().is_some_and(|e| e == "xz") {
        let mut text = Vec::new();
        liblzma::read::XzDecoder::new_multi_decoder(raw.as_slice())
            .read_to_end(&mut text)
            .map_err(|e| {
                io_error(io::Error::new(
                    e.kind(),
                    format!("not readable as xz data: {e}"),
                ))
            })?;
        text
    } else {
        raw
    };
    String::from_utf8(bytes)
        .map_err(|_| io_error(io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text")))
}

/// Reads a result token of a record (a `Result` tag, the end of a
/// movetext, a game list's column): `Some(Some(r))` for `1-0`, `0-1` and
/// `1/2-1/2` (also `½-½`), `Some(None)` for `*` (the result is not
/// known), `None` for text that is no result token.
pub fn parse_result(text: &str) -> Option<Option<GameResult>> {
    if text == "*" {
        Some(None)
    } else {
        GameResult::from_pgn(text).map(Some)
    }
}

/// One game of a PGN file, not yet replayed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// The tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The move tokens of the main line (numbers, comments, variations,
    /// annotations and the result removed).
    pub moves: Vec<String>,
    /// The result at the end of the movetext (`None`: none given, or `*`).
    pub movetext_result: Option<GameResult>,
    /// The 1-based line where the game starts.
    pub line: usize,
}

/// Why a game could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    /// The `FEN` tag is not a legal position.
    BadFen(String),
    /// A move could not be read or is not legal.
    BadMove {
        /// The 0-based ply of the move.
        ply: usize,
        /// The move as written.
        text: String,
        /// Why.
        error: NotationError,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::BadFen(e) => write!(f, "bad FEN tag: {e}"),
            ReplayError::BadMove { ply, text, error } => {
                write!(f, "ply {}: '{text}': {error}", ply + 1)
            }
        }
    }
}

impl std::error::Error for ReplayError {}

/// The move notation a game's `Format` tag announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Chinese characters (the default); WXF and ICCS tokens are accepted too.
    Chinese,
    /// WXF letters; Chinese and ICCS tokens are accepted too.
    Wxf,
    /// ICCS coordinates only.
    Iccs,
}

impl PgnGame {
    /// The value of tag `name` (case-insensitive), if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The result: the `Result` tag's when it holds a result token (`*`
    /// included), else the movetext's; `None` when it is not known.
    pub fn result(&self) -> Option<GameResult> {
        match self.tag("Result").and_then(|r| parse_result(r.trim())) {
            Some(tagged) => tagged,
            None => self.movetext_result,
        }
    }

    /// The notation of the moves, from the `Format` tag.
    pub fn format(&self) -> Format {
        match self
            .tag("Format")
            .map(|f| f.trim().to_ascii_uppercase())
            .as_deref()
        {
            Some("ICCS") => Format::Iccs,
            Some("WXF") => Format::Wxf,
            _ => Format::Chinese,
        }
    }

    /// The start position: the `FEN` tag (side `r` accepted for Red), else
    /// the standard start.
    ///
    /// # Errors
    /// [`ReplayError::BadFen`] for a FEN that is not a legal position.
    pub fn start(&self) -> Result<Position, ReplayError> {
        match self.tag("FEN").map(str::trim).filter(|f| !f.is_empty()) {
            None => Ok(Position::startpos()),
            Some(fen) => {
                let mut fields: Vec<&str> = fen.split_whitespace().collect();
                if fields.get(1) == Some(&"r") {
                    fields[1] = "w";
                }
                Position::from_fen(&fields.join(" "))
                    .map_err(|e| ReplayError::BadFen(e.to_string()))
            }
        }
    }

    /// Replays the game from its start position, checking every move.
    /// Returns the start position and the moves.
    ///
    /// # Errors
    /// The first bad FEN or unreadable or illegal move.
    pub fn replay(&self) -> Result<(Position, Vec<Move>), ReplayError> {
        let start = self.start()?;
        let mut pos = start.clone();
        let format = self.format();
        let mut moves = Vec::with_capacity(self.moves.len());
        for (ply, text) in self.moves.iter().enumerate() {
            let parsed = match format {
                Format::Iccs => notation::parse_iccs(&pos, text),
                Format::Chinese | Format::Wxf => notation::parse_any(&pos, text),
            };
            let mv = parsed.map_err(|error| ReplayError::BadMove {
                ply,
                text: text.clone(),
                error,
            })?;
            pos.make_move(mv);
            moves.push(mv);
        }
        Ok((start, moves))
    }
}

/// Splits PGN text into games. A game begins at a tag line that follows
/// movetext (or at the first tag line); text that is neither tags nor
/// movetext of a game with tags still forms a game if it holds moves.
pub fn parse_games(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame {
        line: 1,
        ..PgnGame::default()
    };
    let mut movetext = String::new();
    let mut in_moves = false;
    for (n, line) in text.lines().enumerate() {
        let trimmed = line.trim().trim_start_matches('\u{feff}');
        if trimmed.starts_with('[') && trimmed.ends_with(']') && trimmed.contains('"') {
            if in_moves {
                finish_game(&mut games, std::mem::take(&mut game), &movetext);
                movetext.clear();
                in_moves = false;
            }
            if game.tags.is_empty() {
                game.line = n + 1;
            }
            if let Some(tag) = parse_tag(trimmed) {
                game.tags.push(tag);
            }
        } else if !trimmed.is_empty() {
            if !in_moves && game.tags.is_empty() {
                game.line = n + 1;
            }
            in_moves = true;
            movetext.push_str(trimmed);
            movetext.push('\n');
        }
    }
    finish_game(&mut games, game, &movetext);
    games
}

fn finish_game(games: &mut Vec<PgnGame>, mut game: PgnGame, movetext: &str) {
    let (moves, result) = parse_movetext(movetext);
    game.moves = moves;
    game.movetext_result = result;
    if !game.tags.is_empty() || !game.moves.is_empty() {
        games.push(game);
    }
}

/// `[Name "value"]`: the value runs from the first `"` to the `"` before the
/// closing bracket, since some values hold bare quotes.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?;
    let open = inner.find('"')?;
    let close = inner.rfind('"')?;
    let name = inner[..open].trim();
    if name.is_empty() || close <= open {
        return None;
    }
    Some((name.to_string(), inner[open + 1..close].to_string()))
}

/// The main-line move tokens and the result of a movetext.
fn parse_movetext(text: &str) -> (Vec<String>, Option<GameResult>) {
    let mut moves = Vec::new();
    let mut result = None;
    let mut depth = 0usize; // nesting of (variations)
    let mut chars = text.chars().peekable();
    let mut token = String::new();
    let flush = |token: &mut String, moves: &mut Vec<String>, result: &mut Option<GameResult>| {
        let t = std::mem::take(token);
        if let Some(r) = parse_result(&t) {
            *result = r;
            return;
        }
        let t = strip_move_number(&t);
        let t = t.trim_end_matches(['!', '?']);
        if !t.is_empty() && !t.starts_with('$') {
            moves.push(t.to_string());
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                flush(&mut token, &mut moves, &mut result);
                for c in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            ';' => {
                flush(&mut token, &mut moves, &mut result);
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut token, &mut moves, &mut result);
                depth += 1;
            }
            ')' => {
                token.clear();
                depth = depth.saturating_sub(1);
            }
            c if c.is_whitespace() || c == '\u{3000}' => {
                if depth == 0 {
                    flush(&mut token, &mut moves, &mut result);
                } else {
                    token.clear();
                }
            }
            c => {
                if depth == 0 {
                    token.push(c);
                }
            }
        }
    }
    flush(&mut token, &mut moves, &mut result);
    (moves, result)
}

/// `12.`, `12...` and `12.炮二平五` lose their move number.
fn strip_move_number(token: &str) -> &str {
    let digits = token.len() - token.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && token[digits..].starts_with('.') {
        token[digits..].trim_start_matches('.')
    } else {
        token
    }
}

/// One line of a tab-separated ICCS game list (`game`, `result`, `plies`,
/// `moves`), as the CCPD's `ccpd-games.iccs.tsv` has it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TsvGame {
    /// The game's number (first column).
    pub number: u64,
    /// Its result (`None`: `*`, not known).
    pub result: Option<GameResult>,
    /// Its ICCS moves.
    pub moves: Vec<String>,
}

impl TsvGame {
    /// Reads one game line of an ICCS game list: four tab-separated
    /// columns, a known result token, and as many moves as the `plies`
    /// column says. `None` for a malformed line (the header and blank lines
    /// included: see [`is_tsv_filler`]).
    pub fn parse(line: &str) -> Option<TsvGame> {
        let mut cols = line.split('\t');
        let number = cols.next()?.trim().parse().ok()?;
        let result = parse_result(cols.next()?.trim())?;
        let plies: usize = cols.next()?.trim().parse().ok()?;
        let moves: Vec<String> = cols
            .next()
            .unwrap_or("")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        (moves.len() == plies).then_some(TsvGame {
            number,
            result,
            moves,
        })
    }
}

/// Whether a line of an ICCS game list holds no game: a blank line or the
/// header (`game<TAB>result<TAB>plies<TAB>moves`).
pub fn is_tsv_filler(line: &str) -> bool {
    line.trim().is_empty() || line.starts_with("game\t")
}

/// Reads the lines of an ICCS game list; the header line is skipped and
/// every other line yields a game or the 1-based number of a malformed line.
pub fn parse_tsv(text: &str) -> impl Iterator<Item = Result<TsvGame, usize>> + '_ {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !is_tsv_filler(l))
        .map(|(n, line)| TsvGame::parse(line).ok_or(n + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movetext_skips_comments_variations_and_numbers() {
        let (moves, result) = parse_movetext(
            "1. 炮二平五 {central cannon} 马８进７ (1... 炮８平５ (1... 卒７进１) 2. 马二进三) \
             2.马二进三 $1 车９平８! ; line comment 3. xx\n3... 车一平二 1-0",
        );
        assert_eq!(
            moves,
            ["炮二平五", "马８进７", "马二进三", "车９平８", "车一平二"]
        );
        assert_eq!(result, Some(GameResult::RedWins));
    }

    #[test]
    fn tags_keep_bare_quotes_and_games_split() {
        let text = "[Game \"Chinese Chess\"]\n[Event \"1999年\"中視\"杯\"]\n[Result \"0-1\"]\n\n1. 炮二平五 馬８進７\n0-1\n\n\
                    [Game \"Chinese Chess\"]\n[Format \"ICCS\"]\n\n1. H2-E2 h9g7 *\n";
        let games = parse_games(text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tag("event"), Some("1999年\"中視\"杯"));
        assert_eq!(games[0].result(), Some(GameResult::BlackWins));
        assert_eq!(games[0].line, 1);
        assert_eq!(games[1].line, 8);
        assert_eq!(games[1].format(), Format::Iccs);
        assert_eq!(games[1].result(), None);
        let (_, moves) = games[1].replay().unwrap();
        assert_eq!(
            moves.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["h2e2", "h9g7"]
        );
        let (_, moves) = games[0].replay().unwrap();
        assert_eq!(
            moves.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["h2e2", "h9g7"]
        );
    }

    #[test]
    fn tsv_lines_are_checked() {
        let text = "game\tresult\tplies\tmoves\n1\t1-0\t2\th2e2 h9g7\n2\t*\t3\th2e2\nx\n";
        let games: Vec<_> = parse_tsv(text).collect();
        assert_eq!(games.len(), 3);
        assert_eq!(games[0].as_ref().unwrap().moves, ["h2e2", "h9g7"]);
        assert_eq!(games[1], Err(3));
        assert_eq!(games[2], Err(4));
        assert!(is_tsv_filler("game\tresult\tplies\tmoves"));
        assert!(is_tsv_filler("  "));
        assert_eq!(TsvGame::parse("7\t1/2-1/2\t0\t").map(|g| g.number), Some(7));
        assert_eq!(TsvGame::parse("7\t1-0\t1"), None);
    }
}
