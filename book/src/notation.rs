//! Reading one move written in Chinese notation (`炮二平五`, traditional or
//! simplified characters, Chinese numerals or full-width digits) or in WXF
//! letters (`C2=5`, `C+-2`, `+C-2`, `fC5-2`), resolved against a position to
//! its one legal move (`docs/rules.md` §7). ICCS (`h2e2`) is read too.
//!
//! The rules of resolution:
//!
//! 1. The piece, its file (numbered from the mover's own right: Red's 一 is
//!    file `i`, Black's 1 is file `a`) or a tandem marker (前/中/后 or an
//!    ordinal from the front), the direction and the number are read.
//! 2. The mover's pieces that fit are collected. A marker picks among the
//!    pieces of that kind that share a file: front is the one nearest the
//!    opponent; with pieces on two files (soldiers) they are counted right to
//!    left, then front to back.
//! 3. Each candidate's destination follows from the direction and number
//!    (ranks moved for chariot, cannon, soldier and general; the destination
//!    file for horse, elephant and advisor).
//! 4. Exactly one candidate must give a legal move. A plain form with two
//!    pieces on the named file is accepted when only one of them can make
//!    the move, as game records commonly write it.

use std::fmt;

use board::{Color, Move, PieceKind, Position, Square};

/// Why a move text did not resolve to one legal move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// The text is not a move in any notation this module reads.
    Unreadable(&'static str),
    /// No piece of the mover fits the piece, file and marker given.
    NoPiece,
    /// A piece fits, but the move described is not legal.
    Illegal,
    /// More than one legal move fits the text.
    Ambiguous,
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Unreadable(why) => write!(f, "unreadable move ({why})"),
            NotationError::NoPiece => f.write_str("no such piece for the side to move"),
            NotationError::Illegal => f.write_str("the move described is not legal"),
            NotationError::Ambiguous => f.write_str("the move text fits more than one legal move"),
        }
    }
}

impl std::error::Error for NotationError {}

/// Direction of a move, from the mover's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Forward,
    Backward,
    Sideways,
}

/// Which of several identical pieces on a file (or two files) is meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marker {
    Front,
    Middle,
    Rear,
    /// 1-based, counted from the front.
    Nth(usize),
    /// WXF `-`: the rear of two, the middle of three or more (xqbase).
    Minus,
}

/// One symbol of the prefix (the part before direction and number).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sym {
    Piece(PieceKind),
    Num(u8),
    Mark(Marker),
}

/// The parts of a move text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Parsed {
    kind: Option<PieceKind>,
    file: Option<u8>,
    marker: Option<Marker>,
    direction: Direction,
    number: u8,
}

/// Reads an ICCS move (`h2e2`, `H2-E2`) and checks that it is legal.
///
/// # Errors
/// [`NotationError::Unreadable`] or [`NotationError::Illegal`].
pub fn parse_iccs(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let mv: Move = text
        .trim()
        .parse()
        .map_err(|_| NotationError::Unreadable("not ICCS"))?;
    if pos.is_legal(mv) {
        Ok(mv)
    } else {
        Err(NotationError::Illegal)
    }
}

/// Whether `text` has the shape of an ICCS move.
fn looks_like_iccs(text: &str) -> bool {
    let b = text.as_bytes();
    let square =
        |f: u8, r: u8| (b'a'..=b'i').contains(&f.to_ascii_lowercase()) && r.is_ascii_digit();
    match b.len() {
        4 => square(b[0], b[1]) && square(b[2], b[3]),
        5 => square(b[0], b[1]) && b[2] == b'-' && square(b[3], b[4]),
        _ => false,
    }
}

/// Reads a move in Chinese, WXF or ICCS notation and resolves it to the one
/// legal move it describes in `pos`.
///
/// # Errors
/// A [`NotationError`] saying why no single legal move fits.
pub fn parse_any(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let text = text.trim();
    if looks_like_iccs(text) {
        return parse_iccs(pos, text);
    }
    parse_notation(pos, text)
}

/// Reads a move in Chinese or WXF notation (see the module docs).
///
/// # Errors
/// A [`NotationError`] saying why no single legal move fits.
pub fn parse_notation(pos: &Position, text: &str) -> Result<Move, NotationError> {
    let parsed = parse_text(text.trim())?;
    resolve(pos, &parsed)
}

/// Full-width forms (`１`, `＋`, `Ｃ`) as their ASCII counterparts.
fn narrow(c: char) -> char {
    match c {
        '\u{ff01}'..='\u{ff5e}' => char::from_u32(c as u32 - 0xfee0).unwrap_or(c),
        _ => c,
    }
}

fn chinese_piece(c: char) -> Option<PieceKind> {
    Some(match c {
        '車' | '车' | '俥' | '伡' => PieceKind::Rook,
        '馬' | '马' | '傌' | '㐷' => PieceKind::Knight,
        '炮' | '砲' | '包' => PieceKind::Cannon,
        '兵' | '卒' => PieceKind::Pawn,
        '相' | '象' => PieceKind::Bishop,
        '仕' | '士' => PieceKind::Advisor,
        '帥' | '帅' | '將' | '将' => PieceKind::King,
        _ => return None,
    })
}

fn letter_piece(c: char) -> Option<PieceKind> {
    Some(match c.to_ascii_uppercase() {
        'K' => PieceKind::King,
        'A' => PieceKind::Advisor,
        'E' | 'B' => PieceKind::Bishop,
        'H' | 'N' => PieceKind::Knight,
        'R' => PieceKind::Rook,
        'C' => PieceKind::Cannon,
        'P' => PieceKind::Pawn,
        _ => return None,
    })
}

fn digit(c: char) -> Option<u8> {
    Some(match c {
        '1'..='9' => c as u8 - b'0',
        '一' => 1,
        '二' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}

fn direction(c: char) -> Option<Direction> {
    Some(match c {
        '進' | '进' | '上' | '+' => Direction::Forward,
        '退' | '下' | '-' => Direction::Backward,
        '平' | '=' | '.' => Direction::Sideways,
        _ => return None,
    })
}

fn parse_text(text: &str) -> Result<Parsed, NotationError> {
    let chars: Vec<char> = text
        .chars()
        .map(narrow)
        .filter(|c| !c.is_whitespace())
        .collect();
    if !(4..=5).contains(&chars.len()) {
        return Err(NotationError::Unreadable("expected four or five symbols"));
    }
    let (prefix, tail) = chars.split_at(chars.len() - 2);
    let direction = direction(tail[0]).ok_or(NotationError::Unreadable("no direction"))?;
    let number = digit(tail[1]).ok_or(NotationError::Unreadable("no number at the end"))?;
    // Lower-case letters are markers (f, m, r, a–e) when an upper-case
    // piece letter stands beside them, else piece letters themselves.
    let has_upper = prefix.iter().any(char::is_ascii_uppercase);
    let mut syms = Vec::with_capacity(3);
    for &c in prefix {
        let sym = if let Some(kind) = chinese_piece(c) {
            Sym::Piece(kind)
        } else if let Some(n) = digit(c) {
            Sym::Num(n)
        } else {
            match c {
                '前' | '+' => Sym::Mark(Marker::Front),
                '後' | '后' | '.' => Sym::Mark(Marker::Rear),
                '中' => Sym::Mark(Marker::Middle),
                '-' => Sym::Mark(Marker::Minus),
                'f' if has_upper => Sym::Mark(Marker::Front),
                'm' if has_upper => Sym::Mark(Marker::Middle),
                'r' if has_upper => Sym::Mark(Marker::Rear),
                'a'..='e' if has_upper => Sym::Mark(Marker::Nth(usize::from(c as u8 - b'a') + 1)),
                c if c.is_ascii_alphabetic() => Sym::Piece(
                    letter_piece(c).ok_or(NotationError::Unreadable("unknown piece letter"))?,
                ),
                _ => return Err(NotationError::Unreadable("unknown symbol")),
            }
        };
        syms.push(sym);
    }
    let (kind, file, marker) = match syms[..] {
        [Sym::Piece(k), Sym::Num(f)] => (Some(k), Some(f), None),
        [Sym::Mark(m), Sym::Piece(k)] | [Sym::Piece(k), Sym::Mark(m)] => (Some(k), None, Some(m)),
        // 二兵: the second soldier from the front.
        [Sym::Num(n), Sym::Piece(k)] => (Some(k), None, Some(Marker::Nth(usize::from(n)))),
        // 前五: marker and file, the piece implied.
        [Sym::Mark(m), Sym::Num(f)] => (None, Some(f), Some(m)),
        [Sym::Mark(m), Sym::Piece(k), Sym::Num(f)] | [Sym::Piece(k), Sym::Mark(m), Sym::Num(f)] => {
            (Some(k), Some(f), Some(m))
        }
        _ => {
            return Err(NotationError::Unreadable(
                "expected piece and file, or a tandem marker",
            ));
        }
    };
    Ok(Parsed {
        kind,
        file,
        marker,
        direction,
        number,
    })
}

/// File index (0 = `a`) of file number `n` (1–9) counted from `side`'s right.
fn file_index(side: Color, n: u8) -> i32 {
    match side {
        Color::Red => 9 - i32::from(n),
        Color::Black => i32::from(n) - 1,
    }
}

/// How far toward the opponent a square is for `side` (larger = further
/// forward).
fn frontness(side: Color, sq: Square) -> i32 {
    i32::from(sq.rank().relative_to(side))
}

/// How far to `side`'s right a square's file is (larger = further right),
/// so that sorting by its negation counts files from `side`'s right.
fn rightness(side: Color, sq: Square) -> i32 {
    match side {
        Color::Red => sq.file().index() as i32,
        Color::Black => -(sq.file().index() as i32),
    }
}

/// The squares of the mover's pieces the text can mean (step 2).
fn candidates(pos: &Position, p: &Parsed) -> Result<Vec<Square>, NotationError> {
    let side = pos.side_to_move();
    let kinds: Vec<PieceKind> = match p.kind {
        Some(k) => vec![k],
        None => vec![
            PieceKind::Pawn,
            PieceKind::Rook,
            PieceKind::Cannon,
            PieceKind::Knight,
        ],
    };
    let on_file = |sq: Square| {
        p.file
            .is_none_or(|n| sq.file().index() as i32 == file_index(side, n))
    };
    let Some(marker) = p.marker else {
        let squares: Vec<Square> = kinds
            .iter()
            .flat_map(|&k| pos.pieces(side, k).into_iter())
            .filter(|&sq| on_file(sq))
            .collect();
        return Ok(squares);
    };
    for &kind in &kinds {
        // Tandem pieces: those sharing a file with another of their kind.
        let all: Vec<Square> = pos.pieces(side, kind).into_iter().collect();
        let mut tandem: Vec<Square> = all
            .iter()
            .copied()
            .filter(|a| on_file(*a) && all.iter().filter(|b| b.file() == a.file()).count() >= 2)
            .collect();
        if tandem.is_empty() {
            continue;
        }
        tandem.sort_by_key(|&sq| (-rightness(side, sq), -frontness(side, sq)));
        let n = tandem.len();
        let index = match marker {
            Marker::Front => Some(0),
            Marker::Rear => Some(n - 1),
            Marker::Middle => (n == 3).then_some(1),
            // The rear of two and the middle of three both sit at index 1.
            Marker::Minus => Some(1),
            Marker::Nth(k) => (k >= 1 && k <= n).then(|| k - 1),
        };
        return index.map(|i| vec![tandem[i]]).ok_or(NotationError::NoPiece);
    }
    Err(NotationError::NoPiece)
}

/// Where the piece on `from` goes (step 3), if the text makes sense for it.
fn destination(pos: &Position, from: Square, p: &Parsed) -> Option<Square> {
    let side = pos.side_to_move();
    let kind = pos.piece_at(from)?.kind();
    let ahead = match side {
        Color::Red => 1,
        Color::Black => -1,
    };
    let sign = match p.direction {
        Direction::Forward => ahead,
        Direction::Backward => -ahead,
        Direction::Sideways => 0,
    };
    let n = i32::from(p.number);
    let (file, rank) = (from.file().index() as i32, from.rank().index() as i32);
    match kind {
        PieceKind::Rook | PieceKind::Cannon | PieceKind::Pawn | PieceKind::King => {
            if sign == 0 {
                Square::from_coords(file_index(side, p.number), rank)
            } else {
                Square::from_coords(file, rank + sign * n)
            }
        }
        PieceKind::Knight | PieceKind::Bishop | PieceKind::Advisor => {
            if sign == 0 {
                return None;
            }
            let to_file = file_index(side, p.number);
            let df = (to_file - file).abs();
            let dr = match (kind, df) {
                (PieceKind::Knight, 1) | (PieceKind::Bishop, 2) => 2,
                (PieceKind::Knight, 2) | (PieceKind::Advisor, 1) => 1,
                _ => return None,
            };
            Square::from_coords(to_file, rank + sign * dr)
        }
    }
}

/// Steps 3 and 4: the one legal move among the candidates.
fn resolve(pos: &Position, p: &Parsed) -> Result<Move, NotationError> {
    let from = candidates(pos, p)?;
    if from.is_empty() {
        return Err(NotationError::NoPiece);
    }
    let mut found: Option<Move> = None;
    for sq in from {
        let Some(mv) = destination(pos, sq, p).and_then(|to| Move::new(sq, to)) else {
            continue;
        };
        if pos.is_legal(mv) {
            if found.is_some_and(|f| f != mv) {
                return Err(NotationError::Ambiguous);
            }
            found = Some(mv);
        }
    }
    found.ok_or(NotationError::Illegal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iccs(fen: &str, text: &str) -> String {
        let pos = Position::from_fen(fen).unwrap();
        match parse_any(&pos, text) {
            Ok(m) => m.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    const START: &str = board::START_FEN;

    #[test]
    fn start_position_moves_in_every_script() {
        for (text, want) in [
            ("炮二平五", "h2e2"),
            ("炮二平五", "h2e2"),
            ("砲二平五", "h2e2"),
            ("C2=5", "h2e2"),
            ("C2.5", "h2e2"),
            ("c2=5", "h2e2"),
            ("Ｃ２＝５", "h2e2"),
            ("馬二進三", "h0g2"),
            ("马八进七", "b0c2"),
            ("H8+7", "b0c2"),
            ("N2+3", "h0g2"),
            ("傌二進三", "h0g2"),
            ("相三進五", "g0e2"),
            ("象三进五", "g0e2"),
            ("E7+5", "c0e2"),
            ("B3+5", "g0e2"),
            ("仕四進五", "f0e1"),
            ("A6+5", "d0e1"),
            ("兵七進一", "c3c4"),
            ("P3+1", "g3g4"),
            ("車一進一", "i0i1"),
            ("俥九進二", "a0a2"),
            ("R1+2", "i0i2"),
            ("帥五進一", "e0e1"),
            ("K5+1", "e0e1"),
            ("h2e2", "h2e2"),
            ("H2-E2", "h2e2"),
        ] {
            assert_eq!(iccs(START, text), want, "{text}");
        }
    }

    #[test]
    fn black_counts_files_from_its_own_right() {
        let after = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
        for (text, want) in [
            ("馬８進７", "h9g7"),
            ("马２进３", "b9c7"),
            ("H8+7", "h9g7"),
            ("炮８平５", "h7e7"),
            ("炮2平5", "b7e7"),
            ("卒７進１", "g6g5"),
            ("卒3进1", "c6c5"),
            ("車９進１", "i9i8"),
            ("象３進５", "c9e7"),
            ("象7進5", "g9e7"),
            ("士４進５", "d9e8"),
            ("將５進１", "e9e8"),
            ("炮８進４", "h7h3"),
            ("炮８退１", "h7h8"),
        ] {
            assert_eq!(iccs(after, text), want, "{text}");
        }
    }

    #[test]
    fn backward_moves_of_horse_elephant_advisor() {
        // Red horse on e4 can go back to d2/f2; elephant on e2 back to c0/g0;
        // advisor on e1 back to d0/f0.
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/4N4/P1P3P1P/1C2B2C1/4A4/R2AK1BNR w - - 0 1";
        for (text, want) in [
            ("馬五退六", "e4d2"),
            ("馬五退四", "e4f2"),
            ("馬五進四", "e4f6"),
            ("相五退七", "e2c0"),
            ("仕五退四", "e1f0"),
            ("仕五退六", "error: the move described is not legal"),
        ] {
            assert_eq!(iccs(fen, text), want, "{text}");
        }
    }

    #[test]
    fn tandem_pieces_front_and_rear() {
        // Red cannons on c2 and c4 (file 七), Red rooks on a0 and a3 (file 九).
        let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/2C6/R3P1P1P/2C6/9/RNBAKABN1 w - - 0 1";
        for (text, want) in [
            ("前炮退一", "c4c3"),
            ("後炮進一", "c2c3"),
            ("后炮平四", "c2f2"),
            ("前炮平六", "c4d4"),
            ("C+-1", "c4c3"),
            ("C-+1", "c2c3"),
            ("+C-1", "c4c3"),
            ("-C+1", "c2c3"),
            ("fC7-1", "c4c3"),
            ("rC7+1", "c2c3"),
            ("前車進一", "a3a4"),
            ("後車進一", "a0a1"),
            ("後車進二", "a0a2"),
        ] {
            assert_eq!(iccs(fen, text), want, "{text}");
        }
        // The plain form is ambiguous when both rooks could move.
        assert_eq!(
            iccs(fen, "車九進一"),
            "error: the move text fits more than one legal move"
        );
        assert_eq!(
            iccs(fen, "炮七進一"),
            "error: the move text fits more than one legal move"
        );
        // The records' quirk: a plain form where only one of the two can
        // make the move (the rook on a0 cannot go back).
        assert_eq!(iccs(fen, "車九退一"), "a3a2");
    }

    #[test]
    fn black_tandem_front_is_the_lower_rank() {
        // Black rooks on a9 and a7 (file 1): the front one is a7.
        let fen = "rnbakabn1/9/r3c2c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1";
        for (text, want) in [
            ("車１進１", "a9a8"),
            ("車１平２", "a7b7"),
            ("前車平２", "a7b7"),
            ("前車退１", "a7a8"),
            ("後車進１", "a9a8"),
            ("R+=2", "a7b7"),
            ("R1+1", "a9a8"),
            ("後車平２", "error: the move described is not legal"),
        ] {
            assert_eq!(iccs(fen, text), want, "{text}");
        }
    }

    #[test]
    fn three_soldiers_on_a_file() {
        // Red soldiers on e5, e6, e7 (file 五), a3 and c3.
        let fen = "rnbakabnr/9/1c2P2c1/p1p1P1p1p/4P4/9/P1P6/1C5C1/9/RNBAKABNR w - - 0 1";
        for (text, want) in [
            ("前兵平四", "e7f7"),
            ("中兵平四", "e6f6"),
            ("後兵平四", "e5f5"),
            ("前兵進一", "e7e8"),
            ("一兵平六", "e7d7"),
            ("二兵平六", "e6d6"),
            ("三兵平六", "e5d5"),
            ("P+=4", "e7f7"),
            ("P-=4", "e6f6"),
            ("P.=4", "e5f5"),
            ("Pa=4", "e7f7"),
            ("Pb=4", "e6f6"),
            ("Pc=6", "e5d5"),
            ("前五平四", "e7f7"),
        ] {
            assert_eq!(iccs(fen, text), want, "{text}");
        }
        assert_eq!(
            iccs(fen, "四兵平六"),
            "error: no such piece for the side to move"
        );
        // 後兵進一 would walk into the soldier in front: illegal.
        assert_eq!(
            iccs(fen, "後兵進一"),
            "error: the move described is not legal"
        );
    }

    #[test]
    fn unreadable_and_impossible_moves() {
        for (text, want) in [
            ("", "error: unreadable move (expected four or five symbols)"),
            (
                "炮二平",
                "error: unreadable move (expected four or five symbols)",
            ),
            ("炮二飛五", "error: unreadable move (no direction)"),
            ("炮二平十", "error: unreadable move (no number at the end)"),
            ("Z2=5", "error: unreadable move (unknown piece letter)"),
            ("炮一平五", "error: no such piece for the side to move"),
            ("馬二平三", "error: the move described is not legal"),
            ("相三進四", "error: the move described is not legal"),
            ("炮二進八", "error: the move described is not legal"),
            ("h2h8", "error: the move described is not legal"),
            ("前炮進一", "error: no such piece for the side to move"),
        ] {
            assert_eq!(iccs(START, text), want, "{text:?}");
        }
    }
}
