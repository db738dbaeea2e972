//! What the caller asks of a search: [`Limits`] (depth, nodes, time,
//! the clock, `MultiPV`, the root moves, weakening) and the side to move's
//! [`Clock`]. Turning `go` arguments into these is the protocol's job;
//! reading them during a search is `search/stop.rs`'s and `time.rs`'s.

use std::time::Duration;

use board::Move;

use crate::Weakening;
use crate::time;

/// The side to move's clock, as the GUI reports it with `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub time: Duration,
    /// Time added after each move.
    pub increment: Duration,
    /// Moves until the clock is refilled (`None`: sudden death or Fischer).
    pub moves_to_go: Option<u32>,
    /// Time lost on every move outside the search (GUI, pipes, network):
    /// the `Move Overhead` option. Time management keeps it back from each
    /// move's budget on top of its own small lag margin.
    pub overhead: Duration,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock {
            time: Duration::ZERO,
            increment: Duration::ZERO,
            moves_to_go: None,
            overhead: time::DEFAULT_MOVE_OVERHEAD,
        }
    }
}

/// What ends a search. Every limit given applies; the first one reached
/// ends the search. No limit at all means infinite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Last iteration to search (`Some(0)`: no search, no move); clamped
    /// to [`MAX_DEPTH`](crate::MAX_DEPTH).
    pub depth: Option<u32>,
    /// Node budget.
    pub nodes: Option<u64>,
    /// Soft node budget: no iteration starts once the threads have
    /// searched this many nodes (`nodes` is the hard cap).
    pub soft_nodes: Option<u64>,
    /// Fixed thinking time.
    pub movetime: Option<Duration>,
    /// The side to move's clock.
    pub clock: Option<Clock>,
    /// Stop once a mate in at most this many moves is proved.
    pub mate: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
    /// Ponder search: clocks and movetime are charged only from
    /// [`SearchHandle::ponderhit`](crate::SearchHandle::ponderhit).
    pub ponder: bool,
    /// The root moves to consider; empty = every legal move.
    pub root_moves: Vec<Move>,
    /// Number of principal variations to report (at least 1).
    pub multipv: usize,
    /// Play weaker (strength levels): search at least this many lines and
    /// draw the move among them (`weaken.rs`).
    pub weakening: Option<Weakening>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            depth: None,
            nodes: None,
            soft_nodes: None,
            movetime: None,
            clock: None,
            mate: None,
            infinite: false,
            ponder: false,
            root_moves: Vec::new(),
            multipv: 1,
            weakening: None,
        }
    }
}
