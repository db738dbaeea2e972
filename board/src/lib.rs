//! The xiangqi board: squares and pieces, moves in ICCS coordinates, FEN,
//! legal move generation, make/unmake with Zobrist keys, perft, (in
//! [`geometry`]) the attack tables for other crates' use, (in [`rules`])
//! the judging of game ends, and the [`GameResult`] a finished game's record
//! keeps. No I/O and no search live here.
//!
//! # Vocabulary
//!
//! Pieces carry the chess-style names Pikafish and ElephantEye use, with the
//! FEN letters of `docs/rules.md`:
//!
//! | kind | letter | Chinese | also called |
//! |---|---|---|---|
//! | [`PieceKind::King`] | K | 帅 / 将 | general |
//! | [`PieceKind::Advisor`] | A | 仕 / 士 | guard, mandarin |
//! | [`PieceKind::Bishop`] | B (E) | 相 / 象 | elephant, minister |
//! | [`PieceKind::Knight`] | N (H) | 马 | horse |
//! | [`PieceKind::Rook`] | R | 车 | chariot |
//! | [`PieceKind::Cannon`] | C | 炮 | catapult |
//! | [`PieceKind::Pawn`] | P | 兵 / 卒 | soldier |
//!
//! Squares are numbered `rank * 9 + file`: `a0` = 0 is Red's left corner,
//! `i9` = 89 Black's. Red moves first.

mod attacks;
mod bitboard;
mod fen;
pub mod geometry;
mod moves;
mod position;
mod result;
pub mod rules;
mod see;
mod types;
#[allow(clippy::unreadable_literal)]
mod zobrist {
    include!(concat!(env!("OUT_DIR"), "/zobrist_keys.rs"));
}

pub use bitboard::Bitboard;
pub use fen::{FenError, START_FEN, Setup};
pub use moves::{MAX_MOVES, Move, MoveList, ParseMoveError};
pub use position::{CHECKS_COUNTED, IllegalMove, Position, State};
pub use result::GameResult;
pub use rules::{NodeJudgement, Outcome, Reason, Verdict};
pub use see::SeeValues;
pub use types::{ByColor, Color, File, ParseSquareError, Piece, PieceKind, Rank, Square};
