//! Writing a move in WXF letters and in Chinese notation (`docs/rules.md`
//! §7), which no library crate does: the board crate knows only ICCS and
//! `book::notation` only reads.
//!
//! Every form written is proved by reading it back: the writer proposes the
//! forms the notation allows for the move, from the plainest (piece and
//! file) to the most explicit (a tandem marker, an ordinal, a marker with a
//! file), and returns the first that `book::notation::parse_notation`
//! resolves to exactly this move in this position. So what is written is
//! always what Chariot's own PGN reader reads back, and a position the
//! proposals do not cover (five soldiers on one file, say) falls back to
//! ICCS rather than to a wrong move.

use board::{Color, Move, PieceKind, Position, Square};
use book::notation::parse_notation;

/// Which notation to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// WXF letters (`C2.5`).
    Wxf,
    /// Chinese characters (`炮二平五`).
    Chinese,
}

/// The file number (1–9) of `sq` counted from `side`'s right.
fn file_number(side: Color, sq: Square) -> u8 {
    let f = sq.file().index() as u8;
    match side {
        Color::Red => 9 - f,
        Color::Black => f + 1,
    }
}

/// A number as the side writes it: Chinese numerals for Red, full-width
/// digits for Black (the usage of printed records); ASCII in WXF.
fn number(style: Style, side: Color, n: u8) -> String {
    const RED: [&str; 10] = ["零", "一", "二", "三", "四", "五", "六", "七", "八", "九"];
    const BLACK: [&str; 10] = ["０", "１", "２", "３", "４", "５", "６", "７", "８", "９"];
    let i = usize::from(n.min(9));
    match (style, side) {
        (Style::Wxf, _) => n.to_string(),
        (Style::Chinese, Color::Red) => RED[i].to_string(),
        (Style::Chinese, Color::Black) => BLACK[i].to_string(),
    }
}

fn piece_name(style: Style, side: Color, kind: PieceKind) -> &'static str {
    match (style, kind, side) {
        (Style::Wxf, PieceKind::King, _) => "K",
        (Style::Wxf, PieceKind::Advisor, _) => "A",
        (Style::Wxf, PieceKind::Bishop, _) => "E",
        (Style::Wxf, PieceKind::Knight, _) => "H",
        (Style::Wxf, PieceKind::Rook, _) => "R",
        (Style::Wxf, PieceKind::Cannon, _) => "C",
        (Style::Wxf, PieceKind::Pawn, _) => "P",
        (Style::Chinese, PieceKind::King, Color::Red) => "帅",
        (Style::Chinese, PieceKind::King, Color::Black) => "将",
        (Style::Chinese, PieceKind::Advisor, Color::Red) => "仕",
        (Style::Chinese, PieceKind::Advisor, Color::Black) => "士",
        (Style::Chinese, PieceKind::Bishop, Color::Red) => "相",
        (Style::Chinese, PieceKind::Bishop, Color::Black) => "象",
        (Style::Chinese, PieceKind::Knight, _) => "马",
        (Style::Chinese, PieceKind::Rook, _) => "车",
        (Style::Chinese, PieceKind::Cannon, _) => "炮",
        (Style::Chinese, PieceKind::Pawn, Color::Red) => "兵",
        (Style::Chinese, PieceKind::Pawn, Color::Black) => "卒",
    }
}

/// The direction and number of `m` (the last two symbols).
fn tail(style: Style, side: Color, kind: PieceKind, m: Move) -> String {
    let (from, to) = (m.from(), m.to());
    let rank = |sq: Square| i32::from(sq.rank().relative_to(side));
    let advance = rank(to) - rank(from);
    let dir = match (style, advance.signum()) {
        (Style::Wxf, 1) => "+",
        (Style::Wxf, -1) => "-",
        (Style::Wxf, _) => ".",
        (Style::Chinese, 1) => "进",
        (Style::Chinese, -1) => "退",
        (Style::Chinese, _) => "平",
    };
    let straight = matches!(
        kind,
        PieceKind::Rook | PieceKind::Cannon | PieceKind::King | PieceKind::Pawn
    );
    let n = if straight && advance != 0 {
        advance.unsigned_abs() as u8
    } else {
        file_number(side, to)
    };
    format!("{dir}{}", number(style, side, n))
}

/// The prefixes (the symbols before direction and number) to try, plainest
/// first.
fn prefixes(style: Style, side: Color, kind: PieceKind, from: Square) -> Vec<String> {
    let piece = piece_name(style, side, kind);
    let file = number(style, side, file_number(side, from));
    let mut out = vec![format!("{piece}{file}")];
    let markers: &[&str] = match style {
        Style::Wxf => &["+", "-", "."],
        Style::Chinese => &["前", "中", "后"],
    };
    for mark in markers {
        match style {
            Style::Wxf => out.push(format!("{piece}{mark}")),
            Style::Chinese => out.push(format!("{mark}{piece}")),
        }
    }
    for nth in 1..=5u8 {
        match style {
            Style::Wxf => out.push(format!("{}{piece}", char::from(b'a' + nth - 1))),
            Style::Chinese => out.push(format!("{}{piece}", number(style, Color::Red, nth))),
        }
    }
    for mark in markers {
        match style {
            Style::Wxf => out.push(format!("{piece}{mark}{file}")),
            Style::Chinese => out.push(format!("{mark}{piece}{file}")),
        }
    }
    out
}

/// `m` (legal in `pos`) written in `style`; `None` when `m` is not legal.
/// Falls back to ICCS for the rare position no proposal covers.
pub fn write(pos: &Position, m: Move, style: Style) -> Option<String> {
    if !pos.is_legal(m) {
        return None;
    }
    let side = pos.side_to_move();
    let piece = pos.piece_at(m.from())?;
    let kind = piece.kind();
    let tail = tail(style, side, kind, m);
    // Markers are the proper form whenever another piece of the kind shares
    // the file, even when only one of the two could make the move.
    let shares_file = pos
        .pieces(side, kind)
        .into_iter()
        .any(|sq| sq != m.from() && sq.file() == m.from().file());
    let all = prefixes(style, side, kind, m.from());
    let tried = all
        .iter()
        .enumerate()
        .filter(|(i, _)| !(shares_file && *i == 0))
        .map(|(_, p)| format!("{p}{tail}"));
    for text in tried {
        if parse_notation(pos, &text) == Ok(m) {
            return Some(text);
        }
    }
    Some(m.to_string())
}
