//! `position` and its corner cases (`docs/ucci.md` §2, §9): FEN errors,
//! move counters, unreadable moves, long move lists.

use super::*;

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
