//! The trainer's data: the validation split holds out whole games, and
//! mirrors are computed rather than stored.

mod common;

use board::{Color, Position};
use engine::nnue::features;
use train::dataset::mirror_rows;
use train::trainer::{entries, split};
use train::{Config, Dataset, Entry, MirrorRows};

use common::synthetic;

#[test]
fn the_split_keeps_each_game_whole() {
    let (data, _) = synthetic(3000, 4, Some(20));
    let cfg = Config {
        validation: 0.2,
        ..Config::default()
    };
    let (val, train_set) = split(&data, &cfg);
    assert_eq!(val.len() + train_set.len(), data.len());
    let games = |set: &[usize]| -> std::collections::BTreeSet<u32> {
        set.iter().map(|&i| data.group(i)).collect()
    };
    let (val_games, train_games) = (games(&val), games(&train_set));
    assert!(val_games.is_disjoint(&train_games));
    let all = games(&(0..data.len()).collect::<Vec<_>>()).len();
    assert!(
        (all / 10..all * 3 / 10).contains(&val_games.len()),
        "{} of {all} games held out",
        val_games.len()
    );
    // Mirrored entries follow their samples.
    assert!(
        entries(&val, true)
            .iter()
            .all(|e| val_games.contains(&data.group(e.index())))
    );
}

fn sorted(rows: &[u16]) -> Vec<u16> {
    let mut v = rows.to_vec();
    v.sort_unstable();
    v
}

#[test]
fn mirrored_rows_are_the_mirrored_positions_rows() {
    let (_, positions) = synthetic(500, 8, None);
    let mut checked = 0;
    for pos in &positions {
        let mirrored = pos.mirror();
        for side in Color::ALL {
            let rows = features::active(side, features::pieces_of(pos));
            let expected = features::active(side, features::pieces_of(&mirrored));
            let got = mirror_rows(&rows);
            assert_eq!(sorted(&got), sorted(&expected), "{}", pos.fen());
            assert_eq!(mirror_rows(&got).as_slice(), rows.as_slice());
            checked += 1;
        }
    }
    assert_eq!(checked, 1000);

    // Through the data set: an entry's mirror is the stored mirror's rows.
    let pos = Position::from_fen(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2B2C1/9/RNBAKA1NR b - - 0 1",
    )
    .expect("fen");
    let mut data = Dataset::new();
    data.push(&pos, 12, 1, 0, false);
    data.push(&pos, 12, 1, 0, true);
    let mut room = MirrorRows::default();
    let computed = data.entry(Entry::new(0, true), &mut room);
    let (us, them) = (sorted(computed.us), sorted(computed.them));
    let stored = data.get(1);
    assert_eq!(us, sorted(stored.us));
    assert_eq!(them, sorted(stored.them));
    assert_eq!((computed.score, computed.result), (12, 1));
    assert_ne!(us, sorted(data.get(0).us), "the position is not symmetric");
    // One sample per position however it is trained.
    assert_eq!(entries(&[0], true).len(), 2);
}
