//! `chariot book`: build an opening book from game records, dump it as text,
//! import text back, probe a position (Chariot books and ElephantEye
//! `BOOK.DAT` alike), and check the Chinese-notation reader against a list
//! of the same games in ICCS. Files ending in `.xz` are decompressed
//! in-process by `book::pgn::read_text` (the `liblzma` crate). `build` and
//! `import` read files of cases: malformed records and exit statuses as
//! [`crate::cases`] says. Wherever a book file is read, `<builtin>` names
//! the book compiled into the binary, as in the `bookfiles` option.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use board::{Move, Position, START_FEN};
use book::builder::{BookBuilder, BuildOptions, SkipReason};
use book::notation::{self, NotationError};
use book::pgn::{self, PgnGame, ReplayError};
use book::{AnyBook, Book, text};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::cases::{Leniency, Malformed};

/// Arguments of `chariot book`.
#[derive(clap::Args)]
pub struct BookArgs {
    #[command(subcommand)]
    command: BookCommand,
}

#[derive(clap::Subcommand)]
enum BookCommand {
    /// Build a book from game records (PGN with Chinese, WXF or ICCS moves,
    /// or a tab-separated ICCS list `game result plies moves`; `.xz` ok).
    Build {
        /// The book file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        /// Count only the first N plies of each game.
        #[arg(long, value_name = "N", default_value_t = BuildOptions::default().max_ply)]
        max_ply: usize,
        /// Keep a move only if it was played in at least N games.
        #[arg(long, value_name = "N", default_value_t = BuildOptions::default().min_games)]
        min_games: u32,
        /// Game files.
        #[arg(required = true)]
        games: Vec<PathBuf>,
        #[command(flatten)]
        leniency: Leniency,
    },
    /// Print a book as text: FEN, move, weight, wins, draws, losses.
    Dump {
        /// A Chariot book (`<builtin>`: the book compiled into the binary).
        file: PathBuf,
    },
    /// Read the text form back into a book file.
    Import {
        /// The text (as `book dump` writes it).
        text: PathBuf,
        /// The book file to write.
        #[arg(long, value_name = "FILE")]
        out: PathBuf,
        #[command(flatten)]
        leniency: Leniency,
    },
    /// List the book moves of a position (the start position if no FEN).
    Probe {
        /// A Chariot book or an ElephantEye BOOK.DAT (`<builtin>`: the book
        /// compiled into the binary).
        file: PathBuf,
        /// The position (all its fields, quoted or not).
        fen: Vec<String>,
    },
    /// Replay PGN games and compare every move with the same games in ICCS.
    CheckNotation {
        /// The PGN file.
        pgn: PathBuf,
        /// The ICCS list of the same games in the same order.
        tsv: PathBuf,
    },
}

/// Runs the subcommand.
pub fn run(args: &BookArgs) -> ExitCode {
    let outcome = match &args.command {
        BookCommand::Build {
            out,
            max_ply,
            min_games,
            games,
            leniency,
        } => build(
            out,
            BuildOptions {
                max_ply: *max_ply,
                min_games: *min_games,
            },
            games,
            Malformed::new("book build", *leniency),
        ),
        BookCommand::Dump { file } => dump(file),
        BookCommand::Import {
            text,
            out,
            leniency,
        } => import(text, out, Malformed::new("book import", *leniency)),
        BookCommand::Probe { file, fen } => probe(file, fen),
        BookCommand::CheckNotation { pgn, tsv } => check_notation(pgn, tsv),
    };
    match outcome {
        Ok(code) => code,
        // A closed pipe (`chariot book dump … | head`) is not an error.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("chariot book: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn is_tsv(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().contains(".tsv"))
}

/// Progress of a long build on stderr: a bar with rate and ETA when stderr
/// is a terminal, plain lines (at most one every [`PLAIN_EVERY`], and one
/// when a file is done) when it is a file or a pipe, as in CI logs.
enum Progress {
    Bar(ProgressBar),
    Plain {
        sink: Box<dyn Write>,
        /// When the current file started and when a line was last written.
        started: Instant,
        last: Instant,
    },
}

/// How often plain progress lines are written.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

impl Progress {
    /// The right kind for this process's stderr.
    fn for_stderr() -> Progress {
        if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:30}] {human_pos}/{human_len} games, {rate}, ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                // The average since the file began: indicatif's own
                // estimate weighs recent steps and drifts once done.
                .with_key(
                    "rate",
                    |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let secs = state.elapsed().as_secs_f64();
                        #[allow(clippy::cast_precision_loss)]
                        let rate = if secs > 0.0 {
                            state.pos() as f64 / secs
                        } else {
                            0.0
                        };
                        let _ = write!(w, "{rate:.0} games/s");
                    },
                )
                .progress_chars("#>-"),
            );
            Progress::Bar(bar)
        } else {
            Progress::plain(Box::new(std::io::stderr()))
        }
    }

    fn plain(sink: Box<dyn Write>) -> Progress {
        Progress::Plain {
            sink,
            started: Instant::now(),
            last: Instant::now(),
        }
    }

    /// A new file of `total` games begins.
    fn start_file(&mut self, label: &str, total: usize) {
        match self {
            Progress::Bar(bar) => {
                bar.reset();
                bar.set_length(total as u64);
                bar.set_message(label.to_string());
            }
            Progress::Plain { started, last, .. } => {
                *started = Instant::now();
                *last = Instant::now();
            }
        }
    }

    fn update(&mut self, label: &str, done: usize, total: usize) {
        match self {
            Progress::Bar(bar) => {
                bar.set_position(done as u64);
                if done == total {
                    bar.finish();
                }
            }
            Progress::Plain {
                sink,
                started,
                last,
            } => {
                if done != total && last.elapsed() < PLAIN_EVERY {
                    return;
                }
                *last = Instant::now();
                let _ = writeln!(
                    sink,
                    "{}",
                    plain_line(label, done, total, started.elapsed())
                );
                let _ = sink.flush();
            }
        }
    }
}

/// One plain progress line: `<file>: <done>/<total> games (<p> %), <r>
/// games/s, ETA <t> s`, or `…, done in <t> s` at the end.
#[allow(clippy::cast_precision_loss)]
fn plain_line(label: &str, done: usize, total: usize, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 { done as f64 / secs } else { 0.0 };
    let percent = if total == 0 {
        100.0
    } else {
        100.0 * done as f64 / total as f64
    };
    let tail = if done >= total {
        format!("done in {secs:.1} s")
    } else if rate > 0.0 {
        format!("ETA {:.0} s", (total - done) as f64 / rate)
    } else {
        "ETA unknown".to_string()
    };
    format!("{label}: {done}/{total} games ({percent:.1} %), {rate:.0} games/s, {tail}")
}

fn skip_reason(e: &ReplayError) -> SkipReason {
    match e {
        ReplayError::BadFen(_) => SkipReason::BadSetup,
        ReplayError::BadMove {
            error: NotationError::Illegal,
            ..
        } => SkipReason::IllegalMove,
        ReplayError::BadMove { .. } => SkipReason::UnreadableMove,
    }
}

fn build(
    out: &Path,
    options: BuildOptions,
    files: &[PathBuf],
    mut malformed: Malformed,
) -> Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let start = Instant::now();
    let mut builder = BookBuilder::new(options);
    let mut progress = Progress::for_stderr();
    for file in files {
        let text = book::pgn::read_text(file)?;
        let label = file
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        if is_tsv(file) {
            let games: Vec<(usize, &str)> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !pgn::is_tsv_filler(l))
                .map(|(n, l)| (n + 1, l))
                .collect();
            progress.start_file(&label, games.len());
            for (i, &(line, record)) in games.iter().enumerate() {
                match pgn::TsvGame::parse(record) {
                    None => {
                        builder.skip(SkipReason::Unreadable);
                        malformed.report(file, line, SkipReason::Unreadable);
                    }
                    Some(game) => {
                        let startpos = Position::startpos();
                        match replay_iccs(&startpos, &game.moves) {
                            Ok(moves) => {
                                let _ = builder.add_game(&startpos, &moves, game.result);
                            }
                            Err((reason, why)) => {
                                builder.skip(reason);
                                malformed.report(file, line, why);
                            }
                        }
                    }
                }
                progress.update(&label, i + 1, games.len());
            }
        } else {
            let games = pgn::parse_games(&text);
            progress.start_file(&label, games.len());
            for (i, game) in games.iter().enumerate() {
                add_pgn_game(&mut builder, game, file, &mut malformed);
                progress.update(&label, i + 1, games.len());
            }
        }
    }
    let (book, summary) = builder.finish();
    if summary.games_read == 0 {
        return Ok(malformed.nothing_to_check(
            files.first().map_or(Path::new(""), PathBuf::as_path),
            "game record",
        ));
    }
    let bytes = book.to_bytes();
    std::fs::write(out, &bytes).with_context(|| format!("cannot write {}", out.display()))?;
    writeln!(stdout, "{summary}")?;
    writeln!(
        stdout,
        "wrote {} ({} bytes) in {} ms{}",
        out.display(),
        bytes.len(),
        start.elapsed().as_millis(),
        malformed.clause()
    )?;
    Ok(malformed.exit(true))
}

/// Counts a PGN game into the book, or names the record that does not
/// replay (a game without a result or a move is skipped by design, and
/// only counted).
fn add_pgn_game(builder: &mut BookBuilder, game: &PgnGame, file: &Path, malformed: &mut Malformed) {
    match game.replay() {
        Ok((start, moves)) => {
            let _ = builder.add_game(&start, &moves, game.result());
        }
        Err(e) => {
            builder.skip(skip_reason(&e));
            malformed.report(file, game.line, format_args!("game record: {e}"));
        }
    }
}

/// Replays a game of an ICCS list: the moves, or why it was skipped with
/// the ply and move at fault.
fn replay_iccs(start: &Position, texts: &[String]) -> Result<Vec<Move>, (SkipReason, String)> {
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(texts.len());
    for (ply, text) in texts.iter().enumerate() {
        let mv = notation::parse_iccs(&pos, text).map_err(|e| {
            let reason = match e {
                NotationError::Illegal => SkipReason::IllegalMove,
                _ => SkipReason::UnreadableMove,
            };
            (reason, format!("ply {}: '{text}': {e}", ply + 1))
        })?;
        pos.make_move(mv);
        moves.push(mv);
    }
    Ok(moves)
}

/// Opens a book file, or the built-in book for `<builtin>`
/// ([`AnyBook::open_named`], as the `bookfiles` option reads it).
fn open_any(path: &Path) -> Result<AnyBook> {
    Ok(match path.to_str() {
        Some(name) => AnyBook::open_named(name)?,
        // Not UTF-8, so not `<builtin>`: a path as it is.
        None => AnyBook::open(path)?,
    })
}

fn read_book(path: &Path) -> Result<Book> {
    match open_any(path)? {
        AnyBook::Chariot(b) => Ok(b),
        AnyBook::Eleeye(_) => bail!(
            "{} is an ElephantEye BOOK.DAT; dump reads Chariot books",
            path.display()
        ),
    }
}

fn dump(path: &Path) -> Result<ExitCode> {
    let book = read_book(path)?;
    let (text, stats) = text::dump(&book);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    eprintln!(
        "{} records: {} with a FEN, {} by key only",
        book.len(),
        stats.with_fen,
        stats.key_only
    );
    Ok(ExitCode::SUCCESS)
}

fn import(path: &Path, out: &Path, mut malformed: Malformed) -> Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let text = book::pgn::read_text(path)?;
    let (book, errors) = text::import_each(&text);
    for e in &errors {
        match e {
            book::BookError::Text { line, message } => malformed.report(path, *line, message),
            other => malformed.report(path, 0, other),
        }
    }
    let book = book.with_context(|| format!("in {}", path.display()))?;
    if book.is_empty() {
        return Ok(malformed.nothing_to_check(path, "book line"));
    }
    let bytes = book.to_bytes();
    std::fs::write(out, &bytes).with_context(|| format!("cannot write {}", out.display()))?;
    writeln!(
        stdout,
        "wrote {} ({} records, {} positions, {} bytes){}",
        out.display(),
        book.len(),
        book.positions(),
        bytes.len(),
        malformed.clause()
    )?;
    Ok(malformed.exit(true))
}

fn probe(path: &Path, fen: &[String]) -> Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let book = open_any(path)?;
    let fen = if fen.is_empty() {
        START_FEN.to_string()
    } else {
        fen.join(" ")
    };
    let pos = Position::from_fen(&fen).with_context(|| format!("invalid FEN '{fen}'"))?;
    let moves = book.probe(&pos);
    if moves.is_empty() {
        writeln!(stdout, "no book moves")?;
    }
    let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
    for m in &moves {
        #[allow(clippy::cast_precision_loss)]
        let share = if total == 0 {
            0.0
        } else {
            100.0 * f64::from(m.weight) / total as f64
        };
        match m.wdl {
            Some(w) => writeln!(
                stdout,
                "{} weight {} ({share:.1}%) wins {} draws {} losses {}",
                m.mv, m.weight, w.wins, w.draws, w.losses
            )?,
            None => writeln!(stdout, "{} weight {} ({share:.1}%)", m.mv, m.weight)?,
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn check_notation(pgn_path: &Path, tsv_path: &Path) -> Result<ExitCode> {
    let mut stdout = std::io::stdout().lock();
    let start = Instant::now();
    let pgn_text = book::pgn::read_text(pgn_path)?;
    let tsv_text = book::pgn::read_text(tsv_path)?;
    let games = pgn::parse_games(&pgn_text);
    let expected: Vec<_> = pgn::parse_tsv(&tsv_text).collect();
    if games.len() != expected.len() {
        writeln!(
            stdout,
            "game counts differ: {} in the PGN, {} in the list",
            games.len(),
            expected.len()
        )?;
    }
    let mut progress = Progress::for_stderr();
    let (mut agree, mut differ) = (0usize, 0usize);
    for (i, (game, want)) in games.iter().zip(&expected).enumerate() {
        let got = game
            .replay()
            .map(|(_, moves)| moves.iter().map(ToString::to_string).collect::<Vec<_>>());
        let ok = match (&got, want) {
            (Ok(moves), Ok(want)) => *moves == want.moves && game.result() == want.result,
            _ => false,
        };
        if ok {
            agree += 1;
        } else {
            differ += 1;
            if differ <= 10 {
                let why = match &got {
                    Err(e) => e.to_string(),
                    Ok(_) => "moves or result differ".to_string(),
                };
                writeln!(stdout, "game {} (line {}): {why}", i + 1, game.line)?;
            }
        }
        progress.update("games", i + 1, games.len());
    }
    writeln!(
        stdout,
        "{agree} of {} games agree, {differ} differ ({} ms)",
        games.len(),
        start.elapsed().as_millis()
    )?;
    Ok(if differ == 0 && games.len() == expected.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strict() -> Malformed {
        Malformed::new("book", Leniency::default())
    }

    const SAMPLE: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../book/tests/data/ccpd-sample.pgn"
    );
    const SAMPLE_TSV: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../book/tests/data/ccpd-sample.iccs.tsv"
    );

    #[test]
    fn plain_progress_lines_have_rate_and_eta() {
        assert_eq!(
            plain_line("g.pgn", 250, 1000, Duration::from_secs(5)),
            "g.pgn: 250/1000 games (25.0 %), 50 games/s, ETA 15 s"
        );
        assert_eq!(
            plain_line("g.pgn", 1000, 1000, Duration::from_millis(2500)),
            "g.pgn: 1000/1000 games (100.0 %), 400 games/s, done in 2.5 s"
        );
        assert_eq!(
            plain_line("e.pgn", 0, 0, Duration::ZERO),
            "e.pgn: 0/0 games (100.0 %), 0 games/s, done in 0.0 s"
        );
        assert!(plain_line("g", 0, 9, Duration::ZERO).ends_with("ETA unknown"));
        // Lines are rate-limited, except the last one of a file.
        let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut p = Progress::plain(Box::new(Shared(buf.clone())));
        p.start_file("g.pgn", 3);
        for done in 1..=3 {
            p.update("g.pgn", done, 3);
        }
        let text = String::from_utf8(buf.lock().unwrap().clone()).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with("g.pgn: 3/3 games (100.0 %), "), "{text}");
    }

    #[test]
    fn build_from_pgn_and_from_iccs_list_agree_and_import_round_trips() {
        let dir = test_support::scratch_dir("book-cli");
        let options = BuildOptions {
            max_ply: 12,
            min_games: 2,
        };
        let (from_pgn, from_tsv) = (dir.join("pgn.book"), dir.join("tsv.book"));
        assert_eq!(
            build(&from_pgn, options, &[PathBuf::from(SAMPLE)], strict()).unwrap(),
            ExitCode::SUCCESS
        );
        assert_eq!(
            build(&from_tsv, options, &[PathBuf::from(SAMPLE_TSV)], strict()).unwrap(),
            ExitCode::SUCCESS
        );
        let bytes = std::fs::read(&from_pgn).unwrap();
        assert_eq!(std::fs::read(&from_tsv).unwrap(), bytes);
        let book = read_book(&from_pgn).unwrap();
        assert!(!book.is_empty());
        let text_path = dir.join("book.txt");
        std::fs::write(&text_path, text::dump(&book).0).unwrap();
        let imported = dir.join("imported.book");
        assert_eq!(
            import(&text_path, &imported, strict()).unwrap(),
            ExitCode::SUCCESS
        );
        assert_eq!(std::fs::read(&imported).unwrap(), bytes);
        assert_eq!(probe(&from_pgn, &[]).unwrap(), ExitCode::SUCCESS);
        assert!(probe(&from_pgn, &["not a fen".to_string()]).is_err());
        assert!(
            build(
                &dir.join("x.book"),
                options,
                &[dir.join("missing.pgn")],
                strict()
            )
            .is_err()
        );
    }
}
