//! Games as played and written: score adjudication, round robins with
//! openings, what the engines are sent, valid PGN, and short real runs of
//! Chariot.

use super::*;

#[test]
fn score_adjudication() {
    let dir = scratch("adjudication");
    let pgn = dir.join("games.pgn");
    // `up` always claims +800, `down` −800: with resign score=500 moves=2
    // `down` gives up after both have moved twice (4 plies).
    let mut args = strings(&[
        "--engine",
        "name=up",
        &format!("cmd={MOCK}"),
        "arg=--score",
        "arg=800",
    ]);
    args.extend(strings(&[
        "--engine",
        "name=down",
        &format!("cmd={MOCK}"),
        "proto=uci",
        "arg=--score",
        "arg=-800",
    ]));
    args.extend(strings(&[
        "--depth",
        "1",
        "--games",
        "2",
        "--resign",
        "score=500",
        "moves=2",
    ]));
    args.extend(strings(&["--pgn", &pgn.display().to_string()]));
    let out = run_arena(&args, Duration::from_secs(20));
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(games.len(), 2);
    for g in &games {
        check_game(g);
        assert_eq!(g.tags["Termination"], "adjudication: resign");
        assert_eq!(g.moves.len(), 4);
        assert_eq!(
            g.result_token,
            if g.tags["Red"] == "up" { "1-0" } else { "0-1" }
        );
    }
    assert!(out.contains("up vs down: W 2 D 0 L 0"), "{out}");

    // Both at 0 with draw score=10 moves=3 after=1: drawn after 6 plies.
    let pgn = dir.join("draws.pgn");
    let mut args = Vec::new();
    for name in ["x", "y"] {
        args.extend(strings(&[
            "--engine",
            &format!("name={name}"),
            &format!("cmd={MOCK}"),
        ]));
    }
    args.extend(strings(&[
        "--depth", "1", "--games", "2", "--draw", "score=10", "moves=3", "after=1",
    ]));
    args.extend(strings(&["--pgn", &pgn.display().to_string()]));
    let out = run_arena(&args, Duration::from_secs(20));
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(games.len(), 2);
    for g in &games {
        check_game(g);
        assert_eq!(g.tags["Termination"], "adjudication: draw");
        assert_eq!(g.moves.len(), 6);
        assert_eq!(g.result_token, "1/2-1/2");
    }
    assert!(out.contains("x vs y: W 0 D 2 L 0"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn round_robin_with_openings() {
    let dir = scratch("round-robin");
    let pgn = dir.join("games.pgn");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings.epd");
    let mut args = Vec::new();
    for name in ["p", "q", "r"] {
        args.extend(strings(&[
            "--engine",
            &format!("name={name}"),
            &format!("cmd={MOCK}"),
        ]));
    }
    args.extend(strings(&[
        "--nodes",
        "100",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--max-plies",
        "300",
    ]));
    args.extend(strings(&[
        "--openings",
        &openings.display().to_string(),
        "--pgn",
        &pgn.display().to_string(),
    ]));
    let out = run_arena(&args, Duration::from_secs(60));
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    // 3 pairings × 4 games.
    assert_eq!(games.len(), 12, "{out}");
    let suite = std::fs::read_to_string(&openings).unwrap();
    let first_two: Vec<String> = suite
        .lines()
        .filter(|l| !l.starts_with('#'))
        .take(2)
        .map(|l| {
            Position::from_fen(&l.split(" c0").next().unwrap().replace(" - -", " - - 0 1"))
                .unwrap()
                .fen()
        })
        .collect();
    let mut rounds: Vec<u64> = Vec::new();
    for g in &games {
        check_game(g);
        assert!(
            first_two.contains(&g.tags["FEN"]),
            "openings are used in order"
        );
        rounds.push(g.tags["Round"].parse().unwrap());
    }
    rounds.sort_unstable();
    assert_eq!(rounds, (1..=12).collect::<Vec<u64>>());
    assert!(out.contains("Finished 12 games"), "{out}");
    for name in ["p", "q", "r"] {
        assert!(
            out.lines()
                .any(|l| l.starts_with(name) && l.contains(" 8 ")),
            "{name} played 8 games: {out}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The workspace's Chariot binary, if built (CI builds release first).
fn chariot() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()?
        .to_path_buf();
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        dirs.push(root.join(dir));
    }
    dirs.push(root.join("target"));
    for dir in dirs {
        for profile in ["release", "debug"] {
            let path = dir.join(profile).join("chariot");
            if path.is_file() {
                return Some(path);
            }
        }
    }
    None
}

/// Plays `games` games between the given `--engine` argument lists (each
/// naming the real Chariot binary through `{cmd}`) with the extra
/// arguments `limits`, from the balanced openings; returns the arena's
/// output and the games of its PGN. `None` when the binary is not built.
fn chariot_match(
    name: &str,
    engines: &[&[&str]],
    limits: &[&str],
    timeout: Duration,
) -> Option<(String, Vec<PgnGame>)> {
    let Some(chariot) = chariot() else {
        println!("note: chariot binary not built (target/release/chariot); skipping the real run");
        return None;
    };
    let dir = scratch(name);
    let pgn = dir.join("games.pgn");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings.epd");
    let cmd = format!("cmd={}", chariot.display());
    let mut args = Vec::new();
    for engine in engines {
        args.push("--engine".to_string());
        args.extend(engine.iter().map(|a| a.replace("{cmd}", &cmd)));
    }
    args.extend(strings(limits));
    args.extend(strings(&[
        "--openings",
        &openings.display().to_string(),
        "--pgn",
        &pgn.display().to_string(),
    ]));
    let out = run_arena(&args, timeout);
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    Some((out, games))
}

#[test]
fn chariot_self_play() {
    let Some((out, games)) = chariot_match(
        "chariot",
        &[
            &["name=ucci", "{cmd}", "proto=ucci", "option.hashsize=8"],
            &["name=uci", "{cmd}", "proto=uci", "option.Hash=8"],
        ],
        &[
            "--tc",
            "1+0.02",
            // The test asks for faultless play in both dialects, not for
            // time management (the engine's own tests check that): a
            // second of grace keeps a move that a loaded machine
            // descheduled (794 ms on a 225 ms clock beside an SPRT) from
            // counting as the engine's fault.
            "--margin",
            "1000",
            "--games",
            "4",
            "--concurrency",
            "1",
        ],
        Duration::from_secs(90),
    ) else {
        return;
    };
    assert_eq!(games.len(), 4, "{out}");
    for g in &games {
        check_game(g);
        assert!(!g.moves.is_empty(), "{out}\n{:?}", g.tags);
    }
    // Engine faults would name the engine in the report.
    assert!(!out.contains("Fault:"), "{out}");
    assert!(out.contains("Finished 4 games"), "{out}");
}

/// A low strength level loses to full strength: skill 0 (1,000 nodes a
/// move and a hot draw among its four best lines) against full strength at
/// 20,000 nodes, four games from the balanced openings, scores at most one
/// point, and every game is legal and ends without a fault.
#[test]
fn a_low_level_loses_to_full_strength() {
    let Some((out, games)) = chariot_match(
        "levels",
        &[
            &[
                "name=weak",
                "{cmd}",
                "proto=uci",
                "option.Skill Level=0",
                "option.OwnBook=false",
            ],
            &["name=full", "{cmd}", "proto=uci", "option.OwnBook=false"],
        ],
        &["--nodes", "20000", "--games", "4", "--concurrency", "1"],
        Duration::from_secs(120),
    ) else {
        return;
    };
    assert_eq!(games.len(), 4, "{out}");
    let mut weak_points = 0.0;
    for g in &games {
        check_game(g);
        let weak_red = g.tags["Red"] == "weak";
        weak_points += match (g.result_token.as_str(), weak_red) {
            ("1-0", true) | ("0-1", false) => 1.0,
            ("1/2-1/2", _) => 0.5,
            _ => 0.0,
        };
    }
    assert!(!out.contains("Fault:"), "{out}");
    assert!(
        weak_points <= 1.0,
        "skill 0 scored {weak_points} of 4\n{out}"
    );
}

#[test]
fn what_the_engines_are_sent() {
    // A round robin of three mocks that log their input: UCCI with
    // `usemillisec`, UCI, and UCCI without `usemillisec` (seconds). Games
    // are cut after 2 plies, so every engine moves once per game.
    let dir = scratch("dialogue");
    let log = |name: &str| dir.join(format!("{name}.log"));
    let engines = [
        ("a", "proto=ucci", "option.hashsize=8", None),
        ("b", "proto=uci", "option.Hash=8", None),
        ("c", "proto=ucci", "option.threads=1", Some("arg=--seconds")),
    ];
    let mut args = Vec::new();
    for (name, proto, option, extra) in engines {
        args.extend(strings(&[
            "--engine",
            &format!("name={name}"),
            &format!("cmd={MOCK}"),
            proto,
            option,
        ]));
        args.extend(strings(&[
            "arg=--log",
            &format!("arg={}", log(name).display()),
        ]));
        args.extend(extra.map(ToString::to_string));
    }
    args.extend(strings(&[
        "--tc",
        "3+1",
        "--games",
        "2",
        "--max-plies",
        "2",
    ]));
    let out = run_arena(&args, Duration::from_secs(20));
    assert!(out.contains("Terminations: ply limit 6"), "{out}");
    let read = |name: &str| -> Vec<String> {
        std::fs::read_to_string(log(name))
            .unwrap()
            .lines()
            .map(ToString::to_string)
            .collect()
    };
    let start = format!("position fen {}", board::START_FEN);

    let a = read("a");
    assert_eq!(
        a[..4],
        [
            "ucci",
            "setoption usemillisec true",
            "setoption hashsize 8",
            "isready"
        ]
    );
    assert_eq!(a.iter().filter(|l| *l == "setoption newgame").count(), 4);
    assert_eq!(
        a.iter().filter(|l| *l == &start).count(),
        2,
        "a is Red in two games"
    );
    assert!(a.contains(&"go time 3000 increment 1000 opptime 3000 oppincrement 1000".to_string()));
    for go in a.iter().filter(|l| l.starts_with("go")) {
        let w: Vec<&str> = go.split_whitespace().collect();
        assert_eq!(
            (w[1], w[3], w[5], w[7]),
            ("time", "increment", "opptime", "oppincrement"),
            "{go}"
        );
        assert_eq!((w[4], w[8]), ("1000", "1000"));
    }
    assert_eq!(a.last().map(String::as_str), Some("quit"));

    let b = read("b");
    assert_eq!(b[..3], ["uci", "setoption name Hash value 8", "isready"]);
    assert_eq!(b.iter().filter(|l| *l == "ucinewgame").count(), 4);
    assert!(b.contains(&"go wtime 3000 btime 3000 winc 1000 binc 1000".to_string()));
    for go in b.iter().filter(|l| l.starts_with("go")) {
        let w: Vec<&str> = go.split_whitespace().collect();
        assert_eq!(
            (w[1], w[3], w[5], w[6], w[7], w[8]),
            ("wtime", "btime", "winc", "1000", "binc", "1000"),
            "{go}"
        );
        // Black moves second: Red's clock has been charged and credited.
        if w[2] != "3000" {
            assert!(
                w[2].parse::<u64>().unwrap() > 3000 && w[4] == "3000",
                "{go}"
            );
        }
    }
    // Black's reply comes with the moves so far.
    assert!(
        b.iter().any(
            |l| l.starts_with(&format!("{start} moves ")) && l.split_whitespace().count() == 10
        )
    );

    let c = read("c");
    assert_eq!(c[..3], ["ucci", "setoption threads 1", "isready"]);
    assert!(
        c.contains(&"go time 3 increment 1 opptime 3 oppincrement 1".to_string()),
        "{c:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
