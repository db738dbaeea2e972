//! The NNUE's slow twins: incremental against refreshed accumulators,
//! AVX2 against scalar, the file format against every kind of damage, the
//! colour flip, and the data record round trip.

use board::{Color, Piece, Position, Setup, Square};
use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::Accumulator;
use super::features::{HIDDEN, TOTAL_INPUTS};
use super::network::{HEADER_BYTES, Network, NetworkError};
use super::simd::Backend;
use super::stack::AccumulatorStack;

/// A seeded stream, so the tests always see the same positions.
type Rng = Pcg64Mcg;

/// A network with random weights big enough that activations fall below 0,
/// inside the clip range and above `QA`, so every branch of the activation
/// is exercised.
pub(crate) fn random_network(seed: u64) -> Network {
    let mut rng = Rng::seed_from_u64(seed | 1);
    let ft = (0..TOTAL_INPUTS)
        .map(|_| std::array::from_fn(|_| rng.gen_range(-70i16..=70)))
        .collect();
    let bias = std::array::from_fn(|_| rng.gen_range(-60i16..=160));
    let out = std::array::from_fn(|_| std::array::from_fn(|_| rng.gen_range(-127i16..=127)));
    Network::from_parts(ft, bias, out, i32::from(rng.gen_range(-3000i16..=3000)))
        .expect("valid parts")
}

/// Random legal games from the start position: every position reached,
/// after each move, through `visit` (which also sees the move's position
/// before it, as an accumulator to update).
fn random_games(seed: u64, positions: usize, mut visit: impl FnMut(&Position)) {
    let mut rng = Rng::seed_from_u64(seed | 1);
    let mut pos = Position::startpos();
    let mut seen = 0;
    while seen < positions {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.game_ply() > 160 {
            pos = Position::startpos();
            continue;
        }
        let m = moves[rng.gen_range(0..moves.len())];
        pos.make_move(m);
        visit(&pos);
        seen += 1;
    }
}

fn colour_flip(pos: &Position) -> Position {
    let mut setup = Setup {
        board: [None; 90],
        side: !pos.side_to_move(),
        rule60: 0,
        fullmove: 1,
    };
    for sq in Square::all() {
        if let Some(p) = pos.piece_at(sq) {
            setup.board[sq.flip().index()] = Some(Piece::new(!p.color(), p.kind()));
        }
    }
    Position::from_setup(&setup).expect("the colour flip of a legal position is legal")
}

#[test]
fn incremental_updates_match_refresh_and_backends_agree() {
    let net = random_network(7);
    let mut acc = Accumulator::new(&net, &Position::startpos());
    let mut clipped_high = 0;
    let mut clipped_low = 0;
    random_games(11, 4000, |pos| {
        if pos.game_ply() == 1 {
            acc.refresh(&net, &Position::startpos());
        }
        let prev = acc.clone();
        acc.apply_move(&net, pos);
        let fresh = Accumulator::new(&net, pos);
        assert_eq!(acc, fresh, "incremental accumulator after {}", pos.fen());
        for backend in [Backend::Scalar, Backend::Avx2] {
            let mut copied = Accumulator::default();
            copied.update_from(&prev, &net, pos, backend);
            assert_eq!(copied, fresh, "{backend:?} copy-update after {}", pos.fen());
        }
        let side = pos.side_to_move();
        let scalar = acc.evaluate_with(&net, side, Backend::Scalar);
        assert_eq!(scalar, net.evaluate(pos));
        if Backend::Avx2.available() {
            assert_eq!(acc.evaluate_with(&net, side, Backend::Avx2), scalar);
        }
        clipped_high += acc.values[0].iter().filter(|&&v| v > 255).count();
        clipped_low += acc.values[0].iter().filter(|&&v| v < 0).count();
    });
    assert!(
        clipped_high > 0 && clipped_low > 0,
        "activation range not covered"
    );
}

/// The search's lazy stack against a refresh: a random walk down and up a
/// tree (moves, captures, null moves, undone moves) that evaluates only
/// some plies, so deltas are replayed over several plies at a time.
#[test]
fn lazy_stack_matches_refresh() {
    let net = random_network(11);
    let mut rng = Rng::seed_from_u64(77);
    let mut stack = AccumulatorStack::new(64);
    let mut checked = 0;
    for _game in 0..40 {
        let mut pos = Position::startpos();
        stack.reset(&net, &pos);
        // Kinds of the pushes on the stack: true for a null move.
        let mut made: Vec<bool> = Vec::new();
        for _step in 0..400 {
            let moves = pos.legal_moves();
            let down = made.is_empty() || (made.len() < 60 && rng.gen_range(0..3) != 0);
            if down && !moves.is_empty() {
                if !pos.in_check() && rng.gen_range(0..8) == 0 {
                    stack.push_null();
                    pos.make_null_move();
                    made.push(true);
                } else {
                    let m = moves[rng.gen_range(0..moves.len())];
                    stack.push(&pos, m);
                    pos.make_move(m);
                    made.push(false);
                }
            } else if let Some(null) = made.pop() {
                stack.pop();
                if null {
                    pos.unmake_null_move();
                } else {
                    pos.unmake_move();
                }
            }
            if rng.gen_range(0..3) == 0 {
                assert_eq!(
                    stack.evaluate(&net, &pos),
                    net.evaluate(&pos),
                    "{}",
                    pos.fen()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 4000, "{checked}");
}

#[test]
fn backends_agree_at_the_extremes() {
    let mut net = random_network(3);
    net.out_weights = [[127; HIDDEN], [-127; HIDDEN]];
    let acc = Accumulator {
        values: [[i16::MAX; HIDDEN], [255; HIDDEN]],
    };
    for side in Color::ALL {
        let s = acc.evaluate_with(&net, side, Backend::Scalar);
        assert_eq!(acc.evaluate_with(&net, side, Backend::Avx2), s);
    }
}

#[test]
fn colour_flip_gives_the_same_score() {
    let net = random_network(5);
    let mut n = 0;
    random_games(23, 1500, |pos| {
        let flipped = colour_flip(pos);
        assert_eq!(net.evaluate(&flipped), net.evaluate(pos), "{}", pos.fen());
        n += 1;
    });
    assert_eq!(n, 1500);
}

#[test]
fn file_round_trips_and_every_damage_is_named() {
    let net = random_network(9);
    let bytes = net.to_bytes();
    assert_eq!(Network::from_bytes(&bytes).as_ref(), Ok(&net));

    assert!(matches!(
        Network::from_bytes(&bytes[..10]),
        Err(NetworkError::Truncated { .. })
    ));
    assert!(matches!(
        Network::from_bytes(&bytes[..bytes.len() - 1]),
        Err(NetworkError::Truncated { .. })
    ));
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        Network::from_bytes(&longer),
        Err(NetworkError::WrongSize { .. })
    ));
    let mut bad = bytes.clone();
    bad[0] ^= 1;
    assert_eq!(Network::from_bytes(&bad), Err(NetworkError::BadMagic));
    let mut bad = bytes.clone();
    bad[8] = 2;
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetworkError::WrongVersion { found: 2, .. })
    ));
    let mut bad = bytes.clone();
    bad[21] = 0; // hidden 256 (bytes 20-23: 00 01 00 00) -> 0
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetworkError::WrongArchitecture {
            field: "hidden",
            ..
        })
    ));
    let mut bad = bytes.clone();
    bad[40] ^= 4;
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetworkError::WrongSize { .. })
    ));
    let mut bad = bytes.clone();
    bad[HEADER_BYTES + 1000] ^= 0x10;
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetworkError::BadChecksum { .. })
    ));
    assert!(matches!(
        Network::load(std::path::Path::new("/nonexistent/chariot.nnue")),
        Err(NetworkError::Missing(_))
    ));
    let mut out = random_network(9);
    out.out_weights[1][3] = 128;
    assert!(matches!(
        Network::from_bytes(&out.to_bytes()),
        Err(NetworkError::WeightOutOfRange { index, value: 128 }) if index == HIDDEN + 3
    ));
}

#[test]
fn loader_never_panics_on_garbage() {
    let mut rng = Rng::seed_from_u64(99);
    let good = random_network(1).to_bytes();
    for len in [0, 1, 47, 48, 49, 1000] {
        let junk: Vec<u8> = (0..len).map(|_| rng.gen_range(0..=u8::MAX)).collect();
        assert!(Network::from_bytes(&junk).is_err());
        let mut prefixed = good[..HEADER_BYTES.min(len)].to_vec();
        prefixed.extend_from_slice(&junk);
        assert!(Network::from_bytes(&prefixed).is_err());
    }
}

/// Timing of refresh, incremental updates, both output backends and the
/// hand-written evaluation, each the best of several runs (the minimum is
/// the figure least disturbed by other work on a shared machine). Run with
/// `cargo test --release -p engine nnue_speed -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
#[allow(clippy::cast_precision_loss)]
fn nnue_speed() {
    use std::hint::black_box;
    use std::time::Instant;

    /// Nanoseconds per item of the fastest of 7 runs of `f` over `items`.
    fn best_of(items: usize, mut f: impl FnMut()) -> f64 {
        (0..7)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_nanos() as f64 / items as f64
            })
            .fold(f64::INFINITY, f64::min)
    }

    let net = random_network(7);
    let mut positions = Vec::new();
    random_games(11, 2000, |pos| positions.push(pos.clone()));
    let n = positions.len();
    let mut sink = 0i64;
    let hand = best_of(n, || {
        for pos in &positions {
            sink += i64::from(crate::eval::evaluate(black_box(pos)));
        }
    });
    let refresh = best_of(n, || {
        for pos in &positions {
            sink += i64::from(Accumulator::new(&net, black_box(pos)).values[0][0]);
        }
    });
    let in_place = best_of(n, || {
        let mut acc = Accumulator::new(&net, &positions[0]);
        for pos in &positions {
            let mut next = acc.clone();
            next.apply_move(&net, black_box(pos));
            acc = next;
        }
        sink += i64::from(acc.values[0][0]);
    });
    let mut fused = Vec::new();
    let mut output = Vec::new();
    for backend in [Backend::Scalar, Backend::Avx2] {
        fused.push(best_of(n, || {
            let mut stack = vec![Accumulator::new(&net, &positions[0]); 2];
            for (k, pos) in positions.iter().enumerate() {
                let (a, b) = stack.split_at_mut(1);
                if k % 2 == 0 {
                    b[0].update_from(&a[0], &net, black_box(pos), backend);
                } else {
                    a[0].update_from(&b[0], &net, black_box(pos), backend);
                }
            }
            sink += i64::from(stack[0].values[0][0]);
        }));
        let acc = Accumulator::new(&net, &positions[0]);
        output.push(best_of(100_000, || {
            for i in 0..100_000 {
                let side = if i % 2 == 0 { Color::Red } else { Color::Black };
                sink += i64::from(black_box(&acc).evaluate_with(&net, side, backend));
            }
        }));
    }
    println!("hand-written evaluate: {hand:.1} ns");
    println!("refresh: {refresh:.1} ns; clone + apply_move: {in_place:.1} ns");
    println!(
        "update_from: scalar {:.1} ns, AVX2 {:.1} ns",
        fused[0], fused[1]
    );
    println!(
        "output layer: scalar {:.1} ns, AVX2 {:.1} ns ({sink})",
        output[0], output[1]
    );
}

/// The shipped network loads through the validating loader, and its score
/// of the start position is near zero from both sides.
#[test]
fn the_embedded_network_loads() {
    let net = super::embedded().expect("the build embeds a network");
    let start = net.evaluate(&Position::startpos());
    assert!(start.abs() < 100, "start position {start}");
}
