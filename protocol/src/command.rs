//! Turning one input line into a [`Command`].
//!
//! This module owns the grammar of `docs/ucci.md` §2 and §4: keywords are
//! whole tokens matched case-insensitively, any run of ASCII whitespace
//! (blanks, tabs, CR) separates tokens, and numbers are read without ever
//! overflowing. It checks syntax only: whether a FEN is valid, a move legal
//! or an option known is decided by the session, which has the state to
//! judge it. Nothing here can panic on any input.

use std::fmt;
use std::str::FromStr;

/// Largest clock or move-time value accepted, in milliseconds (about 24
/// days). Larger values are clamped so that no deadline computed from them
/// can overflow an `Instant`.
pub const MAX_TIME_MS: u64 = 2_147_483_647;

/// Deepest iteration a `go depth` may ask for: the engine's own bound, so
/// that a larger value is clamped here, with a warning, to what the engine
/// would search.
pub use engine::MAX_DEPTH;

/// Deepest `go perft` accepted; a deeper one is refused with a diagnostic.
pub const MAX_PERFT_DEPTH: u32 = 64;

/// One parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// A line with nothing but whitespace: ignored.
    Empty,
    /// `ucci`: handshake, selects the UCCI dialect.
    Ucci,
    /// `uci`: handshake, selects the UCI dialect.
    Uci,
    /// `isready`.
    IsReady,
    /// `setoption`, in either shape.
    SetOption(SetOption),
    /// `position …` (or a line starting with `fen`/`startpos`).
    Position(PositionSpec),
    /// `banmoves <m>…`, the moves as written.
    BanMoves(Vec<String>),
    /// `go …` (a search; `go perft` is [`Command::Perft`]).
    Go(Box<GoCommand>),
    /// `go perft <n>`.
    Perft(u32),
    /// `ponderhit [draw]`.
    PonderHit {
        /// The opponent offers a draw along with the ponder hit.
        draw: bool,
    },
    /// `stop`.
    Stop,
    /// `ucinewgame`.
    NewGame,
    /// `debug [on|off]`.
    Debug(bool),
    /// `probe …`; `None` when the position part could not be read (the
    /// answer is then a bare `pophash`).
    Probe(Option<PositionSpec>),
    /// `quit`.
    Quit,
    /// `d`: print the board.
    Display,
    /// `eval`: print the static evaluation breakdown.
    Eval,
    /// `bench`.
    Bench,
}

/// A line that could not be read as a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The first token is no command we know (the token, as written).
    Unknown(String),
    /// A `position` (or `fen`/`startpos`) line that is malformed: like an
    /// invalid position, it leaves the session without a valid position.
    BadPosition(String),
    /// Any other malformed command; it is ignored.
    Malformed(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Unknown(cmd) => write!(f, "unknown command: {cmd}"),
            ParseError::BadPosition(why) => write!(f, "position rejected: {why}"),
            ParseError::Malformed(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for ParseError {}

/// `setoption`, with the name and value as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetOption {
    /// The option name (several words in the UCI shape, one in the UCCI shape).
    pub name: String,
    /// The value: the rest of the line, trimmed; `None` when absent or empty.
    pub value: Option<String>,
}

/// Where a `position` or `probe` line starts from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Base {
    /// `startpos`.
    StartPos,
    /// `fen <fields>`: the fields joined by single blanks.
    Fen(String),
}

/// A position as a base and the moves to play from it, all unchecked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionSpec {
    /// The starting point.
    pub base: Base,
    /// The moves after `moves`, as written.
    pub moves: Vec<String>,
}

/// `depth` of `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Depth {
    /// `depth <d>`.
    Plies(u32),
    /// `depth infinite`.
    Infinite,
}

/// Everything a `go` line said, in raw units; the session converts the
/// UCCI clock values (which depend on `usemillisec`) and picks the side to
/// move's clock.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoCommand {
    /// `depth`.
    pub depth: Option<Depth>,
    /// `nodes`.
    pub nodes: Option<u64>,
    /// `movetime`, ms.
    pub movetime: Option<u64>,
    /// `mate`, in moves.
    pub mate: Option<u32>,
    /// `infinite`.
    pub infinite: bool,
    /// UCCI `time`: the side to move's clock, in `usemillisec` units.
    pub time: Option<u64>,
    /// UCCI `increment`, in `usemillisec` units.
    pub increment: Option<u64>,
    /// UCCI `opptime` (informational).
    pub opptime: Option<u64>,
    /// UCCI `oppincrement` (informational).
    pub oppincrement: Option<u64>,
    /// UCCI `oppmovestogo` (informational).
    pub oppmovestogo: Option<u32>,
    /// UCI `wtime`, ms (Red's clock).
    pub wtime: Option<u64>,
    /// UCI `btime`, ms (Black's clock).
    pub btime: Option<u64>,
    /// UCI `winc`, ms.
    pub winc: Option<u64>,
    /// UCI `binc`, ms.
    pub binc: Option<u64>,
    /// Where each clock token was last accepted, so that the session can
    /// let a later token override an earlier one of the same meaning once
    /// it knows the side to move (`time` and `wtime` mean the same for Red).
    pub clock_order: ClockOrder,
    /// `movestogo` (0 is stored as absent).
    pub movestogo: Option<u32>,
    /// UCI `searchmoves`, as written.
    pub searchmoves: Vec<String>,
    /// `ponder`.
    pub ponder: bool,
    /// UCCI `draw`: the opponent offers a draw.
    pub draw: bool,
    /// Diagnostics about tokens that were clamped or ignored; the search
    /// still starts.
    pub warnings: Vec<String>,
}

/// The position in the `go` line (token index, 0 = absent) of the last
/// accepted value of each clock token.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClockOrder {
    /// UCCI `time`.
    pub time: usize,
    /// UCCI `increment`.
    pub increment: usize,
    /// UCI `wtime`.
    pub wtime: usize,
    /// UCI `btime`.
    pub btime: usize,
    /// UCI `winc`.
    pub winc: usize,
    /// UCI `binc`.
    pub binc: usize,
}

impl GoCommand {
    /// Whether the line set any limit at all; without one `go` means
    /// `go infinite`.
    pub fn has_limit(&self) -> bool {
        matches!(self.depth, Some(Depth::Plies(_)))
            || self.nodes.is_some()
            || self.movetime.is_some()
            || self.mate.is_some()
            || self.time.is_some()
            || self.wtime.is_some()
            || self.btime.is_some()
    }
}

/// The tokens of a line with their byte spans, so that a value can be
/// taken "to the end of the line" with its inner spacing intact.
struct Tokens<'a> {
    line: &'a str,
    spans: Vec<(usize, usize)>,
}

impl<'a> Tokens<'a> {
    fn new(line: &'a str) -> Tokens<'a> {
        let mut spans = Vec::new();
        let mut start = None;
        for (i, c) in line.char_indices() {
            if c.is_ascii_whitespace() {
                if let Some(s) = start.take() {
                    spans.push((s, i));
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
        if let Some(s) = start {
            spans.push((s, line.len()));
        }
        Tokens { line, spans }
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn get(&self, i: usize) -> Option<&'a str> {
        self.spans.get(i).map(|&(s, e)| &self.line[s..e])
    }

    fn is(&self, i: usize, keyword: &str) -> bool {
        self.get(i).is_some_and(|t| t.eq_ignore_ascii_case(keyword))
    }

    /// The text from token `i` to the end of the line, trimmed.
    fn rest(&self, i: usize) -> Option<&'a str> {
        self.spans
            .get(i)
            .map(|&(s, _)| self.line[s..].trim_end_matches(|c: char| c.is_ascii_whitespace()))
    }

    fn from(&self, i: usize) -> Vec<&'a str> {
        (i..self.len()).filter_map(|j| self.get(j)).collect()
    }
}

/// Shortens and cleans text quoted back in a diagnostic: output is ASCII,
/// one line, and of bounded length whatever the input was.
pub fn quote(text: &str) -> String {
    const MAX: usize = 40;
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == MAX {
            out.push_str("...");
            break;
        }
        if c.is_ascii_graphic() || c == ' ' {
            out.push(c);
        } else {
            out.push('?');
        }
    }
    out
}

impl FromStr for Command {
    type Err = ParseError;

    fn from_str(line: &str) -> Result<Command, ParseError> {
        let tokens = Tokens::new(line);
        let Some(first) = tokens.get(0) else {
            return Ok(Command::Empty);
        };
        let keyword = first.to_ascii_lowercase();
        match keyword.as_str() {
            "ucci" => Ok(Command::Ucci),
            "uci" => Ok(Command::Uci),
            "isready" => Ok(Command::IsReady),
            "setoption" => parse_setoption(&tokens).map(Command::SetOption),
            "position" => parse_position(&tokens, 1)
                .map(Command::Position)
                .map_err(ParseError::BadPosition),
            "fen" | "startpos" => parse_position(&tokens, 0)
                .map(Command::Position)
                .map_err(ParseError::BadPosition),
            "banmoves" => Ok(Command::BanMoves(
                tokens.from(1).into_iter().map(str::to_string).collect(),
            )),
            "go" => parse_go(&tokens),
            "ponderhit" => Ok(Command::PonderHit {
                draw: tokens.is(1, "draw"),
            }),
            "stop" => Ok(Command::Stop),
            "ucinewgame" => Ok(Command::NewGame),
            "debug" => match tokens.get(1).map(str::to_ascii_lowercase).as_deref() {
                None | Some("on") => Ok(Command::Debug(true)),
                Some("off") => Ok(Command::Debug(false)),
                Some(other) => Err(ParseError::Malformed(format!(
                    "debug takes on or off, not '{}'",
                    quote(other)
                ))),
            },
            "probe" => Ok(Command::Probe(parse_position(&tokens, 1).ok())),
            "quit" => Ok(Command::Quit),
            "d" => Ok(Command::Display),
            "eval" => Ok(Command::Eval),
            "bench" => Ok(Command::Bench),
            _ => Err(ParseError::Unknown(quote(first))),
        }
    }
}

fn parse_setoption(tokens: &Tokens<'_>) -> Result<SetOption, ParseError> {
    let missing = || ParseError::Malformed("setoption needs an option name".to_string());
    if tokens.is(1, "name") {
        // UCI shape: the name runs up to the `value` keyword.
        let value_at = (2..tokens.len()).find(|&i| tokens.is(i, "value"));
        let name_end = value_at.unwrap_or(tokens.len());
        let name = (2..name_end)
            .filter_map(|i| tokens.get(i))
            .collect::<Vec<_>>()
            .join(" ");
        if name.is_empty() {
            return Err(missing());
        }
        let value = value_at
            .and_then(|i| tokens.rest(i + 1))
            .map(str::to_string);
        Ok(SetOption { name, value })
    } else {
        let name = tokens.get(1).ok_or_else(missing)?.to_string();
        let value = tokens.rest(2).map(str::to_string);
        Ok(SetOption { name, value })
    }
}

/// Reads `{startpos | fen <fields>} [moves <m>…]` from token `at` on.
fn parse_position(tokens: &Tokens<'_>, at: usize) -> Result<PositionSpec, String> {
    let moves_at = (at..tokens.len()).find(|&i| tokens.is(i, "moves"));
    let base_end = moves_at.unwrap_or(tokens.len());
    let base = if tokens.is(at, "startpos") {
        if base_end > at + 1 {
            let extra = tokens.get(at + 1).unwrap_or_default();
            return Err(format!("unexpected '{}' after startpos", quote(extra)));
        }
        Base::StartPos
    } else if tokens.is(at, "fen") {
        let fields: Vec<&str> = (at + 1..base_end).filter_map(|i| tokens.get(i)).collect();
        if fields.is_empty() {
            return Err("missing FEN after 'fen'".to_string());
        }
        Base::Fen(fields.join(" "))
    } else {
        return Err(match tokens.get(at) {
            Some(t) => format!("expected startpos or fen, not '{}'", quote(t)),
            None => "expected startpos or fen".to_string(),
        });
    };
    let moves = moves_at
        .map(|i| tokens.from(i + 1).into_iter().map(str::to_string).collect())
        .unwrap_or_default();
    Ok(PositionSpec { base, moves })
}

/// The `go` keywords; a value never swallows one of these.
const GO_KEYWORDS: &[&str] = &[
    "depth",
    "nodes",
    "movetime",
    "mate",
    "infinite",
    "time",
    "increment",
    "opptime",
    "oppincrement",
    "oppmovestogo",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "searchmoves",
    "ponder",
    "draw",
    "perft",
];

fn is_go_keyword(token: &str) -> bool {
    GO_KEYWORDS.iter().any(|k| token.eq_ignore_ascii_case(k))
}

/// A decimal integer read without overflow: the sign and a saturated
/// magnitude.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Number {
    negative: bool,
    magnitude: u64,
    overflowed: bool,
}

fn read_number(token: &str) -> Option<Number> {
    let (negative, digits) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut magnitude: u64 = 0;
    let mut overflowed = false;
    for b in digits.bytes() {
        match magnitude
            .checked_mul(10)
            .and_then(|m| m.checked_add(u64::from(b - b'0')))
        {
            Some(m) => magnitude = m,
            None => {
                overflowed = true;
                magnitude = u64::MAX;
                break;
            }
        }
    }
    Some(Number {
        negative: negative && magnitude != 0,
        magnitude,
        overflowed,
    })
}

/// Reads the value of `key` into `min..=max`, clamping with a warning; a
/// non-numeric value yields `None` and a warning.
fn number_in(
    key: &str,
    token: Option<&str>,
    min: u64,
    max: u64,
    warnings: &mut Vec<String>,
) -> Option<u64> {
    let Some(token) = token else {
        warnings.push(format!("go {key}: missing value, ignored"));
        return None;
    };
    let Some(n) = read_number(token) else {
        warnings.push(format!(
            "go {key}: '{}' is not a number, ignored",
            quote(token)
        ));
        return None;
    };
    let value = if n.negative {
        min
    } else {
        n.magnitude.clamp(min, max)
    };
    if n.negative || n.overflowed || value != n.magnitude {
        warnings.push(format!("go {key}: {} clamped to {value}", quote(token)));
    }
    Some(value)
}

/// Reads one of `go`'s clock tokens (`time`, `increment`, `wtime`,
/// `btime`, `winc`, `binc`) and notes where it stood, so that the session
/// can let the later of two tokens of the same meaning win
/// ([`ClockOrder`]). False when `key` is not a clock token.
fn read_clock_token(go: &mut GoCommand, key: &str, value: Option<&str>, at: usize) -> bool {
    let (slot, order) = match key {
        "time" => (&mut go.time, &mut go.clock_order.time),
        "increment" => (&mut go.increment, &mut go.clock_order.increment),
        "wtime" => (&mut go.wtime, &mut go.clock_order.wtime),
        "btime" => (&mut go.btime, &mut go.clock_order.btime),
        "winc" => (&mut go.winc, &mut go.clock_order.winc),
        "binc" => (&mut go.binc, &mut go.clock_order.binc),
        _ => return false,
    };
    if let Some(v) = number_in(key, value, 0, MAX_TIME_MS, &mut go.warnings) {
        *slot = Some(v);
        *order = at;
    }
    true
}

fn parse_go(tokens: &Tokens<'_>) -> Result<Command, ParseError> {
    let mut go = GoCommand::default();
    let mut i = 1;
    while let Some(token) = tokens.get(i) {
        let key = token.to_ascii_lowercase();
        i += 1;
        if key == "depth" && tokens.is(i, "infinite") {
            go.depth = Some(Depth::Infinite);
            i += 1;
            continue;
        }
        // The value token, unless the next token is itself a keyword
        // (`go depth nodes 5` must not read `nodes` as the depth).
        let value = tokens.get(i).filter(|t| !is_go_keyword(t));
        if value.is_some()
            && !matches!(key.as_str(), "infinite" | "ponder" | "draw" | "searchmoves")
        {
            i += 1;
        }
        if read_clock_token(&mut go, &key, value, i) {
            continue;
        }
        let w = &mut go.warnings;
        let u32_max = u64::from(u32::MAX);
        let to_u32 = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
        match key.as_str() {
            "depth" => {
                // A negative depth is read as the shallowest search rather
                // than as `depth 0`, which means "no move" (§9 e).
                let min = u64::from(value.is_some_and(|v| v.starts_with('-')));
                if let Some(d) = number_in("depth", value, min, u64::from(MAX_DEPTH), w) {
                    go.depth = Some(Depth::Plies(to_u32(d)));
                }
            }
            "nodes" => {
                go.nodes = number_in("nodes", value, 1, u64::MAX, w).or(go.nodes);
            }
            "movetime" => {
                go.movetime = number_in("movetime", value, 0, MAX_TIME_MS, w).or(go.movetime);
            }
            "mate" => {
                go.mate = number_in("mate", value, 1, u64::from(MAX_DEPTH), w)
                    .map(to_u32)
                    .or(go.mate);
            }
            "opptime" => {
                go.opptime = number_in("opptime", value, 0, MAX_TIME_MS, w).or(go.opptime);
            }
            "oppincrement" => {
                go.oppincrement =
                    number_in("oppincrement", value, 0, MAX_TIME_MS, w).or(go.oppincrement);
            }
            "oppmovestogo" => {
                go.oppmovestogo = number_in("oppmovestogo", value, 0, u32_max, w)
                    .map(to_u32)
                    .or(go.oppmovestogo);
            }
            "movestogo" => {
                if let Some(m) = number_in("movestogo", value, 0, u32_max, w) {
                    go.movestogo = (m > 0).then(|| to_u32(m));
                }
            }
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "draw" => go.draw = true,
            "searchmoves" => {
                while let Some(m) = tokens.get(i).filter(|t| !is_go_keyword(t)) {
                    go.searchmoves.push(m.to_string());
                    i += 1;
                }
            }
            "perft" => {
                let depth = value
                    .and_then(read_number)
                    .filter(|n| !n.negative && !n.overflowed);
                return match depth.map(|n| n.magnitude) {
                    Some(d) if d <= u64::from(MAX_PERFT_DEPTH) => Ok(Command::Perft(to_u32(d))),
                    _ => Err(ParseError::Malformed(format!(
                        "go perft needs a depth from 0 to {MAX_PERFT_DEPTH}, not '{}'",
                        quote(value.unwrap_or_default())
                    ))),
                };
            }
            _ => {
                w.push(format!("go: unknown token '{}' ignored", quote(token)));
                // It was not a keyword, so it took no value: step back.
                if value.is_some() {
                    i -= 1;
                }
            }
        }
    }
    Ok(Command::Go(Box::new(go)))
}

#[cfg(test)]
mod tests;
