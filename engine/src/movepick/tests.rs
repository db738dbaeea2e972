//! The staged picker against full generation: along random games, with
//! table moves, killers and countermoves drawn from legal, illegal,
//! capturing and duplicated moves, every legal move comes out exactly
//! once, in stage order, each with the class its exchange gives it.

use board::{Move, PieceKind, Position, Square};
use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{MoveClass, MovePicker, QuietOrder};
use crate::eval::{PIECE_VALUE, SEE_VALUES};
use crate::history::{Histories, PieceTo};

/// A seeded stream: the same positions on every run.
type Rng = Pcg64Mcg;

/// A move for a table or killer slot: none, a legal move, a legal
/// capture, or any pair of squares (mostly illegal here).
fn slot(rng: &mut Rng, pos: &Position) -> Option<Move> {
    match rng.gen_range(0..4) {
        0 => None,
        1 => {
            let moves = pos.legal_moves();
            (!moves.is_empty()).then(|| moves[rng.gen_range(0..moves.len())])
        }
        2 => {
            let caps = pos.legal_captures();
            (!caps.is_empty()).then(|| caps[rng.gen_range(0..caps.len())])
        }
        _ => Move::new(
            Square::from_index(rng.gen_range(0..90))?,
            Square::from_index(rng.gen_range(0..90))?,
        ),
    }
}

fn class_rank(c: MoveClass) -> u8 {
    match c {
        MoveClass::TableMove => 0,
        MoveClass::GoodCapture => 1,
        MoveClass::Refutation => 2,
        MoveClass::Quiet => 3,
        MoveClass::BadCapture => 4,
    }
}

fn positions(n: usize) -> Vec<Position> {
    let mut rng = Rng::seed_from_u64(0x5eed_1234_abcd_0001);
    let mut pos = Position::startpos();
    let mut out = Vec::new();
    while out.len() < n {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.game_ply() > 150 {
            pos = Position::startpos();
            continue;
        }
        // Captures now and then, so the games reach open positions.
        let caps = pos.legal_captures();
        let m = if !caps.is_empty() && rng.gen_range(0..3) == 0 {
            caps[rng.gen_range(0..caps.len())]
        } else {
            moves[rng.gen_range(0..moves.len())]
        };
        pos.make_move(m);
        out.push(pos.clone());
    }
    out
}

#[test]
fn staged_picker_hands_out_every_legal_move_once_in_stage_order() {
    let mut rng = Rng::seed_from_u64(99);
    let h = Histories::new_boxed();
    let mut killers_seen = 0;
    for pos in positions(3000) {
        let tt = [slot(&mut rng, &pos), slot(&mut rng, &pos)];
        let order = QuietOrder {
            killers: [slot(&mut rng, &pos), tt[0].or(slot(&mut rng, &pos))],
            counter: slot(&mut rng, &pos),
            ..QuietOrder::default()
        };
        let mut picker = MovePicker::new(tt, order);
        let mut out = Vec::new();
        while let Some(item) = picker.next(&pos, &h) {
            out.push(item);
        }
        let mut got: Vec<Move> = out.iter().map(|&(m, _, _)| m).collect();
        got.sort_by_key(|m| (m.from().index(), m.to().index()));
        let mut want = pos.legal_moves().to_vec();
        want.sort_by_key(|m| (m.from().index(), m.to().index()));
        assert_eq!(got, want, "every legal move once: {}", pos.fen());
        // Legal table moves first, in slot order.
        let legal_tt: Vec<Move> = {
            let mut v: Vec<Move> = tt
                .iter()
                .flatten()
                .copied()
                .filter(|&m| pos.is_legal(m))
                .collect();
            v.dedup();
            v
        };
        let hashes: Vec<Move> = out
            .iter()
            .filter(|e| e.1 == MoveClass::TableMove)
            .map(|e| e.0)
            .collect();
        assert_eq!(hashes, legal_tt, "{}", pos.fen());
        for w in out.windows(2) {
            assert!(
                class_rank(w[0].1) <= class_rank(w[1].1),
                "stage order: {}",
                pos.fen()
            );
            if w[0].1 == MoveClass::Quiet && w[1].1 == MoveClass::Quiet {
                assert!(w[0].2 >= w[1].2, "quiet moves by history: {}", pos.fen());
            }
        }
        for &(m, class, _) in &out {
            let capture = pos.is_capture(m);
            match class {
                MoveClass::TableMove => {}
                MoveClass::GoodCapture => assert!(capture && pos.see(m, &SEE_VALUES) >= 0),
                MoveClass::BadCapture => assert!(capture && pos.see(m, &SEE_VALUES) < 0),
                MoveClass::Refutation => {
                    assert!(!capture);
                    assert!([order.killers[0], order.killers[1], order.counter].contains(&Some(m)));
                    killers_seen += 1;
                }
                MoveClass::Quiet => assert!(!capture),
            }
        }
    }
    assert!(
        killers_seen > 100,
        "the killer stage was exercised: {killers_seen}"
    );
}

#[test]
fn capture_picker_hands_out_the_captures_quiescence_searches() {
    let mut rng = Rng::seed_from_u64(7);
    let h = Histories::new_boxed();
    for pos in positions(3000) {
        let tt = [slot(&mut rng, &pos), slot(&mut rng, &pos)];
        let min_victim = [0, 100, 201, 450, 951][rng.gen_range(0..5)];
        let taken = |m: Move| {
            pos.piece_at(m.to())
                .map_or(0, |p| PIECE_VALUE[p.kind().index()])
        };
        let mut picker = MovePicker::captures(tt, min_victim);
        let mut got = Vec::new();
        while let Some((m, _, _)) = picker.next(&pos, &h) {
            got.push(m);
        }
        let in_tt = |m: Move| tt.contains(&Some(m));
        let mut want: Vec<Move> = pos
            .legal_captures()
            .iter()
            .copied()
            .filter(|&m| taken(m) >= min_victim && (in_tt(m) || pos.see(m, &SEE_VALUES) >= 0))
            .collect();
        let key = |m: &Move| (m.from().index(), m.to().index());
        got.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(got, want, "{} (min victim {min_victim})", pos.fen());
    }
}

#[test]
fn skipping_quiets_drops_only_the_quiet_moves_still_to_come() {
    let mut rng = Rng::seed_from_u64(31);
    let h = Histories::new_boxed();
    let mut skipped_before_generation = 0;
    for pos in positions(2000) {
        let tt = [slot(&mut rng, &pos), slot(&mut rng, &pos)];
        let order = QuietOrder {
            killers: [slot(&mut rng, &pos), slot(&mut rng, &pos)],
            counter: slot(&mut rng, &pos),
            ..QuietOrder::default()
        };
        let mut full = Vec::new();
        let mut picker = MovePicker::new(tt, order);
        while let Some(item) = picker.next(&pos, &h) {
            full.push(item);
        }
        // Skip after k moves: the first k as before, then the rest less
        // the quiet moves, in the same order.
        let k = rng.gen_range(0..=full.len());
        let mut picker = MovePicker::new(tt, order);
        let mut got = Vec::new();
        while got.len() < k {
            got.extend(picker.next(&pos, &h));
        }
        picker.skip_quiets();
        while let Some(item) = picker.next(&pos, &h) {
            got.push(item);
        }
        let mut want = full[..k].to_vec();
        want.extend(full[k..].iter().filter(|e| e.1 != MoveClass::Quiet));
        assert_eq!(got, want, "skip after {k} moves: {}", pos.fen());
        if !full[..k].iter().any(|e| e.1 == MoveClass::Quiet)
            && full[k..].iter().any(|e| e.1 == MoveClass::Quiet)
        {
            skipped_before_generation += 1;
        }
    }
    assert!(
        skipped_before_generation > 100,
        "skips before the quiet moves were generated: {skipped_before_generation}"
    );
}

#[test]
fn captures_of_equal_victims_come_in_capture_history_order() {
    // Either red chariot takes an undefended black soldier.
    let pos = Position::from_fen("3k5/9/9/p7p/9/9/9/9/9/R3K3R w - - 0 1").expect("fen");
    let a = pos.parse_move("a0a6").expect("legal");
    let i = pos.parse_move("i0i6").expect("legal");
    let key = |m: Move| {
        let p = pos.piece_at(m.from()).expect("a mover");
        (m, PieceTo::new(p.index(), m.to()), PieceKind::Pawn)
    };
    let first = |h: &Histories| {
        let mut picker = MovePicker::new([None, None], QuietOrder::default());
        picker.next(&pos, h).map(|(m, class, _)| (m, class))
    };
    let mut h = Histories::new_boxed();
    for (best, other) in [(i, a), (a, i)] {
        // The best capture gains and the other, tried before it, loses;
        // three lessons outweigh the previous round's.
        for _ in 0..3 {
            h.update_captures(Some(key(best)), &[key(other)], 8);
        }
        assert_eq!(first(&h), Some((best, MoveClass::GoodCapture)));
    }
}
