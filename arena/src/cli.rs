//! The `arena` command line: what the words mean, turned into a
//! tournament or an opening build. Parsing stays apart from running, so
//! the configuration can be checked (and fuzzed, see [`crate::fuzzing`])
//! without starting a process.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::{self, EngineSpec, TimeControl};
use crate::game::GameSettings;
use crate::openings;
use crate::pool;
use crate::progress::stdout_line;
use crate::tournament::{RunEnd, Tournament};

const AFTER_HELP: &str = "\
Engine settings (after --engine, space-separated key=value words):
  name=NAME         display name (default: the file name of cmd)
  cmd=PATH          the executable
  proto=ucci|uci    dialect (default ucci)
  arg=WORD          one command-line argument (repeatable)
  dir=PATH          working directory
  option.NAME=VAL   an engine option, sent after the handshake (repeatable)

Every opening is played twice with colours swapped. Ctrl-C or SIGTERM
stops a run: the games in progress are abandoned, the engines are shut
down, the report covers the games finished, and the exit code is 130.
A stdout closed under a run (`arena ... | head`) stops it the same way.
On a terminal a progress bar with rate and ETA is drawn on stderr. Illegal moves,
unreadable replies, crashes, hangs and flag falls lose the game; checkmate,
stalemate, perpetual check/chase, the 60-move limit and insufficient material
are judged by the rules. SPRT bounds are in normalized Elo unless
model=logistic is given (fishtest's convention).

Example (a 2-engine match with SPRT):
  arena --engine name=new cmd=target/release/chariot \\
        --engine name=base cmd=../base/target/release/chariot \\
        --tc 10+0.1 --games 20000 --concurrency 2 --openings arena/data/openings.epd \\
        --sprt elo0=0 elo1=5 --pgn sprt.pgn";

/// Self-play tournaments for UCCI and UCI xiangqi engines.
///
/// Two engines play a match, more play a round robin.
#[derive(Parser)]
#[command(name = "arena", version, about, after_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Sub>,
    #[command(flatten)]
    play: PlayArgs,
}

#[derive(Subcommand)]
enum Sub {
    /// Build an opening suite (EPD) from game records in the ICCS TSV layout.
    Openings(OpeningsArgs),
    /// Score the games of earlier runs together, from their PGN files.
    Pool(PoolArgs),
}

#[derive(Args)]
struct PlayArgs {
    /// An engine: `name=… cmd=… [proto=ucci|uci] [option.NAME=VALUE]…` (give two or more).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    engine: Vec<String>,
    /// Clock per side, `BASE[+INC]` in seconds (e.g. 10+0.1).
    #[arg(long, value_name = "BASE+INC", group = "limit")]
    tc: Option<String>,
    /// Fixed depth per move instead of a clock.
    #[arg(long, value_name = "N", group = "limit")]
    depth: Option<u32>,
    /// Fixed node count per move instead of a clock.
    #[arg(long, value_name = "N", group = "limit")]
    nodes: Option<u64>,
    /// Games per pair of engines (rounded up to even: openings come in
    /// pairs). Default: at a fixed node count or depth with --openings,
    /// two for each opening used, so that each is played once with each
    /// colour and none again (a repeat would be the same pair of games);
    /// otherwise 2.
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Games played at the same time (each needs its own engine processes).
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Opening list, one FEN or EPD per line (default: the start position).
    #[arg(long, value_name = "FILE")]
    openings: Option<PathBuf>,
    /// Openings at the head of the file left unused, so a fixed-effort
    /// test can continue on positions an earlier run did not play.
    #[arg(long, default_value_t = 0, value_name = "N", requires = "openings")]
    skip_openings: usize,
    /// Sequential test: `elo0=… elo1=… [alpha=0.05] [beta=0.05] [model=normalized|logistic]`.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Option<Vec<String>>,
    /// Append finished games to this PGN file.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Score-based resignation: `score=CP [moves=3]` (both engines must agree).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    resign: Option<Vec<String>>,
    /// Score-based draw: `score=CP [moves=8] [after=30]` (both engines must agree).
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    draw: Option<Vec<String>>,
    /// Milliseconds added to a clock before the flag falls.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    margin: u64,
    /// Milliseconds to wait for a reply after `stop`, and for exit after `quit`.
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    grace: u64,
    /// Longest time in seconds for one move under --depth or --nodes.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    move_timeout: f64,
    /// Plies after which a game is drawn regardless (a safety net).
    #[arg(long, default_value_t = 1000, value_name = "PLIES")]
    max_plies: usize,
    /// PGN `Event` tag.
    #[arg(long, default_value = "arena")]
    event: String,
}

#[derive(Args)]
struct PoolArgs {
    /// PGN files written by `--pgn`, one per run; `FILE:N` counts only its first N pairs.
    #[arg(required_unless_present = "recorded", value_name = "FILE[:PAIRS]")]
    files: Vec<String>,
    /// A run whose PGN is gone, by its recorded counts from the engine's side:
    /// games won, drawn, lost, then pairs scoring 0, ½, 1, 1½, 2 points.
    #[arg(long, value_name = "W-D-L:LL,L,D,W,WW")]
    recorded: Vec<String>,
    /// The engine whose results are counted (default: Red in the first game).
    #[arg(long, value_name = "NAME")]
    engine: Option<String>,
    /// Test the pooled pairs: `elo0=… elo1=… [alpha=0.05] [beta=0.05] [model=normalized|logistic]`.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    sprt: Option<Vec<String>>,
    /// Print the counts as one JSON object (for programs) instead of the report.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct OpeningsArgs {
    /// Game records (`game<TAB>result<TAB>plies<TAB>moves`, one header line; `.xz` ok); `-` for stdin.
    #[arg(long, value_name = "FILE")]
    input: PathBuf,
    /// Output EPD file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Positions to select.
    #[arg(long, default_value_t = 240)]
    count: usize,
    /// Shallowest opening in plies.
    #[arg(long, default_value_t = 6)]
    min_plies: usize,
    /// Deepest opening in plies.
    #[arg(long, default_value_t = 10)]
    max_plies: usize,
    /// Least number of games through a position.
    #[arg(long, default_value_t = 6)]
    min_games: u32,
    /// Largest distance of Red's score from 50 % in those games.
    #[arg(long, default_value_t = 0.1)]
    max_imbalance: f64,
}

fn play(args: &PlayArgs, matches: &ArgMatches) -> Result<ExitCode> {
    let tournament = configure(args, matches, openings::load)?;
    Ok(match tournament.run()? {
        RunEnd::Completed => ExitCode::SUCCESS,
        // The shell's code for "ended by SIGINT", whichever signal it was.
        RunEnd::Interrupted => ExitCode::from(130),
    })
}

/// Turns parsed play arguments into a tournament, reading the openings
/// through `load_openings` (the file system in use, the fuzzer's bytes in
/// [`crate::fuzzing::config`]). Nothing is started.
fn configure(
    args: &PlayArgs,
    matches: &ArgMatches,
    load_openings: impl Fn(&Path) -> Result<Vec<openings::Opening>>,
) -> Result<Tournament> {
    let mut engines = Vec::new();
    if let Some(occurrences) = matches.get_occurrences::<String>("engine") {
        for words in occurrences {
            let words: Vec<&String> = words.collect();
            engines.push(EngineSpec::parse(&words)?);
        }
    }
    if engines.len() < 2 {
        bail!("give at least two --engine (see --help)");
    }
    for (i, e) in engines.iter().enumerate() {
        if engines[..i].iter().any(|o| o.name == e.name) {
            bail!(
                "two engines are named '{}': give each a distinct name=",
                e.name
            );
        }
    }
    let tc = match (&args.tc, args.depth, args.nodes) {
        (Some(tc), _, _) => TimeControl::parse_clock(tc)?,
        (_, Some(d), _) => TimeControl::Depth(d),
        (_, _, Some(n)) => TimeControl::Nodes(n),
        _ => bail!("give a limit: --tc, --depth or --nodes"),
    };
    if !(args.move_timeout.is_finite() && args.move_timeout > 0.0 && args.move_timeout < 1e6) {
        bail!("--move-timeout must be a positive number of seconds");
    }
    let settings = GameSettings {
        tc,
        margin: Duration::from_millis(args.margin),
        grace: Duration::from_millis(args.grace),
        move_timeout: Duration::from_secs_f64(args.move_timeout),
        resign: args
            .resign
            .as_deref()
            .map(config::parse_resign)
            .transpose()?,
        draw: args.draw.as_deref().map(config::parse_draw).transpose()?,
        max_plies: args.max_plies.max(1),
    };
    let (openings, openings_source) = match &args.openings {
        Some(path) => {
            let mut list = load_openings(path)?;
            let source = match args.skip_openings {
                0 => path.display().to_string(),
                skip if skip < list.len() => {
                    list.drain(..skip);
                    format!("{}, the first {skip} skipped", path.display())
                }
                skip => bail!(
                    "--skip-openings {skip} leaves none of the {} openings in {}",
                    list.len(),
                    path.display()
                ),
            };
            (list, source)
        }
        None => (
            vec![openings::Opening::startpos()],
            "the start position".to_string(),
        ),
    };
    let fixed_effort = matches!(settings.tc, TimeControl::Nodes(_) | TimeControl::Depth(_));
    let games = match args.games {
        Some(n) => n.max(1),
        None if fixed_effort && args.openings.is_some() => 2 * openings.len() as u64,
        None => 2,
    };
    Ok(Tournament {
        engines,
        settings,
        games,
        concurrency: args.concurrency.max(1),
        openings,
        sprt: args.sprt.as_deref().map(config::parse_sprt).transpose()?,
        pgn: args.pgn.clone(),
        event: args.event.clone(),
        openings_source,
    })
}

/// Parses `words` (the program name first) as the play command line and
/// configures the tournament it describes, without running it; openings
/// come from `load_openings`. For the fuzzer.
///
/// # Errors
/// Whatever the command line would report: clap's message, or ours.
pub(crate) fn configure_from_words(
    words: &[String],
    load_openings: impl Fn(&Path) -> Result<Vec<openings::Opening>>,
) -> Result<Option<Tournament>> {
    let matches = Cli::command().try_get_matches_from(words)?;
    let cli = Cli::from_arg_matches(&matches)?;
    match cli.command {
        Some(Sub::Openings(_) | Sub::Pool(_)) => Ok(None),
        None => configure(&cli.play, &matches, load_openings).map(Some),
    }
}

fn make_openings(args: &OpeningsArgs) -> Result<ExitCode> {
    let settings = openings::BuildSettings {
        min_plies: args.min_plies.max(1),
        max_plies: args.max_plies.max(args.min_plies.max(1)),
        count: args.count.max(1),
        min_games: args.min_games.max(1),
        max_imbalance: args.max_imbalance,
    };
    let (text, games) = if args.input.as_os_str() == "-" {
        openings::build(std::io::stdin().lock(), &settings)?
    } else {
        // `.xz` records are decompressed in-process, as the book builder does.
        let text = book::pgn::read_text(&args.input)?;
        openings::build(text.as_bytes(), &settings)?
    };
    std::fs::write(&args.out, text)
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    print_result(&format!(
        "wrote {} positions from {games} games to {}",
        settings.count,
        args.out.display()
    ))
}

fn pool_runs(args: &PoolArgs) -> Result<ExitCode> {
    let sprt = args.sprt.as_deref().map(config::parse_sprt).transpose()?;
    let mut sources = Vec::new();
    for arg in &args.files {
        let (file, max_pairs) = pool::split_source(arg);
        let text = book::pgn::read_text(Path::new(file))?;
        sources.push(pool::Source {
            name: file.to_string(),
            text,
            max_pairs,
        });
    }
    let recorded = args
        .recorded
        .iter()
        .map(|r| pool::Recorded::parse(r))
        .collect::<Result<Vec<_>>>()?;
    let mut pooled = pool::pool(&sources, args.engine.as_deref())?;
    if pooled.engine.is_empty() {
        args.engine
            .as_deref()
            .unwrap_or("engine")
            .clone_into(&mut pooled.engine);
    }
    pool::add_recorded(&mut pooled, &recorded);
    print_result(&if args.json {
        pool::json(&pooled, sprt.as_ref())
    } else {
        pool::report(&pooled, sprt.as_ref())
    })
}

/// Prints a subcommand's result. A reader that went away (`arena pool …
/// | head`) ends the program quietly, as it ends other command-line tools;
/// any other failure to write is an error.
fn print_result(text: &str) -> Result<ExitCode> {
    match stdout_line(text) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e).context("cannot write to stdout"),
    }
}

/// The `arena` program: parses the command line and runs what it asks.
pub fn main() -> ExitCode {
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let result = match &cli.command {
        Some(Sub::Openings(args)) => make_openings(args),
        Some(Sub::Pool(args)) => pool_runs(args),
        None => play(&cli.play, &matches),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("arena: {e:#}");
            ExitCode::FAILURE
        }
    }
}
