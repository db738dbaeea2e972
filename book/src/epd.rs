//! Reading EPD position suites (`docs/rules.md` §9): one position per
//! line, its FEN followed by operations such as `bm` (best moves), `am`
//! (moves to avoid), `dm` (mate in so many moves) and `id` (a name).
//!
//! This module owns the text: splitting lines (any line ending), the
//! position fields, the operations with their quoted strings, and the
//! moves of `bm` and `am`, which are resolved against the position by
//! [`crate::notation`] (ICCS, WXF or Chinese). What a suite asks of an
//! engine, and running it, is left to the caller (`chariot epd`, the
//! tests). A malformed line is an [`EpdError`] naming its line number; it
//! never stops the lines after it from being read.

use std::fmt;

use board::{Move, Position};

use crate::notation;

/// One position of a suite with its operations.
#[derive(Clone, Debug)]
pub struct Record {
    /// The 1-based line number in the suite.
    pub line: usize,
    /// The position fields as written (two to six of them).
    pub fen: String,
    /// The position.
    pub position: Position,
    /// `bm`: the moves that solve the position (empty: no `bm`).
    pub best: Vec<Move>,
    /// `am`: the moves that fail it (empty: no `am`).
    pub avoid: Vec<Move>,
    /// `dm`: the side to move mates in this many moves.
    pub mate: Option<u32>,
    /// `id`: the position's name.
    pub id: Option<String>,
    /// Every other operation, in order, with its operands as written.
    pub other: Vec<Operation>,
}

impl Record {
    /// Whether the record asks something of a search: a `bm`, `am` or
    /// `dm` operation.
    pub fn has_goal(&self) -> bool {
        !self.best.is_empty() || !self.avoid.is_empty() || self.mate.is_some()
    }

    /// The operands of the first other operation named `opcode`.
    pub fn operands(&self, opcode: &str) -> Option<&[String]> {
        self.other
            .iter()
            .find(|op| op.opcode == opcode)
            .map(|op| op.operands.as_slice())
    }
}

/// An operation this module does not interpret (`c0`, `pm`, `acd`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The opcode.
    pub opcode: String,
    /// The operands; a quoted string is one operand, without its quotes.
    pub operands: Vec<String>,
}

/// Why a line of a suite was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EpdError {
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub kind: EpdErrorKind,
}

/// What is wrong with a line; see [`EpdError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EpdErrorKind {
    /// The position fields do not make a legal position.
    Fen(board::FenError),
    /// A `"` string runs to the end of the line.
    UnterminatedString,
    /// Something that is not an opcode stands where an operation begins.
    BadOpcode(String),
    /// An operation appears twice.
    Repeated(String),
    /// `bm` or `am` without a move, or `id` without its name.
    NoOperand(String),
    /// A move of `bm` or `am` that is not one legal move in the position.
    Move {
        /// The opcode (`bm` or `am`).
        opcode: String,
        /// The move as written.
        text: String,
        /// Why it does not resolve.
        error: notation::NotationError,
    },
    /// `dm` without exactly one whole number of moves from 1.
    MateCount(String),
}

impl fmt::Display for EpdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.kind)
    }
}

/// What is wrong, without the line number (for `file:line: what`).
impl fmt::Display for EpdErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EpdErrorKind::Fen(e) => write!(f, "bad position: {e}"),
            EpdErrorKind::UnterminatedString => f.write_str("a quoted string is not closed"),
            EpdErrorKind::BadOpcode(op) => write!(f, "'{op}' is not an opcode"),
            EpdErrorKind::Repeated(op) => write!(f, "{op} appears twice"),
            EpdErrorKind::NoOperand(op) => write!(f, "{op} has no operand"),
            EpdErrorKind::Move {
                opcode,
                text,
                error,
            } => write!(f, "{opcode} '{text}': {error}"),
            EpdErrorKind::MateCount(text) => {
                write!(f, "dm needs one whole number of moves from 1, not '{text}'")
            }
        }
    }
}

impl std::error::Error for EpdError {}

/// Reads a whole suite: one entry per position line, in order, each the
/// record or why its line was not read. Blank lines and lines starting with
/// `#` are skipped; lines may end in LF, CR LF or a bare CR, and a leading
/// byte-order mark is ignored.
pub fn parse(text: &str) -> Vec<Result<Record, EpdError>> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = Vec::new();
    for (index, line) in split_lines(text).enumerate() {
        let line_no = index + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(parse_line(line, line_no));
    }
    out
}

/// Lines ended by LF, CR LF or a bare CR.
fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let current = rest?;
        match current.find(['\n', '\r']) {
            Some(at) => {
                let skip = if current[at..].starts_with("\r\n") {
                    2
                } else {
                    1
                };
                rest = Some(&current[at + skip..]).filter(|r| !r.is_empty());
                Some(&current[..at])
            }
            None => {
                rest = None;
                Some(current)
            }
        }
    })
}

/// One token of an operation: a word or a quoted string.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Token {
    text: String,
    quoted: bool,
}

/// Splits the text into `;`-ended segments of tokens; a `;` inside quotes
/// belongs to the string.
fn segments(text: &str) -> Result<Vec<Vec<Token>>, EpdErrorKind> {
    let mut segments = vec![Vec::new()];
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == ';' {
            chars.next();
            segments.push(Vec::new());
        } else if c == '"' {
            chars.next();
            let mut s = String::new();
            loop {
                match chars.next() {
                    Some('"') => break,
                    Some(c) => s.push(c),
                    None => return Err(EpdErrorKind::UnterminatedString),
                }
            }
            push(&mut segments, s, true);
        } else {
            let mut s = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == ';' || c == '"' {
                    break;
                }
                s.push(c);
                chars.next();
            }
            push(&mut segments, s, false);
        }
    }
    Ok(segments)
}

fn push(segments: &mut [Vec<Token>], text: String, quoted: bool) {
    if let Some(last) = segments.last_mut() {
        last.push(Token { text, quoted });
    }
}

/// Whether `token` can be a position field after the board and the side:
/// `-` (fields 3 and 4) or a counter (fields 5 and 6).
fn is_position_field(token: &Token) -> bool {
    !token.quoted && (token.text == "-" || token.text.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `text` is an opcode: a letter, then letters, digits or `_`.
fn is_opcode(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Reads one non-blank line.
fn parse_line(line: &str, line_no: usize) -> Result<Record, EpdError> {
    let fail = |kind| EpdError {
        line: line_no,
        kind,
    };
    let mut segments = segments(line).map_err(fail)?.into_iter();
    // The first segment holds the position fields and, in the standard
    // layout (`<fen> bm h2e2; id "x";`), the first operation.
    let mut first = segments.next().unwrap_or_default();
    let mut fields = first.len().min(2);
    while fields < first.len() && fields < 6 && is_position_field(&first[fields]) {
        fields += 1;
    }
    let first_op = first.split_off(fields);
    let fen = first
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let position = Position::from_fen(&fen).map_err(|e| fail(EpdErrorKind::Fen(e)))?;
    let mut record = Record {
        line: line_no,
        fen,
        position,
        best: Vec::new(),
        avoid: Vec::new(),
        mate: None,
        id: None,
        other: Vec::new(),
    };
    let mut seen: Vec<String> = Vec::new();
    for op in std::iter::once(first_op).chain(segments) {
        let Some((opcode, operands)) = op.split_first() else {
            continue;
        };
        if opcode.quoted || !is_opcode(&opcode.text) {
            return Err(fail(EpdErrorKind::BadOpcode(opcode.text.clone())));
        }
        let name = opcode.text.as_str();
        if seen.iter().any(|s| s == name) {
            return Err(fail(EpdErrorKind::Repeated(name.to_string())));
        }
        seen.push(name.to_string());
        read_operation(&mut record, name, operands).map_err(fail)?;
    }
    Ok(record)
}

/// Stores one operation in `record`.
fn read_operation(
    record: &mut Record,
    opcode: &str,
    operands: &[Token],
) -> Result<(), EpdErrorKind> {
    match opcode {
        "bm" | "am" => {
            if operands.is_empty() {
                return Err(EpdErrorKind::NoOperand(opcode.to_string()));
            }
            let mut moves = Vec::with_capacity(operands.len());
            for t in operands {
                let m = notation::parse_any(&record.position, &t.text).map_err(|error| {
                    EpdErrorKind::Move {
                        opcode: opcode.to_string(),
                        text: t.text.clone(),
                        error,
                    }
                })?;
                if !moves.contains(&m) {
                    moves.push(m);
                }
            }
            if opcode == "bm" {
                record.best = moves;
            } else {
                record.avoid = moves;
            }
        }
        "dm" => {
            let text: Vec<&str> = operands.iter().map(|t| t.text.as_str()).collect();
            let n = match text.as_slice() {
                [one] if one.bytes().all(|b| b.is_ascii_digit()) => one.parse::<u32>().ok(),
                _ => None,
            };
            match n {
                Some(n) if (1..=MAX_MATE_MOVES).contains(&n) => record.mate = Some(n),
                _ => return Err(EpdErrorKind::MateCount(text.join(" "))),
            }
        }
        "id" => {
            if operands.is_empty() {
                return Err(EpdErrorKind::NoOperand(opcode.to_string()));
            }
            let words: Vec<&str> = operands.iter().map(|t| t.text.as_str()).collect();
            record.id = Some(words.join(" "));
        }
        _ => record.other.push(Operation {
            opcode: opcode.to_string(),
            operands: operands.iter().map(|t| t.text.clone()).collect(),
        }),
    }
    Ok(())
}

/// The longest mate a `dm` may announce: a search reports mates up to a
/// few hundred plies, and a larger count is a typo.
pub const MAX_MATE_MOVES: u32 = 500;

#[cfg(test)]
mod tests {
    use super::*;

    const S0: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR";

    fn mv(text: &str) -> Move {
        text.parse().unwrap()
    }

    fn one(line: &str) -> Result<Record, EpdError> {
        let mut all = parse(line);
        assert_eq!(all.len(), 1, "{line}");
        all.remove(0)
    }

    fn kind(line: &str) -> EpdErrorKind {
        one(line).unwrap_err().kind
    }

    #[test]
    fn reads_our_layout_and_the_standard_one() {
        for line in [
            format!("{S0} w - - 0 1 ; bm h2e2 ; id \"start\""),
            format!("{S0} w - - bm h2e2; id \"start\";"),
            format!("{S0} w bm h2e2;id start"),
        ] {
            let r = one(&line).unwrap();
            assert_eq!(r.best, vec![mv("h2e2")], "{line}");
            assert_eq!(r.id.as_deref(), Some("start"), "{line}");
            assert!(r.avoid.is_empty() && r.mate.is_none() && r.other.is_empty());
            assert_eq!(r.position.fen(), board::START_FEN);
            assert!(r.has_goal());
        }
    }

    #[test]
    fn every_operation_and_several_moves() {
        let r = one(&format!(
            "{S0} w - - 0 1 ; bm h2e2 b2e2 ; am a0a1 i0i1 ; dm 3 ; id \"a; b\" ; c0 \"note\" ; pm c3c4"
        ))
        .unwrap();
        assert_eq!(r.best, vec![mv("h2e2"), mv("b2e2")]);
        assert_eq!(r.avoid, vec![mv("a0a1"), mv("i0i1")]);
        assert_eq!(r.mate, Some(3));
        assert_eq!(r.id.as_deref(), Some("a; b"));
        assert_eq!(r.operands("c0"), Some(&["note".to_string()][..]));
        assert_eq!(r.operands("pm"), Some(&["c3c4".to_string()][..]));
        assert_eq!(r.operands("acd"), None);
    }

    #[test]
    fn moves_in_every_notation() {
        for (text, iccs) in [
            ("H2-E2", "h2e2"),
            ("C2=5", "h2e2"),
            ("炮二平五", "h2e2"),
            ("馬八進七", "b0c2"),
            ("马八进七", "b0c2"),
            ("Ｃ２＝５", "h2e2"),
        ] {
            let r = one(&format!("{S0} w ; bm {text}")).unwrap();
            assert_eq!(r.best, vec![mv(iccs)], "{text}");
        }
        // Black's files are counted from Black's right: 炮8平5 is h7e7 (and 炮2平5 b7e7).
        let r = one("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b ; am 炮8平5")
            .unwrap();
        assert_eq!(r.avoid, vec![mv("h7e7")]);
    }

    #[test]
    fn a_goal_is_not_required_to_read() {
        let r = one(&format!("{S0} w - - 0 1 ; id \"x\"")).unwrap();
        assert!(!r.has_goal());
        assert!(!one(&format!("{S0} w")).unwrap().has_goal());
    }

    #[test]
    fn malformed_lines_name_their_problem() {
        assert!(matches!(kind("garbage ; bm h2e2"), EpdErrorKind::Fen(_)));
        assert!(matches!(
            kind(&format!("{S0} w ; bm h2e3")),
            EpdErrorKind::Move { ref opcode, ref text, .. } if opcode == "bm" && text == "h2e3"
        ));
        assert!(matches!(
            kind(&format!("{S0} w ; am zz")),
            EpdErrorKind::Move { ref opcode, .. } if opcode == "am"
        ));
        for bad in ["0", "-1", "x", "2 3", "", "501", "99999999999"] {
            assert_eq!(
                kind(&format!("{S0} w ; dm {bad}")),
                EpdErrorKind::MateCount(bad.to_string()),
                "{bad}"
            );
        }
        for (ops, want) in [
            ("bm", EpdErrorKind::NoOperand("bm".into())),
            ("id", EpdErrorKind::NoOperand("id".into())),
            ("id \"open", EpdErrorKind::UnterminatedString),
            ("bm h2e2 ; bm b2e2", EpdErrorKind::Repeated("bm".into())),
            ("7x h2e2", EpdErrorKind::BadOpcode("7x".into())),
            ("\"bm\" h2e2", EpdErrorKind::BadOpcode("bm".into())),
        ] {
            assert_eq!(kind(&format!("{S0} w ; {ops}")), want, "{ops}");
        }
    }

    #[test]
    fn errors_carry_line_numbers_and_do_not_stop_the_rest() {
        let text = format!(
            "# a comment\r\n\r\n{S0} w ; bm h2e2\r\nbad fen ; bm h2e2\r{S0} w ; dm 0\n{S0} w ; am b2e2"
        );
        let all = parse(&text);
        assert_eq!(all.len(), 4);
        assert_eq!(all[0].as_ref().unwrap().line, 3);
        assert_eq!(all[1].as_ref().unwrap_err().line, 4);
        assert_eq!(all[2].as_ref().unwrap_err().line, 5);
        assert_eq!(all[3].as_ref().unwrap().line, 6);
        assert!(
            all[2]
                .as_ref()
                .unwrap_err()
                .to_string()
                .starts_with("line 5: dm needs")
        );
    }

    #[test]
    fn line_endings_and_bom() {
        let lines: Vec<&str> = split_lines("a\r\nb\rc\n\nd").collect();
        assert_eq!(lines, ["a", "b", "c", "", "d"]);
        assert_eq!(split_lines("a\n").collect::<Vec<_>>(), ["a"]);
        assert!(parse("").is_empty());
        assert!(parse("\u{feff}\n \t\r\n").is_empty());
        let r = parse(&format!("\u{feff}{S0} w ; bm h2e2"));
        assert_eq!(r[0].as_ref().unwrap().best, vec![mv("h2e2")]);
    }
}
