//! Conformance transcripts against the real binary: the 30 cases of
//! `docs/ucci.md` §10 (`case_NN_…`) and our own (`extra_…`), covering
//! every class of bad input. Ordering and content are checked exactly in
//! every build. The contract's time bounds are checked as written in a
//! release build (`cargo test --release -p chariot-cli --test conformance`,
//! which `.ci/run` runs); a debug build, many times slower and run beside
//! the whole workspace's tests, gets ten times as long (see [`bound`]).
//!
//! One file on purpose, though it is long: every file under `tests/` is
//! linked into a test binary of its own, and the transcripts share one
//! harness and one reading of the contract; split by topic, the same cases
//! would cost CI one more link of the engine per file.

mod common;

use std::time::{Duration, Instant};

use common::{Engine, S0, SOON, legal_best, pos};

/// Deadline for a shallow search to finish in a debug build.
const SEARCH: Duration = Duration::from_secs(30);

/// A time bound of the contract: as written in a release build, ten times
/// as long in a debug build.
fn bound(contract_ms: u64) -> Duration {
    let ms = if cfg!(debug_assertions) {
        contract_ms * 10
    } else {
        contract_ms
    };
    Duration::from_millis(ms)
}

fn bestmove_of(e: &mut Engine, fen: Option<&str>, moves: &[&str]) -> board::Move {
    let (_, line, _) = e.final_line(SEARCH);
    legal_best(&line, &pos(fen, moves))
}

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

/// Bare CR line ends (old Mac style) end lines too, and a CR LF pair is
/// still one line end when the two bytes arrive in separate writes.
#[test]
fn extra_bare_cr_line_ends() {
    let mut e = Engine::start();
    e.send_raw(b"ucci\risready\r");
    e.expect_line("ucciok");
    e.expect_line("readyok");
    e.send_raw(b"position startpos moves h2e2\r");
    e.send_raw(b"\ngo depth 1\r");
    bestmove_of(&mut e, None, &["h2e2"]);
    e.send_raw(b"isready\r");
    let before = e.expect_line("readyok");
    assert!(before.is_empty(), "{before:?}");
    e.assert_protocol_only();
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

/// Sends `position`, `go depth 1` and checks the rejection pattern of §9 b.
fn rejected(position: &str, naming: &str) -> Engine {
    let mut e = Engine::ucci();
    e.send_all(&[position, "go depth 1"]);
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "nobestmove", "{before:?}");
    assert!(before.len() >= 2, "{before:?}");
    assert!(
        before.iter().all(|l| l.starts_with("info string ")),
        "{before:?}"
    );
    assert!(
        before[0].contains(naming),
        "{before:?} should name {naming}"
    );
    e
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

// ---- our own transcripts ----

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
fn extra_before_handshake_speaks_uci() {
    let mut e = Engine::start();
    e.send("isready");
    e.expect_line("readyok");
    e.send("go depth 0");
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "bestmove (none)");
    assert!(before.last().unwrap().starts_with("info depth 0 score cp "));
}

#[test]
fn extra_dialect_switch() {
    let mut e = Engine::uci();
    e.send("ucci");
    e.expect_line("ucciok");
    e.send("stop");
    assert_eq!(e.final_line(SOON).1, "nobestmove");
    e.send("uci");
    e.expect_line("uciok");
    e.send("go depth 0");
    assert_eq!(e.final_line(SOON).1, "bestmove (none)");
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

#[test]
fn extra_unknown_command_one_diagnostic() {
    let mut e = Engine::ucci();
    e.send("frobnicate the board");
    let before = e.sync();
    assert_eq!(
        before,
        vec!["info string unknown command: frobnicate".to_string()]
    );
}

#[test]
fn extra_binary_junk() {
    let mut e = Engine::ucci();
    e.send_raw(b"\x00\xff\xfe\x80\x1b[2J\x07 go\n\xc3\x28 position startpos\n\x7f\x01\x02\n");
    let before = e.sync();
    assert_eq!(before.len(), 3, "{before:?}");
    e.send_all(&["position startpos moves h2e2", "go depth 1"]);
    bestmove_of(&mut e, None, &["h2e2"]);
    e.assert_protocol_only();
}

#[test]
fn extra_wide_characters_in_moves_and_fens() {
    // Four-byte tokens with a character across the middle once panicked
    // the ICCS reader; every reply stays ASCII.
    let mut e = Engine::ucci();
    e.send_all(&["position startpos moves aé2", "banmoves a€"]);
    let before = e.sync();
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(before.iter().all(|l| l.starts_with("info string ")));
    e.send_all(&[
        "position startpos",
        "banmoves h€e2",
        &format!("position fen {S0} w - - 0 é"),
        "position startpos moves h2e2",
        "go depth 1",
    ]);
    bestmove_of(&mut e, None, &["h2e2"]);
    e.assert_protocol_only();
    assert!(e.seen.iter().all(|l| l.is_ascii()), "{:?}", e.seen);
}

#[test]
fn extra_huge_line_and_line_without_newline_then_eof() {
    let mut e = Engine::ucci();
    let mut huge = vec![b'a'; 3 << 20];
    huge.push(b'\n');
    e.send_raw(&huge);
    let before = e.sync();
    assert_eq!(before.len(), 1, "{before:?}");
    e.send_raw(b"go depth 1\nisready");
    bestmove_of(&mut e, None, &[]);
    e.close();
    e.exit_within(Duration::from_secs(5)).expect("exits");
    assert!(
        e.seen.contains(&"readyok".to_string()),
        "the last line counts without its newline"
    );
    assert_eq!(e.seen.last().map(String::as_str), Some("bye"));
}

#[test]
fn extra_empty_and_blank_lines() {
    let mut e = Engine::ucci();
    e.send_raw(b"\n\r\n \t \n\n   \r\n");
    assert!(e.sync().is_empty());
    e.send_raw(b" \t go \t depth\t2  \r\n");
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_keywords_any_case_and_iccs_hyphen() {
    let mut e = Engine::ucci();
    e.send_all(&["POSITION StartPos MOVES H2-E2 h9G7", "GO DEPTH 2"]);
    bestmove_of(&mut e, None, &["h2e2", "h9g7"]);
}

#[test]
fn extra_go_bad_numbers_still_answer() {
    let mut e = Engine::ucci();
    for go in [
        "go depth -3",
        "go nodes 99999999999999999999999999 depth 2",
        "go movetime -5",
        "go time 0",
        "go depth 2 wtime abc",
    ] {
        e.send(go);
        let (before, line, _) = e.final_line(SEARCH);
        legal_best(&line, &board::Position::startpos());
        if go != "go time 0" {
            assert!(
                before.iter().any(|l| l.starts_with("info string go")),
                "{go}: {before:?}"
            );
        }
    }
}

#[test]
fn extra_go_without_limit_is_infinite() {
    let mut e = Engine::ucci();
    e.send("go depth nonsense");
    let early = e.quiet_for(Duration::from_millis(700));
    assert!(
        !early.iter().any(|l| l.starts_with("bestmove")),
        "{early:?}"
    );
    e.send("stop");
    bestmove_of(&mut e, None, &[]);
}

/// A ponder or infinite `go` on a position without a legal move holds its
/// final line until `stop` or `ponderhit`, as a search's is (`docs/ucci.md`
/// §6): a GUI that pondered on a mated position and then stops must get
/// one final line, not one at once and a second for its `stop` (found by
/// the soak, `tools/refmatch/soak.py`).
#[test]
fn extra_ponder_and_infinite_on_a_mated_position_wait() {
    const MATED: &str = "position fen 9/4nk3/3R5/9/5N3/2p3p2/9/5A3/9/3AK1B2 b - - 0 30 \
                         moves e8f6 d7d6 f6h5 f5g7 g4f4 g7h9 f8f9 d6d9";
    let mut e = Engine::ucci();
    e.send(MATED);
    e.send("go ponder time 60000 increment 0");
    let early = e.quiet_for(Duration::from_millis(300));
    assert!(!early.iter().any(|l| l == "nobestmove"), "{early:?}");
    e.sync();
    e.send("stop");
    assert_eq!(e.final_line(SOON).1, "nobestmove");
    // Exactly one: the next final line answers the next command.
    e.send("go depth 3");
    assert_eq!(e.final_line(SOON).1, "nobestmove");
    let after = e.quiet_for(Duration::from_millis(200));
    assert!(!after.iter().any(|l| l == "nobestmove"), "{after:?}");

    let mut e = Engine::uci();
    e.send(MATED);
    e.send("go infinite");
    let early = e.quiet_for(Duration::from_millis(300));
    assert!(
        !early.iter().any(|l| l.starts_with("bestmove")),
        "{early:?}"
    );
    e.send("stop");
    assert_eq!(e.final_line(SOON).1, "bestmove (none)");
    e.send("go ponder wtime 1000 btime 1000");
    let early = e.quiet_for(Duration::from_millis(300));
    assert!(
        !early.iter().any(|l| l.starts_with("bestmove")),
        "{early:?}"
    );
    e.send("ponderhit");
    let (before, line, _) = e.final_line(SOON);
    assert_eq!(line, "bestmove (none)");
    assert_eq!(
        before.last().map(String::as_str),
        Some("info depth 0 score mate 0")
    );
    e.assert_protocol_only();
}

#[test]
fn extra_fen_errors() {
    for (fen, naming) in [
        ("position fen rnbakabnr", "FEN"),
        ("position fen 4k4/9/9/9/9/9/9/9/9/4K4 w", "face"),
        ("position fen 4k4/4k4/9/9/9/9/9/9/9/3K5 w", "general"),
        ("position fen \u{4f60}\u{597d} w", "FEN"),
        ("position fen", "FEN"),
        ("position", "startpos"),
    ] {
        let mut e = Engine::ucci();
        e.send_all(&[fen, "go depth 1"]);
        let (before, line, _) = e.final_line(SEARCH);
        assert_eq!(line, "nobestmove", "{fen}");
        assert!(before.len() >= 2, "{fen}: {before:?}");
        assert!(
            before[0].to_lowercase().contains(&naming.to_lowercase()),
            "{fen}: {before:?}"
        );
        e.assert_protocol_only();
    }
}

#[test]
fn extra_unreadable_move_and_recovery() {
    let mut e = rejected("position startpos moves zz99", "zz99");
    e.send_all(&["position startpos moves", "go depth 1"]);
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_side_letters_and_counters() {
    let mut e = Engine::ucci();
    let black = format!("{S0} B - - 0 1");
    e.send_all(&[&format!("position fen {black}"), "go depth 2"]);
    bestmove_of(&mut e, Some(&format!("{S0} b - - 0 1")), &[]);
}

/// Move counters by one rule (`board/src/fen.rs`, `read_counter`): huge,
/// negative and fractional counters are all read as the nearest counter
/// that exists; only a counter that is no number rejects the position.
#[test]
fn extra_fen_counters_huge_negative_fractional() {
    let mut e = Engine::ucci();
    for counters in [
        "0 99999999999999999999",
        "-1 1",
        "3 -7",
        "2.5 10.5",
        "+4 +9",
    ] {
        e.send_all(&[&format!("position fen {S0} w - - {counters}"), "go depth 1"]);
        let (before, line, _) = e.final_line(SEARCH);
        assert!(
            before.iter().all(|l| !l.contains("rejected")),
            "{counters}: {before:?}"
        );
        legal_best(&line, &board::Position::startpos());
    }
    e.send_all(&[&format!("position fen {S0} w - - 1e3 1"), "go depth 1"]);
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "nobestmove");
    assert!(before.iter().any(|l| l.contains("1e3")), "{before:?}");
}

#[test]
fn extra_long_move_list() {
    let mut e = Engine::ucci();
    let mut moves = Vec::new();
    for _ in 0..30 {
        moves.extend(["b0c2", "b9c7", "c2b0", "c7b9"]);
    }
    moves.extend(["h2e2"]);
    e.send_all(&[
        &format!("position startpos moves {}", moves.join(" ")),
        "go depth 2",
    ]);
    bestmove_of(&mut e, None, &moves);
}

/// 4 legal moves for Red: a1a0 … ; the rook on a1 and the general.
const FEW: &str = "3k5/9/9/9/9/9/9/3n5/R8/4K4 w - - 0 1";

#[test]
fn extra_banmoves_rejected_keeps_list() {
    let mut e = Engine::ucci();
    let legal: Vec<String> = pos(Some(FEW), &[])
        .legal_moves()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(legal.len() >= 2);
    let (keep, ban) = legal.split_last().unwrap();
    e.send_all(&[
        &format!("position fen {FEW}"),
        &format!("banmoves {}", ban.join(" ")),
    ]);
    e.send("banmoves a1a5 h2e2");
    let before = e.sync();
    assert_eq!(before.len(), 1, "{before:?}");
    e.send("go depth 3");
    let m = bestmove_of(&mut e, Some(FEW), &[]);
    assert_eq!(&m.to_string(), keep);
    e.send(&format!("banmoves {}", legal.join(" ")));
    e.send("go depth 3");
    let (before, line, _) = e.final_line(SEARCH);
    assert_eq!(line, "nobestmove", "{before:?}");
    e.send_all(&[&format!("position fen {FEW}"), "go depth 1"]);
    bestmove_of(&mut e, Some(FEW), &[]);
}

#[test]
fn extra_searchmoves() {
    let mut e = Engine::uci();
    e.send_all(&["position startpos", "go depth 3 searchmoves a3a4 i0i1"]);
    let m = bestmove_of(&mut e, None, &[]);
    assert!(["a3a4", "i0i1"].contains(&m.to_string().as_str()), "{m}");
}

#[test]
fn extra_probe() {
    let mut e = Engine::ucci();
    e.send("probe startpos");
    assert_eq!(
        e.wait_for("pophash", SOON, |l| l.starts_with("pophash")).1,
        "pophash"
    );
    e.send("go depth 4");
    let best = bestmove_of(&mut e, None, &[]);
    e.send("probe startpos");
    let line = e.wait_for("pophash", SOON, |l| l.starts_with("pophash")).1;
    assert!(
        line.starts_with(&format!("pophash bestmove {best}")),
        "{line}"
    );
    assert!(line.contains(" depth "), "{line}");
    for bad in ["probe", "probe fen garbage", "probe startpos moves a0a9"] {
        e.send(bad);
        assert_eq!(
            e.wait_for("pophash", SOON, |l| l.starts_with("pophash")).1,
            "pophash",
            "{bad}"
        );
    }
}

#[test]
fn extra_probe_during_search() {
    let mut e = Engine::ucci();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("probe startpos");
    let (before, line, _) = e.wait_for("pophash", SOON, |l| l.starts_with("pophash"));
    assert!(!before.iter().any(|l| l.starts_with("bestmove")));
    assert!(line.starts_with("pophash"));
    e.send("stop");
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_display() {
    let mut e = Engine::ucci();
    e.send_all(&["position fen 4k4/9/9/9/4c4/9/4P4/9/9/3K5 w - - 0 1", "d"]);
    let (before, _, _) = e.wait_for("Checkers", SOON, |l| l.starts_with("Checkers:"));
    assert!(
        before
            .iter()
            .any(|l| l == "Fen: 4k4/9/9/9/4c4/9/4P4/9/9/3K5 w - - 0 1"),
        "{before:?}"
    );
    let key = before.iter().find_map(|l| l.strip_prefix("Key: ")).unwrap();
    assert_eq!(key.len(), 16);
    let want = pos(Some("4k4/9/9/9/4c4/9/4P4/9/9/3K5 w - - 0 1"), &[]).key();
    assert_eq!(u64::from_str_radix(key, 16).unwrap(), want);
    e.send_all(&["position fen 4k4/9/9/9/4c4/9/4P4/9/9/4K4 w - - 0 1", "d"]);
    assert_eq!(
        e.wait_for("Checkers", SOON, |l| l.starts_with("Checkers:"))
            .1,
        "Checkers: e5"
    );
}

#[test]
fn extra_eval() {
    let mut e = Engine::uci();
    e.send("eval");
    let line = e
        .wait_for("final evaluation", SOON, |l| {
            l.starts_with("Final evaluation: ")
        })
        .1;
    assert!(line.ends_with("(Red's view)"), "{line}");
}

#[test]
fn extra_perft() {
    let mut e = Engine::ucci();
    e.send("go perft 2");
    let (before, line, _) = e.wait_for("perft total", SEARCH, |l| l.starts_with("Nodes searched"));
    assert_eq!(line, "Nodes searched: 1920");
    assert_eq!(before.len(), 45, "44 moves and a blank line: {before:?}");
    assert_eq!(before[44], "");
    let sum: u64 = before[..44]
        .iter()
        .map(|l| l.split(": ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 1920);
    // The same lines, in the same order, as `chariot perft 2`.
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(["perft", "2"])
        .output()
        .expect("chariot perft runs");
    let cli = String::from_utf8_lossy(&cli.stdout);
    let cli_moves: Vec<&str> = cli.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        before[..44],
        cli_moves[..],
        "go perft and chariot perft agree"
    );
    e.send("go perft 0");
    assert!(
        e.wait_for("perft 0", SOON, |l| l.starts_with("Nodes searched"))
            .0
            .is_empty()
    );
    assert_eq!(e.seen.last().unwrap(), "Nodes searched: 1");
    e.send("go perft x");
    let before = e.sync();
    assert_eq!(before.len(), 1);
    assert!(before[0].starts_with("info string go perft"));
    assert!(
        e.quiet_for(Duration::from_millis(200)).is_empty(),
        "no bestmove after perft"
    );
}

#[test]
fn extra_deep_perft_can_be_stopped() {
    // A count that would run for ages leaves the engine responsive:
    // `isready` is answered, `stop` ends the count, queued lines follow.
    let mut e = Engine::ucci();
    e.send_all(&["go perft 64", "position startpos moves h2e2"]);
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    let before = e.sync();
    assert!(t0.elapsed() < bound(100), "{:?}", t0.elapsed());
    assert!(before.is_empty(), "{before:?}");
    e.send("stop");
    let (before, _, _) = e.wait_for("perft stopped", SOON, |l| l == "info string perft stopped");
    assert!(before.is_empty(), "{before:?}");
    // The queued position was applied after the count.
    e.send("go perft 1");
    let (before, line, _) = e.wait_for("perft total", SEARCH, |l| l.starts_with("Nodes searched"));
    assert_eq!(line, "Nodes searched: 45", "{before:?}");
    // `quit` during a count ends it and the session.
    e.send_all(&["go perft 64", "quit"]);
    e.expect_line("bye");
    e.exit_within(Duration::from_secs(5)).expect("exits");
}

#[test]
fn extra_queued_gos_answer_in_order() {
    let mut e = Engine::ucci();
    e.send_all(&[
        "go infinite",
        "go depth 1",
        "position startpos moves h2e2",
        "go depth 1",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    bestmove_of(&mut e, None, &[]);
    bestmove_of(&mut e, None, &[]);
    bestmove_of(&mut e, None, &["h2e2"]);
    assert!(e.quiet_for(Duration::from_millis(300)).is_empty());
}

#[test]
fn extra_batch_mode_waits() {
    let mut e = Engine::ucci();
    e.send_all(&["setoption batch true", "go depth 3", "isready"]);
    let (before, _, _) = e.wait_for("readyok", SEARCH, |l| l == "readyok");
    assert!(
        before.iter().any(|l| l.starts_with("bestmove")),
        "batch: readyok only after the final line: {before:?}"
    );
    // EOF is queued too: the search finishes, then bye.
    e.send("go depth 3");
    e.close();
    e.exit_within(SEARCH).expect("exits");
    let n = e.seen.len();
    assert!(e.seen[n - 2].starts_with("bestmove"), "{:?}", e.seen);
    assert_eq!(e.seen[n - 1], "bye");
}

#[test]
fn extra_batch_infinite_obeys_stop() {
    let mut e = Engine::ucci();
    e.send_all(&["setoption batch on", "go infinite"]);
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    bestmove_of(&mut e, None, &[]);
}

#[test]
fn extra_ponder_with_limit_is_held() {
    let mut e = Engine::ucci();
    e.send("go ponder depth 2");
    let held = e.quiet_for(Duration::from_millis(1500));
    assert!(!held.iter().any(|l| l.starts_with("bestmove")), "{held:?}");
    let t0 = Instant::now();
    e.send("ponderhit");
    let (_, line, at) = e.final_line(SOON);
    legal_best(&line, &board::Position::startpos());
    assert!(at.duration_since(t0) < Duration::from_secs(2));
}

#[test]
fn extra_ponderhit_and_stop_when_idle() {
    let mut e = Engine::uci();
    e.send_all(&["ponderhit", "ponderhit draw", "stop"]);
    assert!(e.sync().is_empty());
}

#[test]
fn extra_draw_offer() {
    let lost = "3k5/9/9/r8/9/9/9/9/9/4K4 w - - 0 1";
    let mut e = Engine::ucci();
    e.send_all(&[&format!("position fen {lost}"), "go draw depth 3"]);
    let (_, line, _) = e.final_line(SEARCH);
    legal_best(&line, &pos(Some(lost), &[]));
    assert!(line.ends_with(" draw"), "a lost side accepts: {line}");
    e.send_all(&["position startpos moves h2e2 b9c7", "go depth 2"]);
    let (_, line, _) = e.final_line(SEARCH);
    assert!(!line.contains("draw"), "no offer, no draw: {line}");
    let mut u = Engine::uci();
    u.send_all(&[&format!("position fen {lost}"), "go draw depth 3"]);
    let (_, line, _) = u.final_line(SEARCH);
    assert!(!line.contains("draw"), "UCI never prints draw: {line}");
}

#[test]
fn extra_ponderhit_draw() {
    let lost = "3k5/9/9/r8/9/9/9/9/9/4K4 w - - 0 1";
    let mut e = Engine::ucci();
    e.send_all(&[&format!("position fen {lost}"), "go ponder depth 2"]);
    std::thread::sleep(Duration::from_millis(500));
    e.send("ponderhit draw");
    let (_, line, _) = e.final_line(SOON);
    assert!(line.ends_with(" draw"), "{line}");
}

#[test]
fn extra_quit_during_search() {
    let mut e = Engine::ucci();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.send("quit");
    e.exit_within(Duration::from_secs(5)).expect("exits");
    let n = e.seen.len();
    assert!(e.seen[n - 2].starts_with("bestmove"), "{:?}", e.seen);
    assert_eq!(e.seen[n - 1], "bye");
}

#[test]
fn extra_eof_during_search_uci() {
    let mut e = Engine::uci();
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    e.close();
    let status = e.exit_within(Duration::from_secs(5)).expect("exits");
    assert!(status.success());
    assert!(
        e.seen.last().unwrap().starts_with("bestmove"),
        "{:?}",
        e.seen
    );
}

#[test]
fn extra_debug_reports_queued_lines() {
    let mut e = Engine::ucci();
    e.send_all(&["debug on", "go infinite", "position startpos"]);
    let (_, line, _) = e.wait_for("queued diagnostic", SOON, |l| {
        l.starts_with("info string queued")
    });
    assert!(line.contains("queued"));
    e.send("stop");
    bestmove_of(&mut e, None, &[]);
    e.send_all(&["debug off", "setoption debug true", "setoption debug false"]);
    assert!(e.sync().is_empty());
}

#[test]
fn extra_move_limit_at_root_is_named() {
    let mut e = Engine::ucci();
    e.send_all(&[&format!("position fen {S0} w - - 120 40"), "go depth 1"]);
    let (before, line, _) = e.final_line(SEARCH);
    legal_best(&line, &board::Position::startpos());
    assert!(
        before
            .iter()
            .any(|l| l.starts_with("info string game over") && l.contains("move limit")),
        "{before:?}"
    );
}

#[test]
fn extra_multipv() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name MultiPV value 3", "go depth 2"]);
    let (before, line, _) = e.final_line(SEARCH);
    legal_best(&line, &board::Position::startpos());
    for k in 1..=3 {
        assert!(
            before
                .iter()
                .any(|l| l.starts_with("info depth 2 ") && l.contains(&format!(" multipv {k} "))),
            "{before:?}"
        );
    }
    let mut u = Engine::ucci();
    u.send_all(&["setoption multipv 2", "go depth 2"]);
    let (before, _, _) = u.final_line(SEARCH);
    assert!(
        before
            .iter()
            .any(|l| l.starts_with("info depth 2 multipv 2 score ")),
        "{before:?}"
    );
}

#[test]
fn extra_nodes_and_movetime_limits() {
    let mut e = Engine::uci();
    e.send_all(&["setoption name OwnBook value false", "go nodes 2000"]);
    bestmove_of(&mut e, None, &[]);
    let t0 = Instant::now();
    e.send("go movetime 300");
    bestmove_of(&mut e, None, &[]);
    let took = t0.elapsed();
    assert!(
        took >= Duration::from_millis(100) && took < Duration::from_secs(5),
        "{took:?}"
    );
}

#[test]
fn extra_bench_subcommand() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args([
            "bench",
            "--depth",
            "1",
            "--tt",
            "depth",
            "--store-qs",
            "off",
            "--hash",
            "4",
        ])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Nodes searched: "), "{text}");
    assert!(text.contains("Hash: 4 MB  TT: depth"), "{text}");
    // A table below 1 MB, for the table experiments.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args(["bench", "--depth", "1", "--hash", "0.25", "--stats"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Hash: 256 KiB  TT: two-tier"), "{text}");
    for bad in [
        &["bench", "--tt", "nope"][..],
        &["bench", "--depth", "x"],
        &["bench", "--hash", "0"],
        &["bench", "--hash", "0.0001"],
        &["bench", "--hash", "NaN"],
        &["bench", "--hash", "65537"],
        &["bench", "--store-qs", "maybe"],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chariot"))
            .args(bad)
            .output()
            .expect("runs");
        assert!(!out.status.success(), "{bad:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn extra_book_only_for_clock_limited_searches() {
    let mut e = Engine::ucci();
    e.send("go time 60000 increment 0");
    let (before, line, _) = e.final_line(SEARCH);
    let m = legal_best(&line, &board::Position::startpos());
    let announced = format!("info string book move {m}");
    let at = before
        .iter()
        .position(|l| l.starts_with(&announced))
        .unwrap_or_else(|| panic!("no announcement: {before:?}"));
    assert!(
        before[at..].iter().any(|l| l.starts_with("info depth ")),
        "the book move is checked by a search: {before:?}"
    );
    for go in ["go depth 2", "go nodes 3000", "go ponder time 60000"] {
        e.send(go);
        if go.contains("ponder") {
            std::thread::sleep(Duration::from_millis(300));
            e.send("stop");
        }
        let (before, line, _) = e.final_line(SEARCH);
        legal_best(&line, &board::Position::startpos());
        assert!(
            !before.iter().any(|l| l.contains("book move")),
            "{go}: {before:?}"
        );
    }
    e.send_all(&["setoption usebook false", "go movetime 200"]);
    let (before, _, _) = e.final_line(SEARCH);
    assert!(
        !before.iter().any(|l| l.contains("book move")),
        "{before:?}"
    );
    e.send_all(&[
        "setoption usebook true",
        "setoption bookfiles /no/such/book.obk",
    ]);
    let before = e.sync();
    assert_eq!(before.len(), 1, "{before:?}");
    e.send("go movetime 200");
    let (before, _, _) = e.final_line(SEARCH);
    assert!(
        !before.iter().any(|l| l.contains("book move")),
        "{before:?}"
    );
}

#[test]
fn extra_a_weakened_level_plays_the_book() {
    // A level's node budget must not read as a node-limited `go`: skill 3
    // and UCI_Elo 1000 ask the book as full strength does.
    for setup in [
        &["setoption name Skill Level value 3"][..],
        &[
            "setoption name UCI_LimitStrength value true",
            "setoption name UCI_Elo value 1000",
        ][..],
    ] {
        let mut e = Engine::uci();
        e.send_all(setup);
        e.send_all(&["position startpos", "go wtime 60000 btime 60000"]);
        let (before, line, _) = e.final_line(SEARCH);
        legal_best(&line, &board::Position::startpos());
        assert!(
            before
                .iter()
                .any(|l| l.starts_with("info string book move ")),
            "{setup:?}: {before:?}"
        );
    }
}

#[test]
fn extra_later_clock_token_overrides_earlier() {
    // `time` and `wtime` both mean Red's clock here; the later one counts,
    // so the engine plans for 50 ms, not ten minutes.
    let mut e = Engine::ucci();
    e.sync();
    let t0 = Instant::now();
    e.send("go time 600000 wtime 50");
    bestmove_of(&mut e, None, &[]);
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
}

#[test]
fn extra_book_variety_zero_plays_the_heaviest_move() {
    let mut e = Engine::uci();
    e.send("setoption name BookVariety value 0");
    for _ in 0..3 {
        e.send("go movetime 100");
        let (before, _, _) = e.final_line(SEARCH);
        let line = before
            .iter()
            .find(|l| l.starts_with("info string book move "))
            .unwrap_or_else(|| panic!("no book move: {before:?}"));
        // "book move M among M1(w1) M2(w2) …", heaviest first.
        let words: Vec<&str> = line.split_whitespace().collect();
        let heaviest = words[6].split('(').next().unwrap_or_default();
        assert_eq!(words[4], heaviest, "{line}");
    }
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

/// A list of books with a missing one plays from the books that opened,
/// in either order, and names the missing one with the OS's whole words.
#[test]
fn extra_books_degrade_gracefully() {
    for spec in ["/missing.book;<builtin>", "<builtin>;/missing.book"] {
        let mut e = Engine::uci();
        e.send(&format!("setoption name BookFile value {spec}"));
        let diag = e.sync();
        assert_eq!(
            diag,
            [
                "info string book /missing.book not opened: No such file or directory (os error 2); \
              using the 1 book that opened"
            ],
            "{spec}"
        );
        e.send_all(&["position startpos", "go movetime 200"]);
        let (before, _, _) = e.final_line(SEARCH);
        assert!(
            before
                .iter()
                .any(|l| l.starts_with("info string book move ")),
            "{spec}: {before:?}"
        );
    }
    let mut e = Engine::ucci();
    // A long path is shortened in the middle; the reason stays whole.
    let long = format!("/missing{}/x.book", "/deep".repeat(40));
    e.send(&format!("setoption bookfiles {long};/missing.book"));
    let diag = e.sync();
    assert_eq!(diag.len(), 2, "{diag:?}");
    for d in &diag {
        assert!(
            d.ends_with(
                " not opened: No such file or directory (os error 2); playing without a book"
            ),
            "{d}"
        );
    }
    assert!(diag[0].starts_with("info string book /missing/deep/") && diag[0].contains("..."));
    assert!(
        diag[0].contains("/x.book not opened: ") && diag[0].len() < 220,
        "{}",
        diag[0]
    );
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
    let dir = std::env::temp_dir().join(format!("chariot-evalfile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
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
    let _ = std::fs::remove_dir_all(&dir);
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

/// With four search threads `isready` and `stop` answer as fast as with
/// one (the bounds of cases 13 and 14), node counts in `info` grow, and
/// `quit` during the search ends the engine promptly.
#[test]
fn extra_many_threads_stop_isready_and_quit() {
    let mut e = Engine::uci();
    e.send("setoption name Threads value 4");
    assert!(e.sync().is_empty());
    e.send_all(&["position startpos", "go infinite"]);
    std::thread::sleep(Duration::from_millis(300));
    let t0 = Instant::now();
    e.send("isready");
    let (before, _, at) = e.wait_for("readyok", SOON, |l| l == "readyok");
    assert!(at.duration_since(t0) < bound(100), "{:?}", at - t0);
    assert!(!before.iter().any(|l| l.starts_with("bestmove")));
    let t0 = Instant::now();
    e.send("stop");
    let (before, line, at) = e.final_line(SOON);
    assert!(at.duration_since(t0) < bound(200), "{:?}", at - t0);
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
