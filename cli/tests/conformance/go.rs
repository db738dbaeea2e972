//! `go` and the clock (`docs/ucci.md` §4) and pondering (§6): limits, bad
//! numbers, banned and searched moves, queued searches, draw offers,
//! `MultiPV`.

use super::*;

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
