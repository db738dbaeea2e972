//! The rules' unit tests: the look-back across null moves, draws yielding
//! to a lost position, conditional material draws, threefold repetition
//! against a plain count, and verdicts as outcomes.

use super::*;

fn play(pos: &mut Position, moves: &str) {
    for text in moves.split_whitespace() {
        let m = pos.parse_move(text).unwrap();
        pos.play(m).unwrap();
    }
}

#[test]
fn null_moves_end_the_look_back() {
    // Start, Red passes, ...b9c7, Red passes, ...c7b9: the start
    // placement with Red to move again, but only across null moves.
    let mut pos = Position::startpos();
    pos.make_null_move();
    play(&mut pos, "b9c7");
    pos.make_null_move();
    play(&mut pos, "c7b9");
    assert_eq!(pos.key(), Position::startpos().key());
    assert_eq!(pos.rule_verdict(10), None);
    // The same placement reached by moves is a (twofold, in-search) draw.
    let mut pos = Position::startpos();
    play(&mut pos, "b0c2 b9c7 c2b0 c7b9");
    assert_eq!(
        pos.rule_verdict(10),
        Some(Verdict::Draw(Reason::RepetitionDraw))
    );
    assert_eq!(pos.rule_verdict(4), None);
    assert_eq!(pos.outcome(), Outcome::Ongoing);
}

#[test]
fn draw_rules_yield_to_a_lost_position() {
    // Move limit reached, but Black is stalemated: Black loses.
    let pos = Position::from_fen("4k4/9/4P4/9/9/9/9/9/3R1R3/4K4 b - - 120 80").unwrap();
    assert_eq!(pos.rule_verdict(0), Some(Verdict::Loss(Reason::Stalemate)));
    assert_eq!(
        pos.outcome(),
        Outcome::Decided {
            winner: Some(Color::Red),
            reason: Reason::Stalemate
        }
    );
    let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/3R1R3/3K5 b - - 120 80").unwrap();
    assert_eq!(pos.rule_verdict(0), Some(Verdict::Draw(Reason::MoveLimit)));
}

#[test]
fn conditional_material_draw() {
    // Cannon against two advisors, no elephant: a draw unless the side
    // to move mates (or stalemates) at once. Here i5i9 mates.
    let mut pos = Position::from_fen("4ka3/4a4/9/9/8C/9/9/9/9/5K3 w").unwrap();
    assert_eq!(material::material_draw(&pos), MaterialDraw::Conditional);
    assert_eq!(pos.rule_verdict(0), None);
    assert_eq!(pos.outcome(), Outcome::Ongoing);
    play(&mut pos, "i5i9");
    assert_eq!(
        pos.outcome(),
        Outcome::Decided {
            winner: Some(Color::Red),
            reason: Reason::Checkmate
        }
    );
    // With Black to move nothing mates: draw.
    let pos = Position::from_fen("4ka3/4a4/9/9/8C/9/9/9/9/5K3 b").unwrap();
    assert_eq!(
        pos.rule_verdict(0),
        Some(Verdict::Draw(Reason::InsufficientMaterial))
    );
}

/// The slow twin of the look-back: whole-game repetition agrees with a
/// plain count of earlier equal keys since the last capture, over
/// random games in sparse positions (where repetitions are common).
#[test]
fn threefold_matches_a_plain_count() {
    let fens = [
        "3k5/9/9/9/9/9/9/9/R8/4K4 w",
        "3ak4/4a4/9/9/2n6/9/9/2C6/9/3K5 w",
        "4k4/9/9/r8/9/9/2N6/9/4A4/3AK4 b",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let is_repetition = |o: Outcome| {
        matches!(
            o,
            Outcome::Decided {
                reason: Reason::PerpetualCheck
                    | Reason::PerpetualChase
                    | Reason::MutualPerpetual
                    | Reason::RepetitionDraw,
                ..
            }
        )
    };
    let mut repetitions = 0;
    for game in 0..150 {
        let mut pos = Position::from_fen(fens[game % fens.len()]).unwrap();
        let mut keys = vec![pos.key()];
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(next() % moves.len().min(3) as u64) as usize];
            if pos.is_capture(m) {
                keys.clear();
            }
            pos.play(m).unwrap();
            let earlier = keys
                .iter()
                .rev()
                .skip(3)
                .step_by(2)
                .filter(|&&k| k == pos.key())
                .count();
            keys.push(pos.key());
            let outcome = pos.outcome();
            let expected = earlier >= 2 && pos.has_legal_move();
            assert_eq!(is_repetition(outcome), expected, "{pos:?} {outcome:?}");
            if outcome != Outcome::Ongoing {
                repetitions += usize::from(expected);
                break;
            }
        }
    }
    assert!(
        repetitions > 20,
        "only {repetitions} games ended by repetition"
    );
}

#[test]
fn verdicts_as_outcomes() {
    assert_eq!(
        Verdict::Loss(Reason::PerpetualCheck).to_outcome(Color::Red),
        Outcome::Decided {
            winner: Some(Color::Black),
            reason: Reason::PerpetualCheck
        }
    );
    assert_eq!(
        Verdict::Win(Reason::PerpetualChase).to_outcome(Color::Red),
        Outcome::Decided {
            winner: Some(Color::Red),
            reason: Reason::PerpetualChase
        }
    );
    assert_eq!(Verdict::Draw(Reason::MoveLimit).reason(), Reason::MoveLimit);
    assert_eq!(Reason::MutualPerpetual.to_string(), "mutual perpetual");
}
