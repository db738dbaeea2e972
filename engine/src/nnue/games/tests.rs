//! The games format round-trips exactly and refuses damage; the filters
//! keep and drop what they should on hand-made positions.

use board::Position;

use super::*;

fn mv(pos: &Position, text: &str) -> Move {
    pos.parse_move(text).expect("legal move")
}

/// A short legal game from the start: an unscored random ply, then
/// scored plies, one of them a capture.
fn sample_game(result: GameResult) -> GameRecord {
    let mut pos = Position::startpos();
    let mut plies = Vec::new();
    for (i, m) in ["h2e2", "h9g7", "e2e6", "a9a8"].iter().enumerate() {
        let m = mv(&pos, m);
        let score = if i == 0 {
            None
        } else {
            Some(30 - 7 * i as i16)
        };
        plies.push(Ply { mv: m, score });
        pos.make_move(m);
    }
    GameRecord {
        start: Position::startpos().fen(),
        plies,
        result,
    }
}

fn write_all(games: &[GameRecord]) -> Vec<u8> {
    let mut w = GameWriter::new(Vec::new()).expect("header");
    for g in games {
        w.write(g).expect("game");
    }
    w.finish().expect("flush")
}

fn read_all(bytes: &[u8]) -> Result<Vec<GameRecord>, GamesError> {
    GameReader::new(bytes)?.collect()
}

#[test]
fn games_round_trip_exactly() {
    let games = [
        sample_game(GameResult::RedWins),
        sample_game(GameResult::Draw),
        sample_game(GameResult::BlackWins),
        GameRecord {
            start: "4k4/9/9/9/9/9/9/9/4A4/3K5 w - - 0 1".to_string(),
            plies: Vec::new(),
            result: GameResult::Draw,
        },
    ];
    let bytes = write_all(&games);
    assert_eq!(&bytes[..8], b"CHGAMES\n");
    let fen = games[0].start.len();
    // Header, then per game 1 + FEN + 3 + 4 per ply.
    assert_eq!(
        bytes.len(),
        GAMES_HEADER_BYTES + 3 * (1 + fen + 3 + 16) + (1 + games[3].start.len() + 3)
    );
    assert_eq!(read_all(&bytes).expect("valid"), games);
    // A score of i16::MIN cannot be stored: it means "not searched".
    let mut g = sample_game(GameResult::Draw);
    g.plies[1].score = Some(i16::MIN);
    assert!(
        GameWriter::new(Vec::new())
            .expect("header")
            .write(&g)
            .is_err()
    );
}

#[test]
fn damaged_files_are_refused() {
    let good = write_all(&[sample_game(GameResult::RedWins)]);
    assert!(matches!(
        read_all(b"CHDATA\r\n\x01\0\0\0\0\0\0\0"),
        Err(GamesError::BadMagic)
    ));
    assert!(matches!(read_all(&good[..5]), Err(GamesError::BadMagic)));
    let mut v2 = good.clone();
    v2[8] = 2;
    assert!(matches!(read_all(&v2), Err(GamesError::WrongVersion(2))));
    for cut in [GAMES_HEADER_BYTES + 1, good.len() - 1] {
        assert!(
            matches!(read_all(&good[..cut]), Err(GamesError::Truncated)),
            "{cut}"
        );
    }
    let fen_len = usize::from(good[GAMES_HEADER_BYTES]);
    let result_at = GAMES_HEADER_BYTES + 1 + fen_len;
    let mut bad_result = good.clone();
    bad_result[result_at] = 3;
    assert!(matches!(
        read_all(&bad_result),
        Err(GamesError::BadGame(0, _))
    ));
    // The third ply (e2e6) becomes e2e9: not a legal move there.
    let ply3 = result_at + 3 + 2 * 4;
    let mut illegal = good.clone();
    let e2e9 = "e2e9".parse::<Move>().expect("move").to_u16();
    illegal[ply3..ply3 + 2].copy_from_slice(&e2e9.to_le_bytes());
    let err = read_all(&illegal).expect_err("illegal move");
    assert!(err.to_string().contains("ply 3"), "{err}");
    let mut bad_fen = good.clone();
    bad_fen[GAMES_HEADER_BYTES + 1] = b'Z';
    assert!(matches!(read_all(&bad_fen), Err(GamesError::BadGame(0, _))));
    // The empty file after a header is an empty data set.
    assert_eq!(
        read_all(&good[..GAMES_HEADER_BYTES]).expect("empty").len(),
        0
    );
}

/// Judges the position of `fen` with the ply `m` scored `score`.
fn judge(sel: &mut Selector, fen: &str, m: &str, score: Option<i16>) -> Result<i16, Dropped> {
    let pos = Position::from_fen(fen).expect("fen");
    let ply = Ply {
        mv: mv(&pos, m),
        score,
    };
    sel.judge(&pos, &ply)
}

#[test]
fn filters_keep_quiet_positions_and_drop_the_rest() {
    let mut sel = Selector::new(Filters::default());
    let start = board::START_FEN;
    assert_eq!(judge(&mut sel, start, "h2e2", Some(25)), Ok(25));
    // The same position again: a duplicate.
    assert_eq!(
        judge(&mut sel, start, "b0c2", Some(20)),
        Err(Dropped::Duplicate)
    );
    assert_eq!(judge(&mut sel, start, "h2e2", None), Err(Dropped::Unscored));
    // Mates and rule verdicts (the mate scale) are not evaluations.
    let near_mate = i16::try_from(crate::score::MATE - 5).expect("fits");
    let after_h2e2 = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1";
    assert_eq!(
        judge(&mut sel, after_h2e2, "h9g7", Some(near_mate)),
        Err(Dropped::Decided)
    );
    assert_eq!(
        judge(&mut sel, after_h2e2, "h9g7", Some(-near_mate)),
        Err(Dropped::Decided)
    );
    // In check: Black's general faces Red's chariot on the e-file.
    let check = "4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1";
    assert_eq!(
        judge(&mut sel, check, "e9f9", Some(-300)),
        Err(Dropped::InCheck)
    );
    // The move played captures (the chariot takes the cannon).
    let capture = "5k3/9/9/9/4c4/9/9/9/4R4/3K5 w - - 0 1";
    assert_eq!(
        judge(&mut sel, capture, "e1e5", Some(300)),
        Err(Dropped::CaptureBest)
    );
    // A quiet move, but a free cannon stands en prise: not quiet.
    assert_eq!(
        judge(&mut sel, capture, "d0d1", Some(300)),
        Err(Dropped::Noisy)
    );
    // A cannon that a chariot defends loses our chariot in the exchange:
    // quiet.
    let defended = "4rk3/9/9/9/4c4/9/9/9/4R4/3K5 w - - 0 1";
    assert!(judge(&mut sel, defended, "d0d1", Some(-50)).is_ok());
    assert_eq!(sel.kept, 2);
    assert_eq!(sel.count(Dropped::Decided), 2);
    for d in [
        Dropped::Duplicate,
        Dropped::Unscored,
        Dropped::InCheck,
        Dropped::CaptureBest,
    ] {
        assert_eq!(sel.count(d), 1, "{d:?}");
    }
    // With every filter off, everything scored is kept.
    let mut all = Selector::new(Filters {
        in_check: false,
        capture_best: false,
        decided: false,
        noisy: false,
        duplicates: false,
    });
    assert!(judge(&mut all, check, "e9f9", Some(-300)).is_ok());
    assert!(judge(&mut all, capture, "e1e5", Some(300)).is_ok());
    assert!(judge(&mut all, capture, "e1e5", Some(300)).is_ok());
    assert_eq!(judge(&mut all, start, "h2e2", None), Err(Dropped::Unscored));
}

#[test]
fn result_bytes_are_the_documented_ones() {
    for (byte, result) in [
        (0, GameResult::BlackWins),
        (1, GameResult::Draw),
        (2, GameResult::RedWins),
    ] {
        assert_eq!(result_byte(result), byte);
        assert_eq!(result_from_byte(byte), Some(result));
    }
    assert_eq!(result_from_byte(3), None);
}
