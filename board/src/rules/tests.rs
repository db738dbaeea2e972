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

/// The repetition look-back before it read `State::reversible`: every
/// entry back to the last capture or null move, one at a time. The slow
/// twin of [`Position::repetition_verdict`]'s occurrences.
fn earlier_occurrences_slow(pos: &Position) -> Vec<usize> {
    let now = pos.state();
    if now.captured.is_some() || now.last_move.is_none() {
        return Vec::new();
    }
    let hist = pos.history();
    let n = hist.len();
    let mut found = Vec::new();
    for (back, s) in (1..).zip(hist.iter().rev()) {
        if s.key == now.key && back >= 4 && back % 2 == 0 {
            found.push(n - back);
        }
        if s.captured.is_some() || s.last_move.is_none() {
            break;
        }
    }
    found
}

/// Random games that shuffle back and forth (so positions recur), with
/// captures and null moves: at every ply the window the fast look-back
/// reads (`reversible` plies, every second one from the fourth) finds the
/// same earlier occurrences as the slow walk, and the verdicts agree with
/// a count of them.
#[test]
fn the_look_back_window_matches_a_walk_over_the_history() {
    use rand::{Rng as _, SeedableRng as _};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let mut recurrences = 0;
    for _game in 0..60 {
        let mut pos = Position::startpos();
        for _ply in 0..200 {
            if pos.outcome() != Outcome::Ongoing {
                break;
            }
            let moves = pos.legal_moves();
            // Undo the move made two plies ago when it is legal, half the
            // time: the back-and-forth that repeats positions.
            let back = pos
                .history()
                .last()
                .and_then(|s| s.last_move)
                .and_then(|ours| crate::Move::new(ours.to(), ours.from()));
            let m = match back {
                Some(m) if rng.gen_range(0..2) == 0 && moves.contains(&m) => m,
                _ => moves[rng.gen_range(0..moves.len())],
            };
            if !pos.in_check() && rng.gen_range(0..30) == 0 {
                pos.make_null_move();
            } else {
                pos.make_move(m);
            }
            let slow = earlier_occurrences_slow(&pos);
            let now = pos.state();
            let n = pos.history().len();
            let edge = usize::from(now.reversible).min(n);
            let fast: Vec<usize> = if now.captured.is_some() || now.last_move.is_none() {
                Vec::new()
            } else {
                (4..=edge)
                    .step_by(2)
                    .filter(|&b| pos.history()[n - b].key == now.key)
                    .map(|b| n - b)
                    .collect()
            };
            assert_eq!(fast, slow, "{}", pos.fen());
            // The window's filter, kept up by the makes, is the one worked
            // out from the window itself, and so never misses an
            // occurrence.
            let recomputed = (2..=edge).step_by(2).fold(0, |f, b| {
                f | crate::position::seen_bit(pos.history()[n - b].key)
            });
            assert_eq!(now.seen, recomputed, "{}", pos.fen());
            assert!(slow.is_empty() || now.seen & crate::position::seen_bit(now.key) != 0);
            recurrences += usize::from(!slow.is_empty());
            let (_, repeated) = pos.repetition_verdict(1000);
            assert_eq!(repeated, !slow.is_empty());
        }
    }
    assert!(recurrences > 100, "{recurrences}");
}
