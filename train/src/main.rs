//! `chariot-train`: trains a network from `chariot datagen` games files
//! and writes the engine's network file; `check` validates and describes
//! one. `docs/nnue.md` §5 is its manual.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use board::PieceKind;
use clap::{Parser, Subcommand};
use engine::nnue::Network;
use engine::nnue::features::Arch;
use engine::nnue::games::{self, Filters, Selector};
use train::kernels::Backend;
use train::{Config, Dataset, EpochReport, LrSchedule};

/// `println!` for the reports, which survive a closed stdout: a reader
/// that went away (`| head`, a `tee` killed) drops the lines but must not
/// cost a training run the network it is about to write.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Chariot's NNUE trainer.
#[derive(Parser)]
#[command(name = "chariot-train", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Train a network and export it.
    Train(TrainArgs),
    /// Validate a network file and print what it is.
    Check {
        /// The network file.
        file: PathBuf,
    },
    /// Count the positions the trainer would keep by material (chariots,
    /// horses and cannons on the board, both sides): how the data spreads
    /// over the counts an output-bucket rule by material would divide.
    Material {
        /// Games files written by `chariot datagen` (`.xz` accepted).
        #[arg(required = true)]
        data: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
struct TrainArgs {
    /// Games files written by `chariot datagen` (`.xz` accepted).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// The network file to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Passes over the data.
    #[arg(long, default_value_t = 10)]
    epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// Initial learning rate.
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// How the learning rate falls: step (by --lr-gamma every --lr-step
    /// epochs) or cosine (half a cosine wave from --lr to --lr-final).
    #[arg(long, value_name = "SCHEDULE", default_value = "step")]
    lr_schedule: LrSchedule,
    /// Epochs between learning-rate drops (step schedule).
    #[arg(long, default_value_t = 4)]
    lr_step: usize,
    /// Learning-rate factor at each drop (step schedule).
    #[arg(long, default_value_t = 0.3)]
    lr_gamma: f32,
    /// The last epoch's learning rate (cosine schedule).
    #[arg(long, default_value_t = 0.000_1)]
    lr_final: f32,
    /// Weight of the game result in the target, 0 to 1 (in the first
    /// epoch, when --lambda-end is given).
    #[arg(long, default_value_t = 0.3)]
    lambda: f32,
    /// The weight of the result in the last epoch: λ moves in a straight
    /// line from --lambda to this over the epochs (default: λ stays).
    #[arg(long, value_name = "LAMBDA")]
    lambda_end: Option<f32>,
    /// Centipawns per unit of the logistic.
    #[arg(long, default_value_t = 400.0)]
    eval_scale: f32,
    /// Fraction held out for validation.
    #[arg(long, default_value_t = 0.05)]
    validation: f32,
    /// Seed of the weights and the shuffle.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (the network depends on the count: the same data,
    /// seed and thread count give the same file).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Also train on each position's left-right mirror (computed when
    /// trained, not stored).
    #[arg(long)]
    mirror: bool,
    /// Run the portable kernels, not AVX2 (to measure them: the network
    /// is the same).
    #[arg(long)]
    scalar: bool,
    /// The network architecture, by name or by its file format version:
    /// squares (format 3: every square for every piece, one output), the
    /// only one this build has; `docs/nnue.md` §1.
    #[arg(long, value_name = "ARCH", default_value = "squares")]
    arch: Arch,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Train(args) => run_train(&args),
        Command::Check { file } => Network::load(&file)
            .map(|net| say!("{}: {}", file.display(), net.describe()))
            .with_context(|| format!("{} is not a usable network", file.display())),
        Command::Material { data } => run_material(&data),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chariot-train: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The loss the engine's hand-written evaluation would have on the data: a
/// network worth testing in games should beat it on the validation set.
fn hand_written_loss(files: &[PathBuf], cfg: &Config) -> Result<f64> {
    let (mut sum, mut n) = (0.0f64, 0u64);
    let mut selector = Selector::new(Filters::default());
    for path in files {
        for game in games::open(path).with_context(|| format!("in {}", path.display()))? {
            let game = game.with_context(|| format!("in {}", path.display()))?;
            game.replay(|pos, ply| {
                if let Ok(score) = selector.judge(pos, ply) {
                    #[allow(clippy::cast_precision_loss)]
                    let cp = engine::evaluate(pos) as f32;
                    let result = game.result.for_side(pos.side_to_move());
                    sum += f64::from(train::loss::loss_of_cp(cp, score, result, cfg));
                    n += 1;
                }
            })
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
    }
    #[allow(clippy::cast_precision_loss)]
    Ok(sum / n.max(1) as f64)
}

/// Chariots, horses and cannons on the board, both sides together (0–12).
fn material(pos: &board::Position) -> usize {
    let mut n = 0;
    for c in board::Color::ALL {
        for k in [PieceKind::Rook, PieceKind::Knight, PieceKind::Cannon] {
            n += pos.pieces(c, k).count() as usize;
        }
    }
    n
}

/// The positions of the data the default filters keep, by [`material`]:
/// the spread a rule of output buckets by material divides, so that
/// each bucket has its share of the data (`docs/nnue.md` §5).
fn run_material(files: &[PathBuf]) -> Result<()> {
    let mut by_material = [0u64; 13];
    let mut selector = Selector::new(Filters::default());
    for path in files {
        for game in games::open(path).with_context(|| format!("in {}", path.display()))? {
            let game = game.with_context(|| format!("in {}", path.display()))?;
            game.replay(|pos, ply| {
                if selector.judge(pos, ply).is_ok() {
                    by_material[material(pos).min(by_material.len() - 1)] += 1;
                }
            })
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        }
    }
    let total = by_material.iter().sum::<u64>().max(1);
    #[allow(clippy::cast_precision_loss)]
    let percent = |n: u64| 100.0 * n as f64 / total as f64;
    say!("{total} positions kept");
    say!("chariots+horses+cannons  positions  share");
    for (count, &n) in by_material.iter().enumerate() {
        say!("{count:>23}  {n:>9}  {:>4.1}%", percent(n));
    }
    Ok(())
}

fn run_train(args: &TrainArgs) -> Result<()> {
    let start = Instant::now();
    let mut data = Dataset::new(args.arch);
    let mut selector = Selector::new(Filters::default());
    for path in &args.data {
        data.load(path, &mut selector)?;
    }
    #[allow(clippy::cast_precision_loss)]
    let megabytes = data.bytes() as f64 / 1e6;
    say!(
        "{} positions from {} games loaded in {:.1} s ({megabytes:.1} MB){}",
        data.len(),
        data.games(),
        start.elapsed().as_secs_f32(),
        if args.mirror {
            "; each trained as itself and its mirror"
        } else {
            ""
        }
    );
    let cfg = Config {
        epochs: args.epochs,
        batch_size: args.batch,
        lr: args.lr,
        lr_schedule: args.lr_schedule,
        lr_step: args.lr_step,
        lr_gamma: args.lr_gamma,
        lr_final: args.lr_final,
        lambda: args.lambda,
        lambda_end: args.lambda_end,
        eval_scale: args.eval_scale,
        validation: args.validation,
        seed: args.seed,
        threads: args.threads,
        mirror: args.mirror,
        backend: if args.scalar {
            Backend::Scalar
        } else {
            Backend::detect()
        },
    };
    let terminal = std::io::stderr().is_terminal();
    let net = train::train(
        &data,
        &cfg,
        |r: &EpochReport| {
            if terminal {
                eprint!("\r");
            }
            say!(
                "epoch {:>3}  lr {:.2e}{}  train loss {:.6}  validation loss {:.6}  {:.0} samples/s",
                r.epoch,
                r.lr,
                if args.lambda_end.is_some() {
                    format!("  lambda {:.3}", r.lambda)
                } else {
                    String::new()
                },
                r.train_loss,
                r.validation_loss,
                r.positions_per_second
            );
        },
        |done, total| {
            // The batch counter is for a person watching; logs get the
            // epoch lines only.
            if terminal && (done % 8 == 0 || done == total) {
                eprint!("\r  batch {done}/{total}");
                let _ = std::io::stderr().flush();
            }
        },
    )?;
    let quantised = net.quantise();
    let (mut worst, mut sum) = (0.0f32, 0.0f64);
    for i in 0..data.len() {
        let s = data.get(i);
        #[allow(clippy::cast_precision_loss)]
        let err = (net.evaluate_cp(&s) - train::model::quantised_cp(&quantised, &s) as f32).abs();
        worst = worst.max(err);
        sum += f64::from(err);
    }
    #[allow(clippy::cast_precision_loss)]
    let mean = sum / data.len().max(1) as f64;
    say!("quantisation error over the data: mean {mean:.2} cp, largest {worst:.2} cp");
    say!(
        "hand-written evaluation's loss on the same data (for comparison): {:.6}",
        // On the last epoch's target, as the validation loss beside it.
        hand_written_loss(&args.data, &train::trainer::at_epoch(&cfg, cfg.epochs))?
    );
    std::fs::write(&args.out, quantised.to_bytes())
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    say!("wrote {}: {}", args.out.display(), quantised.describe());
    Ok(())
}
