//! PGN output in the xiangqi dialect of `docs/rules.md` §8: the tag pairs
//! (`Game "Chinese Chess"` first), `FEN` and `SetUp` for the start
//! position, `Format "ICCS"` with moves written `H2-E2`, the result, and
//! how the game ended in a `Termination` tag (with a sentence in
//! `TerminationDetails`).

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use board::Color;

use crate::game::GameRecord;

/// Today's date as PGN writes it (`yyyy.mm.dd`, UTC).
pub fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400);
    let (y, m, d) = civil_from_days(i64::try_from(days).unwrap_or(0));
    format!("{y:04}.{m:02}.{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
///
/// Works in 400-year eras (146 097 days) with years starting on 1 March, so
/// that the leap day is the last day of the year and month lengths follow a
/// fixed pattern (153 days per 5 months).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // day of era, 0..146096
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // year of era
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // day of the March-based year
    let mp = (5 * doy + 2) / 153; // month, March = 0
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
}

/// Fields of a game that the record does not know.
pub struct PgnContext<'a> {
    /// Event name.
    pub event: &'a str,
    /// Date in `yyyy.mm.dd`.
    pub date: &'a str,
    /// Round (game number).
    pub round: u64,
    /// The time control as text.
    pub time_control: &'a str,
}

/// Formats one game as PGN, ending with a blank line.
pub fn write_game(game: &GameRecord, ctx: &PgnContext<'_>) -> String {
    let mut out = String::new();
    let tag = |out: &mut String, name: &str, value: &str| {
        // PGN escapes backslash and quote inside tag values.
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(out, "[{name} \"{value}\"]");
    };
    tag(&mut out, "Game", "Chinese Chess");
    tag(&mut out, "Event", ctx.event);
    tag(&mut out, "Site", "arena");
    tag(&mut out, "Date", ctx.date);
    tag(&mut out, "Round", &ctx.round.to_string());
    tag(&mut out, "Red", &game.red);
    tag(&mut out, "Black", &game.black);
    tag(&mut out, "Result", game.result.pgn());
    tag(&mut out, "FEN", &game.start_fen);
    tag(&mut out, "SetUp", "1");
    tag(&mut out, "Format", "ICCS");
    tag(&mut out, "TimeControl", ctx.time_control);
    tag(&mut out, "PlyCount", &game.moves.len().to_string());
    tag(&mut out, "Termination", &game.termination.to_string());
    // The sentence goes in a tag rather than a movetext comment: simple
    // readers (the Python `cchess` package, for one) take every movetext
    // token for a move.
    tag(&mut out, "TerminationDetails", &game.detail);
    out.push('\n');

    let mut line = String::new();
    let mut push = |out: &mut String, token: &str| {
        if !line.is_empty() && line.len() + 1 + token.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(token);
    };
    let mut number = game.start_fullmove;
    let mut side = game.start_side;
    for (i, m) in game.moves.iter().enumerate() {
        let text = m.to_string().to_ascii_uppercase();
        let iccs = format!("{}-{}", &text[..2], &text[2..]);
        match side {
            Color::Red => push(&mut out, &format!("{number}.")),
            Color::Black if i == 0 => push(&mut out, &format!("{number}...")),
            Color::Black => {}
        }
        push(&mut out, &iccs);
        if side == Color::Black {
            number += 1;
        }
        side = !side;
    }
    push(&mut out, game.result.pgn());
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Termination;
    use board::GameResult;
    use board::{Position, Reason};

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 2000-02-29 is day 11 016; 2000-03-01 is 11 017.
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        // 2024-12-31: 54 years → 19 723 days to 2024-01-01 (13 leap days), + 365.
        assert_eq!(civil_from_days(20_088), (2024, 12, 31));
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn game_text() {
        let mut pos = Position::startpos();
        let moves: Vec<board::Move> = ["h2e2", "h9g7", "h0g2"]
            .iter()
            .map(|m| m.parse().unwrap())
            .collect();
        for &m in &moves {
            pos.play(m).unwrap();
        }
        let game = GameRecord {
            red: "new".into(),
            black: "base \"x\"".into(),
            start_fen: board::START_FEN.into(),
            start_fullmove: 1,
            start_side: Color::Red,
            moves,
            result: GameResult::RedWins,
            termination: Termination::Rule(Reason::Checkmate),
            detail: "Red wins by checkmate".into(),
        };
        let ctx = PgnContext {
            event: "test",
            date: "2025.01.02",
            round: 3,
            time_control: "10+0.1",
        };
        let text = write_game(&game, &ctx);
        let expected = format!(
            "[Game \"Chinese Chess\"]\n[Event \"test\"]\n[Site \"arena\"]\n[Date \"2025.01.02\"]\n[Round \"3\"]\n\
             [Red \"new\"]\n[Black \"base \\\"x\\\"\"]\n[Result \"1-0\"]\n[FEN \"{}\"]\n[SetUp \"1\"]\n\
             [Format \"ICCS\"]\n[TimeControl \"10+0.1\"]\n[PlyCount \"3\"]\n[Termination \"checkmate\"]\n\
             [TerminationDetails \"Red wins by checkmate\"]\n\n1. H2-E2 H9-G7 2. H0-G2 1-0\n\n",
            board::START_FEN
        );
        assert_eq!(text, expected);

        // Black to move at the start: the first move is numbered "N...".
        let start = Position::from_fen(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 7",
        )
        .unwrap();
        let game = GameRecord {
            start_fen: start.fen(),
            start_fullmove: 7,
            start_side: Color::Black,
            moves: vec!["h9g7".parse().unwrap(), "h2e2".parse().unwrap()],
            result: GameResult::Draw,
            termination: Termination::DrawAdjudication,
            detail: "draw agreed".into(),
            ..game
        };
        let text = write_game(&game, &ctx);
        assert!(
            text.ends_with("\n7... H9-G7 8. H2-E2 1/2-1/2\n\n"),
            "{text}"
        );
        assert!(text.contains("[Termination \"adjudication: draw\"]\n"));
    }
}
