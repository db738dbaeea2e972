//! The NNUE's slow twins, for every architecture: incremental against
//! refreshed accumulators, AVX2 against scalar, the file format against
//! every kind of damage, the colour flip and the mirror's rows.

use board::{Color, Piece, PieceKind, Position, Setup, Square};
use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::Accumulator;
use super::features::{self, Arch, HIDDEN};
use super::network::{HEADER_BYTES, Network, NetworkError};
use super::simd::Backend;
use super::stack::AccumulatorStack;

/// A seeded stream, so the tests always see the same positions.
type Rng = Pcg64Mcg;

/// A network of the shipped architecture with random weights (see
/// [`random_network_of`]).
pub(crate) fn random_network(seed: u64) -> Network {
    random_network_of(Arch::Squares, seed)
}

/// A network of `arch` with random weights big enough that activations
/// fall below 0, inside the clip range and above `QA`, so every branch of
/// the activation is exercised.
pub(crate) fn random_network_of(arch: Arch, seed: u64) -> Network {
    let mut rng = Rng::seed_from_u64(seed | 1);
    let ft = (0..arch.inputs())
        .map(|_| std::array::from_fn(|_| rng.gen_range(-70i16..=70)))
        .collect();
    let bias = std::array::from_fn(|_| rng.gen_range(-60i16..=160));
    let buckets = arch.output_buckets();
    let out = (0..buckets)
        .map(|_| std::array::from_fn(|_| std::array::from_fn(|_| rng.gen_range(-127i16..=127))))
        .collect();
    let out_bias = (0..buckets)
        .map(|_| i32::from(rng.gen_range(-3000i16..=3000)))
        .collect();
    Network::from_parts(arch, ft, bias, out, out_bias).expect("valid parts")
}

/// Where [`random_games`] start, in turn: the start position, the start
/// with one chariot a side, with none, and with the chariots and one horse
/// a side only, whose games reach the material that random games from the
/// start seldom do (no chariots; few horses and cannons), so that the
/// endings' placements are met often.
const STARTS: [&str; 4] = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1",
    "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABN1 w - - 0 1",
    "rnbakab1r/9/9/p1p1p1p1p/9/9/P1P1P1P1P/9/9/RNBAKAB1R w - - 0 1",
];

/// Random legal games from [`STARTS`], in turn: every position reached,
/// after each move, through `visit` (a position after the game's first
/// move has `game_ply() == 1`). A capture is chosen a third of the time
/// when there is one, so that the games reach the endings within their
/// 160 plies.
fn random_games(seed: u64, positions: usize, mut visit: impl FnMut(&Position)) {
    let mut rng = Rng::seed_from_u64(seed | 1);
    let start = |game: usize| Position::from_fen(STARTS[game % STARTS.len()]).expect("legal");
    let mut game = 0;
    let mut pos = start(game);
    let mut seen = 0;
    while seen < positions {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.game_ply() > 160 {
            game += 1;
            pos = start(game);
            continue;
        }
        let captures: Vec<_> = moves
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        let m = if !captures.is_empty() && rng.gen_range(0..3) == 0 {
            captures[rng.gen_range(0..captures.len())]
        } else {
            moves[rng.gen_range(0..moves.len())]
        };
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
    for arch in Arch::ALL {
        let net = random_network_of(arch, 7);
        let mut acc = Accumulator::new(&net, &Position::startpos());
        let mut clipped_high = 0;
        let mut clipped_low = 0;
        let mut buckets = vec![0; arch.output_buckets()];
        random_games(11, 12_000, |pos| {
            if pos.game_ply() == 1 {
                let mut start = pos.clone();
                start.unmake_move();
                acc.refresh(&net, &start);
            }
            let prev = acc.clone();
            acc.apply_move(&net, pos);
            let fresh = Accumulator::new(&net, pos);
            assert_eq!(
                acc,
                fresh,
                "{arch} incremental accumulator after {}",
                pos.fen()
            );
            for backend in Backend::ALL.into_iter().filter(|b| b.available()) {
                let mut copied = Accumulator::default();
                copied.update_from(&prev, &net, pos, backend);
                assert_eq!(
                    copied,
                    fresh,
                    "{arch} {backend:?} copy-update after {}",
                    pos.fen()
                );
            }
            let side = pos.side_to_move();
            let bucket = arch.output_bucket(pos);
            buckets[bucket] += 1;
            let scalar = acc.evaluate_with(&net, side, bucket, Backend::Scalar);
            assert_eq!(scalar, net.evaluate(pos));
            for backend in Backend::ALL.into_iter().filter(|b| b.available()) {
                assert_eq!(acc.evaluate_with(&net, side, bucket, backend), scalar);
            }
            assert_eq!(acc.evaluate(&net, pos), scalar);
            clipped_high += acc.values[0].iter().filter(|&&v| v > 255).count();
            clipped_low += acc.values[0].iter().filter(|&&v| v < 0).count();
        });
        assert!(
            clipped_high > 0 && clipped_low > 0,
            "{arch}: activation range not covered"
        );
        assert!(
            buckets.iter().all(|&n| n > 30),
            "{arch}: buckets {buckets:?}"
        );
    }
}

/// The search's lazy stack against a refresh: a random walk down and up a
/// tree (moves, captures, null moves, undone moves) that evaluates only
/// some plies, so deltas are replayed over several plies at a time.
#[test]
fn lazy_stack_matches_refresh() {
    for arch in Arch::ALL {
        let net = random_network_of(arch, 11);
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
                        // Generals' moves first, half the time, so that
                        // they change king buckets often where an
                        // architecture has several.
                        let king_moves: Vec<_> = moves
                            .iter()
                            .copied()
                            .filter(|m| {
                                pos.piece_at(m.from()).map(Piece::kind) == Some(PieceKind::King)
                            })
                            .collect();
                        let m = if !king_moves.is_empty() && rng.gen_range(0..2) == 0 {
                            king_moves[rng.gen_range(0..king_moves.len())]
                        } else {
                            moves[rng.gen_range(0..moves.len())]
                        };
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
                        "{arch} {}",
                        pos.fen()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 4000, "{arch}: {checked}");
    }
}

#[test]
fn backends_agree_at_the_extremes() {
    for arch in Arch::ALL {
        let mut net = random_network_of(arch, 3);
        let last = arch.output_buckets() - 1;
        net.out_weights[last] = [[127; HIDDEN], [-127; HIDDEN]];
        let acc = Accumulator {
            values: [[i16::MAX; HIDDEN], [255; HIDDEN]],
        };
        for side in Color::ALL {
            for bucket in [0, last] {
                let s = acc.evaluate_with(&net, side, bucket, Backend::Scalar);
                for backend in Backend::ALL.into_iter().filter(|b| b.available()) {
                    assert_eq!(acc.evaluate_with(&net, side, bucket, backend), s);
                }
            }
        }
    }
}

/// The input bucket read off a position, off its pieces (the rows'
/// bucket) and the rule that says when a move changed it all agree, along
/// random games, and the games change each bucketed architecture's
/// buckets often.
#[test]
fn input_buckets_agree_and_changes_are_seen() {
    for arch in Arch::ALL {
        let mut changes = 0;
        random_games(41, 6000, |pos| {
            let mut before = pos.clone();
            before.unmake_move();
            let state = pos.state();
            let m = state.last_move.expect("a move was played");
            let moved = pos
                .piece_at(m.to())
                .expect("the mover stands on its target");
            for side in Color::ALL {
                let bucket = arch.input_bucket(side, pos);
                let rows = arch.active(side, features::pieces_of(pos));
                assert!(
                    rows.iter()
                        .all(|&r| usize::from(r) / features::squares::INPUTS == bucket),
                    "{arch} {}",
                    pos.fen()
                );
                let changed = arch.bucket_changed(side, (moved, m, state.captured), pos);
                assert_eq!(
                    changed,
                    arch.input_bucket(side, &before) != bucket,
                    "{arch} {side:?} after {}",
                    pos.fen()
                );
                changes += usize::from(changed);
            }
        });
        if arch.input_buckets() > 1 {
            assert!(changes > 50, "{arch}: {changes} bucket changes");
        }
    }
}

#[test]
fn colour_flip_gives_the_same_score() {
    for arch in Arch::ALL {
        let net = random_network_of(arch, 5);
        let mut n = 0;
        random_games(23, 1500, |pos| {
            let flipped = colour_flip(pos);
            assert_eq!(
                net.evaluate(&flipped),
                net.evaluate(pos),
                "{arch} {}",
                pos.fen()
            );
            n += 1;
        });
        assert_eq!(n, 1500);
    }
}

/// [`Arch::mirror_into`] (the trainer's `--mirror`) computes the rows of
/// the left-right mirrored position from the position's own.
#[test]
fn mirrored_positions_give_mirrored_rows() {
    let sorted = |rows: &[u16]| {
        let mut v = rows.to_vec();
        v.sort_unstable();
        v
    };
    random_games(31, 3000, |pos| {
        let mirrored = pos.mirror();
        for arch in Arch::ALL {
            for side in Color::ALL {
                let rows = arch.active(side, features::pieces_of(pos));
                let expected = arch.active(side, features::pieces_of(&mirrored));
                assert_eq!(rows.len(), pos.occupied().count() as usize, "{}", pos.fen());
                let mut room = [0; features::MAX_ACTIVE];
                let got = arch.mirror_into(&rows, &mut room);
                assert_eq!(sorted(got), sorted(&expected), "{arch} {}", pos.fen());
            }
        }
    });
}

#[test]
fn file_round_trips_and_every_damage_is_named() {
    for arch in Arch::ALL {
        let net = random_network_of(arch, 9);
        let bytes = net.to_bytes();
        assert_eq!(
            bytes.len(),
            HEADER_BYTES + super::network::payload_bytes(arch)
        );
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
        bad[8] = 7;
        let err = Network::from_bytes(&bad).expect_err("version 7");
        assert_eq!(err, NetworkError::WrongVersion { found: 7 });
        assert_eq!(
            err.to_string(),
            "network format version 7, this build reads version 3"
        );
        // The 256-wide formats of earlier builds and the formats that never
        // shipped are named as such.
        for (old, why) in [
            (
                1,
                "versions 1 and 2 are the 256-wide networks of earlier builds",
            ),
            (
                2,
                "versions 1 and 2 are the 256-wide networks of earlier builds",
            ),
            (
                4,
                "version 4, the mirrored legal-square format, never shipped",
            ),
            (
                5,
                "version 5, output layers chosen by the major pieces, never shipped",
            ),
            (6, "version 6, inputs by attack bucket, never shipped"),
        ] {
            let mut bad = bytes.clone();
            bad[8] = old;
            let err = Network::from_bytes(&bad).expect_err("an old version");
            assert_eq!(err, NetworkError::WrongVersion { found: old.into() });
            assert_eq!(
                err.to_string(),
                format!("network format version {old}, this build reads version 3 ({why})")
            );
        }
        let mut bad = bytes.clone();
        bad[21] = 0; // hidden 512 (bytes 20-23: 00 02 00 00) -> 0
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
        let mut out = random_network_of(arch, 9);
        let last = arch.output_buckets() - 1;
        out.out_weights[last][1][3] = 128;
        assert!(matches!(
            Network::from_bytes(&out.to_bytes()),
            Err(NetworkError::WeightOutOfRange { index, value: 128 })
                if index == (2 * last + 1) * HIDDEN + 3
        ));
    }
    assert!(matches!(
        Network::load(std::path::Path::new("/nonexistent/chariot.nnue")),
        Err(NetworkError::Missing(_))
    ));
}

/// A file whose architecture fields are not its version's is refused at
/// the first that differs, naming what the version needs; parts of the
/// wrong shape are refused too.
#[test]
fn a_mismatched_architecture_names_what_it_expected() {
    let good = random_network_of(Arch::Squares, 2);
    // 689 inputs: the removed format 4's count.
    let mut bad = good.to_bytes();
    bad[12..16].copy_from_slice(&689u32.to_le_bytes());
    let err = Network::from_bytes(&bad).expect_err("another input count");
    assert_eq!(
        err,
        NetworkError::WrongArchitecture {
            version: 3,
            field: "inputs",
            found: 689,
            expected: 1260
        }
    );
    assert_eq!(
        err.to_string(),
        "network architecture mismatch: inputs is 689, format version 3 needs 1260"
    );
    // Another width (chariot-5's and chariot-6's 512, in a build of 256, or
    // the other way round) says that the width is the build's.
    let other = if HIDDEN == 256 { 512u32 } else { 256 };
    let mut bad = good.to_bytes();
    bad[20..24].copy_from_slice(&other.to_le_bytes());
    let err = Network::from_bytes(&bad).expect_err("another width");
    assert_eq!(
        err.to_string(),
        format!(
            "network architecture mismatch: hidden is {other}, format version 3 needs {HIDDEN} \
             (the hidden width is fixed when the engine is built: a network {other} wide needs \
             a build of that width)"
        )
    );
    let mut bad = good.to_bytes();
    bad[16] = 8;
    assert!(matches!(
        Network::from_bytes(&bad),
        Err(NetworkError::WrongArchitecture {
            field: "input buckets",
            found: 8,
            expected: 1,
            ..
        })
    ));
    // Parts of the wrong shape.
    assert!(matches!(
        Network::from_parts(
            Arch::Squares,
            good.ft_weights[..689].to_vec(),
            good.ft_bias,
            good.out_weights.clone(),
            good.out_bias.clone()
        ),
        Err(NetworkError::WrongSize {
            expected: 1260,
            found: 689
        })
    ));
    assert!(matches!(
        Network::from_parts(
            Arch::Squares,
            good.ft_weights.clone(),
            good.ft_bias,
            vec![good.out_weights[0]; 2],
            good.out_bias.clone()
        ),
        Err(NetworkError::WrongSize {
            expected: 1,
            found: 2
        })
    ));
}

#[test]
fn loader_never_panics_on_garbage() {
    let mut rng = Rng::seed_from_u64(99);
    for arch in Arch::ALL {
        let good = random_network_of(arch, 1).to_bytes();
        for len in [0, 1, 47, 48, 49, 1000] {
            let junk: Vec<u8> = (0..len).map(|_| rng.gen_range(0..=u8::MAX)).collect();
            assert!(Network::from_bytes(&junk).is_err());
            let mut prefixed = good[..HEADER_BYTES.min(len)].to_vec();
            prefixed.extend_from_slice(&junk);
            assert!(Network::from_bytes(&prefixed).is_err());
        }
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

    let mut positions = Vec::new();
    random_games(11, 2000, |pos| positions.push(pos.clone()));
    let n = positions.len();
    let mut sink = 0i64;
    let hand = best_of(n, || {
        for pos in &positions {
            sink += i64::from(crate::eval::evaluate(black_box(pos)));
        }
    });
    println!("hand-written evaluate: {hand:.1} ns");
    for arch in Arch::ALL {
        let net = random_network_of(arch, 7);
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
        for backend in Backend::ALL {
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
            // The output layer with its bucket chosen from the position,
            // as the search evaluates.
            let acc = Accumulator::new(&net, &positions[0]);
            output.push(best_of(n, || {
                for pos in &positions {
                    let bucket = arch.output_bucket(black_box(pos));
                    let side = pos.side_to_move();
                    sink += i64::from(black_box(&acc).evaluate_with(&net, side, bucket, backend));
                }
            }));
        }
        println!("{arch} (format {}):", arch.version());
        println!("  refresh: {refresh:.1} ns; clone + apply_move: {in_place:.1} ns");
        println!(
            "  update_from: scalar {:.1} ns, AVX2 {:.1} ns, AVX-512 {:.1} ns",
            fused[0], fused[1], fused[2]
        );
        println!(
            "  output layer with its bucket: scalar {:.1} ns, AVX2 {:.1} ns, AVX-512 {:.1} ns",
            output[0], output[1], output[2]
        );
    }
    println!("({sink})");
}

/// The shipped network loads through the validating loader, and its score
/// of the start position is near zero from both sides.
#[test]
fn the_embedded_network_loads() {
    let net = super::embedded().expect("the build embeds a network");
    let start = net.evaluate(&Position::startpos());
    assert!(start.abs() < 100, "start position {start}");
}
