//! The trainer on stored data: games chunks decode and train (in every
//! network architecture), the validation split holds out whole games, mirrors
//! are computed rather than stored, and a run writes the same network file
//! every time, with the portable kernels too and with no reader on stdout.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use board::{Color, Position};
use engine::nnue::features::{self, Arch, MAX_ACTIVE};
use engine::nnue::games::{Filters, Selector};
use rand_pcg::Pcg64Mcg;
use train::kernels::Backend;
use train::optim::Sparse;
use train::trainer::{entries, split};
use train::{Config, Dataset, Entry, FloatNetwork, MirrorRows};

use common::{sample_chunk, synthetic};

/// The first chunk each generation's manifest under `dir` lists
/// (`data/<generation>/MANIFEST.toml`, `docs/nnue.md` §8): only chunks a
/// finished run recorded, never one still being written beside it.
fn stored_chunks(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(listing) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in listing.flatten() {
        let manifest = entry.path().join("MANIFEST.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let first = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("file = \"")?.strip_suffix('"'));
        if let Some(file) = first {
            found.push(entry.path().join(file));
        }
    }
    found.sort();
    found
}

/// Loads a chunk for `arch`, trains a few steps on (at most) its first 512
/// positions and their mirrors, and checks the loss falls.
fn decode_and_train(arch: Arch, path: &Path) {
    let mut data = Dataset::new(arch);
    let mut selector = Selector::new(Filters::default());
    data.load(path, &mut selector)
        .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
    assert!(!data.is_empty(), "{}: no position kept", path.display());
    assert_eq!(data.len() as u64, selector.kept, "one sample per position");
    let first: Vec<usize> = (0..data.len().min(512)).collect();
    let set = entries(&first, true);
    let cfg = Config {
        batch_size: 32,
        threads: 2,
        ..Config::default()
    };
    let net = FloatNetwork::random(arch, &mut Pcg64Mcg::new(1));
    let mut opt = Sparse::new(net, cfg.threads, Backend::detect()).expect("threads");
    let before = opt.loss(&data, &set, &cfg);
    for _ in 0..3 {
        opt.epoch(&data, &set, &cfg, 0.003, |_, _| {});
    }
    let after = opt.loss(&data, &set, &cfg);
    assert!(
        after.is_finite() && after < before,
        "{}: loss {before} -> {after}",
        path.display()
    );
    println!(
        "{}: {} games, {} positions, {} trained steps, loss {before:.4} -> {after:.4}",
        path.display(),
        data.games(),
        data.len(),
        3 * set.len().div_ceil(cfg.batch_size)
    );
}

#[test]
fn the_committed_sample_chunk_decodes_and_trains() {
    for arch in Arch::ALL {
        decode_and_train(arch, &sample_chunk());
    }
}

/// The repository keeps each generation's data as `data/<generation>/`
/// chunks with a manifest; a stored chunk of each must decode and train
/// (`chariot data check` proves every chunk against its manifest).
#[test]
fn a_stored_chunk_of_each_generation_decodes_and_trains() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let chunks = stored_chunks(&root);
    if chunks.is_empty() {
        println!(
            "note: no data/<generation>/MANIFEST.toml under {}; nothing to check",
            root.display()
        );
    }
    for chunk in &chunks {
        decode_and_train(Arch::Squares, chunk);
    }
}

#[test]
fn a_game_is_one_group_and_the_split_keeps_it_whole() {
    let mut data = Dataset::new(Arch::Squares);
    let mut selector = Selector::new(Filters::default());
    data.load(&sample_chunk(), &mut selector).expect("loads");
    assert_eq!(data.games(), 4);
    let groups: Vec<u32> = (0..data.len()).map(|i| data.group(i)).collect();
    // Samples come game by game, and every game gives several.
    assert!(groups.windows(2).all(|w| w[0] <= w[1]));
    for g in 0..4 {
        assert!(groups.iter().filter(|&&x| x == g).count() > 3, "game {g}");
    }

    let (data, _) = synthetic(Arch::Squares, 3000, 4, Some(20));
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

#[test]
fn a_sample_reads_back_as_pushed() {
    let (_, positions) = synthetic(Arch::Squares, 40, 2, None);
    let labels = [
        (-3000, -1),
        (-1, 0),
        (0, 1),
        (1, -1),
        (29_871, 1),
        (i16::MIN + 1, 0),
    ];
    for arch in Arch::ALL {
        let mut data = Dataset::new(arch);
        for (i, pos) in positions.iter().enumerate() {
            let (score, result) = labels[i % labels.len()];
            data.push(pos, score, result, 7, false);
        }
        assert_eq!(data.len(), positions.len());
        for (i, pos) in positions.iter().enumerate() {
            let s = data.get(i);
            assert_eq!((s.score, s.result), labels[i % labels.len()]);
            assert_eq!(usize::from(s.bucket), arch.output_bucket(pos));
            let side = pos.side_to_move();
            let us = arch.active(side, features::pieces_of(pos));
            let them = arch.active(!side, features::pieces_of(pos));
            assert_eq!((s.us, s.them), (us.as_slice(), them.as_slice()));
            assert_eq!(data.group(i), 7);
        }
        // Records, their offsets and groups: 12 bytes and 4 a row.
        let rows: usize = (0..data.len()).map(|i| 2 * data.get(i).us.len()).sum();
        assert_eq!(data.bytes(), 12 * data.len() + 2 * rows);
    }
}

fn sorted(rows: &[u16]) -> Vec<u16> {
    let mut v = rows.to_vec();
    v.sort_unstable();
    v
}

#[test]
fn mirrored_rows_are_the_mirrored_positions_rows() {
    let (_, positions) = synthetic(Arch::Squares, 500, 8, None);
    let mut room = [0; MAX_ACTIVE];
    let mut back = [0; MAX_ACTIVE];
    for arch in Arch::ALL {
        let mut checked = 0;
        for pos in &positions {
            let mirrored = pos.mirror();
            for side in Color::ALL {
                let rows = arch.active(side, features::pieces_of(pos));
                let expected = arch.active(side, features::pieces_of(&mirrored));
                let got = arch.mirror_into(&rows, &mut room);
                assert_eq!(sorted(got), sorted(&expected), "{arch} {}", pos.fen());
                assert_eq!(arch.mirror_into(got, &mut back), rows.as_slice());
                checked += 1;
            }
        }
        assert_eq!(checked, 1000);

        // Through the data set: an entry's mirror is the stored mirror's
        // rows.
        let pos = Position::from_fen(
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2B2C1/9/RNBAKA1NR b - - 0 1",
        )
        .expect("fen");
        let mut data = Dataset::new(arch);
        data.push(&pos, 12, 1, 0, false);
        data.push(&pos, 12, 1, 0, true);
        let mut room = MirrorRows::default();
        let computed = data.entry(Entry::new(0, true), &mut room);
        let (us, them) = (sorted(computed.us), sorted(computed.them));
        let stored = data.get(1);
        assert_eq!(us, sorted(stored.us));
        assert_eq!(them, sorted(stored.them));
        assert_eq!((computed.score, computed.result), (12, 1));
        assert_eq!(computed.bucket, stored.bucket);
        assert_ne!(us, sorted(data.get(0).us), "the position is not symmetric");
        // One sample per position however it is trained.
        assert_eq!(entries(&[0], true).len(), 2);
    }
}

/// `chariot-train train` on the sample chunk with `extra` options,
/// writing the network to `out`.
fn train_command(out: &Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_chariot-train"));
    command
        .arg("train")
        .arg(sample_chunk())
        .args(["--epochs", "3", "--batch", "16", "--seed", "5", "--mirror"])
        .args(["--validation", "0.25", "--lr", "0.003", "--out"])
        .arg(out)
        .args(extra);
    command
}

/// Runs [`train_command`] and returns the network file's bytes and the
/// output.
fn train_file(dir: &Path, name: &str, extra: &[&str]) -> (Vec<u8>, String) {
    let out = dir.join(name);
    let run = train_command(&out, extra)
        .output()
        .expect("run chariot-train");
    let text = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(
        run.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    (std::fs::read(&out).expect("network written"), text)
}

#[test]
fn the_same_data_seed_and_threads_write_the_same_file() {
    let dir = test_support::scratch_dir("train-repro");
    for arch in Arch::ALL {
        let name = arch.to_string();
        let options = ["--threads", "2", "--arch", &name];
        let (first, text) = train_file(&dir, "a.nnue", &options);
        for line in [
            "60 positions from 4 games",
            "epoch   3",
            "samples/s",
            "quantisation error over the data",
            "hand-written evaluation's loss",
            &format!("Chariot NNUE v{}", arch.version()),
        ] {
            assert!(text.contains(line), "no `{line}` in {text}");
        }
        let net = engine::nnue::Network::from_bytes(&first).expect("loads");
        assert_eq!(net.arch(), arch);
        let (second, _) = train_file(&dir, "b.nnue", &options);
        assert!(first == second, "{arch}: two runs wrote different networks");
        // The portable kernels give the same bits as AVX2.
        let (scalar, _) = train_file(&dir, "c.nnue", &[&options[..], &["--scalar"]].concat());
        assert!(
            first == scalar,
            "{arch}: the portable kernels wrote another network"
        );
    }
}

/// A reader that went away (`chariot-train … | head` after head has quit)
/// loses the report, not the run: the same network file is written, and
/// nothing panics.
#[test]
fn a_closed_stdout_costs_a_run_only_its_report() {
    let dir = test_support::scratch_dir("train-closed");
    let (open, _) = train_file(&dir, "open.nnue", &[]);
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let closed = dir.join("closed.nnue");
    let run = train_command(&closed, &[])
        .stdout(writer)
        .output()
        .expect("run chariot-train");
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        std::fs::read(&closed).is_ok_and(|bytes| bytes == open),
        "another network, or none"
    );
}

/// A network file of a version this build does not read — 4, 5 and 6,
/// the formats that never shipped, among them — is refused by `check` with the
/// loader's reason, and `--arch` refuses a removed architecture by name
/// before any data is read.
#[test]
fn unknown_versions_and_architectures_are_refused_by_name() {
    let dir = test_support::scratch_dir("train-refused");
    let good = FloatNetwork::random(Arch::Squares, &mut Pcg64Mcg::new(3))
        .quantise()
        .to_bytes();
    for (version, why) in [
        (4u8, "never shipped"),
        (5, "never shipped"),
        (6, "never shipped"),
        (1, "256-wide"),
        (9, ""),
    ] {
        let mut bytes = good.clone();
        bytes[8] = version;
        let file = dir.join(format!("v{version}.nnue"));
        std::fs::write(&file, &bytes).expect("write");
        let run = Command::new(env!("CARGO_BIN_EXE_chariot-train"))
            .arg("check")
            .arg(&file)
            .output()
            .expect("run chariot-train check");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "version {version} accepted");
        assert!(
            err.contains(&format!(
                "network format version {version}, this build reads version 3"
            )) && err.contains(why),
            "{err}"
        );
    }
    for arch in ["v4", "squares-attack"] {
        let run = train_command(&dir.join("never.nnue"), &["--arch", arch])
            .output()
            .expect("run chariot-train");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{arch} accepted");
        assert!(
            err.contains("never shipped") && err.contains("squares (format 3)"),
            "{err}"
        );
        assert!(!dir.join("never.nnue").exists());
    }
}
