//! The conversion of a `go` command into engine [`Limits`], as pure
//! functions of the parsed tokens, the options and the position: which
//! clock token counts (the later of two of the same meaning), its unit
//! (`usemillisec`), the clamps (clock values to [`MAX_TIME_MS`], the depth
//! to the engine's ply stack) and whether the book is consulted (the
//! searches that check a book move are the engine's: `engine::play`).
//!
//! Nothing here has state or prints: the session calls these functions
//! and reports what they return, so each rule has one home and is tested
//! on plain `go` lines.

use std::time::Duration;

use board::{Color, Position};
use engine::{Clock, Limits};

use crate::command::{Depth, GoCommand, MAX_TIME_MS};
use crate::options::Options;

/// Whose clock [`clock`] read for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockOwner {
    /// The side to move's own (`time`, or `wtime`/`btime` of its colour).
    Own,
    /// Only the other side's clock was given, and it stands in (the
    /// session says so).
    Other,
}

/// Converts a UCCI clock value to a duration: milliseconds with
/// `usemillisec`, else seconds; clamped to [`MAX_TIME_MS`].
fn ucci_time(raw: u64, usemillisec: bool) -> Duration {
    let ms = if usemillisec {
        raw
    } else {
        raw.saturating_mul(1000)
    };
    Duration::from_millis(ms.min(MAX_TIME_MS))
}

/// The side to move's clock from the `go` tokens: UCCI `time` and UCI
/// `wtime`/`btime` of the side to move mean the same, so the later of
/// them counts (likewise `increment` and `winc`/`binc`). When only the
/// other side's clock was given, that one ([`ClockOwner::Other`]). UCI
/// values are milliseconds; UCCI values follow `usemillisec`.
pub fn clock(go: &GoCommand, side: Color, options: &Options) -> Option<(Clock, ClockOwner)> {
    let order = go.clock_order;
    let ms = Duration::from_millis;
    let ucci = |raw| ucci_time(raw, options.usemillisec);
    let ((own, own_at), (own_inc, own_inc_at), other, other_inc) = match side {
        Color::Red => (
            (go.wtime, order.wtime),
            (go.winc, order.winc),
            go.btime,
            go.binc,
        ),
        Color::Black => (
            (go.btime, order.btime),
            (go.binc, order.binc),
            go.wtime,
            go.winc,
        ),
    };
    let time = later((go.time.map(ucci), order.time), (own.map(ms), own_at));
    let increment = later(
        (go.increment.map(ucci), order.increment),
        (own_inc.map(ms), own_inc_at),
    );
    let overhead = ms(options.move_overhead_ms);
    if let Some(time) = time {
        let clock = Clock {
            time,
            increment: increment.unwrap_or(Duration::ZERO),
            moves_to_go: go.movestogo,
            overhead,
        };
        return Some((clock, ClockOwner::Own));
    }
    let clock = Clock {
        time: ms(other?),
        increment: ms(other_inc.unwrap_or(0)),
        moves_to_go: go.movestogo,
        overhead,
    };
    Some((clock, ClockOwner::Other))
}

/// The limits of `go` with the side to move's `clock`: infinite when no
/// limit was given. The root moves are the engine's to decide
/// (`engine::play::allowed_moves`).
pub fn limits(go: &GoCommand, clock: Option<Clock>, options: &Options) -> Limits {
    Limits {
        depth: match go.depth {
            Some(Depth::Plies(d)) => Some(d),
            _ => None,
        },
        nodes: go.nodes,
        movetime: go.movetime.map(Duration::from_millis),
        clock,
        mate: go.mate,
        infinite: go.infinite || !go.has_limit(),
        ponder: go.ponder,
        multipv: options.multipv.max(1),
        ..Limits::default()
    }
}

/// Weakens `limits` to strength level `level` (`crate::strength`): the
/// level's node budget, if smaller, and the draw among its lines seeded by
/// `seed`. Full strength changes nothing.
pub fn weaken(limits: &mut Limits, level: crate::strength::Level, seed: u64) {
    if let Some(n) = level.nodes() {
        limits.nodes = Some(limits.nodes.map_or(n, |m| m.min(n)));
    }
    limits.weakening = level.weakening(seed);
}

/// Whether a search with `limits` in `pos` asks the book first: only a
/// clock-limited search with no other limit, not pondering, not infinite,
/// one line, with the book on and `pos` within `bookdepth` plies of the
/// game's start.
pub fn consults_book(limits: &Limits, pos: &Position, options: &Options) -> bool {
    let clock_limited = limits.clock.is_some() || limits.movetime.is_some();
    let pure = limits.depth.is_none() && limits.nodes.is_none() && limits.mate.is_none();
    if !options.usebook
        || !clock_limited
        || !pure
        || limits.ponder
        || limits.infinite
        || limits.multipv > 1
    {
        return false;
    }
    let ply = (usize::from(pos.fullmove_number()).saturating_sub(1)) * 2
        + usize::from(pos.side_to_move() == Color::Black);
    ply < usize::try_from(options.bookdepth).unwrap_or(usize::MAX)
}

/// Of two values of the same meaning, each with where it stood in the line
/// (0 = absent), the one given later.
fn later<T>(a: (Option<T>, usize), b: (Option<T>, usize)) -> Option<T> {
    match (a, b) {
        ((Some(x), at_x), (Some(y), at_y)) => Some(if at_x > at_y { x } else { y }),
        ((x, _), (y, _)) => x.or(y),
    }
}

#[cfg(test)]
mod tests;
