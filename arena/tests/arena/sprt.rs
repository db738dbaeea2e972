//! The statistics of a run: an SPRT that stops when decided, skipped
//! openings, the warning for repeated fixed searches, and `arena pool`.

use super::*;

#[test]
fn sprt_stops_when_decided() {
    // `bad` plays an illegal move on its first move: every pair is a 2-0
    // for `good`. Logistic elo0 = 0, elo1 = 300: s0 = ½, s1 = 0.849; with
    // μ ≈ 1 and a near-zero variance, r0 ≈ 0.25 and r1 ≈ 0.0228, so each
    // pair adds about ½·ln(0.25/0.0228) = 1.197. The empty bins' weight of
    // 0.001 each (μ = 0.99958, var = 0.00051 at 3 pairs) trims that:
    // 2 pairs give 2.37 < 2.944, 3 pairs 3.57 ≥ 2.944 — the run stops after
    // 6 of its 40 games.
    let mut args = strings(&["--engine", "name=good", &format!("cmd={MOCK}")]);
    args.extend(strings(&[
        "--engine",
        "name=bad",
        &format!("cmd={MOCK}"),
        "arg=--mode",
        "arg=illegal",
        "arg=--after",
        "arg=0",
    ]));
    args.extend(strings(&[
        "--depth",
        "1",
        "--games",
        "40",
        "--sprt",
        "elo0=0",
        "elo1=300",
        "model=logistic",
    ]));
    let out = run_arena(&args, Duration::from_secs(20));
    assert!(out.contains("Finished 6 games"), "{out}");
    assert!(out.contains("[6/40]"), "{out}");
    assert!(out.contains("SPRT stop: H1 accepted (pass)"), "{out}");
    assert!(out.contains("SPRT elo0=0 elo1=300 alpha=0.05 beta=0.05 (logistic): LLR 3.57 [-2.94, 2.94] H1 accepted (pass)"), "{out}");
    assert!(
        out.contains("SPRT stopped at game 6 (LLR 3.57): H1 accepted (pass)"),
        "{out}"
    );
}

#[test]
fn fixed_searches_warn_when_openings_repeat() {
    // One opening (the start position): at a fixed depth the second pair
    // replays the first, and the banner says so; one pair, or a clock,
    // draws no note.
    let run = |limit: &[&str], games: &str| {
        let mut args = two_mocks();
        args.extend(strings(limit));
        args.extend(strings(&["--games", games]));
        run_arena(&args, Duration::from_secs(20))
    };
    let note = "Note: at a fixed depth a pair from the same opening is usually the same pair again; only the first 2 games of each pairing are new";
    let out = run(&["--depth", "1"], "4");
    assert!(out.lines().any(|l| l.starts_with(note)), "{out}");
    assert!(!run(&["--depth", "1"], "2").contains("Note:"));
    assert!(!run(&["--tc", "1+0.01"], "4").contains("Note:"));
}

/// Three different openings, written to `three.epd` in `dir`.
fn three_openings(dir: &Path) -> (PathBuf, [&'static str; 3]) {
    let suite = dir.join("three.epd");
    let fens = [
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1",
        "rnbakabnr/9/1c2c4/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2",
    ];
    std::fs::write(&suite, fens.join("\n")).unwrap();
    (suite, fens)
}

#[test]
fn a_fixed_search_plays_each_opening_once_a_colour_by_default() {
    // Three openings, the first skipped, no --games: at a fixed depth the
    // run is the two left, each with each colour (4 games), and no note of
    // repeats; at a clock the default stays one pair.
    let dir = scratch("default-games");
    let (suite, fens) = three_openings(&dir);
    let run = |limit: &[&str], pgn: &Path| {
        let mut args = two_mocks();
        args.extend(strings(limit));
        args.extend(strings(&["--max-plies", "60"]));
        args.extend(strings(&["--openings", &suite.display().to_string()]));
        args.extend(strings(&["--skip-openings", "1"]));
        args.extend(strings(&["--pgn", &pgn.display().to_string()]));
        run_arena(&args, Duration::from_secs(30))
    };
    let pgn = dir.join("fixed.pgn");
    let out = run(&["--depth", "1"], &pgn);
    assert!(out.contains("Finished 4 games"), "{out}");
    assert!(!out.contains("Note:"), "{out}");
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    let mut starts: Vec<&str> = games.iter().map(|g| g.tags["FEN"].as_str()).collect();
    starts.sort_unstable();
    let mut expected = [fens[1], fens[1], fens[2], fens[2]];
    expected.sort_unstable();
    assert_eq!(starts, expected);
    let out = run(&["--tc", "1+0.01"], &dir.join("clock.pgn"));
    assert!(out.contains("Finished 2 games"), "{out}");
}

#[test]
fn skipped_openings_are_not_played() {
    // Three openings, the first two skipped: every game starts from the
    // third, the banner says so, and the repeat note counts one opening.
    let dir = scratch("skip-openings");
    let (suite, fens) = three_openings(&dir);
    let pgn = dir.join("games.pgn");
    let run = |skip: &str, pgn: Option<&Path>| {
        let mut args = two_mocks();
        args.extend(strings(&[
            "--depth",
            "1",
            "--games",
            "4",
            "--max-plies",
            "60",
        ]));
        args.extend(strings(&["--openings", &suite.display().to_string()]));
        args.extend(strings(&["--skip-openings", skip]));
        if let Some(pgn) = pgn {
            args.extend(strings(&["--pgn", &pgn.display().to_string()]));
        }
        args
    };
    let out = run_arena(&run("2", Some(&pgn)), Duration::from_secs(30));
    assert!(
        out.contains("three.epd, the first 2 skipped (1 positions)"),
        "{out}"
    );
    assert!(
        out.contains("only the first 2 games of each pairing are new"),
        "{out}"
    );
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert_eq!(games.len(), 4);
    for g in &games {
        assert_eq!(g.tags["FEN"], fens[2]);
    }
    // Skipping every opening, or skipping without a file, is refused.
    let out = Command::new(ARENA).args(run("3", None)).output().unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("--skip-openings 3 leaves none of the 3 openings"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut no_file = strings(&["--engine", &format!("cmd={MOCK}"), "--engine"]);
    no_file.extend(strings(&[
        &format!("cmd={MOCK}"),
        "--depth",
        "1",
        "--skip-openings",
        "1",
    ]));
    assert!(
        !Command::new(ARENA)
            .args(&no_file)
            .output()
            .unwrap()
            .status
            .success()
    );
}

#[test]
fn pooled_runs_score_as_the_match_did() {
    // A run's own report and `arena pool` of its PGN agree; two runs
    // pooled count every pair of both; a file holding two runs is refused.
    let dir = scratch("pool");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/openings.epd");
    let run = |pgn: &Path, skip: &str| {
        let mut args = two_mocks();
        args.extend(strings(&[
            "--nodes",
            "100",
            "--games",
            "6",
            "--concurrency",
            "2",
        ]));
        args.extend(strings(&["--max-plies", "120", "--skip-openings", skip]));
        args.extend(strings(&["--openings", &openings.display().to_string()]));
        args.extend(strings(&["--sprt", "elo0=0", "elo1=50"]));
        args.extend(strings(&["--pgn", &pgn.display().to_string()]));
        run_arena(&args, Duration::from_secs(60))
    };
    let pool = |files: &[&Path]| {
        let mut cmd = Command::new(ARENA);
        cmd.arg("pool")
            .args(files)
            .args(["--sprt", "elo0=0", "elo1=50"]);
        cmd.output().unwrap()
    };
    let block = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.starts_with("  ") || l.starts_with("a vs b"))
            .map(str::to_string)
            .collect()
    };
    let (first, second) = (dir.join("first.pgn"), dir.join("second.pgn"));
    let out = run(&first, "0");
    let pooled = pool(&[&first]);
    assert!(pooled.status.success());
    let pooled = String::from_utf8_lossy(&pooled.stdout).into_owned();
    assert_eq!(block(&pooled), block(&out), "{pooled}\n---\n{out}");
    assert!(pooled.contains("first.pgn: 3 pairs"), "{pooled}");
    run(&second, "3");
    let both = pool(&[&first, &second]);
    let both = String::from_utf8_lossy(&both.stdout).into_owned();
    assert!(both.contains("(6 pairs)"), "{both}");
    // The same pool for programs: the total is the files' sum.
    let json = Command::new(ARENA)
        .args(["pool", "--json", "--sprt", "elo0=0", "elo1=50", "--"])
        .args([&first, &second])
        .output()
        .unwrap();
    assert!(json.status.success());
    let json = String::from_utf8_lossy(&json.stdout).into_owned();
    assert!(
        json.starts_with('{') && json.contains("\"total\":6"),
        "{json}"
    );
    assert!(
        json.contains("\"pairs\":3}") && json.contains("\"left_out\":0"),
        "{json}"
    );
    assert!(json.contains("\"state\":\""), "{json}");
    // Two runs appended to one file cannot be paired again.
    run(&first, "3");
    let mixed = pool(&[&first]);
    assert!(!mixed.status.success());
    assert!(String::from_utf8_lossy(&mixed.stderr).contains("appears twice"));
}
