//! `chariot perft`: divide output for one position, or a whole EPD suite
//! checked against its stored counts (malformed lines and exit statuses
//! as [`crate::cases`] says).

use std::io::{ErrorKind, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use board::{Position, START_FEN};

use crate::cases::{Leniency, Malformed, USAGE};

/// Arguments of `chariot perft`.
#[derive(clap::Args)]
#[command(override_usage = "chariot perft <DEPTH> [FEN]...\n       \
                            chariot perft --epd <FILE> [DEPTH] [--max-nodes <N>] [--lenient]")]
pub struct PerftArgs {
    /// Depth in plies (with --epd: the deepest depth to check; default all).
    // Negative numbers are values here, so that `perft -1` gets the same
    // depth message as `perft 99` instead of clap's "unexpected argument".
    #[arg(allow_negative_numbers = true, required_unless_present = "epd")]
    depth: Option<String>,
    /// The position (all its fields, quoted or not); the start position if absent.
    fen: Vec<String>,
    /// Run every line of an EPD suite (`FEN ;D1 n ;D2 n …`) instead.
    #[arg(long, value_name = "FILE")]
    epd: Option<PathBuf>,
    /// With --epd: skip expected counts above this many leaves.
    #[arg(long, value_name = "N")]
    max_nodes: Option<u64>,
    #[command(flatten)]
    leniency: Leniency,
}

/// `println!` that does not panic: a closed pipe (`chariot perft 5 | head`)
/// ends the program quietly, like other command-line tools; any other
/// write error ends it with a message and status 1.
macro_rules! say {
    ($($arg:tt)*) => {
        emit(format_args!($($arg)*))
    };
}

fn emit(text: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out
        .write_fmt(text)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
    {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("chariot perft: cannot write the output: {e}");
        std::process::exit(1);
    }
}

fn parse_depth(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(d) if d <= 64 => Ok(d),
        _ => Err(format!(
            "perft depth must be a whole number from 0 to 64, not '{text}'"
        )),
    }
}

/// Runs the subcommand; the exit status says whether everything matched.
pub fn run(args: &PerftArgs) -> ExitCode {
    if let Some(file) = &args.epd {
        let max_depth = match args.depth.as_deref().map(parse_depth).transpose() {
            Ok(d) => d.unwrap_or(u32::MAX),
            Err(e) => return usage(&e),
        };
        let malformed = Malformed::new("perft", args.leniency);
        return run_epd(
            file,
            max_depth,
            args.max_nodes.unwrap_or(u64::MAX),
            malformed,
        );
    }
    let Some(depth) = args.depth.as_deref() else {
        return usage(
            "usage: chariot perft DEPTH [FEN] | chariot perft --epd FILE [--max-nodes N]",
        );
    };
    let depth = match parse_depth(depth) {
        Ok(d) => d,
        Err(e) => return usage(&e),
    };
    let fen = if args.fen.is_empty() {
        START_FEN.to_string()
    } else {
        args.fen.join(" ")
    };
    let mut pos = match Position::from_fen(&fen) {
        Ok(p) => p,
        Err(e) => return usage(&format!("invalid FEN: {e}")),
    };
    let start = Instant::now();
    let divide = pos.divide(depth);
    let elapsed = start.elapsed();
    let total: u64 = if depth == 0 {
        1
    } else {
        divide.iter().map(|(_, n)| n).sum()
    };
    for (m, n) in &divide {
        say!("{m}: {n}");
    }
    say!("");
    say!("Nodes searched: {total}");
    let secs = elapsed.as_secs_f64();
    say!("Time (ms): {}", elapsed.as_millis());
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let nps = if secs > 0.0 {
        (total as f64 / secs) as u64
    } else {
        0
    };
    say!("Nodes/second: {nps}");
    ExitCode::SUCCESS
}

fn usage(message: &str) -> ExitCode {
    eprintln!("chariot perft: {message}");
    ExitCode::from(USAGE)
}

fn run_epd(file: &PathBuf, max_depth: u32, max_nodes: u64, mut malformed: Malformed) -> ExitCode {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => return usage(&format!("cannot read {}: {e}", file.display())),
    };
    let start = Instant::now();
    let (mut lines, mut checked, mut failed, mut total) = (0u64, 0u64, 0u64, 0u64);
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.split(';');
        let fen = parts.next().unwrap_or("").trim();
        let mut pos = match Position::from_fen(fen) {
            Ok(p) => p,
            Err(e) => {
                malformed.report(file, n + 1, format_args!("invalid FEN: {e}: {fen}"));
                continue;
            }
        };
        // The whole line is read before any count, so that a malformed
        // count skips the line rather than half of it.
        let counts: Result<Vec<(u32, u64)>, &str> = parts
            .map(|part| {
                let (d, count) = part.trim().split_once(' ').ok_or(part)?;
                match (
                    d.strip_prefix('D').and_then(|d| d.parse::<u32>().ok()),
                    count.trim().parse::<u64>(),
                ) {
                    (Some(depth), Ok(expected)) => Ok((depth, expected)),
                    _ => Err(part),
                }
            })
            .collect();
        let counts = match counts {
            Ok(c) if !c.is_empty() => c,
            Ok(_) => {
                malformed.report(file, n + 1, "no ';Dn count' after the FEN");
                continue;
            }
            Err(part) => {
                malformed.report(
                    file,
                    n + 1,
                    format_args!("expected ';Dn count', got '{}'", part.trim()),
                );
                continue;
            }
        };
        lines += 1;
        for (depth, expected) in counts {
            if depth > max_depth || expected > max_nodes {
                continue;
            }
            let got = pos.perft(depth);
            checked += 1;
            total += got;
            if got != expected {
                failed += 1;
                say!(
                    "MISMATCH line {} depth {depth}: expected {expected}, got {got}: {fen}",
                    n + 1
                );
                for (m, c) in pos.divide(depth) {
                    say!("  {m}: {c}");
                }
            }
        }
    }
    if lines == 0 {
        return malformed.nothing_to_check(file, "position with perft counts");
    }
    say!(
        "{checked} counts checked on {lines} positions, {failed} mismatches, {total} leaves in {} ms{}",
        start.elapsed().as_millis(),
        malformed.clause()
    );
    malformed.exit(failed == 0)
}
