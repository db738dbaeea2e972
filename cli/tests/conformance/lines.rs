//! Lines, dialects and states (`docs/ucci.md` §1), the GUI habits the
//! engine copes with (§8) and bad bytes: line ends, the dialect switch,
//! junk, huge and empty lines, `quit` and end of input.

use super::*;

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
