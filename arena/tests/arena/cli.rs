//! The command line and the run's life: refused arguments and programs, the
//! banner, Ctrl-C and SIGTERM, a closed stdout, the progress bar.

use super::*;

#[test]
fn bad_command_lines_are_refused() {
    for args in [
        vec!["--engine", "cmd=x"],
        vec![
            "--engine", "name=a", "cmd=x", "--engine", "name=a", "cmd=y", "--depth", "1",
        ],
        vec![
            "--engine", "cmd=x", "--engine", "cmd=y", "--depth", "1", "--tc", "1+0",
        ],
        vec!["--engine", "cmd=x", "--engine", "cmd=y", "--tc", "fast"],
        vec![
            "--engine", "cmd=x", "--engine", "cmd=y", "--depth", "1", "--sprt", "elo0=0",
        ],
    ] {
        let out = Command::new(ARENA).args(&args).output().unwrap();
        assert!(!out.status.success(), "{args:?} accepted");
        assert!(!out.stderr.is_empty());
    }
    // An engine that cannot start stops the run before any game.
    let out = Command::new(ARENA)
        .args([
            "--engine",
            "name=ghost",
            "cmd=/nonexistent/engine",
            "--engine",
            &format!("cmd={MOCK}"),
            "--depth",
            "1",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start engine 'ghost'"));
    assert!(out.stdout.is_empty());
    let help = Command::new(ARENA).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for word in [
        "--engine",
        "--tc",
        "--sprt",
        "--openings",
        "--pgn",
        "option.NAME",
        "proto=ucci|uci",
    ] {
        assert!(help.contains(word), "--help mentions {word}");
    }
}

#[test]
fn a_program_that_is_no_engine_is_refused_in_plain_words() {
    // `cat` echoes `ucci` back and never says `ucciok`; `true` exits at once.
    for (cmd, expected) in [
        (
            "/bin/cat",
            "did not answer 'ucci' with 'ucciok' within 10 s",
        ),
        (
            "/bin/true",
            "exited with exit status: 0 before answering 'ucci'",
        ),
    ] {
        let start = Instant::now();
        let out = Command::new(ARENA)
            .args([
                "--engine",
                "name=notengine",
                &format!("cmd={cmd}"),
                "--engine",
                &format!("cmd={MOCK}"),
                "--depth",
                "1",
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(start.elapsed() < Duration::from_secs(15));
        assert!(err.contains("engine 'notengine' failed to start"), "{err}");
        assert!(err.contains(expected), "{err}");
        assert!(err.contains("proto=uci"), "{err}");
        for debug_text in ["Hung", "Crashed(", "\"exit"] {
            assert!(!err.contains(debug_text), "{err}");
        }
    }
}

/// A long run of two mock engines, `b` thinking 30 ms a move and both
/// ignoring `quit`: stdout as timed lines, and the arena's process.
fn long_run(
    dir: &Path,
    extra: &[&str],
) -> (PathBuf, std::process::Child, Receiver<(Instant, String)>) {
    let (pids, mut args) = quit_ignoring_pair(dir);
    args.extend(strings(&["arg=--delay", "arg=30"]));
    args.extend(strings(&[
        "--tc",
        "600+0",
        "--games",
        "10000",
        "--concurrency",
        "2",
        "--grace",
        "300",
    ]));
    args.extend(strings(extra));
    let mut child = Command::new(ARENA)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    (pids, child, rx)
}

/// Waits for `child` to exit, failing with `what` once `limit` has passed
/// since `since`.
fn exit_within(
    child: &mut std::process::Child,
    since: Instant,
    limit: Duration,
    what: &str,
) -> std::process::ExitStatus {
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(since.elapsed() < limit, "{what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Everything `child` wrote to its piped stderr.
fn stderr_of(child: &mut std::process::Child) -> String {
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    err
}

#[test]
fn banner_and_a_line_before_the_first_result() {
    let dir = scratch("banner");
    let (pids, mut child, lines) = long_run(&dir, &[]);
    let mut seen = Vec::new();
    while !seen.iter().any(|l: &String| l.starts_with("[1/")) {
        let (_, line) = lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no result line: {seen:?}"));
        seen.push(line);
    }
    let _ = child.kill();
    let _ = child.wait();
    let mock = Path::new(MOCK).display().to_string();
    assert_eq!(
        seen[0],
        format!("Engines: a ({mock}, ucci), b ({mock}, ucci)")
    );
    assert_eq!(
        seen[1],
        "Time control: 600; 10000 games (5000 pairs of games with colours swapped), 2 at a time"
    );
    assert_eq!(seen[2], "Openings: the start position (1 positions)");
    // Both workers' first games are announced before any result.
    assert!(seen[3].starts_with("Started game "), "{seen:?}");
    assert!(seen[4].starts_with("Started game "), "{seen:?}");
    assert!(seen.iter().any(|l| l == "Started game 1 of 10000: a - b"));
    // The engines ignore `quit` and the arena was killed: reap them here.
    for entry in std::fs::read_dir(&pids).unwrap() {
        let pid = entry.unwrap().file_name().to_string_lossy().into_owned();
        let _ = Command::new("kill").args(["-KILL", &pid]).status();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn ctrl_c_and_sigterm_stop_with_a_summary_and_no_engine_left() {
    for signal in ["INT", "TERM"] {
        let dir = scratch(&format!("signal-{signal}"));
        let (pids, mut child, lines) = long_run(&dir, &["--sprt", "elo0=0", "elo1=5"]);
        let mut out = Vec::new();
        // Wait for three results: with two workers playing pairs back to
        // back, one pair is then complete and the summary has one.
        while !out.iter().any(|l: &String| l.starts_with("[3/")) {
            let (_, line) = lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no results: {out:?}"));
            out.push(line);
        }
        let sent = Instant::now();
        let pid = child.id().to_string();
        assert!(
            Command::new("kill")
                .args([&format!("-{signal}"), &pid])
                .status()
                .unwrap()
                .success()
        );
        let status = exit_within(
            &mut child,
            sent,
            Duration::from_secs(10),
            &format!("SIG{signal}: the arena did not exit"),
        );
        let waited = sent.elapsed();
        out.extend(lines.iter().map(|(_, l)| l));
        let text = out.join("\n");
        let err = stderr_of(&mut child);
        assert_eq!(status.code(), Some(130), "SIG{signal}\n{text}\n{err}");
        // Engines ignore `quit`: 300 ms of grace each, then a kill; the
        // rest of the margin is for a loaded machine.
        assert!(waited < Duration::from_secs(5), "SIG{signal}: {waited:?}");
        assert!(err.contains("interrupted"), "{err}");
        assert!(
            text.contains("Interrupted: the games in progress were abandoned."),
            "{text}"
        );
        let finished = text
            .lines()
            .find_map(|l| l.strip_prefix("Finished "))
            .and_then(|l| l.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or_else(|| panic!("no summary: {text}"));
        let results = text.lines().filter(|l| l.starts_with('[')).count() as u64;
        assert!(finished >= 3 && finished == results, "{text}");
        assert!(text.contains("\na vs b: W "), "{text}");
        assert!(text.contains("  Elo from pairs: "), "{text}");
        assert!(
            text.contains("  Pentanomial [0, 0.5, 1, 1.5, 2]: ["),
            "{text}"
        );
        assert!(text.contains("  SPRT elo0=0 elo1=5 "), "{text}");
        assert_no_leaks(&pids);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Spawns the arena with `args` and a stdout whose reader is gone before
/// it starts (`arena … | head` after head has quit): every write fails.
fn arena_with_closed_stdout(args: &[String]) -> std::process::Child {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(ARENA)
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_closed_stdout_ends_pool_quietly() {
    let args = strings(&["pool", "--recorded", "2-2-2:0,1,1,1,0"]);
    let out = arena_with_closed_stdout(&args).wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_stdout_closed_under_a_run_stops_it_as_ctrl_c_does() {
    let dir = scratch("stdout-closed");
    let pgn = dir.join("games.pgn");
    let (pids, mut child, lines) = long_run(&dir, &["--pgn", &pgn.display().to_string()]);
    // Read up to the first result, then go away as `head` would.
    while !lines
        .recv_timeout(Duration::from_secs(60))
        .expect("a result line")
        .1
        .starts_with("[1/")
    {}
    drop(lines);
    // The reader notices at the next line (a game or two of 30 ms moves);
    // the rest of the margin is for a loaded machine.
    let status = exit_within(
        &mut child,
        Instant::now(),
        Duration::from_secs(60),
        "the arena went on playing to a closed stdout",
    );
    let err = stderr_of(&mut child);
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains("arena: cannot write to stdout: "), "{err}");
    assert!(
        err.contains("arena: stdout is closed; stopping the games in progress"),
        "{err}"
    );
    // Nothing finished is lost: the PGN holds at least the game reported.
    let games = parse_pgn(&std::fs::read_to_string(&pgn).unwrap());
    assert!(!games.is_empty());
    games.iter().for_each(check_game);
    assert_no_leaks(&pids);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn progress_bar_on_a_terminal_and_plain_lines_elsewhere() {
    let args = [
        "--engine",
        "name=a",
        &format!("cmd={MOCK}"),
        "arg=--delay",
        "arg=20",
        "--engine",
        "name=b",
        &format!("cmd={MOCK}"),
        "--depth",
        "1",
        "--games",
        "2",
    ];
    // Not a terminal: the lines only, as CONTRIBUTING.md's SPRT recipe reads them.
    let piped = run_arena(&strings(&args), Duration::from_secs(60));
    assert!(!piped.contains("ETA"), "{piped}");
    assert!(piped.contains("\n[2/2] b - a 1/2-1/2 (repetition draw) | a vs b: W 0 D 2 L 0"));
    // A terminal, made by util-linux `script` (where it is missing the
    // bar goes unchecked, and the test says so).
    let command = std::iter::once(ARENA)
        .chain(args)
        .collect::<Vec<_>>()
        .join(" ");
    let Ok(out) = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
    else {
        eprintln!("skipped the terminal half: no `script` command");
        return;
    };
    let tty = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{tty}");
    assert!(tty.contains("/2 games, "), "{tty}");
    assert!(tty.contains(" games/min, ETA "), "{tty}");
    assert!(
        tty.contains("[2/2] b - a 1/2-1/2 (repetition draw)"),
        "{tty}"
    );
    assert!(tty.contains("Finished 2 games"), "{tty}");
}
