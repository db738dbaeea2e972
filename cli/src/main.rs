//! The `chariot` binary. Without arguments it speaks UCCI/UCI on stdin and
//! stdout (`docs/ucci.md`); with a subcommand it runs one command-line tool
//! and exits.
//!
//! Protocol mode uses three threads: the reader ([`reader`]) parses stdin
//! and forwards commands over a channel; the session ([`session`], on the
//! main thread) owns the engine and answers; the engine searches on its own
//! worker. Subcommands each live in their own `*_cli` module.

mod bench_cli;
mod book_cli;
mod cases;
mod data_cli;
mod datagen_cli;
mod epd_cli;
mod perft_cli;

use protocol::{VERSION, output, reader, session};

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Chariot, a xiangqi engine.
#[derive(Parser)]
#[command(
    name = "chariot",
    version = VERSION,
    about = "Chariot, a xiangqi engine.",
    long_about = "Chariot, a xiangqi engine.\n\n\
        With no command, chariot starts the engine: it reads UCCI or UCI commands on \
        stdin (a GUI sends `ucci` or `uci` first) and answers on stdout. The commands \
        below are command-line tools that run once and exit.",
    after_help = "With no command, chariot starts the UCCI/UCI engine on stdin and stdout.\n\n\
        Credits: the built-in opening book and part of the network's training games derive \
        from the Chinese Chess Practical Dataset \
        (CCPD) by Yu-Han Tseng and Bo-Nian Chen, CC BY 4.0, converted and filtered \
        (book/data/NOTICE). Chariot's code is MIT or Apache-2.0."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaves of the legal move tree (one position, or an EPD suite).
    Perft(perft_cli::PerftArgs),
    /// Opening books: build from game records, dump, import, probe.
    Book(book_cli::BookArgs),
    /// Search the fixed bench positions and print the node count (the behaviour signature).
    Bench(bench_cli::BenchArgs),
    /// Generate NNUE training games by self-play or score recorded games (docs/nnue.md).
    Datagen(datagen_cli::DatagenArgs),
    /// Training data kept in the repository: check a directory against its manifest.
    Data(data_cli::DataArgs),
    // The help text is the command's own, in `epd_cli`.
    Epd(epd_cli::EpdArgs),
    /// Print the search parameters in the SPSA driver's format (`name, int, default, min, max, c_end, r_end`).
    #[command(
        long_about = "Print the search parameters in the SPSA driver's format \
            (`name, int, default, min, max, c_end, r_end`, one a line): the input of \
            `tools/cluster/run.py spsa`. A tuning build (`--features tune`) takes each \
            as a hidden option of the same name; this build reads them as constants \
            unless it says otherwise on stderr."
    )]
    Params,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            // clap uses 0 for --help/--version and 2 for usage errors.
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match cli.command {
        Some(Command::Perft(args)) => perft_cli::run(&args),
        Some(Command::Book(args)) => book_cli::run(&args),
        Some(Command::Bench(args)) => bench_cli::run(&args),
        Some(Command::Datagen(args)) => datagen_cli::run(&args),
        Some(Command::Data(args)) => data_cli::run(&args),
        Some(Command::Epd(args)) => epd_cli::run(&args),
        Some(Command::Params) => {
            for p in engine::params::PARAMS {
                println!("{}", p.spsa_line());
            }
            eprintln!(
                "{}",
                if engine::params::TUNABLE {
                    "tuning build: each parameter is an option of its name"
                } else {
                    "play build: these are constants here; build with --features tune to set them"
                }
            );
            ExitCode::SUCCESS
        }
        None => protocol_mode(),
    }
}

/// Speaks UCCI/UCI until `quit` or end of input.
fn protocol_mode() -> ExitCode {
    let (tx, rx) = crossbeam_channel::unbounded();
    // The reader is detached: at `quit` it may still be blocked on stdin,
    // and returning from main ends it.
    let spawned = std::thread::Builder::new()
        .name("stdin-reader".to_string())
        .spawn(move || reader::run(std::io::stdin().lock(), &tx));
    if let Err(e) = spawned {
        eprintln!("chariot: cannot start the input thread: {e}");
        return ExitCode::FAILURE;
    }
    let out = output::Output::new(Box::new(std::io::stdout()));
    session::Session::new(out).run(&rx);
    ExitCode::SUCCESS
}
