//! `mock-engine`: a tiny UCCI/UCI engine for testing the arena. It plays
//! legal moves (captures first, otherwise a choice derived from the
//! position key) and can be told to misbehave on a chosen move of each game:
//!
//! ```text
//! mock-engine [--mode normal|illegal|garbage|crash|hang|slow|nomove] [--after N]
//!             [--score CP] [--pid-dir DIR] [--ignore-quit] [--seconds] [--log FILE]
//!             [--delay MS]
//! ```
//!
//! * `--after N`: behave for the first N moves of each game, then apply the
//!   mode on move N + 1 (default 2).
//! * `illegal`: a well-formed but illegal move; `garbage`: an unreadable
//!   move; `crash`: exit with status 3; `hang`: never answer again (and
//!   ignore `quit`); `slow`: answer only after the whole clock plus 300 ms;
//!   `nomove`: claim there is no move.
//! * `--score CP`: the score reported in every `info` line (default 0).
//! * `--pid-dir DIR`: write an empty file named after the process id there,
//!   so a test can check that every process started has ended.
//! * `--ignore-quit`: do not exit on `quit` (only EOF or a kill end it).
//! * `--seconds`: do not advertise UCCI `usemillisec` (clock values then
//!   come in seconds).
//! * `--log FILE`: append every line received to FILE.
//! * `--delay MS`: think this long before every move (so that a test can
//!   catch games in progress).

use std::io::{BufRead, Write};
use std::thread;
use std::time::Duration;

use board::{Move, Position, Square};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Normal,
    Illegal,
    Garbage,
    Crash,
    Hang,
    Slow,
    NoMove,
}

struct Config {
    mode: Mode,
    after: usize,
    score: i32,
    ignore_quit: bool,
    seconds: bool,
    log: Option<std::fs::File>,
    delay: Duration,
}

fn parse_args() -> Config {
    let mut cfg = Config {
        mode: Mode::Normal,
        after: 2,
        score: 0,
        ignore_quit: false,
        seconds: false,
        log: None,
        delay: Duration::ZERO,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--mode" => {
                cfg.mode = match value.as_str() {
                    "illegal" => Mode::Illegal,
                    "garbage" => Mode::Garbage,
                    "crash" => Mode::Crash,
                    "hang" => Mode::Hang,
                    "slow" => Mode::Slow,
                    "nomove" => Mode::NoMove,
                    _ => Mode::Normal,
                };
                i += 1;
            }
            "--after" => {
                cfg.after = value.parse().unwrap_or(2);
                i += 1;
            }
            "--score" => {
                cfg.score = value.parse().unwrap_or(0);
                i += 1;
            }
            "--pid-dir" => {
                let _ = std::fs::write(
                    std::path::Path::new(&value).join(std::process::id().to_string()),
                    "",
                );
                i += 1;
            }
            "--delay" => {
                cfg.delay = Duration::from_millis(value.parse().unwrap_or(0));
                i += 1;
            }
            "--ignore-quit" => cfg.ignore_quit = true,
            "--seconds" => cfg.seconds = true,
            "--log" => {
                cfg.log = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&value)
                    .ok();
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    cfg
}

/// Reads `position {startpos | fen <FEN>} [moves …]`; `None` when invalid.
fn parse_position(line: &str) -> Option<Position> {
    let rest = line.trim().strip_prefix("position")?.trim();
    let (setup, moves) = match rest.split_once("moves") {
        Some((s, m)) => (s.trim(), m),
        None => (rest, ""),
    };
    let mut pos = if setup == "startpos" {
        Position::startpos()
    } else {
        Position::from_fen(setup.strip_prefix("fen")?.trim()).ok()?
    };
    for text in moves.split_whitespace() {
        let m = pos.parse_move(text).ok()?;
        pos.play(m).ok()?;
    }
    Some(pos)
}

/// A capture of the most valuable piece if any, else a move picked by the
/// position key: deterministic, cheap, and games still end.
fn choose(pos: &Position) -> Option<Move> {
    let moves = pos.legal_moves();
    let value = |m: &Move| pos.piece_at(m.to()).map_or(0, |p| 1 + p.kind().index());
    if let Some(best) = moves
        .iter()
        .filter(|m| value(m) > 0)
        .max_by_key(|m| value(m))
    {
        return Some(*best);
    }
    let n = u64::try_from(moves.len()).ok()?;
    if n == 0 {
        return None;
    }
    moves.get(usize::try_from(pos.key() % n).ok()?).copied()
}

/// A well-formed move that is not legal here.
fn illegal(pos: &Position) -> Move {
    for from in 0..90 {
        for to in 0..90 {
            if let (Some(f), Some(t)) = (Square::from_index(from), Square::from_index(to))
                && let Some(m) = Move::new(f, t)
                && !pos.is_legal(m)
            {
                return m;
            }
        }
    }
    Move::new_panicking(
        Square::from_index(0).unwrap_or_else(|| unreachable!()),
        Square::from_index(1).unwrap_or_else(|| unreachable!()),
    )
}

/// The clock of the side to move in a `go` line, in ms.
fn clock_ms(go: &str, pos: &Position) -> u64 {
    let words: Vec<&str> = go.split_whitespace().collect();
    let key = match (words.contains(&"time"), pos.side_to_move()) {
        (true, _) => "time",
        (false, board::Color::Red) => "wtime",
        (false, board::Color::Black) => "btime",
    };
    words
        .iter()
        .position(|w| *w == key)
        .and_then(|i| words.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

fn main() {
    let mut cfg = parse_args();
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut ucci = true;
    let mut pos: Option<Position> = Some(Position::startpos());
    let mut moves_this_game = 0usize;
    let say = |out: &mut std::io::Stdout, s: &str| {
        let _ = writeln!(out, "{s}");
        let _ = out.flush();
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if let Some(log) = &mut cfg.log {
            let _ = writeln!(log, "{line}");
        }
        let cmd = line.split_whitespace().next().unwrap_or("");
        match cmd {
            "ucci" => {
                ucci = true;
                say(&mut out, "id name Mock");
                if !cfg.seconds {
                    say(&mut out, "option usemillisec type check default false");
                }
                say(&mut out, "ucciok");
            }
            "uci" => {
                ucci = false;
                say(&mut out, "id name Mock");
                say(&mut out, "uciok");
            }
            "isready" => say(&mut out, "readyok"),
            "ucinewgame" => moves_this_game = 0,
            "setoption" if line.contains("newgame") => moves_this_game = 0,
            "position" => pos = parse_position(&line),
            "go" => {
                moves_this_game += 1;
                let mode = if moves_this_game > cfg.after {
                    cfg.mode
                } else {
                    Mode::Normal
                };
                let Some(p) = &pos else {
                    say(
                        &mut out,
                        if ucci {
                            "nobestmove"
                        } else {
                            "bestmove (none)"
                        },
                    );
                    continue;
                };
                match mode {
                    Mode::Crash => std::process::exit(3),
                    Mode::Hang => loop {
                        thread::sleep(Duration::from_secs(3600));
                    },
                    Mode::Slow => thread::sleep(Duration::from_millis(clock_ms(&line, p) + 300)),
                    _ => thread::sleep(cfg.delay),
                }
                let score = if ucci {
                    format!("score {}", cfg.score)
                } else {
                    format!("score cp {}", cfg.score)
                };
                let best = match (mode, choose(p)) {
                    (Mode::Illegal, _) => format!("bestmove {}", illegal(p)),
                    (Mode::Garbage, _) => "bestmove zz99".to_string(),
                    (Mode::NoMove, _) | (_, None) => (if ucci {
                        "nobestmove"
                    } else {
                        "bestmove (none)"
                    })
                    .to_string(),
                    (_, Some(m)) => {
                        say(&mut out, &format!("info depth 1 {score} pv {m}"));
                        format!("bestmove {m}")
                    }
                };
                say(&mut out, &best);
            }
            "quit" if !cfg.ignore_quit => {
                if ucci {
                    say(&mut out, "bye");
                }
                return;
            }
            _ => {}
        }
    }
}
