use super::*;
use engine::nnue::data::RecordReader;

fn args(out: PathBuf) -> DatagenArgs {
    DatagenArgs {
        out,
        positions: Some(150),
        games: None,
        nodes: 300,
        threads: 2,
        openings: PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../arena/data/openings.epd"
        )),
        random_plies: 4,
        max_plies: 200,
        hash: 1,
        pgn: None,
        seed: 7,
        eval: "builtin".to_string(),
    }
}

/// Every record of a data file datagen wrote.
fn read_records(path: &std::path::Path) -> Vec<Record> {
    let file = File::open(path).expect("output");
    RecordReader::new(std::io::BufReader::new(file))
        .expect("header")
        .collect::<Result<_, _>>()
        .expect("records")
}

#[test]
fn writes_quiet_labelled_unique_positions() {
    let out = std::env::temp_dir().join(format!("chariot-datagen-{}.bin", std::process::id()));
    generate(&args(out.clone())).expect("datagen");
    let records = read_records(&out);
    let _ = std::fs::remove_file(&out);
    assert_eq!(records.len(), 150);
    let mut keys = HashSet::new();
    for r in &records {
        let mut pos = r.to_position().expect("a legal position");
        assert!(!pos.in_check());
        assert!(is_quiet(&mut pos));
        assert!((-1..=1).contains(&r.result));
        assert!(keys.insert(pos.key()), "duplicate {}", pos.fen());
    }
}

#[test]
fn one_thread_runs_repeat_exactly() {
    let dir = std::env::temp_dir();
    let files: Vec<PathBuf> = (0..2)
        .map(|k| dir.join(format!("chariot-datagen-rep{k}-{}.bin", std::process::id())))
        .collect();
    for f in &files {
        let mut a = args(f.clone());
        a.threads = 1;
        a.positions = Some(80);
        generate(&a).expect("datagen");
    }
    let bytes: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("read"))
        .collect();
    for f in &files {
        let _ = std::fs::remove_file(f);
    }
    assert_eq!(bytes[0].len(), 16 + 80 * 32);
    assert!(bytes[0] == bytes[1], "two runs with one thread differ");
}

#[test]
fn recorded_games_are_labelled_with_their_result() {
    let dir = std::env::temp_dir();
    let pgn = dir.join(format!("chariot-datagen-{}.pgn", std::process::id()));
    let out = dir.join(format!("chariot-datagen-pgn-{}.bin", std::process::id()));
    std::fs::write(
        &pgn,
        "[Event \"a\"]\n[Result \"1-0\"]\n[Format \"ICCS\"]\n\n\
             1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 b9c7 1-0\n\n\
             [Event \"b\"]\n[Result \"*\"]\n[Format \"ICCS\"]\n\n1. h2e2 *\n",
    )
    .expect("write PGN");
    let mut a = args(out.clone());
    a.positions = None;
    a.pgn = Some(pgn.clone());
    generate(&a).expect("datagen --pgn");
    let records = read_records(&out);
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&pgn);
    assert!(!records.is_empty() && records.len() <= 6);
    for r in &records {
        let expected = if r.side == Color::Red { 1 } else { -1 };
        assert_eq!(r.result, expected);
    }
}

#[test]
fn quietness_sees_a_hanging_piece() {
    // Red's chariot on a5 can take an undefended Black horse on a8: a
    // capture gains material, so the position is not quiet.
    let mut pos = Position::from_fen("3akab2/n8/9/9/R8/9/9/9/9/3K5 w - - 0 1").expect("FEN");
    assert!(!is_quiet(&mut pos));
    let mut start = Position::startpos();
    assert!(is_quiet(&mut start));
}
