//! `chariot datagen`: training games for the NNUE, in the games format of
//! `engine::nnue::games` (`docs/nnue.md` §3), written plain or, for a path
//! ending in `.xz`, xz-compressed.
//!
//! The games themselves are the engine's (`engine::datagen`): self-play
//! from the balanced openings with a few random plies, recorded games
//! (`--pgn`) scored by search, or a games file's games searched again
//! (`--relabel`: the same moves and results, this run's scores). This module holds the arguments, runs the
//! games on threads, writes them in game order, and reports (`summary`):
//! the progress line, and a summary with the positions the default
//! filters would keep and the reasons for the rest.
//!
//! Seed `seed + i` draws the start of self-play game `i` (an opening and
//! random plies), and the game is played from it with a new game in its
//! thread's engine. A start that an earlier seed of the run already drew
//! would give the same game again, so that seed is passed over (counted as
//! a repeated start) without playing: at the default four random plies,
//! one game in five has none, and the suite's 240 openings give only 240
//! such games, which a long run otherwise plays again and again. Starts
//! are drawn one at a time in seed order, and the games are written in
//! that order whatever thread played them, so a run is a function of its
//! arguments: run again with the same seed, it writes the same file, with
//! any thread count. With `--positions N` the run ends after the first
//! game (in order) that brings the kept positions to `N`; with `--seconds
//! S` no game starts after `S` seconds (the file then holds the first `k`
//! games, each the same as in any other run).

use std::collections::BTreeMap;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use board::{Move, Position};
use book::pgn::PgnGame;
use engine::Engine;
use engine::datagen::{Ending, GameStart, PlayConfig, PlayedGame, play_from, score_game};
use engine::nnue::EvalSource;
use engine::nnue::games::{GameRecord, GameWriter};

mod summary;
#[cfg(test)]
use summary::progress_line;
use summary::{Summary, Targets, progress};

/// Arguments of `chariot datagen`.
#[derive(clap::Args)]
pub struct DatagenArgs {
    /// Output games file (`.xz`: compressed).
    #[arg(long, value_name = "FILE")]
    pub(crate) out: PathBuf,
    /// Stop after the game that brings the positions the default filters
    /// keep to this many.
    #[arg(long, value_name = "N")]
    pub(crate) positions: Option<u64>,
    /// Stop after this many games (default 100 when --positions and
    /// --seconds are absent; with --pgn, every game of the file).
    #[arg(long, value_name = "N")]
    pub(crate) games: Option<u64>,
    /// Start no game after this many seconds (the games under way are
    /// finished and written): a run of a given machine time.
    #[arg(long, value_name = "S")]
    pub(crate) seconds: Option<u64>,
    /// Soft node limit per move: the search ends after the first iteration
    /// that reaches it.
    #[arg(long, value_name = "N", default_value_t = PlayConfig::default().soft_nodes)]
    pub(crate) soft_nodes: u64,
    /// Hard node limit per move (at least the soft one).
    #[arg(long, value_name = "N", default_value_t = PlayConfig::default().hard_nodes)]
    pub(crate) hard_nodes: u64,
    /// A fixed node budget per move: sets both limits.
    #[arg(long, value_name = "N")]
    pub(crate) nodes: Option<u64>,
    /// Games played at once, one per thread.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=256))]
    pub(crate) threads: u64,
    /// Opening suite (FEN or EPD lines) [default: the project's 240
    /// balanced openings, arena/data/openings.epd, built into the binary]
    #[arg(long, value_name = "FILE")]
    pub(crate) openings: Option<PathBuf>,
    /// At most this many random legal plies after the opening.
    #[arg(long, value_name = "N", default_value_t = PlayConfig::default().random_plies)]
    pub(crate) random_plies: u32,
    /// A game still going after this many plies is a draw.
    #[arg(long, value_name = "N", default_value_t = PlayConfig::default().max_plies)]
    pub(crate) max_plies: u32,
    /// Win adjudication: both sides' scores beyond this many centipawns…
    #[arg(long, value_name = "CP", default_value_t = PlayConfig::default().win_score)]
    pub(crate) win_score: i32,
    /// …for this many plies in a row (0: off).
    #[arg(long, value_name = "N", default_value_t = PlayConfig::default().win_plies)]
    pub(crate) win_plies: u32,
    /// Draw adjudication: scores within this many centipawns of zero…
    #[arg(long, value_name = "CP", default_value_t = PlayConfig::default().draw_score)]
    pub(crate) draw_score: i32,
    /// …for this many plies in a row (0: off)…
    #[arg(long, value_name = "N", default_value_t = PlayConfig::default().draw_plies)]
    pub(crate) draw_plies: u32,
    /// …after this many plies of the game.
    #[arg(long, value_name = "N", default_value_t = PlayConfig::default().draw_after)]
    pub(crate) draw_after: u32,
    /// Hash table per thread, in MB.
    #[arg(long, value_name = "MB", default_value_t = 4)]
    pub(crate) hash: usize,
    /// Score the positions of these recorded games (PGN, `.xz` accepted)
    /// instead of self-play.
    #[arg(long, value_name = "FILE", group = "recorded")]
    pub(crate) pgn: Option<PathBuf>,
    /// Search the positions of a games file (`.xz` accepted) again, at this
    /// run's node budget and with its network: the same games, moves and
    /// results, new scores (a deeper or a newer label for stored data).
    #[arg(long, value_name = "FILE", group = "recorded")]
    pub(crate) relabel: Option<PathBuf>,
    /// With --pgn or --relabel, start at this game of the file (0-based),
    /// so that one file can be scored in chunks.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "recorded")]
    pub(crate) skip_games: u64,
    /// Seed of the openings and random plies: game `i` uses `seed + i`.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) seed: u64,
    /// The evaluation of the searches: builtin (the embedded network, or
    /// the hand-written evaluation in a build without one), hand, or a
    /// network file.
    #[arg(long, value_name = "builtin|hand|FILE", default_value = "builtin")]
    pub(crate) eval: String,
    /// Append this run to a data directory's manifest (the output must lie
    /// in the manifest's directory; docs/nnue.md §8).
    #[arg(long, value_name = "FILE")]
    pub(crate) manifest: Option<PathBuf>,
}

impl DatagenArgs {
    fn play_config(&self) -> PlayConfig {
        let (soft, hard) = match self.nodes {
            Some(n) => (n, n),
            None => (self.soft_nodes, self.hard_nodes.max(self.soft_nodes)),
        };
        PlayConfig {
            soft_nodes: soft.max(1),
            hard_nodes: hard.max(1),
            random_plies: self.random_plies,
            max_plies: self.max_plies,
            win_score: self.win_score,
            win_plies: self.win_plies,
            draw_score: self.draw_score,
            draw_plies: self.draw_plies,
            draw_after: self.draw_after,
        }
    }
}

/// Runs the subcommand: plays, writes, reports.
pub fn run(args: &DatagenArgs) -> ExitCode {
    // What would only fail once the games are played is checked first: a
    // wrong directory must not cost hours of play.
    let done = check_destination(args)
        .and_then(|()| generate(args))
        .and_then(|summary| {
            summary.print(&args.out);
            match &args.manifest {
                Some(m) => record_chunk(args, &summary, m),
                None => Ok(()),
            }
        });
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chariot datagen: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The directory a file lies in, resolved; `None` when it does not exist.
fn directory_of(p: &Path) -> Option<PathBuf> {
    p.parent()
        .map(|d| {
            if d.as_os_str().is_empty() {
                Path::new(".")
            } else {
                d
            }
        })
        .and_then(|d| d.canonicalize().ok())
}

/// Checks, before any game, what writing the output and recording it in
/// the manifest will need: the output's directory exists, the manifest
/// lies beside the output, and a manifest already there reads and does
/// not name the output's file.
fn check_destination(args: &DatagenArgs) -> Result<()> {
    if directory_of(&args.out).is_none() {
        bail!(
            "--out {}: the directory {} does not exist (create it first: mkdir -p)",
            args.out.display(),
            args.out.parent().unwrap_or(Path::new(".")).display()
        );
    }
    let Some(manifest) = &args.manifest else {
        return Ok(());
    };
    check_same_directory(&args.out, manifest)?;
    if manifest.exists() {
        let m = crate::data_cli::read_manifest(manifest)?;
        let file = args
            .out
            .file_name()
            .map(|f| f.to_string_lossy().into_owned());
        if m.chunk.iter().any(|c| Some(&c.file) == file.as_ref()) {
            bail!(
                "--manifest {} already lists {}: choose another --out",
                manifest.display(),
                args.out.display()
            );
        }
    }
    Ok(())
}

fn check_same_directory(out: &Path, manifest: &Path) -> Result<()> {
    if directory_of(out).is_none() || directory_of(out) != directory_of(manifest) {
        bail!(
            "--manifest {}: the output {} must lie in the manifest's directory",
            manifest.display(),
            out.display()
        );
    }
    Ok(())
}

/// Appends the run's chunk to the manifest at `manifest`.
fn record_chunk(args: &DatagenArgs, s: &Summary, manifest: &Path) -> Result<()> {
    check_same_directory(&args.out, manifest)?;
    let file = args
        .out
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let eval = s.eval.clone();
    crate::data_cli::append_chunk(
        manifest,
        crate::data_cli::Chunk {
            file,
            sha256: crate::data_cli::sha256(&args.out)?,
            bytes: s.bytes,
            command: crate::data_cli::command_line(),
            engine: format!("chariot {}", protocol::VERSION),
            eval,
            seed: args.seed,
            games: s.games,
            plies: s.plies,
            scored: s.scored,
            kept: s.selector.kept,
            seconds: (s.elapsed.as_secs_f64() * 10.0).round() / 10.0,
        },
    )
}

/// Reads the opening positions (`book::openings`, as the arena reads
/// them), naming the file; without one, the built-in suite
/// (`book::openings::builtin`).
fn load_openings(path: Option<&Path>) -> Result<Vec<Position>> {
    let list =
        match path {
            Some(path) => book::openings::load(path)
                .with_context(|| format!("openings {}", path.display()))?,
            None => book::openings::builtin()
                .context("the built-in openings (arena/data/openings.epd)")?,
        };
    Ok(list.into_iter().map(|o| o.position).collect())
}

/// Where the games come from.
enum Source {
    /// Self-play from these openings.
    SelfPlay(Vec<Position>),
    /// Recorded games.
    Recorded(Vec<PgnGame>),
    /// Stored games, searched again.
    Relabel(Vec<GameRecord>),
}

impl Source {
    fn open(args: &DatagenArgs) -> Result<Source> {
        Ok(match (&args.pgn, &args.relabel) {
            (Some(path), _) => {
                let games = book::pgn::parse_games(&book::pgn::read_text(path)?);
                if games.is_empty() {
                    bail!("no games in {}", path.display());
                }
                Source::Recorded(games)
            }
            (None, Some(path)) => {
                let games = engine::nnue::games::open(path)
                    .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                    .with_context(|| format!("--relabel {}", path.display()))?;
                if games.is_empty() {
                    bail!("--relabel {}: no games in the file", path.display());
                }
                Source::Relabel(games)
            }
            (None, None) => Source::SelfPlay(load_openings(args.openings.as_deref())?),
        })
    }

    /// How many games the run plays at most.
    fn target_games(&self, args: &DatagenArgs) -> u64 {
        let recorded = |n: usize| {
            args.games
                .unwrap_or(u64::MAX)
                .min((n as u64).saturating_sub(args.skip_games))
        };
        match self {
            Source::Recorded(games) => recorded(games.len()),
            Source::Relabel(games) => recorded(games.len()),
            Source::SelfPlay(_) => match (args.games, args.positions, args.seconds) {
                (Some(g), _, _) => g,
                (None, None, None) => 100,
                (None, _, _) => u64::MAX,
            },
        }
    }

    /// The next game to play, drawn in order: `None` once `target` games
    /// are drawn. A self-play start drawn before is passed over.
    fn next_job(
        &self,
        args: &DatagenArgs,
        cfg: &PlayConfig,
        d: &mut Dispatch,
        target: u64,
    ) -> Option<(u64, Job)> {
        let mut in_a_row = 0u64;
        loop {
            if d.drawn >= target || d.exhausted {
                return None;
            }
            let i = d.index;
            d.index += 1;
            let job = match self {
                Source::SelfPlay(openings) => {
                    let start = GameStart::draw(openings, cfg, args.seed.wrapping_add(i));
                    let (opening, random) = start.key();
                    if !d.seen.insert((opening, random.to_vec())) {
                        d.repeated += 1;
                        in_a_row += 1;
                        // A small suite without random plies runs out of
                        // new starts: end the run rather than draw forever.
                        d.exhausted = in_a_row >= EXHAUSTED_AFTER;
                        continue;
                    }
                    Job::SelfPlay(Box::new(start))
                }
                Source::Recorded(_) | Source::Relabel(_) => Job::Recorded(i),
            };
            let slot = d.drawn;
            d.drawn += 1;
            return Some((slot, job));
        }
    }

    /// Plays or scores `job` with `engine`; `None` for a recorded game
    /// without a result or with an unreadable move, or a stored game whose
    /// start does not read.
    fn game(
        &self,
        engine: &mut Engine,
        args: &DatagenArgs,
        cfg: &PlayConfig,
        job: Job,
    ) -> Option<PlayedGame> {
        match (self, job) {
            (Source::SelfPlay(_), Job::SelfPlay(start)) => Some(play_from(engine, *start, cfg)),
            (Source::Recorded(games), Job::Recorded(i)) => {
                let game = games.get(usize::try_from(args.skip_games.checked_add(i)?).ok()?)?;
                let result = game.result()?;
                let (start, moves) = game.replay().ok()?;
                Some(PlayedGame {
                    record: score_game(engine, &start, &moves, result, cfg),
                    ending: Ending::Recorded,
                })
            }
            (Source::Relabel(games), Job::Recorded(i)) => {
                let game = games.get(usize::try_from(args.skip_games.checked_add(i)?).ok()?)?;
                let start = Position::from_fen(&game.start).ok()?;
                let moves: Vec<Move> = game.plies.iter().map(|p| p.mv).collect();
                Some(PlayedGame {
                    record: score_game(engine, &start, &moves, game.result, cfg),
                    ending: Ending::Recorded,
                })
            }
            _ => None,
        }
    }
}

/// One game to play: a self-play start, or the index of a recorded game.
enum Job {
    SelfPlay(Box<GameStart>),
    Recorded(u64),
}

/// The order of a run's games, shared by its threads: the next seed
/// offset, the games drawn so far, and the self-play starts already drawn.
#[derive(Default)]
struct Dispatch {
    index: u64,
    drawn: u64,
    seen: HashSet<(usize, Vec<Move>)>,
    repeated: u64,
    /// No new start in [`EXHAUSTED_AFTER`] draws in a row: the run ends.
    exhausted: bool,
}

/// Repeated starts in a row after which a run is taken to have played
/// every start its openings and random plies allow (a few milliseconds
/// of drawing; a real run meets a few in a row at most).
const EXHAUSTED_AFTER: u64 = 10_000;

/// Where the games go: a plain file, or an xz stream (preset 9) for a
/// path ending in `.xz`.
enum Output {
    Plain(BufWriter<File>),
    Xz(liblzma::write::XzEncoder<BufWriter<File>>),
}

impl Output {
    fn create(path: &Path) -> Result<Output> {
        let file =
            File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
        Ok(if path.extension().is_some_and(|e| e == "xz") {
            Output::Xz(liblzma::write::XzEncoder::new(BufWriter::new(file), 9))
        } else {
            Output::Plain(BufWriter::new(file))
        })
    }

    /// Ends the stream (the xz footer) and flushes the file.
    fn finish(self) -> std::io::Result<()> {
        match self {
            Output::Plain(mut w) => w.flush(),
            Output::Xz(x) => x.finish()?.flush(),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Output::Plain(w) => w.write(buf),
            Output::Xz(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Output::Plain(w) => w.flush(),
            Output::Xz(w) => w.flush(),
        }
    }
}

fn generate(args: &DatagenArgs) -> Result<Summary> {
    let source = Source::open(args)?;
    let targets = Targets {
        games: source.target_games(args),
        positions: args.positions.unwrap_or(u64::MAX),
        seconds: args.seconds,
    };
    let network = EvalSource::parse(&args.eval)
        .load()
        .map_err(|e| anyhow::anyhow!("--eval {}: {e}", args.eval))?;
    let cfg = args.play_config();
    let mut writer = GameWriter::new(Output::create(&args.out)?)?;
    let dispatch = Mutex::new(Dispatch::default());
    let stop = AtomicBool::new(false);
    let (tx, rx) = crossbeam_channel::unbounded::<(u64, Option<PlayedGame>)>();
    let start = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let mut summary = Summary::new();
    summary.eval = network
        .as_ref()
        .map_or_else(|| "hand-written".to_string(), |n| n.describe());
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..args.threads {
            let tx = tx.clone();
            let (source, cfg, network) = (&source, &cfg, &network);
            let (dispatch, stop) = (&dispatch, &stop);
            s.spawn(move || {
                let mut engine = Engine::new();
                engine.set_network(network.clone());
                // The default table size stays if the request is refused.
                let _ = engine.set_hash_mb(args.hash);
                let deadline = args.seconds.map(|s| start + Duration::from_secs(s));
                while !stop.load(Ordering::Relaxed) {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        break;
                    }
                    let next = match dispatch.lock() {
                        Ok(mut d) => source.next_job(args, cfg, &mut d, targets.games),
                        Err(_) => None,
                    };
                    let Some((i, job)) = next else {
                        break;
                    };
                    let game = source.game(&mut engine, args, cfg, job);
                    if tx.send((i, game)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Games arrive in any order and are written in index order.
        let mut waiting = BTreeMap::new();
        let mut next_write = 0u64;
        let mut last_report = Instant::now();
        let mut done = false;
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok((i, game)) => {
                    waiting.insert(i, game);
                }
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
            }
            while !done && let Some(game) = waiting.remove(&next_write) {
                next_write += 1;
                match game {
                    Some(g) => {
                        writer.write(&g.record)?;
                        summary.add(&g)?;
                    }
                    None => summary.skipped += 1,
                }
                if summary.selector.kept >= targets.positions {
                    done = true;
                    stop.store(true, Ordering::Relaxed);
                }
            }
            summary.elapsed = start.elapsed();
            let every = if terminal { 1 } else { 30 };
            if last_report.elapsed() >= Duration::from_secs(every) {
                last_report = Instant::now();
                progress(&summary, targets, terminal);
            }
        }
        Ok(())
    })?;
    writer.finish()?.finish()?;
    (summary.repeated, summary.exhausted) = dispatch
        .into_inner()
        .map_or((0, false), |d| (d.repeated, d.exhausted));
    summary.elapsed = start.elapsed();
    summary.bytes = std::fs::metadata(&args.out).map_or(0, |m| m.len());
    progress(&summary, targets, terminal);
    if terminal {
        eprintln!();
    }
    Ok(summary)
}

/// Reads every game of a games file (plain or `.xz`).
///
/// # Errors
/// The file cannot be read, or is not a valid games file.
#[cfg(test)]
fn read_games(path: &Path) -> Result<Vec<GameRecord>> {
    engine::nnue::games::open(path)?
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("reading {}", path.display()))
}

#[cfg(test)]
mod tests;
