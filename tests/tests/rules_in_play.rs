//! Rules in play: searches driven the way a GUI drives a game, one
//! `position … moves …` and `go` after another in the same engine (so the
//! transposition table carries over, as in a real game), with the move the
//! engine must or must not play at the end; and the ranking of rule losses
//! against mates.
//!
//! Each case is a game from a FEN through a list of moves, searched at
//! every listed step; the last search is checked.

use board::{Move, Position};
use engine::{Engine, Limits, Score, SearchResult};
use test_support::search_depth;

fn position(fen: &str, moves: &[&str]) -> Position {
    let mut p = Position::from_fen(fen).expect("test FEN");
    for m in moves {
        let m: Move = m.parse().expect("test move");
        assert!(p.is_legal(m), "{m} is illegal in {fen} after {moves:?}");
        p.make_move(m);
    }
    p
}

/// Which evaluation a case searches with.
#[derive(Clone, Copy)]
enum Eval {
    /// The shipped network, as users play.
    Network,
    /// The hand-written evaluation: for assertions on the score itself,
    /// which must not hang on how a network judges the material.
    Hand,
}

/// A game as a GUI plays it: searches after each prefix in `steps` (move
/// counts into `moves`), in one engine; returns the last result.
fn play(fen: &str, moves: &[&str], steps: &[usize], depth: u32) -> SearchResult {
    play_with(Eval::Network, fen, moves, steps, depth)
}

fn play_with(eval: Eval, fen: &str, moves: &[&str], steps: &[usize], depth: u32) -> SearchResult {
    let mut engine = Engine::new();
    if let Eval::Hand = eval {
        engine.set_network(None);
    }
    let mut last = None;
    for &n in steps {
        last = Some(search_depth(&mut engine, position(fen, &moves[..n]), depth));
    }
    last.expect("at least one step")
}

fn best(r: &SearchResult) -> String {
    r.best.map(|m| m.to_string()).unwrap_or_default()
}

/// Black's chariot has given checks that Red parried; after six plies the
/// game position repeats the previous search's tree. A table entry from
/// the first search used to cut off the repetition whose perpetual-check
/// verdict was held back at the twofold, and g1g3 (mated in 7 by
/// Fairy-Stockfish) scored +259. g1g0, g1g2 and g1g7 hold: they are the
/// only moves Fairy-Stockfish (271126, classical evaluation, `MultiPV` over
/// every move) does not see mated at depth 24, and at depth 26 it scores
/// each -175; g1d1, which it held at depth 20, is mated in 14, every other
/// move in 10 or fewer. How far from level the
/// held position is, and which move a depth-12 search finds to hold it,
/// are the evaluation's judgement (the second network scored Black's naked
/// general at about -430 at depth 20 after g1g0; the third needed depth 14
/// on the every-ply path). So the move and a level score are checked with
/// the hand-written evaluation, which no new network changes, and the
/// shipped network is held to what any network must give: no advantage
/// for Black (the bug's signature was +259), whatever move it picks.
const PERPETUAL_FEN: &str = "9/3ka4/bR7/3P5/9/9/4c4/3A5/4K4/r8 b - - 0 1";
const PERPETUAL_LINE: [&str; 6] = ["a0g0", "b7b8", "d8d9", "b8e8", "g0g1", "e1e0"];
const HOLDS: [&str; 3] = ["g1g0", "g1g2", "g1g7"];

fn assert_holds(r: &SearchResult) {
    assert!(HOLDS.contains(&best(r).as_str()), "{r:?}");
}

/// Black, a naked general against a chariot and a soldier, is not better:
/// the table bug scored a losing move at +259. Any network, at any depth.
fn assert_no_phantom_advantage(r: &SearchResult) {
    assert!(r.best.is_some(), "{r:?}");
    assert!(
        match r.score {
            Score::Cp(cp) => cp <= 50,
            Score::Mate(plies) => plies < 0,
        },
        "Black scores an advantage it does not have: {r:?}"
    );
}

/// A holding move, and a score near a draw.
fn assert_holds_level(r: &SearchResult) {
    assert_holds(r);
    assert!(
        matches!(r.score, Score::Cp(cp) if cp.abs() <= 100),
        "score should be near a draw: {r:?}"
    );
}

#[test]
fn primed_table_does_not_cut_off_a_held_back_repetition() {
    assert_no_phantom_advantage(&play(PERPETUAL_FEN, &PERPETUAL_LINE, &[0, 6], 12));
    assert_holds_level(&play_with(
        Eval::Hand,
        PERPETUAL_FEN,
        &PERPETUAL_LINE,
        &[0, 6],
        12,
    ));
}

#[test]
fn fresh_search_of_the_same_position_agrees() {
    assert_no_phantom_advantage(&play(PERPETUAL_FEN, &PERPETUAL_LINE, &[6], 12));
    assert_holds_level(&play_with(
        Eval::Hand,
        PERPETUAL_FEN,
        &PERPETUAL_LINE,
        &[6],
        12,
    ));
}

/// The same game searched after every ply, as a GUI analysing it would:
/// every step's table primes the next. Which move a network holds with at
/// a given depth is its horizon's affair (the third network played g1g6,
/// mated in 10 by Fairy-Stockfish, at depth 12 and -158, and held from
/// depth 13), so the network is held to no phantom advantage and the
/// hand-written evaluation to the hold.
#[test]
fn every_ply_primed_still_finds_a_hold() {
    let every_ply = [0, 1, 2, 3, 4, 5, 6];
    assert_no_phantom_advantage(&play(PERPETUAL_FEN, &PERPETUAL_LINE, &every_ply, 12));
    assert_holds(&play_with(
        Eval::Hand,
        PERPETUAL_FEN,
        &PERPETUAL_LINE,
        &every_ply,
        12,
    ));
}

/// Red's chariot checks Black's general between d9 and e9 (both forced:
/// f9 would face Red's general); the cycle has been played twice, so
/// e5d5 now completes a threefold perpetual check and loses at once. Black
/// threatens b2b0 mate. Red must prefer the longer defence: a loss by rule
/// at one ply is a loss like a mate at one ply.
const CHECKER_FEN: &str = "3k5/9/9/9/4R4/9/9/1r7/r8/5K3 w - - 0 1";
const CHECKER_LINE: [&str; 8] = [
    "e5d5", "d9e9", "d5e5", "e9d9", "e5d5", "d9e9", "d5e5", "e9d9",
];

#[test]
fn lost_side_prefers_a_longer_defence_to_an_immediate_rule_loss() {
    for steps in [&[8][..], &[0, 4, 8][..]] {
        let r = play(CHECKER_FEN, &CHECKER_LINE, steps, 8);
        assert_ne!(best(&r), "e5d5", "completes the perpetual check: {r:?}");
        match r.score {
            Score::Mate(plies) => assert!(plies < -1, "no longer defence: {r:?}"),
            Score::Cp(_) => {}
        }
        assert_ne!(
            r.rule,
            Some(board::Reason::PerpetualCheck),
            "the chosen line ends by mate, not by rule: {r:?}"
        );
    }
}

/// Searched alone (as `go searchmoves e5d5`), the completing check scores
/// as the loss in one it is, and the report names its rule.
#[test]
fn the_rule_loss_itself_scores_as_a_loss_in_one_and_names_its_rule() {
    let mut engine = Engine::new();
    let pos = position(CHECKER_FEN, &CHECKER_LINE);
    let limits = Limits {
        depth: Some(4),
        root_moves: vec!["e5d5".parse().expect("move")],
        ..Limits::default()
    };
    engine.start(pos, limits, Box::new(|_| {}));
    let r = engine.wait();
    assert_eq!(r.score, Score::Mate(-1), "{r:?}");
    assert_eq!(r.rule, Some(board::Reason::PerpetualCheck), "{r:?}");
}
