//! Options (`docs/ucci.md` §3): both `setoption` shapes, clamping and bad
//! values, the table's size, the network file, threads, the move overhead,
//! UCI's WDL and variant ranks.

use super::*;

#[test]
fn extra_uci_setoption_and_search_lines() {
    let mut e = Engine::uci();
    e.send_all(&[
        "setoption name Hash value 8",
        "setoption Threads 1",
        "setoption name Clear Hash",
    ]);
    assert!(e.sync().is_empty());
    e.send_all(&["ucinewgame", "position startpos moves h2e2", "go depth 3"]);
    let (before, line, _) = e.final_line(SEARCH);
    legal_best(&line, &pos(None, &["h2e2"]));
    let infos: Vec<&String> = before
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(!infos.is_empty());
    for l in infos {
        for word in [
            " seldepth ",
            " multipv 1 ",
            " score ",
            " nodes ",
            " nps ",
            " hashfull ",
            " time ",
            " pv ",
        ] {
            assert!(l.contains(word), "{l} lacks{word}");
        }
        assert!(
            l.contains(" score cp ") || l.contains(" score mate "),
            "{l}"
        );
    }
    e.assert_protocol_only();
}

#[test]
fn extra_option_clamping_and_bad_values() {
    let mut e = Engine::ucci();
    e.send_all(&[
        "setoption threads 99999999999999999999999",
        "setoption threads -3",
        "setoption multipv abc",
        "setoption usemillisec",
        "setoption name Ponder value maybe",
        "setoption hashsize 0",
        "setoption name NoSuchOption value 1",
        "setoption batch false",
    ]);
    let before = e.sync();
    assert_eq!(
        before.len(),
        6,
        "one diagnostic each, none for valid values: {before:?}"
    );
    assert!(before.iter().all(|l| l.starts_with("info string ")));
    e.send("go depth 2");
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_impossible_hash_is_refused() {
    let mut e = Engine::ucci();
    // 64 GB: more than any test machine has free; refused, old table kept.
    e.send("setoption hashsize 65536");
    let before = e.sync();
    assert_eq!(before.len(), 1, "{before:?}");
    assert!(
        before[0].starts_with("info string option hashsize: 65536 MB refused")
            && before[0].ends_with("the table stays at 16 MB"),
        "{before:?}"
    );
    e.send("go depth 2");
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_option_messages_name_the_option_as_sent_and_the_real_size() {
    let mut e = Engine::uci();
    // 100 MB rounds down to 64; a refused size then keeps those 64, not
    // the 100 asked before; a UCI name is answered with the UCI name.
    e.send_all(&[
        "setoption name Hash value 100",
        "setoption name Hash value 65536",
        "setoption name Skill Level value 25",
    ]);
    let before = e.sync();
    assert_eq!(before.len(), 3, "{before:?}");
    assert_eq!(
        before[0],
        "info string option Hash: 100 MB asked, 64 MB allocated (a power of two of buckets)"
    );
    assert!(
        before[1].starts_with("info string option Hash: 65536 MB refused")
            && before[1].ends_with("the table stays at 64 MB"),
        "{before:?}"
    );
    assert_eq!(
        before[2],
        "info string option Skill Level: 25 is outside 0..20, using 20"
    );
    e.send("go depth 2");
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_table_below_a_megabyte_for_experiments() {
    let mut e = Engine::ucci();
    // 300 KiB is rounded down to 256; 64 GiB is refused, 256 KiB kept.
    e.send_all(&["setoption ttsizekib 300", "setoption ttsizekib 67108864"]);
    let before = e.sync();
    assert_eq!(before.len(), 2, "{before:?}");
    assert_eq!(
        before[0],
        "info string option ttsizekib: 300 KiB asked, 256 KiB allocated (a power of two of buckets)"
    );
    assert!(
        before[1].starts_with("info string option ttsizekib: 67108864 KiB refused")
            && before[1].ends_with("the table stays at 256 KiB"),
        "{before:?}"
    );
    e.send("go depth 4");
    bestmove_of(&mut e, None, &[]);
}

/// A move with ranks 1–10 (`h3e3`, `a10a9`) in ICCS (`h2e2`, `a9a8`); the
/// test's own reading, independent of the engine's.
fn fairy_to_iccs(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    for _ in 0..2 {
        let file = &rest[..1];
        let digits = rest[1..].chars().take_while(char::is_ascii_digit).count();
        let rank: u32 = rest[1..=digits].parse().expect("a rank");
        assert!((1..=10).contains(&rank), "{text}");
        out.push_str(&format!("{file}{}", rank - 1));
        rest = &rest[1 + digits..];
    }
    assert!(rest.is_empty(), "{text}");
    out
}

/// The words after `key` in a line, up to the next word `stop`.
fn words_after<'a>(line: &'a str, key: &str, stop: Option<&str>) -> Vec<&'a str> {
    line.split(' ')
        .skip_while(|w| *w != key)
        .skip(1)
        .take_while(|w| Some(*w) != stop)
        .collect()
}

/// The Fairy-Stockfish / cutechess dialect as the cutechess fork that plays
/// xiangqi sends it: `UCI_Variant` advertised as a combo, set by the GUI,
/// and from then on every move read and written with ranks 1–10 (`h3e3` is
/// Red's central cannon, our `h2e2`).
#[test]
fn extra_uci_variant_ranks_1_to_10() {
    let mut e = Engine::start();
    e.send("uci");
    let handshake = e.expect_line("uciok");
    assert!(
        handshake.contains(
            &"option name UCI_Variant type combo default xiangqi var xiangqi".to_string()
        ),
        "{handshake:?}"
    );
    e.send_all(&[
        "setoption name UCI_Variant value xiangqi",
        "setoption name Hash value 16",
        "ucinewgame",
    ]);
    assert!(e.sync().is_empty(), "the variant is accepted silently");
    e.send_all(&[
        "position startpos moves h3e3 h10g8",
        "go wtime 2000 btime 2000 winc 10 binc 10",
    ]);
    let (info, line, _) = e.final_line(SEARCH);
    let iccs_moves = ["h2e2", "h9g7"];
    // bestmove and ponder, with ranks 1–10, legal after the two moves.
    let words: Vec<&str> = line.split(' ').collect();
    let mut iccs = vec!["bestmove".to_string(), fairy_to_iccs(words[1])];
    if words.get(2) == Some(&"ponder") {
        iccs.extend(["ponder".to_string(), fairy_to_iccs(words[3])]);
    }
    legal_best(&iccs.join(" "), &pos(None, &iccs_moves));
    // Every pv is a legal line in ranks 1–10.
    let pvs: Vec<&String> = info.iter().filter(|l| l.contains(" pv ")).collect();
    assert!(!pvs.is_empty(), "{info:?}");
    for l in pvs {
        let mut p = pos(None, &iccs_moves);
        for m in words_after(l, "pv", None) {
            let mv = p.parse_move(&fairy_to_iccs(m)).expect("legal pv move");
            p.play(mv).expect("legal");
        }
    }
    // A square on rank 10 makes a move five or six characters long, in
    // searchmoves and bestmove alike.
    e.send_all(&[
        "position fen 3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1",
        "go depth 2 searchmoves a1a10",
    ]);
    let (_, line, _) = e.final_line(SEARCH);
    assert!(line.starts_with("bestmove a1a10"), "{line}");
    e.send_all(&[
        "position startpos moves a1a2 a10a9 a2a3",
        "go depth 1 searchmoves a9a10",
    ]);
    let (_, line, _) = e.final_line(SEARCH);
    assert_eq!(words_after(&line, "bestmove", Some("ponder")), ["a9a10"]);
    // ICCS is refused now, with the move named as written.
    e.send_all(&["position startpos moves h2e2", "go depth 1"]);
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "bestmove (none)");
    assert!(before.iter().any(|l| l.contains("h2e2")), "{before:?}");
    e.assert_protocol_only();
}

/// Without `UCI_Variant`, ranks stay 0–9 as Pikafish writes them; a move
/// that reads only with ranks 1–10 is refused with a hint at the option.
#[test]
fn extra_without_uci_variant_ranks_stay_0_to_9() {
    let mut e = Engine::uci();
    e.send_all(&["position startpos moves h3e3", "go depth 1"]);
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "bestmove (none)");
    assert!(
        before.iter().any(|l| l.starts_with("info string")
            && l.contains("h3e3")
            && l.contains("UCI_Variant")),
        "{before:?}"
    );
    e.send_all(&["position startpos moves h2e2 h9g7", "go depth 2"]);
    bestmove_of(&mut e, None, &["h2e2", "h9g7"]);
    e.send("setoption name UCI_Variant value shogi");
    let diag = e.sync();
    assert!(diag.len() == 1 && diag[0].contains("shogi"), "{diag:?}");
    e.send_all(&["position startpos moves h2e2", "go depth 1"]);
    bestmove_of(&mut e, None, &["h2e2"]);
    let mut u = Engine::ucci();
    u.send("ucci");
    let lines = u.expect_line("ucciok");
    assert!(!lines.iter().any(|l| l.contains("variant")), "{lines:?}");
}

/// A clock move from the start position without the book, with `Move
/// Overhead` set to `overhead` ms: the stop bound debug mode reports (ms)
/// and the time from `go` to the final line.
fn clock_move_with_overhead(overhead: u64) -> (u64, Duration) {
    let mut e = Engine::uci();
    e.send_all(&[
        "setoption name OwnBook value false",
        &format!("setoption name Move Overhead value {overhead}"),
        "debug on",
    ]);
    assert!(e.sync().is_empty(), "Move Overhead is known");
    e.send("position startpos");
    let t0 = Instant::now();
    e.send("go wtime 3000 btime 3000 movestogo 1");
    let (before, line, at) = e.final_line(SEARCH);
    legal_best(&line, &pos(None, &[]));
    let said = before
        .iter()
        .find_map(|l| l.strip_prefix("info string time: "))
        .unwrap_or_else(|| panic!("no time budget in debug mode: {before:?}"));
    let stop = words_after(said, "stop", None);
    assert_eq!(stop.get(2), Some(&"ms"), "{said}");
    let stop = stop[1].parse().expect("a number of milliseconds");
    (stop, at.duration_since(t0))
}

/// Pikafish's `Move Overhead`: milliseconds kept back from every
/// clock-limited move. On a 3 s clock with one move to go the move may use
/// 60 % of what the overhead and the engine's own 40 ms margin leave: 0 ms
/// gives it 1,776 ms, 1,400 ms gives it 936 ms. The budget is what debug
/// mode reports; the search may end a settled move well before it (the
/// soft bound shrinks to 0.45 of itself), so the time taken is checked
/// only against the budget's end, not against the other overhead's.
#[test]
fn extra_move_overhead_shortens_clock_moves() {
    let (plain_stop, plain) = clock_move_with_overhead(0);
    let (kept_stop, kept) = clock_move_with_overhead(1400);
    assert_eq!((plain_stop, kept_stop), (1776, 936));
    for (stop, took) in [(plain_stop, plain), (kept_stop, kept)] {
        // The margin is for a loaded machine.
        assert!(
            took < Duration::from_millis(stop) + bound(300),
            "stop at {stop} ms, took {took:?}"
        );
    }
}

/// `UCI_ShowWDL`: win/draw/loss per mille after the score in UCI `info`
/// lines, summing to 1000; absent by default and in UCCI.
#[test]
fn extra_uci_show_wdl() {
    let mut e = Engine::uci();
    e.send_all(&["position startpos", "go depth 3"]);
    let (info, _, _) = e.final_line(SEARCH);
    assert!(!info.iter().any(|l| l.contains("wdl")), "{info:?}");
    e.send_all(&[
        "setoption name UCI_ShowWDL value true",
        "position startpos",
        "go depth 3",
    ]);
    let (info, _, _) = e.final_line(SEARCH);
    let scored: Vec<&String> = info.iter().filter(|l| l.contains(" score ")).collect();
    assert!(!scored.is_empty());
    for l in scored {
        let wdl: Vec<u32> = words_after(l, "wdl", None)
            .iter()
            .take(3)
            .map(|w| w.parse().expect("a number"))
            .collect();
        assert_eq!(wdl.len(), 3, "{l}");
        assert_eq!(wdl.iter().sum::<u32>(), 1000, "{l}");
        let score = words_after(l, "score", Some("wdl"));
        assert_eq!(score[0], "cp", "{l}");
    }
    e.send_all(&["ucci", "position startpos", "go depth 2"]);
    let (info, _, _) = e.final_line(SEARCH);
    assert!(!info.iter().any(|l| l.contains("wdl")), "{info:?}");
    e.send("setoption name Contempt value 3");
    let diag = e.sync();
    assert_eq!(diag, ["info string unknown option: Contempt"]);
}

/// A big hash table is ready at once: its zeroed pages are mapped lazily
/// instead of being touched before `readyok` (4 GB took 8.5 s on an idle
/// machine, 21 s on a loaded one), and a `ucinewgame` right after does not
/// touch them either.
#[test]
fn extra_big_hash_is_ready_fast() {
    let mut e = Engine::uci();
    let t0 = Instant::now();
    e.send_all(&["setoption name Hash value 4096", "ucinewgame"]);
    let diag = e.sync();
    let took = t0.elapsed();
    if diag.iter().any(|l| l.contains("refused")) {
        // Not that much memory free here: refused up front, also fast.
        eprintln!("4096 MB refused here: {diag:?}");
    } else {
        assert!(diag.is_empty(), "{diag:?}");
    }
    assert!(
        took < Duration::from_secs(2),
        "setoption Hash 4096 took {took:?}"
    );
    e.send_all(&["position startpos", "go depth 3"]);
    bestmove_of(&mut e, None, &[]);
}

/// `EvalFile` / `evalfile`: a file that does not load (missing, not a
/// network, cut short) is named with the reason, and the network that
/// played before keeps playing; `Use NNUE` switches to the hand-written
/// evaluation and back; both names work in both dialects.
#[test]
fn extra_evalfile_bad_files_keep_the_network() {
    let dir = test_support::scratch_dir("evalfile");
    let junk = dir.join("junk.nnue");
    std::fs::write(
        &junk,
        b"not a network at all, but long enough to have a header",
    )
    .expect("write");
    let mut e = Engine::uci();
    let before = {
        e.send_all(&["position startpos", "eval"]);
        e.sync()
    };
    for (file, reason) in [
        (dir.join("missing.nnue"), "not found"),
        (junk.clone(), "magic"),
    ] {
        e.send(&format!("setoption name EvalFile value {}", file.display()));
        let lines = e.sync();
        assert!(
            lines.iter().any(|l| l.starts_with("info string evalfile")
                && l.contains(reason)
                && l.contains("keeping <builtin>")),
            "{lines:?}"
        );
        e.send_all(&["position startpos", "eval"]);
        assert_eq!(e.sync(), before, "the evaluation did not change");
    }
    // The hand-written evaluation on request; a search still answers.
    e.send_all(&[
        "setoption name Use NNUE value false",
        "position startpos",
        "go depth 3",
    ]);
    bestmove_of(&mut e, None, &[]);
    e.send_all(&["setoption name Use NNUE value maybe"]);
    let lines = e.sync();
    assert!(
        lines.iter().any(|l| l.contains("expected true or false")),
        "{lines:?}"
    );
    let mut u = Engine::ucci();
    u.send(&format!("setoption evalfile {}", junk.display()));
    let lines = u.sync();
    assert!(lines.iter().any(|l| l.contains("magic")), "{lines:?}");
}

/// `threads` refuses 0, negatives, values above 1024 and words with one
/// diagnostic each, keeping the value it had; a valid value searches.
#[test]
fn extra_bad_thread_counts_keep_the_old_value() {
    let mut e = Engine::ucci();
    e.send("setoption threads 2");
    assert!(e.sync().is_empty());
    e.send_all(&[
        "setoption threads 0",
        "setoption threads -1",
        "setoption threads 1025",
        "setoption threads many",
        "setoption name Threads value 0",
    ]);
    let before = e.sync();
    assert_eq!(before.len(), 5, "one diagnostic each: {before:?}");
    // Each names the option as it was sent.
    for l in &before[..4] {
        assert!(l.starts_with("info string option threads: "), "{l}");
    }
    assert!(
        before[4].starts_with("info string option Threads: "),
        "{}",
        before[4]
    );
    assert_eq!(
        before[2],
        "info string option threads: 1025 is outside 1..1024; keeping 2"
    );
    assert!(before[4].ends_with("keeping 2"), "{}", before[4]);
    e.send_all(&["position startpos", "go depth 5"]);
    bestmove_of(&mut e, None, &[]);
    e.assert_protocol_only();
}

/// With four search threads `isready` and `stop` answer in order, node
/// counts in `info` grow, and `quit` during the search ends the engine
/// promptly. (How soon `isready` and `stop` answer with four threads is
/// timed in-process: protocol/tests/timing.rs.)
#[test]
fn extra_many_threads_stop_isready_and_quit() {
    let mut e = Engine::uci();
    e.send("setoption name Threads value 4");
    assert!(e.sync().is_empty());
    e.send_all(&["position startpos", "go infinite"]);
    std::thread::sleep(Duration::from_millis(300));
    e.send("isready");
    let (before, _, _) = e.wait_for("readyok", SOON, |l| l == "readyok");
    assert!(!before.iter().any(|l| l.starts_with("bestmove")));
    e.send("stop");
    let (before, line, _) = e.final_line(SOON);
    legal_best(&line, &board::Position::startpos());
    let nodes: Vec<u64> = e
        .seen
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .filter_map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            let i = w.iter().position(|&x| x == "nodes")?;
            w.get(i + 1)?.parse().ok()
        })
        .collect();
    assert!(nodes.len() >= 2, "{before:?}");
    assert!(nodes.windows(2).all(|w| w[0] <= w[1]), "{nodes:?}");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    e.send("quit");
    let status = e.exit_within(Duration::from_secs(5)).expect("exits");
    assert!(status.success());
    assert!(t0.elapsed() < bound(1000), "{:?}", t0.elapsed());
    assert!(
        e.seen.last().is_some_and(|l| l.starts_with("bestmove")),
        "{:?}",
        e.seen
    );
    e.assert_protocol_only();
}
