//! The NNUE pipeline end to end, at a size that takes seconds: `chariot
//! datagen` writes a few hundred positions, the trainer trains a network of
//! each architecture on them for a few steps and exports it, the engine loads the
//! file, and its evaluation of every position matches the trainer's float
//! model within the quantisation bound.

use std::path::Path;
use std::process::Command;

use engine::nnue::Network;
use engine::nnue::features::Arch;
use engine::nnue::games::{self, Filters, Selector};
use train::{Config, Dataset};

#[test]
fn datagen_train_export_load() {
    let dir = test_support::scratch_dir("nnue-e2e");
    let data_path = dir.join("data.games");
    let openings = concat!(env!("CARGO_MANIFEST_DIR"), "/../arena/data/openings.epd");

    // 1. Data.
    let out = Command::new(env!("CARGO_BIN_EXE_chariot"))
        .args([
            "datagen",
            "--positions",
            "300",
            "--nodes",
            "300",
            "--threads",
            "2",
        ])
        .args(["--seed", "3", "--openings", openings, "--out"])
        .arg(&data_path)
        .output()
        .expect("run chariot datagen");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "datagen failed: {stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("Kept positions (default filters): "),
        "{stdout}"
    );

    for arch in Arch::ALL {
        train_load_and_play(arch, &data_path, &dir.join(format!("net-{arch}.nnue")));
    }
}

/// Steps 2 to 5 for a network of `arch`: trains on the data file, writes
/// the network to `net_path`, loads it, compares, and plays with it.
fn train_load_and_play(arch: Arch, data_path: &Path, net_path: &Path) {
    // 2. Training, a few steps.
    let mut data = Dataset::new(arch);
    let mut selector = Selector::new(Filters::default());
    data.load(data_path, &mut selector).expect("load data");
    assert!(data.len() >= 300, "{} samples", data.len());
    let cfg = Config {
        epochs: 4,
        batch_size: 32,
        lr: 0.003,
        lr_step: 10,
        validation: 0.0,
        threads: 2,
        ..Config::default()
    };
    let mut reports = Vec::new();
    let net = train::train(&data, &cfg, |r| reports.push(*r), |_, _| {}).expect("trains");
    let all: Vec<usize> = (0..data.len()).collect();
    let after = train::trainer::loss(&net, &data, &all, &cfg);
    assert!(
        after < reports[0].train_loss,
        "loss {} -> {after}",
        reports[0].train_loss
    );

    // 3. Export and load through the engine's validating loader.
    std::fs::write(net_path, net.quantise().to_bytes()).expect("write network");
    let loaded = Network::load(net_path).expect("the exported network loads");
    assert_eq!(loaded.arch(), arch);

    // 4. The engine's evaluation agrees with the trainer's.
    let mut positions = Vec::new();
    let mut again = Selector::new(Filters::default());
    for game in games::open(data_path).expect("games") {
        game.expect("game")
            .replay(|pos, ply| {
                if again.judge(pos, ply).is_ok() {
                    positions.push(pos.clone());
                }
            })
            .expect("replays");
    }
    assert_eq!(positions.len(), data.len());
    for (i, pos) in positions.iter().enumerate() {
        let sample = data.get(i);
        let float_cp = net.evaluate_cp(&sample);
        #[allow(clippy::cast_precision_loss)]
        let err = (float_cp - loaded.evaluate(pos) as f32).abs();
        assert!(
            err <= net.quantisation_bound(&sample),
            "{arch} position {i}: {err} cp apart"
        );
    }

    // 5. The engine plays with it: `EvalFile` loads it, `eval` shows its
    // score, and a search that uses it answers a legal move.
    let script = format!(
        "uci\nsetoption name EvalFile value {}\nposition startpos moves h2e2\neval\n\
             go depth 5\nisready\nquit\n",
        net_path.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_chariot"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run chariot");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(script.as_bytes()).expect("write script");
    }
    let out = child.wait_with_output().expect("chariot ends");
    let text = String::from_utf8_lossy(&out.stdout);
    let checksum = format!("checksum {:08x}", loaded.checksum());
    assert!(
        text.lines()
            .any(|l| l.starts_with("info string evalfile") && l.contains(&checksum)),
        "{text}"
    );
    let mut after_h2e2 = board::Position::startpos();
    after_h2e2
        .play(after_h2e2.parse_move("h2e2").expect("move"))
        .expect("legal");
    let expected = format!("NNUE evaluation: {} ", loaded.evaluate(&after_h2e2));
    assert!(text.lines().any(|l| l.starts_with(&expected)), "{text}");
    let best = text
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .and_then(|l| l.split_whitespace().next())
        .expect("a bestmove line");
    assert!(after_h2e2.parse_move(best).is_ok(), "{best} in {text}");
}
