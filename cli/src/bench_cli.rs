//! `chariot bench`: the fixed bench of `engine::bench` from the command
//! line, with the thread count and the table experiments exposed. The
//! report is `protocol::bench`'s, as for the protocol's `bench` command.

use std::process::ExitCode;

use engine::bench::BenchOptions;
use engine::nnue::EvalSource;
use engine::{Experiment, TtPolicy};

/// Arguments of `chariot bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Search depth (default: the bench's own fixed depth).
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=engine::MAX_DEPTH as i64))]
    depth: Option<u32>,
    /// Hash table size in MB (default: the engine's); a fraction
    /// (0.25) gives the small tables of the table experiments, in whole
    /// KiB.
    #[arg(long, value_name = "MB", value_parser = parse_hash_kib)]
    hash: Option<usize>,
    /// Table replacement scheme: off, always, depth, two-tier,
    /// two-tier-aged or bucket. Any
    /// experiment flag runs the experiment build of the search, which also
    /// prints table statistics.
    #[arg(long, value_name = "POLICY", value_parser = parse_policy)]
    tt: Option<TtPolicy>,
    /// Whether quiescence search stores its results in the table (an
    /// experiment flag).
    #[arg(long = "store-qs", value_name = "on|off", value_parser = parse_on_off, action = clap::ArgAction::Set)]
    store_qs: Option<bool>,
    /// Run the experiment build of the search with the shipped settings:
    /// prints table statistics, same node count.
    #[arg(long)]
    stats: bool,
    /// Search without the selective features (an experiment flag), as
    /// the first table experiment did: no IIR, singular extensions,
    /// late-move reductions or pruning, futility or SEE pruning; null
    /// move, histories and killers stay.
    #[arg(long)]
    classic: bool,
    /// The evaluation: `builtin` (the embedded network, or the
    /// hand-written evaluation in a build without one), `hand` (the
    /// hand-written evaluation) or the path of a network file.
    #[arg(long, value_name = "builtin|hand|FILE", default_value = "builtin", value_parser = parse_eval)]
    eval: EvalSource,
    /// Search threads. With more than one the node count is not
    /// reproducible; the run measures nodes per second.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=engine::MAX_THREADS as u64))]
    threads: usize,
}

/// A table size in MB, whole or a fraction, as KiB: at least 1 KiB, at
/// most [`engine::MAX_HASH_MB`].
fn parse_hash_kib(text: &str) -> Result<usize, String> {
    let mb: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a size in MB"))?;
    let kib = (mb * 1024.0).round();
    if !(1.0..=(engine::MAX_HASH_MB * 1024) as f64).contains(&kib) {
        return Err(format!(
            "{text} MB is outside 1 KiB..{} MB",
            engine::MAX_HASH_MB
        ));
    }
    Ok(kib as usize)
}

fn parse_policy(text: &str) -> Result<TtPolicy, String> {
    text.parse()
}

fn parse_on_off(text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "on" | "true" => Ok(true),
        "off" | "false" => Ok(false),
        _ => Err(format!("expected on or off, not '{text}'")),
    }
}

fn parse_eval(text: &str) -> Result<EvalSource, String> {
    Ok(EvalSource::parse(text))
}

impl BenchArgs {
    /// The experiment the flags ask for (`None`: none given).
    fn experiment(&self) -> Option<Experiment> {
        if self.tt.is_none() && self.store_qs.is_none() && !self.stats && !self.classic {
            return None;
        }
        let shipped = Experiment::default();
        Some(Experiment {
            policy: self.tt.unwrap_or(shipped.policy),
            store_qs: self.store_qs.unwrap_or(shipped.store_qs),
            classic: self.classic,
        })
    }
}

/// Runs the bench and prints its report on stdout.
pub fn run(args: &BenchArgs) -> ExitCode {
    let network = match args.eval.load() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("chariot bench: --eval: {e}");
            return ExitCode::FAILURE;
        }
    };
    let opts = BenchOptions {
        depth: args.depth,
        hash_kib: args.hash.unwrap_or(engine::DEFAULT_HASH_MB * 1024),
        experiment: args.experiment(),
        network,
        threads: args.threads,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match protocol::bench::run(&opts, &mut out) {
        // A reader that went away (`chariot bench | head`) ends the bench
        // quietly, as it ends `perft` and `epd`.
        Ok(_) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chariot bench: {e}");
            ExitCode::FAILURE
        }
    }
}
