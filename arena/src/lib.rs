//! `arena`: self-play tournaments between UCCI and UCI xiangqi engines,
//! judged by the `board` crate's rules, with Elo, pentanomial statistics,
//! SPRT and PGN output; `arena openings`, which builds an opening suite
//! from game records; and `arena pool`, which scores the PGN files of
//! several runs together.
//!
//! The library holds everything; `main.rs` only calls [`cli::main`], and
//! [`fuzzing`] lets the fuzz target check the configuration surface.

mod child;
pub mod cli;
mod config;
pub mod fuzzing;
mod game;
mod openings;
mod pgn;
mod pool;
mod progress;
mod sprt;
mod stats;
mod tally;
mod tournament;
