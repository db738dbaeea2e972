use super::*;

fn parse(line: &str) -> Result<Command, ParseError> {
    line.parse()
}

fn go(line: &str) -> GoCommand {
    match parse(line) {
        Ok(Command::Go(go)) => *go,
        other => panic!("{line:?} parsed as {other:?}"),
    }
}

#[test]
fn simple_commands() {
    assert_eq!(parse("ucci"), Ok(Command::Ucci));
    assert_eq!(parse("UCI\r"), Ok(Command::Uci));
    assert_eq!(parse("  isready  \t"), Ok(Command::IsReady));
    assert_eq!(parse("stop"), Ok(Command::Stop));
    assert_eq!(parse("quit\r\n"), Ok(Command::Quit));
    assert_eq!(parse("ucinewgame"), Ok(Command::NewGame));
    assert_eq!(parse("ponderhit"), Ok(Command::PonderHit { draw: false }));
    assert_eq!(
        parse("ponderhit DRAW"),
        Ok(Command::PonderHit { draw: true })
    );
    assert_eq!(parse("d"), Ok(Command::Display));
    assert_eq!(parse("eval"), Ok(Command::Eval));
    assert_eq!(parse("bench"), Ok(Command::Bench));
    assert_eq!(parse("debug"), Ok(Command::Debug(true)));
    assert_eq!(parse("debug off"), Ok(Command::Debug(false)));
    assert!(matches!(
        parse("debug maybe"),
        Err(ParseError::Malformed(_))
    ));
    assert_eq!(parse(""), Ok(Command::Empty));
    assert_eq!(parse(" \t\r"), Ok(Command::Empty));
}

#[test]
fn unknown_commands_are_quoted_safely() {
    assert_eq!(
        parse("hello world"),
        Err(ParseError::Unknown("hello".to_string()))
    );
    assert_eq!(
        parse("\u{fffd}\u{1}x"),
        Err(ParseError::Unknown("??x".to_string()))
    );
    let long = "x".repeat(10_000);
    let Err(ParseError::Unknown(q)) = parse(&long) else {
        panic!()
    };
    assert_eq!(q, format!("{}...", "x".repeat(40)));
}

#[test]
fn setoption_shapes() {
    assert_eq!(
        parse("setoption hashsize 64"),
        Ok(Command::SetOption(SetOption {
            name: "hashsize".into(),
            value: Some("64".into())
        }))
    );
    assert_eq!(
        parse("setoption name Hash value 64"),
        Ok(Command::SetOption(SetOption {
            name: "Hash".into(),
            value: Some("64".into())
        }))
    );
    assert_eq!(
        parse("setoption name Clear Hash"),
        Ok(Command::SetOption(SetOption {
            name: "Clear Hash".into(),
            value: None
        }))
    );
    assert_eq!(
        parse("setoption NAME BookFile VALUE a b.obk;  c.obk \r"),
        Ok(Command::SetOption(SetOption {
            name: "BookFile".into(),
            value: Some("a b.obk;  c.obk".into())
        }))
    );
    assert_eq!(
        parse("setoption bookfiles  my  book.obk"),
        Ok(Command::SetOption(SetOption {
            name: "bookfiles".into(),
            value: Some("my  book.obk".into())
        }))
    );
    assert_eq!(
        parse("setoption newgame"),
        Ok(Command::SetOption(SetOption {
            name: "newgame".into(),
            value: None
        }))
    );
    assert_eq!(
        parse("setoption name Hash value"),
        Ok(Command::SetOption(SetOption {
            name: "Hash".into(),
            value: None
        }))
    );
    assert!(matches!(parse("setoption"), Err(ParseError::Malformed(_))));
    assert!(matches!(
        parse("setoption name"),
        Err(ParseError::Malformed(_))
    ));
    assert!(matches!(
        parse("setoption name value 3"),
        Err(ParseError::Malformed(_))
    ));
}

#[test]
fn positions() {
    assert_eq!(
        parse("position startpos"),
        Ok(Command::Position(PositionSpec {
            base: Base::StartPos,
            moves: vec![]
        }))
    );
    assert_eq!(
        parse("position  startpos\tmoves  h2e2\th7e7\r"),
        Ok(Command::Position(PositionSpec {
            base: Base::StartPos,
            moves: vec!["h2e2".into(), "h7e7".into()]
        }))
    );
    assert_eq!(
        parse("position fen 9/9/9/9/9/9/9/9/9/4K4 w - - 0 1 MOVES"),
        Ok(Command::Position(PositionSpec {
            base: Base::Fen("9/9/9/9/9/9/9/9/9/4K4 w - - 0 1".into()),
            moves: vec![]
        }))
    );
    assert_eq!(
        parse("fen a b moves x"),
        Ok(Command::Position(PositionSpec {
            base: Base::Fen("a b".into()),
            moves: vec!["x".into()]
        }))
    );
    assert_eq!(
        parse("startpos moves h2e2"),
        Ok(Command::Position(PositionSpec {
            base: Base::StartPos,
            moves: vec!["h2e2".into()]
        }))
    );
    assert!(matches!(parse("position"), Err(ParseError::BadPosition(_))));
    assert!(matches!(
        parse("position fen"),
        Err(ParseError::BadPosition(_))
    ));
    assert!(matches!(
        parse("position fen moves a0a1"),
        Err(ParseError::BadPosition(_))
    ));
    assert!(matches!(
        parse("position moves h2e2"),
        Err(ParseError::BadPosition(_))
    ));
    assert!(matches!(
        parse("position startpos h2e2"),
        Err(ParseError::BadPosition(_))
    ));
    assert!(matches!(
        parse("position garbage"),
        Err(ParseError::BadPosition(_))
    ));
}

#[test]
fn probe_and_banmoves() {
    assert_eq!(
        parse("probe startpos moves h2e2"),
        Ok(Command::Probe(Some(PositionSpec {
            base: Base::StartPos,
            moves: vec!["h2e2".into()]
        })))
    );
    assert_eq!(parse("probe"), Ok(Command::Probe(None)));
    assert_eq!(parse("probe junk"), Ok(Command::Probe(None)));
    assert_eq!(
        parse("banmoves c3c4  g3g4"),
        Ok(Command::BanMoves(vec!["c3c4".into(), "g3g4".into()]))
    );
    assert_eq!(parse("banmoves"), Ok(Command::BanMoves(vec![])));
}

#[test]
fn go_tokens() {
    let g = go("go depth 3");
    assert_eq!(g.depth, Some(Depth::Plies(3)));
    assert!(g.has_limit());
    assert!(g.warnings.is_empty());
    assert_eq!(go("go depth infinite").depth, Some(Depth::Infinite));
    assert!(!go("go depth infinite").has_limit());
    assert!(!go("go").has_limit());
    let g = go(
        "go ponder draw time 1000 increment 20 opptime 900 oppincrement 10 oppmovestogo 5 movestogo 30",
    );
    assert!(g.ponder && g.draw);
    assert_eq!(
        (
            g.time,
            g.increment,
            g.opptime,
            g.oppincrement,
            g.oppmovestogo,
            g.movestogo
        ),
        (Some(1000), Some(20), Some(900), Some(10), Some(5), Some(30))
    );
    let g = go("GO WTIME 100 btime 60000 winc 1 binc 2 movetime 50 nodes 1000 mate 3 infinite");
    assert_eq!(
        (g.wtime, g.btime, g.winc, g.binc),
        (Some(100), Some(60000), Some(1), Some(2))
    );
    assert_eq!(
        (g.movetime, g.nodes, g.mate, g.infinite),
        (Some(50), Some(1000), Some(3), true)
    );
    assert_eq!(go("go movestogo 0").movestogo, None);
    let g = go("go searchmoves h2e2 b0c2 depth 2");
    assert_eq!(g.searchmoves, vec!["h2e2".to_string(), "b0c2".to_string()]);
    assert_eq!(g.depth, Some(Depth::Plies(2)));
    assert_eq!(go("go time 5 time 7").time, Some(7));
}

#[test]
fn go_bad_numbers_are_clamped_or_ignored() {
    let g = go("go depth -5");
    assert_eq!(g.depth, Some(Depth::Plies(1)));
    assert_eq!(g.warnings.len(), 1);
    let g = go("go depth 99999999999999999999999999999");
    assert_eq!(g.depth, Some(Depth::Plies(MAX_DEPTH)));
    assert_eq!(g.warnings.len(), 1);
    let g = go("go time abc increment 5");
    assert_eq!((g.time, g.increment), (None, Some(5)));
    assert_eq!(g.warnings.len(), 1);
    let g = go("go wtime -300 btime 1e9");
    assert_eq!((g.wtime, g.btime), (Some(0), None));
    assert_eq!(g.warnings.len(), 2);
    let g = go("go depth nodes 5");
    assert_eq!((g.depth, g.nodes), (None, Some(5)));
    let g = go("go nodes 0");
    assert_eq!(g.nodes, Some(1));
    let g = go("go movetime 1000000000000");
    assert_eq!(g.movetime, Some(MAX_TIME_MS));
    let g = go("go frobnicate 7 depth 1");
    assert_eq!(g.depth, Some(Depth::Plies(1)));
    assert_eq!(g.warnings.len(), 2, "{:?}", g.warnings);
    let g = go("go depth");
    assert_eq!(g.depth, None);
    assert_eq!(g.warnings.len(), 1);
}

#[test]
fn perft() {
    assert_eq!(parse("go perft 3"), Ok(Command::Perft(3)));
    assert_eq!(parse("go depth 3 perft 0"), Ok(Command::Perft(0)));
    assert!(matches!(parse("go perft"), Err(ParseError::Malformed(_))));
    assert!(matches!(
        parse("go perft -1"),
        Err(ParseError::Malformed(_))
    ));
    assert!(matches!(
        parse("go perft 65"),
        Err(ParseError::Malformed(_))
    ));
}

#[test]
fn numbers() {
    assert_eq!(
        read_number("+12"),
        Some(Number {
            negative: false,
            magnitude: 12,
            overflowed: false
        })
    );
    assert_eq!(
        read_number("-0"),
        Some(Number {
            negative: false,
            magnitude: 0,
            overflowed: false
        })
    );
    assert_eq!(read_number("-"), None);
    assert_eq!(read_number("1.5"), None);
    assert_eq!(
        read_number("18446744073709551616"),
        Some(Number {
            negative: false,
            magnitude: u64::MAX,
            overflowed: true
        })
    );
}

#[test]
fn quote_is_ascii() {
    assert_eq!(quote("a\tb\u{e9}"), "a?b?");
}
