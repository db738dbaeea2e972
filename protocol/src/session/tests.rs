//! The session driven in-process, for what the binary cannot show: the
//! library's [`Input::Abort`], which must end the session at once in every
//! state, batch mode included.

use super::{Input, Session};
use crate::output::Captured;
use crate::output::Output;
use crate::reader::parse_line;

/// Runs a session over `inputs` and returns its output. The sender stays
/// open while the session runs, so only an input can end it.
fn transcript(inputs: &[Option<&str>]) -> String {
    let (tx, rx) = crossbeam_channel::unbounded();
    for input in inputs {
        let item = input.map_or(Input::Abort, |line| parse_line(line.as_bytes()));
        tx.send(item).expect("the receiver is open");
    }
    let captured = Captured::default();
    Session::new(Output::new(Box::new(captured.clone()))).run(&rx);
    drop(tx);
    captured.text()
}

#[test]
fn abort_stops_a_batch_search_that_would_not_take_quit() {
    let text = transcript(&[
        Some("setoption batch true"),
        Some("position startpos"),
        Some("go depth 99"),
        None,
        Some("isready"),
    ]);
    let finals: Vec<&str> = text.lines().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(finals.len(), 1, "{text}");
    assert!(
        !text.contains("readyok"),
        "a line after the abort was read: {text}"
    );
}

#[test]
fn abort_stops_an_infinite_search_and_a_perft_count() {
    let text = transcript(&[Some("ucci"), Some("go infinite"), None]);
    let tail: Vec<&str> = text.lines().rev().take(2).collect();
    assert!(tail[1].starts_with("bestmove "), "{text}");
    assert_eq!(tail[0], "bye");
    let text = transcript(&[Some("go perft 9"), None, Some("isready")]);
    assert_eq!(text, "info string perft stopped\n");
}

#[test]
fn abort_when_idle_ends_like_quit() {
    assert!(transcript(&[Some("ucci"), None, Some("isready")]).ends_with("ucciok\nbye\n"));
    assert_eq!(
        transcript(&[Some("uci"), None]).lines().last(),
        Some("uciok")
    );
}
