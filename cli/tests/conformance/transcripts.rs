//! The 30 conformance transcripts of `docs/ucci.md` §10, as written
//! (`case_NN_…`).

use super::*;

#[test]
fn case_01_ucci_handshake() {
    let mut e = Engine::start();
    let t0 = Instant::now();
    e.send("ucci");
    let before = e.expect_line("ucciok");
    assert!(t0.elapsed() < bound(2000), "{:?}", t0.elapsed());
    assert!(before[0].starts_with("id name Chariot"), "{before:?}");
    assert!(before.iter().any(|l| l.starts_with("id author ")));
    let options: Vec<&String> = before.iter().filter(|l| l.starts_with("option ")).collect();
    assert!(options.len() >= 10);
    for o in &options {
        let w: Vec<&str> = o.split(' ').collect();
        assert!(w[1].chars().all(|c| c.is_ascii_lowercase()), "{o}");
        assert_eq!(w[2], "type");
        assert!(
            ["check", "spin", "combo", "button", "string", "label"].contains(&w[3]),
            "{o}"
        );
    }
    assert!(before.contains(&"option usemillisec type check default true".to_string()));
    assert!(before.contains(&"option hashsize type spin min 1 max 65536 default 16".to_string()));
    assert!(
        e.quiet_for(Duration::from_millis(300)).is_empty(),
        "exactly one ucciok"
    );
    e.assert_protocol_only();
}

#[test]
fn case_02_crlf() {
    let mut e = Engine::start();
    e.send_raw(b"ucci\r\nisready\r\n");
    e.expect_line("ucciok");
    e.expect_line("readyok");
}

#[test]
fn case_03_depth_1() {
    let mut e = Engine::ucci();
    e.send_all(&["position startpos", "go depth 1"]);
    bestmove_of(&mut e, None, &[]);
    assert!(
        e.quiet_for(Duration::from_millis(300)).is_empty(),
        "nothing after bestmove"
    );
    e.assert_protocol_only();
}

#[test]
fn case_04_two_field_fen() {
    let mut e = Engine::ucci();
    e.send_all(&[&format!("position fen {S0} w"), "go depth 2"]);
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn case_05_side_r() {
    let mut e = Engine::ucci();
    e.send_all(&[&format!("position fen {S0} r - - 0 1"), "go depth 2"]);
    bestmove_of(&mut e, None, &[]);
}

/// `setoption newgame; position …; go depth 4` and its best move.
fn newgame_depth4(e: &mut Engine, position: &str) -> String {
    e.send_all(&["setoption newgame", position, "go depth 4"]);
    let (_, line, _) = e.final_line(SEARCH);
    legal_best(&line, &board::Position::startpos()).to_string()
}

#[test]
fn case_06_letter_synonyms_and_reproducibility() {
    let mut e = Engine::ucci();
    let a = newgame_depth4(
        &mut e,
        "position fen rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1",
    );
    let b = newgame_depth4(&mut e, "position startpos");
    assert_eq!(a, b);
}

#[test]
fn case_07_uci_shape_after_ucci() {
    let mut e = Engine::ucci();
    e.send("setoption name hashsize value 32");
    assert!(e.sync().is_empty());
}

#[test]
fn case_08_unknown_and_empty_setoption() {
    let mut e = Engine::ucci();
    e.send_all(&["setoption foo bar", "setoption"]);
    let before = e.sync();
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(before.iter().all(|l| l.starts_with("info string ")));
}

#[test]
fn case_09_info_lines() {
    let mut e = Engine::ucci();
    e.send("go depth 3");
    let (before, line, _) = e.final_line(SEARCH);
    let start = board::Position::startpos();
    legal_best(&line, &start);
    let depth_lines: Vec<&String> = before
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(!depth_lines.is_empty());
    for l in &depth_lines {
        let w: Vec<&str> = l.split(' ').collect();
        assert_eq!(w[2..].iter().position(|&x| x == "score"), Some(1), "{l}");
        assert!(w[2].parse::<u32>().unwrap() <= 3);
        w[4].parse::<i32>()
            .unwrap_or_else(|_| panic!("integer score in {l}"));
        assert!(
            !l.contains(" cp ") && !l.contains("bound") && !l.contains("nps"),
            "{l}"
        );
        assert_eq!(w[5], "pv");
        let mut p = start.clone();
        for m in &w[6..] {
            let mv = p.parse_move(m).unwrap_or_else(|e| panic!("pv of {l}: {e}"));
            p.play(mv).unwrap();
        }
    }
    let last = before.last().unwrap();
    assert!(
        last.starts_with("info time ") && last.contains(" nodes "),
        "{before:?}"
    );
}

#[test]
fn case_10_depth_0() {
    let mut e = Engine::ucci();
    e.send("go depth 0");
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "nobestmove");
    let last = before.last().unwrap();
    assert!(last.starts_with("info depth 0 score "), "{before:?}");
    last["info depth 0 score ".len()..].parse::<i32>().unwrap();
}

#[test]
fn case_11_usemillisec_false() {
    let mut e = Engine::ucci();
    // Without the book, whose move comes at once whatever the clock.
    e.send_all(&["setoption usebook false", "setoption usemillisec false"]);
    e.sync();
    let t0 = Instant::now();
    e.send("go time 3 increment 0");
    bestmove_of(&mut e, None, &[]);
    let took = t0.elapsed();
    assert!(
        took > Duration::from_millis(20),
        "read as 3 s, not 3 ms: {took:?}"
    );
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[test]
fn case_12_sudden_death() {
    let mut e = Engine::ucci();
    e.sync();
    let t0 = Instant::now();
    e.send("go time 5000");
    bestmove_of(&mut e, None, &[]);
    // "well under 5 s (< 2 s)": the contract's own figure, in every build.
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
}

#[test]
fn case_13_infinite_then_stop() {
    let mut e = Engine::ucci();
    e.send("go infinite");
    let early = e.quiet_for(Duration::from_secs(1));
    assert!(
        !early
            .iter()
            .any(|l| l.starts_with("bestmove") || l == "nobestmove"),
        "{early:?}"
    );
    let t0 = Instant::now();
    e.send("stop");
    let (_, line, at) = e.final_line(SOON);
    legal_best(&line, &board::Position::startpos());
    let took = at.duration_since(t0);
    assert!(took < bound(200), "{took:?}");
    assert!(e.quiet_for(Duration::from_millis(300)).is_empty());
}

#[test]
fn case_14_isready_during_search() {
    let mut e = Engine::ucci();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    e.send("isready");
    let (before, _, at) = e.wait_for("readyok", SOON, |l| l == "readyok");
    let took = at.duration_since(t0);
    assert!(took < bound(100), "{took:?}");
    assert!(!before.iter().any(|l| l.starts_with("bestmove")));
    e.send("stop");
    e.final_line(SOON);
}

#[test]
fn case_15_idle_stop() {
    let mut e = Engine::ucci();
    e.send_all(&["go depth 1"]);
    e.final_line(SEARCH);
    e.send("stop");
    let (_, line, _) = e.final_line(SOON);
    assert_eq!(line, "nobestmove", "never a stale bestmove");
}

#[test]
fn case_16_ponderhit() {
    let mut e = Engine::ucci();
    e.send_all(&[
        "setoption usebook false",
        &format!("position fen {S0} w - - 0 1 moves b0c2 b9c7"),
        "go ponder time 10000 increment 0",
    ]);
    let during = e.quiet_for(Duration::from_secs(2));
    assert!(
        !during
            .iter()
            .any(|l| l.starts_with("bestmove") || l == "nobestmove"),
        "{during:?}"
    );
    let t0 = Instant::now();
    e.send("ponderhit");
    let fen = format!("{S0} w - - 0 1");
    let (_, line, at) = e.final_line(SOON);
    legal_best(&line, &pos(Some(&fen), &["b0c2", "b9c7"]));
    let took = at.duration_since(t0);
    assert!(took < bound(1000), "{took:?}");
}

#[test]
fn case_17_stop_while_pondering() {
    let mut e = Engine::ucci();
    e.send("go ponder time 60000 increment 0");
    std::thread::sleep(Duration::from_millis(500));
    let t0 = Instant::now();
    e.send("stop");
    let (_, line, at) = e.final_line(SOON);
    legal_best(&line, &board::Position::startpos());
    let took = at.duration_since(t0);
    assert!(took < bound(200), "{took:?}");
}

const BANNED: [&str; 8] = [
    "c3c4", "g3g4", "b0c2", "h0g2", "h2e2", "b2e2", "c0e2", "g0e2",
];

#[test]
fn case_18_banmoves() {
    let mut e = Engine::ucci();
    e.send_all(&[
        "position startpos",
        &format!("banmoves {}", BANNED.join(" ")),
        "go depth 4",
        "go depth 4",
    ]);
    for _ in 0..2 {
        let m = bestmove_of(&mut e, None, &[]);
        assert!(!BANNED.contains(&m.to_string().as_str()), "{m} is banned");
    }
    let lifted = newgame_depth4(&mut e, "position startpos");
    let mut fresh = Engine::ucci();
    let reference = newgame_depth4(&mut fresh, "position startpos");
    assert_eq!(lifted, reference);
}

#[test]
fn case_19_stalemate() {
    let mut e = Engine::ucci();
    e.send_all(&[
        "position fen 3k5/9/9/9/9/9/9/9/3r1r3/4K4 w - - 0 1",
        "go depth 3",
    ]);
    let (_, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "nobestmove");
}

#[test]
fn case_20_illegal_move_in_list() {
    rejected("position startpos moves h2e2 a0a5 h9g7", "a0a5");
}

#[test]
fn case_21_garbage_fen() {
    let mut e = rejected("position fen garbage", "FEN");
    e.sync();
}

#[test]
fn case_22_side_not_to_move_in_check() {
    rejected("position fen 4k4/9/9/9/9/9/9/4r4/9/4K3r b - - 0 1", "check");
}

#[test]
fn case_23_tabs_and_blanks() {
    let mut e = Engine::ucci();
    e.send_all(&["position  startpos\tmoves  h2e2\th7e7", "go depth 1"]);
    bestmove_of(&mut e, None, &["h2e2", "h7e7"]);
}

#[test]
fn case_24_position_queued_during_search() {
    let mut e = Engine::ucci();
    e.send_all(&["go infinite", "position startpos moves h2e2"]);
    std::thread::sleep(Duration::from_millis(300));
    e.send_all(&["stop", "go depth 2"]);
    bestmove_of(&mut e, None, &[]);
    bestmove_of(&mut e, None, &["h2e2"]);
}

#[test]
fn case_25_quit() {
    let mut e = Engine::ucci();
    let t0 = Instant::now();
    e.send("quit");
    e.expect_line("bye");
    let status = e.exit_within(Duration::from_secs(5)).expect("exits");
    assert!(status.success());
    assert!(t0.elapsed() < bound(1000), "{:?}", t0.elapsed());
}

#[test]
fn case_26_eof() {
    let mut e = Engine::ucci();
    let t0 = Instant::now();
    e.close();
    let status = e.exit_within(Duration::from_secs(5)).expect("exits at EOF");
    assert!(t0.elapsed() < bound(1000), "{:?}", t0.elapsed());
    assert!(status.success());
    assert_eq!(e.seen.last().map(String::as_str), Some("bye"));
}

#[test]
fn case_27_uci_handshake() {
    let mut e = Engine::start();
    e.send("uci");
    let before = e.expect_line("uciok");
    assert!(before[0].starts_with("id name Chariot"));
    assert!(
        before
            .iter()
            .any(|l| l.starts_with("option name Hash type spin "))
    );
    assert!(
        before
            .iter()
            .any(|l| l.starts_with("option name Threads type spin "))
    );
    assert!(before.contains(&"option name Clear Hash type button".to_string()));
    e.assert_protocol_only();
}

fn uci_clock_time(go: &str) -> Duration {
    let mut e = Engine::uci();
    // Without the book, whose move comes at once whatever the clock.
    e.send_all(&[
        "setoption name OwnBook value false",
        &format!("position fen {S0} w - - 0 1 moves h2e2"),
    ]);
    e.sync();
    let t0 = Instant::now();
    e.send(go);
    let fen = format!("{S0} w - - 0 1");
    bestmove_of(&mut e, Some(&fen), &["h2e2"]);
    t0.elapsed()
}

#[test]
fn case_28_uci_clock_of_side_to_move() {
    let long = uci_clock_time("go wtime 100 btime 60000");
    let short = uci_clock_time("go wtime 60000 btime 100");
    assert!(
        long > short * 2 && long > Duration::from_millis(100),
        "btime budget {long:?} vs {short:?}"
    );
}

#[test]
fn case_29_uci_no_legal_move() {
    let mut e = Engine::uci();
    e.send_all(&[
        "position fen 3k5/9/9/9/9/9/9/9/3r1r3/4K4 w - - 0 1",
        "go depth 3",
    ]);
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "bestmove (none)");
    assert_eq!(
        before.last().map(String::as_str),
        Some("info depth 0 score mate 0")
    );
}

#[test]
fn case_30_uci_stop_and_quit() {
    let mut e = Engine::uci();
    e.send_all(&["stop", "quit"]);
    let status = e.exit_within(Duration::from_secs(5)).expect("exits");
    assert!(status.success());
    assert_eq!(
        e.seen.last().map(String::as_str),
        Some("uciok"),
        "no output for stop, no bye"
    );
}
