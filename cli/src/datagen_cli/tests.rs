use super::*;
use crate::cases::{Leniency, Malformed};
use board::GameResult;
use engine::nnue::games::{Filters, Selector};

/// A `data check` run that fails on a bad chunk.
fn strict() -> Malformed {
    Malformed::new("data check", Leniency::default())
}

fn args(out: PathBuf) -> DatagenArgs {
    DatagenArgs {
        out,
        positions: Some(150),
        games: None,
        seconds: None,
        soft_nodes: 300,
        hard_nodes: 3_000,
        nodes: None,
        threads: 2,
        openings: None,
        random_plies: 4,
        max_plies: 200,
        win_score: 1_000,
        win_plies: 8,
        draw_score: 10,
        draw_plies: 16,
        draw_after: 80,
        hash: 1,
        pgn: None,
        relabel: None,
        skip_games: 0,
        seed: 7,
        eval: "builtin".to_string(),
        manifest: None,
    }
}

/// The run stops at the first game (in index order) that brings the kept
/// positions to the target; the file holds exactly the counted games, and
/// the default filters find in it what the summary said.
#[test]
fn writes_the_games_it_counts() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let out = temp("count.games");
    let summary = generate(&args(out.clone())).expect("datagen");
    let games = read_games(&out).expect("games");
    assert!(summary.selector.kept >= 150);
    assert_eq!(games.len() as u64, summary.games);
    let mut sel = Selector::new(Filters::default());
    let mut plies = 0;
    let mut kept_before_last = 0;
    for (i, g) in games.iter().enumerate() {
        if i + 1 == games.len() {
            kept_before_last = sel.kept;
        }
        plies += g.plies.len();
        g.replay(|pos, ply| {
            let _ = sel.judge(pos, ply);
        })
        .expect("replays");
    }
    assert_eq!(plies as u64, summary.plies);
    assert_eq!(sel.kept, summary.selector.kept);
    // Without the last game the target was not reached yet. (What the
    // last game adds is counted by replaying, not taken from its scored
    // positions: the filters drop some of those, so they may outnumber
    // every position kept.)
    assert!(kept_before_last < 150, "{kept_before_last}");
}

/// The same seed gives the same file, whatever the thread count, plain
/// or compressed.
#[test]
fn runs_repeat_exactly_with_any_thread_count() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let files: Vec<PathBuf> = (0..3).map(|k| temp(&format!("rep{k}.games"))).collect();
    for (k, f) in files.iter().enumerate() {
        let mut a = args(f.clone());
        a.threads = [1, 2, 2][k];
        a.positions = None;
        a.games = Some(6);
        generate(&a).expect("datagen");
    }
    let bytes: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(f).expect("read"))
        .collect();
    let xz = temp("rep.games.xz");
    let mut a = args(xz.clone());
    a.positions = None;
    a.games = Some(6);
    generate(&a).expect("datagen");
    let unpacked = read_games(&xz).expect("xz games");
    assert!(bytes[0] == bytes[1] && bytes[1] == bytes[2], "runs differ");
    let plain = engine::nnue::games::GameReader::new(&bytes[0][..])
        .expect("header")
        .collect::<Result<Vec<_>, _>>()
        .expect("games");
    assert_eq!(plain, unpacked);
    assert_eq!(plain.len(), 6);
}

#[test]
fn recorded_games_keep_their_moves_and_result() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let pgn = temp("in.pgn");
    let out = temp("pgn.games");
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
    let summary = generate(&a).expect("datagen --pgn");
    let games = read_games(&out).expect("games");
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&pgn);
    assert_eq!(summary.skipped, 1, "the game without a result");
    assert_eq!(games.len(), 1);
    let g = &games[0];
    assert_eq!(g.result, GameResult::RedWins);
    let moves: Vec<String> = g.plies.iter().map(|p| p.mv.to_string()).collect();
    assert_eq!(moves, ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "b9c7"]);
    assert!(g.plies.iter().all(|p| p.score.is_some()));
    // --skip-games starts later in the file: past the only scored game,
    // nothing is left.
    let mut a = args(out.clone());
    a.positions = None;
    a.pgn = Some(pgn.clone());
    a.skip_games = 1;
    std::fs::write(
        &pgn,
        "[Result \"1-0\"]\n[Format \"ICCS\"]\n\n1. h2e2 1-0\n\n\
         [Result \"0-1\"]\n[Format \"ICCS\"]\n\n1. b2e2 h9g7 0-1\n",
    )
    .expect("write PGN");
    generate(&a).expect("datagen --skip-games");
    let games = read_games(&out).expect("games");
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].result, GameResult::BlackWins);
    assert_eq!(games[0].plies.len(), 2);
}

/// `--relabel` searches a games file's positions again: the same games,
/// moves and results, this run's scores; `--skip-games` starts later in
/// the file; a file that is not a games file is refused by name.
#[test]
fn relabelled_games_keep_their_moves_and_get_new_scores() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let (first, second) = (temp("labels.games.xz"), temp("relabelled.games"));
    let mut a = args(first.clone());
    a.positions = None;
    a.games = Some(4);
    generate(&a).expect("datagen");
    let mut r = args(second.clone());
    r.positions = None;
    r.relabel = Some(first.clone());
    r.nodes = Some(2_000);
    let summary = generate(&r).expect("datagen --relabel");
    let (old, new) = (
        read_games(&first).expect("games"),
        read_games(&second).expect("games"),
    );
    assert_eq!(new.len(), 4);
    assert_eq!(summary.endings[Ending::Recorded as usize], 4);
    let mut changed = 0;
    for (o, n) in old.iter().zip(&new) {
        assert_eq!((&o.start, o.result), (&n.start, n.result));
        let moves = |g: &GameRecord| g.plies.iter().map(|p| p.mv).collect::<Vec<_>>();
        assert_eq!(moves(o), moves(n));
        assert!(n.plies.iter().all(|p| p.score.is_some()));
        changed += o
            .plies
            .iter()
            .zip(&n.plies)
            .filter(|(x, y)| x.score != y.score)
            .count();
    }
    assert!(changed > 10, "{changed} scores changed");
    r.skip_games = 3;
    generate(&r).expect("datagen --relabel --skip-games");
    let tail = read_games(&second).expect("games");
    assert_eq!(tail.len(), 1);
    assert_eq!(tail[0].plies.len(), old[3].plies.len());
    let not_games = temp("not.games");
    std::fs::write(&not_games, "hello").expect("write");
    r.relabel = Some(not_games);
    r.skip_games = 0;
    let err = format!("{:#}", generate(&r).expect_err("not a games file"));
    assert!(
        err.contains("--relabel") && err.contains("not.games"),
        "{err}"
    );
}

#[test]
fn bad_input_is_an_error_not_a_crash() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let mut a = args(temp("bad.games"));
    a.openings = Some(temp("missing.epd"));
    assert!(generate(&a).is_err());
    let empty = temp("empty.epd");
    std::fs::write(&empty, "# nothing\n\n").expect("write");
    a.openings = Some(empty.clone());
    assert!(generate(&a).is_err());
    std::fs::write(&empty, "not a fen\n").expect("write");
    let err = generate(&a).expect_err("bad FEN");
    assert!(format!("{err:#}").contains("line 1: bad FEN"), "{err:#}");
    assert!(read_games(&temp("nothing-here.games")).is_err());
}

/// A chunk recorded in a manifest checks out; a changed byte does not.
#[test]
fn manifests_prove_their_chunks() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let dir = temp("manifest-dir");
    std::fs::create_dir_all(&dir).expect("dir");
    let manifest = dir.join(crate::data_cli::MANIFEST);
    for k in 0..2u64 {
        let mut a = args(dir.join(format!("c{k}.games.xz")));
        a.positions = None;
        a.games = Some(3);
        a.seed = 100 + 3 * k;
        a.manifest = Some(manifest.clone());
        let s = generate(&a).expect("datagen");
        record_chunk(&a, &s, &manifest).expect("recorded");
    }
    let mut malformed = strict();
    let totals = crate::data_cli::check(&dir, &mut malformed).expect("checks");
    assert_eq!(malformed.count(), 0);
    assert_eq!((totals.chunks, totals.games), (2, 6));
    assert!(totals.kept > 0 && totals.kept <= totals.scored);
    let c0 = dir.join("c0.games.xz");
    let mut bytes = std::fs::read(&c0).expect("chunk");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&c0, bytes).expect("write");
    // The damaged chunk is named and left out; the other is still proved.
    let mut malformed = strict();
    let totals = crate::data_cli::check(&dir, &mut malformed).expect("a manifest");
    assert_eq!(totals.chunks, 1);
    assert_eq!(malformed.count(), 1);
    let said = &malformed.reported()[0];
    assert!(
        said.contains("c0.games.xz: ") && said.contains("SHA-256"),
        "{said}"
    );
    let mut elsewhere = args(temp("elsewhere.games"));
    elsewhere.games = Some(1);
    elsewhere.positions = None;
    elsewhere.manifest = Some(manifest.clone());
    let s = generate(&elsewhere).expect("datagen");
    assert!(record_chunk(&elsewhere, &s, &manifest).is_err());
}

/// `chariot data add`: a run's chunk, proved, moves into another
/// directory's manifest unchanged; a damaged chunk or a name already
/// taken is refused before anything moves.
#[test]
fn chunks_move_between_directories_once() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let (shard, merged) = (temp("add-shard"), temp("add-merged"));
    let run = |k: u64| {
        let _ = std::fs::remove_dir_all(&shard);
        std::fs::create_dir_all(&shard).expect("dir");
        let manifest = shard.join(crate::data_cli::MANIFEST);
        let mut a = args(shard.join(format!("s{k}.games.xz")));
        a.positions = None;
        a.games = Some(2);
        a.seed = 300 + 2 * k;
        a.manifest = Some(manifest.clone());
        let s = generate(&a).expect("datagen");
        record_chunk(&a, &s, &manifest).expect("recorded");
        crate::data_cli::read_manifest(&manifest)
            .expect("manifest")
            .chunk
    };
    let first = run(0);
    let added = crate::data_cli::add(&merged, &shard).expect("added");
    assert_eq!(added, first);
    assert!(!shard.join("s0.games.xz").exists(), "moved, not copied");
    // The same shard again: its file is gone from the source now, and
    // a second run of it is refused by name.
    assert!(crate::data_cli::add(&merged, &shard).is_err());
    let again = run(0);
    assert_eq!(again[0].sha256, first[0].sha256, "a rerun is the same file");
    let err = crate::data_cli::add(&merged, &shard).expect_err("taken");
    assert!(
        format!("{err:#}").contains("already holds a chunk named s0.games.xz"),
        "{err:#}"
    );
    assert!(shard.join("s0.games.xz").exists(), "a refused chunk stays");
    // A damaged chunk does not move.
    let second = run(1);
    let path = shard.join("s1.games.xz");
    let mut bytes = std::fs::read(&path).expect("chunk");
    bytes[20] ^= 1;
    std::fs::write(&path, bytes).expect("write");
    let err = crate::data_cli::add(&merged, &shard).expect_err("damaged");
    assert!(format!("{err:#}").contains("SHA-256"), "{err:#}");
    assert!(!merged.join("s1.games.xz").exists());
    // Repaired, it joins; the directory proves as a whole.
    let second_again = run(1);
    assert_eq!(second_again[0].sha256, second[0].sha256);
    crate::data_cli::add(&merged, &shard).expect("added");
    let mut malformed = strict();
    let totals = crate::data_cli::check(&merged, &mut malformed).expect("checks");
    assert_eq!(malformed.count(), 0);
    assert_eq!((totals.chunks, totals.games), (2, 4));
    let listed = crate::data_cli::read_manifest(&merged.join(crate::data_cli::MANIFEST))
        .expect("manifest")
        .chunk;
    assert_eq!(listed[0], first[0]);
    assert_eq!(listed[1].seed, 302);
    // An entry that names a path outside its directory is refused.
    let mut outside = listed[1].clone();
    outside.file = "../s1.games.xz".to_string();
    let m = crate::data_cli::Manifest {
        chunk: vec![outside],
        ..crate::data_cli::Manifest::default()
    };
    std::fs::write(
        shard.join(crate::data_cli::MANIFEST),
        toml::to_string(&m).expect("toml"),
    )
    .expect("write");
    let err = crate::data_cli::add(&merged, &shard).expect_err("a path");
    assert!(format!("{err:#}").contains("plain file names"), "{err:#}");
}

/// A self-play run whose only opening is the start position: `games`
/// games of at most `max_plies`, with up to `random_plies` random plies.
fn from_the_start_position(
    name: &str,
    random_plies: u32,
    games: u64,
    max_plies: u32,
) -> (Summary, Vec<engine::nnue::games::GameRecord>) {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let openings = temp(&format!("{name}.epd"));
    std::fs::write(&openings, format!("{}\n", board::START_FEN)).expect("write");
    let out = temp(&format!("{name}.games"));
    let mut a = args(out.clone());
    a.openings = Some(openings.clone());
    a.random_plies = random_plies;
    a.positions = None;
    a.games = Some(games);
    a.max_plies = max_plies;
    let summary = generate(&a).expect("datagen");
    let records = read_games(&out).expect("games");
    (summary, records)
}

/// A start drawn twice would be the same game twice: the run passes over
/// the seed, counts it, and still plays the games it was asked for, each
/// from its own start.
#[test]
fn a_start_is_played_once() {
    let (summary, games) = from_the_start_position("once", 1, 30, 30);
    assert_eq!(games.len(), 30);
    // One opening and at most one random ply: 45 starts, so 30 draws
    // repeat some (the first of them by the tenth draw or so).
    assert!(
        summary.repeated > 0,
        "no repeated start in {} draws",
        30 + summary.repeated
    );
    let starts: HashSet<Option<Move>> = games
        .iter()
        .map(|g| g.plies.first().filter(|p| p.score.is_none()).map(|p| p.mv))
        .collect();
    assert_eq!(starts.len(), 30, "every game from its own start");
}

/// Without random plies one opening is one game: asked for three, the run
/// plays it once and ends, saying why, instead of drawing forever.
#[test]
fn a_run_out_of_starts_ends() {
    let (summary, games) = from_the_start_position("exhausted", 0, 3, 20);
    assert_eq!(games.len(), 1);
    assert!(summary.exhausted);
    assert_eq!(summary.repeated, EXHAUSTED_AFTER);
}

#[test]
fn a_wrong_destination_is_refused_before_any_game() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let missing = args(temp("no-such-dir").join("sp-0.games.xz"));
    let err = check_destination(&missing).expect_err("no directory");
    assert!(format!("{err:#}").contains("mkdir -p"), "{err:#}");
    let dir = temp("dest");
    std::fs::create_dir_all(dir.join("elsewhere")).expect("dirs");
    let mut a = args(dir.join("sp-0.games.xz"));
    assert!(check_destination(&a).is_ok(), "no manifest asked");
    a.manifest = Some(dir.join("elsewhere/MANIFEST.toml"));
    let err = check_destination(&a).expect_err("manifest elsewhere");
    assert!(format!("{err:#}").contains("must lie in the manifest's directory"));
    a.manifest = Some(dir.join("MANIFEST.toml"));
    assert!(
        check_destination(&a).is_ok(),
        "a new manifest beside the output"
    );
    std::fs::write(
        dir.join("MANIFEST.toml"),
        "name = \"dest\"\nformat = \"chariot games v1\"\n\n[[chunk]]\n\
         file = \"sp-0.games.xz\"\nsha256 = \"00\"\nbytes = 1\n\
         command = \"chariot datagen\"\nengine = \"chariot\"\neval = \"hand\"\n\
         seed = 1\ngames = 1\nplies = 1\nscored = 1\nkept = 1\nseconds = 1.0\n",
    )
    .expect("manifest");
    let err = check_destination(&a).expect_err("already listed");
    assert!(format!("{err:#}").contains("already lists"), "{err:#}");
}

/// A generation that references an earlier one: `data check` proves both
/// directories' chunks, `data files` lists the earlier ones first, and a
/// reference to a directory without a manifest is an error.
#[test]
fn a_generation_references_the_chunks_of_an_earlier_one() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let root = temp("generations");
    for (k, name) in ["gen-a", "gen-b"].into_iter().enumerate() {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).expect("dir");
        let manifest = dir.join(crate::data_cli::MANIFEST);
        let mut a = args(dir.join("sp-0.games.xz"));
        a.positions = None;
        a.games = Some(2);
        a.seed = 700 + k as u64;
        a.manifest = Some(manifest.clone());
        let s = generate(&a).expect("datagen");
        record_chunk(&a, &s, &manifest).expect("recorded");
    }
    let b = root.join("gen-b");
    let manifest = b.join(crate::data_cli::MANIFEST);
    let mut m = crate::data_cli::read_manifest(&manifest).expect("manifest");
    m.earlier = vec!["../gen-a".to_string()];
    std::fs::write(&manifest, toml::to_string(&m).expect("toml")).expect("write");
    let listed: Vec<PathBuf> = crate::data_cli::chunks_of(&b)
        .expect("chunks")
        .iter()
        .map(|(at, c)| at.join(&c.file))
        .collect();
    assert_eq!(
        listed,
        [
            root.join("gen-a/sp-0.games.xz"),
            root.join("gen-b/sp-0.games.xz")
        ]
    );
    let mut malformed = strict();
    let totals = crate::data_cli::check(&b, &mut malformed).expect("checks");
    assert_eq!(malformed.count(), 0);
    assert_eq!((totals.chunks, totals.referenced, totals.games), (2, 1, 4));
    assert!(
        totals
            .to_string()
            .contains("2 chunks verified (1 in earlier generations)")
    );
    // The manifest keeps its reference when datagen appends to it.
    let mut more = args(b.join("sp-1.games.xz"));
    more.positions = None;
    more.games = Some(1);
    more.seed = 710;
    more.manifest = Some(manifest.clone());
    let s = generate(&more).expect("datagen");
    record_chunk(&more, &s, &manifest).expect("recorded");
    let m = crate::data_cli::read_manifest(&manifest).expect("manifest");
    assert_eq!((m.earlier.len(), m.chunk.len()), (1, 2));
    let mut broken = m;
    broken.earlier = vec!["../nowhere".to_string()];
    std::fs::write(&manifest, toml::to_string(&broken).expect("toml")).expect("write");
    let err = crate::data_cli::chunks_of(&b).expect_err("no such generation");
    assert!(
        format!("{err:#}").contains("earlier generation ../nowhere"),
        "{err:#}"
    );
}

/// Without `--openings` the run plays the built-in suite, the same games a
/// run given `arena/data/openings.epd` plays with the same seed, whatever
/// the working directory.
#[test]
fn the_built_in_suite_is_the_arena_file() {
    let scratch = test_support::scratch_dir("datagen");
    let temp = |name: &str| scratch.join(name);
    let file = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../arena/data/openings.epd"
    ));
    let fens = |list: Vec<Position>| list.iter().map(Position::fen).collect::<Vec<_>>();
    assert_eq!(
        fens(load_openings(None).expect("built in")),
        fens(load_openings(Some(&file)).expect("file"))
    );
    let mut a = args(temp("builtin.games"));
    a.positions = None;
    a.games = Some(4);
    generate(&a).expect("built-in suite");
    a.out = temp("file.games");
    a.openings = Some(file);
    generate(&a).expect("file suite");
    assert_eq!(
        read_games(&temp("builtin.games")).expect("games"),
        read_games(&temp("file.games")).expect("games")
    );
}

#[test]
fn the_progress_line_estimates_toward_the_target_given() {
    let mut s = Summary::new();
    s.games = 100;
    s.selector.kept = 5_000;
    s.elapsed = Duration::from_secs(10);
    let none = u64::MAX;
    let targets = |games, positions, seconds| Targets {
        games,
        positions,
        seconds,
    };
    // 500 kept positions a second, 5,000 to go.
    assert_eq!(
        progress_line(&s, targets(none, 10_000, None)),
        "100 games, 5000 kept positions, 500 kept/s, ETA 10 s"
    );
    // Ten games a second, 50 to go.
    assert_eq!(
        progress_line(&s, targets(150, none, None)),
        "100 games, 5000 kept positions, 500 kept/s, ETA 5 s"
    );
    // A run by the clock ends when its seconds do, not at once.
    assert_eq!(
        progress_line(&s, targets(none, none, Some(60))),
        "100 games, 5000 kept positions, 500 kept/s, ETA 50 s"
    );
    s.elapsed = Duration::from_secs(70);
    assert!(progress_line(&s, targets(none, none, Some(60))).ends_with(", ETA 0 s"));
    // Every game of a file: no target to estimate toward.
    assert_eq!(
        progress_line(&s, targets(none, none, None)),
        "100 games, 5000 kept positions, 71 kept/s"
    );
}
