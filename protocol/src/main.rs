//! The `chariot` binary. Without arguments it speaks UCCI/UCI on stdin and
//! stdout; with a subcommand it runs one command-line tool and exits.

mod book_cli;
mod perft_cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Chariot, a xiangqi engine. Run without arguments to speak UCCI or UCI.
#[derive(Parser)]
#[command(name = "chariot", version, about)]
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
        None => ExitCode::SUCCESS,
    }
}
