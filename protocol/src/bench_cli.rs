//! `chariot bench`: the fixed bench of `engine::bench` from the command
//! line, with the table knobs and the thread count exposed for
//! experiments.

use std::io::Write;
use std::process::ExitCode;

use engine::TtPolicy;
use engine::bench::BenchOptions;

/// Arguments of `chariot bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Search depth (default: the bench's own fixed depth).
    #[arg(long, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: Option<u32>,
    /// Hash table size in MB.
    #[arg(long, value_name = "MB", default_value_t = engine::DEFAULT_HASH_MB,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=engine::MAX_HASH_MB as u64))]
    hash: usize,
    /// Table replacement scheme: off, always, depth or two-tier.
    #[arg(long, value_name = "POLICY", default_value = "two-tier", value_parser = parse_policy)]
    tt: TtPolicy,
    /// Whether quiescence search stores its results in the table.
    #[arg(long = "store-qs", value_name = "on|off", default_value = "on", value_parser = parse_on_off, action = clap::ArgAction::Set)]
    store_qs: bool,
    /// The evaluation: `builtin` (the embedded network, or the
    /// hand-written evaluation in a build without one), `hand` (the
    /// hand-written evaluation) or the path of a network file.
    #[arg(long, value_name = "builtin|hand|FILE", default_value = "builtin")]
    eval: String,
    /// Search threads. With more than one the node count is not
    /// reproducible; the run measures nodes per second.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=engine::MAX_THREADS as u64))]
    threads: usize,
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

/// Runs the bench and prints its report on stdout.
pub fn run(args: &BenchArgs) -> ExitCode {
    let network = match crate::eval_arg::read(&args.eval) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("chariot bench: --eval {}: {e}", args.eval);
            return ExitCode::FAILURE;
        }
    };
    let opts = BenchOptions {
        depth: args.depth,
        hash_mb: args.hash,
        tt: args.tt,
        store_qs: args.store_qs,
        network,
        threads: args.threads,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match engine::bench::run(&opts, &mut out).and_then(|_| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chariot bench: {e}");
            ExitCode::FAILURE
        }
    }
}
