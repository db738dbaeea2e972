//! One game between two engines: the arena's clocks, legality of every
//! move, the rules' verdicts (`Position::outcome`), and the record of how it
//! ended; score adjudication is asked after every move (`adjudication`). Faults of an engine (crash, hang, flag fall,
//! illegal or unreadable move) lose the game for it; a crashed or hung
//! process is discarded and restarted for its next game.

use std::fmt;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use board::{ByColor, Color, GameResult, Move, Outcome, Position, Reason};

use crossbeam_channel::{Receiver, TryRecvError};

mod adjudication;

use crate::child::{EngineProcess, SearchFailure};
use crate::config::{DrawRule, EngineSpec, Protocol, ResignRule, TimeControl};
use crate::openings::Opening;
use adjudication::adjudicate_scores;

/// Why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// A rule of the game (mate, stalemate, repetition, move limit,
    /// material), judged by the `board` crate.
    Rule(Reason),
    /// The engine answered, but after its clock (plus margin) ran out, or
    /// after the per-move timeout of a depth/nodes game.
    TimeForfeit,
    /// The engine gave no final line at all, even after `stop`.
    Unresponsive,
    /// The engine played a well-formed move that is not legal.
    IllegalMove,
    /// The engine's final line or move could not be read.
    UnparsableReply,
    /// The engine said it had no move although legal moves exist.
    NoMove,
    /// The engine process exited or could not be (re)started.
    Crash,
    /// Both engines' scores agreed that one side is lost.
    ResignAdjudication,
    /// Both engines' scores agreed that the game is level.
    DrawAdjudication,
    /// The arena's cap on game length was reached.
    PlyLimit,
}

impl Termination {
    /// Whether an engine broke the game (as opposed to the game ending).
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            Termination::TimeForfeit
                | Termination::Unresponsive
                | Termination::IllegalMove
                | Termination::UnparsableReply
                | Termination::NoMove
                | Termination::Crash
        )
    }
}

impl fmt::Display for Termination {
    /// The text of the PGN `Termination` tag.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Termination::Rule(reason) => f.write_str(reason.name()),
            Termination::TimeForfeit => f.write_str("time forfeit"),
            Termination::Unresponsive => f.write_str("unresponsive engine"),
            Termination::IllegalMove => f.write_str("illegal move"),
            Termination::UnparsableReply => f.write_str("unparsable reply"),
            Termination::NoMove => f.write_str("no move"),
            Termination::Crash => f.write_str("engine crash"),
            Termination::ResignAdjudication => f.write_str("adjudication: resign"),
            Termination::DrawAdjudication => f.write_str("adjudication: draw"),
            Termination::PlyLimit => f.write_str("ply limit"),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Red engine's name.
    pub red: String,
    /// Black engine's name.
    pub black: String,
    /// The start position in FEN.
    pub start_fen: String,
    /// The full-move number of the start position.
    pub start_fullmove: u16,
    /// The side to move at the start.
    pub start_side: Color,
    /// The moves played, all legal.
    pub moves: Vec<Move>,
    /// The result.
    pub result: GameResult,
    /// Why it ended.
    pub termination: Termination,
    /// A sentence saying who did what (for the PGN comment and the log).
    pub detail: String,
}

/// How games are played and judged, the same for every game.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Thinking time.
    pub tc: TimeControl,
    /// Slack added to a clock before the flag falls (pipe and scheduling
    /// delays are charged to the engine otherwise).
    pub margin: Duration,
    /// How long to wait after `stop` for a late final line, and after
    /// `quit` before killing.
    pub grace: Duration,
    /// The longest a depth- or nodes-limited move may take.
    pub move_timeout: Duration,
    /// Optional score-based resignation.
    pub resign: Option<ResignRule>,
    /// Optional score-based draw.
    pub draw: Option<DrawRule>,
    /// Plies after which a game is declared drawn (a safety net: the rules
    /// end every game well before).
    pub max_plies: usize,
}

/// One engine seat: the settings and, while it runs, the process.
pub struct Seat {
    spec: EngineSpec,
    engine: Option<EngineProcess>,
    /// Disconnected when the run is interrupted (see [`EngineProcess`]).
    cancel: Receiver<()>,
}

impl Seat {
    /// A seat whose process is started on first use.
    pub fn new(spec: EngineSpec, cancel: Receiver<()>) -> Seat {
        Seat {
            spec,
            engine: None,
            cancel,
        }
    }

    /// Whether the run is being interrupted.
    fn interrupted(&self) -> bool {
        matches!(self.cancel.try_recv(), Err(TryRecvError::Disconnected))
    }

    /// The engine's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// Starts the process if needed and begins a new game.
    fn begin_game(&mut self) -> anyhow::Result<&mut EngineProcess> {
        // A process that died since its last game (after its final move,
        // say) gets one fresh start before the game is lost.
        let alive = self.engine.as_mut().is_some_and(|e| e.new_game().is_ok());
        if !alive {
            self.engine = None;
            let mut engine = EngineProcess::start(&self.spec, &self.cancel)?;
            engine.new_game()?;
            self.engine = Some(engine);
        }
        self.engine
            .as_mut()
            .ok_or_else(|| anyhow::anyhow!("engine '{}' vanished", self.spec.name))
    }

    /// Kills and reaps a broken process; the next game starts a new one.
    fn discard(&mut self) {
        self.engine = None;
    }

    /// Ends the process politely (`quit`, then kill after `grace`).
    pub fn shutdown(&mut self, grace: Duration) {
        if let Some(engine) = self.engine.take() {
            engine.quit(grace);
        }
    }
}

fn side_name(color: Color) -> &'static str {
    match color {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

/// The `go` line for the side to move and the time it may take.
fn go_command(
    engine: &EngineProcess,
    settings: &GameSettings,
    clocks: &ByColor<Duration>,
    side: Color,
) -> (String, Duration) {
    match settings.tc {
        TimeControl::Clock { increment, .. } => {
            let ms = |d: Duration| d.as_millis().max(1);
            let line = match engine.spec().protocol {
                Protocol::Uci => format!(
                    "go wtime {} btime {} winc {} binc {}",
                    ms(clocks[Color::Red]),
                    ms(clocks[Color::Black]),
                    increment.as_millis(),
                    increment.as_millis()
                ),
                Protocol::Ucci => {
                    // An engine without `usemillisec` reads whole seconds:
                    // the clock is rounded down (never promising time it
                    // does not have) but sent as at least 1, since some
                    // engines read `time 0` as "no clock"; the increment is
                    // rounded down. Engines that advertise `usemillisec`
                    // have it switched on and get milliseconds.
                    let unit = |d: Duration| {
                        if engine.uses_millis() {
                            d.as_millis().max(1)
                        } else {
                            u128::from(d.as_secs().max(1))
                        }
                    };
                    let inc = |d: Duration| {
                        if engine.uses_millis() {
                            d.as_millis()
                        } else {
                            u128::from(d.as_secs())
                        }
                    };
                    format!(
                        "go time {} increment {} opptime {} oppincrement {}",
                        unit(clocks[side]),
                        inc(increment),
                        unit(clocks[!side]),
                        inc(increment)
                    )
                }
            };
            (line, clocks[side] + settings.margin)
        }
        TimeControl::Depth(d) => (format!("go depth {d}"), settings.move_timeout),
        TimeControl::Nodes(n) => (format!("go nodes {n}"), settings.move_timeout),
    }
}

/// The `position` line for the game so far.
fn position_command(start_fen: &str, moves: &[Move]) -> String {
    let mut line = format!("position fen {start_fen}");
    if !moves.is_empty() {
        line.push_str(" moves");
        for m in moves {
            let _ = write!(line, " {m}");
        }
    }
    line
}

/// How a game ended: the result, why, and a sentence saying who did what.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Ending {
    result: GameResult,
    termination: Termination,
    detail: String,
}

impl Ending {
    /// `side` broke the game and loses it.
    fn fault(side: Color, termination: Termination, detail: String) -> Ending {
        Ending {
            result: GameResult::win_for(!side),
            termination,
            detail,
        }
    }
}

/// Why the game loop stopped before the game went on.
enum Stop {
    /// The game is over.
    Over(Ending),
    /// The run is being interrupted; the game counts for nothing.
    Interrupted,
}

/// Why the side to move did not play a move.
enum TurnEnd {
    /// It broke the game (see [`Termination::is_fault`]) and loses.
    Fault(Termination, String),
    /// The run is being interrupted.
    Interrupted,
}

/// Plays one game from `opening` with `seats.red` as Red and `seats.black`
/// as Black. `None` when the run was interrupted before the game ended.
pub fn play_game(
    mut seats: ByColor<&mut Seat>,
    opening: &Opening,
    settings: &GameSettings,
) -> Option<GameRecord> {
    let start = &opening.position;
    let start_fen = start.fen();
    let mut moves = Vec::new();
    let Stop::Over(ending) = play_moves(&mut seats, start, &start_fen, &mut moves, settings) else {
        return None;
    };
    Some(GameRecord {
        red: seats[Color::Red].name().to_string(),
        black: seats[Color::Black].name().to_string(),
        start_fen,
        start_fullmove: start.fullmove_number(),
        start_side: start.side_to_move(),
        moves,
        result: ending.result,
        termination: ending.termination,
        detail: ending.detail,
    })
}

/// The game itself: starts both engines, then asks the side to move for a
/// move until a rule, a fault or an adjudication ends it. `moves` receives
/// every legal move played.
fn play_moves(
    seats: &mut ByColor<&mut Seat>,
    start: &Position,
    start_fen: &str,
    moves: &mut Vec<Move>,
    settings: &GameSettings,
) -> Stop {
    // 1. Start (or restart) both engines; one that cannot start loses.
    for color in Color::ALL {
        if let Err(e) = seats[color].begin_game() {
            if seats[color].interrupted() {
                return Stop::Interrupted;
            }
            let detail = format!(
                "{} ({}) could not start: {e:#}",
                side_name(color),
                seats[color].name()
            );
            return Stop::Over(Ending::fault(color, Termination::Crash, detail));
        }
    }
    let base = match settings.tc {
        TimeControl::Clock { base, .. } => base,
        _ => Duration::ZERO,
    };
    let mut clocks = ByColor {
        red: base,
        black: base,
    };
    let mut pos = start.clone();
    let mut scores: Vec<Option<i32>> = Vec::new();
    // 2. Until the game ends: the rules first, then the mover's turn, then
    //    the engines' scores.
    loop {
        if let Some(ending) = rule_ending(&pos, moves.len(), settings) {
            return Stop::Over(ending);
        }
        let side = pos.side_to_move();
        let turn = Turn {
            side,
            start_fen,
            moves,
            settings,
        };
        let (m, score) = match turn.play(seats[side], &mut pos, &mut clocks) {
            Ok(played) => played,
            Err(TurnEnd::Fault(termination, detail)) => {
                return Stop::Over(Ending::fault(side, termination, detail));
            }
            Err(TurnEnd::Interrupted) => return Stop::Interrupted,
        };
        moves.push(m);
        scores.push(score);
        if let Some((result, termination)) = adjudicate_scores(&scores, &pos, settings) {
            let detail = match result {
                GameResult::Draw => "draw agreed by both engines' scores".to_string(),
                _ => format!(
                    "{} resigns: both engines' scores agree",
                    side_name(if result == GameResult::RedWins {
                        Color::Black
                    } else {
                        Color::Red
                    })
                ),
            };
            return Stop::Over(Ending {
                result,
                termination,
                detail,
            });
        }
    }
}

/// The end the rules (or the arena's ply cap) give a game in `pos` after
/// `plies` moves, if any.
fn rule_ending(pos: &Position, plies: usize, settings: &GameSettings) -> Option<Ending> {
    if let Outcome::Decided { winner, reason } = pos.outcome() {
        let (result, detail) = match winner {
            Some(w) => (
                GameResult::win_for(w),
                format!("{} wins by {reason}", side_name(w)),
            ),
            None => (GameResult::Draw, format!("draw by {reason}")),
        };
        return Some(Ending {
            result,
            termination: Termination::Rule(reason),
            detail,
        });
    }
    (plies >= settings.max_plies).then(|| Ending {
        result: GameResult::Draw,
        termination: Termination::PlyLimit,
        detail: format!("draw: game reached the cap of {} plies", settings.max_plies),
    })
}

/// One move of the game: what the side to move is told.
struct Turn<'a> {
    side: Color,
    start_fen: &'a str,
    moves: &'a [Move],
    settings: &'a GameSettings,
}

impl Turn<'_> {
    /// Asks `seat` for its move, charges its clock, and plays the move on
    /// `pos`. Returns the move and the mover's score, or the fault that
    /// loses the game for it.
    fn play(
        &self,
        seat: &mut Seat,
        pos: &mut Position,
        clocks: &mut ByColor<Duration>,
    ) -> Result<(Move, Option<i32>), TurnEnd> {
        let side = self.side;
        let settings = self.settings;
        let who = format!("{} ({})", side_name(side), seat.name());
        let Some(engine) = seat.engine.as_mut() else {
            let detail = format!("{who} has no running process");
            return Err(TurnEnd::Fault(Termination::Crash, detail));
        };
        let (go, allowed) = go_command(engine, settings, clocks, side);
        let position = position_command(self.start_fen, self.moves);
        let reply = match engine.search(&position, &go, Instant::now() + allowed, settings.grace) {
            Ok(reply) => reply,
            Err(SearchFailure::Crashed(how)) => {
                seat.discard();
                let detail = format!("{who} crashed: {how}");
                return Err(TurnEnd::Fault(Termination::Crash, detail));
            }
            Err(SearchFailure::Hung) => {
                seat.discard();
                let detail = format!(
                    "{who} gave no move within {} ms nor after stop",
                    allowed.as_millis()
                );
                return Err(TurnEnd::Fault(Termination::Unresponsive, detail));
            }
            Err(SearchFailure::Interrupted) => return Err(TurnEnd::Interrupted),
        };
        if reply.elapsed > allowed {
            let detail = format!(
                "{who} lost on time: {} ms used, {} ms allowed",
                reply.elapsed.as_millis(),
                allowed.as_millis()
            );
            return Err(TurnEnd::Fault(Termination::TimeForfeit, detail));
        }
        if let TimeControl::Clock { increment, .. } = settings.tc {
            clocks[side] = clocks[side].saturating_sub(reply.elapsed) + increment;
        }
        let text = match reply.best {
            Ok(Some(text)) => text,
            Ok(None) => {
                let detail = format!("{who} claimed to have no move");
                return Err(TurnEnd::Fault(Termination::NoMove, detail));
            }
            Err(line) => {
                let detail = format!(
                    "{who} sent an unreadable final line '{}'",
                    line.chars().take(60).collect::<String>()
                );
                return Err(TurnEnd::Fault(Termination::UnparsableReply, detail));
            }
        };
        let Ok(m) = text.parse::<Move>() else {
            let detail = format!(
                "{who} sent an unreadable move '{}'",
                text.chars().take(60).collect::<String>()
            );
            return Err(TurnEnd::Fault(Termination::UnparsableReply, detail));
        };
        if pos.play(m).is_err() {
            let detail = format!("{who} played the illegal move {m}");
            return Err(TurnEnd::Fault(Termination::IllegalMove, detail));
        }
        Ok((m, reply.score.map(crate::child::Score::centipawns)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_lines() {
        let moves = vec!["h2e2".parse().unwrap(), "h9g7".parse().unwrap()];
        assert_eq!(
            position_command("F w - - 0 1", &[]),
            "position fen F w - - 0 1"
        );
        assert_eq!(
            position_command("F w - - 0 1", &moves),
            "position fen F w - - 0 1 moves h2e2 h9g7"
        );
    }
}
