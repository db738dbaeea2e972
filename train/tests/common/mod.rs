//! What the trainer's test files share: positions from random games, and
//! a bit-for-bit comparison of networks.

#![allow(dead_code)]

use board::{Color, PieceKind, Position};
use engine::nnue::features::Arch;
use rand_core::RngCore;
use rand_pcg::Pcg64Mcg;
use train::{Dataset, FloatNetwork};

/// Material balance from the side to move's view, the synthetic label.
pub fn material(pos: &Position) -> i32 {
    let side = |c: Color| -> i32 {
        PieceKind::ALL
            .iter()
            .map(|&k| {
                let n = i32::try_from(pos.pieces(c, k).count()).unwrap_or(0);
                n * engine::PIECE_VALUE[k.index()]
            })
            .sum()
    };
    side(pos.side_to_move()) - side(!pos.side_to_move())
}

/// Where [`synthetic`]'s games start, in turn: the start position, the
/// start with one chariot a side, with none, and with the chariots and one
/// horse a side only, so that the samples cover thin material as well as
/// full.
const STARTS: [&str; 4] = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "rnbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABNR w - - 0 1",
    "1nbakabn1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/1NBAKABN1 w - - 0 1",
    "rnbakab1r/9/9/p1p1p1p1p/9/9/P1P1P1P1P/9/9/RNBAKAB1R w - - 0 1",
];

/// `n` positions from random legal games from [`STARTS`], labelled with
/// their material balance (and its sign as the "result"), encoded for
/// `arch`. A capture
/// is played a quarter of the time when there is one, so that the games
/// reach the endings as well as the openings. With `Some(plies)`, games last
/// at most that many plies and the positions of one game share a group;
/// with `None`, games last up to 150 plies and each position is its own
/// group.
pub fn synthetic(
    arch: Arch,
    n: usize,
    seed: u64,
    game_plies: Option<u32>,
) -> (Dataset, Vec<Position>) {
    let mut rng = Pcg64Mcg::new(u128::from(seed) | 1);
    let mut data = Dataset::new(arch);
    let mut positions = Vec::new();
    let start =
        |game: u32| Position::from_fen(STARTS[game as usize % STARTS.len()]).expect("legal");
    let mut game = 0u32;
    let mut pos = start(game);
    while positions.len() < n {
        let moves = pos.legal_moves();
        if moves.is_empty() || pos.game_ply() > game_plies.map_or(150, |p| p as usize) {
            game += 1;
            pos = start(game);
            continue;
        }
        let captures: Vec<_> = moves
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        let pick =
            |rng: &mut Pcg64Mcg, n: usize| usize::try_from(rng.next_u64() % n as u64).unwrap_or(0);
        let m = if !captures.is_empty() && rng.next_u32().is_multiple_of(4) {
            captures[pick(&mut rng, captures.len())]
        } else {
            moves[pick(&mut rng, moves.len())]
        };
        pos.make_move(m);
        let m = material(&pos);
        let score = i16::try_from(m.clamp(-3000, 3000)).unwrap_or(0);
        let result = i8::try_from(m.signum()).unwrap_or(0);
        let group = if game_plies.is_some() {
            game
        } else {
            u32::try_from(positions.len()).unwrap_or(0)
        };
        data.push(&pos, score, result, group, false);
        positions.push(pos.clone());
    }
    (data, positions)
}

/// Every parameter's bits, in a fixed order.
pub fn bits(net: &FloatNetwork) -> Vec<u32> {
    net.rows()
        .flat_map(|row| row.iter())
        .chain(&net.out_bias)
        .map(|x| x.to_bits())
        .collect()
}

/// Asserts two networks are equal bit for bit, naming the first parameter
/// that differs.
pub fn assert_same_bits(a: &FloatNetwork, b: &FloatNetwork, what: &str) {
    let (x, y) = (bits(a), bits(b));
    assert_eq!(x.len(), y.len());
    if let Some(i) = (0..x.len()).find(|&i| x[i] != y[i]) {
        panic!(
            "{what}: parameter {i} differs: {} vs {}",
            f32::from_bits(x[i]),
            f32::from_bits(y[i])
        );
    }
}

/// Path of the committed sample games chunk.
pub fn sample_chunk() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sample.games.xz")
}
