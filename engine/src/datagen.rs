//! Training games: self-play from an opening, and recorded games scored by
//! search. Both produce a [`GameRecord`] (`nnue::games`, specified in
//! `docs/nnue.md` §3): every searched ply keeps the search's score, and
//! which positions teach the network is decided when the data is read
//! ([`crate::nnue::games::Selector`]), not here.
//!
//! Each move is searched by an [`Engine`] through [`Engine::search`], the
//! search a `go` runs (on the caller's thread when the engine has one
//! search thread), with a soft node limit (the search stops after the
//! first iteration that reaches it) under a hard cap. A self-play game
//! ends by the rules (`board`'s `Position::outcome`: mate, stalemate,
//! repetition verdicts, the move limit, insufficient material), or is
//! adjudicated: won when both sides' scores have agreed on a winner by a
//! clear margin for several plies, drawn when they have stayed near zero
//! for long after the opening, or drawn at a ply cap.
//!
//! A game is a function of its seed: the opening, the random plies and
//! (one thread, a node budget, a new game per game) every search, so any
//! game of a data set can be played again.

use board::{Color, GameResult, Move, Outcome, Position};
use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use crate::nnue::games::{GameRecord, Ply};
use crate::score::MATE;
use crate::{Engine, Limits, Score, SearchResult};

/// How self-play games are played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayConfig {
    /// The search stops after the first iteration that has searched this
    /// many nodes.
    pub soft_nodes: u64,
    /// The search stops at this many nodes whatever the iteration.
    pub hard_nodes: u64,
    /// At most this many random legal plies after the opening (the number
    /// is drawn from 0 to this).
    pub random_plies: u32,
    /// A game still going after this many plies is drawn.
    pub max_plies: u32,
    /// Win adjudication: both sides' scores beyond this many centipawns
    /// for the same winner…
    pub win_score: i32,
    /// …for this many plies in a row (0: never adjudicate a win).
    pub win_plies: u32,
    /// Draw adjudication: every score within this many centipawns of zero…
    pub draw_score: i32,
    /// …for this many plies in a row (0: never adjudicate a draw)…
    pub draw_plies: u32,
    /// …once the game has gone this many plies.
    pub draw_after: u32,
}

impl Default for PlayConfig {
    fn default() -> PlayConfig {
        PlayConfig {
            soft_nodes: 2_500,
            hard_nodes: 25_000,
            random_plies: 4,
            max_plies: 400,
            win_score: 1_000,
            win_plies: 8,
            draw_score: 10,
            draw_plies: 16,
            draw_after: 80,
        }
    }
}

impl PlayConfig {
    fn limits(&self) -> Limits {
        Limits {
            soft_nodes: Some(self.soft_nodes),
            nodes: Some(self.hard_nodes.max(self.soft_nodes)),
            ..Limits::default()
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// By the rules.
    Rules,
    /// A win by agreeing scores.
    WinAdjudicated,
    /// A draw by scores near zero.
    DrawAdjudicated,
    /// A draw at the ply cap.
    PlyCap,
    /// A recorded game (a master game, or a stored game searched again):
    /// its moves and result are the record's.
    Recorded,
}

/// A finished game and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedGame {
    /// The record.
    pub record: GameRecord,
    /// How it ended.
    pub ending: Ending,
}

/// The search's score on the raw scale the data stores (`i16`, side to
/// move's view): centipawns, or `±(MATE − plies)` for mates and rule
/// verdicts.
fn raw_score(r: &SearchResult) -> i16 {
    let raw = match r.score {
        Score::Cp(cp) => cp.clamp(-(MATE - 1000), MATE - 1000),
        Score::Mate(n) if n >= 0 => MATE - n,
        Score::Mate(n) => -MATE - n,
    };
    i16::try_from(raw.clamp(-i32::from(i16::MAX), i32::from(i16::MAX))).unwrap_or(0)
}

/// Where a self-play game begins: an opening of the suite drawn by the
/// game's seed, and up to [`PlayConfig::random_plies`] random legal plies
/// after it. The game from there is a function of its start (every search
/// is deterministic at a node budget from a new game), so two games with
/// the same start are the same game, and a run plays each start once.
#[derive(Clone, Debug)]
pub struct GameStart {
    opening: usize,
    random: Vec<Move>,
    /// The opening's FEN: where the record starts.
    fen: String,
    /// The position after the random plies.
    pos: Position,
}

impl GameStart {
    /// The start `seed` draws from `openings`.
    ///
    /// # Panics
    /// When `openings` is empty.
    pub fn draw(openings: &[Position], cfg: &PlayConfig, seed: u64) -> GameStart {
        assert!(!openings.is_empty(), "self-play needs an opening");
        let mut rng = Pcg64Mcg::seed_from_u64(seed);
        let opening = rng.gen_range(0..openings.len());
        let mut pos = openings[opening].clone();
        // Repetition is judged from the game's start: the opening's own
        // history (none, from a FEN) is where the record starts too.
        pos.clear_history();
        let fen = pos.fen();
        let mut random = Vec::new();
        for _ in 0..rng.gen_range(0..=cfg.random_plies) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.gen_range(0..moves.len())];
            random.push(mv);
            pos.make_move(mv);
        }
        GameStart {
            opening,
            random,
            fen,
            pos,
        }
    }

    /// What makes two starts the same: the opening's place in the suite
    /// and the random plies.
    pub fn key(&self) -> (usize, &[Move]) {
        (self.opening, &self.random)
    }
}

/// Plays one self-play game from an opening drawn by `seed` (with up to
/// [`PlayConfig::random_plies`] random plies after it), every move chosen
/// by a search of `engine`, which starts a new game first.
///
/// # Panics
/// When `openings` is empty.
pub fn play_game(
    engine: &mut Engine,
    openings: &[Position],
    cfg: &PlayConfig,
    seed: u64,
) -> PlayedGame {
    play_from(engine, GameStart::draw(openings, cfg, seed), cfg)
}

/// Plays the self-play game that begins at `start` (see [`play_game`]).
pub fn play_from(engine: &mut Engine, start: GameStart, cfg: &PlayConfig) -> PlayedGame {
    let GameStart {
        random,
        fen: start,
        mut pos,
        ..
    } = start;
    let mut plies: Vec<Ply> = random
        .into_iter()
        .map(|mv| Ply { mv, score: None })
        .collect();
    engine.new_game();
    let limits = cfg.limits();
    let mut judge = Adjudicator::new(cfg);
    let (winner, ending) = loop {
        if let Outcome::Decided { winner, .. } = pos.outcome() {
            break (winner, Ending::Rules);
        }
        if plies.len() >= cfg.max_plies as usize {
            break (None, Ending::PlyCap);
        }
        let result = engine.search(pos.clone(), limits.clone(), &mut |_| {});
        // Only a position without legal moves has no best move, and the
        // rules have judged those already; stop rather than loop.
        let Some(best) = result.best else {
            break (None, Ending::Rules);
        };
        let score = raw_score(&result);
        plies.push(Ply {
            mv: best,
            score: Some(score),
        });
        if let Some(verdict) = judge.after(pos.side_to_move(), score, plies.len()) {
            break verdict;
        }
        pos.make_move(best);
    };
    PlayedGame {
        record: GameRecord {
            start,
            plies,
            result: GameResult::won_by(winner),
        },
        ending,
    }
}

/// Scores every position of a recorded game (from `start`, the game's
/// `moves`, its `result`) with a search at `cfg`'s node limits; the
/// game's own moves are kept, not the search's. Stops where the rules end
/// the game or a move is not legal.
pub fn score_game(
    engine: &mut Engine,
    start: &Position,
    moves: &[Move],
    result: GameResult,
    cfg: &PlayConfig,
) -> GameRecord {
    let mut pos = start.clone();
    pos.clear_history();
    let record_start = pos.fen();
    engine.new_game();
    let limits = cfg.limits();
    let mut plies = Vec::new();
    for &mv in moves {
        if matches!(pos.outcome(), Outcome::Decided { .. }) || !pos.is_legal(mv) {
            break;
        }
        let r = engine.search(pos.clone(), limits.clone(), &mut |_| {});
        plies.push(Ply {
            mv,
            score: r.best.map(|_| raw_score(&r)),
        });
        pos.make_move(mv);
    }
    GameRecord {
        start: record_start,
        plies,
        result,
    }
}

/// Win and draw adjudication by the scores of consecutive plies.
struct Adjudicator<'a> {
    cfg: &'a PlayConfig,
    /// Plies in a row whose score (Red's view) says Red wins / Black wins.
    red_ahead: u32,
    black_ahead: u32,
    /// Plies in a row with a score near zero.
    level: u32,
}

impl Adjudicator<'_> {
    fn new(cfg: &PlayConfig) -> Adjudicator<'_> {
        Adjudicator {
            cfg,
            red_ahead: 0,
            black_ahead: 0,
            level: 0,
        }
    }

    /// Takes the score of ply `ply` (1-based), searched with `side` to
    /// move, and says whether the game is decided now.
    fn after(&mut self, side: Color, score: i16, ply: usize) -> Option<(Option<Color>, Ending)> {
        let red = if side == Color::Red {
            i32::from(score)
        } else {
            -i32::from(score)
        };
        let c = self.cfg;
        let step = |n: &mut u32, yes: bool| *n = if yes { *n + 1 } else { 0 };
        step(&mut self.red_ahead, red >= c.win_score);
        step(&mut self.black_ahead, red <= -c.win_score);
        step(&mut self.level, red.abs() <= c.draw_score);
        if c.win_plies > 0 && self.red_ahead >= c.win_plies {
            return Some((Some(Color::Red), Ending::WinAdjudicated));
        }
        if c.win_plies > 0 && self.black_ahead >= c.win_plies {
            return Some((Some(Color::Black), Ending::WinAdjudicated));
        }
        let late = ply >= c.draw_after as usize;
        (c.draw_plies > 0 && late && self.level >= c.draw_plies)
            .then_some((None, Ending::DrawAdjudicated))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_stored_on_the_search_scale() {
        let r = |score| SearchResult {
            score,
            ..SearchResult::empty()
        };
        assert_eq!(raw_score(&r(Score::Cp(-57))), -57);
        assert_eq!(
            raw_score(&r(Score::Mate(3))),
            i16::try_from(MATE - 3).unwrap()
        );
        assert_eq!(
            raw_score(&r(Score::Mate(-4))),
            i16::try_from(-(MATE - 4)).unwrap()
        );
    }

    #[test]
    fn adjudication_needs_both_sides_to_agree_for_long_enough() {
        let cfg = PlayConfig {
            win_plies: 4,
            draw_plies: 3,
            draw_after: 10,
            ..PlayConfig::default()
        };
        // Red to move says +1200, Black to move says −1200: both see Red
        // winning; four plies decide.
        let mut a = Adjudicator::new(&cfg);
        let mut side = Color::Red;
        let mut verdict = None;
        for ply in 1..=4 {
            let s = if side == Color::Red { 1200 } else { -1200 };
            verdict = a.after(side, s, ply);
            side = !side;
        }
        assert_eq!(verdict, Some((Some(Color::Red), Ending::WinAdjudicated)));
        // A disagreeing ply resets the count.
        let mut a = Adjudicator::new(&cfg);
        assert_eq!(a.after(Color::Red, 1200, 1), None);
        assert_eq!(a.after(Color::Black, 300, 2), None);
        assert_eq!(a.after(Color::Red, 1200, 3), None);
        assert_eq!(a.after(Color::Black, -1200, 4), None);
        // Draws only after `draw_after` plies.
        let mut a = Adjudicator::new(&cfg);
        assert_eq!(a.after(Color::Red, 0, 1), None);
        assert_eq!(a.after(Color::Black, 5, 2), None);
        assert_eq!(a.after(Color::Red, -3, 3), None);
        let mut a = Adjudicator::new(&cfg);
        assert_eq!(a.after(Color::Red, 0, 10), None);
        assert_eq!(a.after(Color::Black, 5, 11), None);
        assert_eq!(
            a.after(Color::Red, -3, 12),
            Some((None, Ending::DrawAdjudicated))
        );
    }

    /// A short self-play game replays, keeps its random plies unscored and
    /// ends as the rules or adjudication say; the same seed plays it again.
    #[test]
    fn self_play_is_reproducible_and_replays() {
        let cfg = PlayConfig {
            soft_nodes: 200,
            hard_nodes: 2_000,
            max_plies: 40,
            ..PlayConfig::default()
        };
        let openings = [Position::startpos()];
        let mut e = Engine::new();
        let a = play_game(&mut e, &openings, &cfg, 7);
        let b = play_game(&mut e, &openings, &cfg, 7);
        assert_eq!(a, b);
        assert!(a.record.plies.len() <= 40);
        let unscored = a.record.plies.len() - a.record.scored();
        assert!(unscored <= 4);
        assert!(a.record.plies[unscored..].iter().all(|p| p.score.is_some()));
        let mut replayed = 0;
        a.record.replay(|_, _| replayed += 1).expect("legal game");
        assert_eq!(replayed, a.record.plies.len());
        if a.ending == Ending::PlyCap {
            assert_eq!(a.record.result, GameResult::Draw);
        }
    }
}
