//! `chariot datagen`: training positions for the NNUE, labelled with a
//! search score and the game's result, written in the record format of
//! `engine::nnue::data` (specified in `docs/nnue.md`).
//!
//! Self-play: each game starts from one of the arena's balanced openings
//! (`arena/data/openings.epd`), adds a few random legal plies so that no two
//! games are alike, then plays every move with a search of a fixed node
//! budget until our rules end the game (`Position::outcome`: mate,
//! stalemate, repetition verdicts, move limit, insufficient material) or a
//! ply cap adjudicates a draw. Every position kept gets that game's result.
//!
//! A position is not kept when it teaches the network little or something
//! false: the side to move is in check; the score is a mate or a rule
//! verdict; the best move is a capture; or a capture-only quiescence search
//! over the static evaluation changes the score (the position is not quiet,
//! so its label reflects tactics the network cannot see). That quiescence
//! search lives here, a plain alpha-beta over captures with a node cap,
//! because the engine's own is private to its search. Positions are
//! deduplicated by Zobrist key across the whole run.
//!
//! Master games (`--pgn FILE`, PGN as the book builder reads it, `.xz`
//! accepted): every position of each game with a known result is searched
//! at the same node budget, filtered the same way, and labelled with the
//! game's recorded result; the game's own moves are played, not the
//! search's.
//!
//! Game `i` draws its opening and random plies from `seed + i` and starts
//! with a cleared table, so a game is the same whichever thread plays it;
//! with one thread the whole file is reproducible.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use board::{Color, Move, Outcome, Position};
use book::pgn::{GameResult, PgnGame};
use engine::nnue::Network;
use engine::nnue::data::{Record, RecordWriter};
use engine::{Engine, Limits, Score};

/// Arguments of `chariot datagen`.
#[derive(clap::Args)]
pub struct DatagenArgs {
    /// Output data file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Stop after writing this many positions.
    #[arg(long, value_name = "N")]
    positions: Option<u64>,
    /// Stop after this many games (default 100 when --positions is absent).
    #[arg(long, value_name = "N")]
    games: Option<u64>,
    /// Search node budget per move.
    #[arg(long, value_name = "N", default_value_t = 5000)]
    nodes: u64,
    /// Games played at once, one per thread.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u64).range(1..=256))]
    threads: u64,
    /// Opening suite (FEN or EPD lines).
    #[arg(long, value_name = "FILE", default_value = "arena/data/openings.epd")]
    openings: PathBuf,
    /// At most this many random legal plies after the opening.
    #[arg(long, value_name = "N", default_value_t = 4)]
    random_plies: u32,
    /// A game still going after this many plies is adjudicated a draw.
    #[arg(long, value_name = "N", default_value_t = 400)]
    max_plies: u32,
    /// Hash table per thread, in MB.
    #[arg(long, value_name = "MB", default_value_t = 4)]
    hash: usize,
    /// Score the positions of these recorded games instead of self-play.
    #[arg(long, value_name = "FILE")]
    pgn: Option<PathBuf>,
    /// Seed of the openings and random plies.
    #[arg(long, value_name = "N", default_value_t = 1)]
    seed: u64,
    /// The evaluation of the searches: builtin (the embedded network, or
    /// the hand-written evaluation in a build without one), hand, or a
    /// network file.
    #[arg(long, value_name = "builtin|hand|FILE", default_value = "builtin")]
    eval: String,
}

/// Runs the subcommand: plays, writes, reports.
pub fn run(args: &DatagenArgs) -> ExitCode {
    match generate(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("chariot datagen: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Why positions were dropped, and what was kept.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    seen: u64,
    in_check: u64,
    decided: u64,
    capture_best: u64,
    not_quiet: u64,
    duplicate: u64,
    written: u64,
    red_wins: u64,
    black_wins: u64,
    draws: u64,
    adjudicated: u64,
    unusable_games: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.seen += o.seen;
        self.in_check += o.in_check;
        self.decided += o.decided;
        self.capture_best += o.capture_best;
        self.not_quiet += o.not_quiet;
        self.duplicate += o.duplicate;
        self.written += o.written;
        self.red_wins += o.red_wins;
        self.black_wins += o.black_wins;
        self.draws += o.draws;
        self.adjudicated += o.adjudicated;
        self.unusable_games += o.unusable_games;
    }
}

/// One finished game: its kept positions (key and record) and its counts.
struct Game {
    records: Vec<(u64, Record)>,
    counts: Counts,
}

/// A small deterministic generator (splitmix64) for openings and random
/// plies; search itself is deterministic at a node budget.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap_or(0)
    }
}

/// Reads the opening positions: the FEN part of each line (the first four
/// fields; EPD operations ignored), skipping blanks and `#` comments.
fn load_openings(path: &Path) -> Result<Vec<Position>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read openings {}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fen: Vec<&str> = line.split_whitespace().take(2).collect();
        let pos = Position::from_fen(&fen.join(" "))
            .with_context(|| format!("{}:{}: bad FEN", path.display(), n + 1))?;
        out.push(pos);
    }
    if out.is_empty() {
        bail!("no openings in {}", path.display());
    }
    Ok(out)
}

/// Where the games come from.
enum Source {
    /// Self-play from these openings.
    SelfPlay(Vec<Position>),
    /// Recorded games.
    Recorded(Vec<PgnGame>),
}

/// Where the games come from, and how many of them to play or score.
fn open_source(args: &DatagenArgs) -> Result<(Source, u64)> {
    let source = match &args.pgn {
        None => Source::SelfPlay(load_openings(&args.openings)?),
        Some(path) => {
            let games = book::pgn::parse_games(&book::pgn::read_text(path)?);
            if games.is_empty() {
                bail!("no games in {}", path.display());
            }
            Source::Recorded(games)
        }
    };
    let target_games = match (&source, args.games, args.positions) {
        (_, Some(g), _) => g,
        (Source::Recorded(games), None, _) => games.len() as u64,
        (Source::SelfPlay(_), None, Some(_)) => u64::MAX,
        (Source::SelfPlay(_), None, None) => 100,
    };
    let target_games = match &source {
        Source::Recorded(games) => target_games.min(games.len() as u64),
        Source::SelfPlay(_) => target_games,
    };
    Ok((source, target_games))
}

/// What the generating threads share: the games to take by index, the
/// flag that ends them, and how to search.
struct Shared<'a> {
    source: &'a Source,
    next_game: &'a AtomicU64,
    stop: &'a AtomicBool,
    target_games: u64,
    network: &'a Option<Arc<Network>>,
    args: &'a DatagenArgs,
}

/// One generating thread: takes the next game index, plays (or scores) that
/// game with its own engine and sends it, until the targets are met or the
/// collector has gone.
fn generate_games(shared: &Shared<'_>, tx: &crossbeam_channel::Sender<Game>) {
    let args = shared.args;
    let mut engine = Engine::new();
    engine.set_network(shared.network.clone());
    // The default table size stays if the request is refused.
    let _ = engine.set_hash_mb(args.hash);
    while !shared.stop.load(Ordering::Relaxed) {
        let i = shared.next_game.fetch_add(1, Ordering::Relaxed);
        if i >= shared.target_games {
            break;
        }
        let game = match shared.source {
            Source::SelfPlay(openings) => {
                play_game(&mut engine, openings, args, args.seed.wrapping_add(i))
            }
            Source::Recorded(games) => usize::try_from(i)
                .ok()
                .and_then(|i| games.get(i))
                .map_or_else(Game::unusable, |g| score_game(&mut engine, g, args)),
        };
        if tx.send(game).is_err() {
            break;
        }
    }
}

fn generate(args: &DatagenArgs) -> Result<()> {
    let (source, target_games) = open_source(args)?;
    let target_positions = args.positions.unwrap_or(u64::MAX);
    let file =
        File::create(&args.out).with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut writer = RecordWriter::new(BufWriter::new(file))?;

    let next_game = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = crossbeam_channel::unbounded::<Game>();
    let start = Instant::now();
    let mut totals = Counts::default();
    let mut games_done = 0u64;
    let mut keys = HashSet::new();
    let terminal = std::io::stderr().is_terminal();

    let network = engine::nnue::EvalSource::parse(&args.eval)
        .load()
        .map_err(|e| anyhow::anyhow!("--eval {}: {e}", args.eval))?;
    let shared = Shared {
        source: &source,
        next_game: &next_game,
        stop: &stop,
        target_games,
        network: &network,
        args,
    };
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..args.threads {
            let tx = tx.clone();
            let shared = &shared;
            s.spawn(move || generate_games(shared, &tx));
        }
        drop(tx);
        let mut last_report = Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_millis(500)) {
                Ok(game) => {
                    games_done += 1;
                    let mut counts = game.counts;
                    for (key, record) in game.records {
                        if totals.written >= target_positions {
                            break;
                        }
                        if keys.insert(key) {
                            writer.write(&record)?;
                            counts.written += 1;
                            totals.written += 1;
                        } else {
                            counts.duplicate += 1;
                        }
                    }
                    totals.add(&Counts {
                        written: 0,
                        ..counts
                    });
                    if totals.written >= target_positions {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
            }
            // A terminal gets a line redrawn every second; a log file a new
            // line every half minute, so that it stays readable.
            let every = if terminal { 1 } else { 30 };
            if last_report.elapsed() >= Duration::from_secs(every) {
                last_report = Instant::now();
                progress(
                    &totals,
                    games_done,
                    start,
                    target_games,
                    target_positions,
                    terminal,
                );
            }
        }
        Ok(())
    })?;
    writer.finish()?;
    progress(
        &totals,
        games_done,
        start,
        target_games,
        target_positions,
        terminal,
    );
    if terminal {
        eprintln!();
    }
    let kind = match source {
        Source::SelfPlay(_) => "self-play",
        Source::Recorded(_) => "recorded",
    };
    report(&totals, games_done, kind, start.elapsed(), &args.out);
    Ok(())
}

/// The progress line on stderr: positions, games, rate and an estimate of
/// the time left toward whichever target was given.
fn progress(
    c: &Counts,
    games: u64,
    start: Instant,
    target_games: u64,
    target_positions: u64,
    terminal: bool,
) {
    let secs = start.elapsed().as_secs_f64().max(1e-3);
    #[allow(clippy::cast_precision_loss)]
    let (rate, game_rate) = (c.written as f64 / secs, games as f64 / secs);
    #[allow(clippy::cast_precision_loss)]
    let eta = if target_positions != u64::MAX && rate > 0.0 {
        target_positions.saturating_sub(c.written) as f64 / rate
    } else if target_games != u64::MAX && game_rate > 0.0 {
        target_games.saturating_sub(games) as f64 / game_rate
    } else {
        0.0
    };
    let line = format!(
        "{} positions, {games} games, {rate:.0} positions/s, ETA {eta:.0} s",
        c.written
    );
    if terminal {
        eprint!("\r{line}   ");
    } else {
        eprintln!("{line}");
    }
    let _ = std::io::stderr().flush();
}

fn report(c: &Counts, games: u64, kind: &str, elapsed: Duration, out: &Path) {
    println!(
        "Wrote {} positions from {games} {kind} games to {} in {:.1} s",
        c.written,
        out.display(),
        elapsed.as_secs_f64()
    );
    println!(
        "Positions searched: {}; dropped: {} in check, {} mate or rule scores, \
         {} capture best, {} not quiet, {} duplicates",
        c.seen, c.in_check, c.decided, c.capture_best, c.not_quiet, c.duplicate
    );
    println!(
        "Games: {} Red wins, {} Black wins, {} draws ({} adjudicated at the ply cap), \
         {} recorded games skipped (no result or an unreadable move)",
        c.red_wins, c.black_wins, c.draws, c.adjudicated, c.unusable_games
    );
}

impl Game {
    fn unusable() -> Game {
        Game {
            records: Vec::new(),
            counts: Counts {
                unusable_games: 1,
                ..Counts::default()
            },
        }
    }

    /// Labels every kept position with the result and counts the game.
    fn finish(mut records: Vec<(u64, Record)>, mut counts: Counts, winner: Option<Color>) -> Game {
        match winner {
            Some(Color::Red) => counts.red_wins += 1,
            Some(Color::Black) => counts.black_wins += 1,
            None => counts.draws += 1,
        }
        for (_, r) in &mut records {
            r.result = match winner {
                None => 0,
                Some(w) if w == r.side => 1,
                Some(_) => -1,
            };
        }
        Game { records, counts }
    }
}

/// Searches `pos` at the node budget and, when the position passes the
/// filters, keeps it; returns the best move.
fn search_and_keep(
    engine: &mut Engine,
    pos: &mut Position,
    args: &DatagenArgs,
    kept: &mut Vec<(u64, Record)>,
    counts: &mut Counts,
) -> Option<Move> {
    let limits = Limits {
        nodes: Some(args.nodes),
        ..Limits::default()
    };
    engine.start(pos.clone(), limits, Box::new(|_| {}));
    let result = engine.wait();
    let best = result.best?;
    counts.seen += 1;
    match keep(pos, best, result.score, result.rule.is_some()) {
        Keep::Yes(cp) => kept.push((pos.key(), Record::new(pos, cp, 0))),
        Keep::InCheck => counts.in_check += 1,
        Keep::Decided => counts.decided += 1,
        Keep::CaptureBest => counts.capture_best += 1,
        Keep::NotQuiet => counts.not_quiet += 1,
    }
    Some(best)
}

/// Scores the positions of one recorded game (see the module
/// documentation).
fn score_game(engine: &mut Engine, game: &PgnGame, args: &DatagenArgs) -> Game {
    let winner = match game.result() {
        GameResult::RedWins => Some(Color::Red),
        GameResult::BlackWins => Some(Color::Black),
        GameResult::Draw => None,
        GameResult::Unknown => return Game::unusable(),
    };
    let Ok((mut pos, moves)) = game.replay() else {
        return Game::unusable();
    };
    engine.new_game();
    let mut counts = Counts::default();
    let mut kept = Vec::new();
    for m in moves {
        if matches!(pos.outcome(), Outcome::Decided { .. }) {
            break;
        }
        if search_and_keep(engine, &mut pos, args, &mut kept, &mut counts).is_none() {
            break;
        }
        pos.make_move(m);
    }
    Game::finish(kept, counts, winner)
}

/// Plays one self-play game and returns its kept positions, each labelled
/// with the game's result from its side to move's view.
fn play_game(engine: &mut Engine, openings: &[Position], args: &DatagenArgs, seed: u64) -> Game {
    let mut rng = SplitMix(seed);
    let mut pos = openings[rng.below(openings.len())].clone();
    let extra = rng.below(args.random_plies as usize + 1);
    for _ in 0..extra {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        pos.make_move(moves[rng.below(moves.len())]);
    }
    engine.new_game();
    let mut counts = Counts::default();
    let mut kept: Vec<(u64, Record)> = Vec::new();
    let mut plies = 0;
    let winner = loop {
        if let Outcome::Decided { winner, .. } = pos.outcome() {
            break winner;
        }
        if plies >= args.max_plies {
            counts.adjudicated += 1;
            break None;
        }
        let Some(best) = search_and_keep(engine, &mut pos, args, &mut kept, &mut counts) else {
            // Only a position without legal moves has no best move, and
            // `outcome` has judged those already; stop rather than loop.
            break None;
        };
        pos.make_move(best);
        plies += 1;
    };
    Game::finish(kept, counts, winner)
}

/// The verdict on one searched position.
enum Keep {
    Yes(i16),
    InCheck,
    Decided,
    CaptureBest,
    NotQuiet,
}

fn keep(pos: &mut Position, best: Move, score: Score, by_rule: bool) -> Keep {
    if pos.in_check() {
        return Keep::InCheck;
    }
    let cp = match score {
        Score::Cp(cp) if !by_rule => cp,
        _ => return Keep::Decided,
    };
    if pos.is_capture(best) {
        return Keep::CaptureBest;
    }
    if !is_quiet(pos) {
        return Keep::NotQuiet;
    }
    #[allow(clippy::cast_possible_truncation)]
    Keep::Yes(cp.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16)
}

/// Nodes a quietness test may spend before it calls the position noisy.
const QUIET_NODE_CAP: u32 = 2000;

/// Whether a capture search over the static evaluation returns the static
/// evaluation itself: no capture sequence changes the score.
pub(crate) fn is_quiet(pos: &mut Position) -> bool {
    let stand = engine::evaluate(pos);
    let mut budget = QUIET_NODE_CAP;
    qsearch(pos, -engine::INFINITE, engine::INFINITE, &mut budget) == Some(stand)
}

/// Fail-hard capture search (stand pat, captures ordered most valuable
/// victim first); `None` when the node budget runs out.
fn qsearch(pos: &mut Position, mut alpha: i32, beta: i32, budget: &mut u32) -> Option<i32> {
    *budget = budget.checked_sub(1)?;
    let stand = engine::evaluate(pos);
    if stand >= beta {
        return Some(stand);
    }
    alpha = alpha.max(stand);
    let mut captures: Vec<Move> = pos.legal_captures().iter().copied().collect();
    let value = |pos: &Position, m: Move| {
        pos.piece_at(m.to())
            .map_or(0, |p| engine::PIECE_VALUE[p.kind().index()])
    };
    captures.sort_by_key(|&m| -value(pos, m));
    for m in captures {
        pos.make_move(m);
        let score = qsearch(pos, -beta, -alpha, budget).map(|s| -s);
        pos.unmake_move();
        let score = score?;
        if score >= beta {
            return Some(score);
        }
        alpha = alpha.max(score);
    }
    Some(alpha)
}

#[cfg(test)]
mod tests;
