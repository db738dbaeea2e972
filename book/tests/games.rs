//! Whole real games: the PGN reader and the Chinese-notation reader replay
//! the committed CCPD sample (see `tests/data/NOTICE`) and must agree with
//! the same games in ICCS, move for move. The full 27,945-game check reads
//! the vendored dataset (`data/games`) and is `#[ignore]`d for its minute.

use std::path::Path;

use board::{GameResult, Position};
use book::notation;
use book::pgn;

const SAMPLE_PGN: &str = include_str!("data/ccpd-sample.pgn");
const SAMPLE_TSV: &str = include_str!("data/ccpd-sample.iccs.tsv");
const CCPD_GAMES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/games");

/// Replays every PGN game and compares it with the ICCS list; returns the
/// number of games that agree and the first disagreement.
fn compare(pgn_text: &str, tsv_text: &str) -> (usize, usize, Option<String>) {
    let games = pgn::parse_games(pgn_text);
    let expected: Vec<_> = pgn::parse_tsv(tsv_text).collect();
    assert_eq!(games.len(), expected.len(), "game counts");
    let mut agree = 0;
    let mut first = None;
    for (i, (game, want)) in games.iter().zip(&expected).enumerate() {
        let want = want.as_ref().expect("well-formed ICCS line");
        match game.replay() {
            Ok((start, moves)) => {
                let got: Vec<String> = moves.iter().map(ToString::to_string).collect();
                if got == want.moves
                    && game.result() == want.result
                    && start.fen() == Position::startpos().fen()
                {
                    agree += 1;
                } else if first.is_none() {
                    first = Some(format!("game {}: moves or result differ", want.number));
                }
            }
            Err(e) => {
                if first.is_none() {
                    first = Some(format!("game {} (index {i}): {e}", want.number));
                }
            }
        }
    }
    (agree, games.len(), first)
}

#[test]
fn sample_games_replay_to_the_end_and_match_their_iccs() {
    let (agree, total, first) = compare(SAMPLE_PGN, SAMPLE_TSV);
    assert_eq!(first, None);
    assert_eq!((agree, total), (32, 32));
}

#[test]
fn sample_game_details() {
    let games = pgn::parse_games(SAMPLE_PGN);
    let first = &games[0];
    assert_eq!(first.tag("Red"), Some("於紅木"));
    assert_eq!(first.tag("Black"), Some("吳貴臨"));
    assert_eq!(first.tag("ECCO"), Some("C23"));
    assert_eq!(first.result(), Some(GameResult::RedWins));
    assert_eq!(first.moves.len(), 115);
    assert_eq!(&first.moves[..3], ["炮二平五", "馬８進７", "馬二進三"]);
    // Game 3528 moves the front of three soldiers on one file.
    let g = games
        .iter()
        .find(|g| g.moves.len() == 211)
        .expect("game 3528 is in the sample");
    let (_, moves) = g.replay().unwrap();
    assert_eq!(moves.len(), 211);
    let results: Vec<Option<GameResult>> = games.iter().map(pgn::PgnGame::result).collect();
    assert_eq!(
        results
            .iter()
            .filter(|r| **r == Some(GameResult::RedWins))
            .count(),
        13
    );
    assert_eq!(
        results
            .iter()
            .filter(|r| **r == Some(GameResult::Draw))
            .count(),
        10
    );
    assert_eq!(
        results
            .iter()
            .filter(|r| **r == Some(GameResult::BlackWins))
            .count(),
        9
    );
}

#[test]
fn a_corrupted_move_fails_the_replay_at_its_ply() {
    let text = SAMPLE_PGN
        .split("\n\n[Game")
        .next()
        .unwrap()
        .replacen("馬８進７", "馬８進６", 1);
    let games = pgn::parse_games(&text);
    assert_eq!(games.len(), 1);
    let err = games[0].replay().unwrap_err();
    assert_eq!(
        err.to_string(),
        "ply 2: '馬８進６': the move described is not legal"
    );
    let pos = Position::startpos();
    assert_eq!(
        notation::parse_any(&pos, "炮二平五").unwrap().to_string(),
        "h2e2"
    );
}

/// The text of an `.xz` file, decompressed in-process by the reader the
/// tools use; a missing or bad file is a failure that names it.
fn xz_text(path: &Path) -> String {
    book::pgn::read_text(path).unwrap_or_else(|e| panic!("{e}"))
}

/// The whole CCPD collection against its ICCS list (about a minute with
/// `--release`). Run with `cargo test -p book --release -- --ignored`.
#[test]
#[ignore = "reads all 27,945 games of data/games (60 MB unpacked); run with --release --ignored"]
fn all_ccpd_games_agree_with_their_iccs() {
    let dir = Path::new(CCPD_GAMES);
    let pgn_text = xz_text(&dir.join("ccpd-games.pgn.xz"));
    let tsv_text = xz_text(&dir.join("ccpd-games.iccs.tsv.xz"));
    let (agree, total, first) = compare(&pgn_text, &tsv_text);
    println!("{agree} of {total} games agree");
    assert_eq!(first, None);
    assert_eq!((agree, total), (27_945, 27_945));
}
