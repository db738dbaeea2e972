//! Strength levels through the binary (`docs/ucci.md` §3): a low level
//! plays legal moves in both dialects, shows only the lines the GUI asked
//! for, answers `stop` as fast as full strength does, and its choices
//! vary between tries while full strength's do not. That a low level
//! loses to full strength is the arena's test (`arena/tests/arena/games.rs`).

mod common;

use std::time::{Duration, Instant};

use common::{Engine, legal_best, pos};

const FENS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "3k5/4a4/2N6/9/9/9/9/9/9/3RK4 b - - 0 1",
];

#[test]
fn a_low_level_plays_legal_moves_in_both_dialects() {
    for (mut e, setup) in [
        (Engine::uci(), "setoption name Skill Level value 0"),
        (Engine::ucci(), "setoption knowledge none"),
    ] {
        e.send(setup);
        for fen in FENS {
            e.send(&format!("position fen {fen}"));
            e.send("go movetime 2000");
            let (before, line, _) = e.final_line(Duration::from_secs(10));
            legal_best(&line, &pos(Some(fen), &[]));
            // Four lines searched, one shown: the GUI asked for one.
            assert!(
                before.iter().all(|l| !l.contains("multipv 2")),
                "{before:?}"
            );
        }
        e.assert_protocol_only();
    }
}

/// `stop` during `go infinite` ends a low level's search as quickly as
/// full strength's: the node budget does not hold the answer back.
#[test]
fn a_low_level_answers_stop_at_once() {
    for setup in [
        "setoption name Skill Level value 3",
        "setoption name Skill Level value 20",
    ] {
        let mut e = Engine::uci();
        e.send(setup);
        e.send("position startpos");
        e.sync();
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(300));
        let t0 = Instant::now();
        e.send("stop");
        let (_, line, at) = e.final_line(Duration::from_secs(5));
        let took = at.duration_since(t0);
        legal_best(&line, &pos(None, &[]));
        assert!(
            took < Duration::from_secs(1),
            "{setup}: stop answered after {took:?}"
        );
    }
}

/// A low level's draw varies between tries from the same position; full
/// strength repeats its move.
#[test]
fn a_low_level_varies_its_moves() {
    let moves = |setup: &str| {
        let mut e = Engine::uci();
        e.send(setup);
        e.send("setoption name OwnBook value false");
        let mut seen = std::collections::HashSet::new();
        for _ in 0..12 {
            e.send_all(&["ucinewgame", "position startpos", "go depth 4"]);
            let (_, line, _) = e.final_line(Duration::from_secs(10));
            seen.insert(legal_best(&line, &pos(None, &[])));
        }
        seen.len()
    };
    assert!(moves("setoption name Skill Level value 2") >= 2);
    assert_eq!(moves("setoption name Skill Level value 20"), 1);
}
