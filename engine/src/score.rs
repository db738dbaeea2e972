//! The score vocabulary, at the bottom of the engine crate: the raw
//! integer scale the search and the table share, its bands (mates and
//! rule verdicts), the public [`Score`] decoded from it, how a score
//! bounds the true value ([`Bound`]), and the table's ply adjustment of
//! decisive scores.
//!
//! Everything here is written once and used by the search, the table and
//! the engine's public results alike; this module imports nothing from
//! the rest of the crate, so neither the search nor the table has to
//! import the other for a constant.
//!
//! # The raw scale
//!
//! A raw score is an `i32` from the side to move's point of view:
//! evaluations stay well inside `±MATE_BOUND`; being mated at the root is
//! `-MATE`, a mate `n` plies away `MATE - n`. Wins and losses by rule
//! (perpetual check or chase by the opponent) share that scale: a rule win
//! `n` plies away also scores `MATE - n`. A loss is a loss: a lost side
//! must prefer being mated in ten to losing by rule in two, and a winner
//! the nearer of the two. Which kind a decisive score is, is read from the
//! line that leads to it, never from its value.

use std::fmt;

use board::Verdict;

/// Deepest ply the search reaches (quiescence included).
pub const MAX_PLY: usize = 128;
/// The deepest iteration a search runs (a deeper depth limit is
/// clamped): the ply stack must hold the line and its quiescence.
pub const MAX_DEPTH: u32 = MAX_PLY as u32 - 1;
/// Score of being mated at the root; a mate `n` plies away is `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores at least this are decisive: a mate or a win by rule `n` plies
/// away is `MATE - n`, a loss `-(MATE - n)` (module docs). Decisive
/// scores are stored in the table relative to the node ([`to_tt`]).
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32;
/// Larger than every score: the open end of a search window.
pub const INFINITE: i32 = MATE + 1;
/// The score of a draw.
pub const DRAW: i32 = 0;

// The table stores depths and plies in a byte.
const _: () = assert!(MAX_PLY < 256);

/// A score from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawn-like evaluation.
    Cp(i32),
    /// Mate (or a rule verdict treated like one) in this many plies:
    /// positive when the side to move wins, negative when it loses.
    Mate(i32),
}

/// The bound of a printed centipawn score: keeps it apart from the
/// printed mates, `±(MATE_VALUE − plies)` ([`Score::value`]).
pub const CP_LIMIT: i32 = 9000;

/// The printed value of a mate at the root (ElephantEye's scale, which
/// UCCI prints and UCI's `cp` shares).
pub const MATE_VALUE: i32 = 10000;

impl Score {
    /// The one integer for a score that both protocols print (UCCI after
    /// `score`, UCI after `score cp`) and that compares scores across
    /// searches: centipawns clamped to ±[`CP_LIMIT`], a mate `n` plies
    /// away `±(MATE_VALUE − n)`.
    pub fn value(self) -> i32 {
        match self {
            Score::Cp(cp) => cp.clamp(-CP_LIMIT, CP_LIMIT),
            Score::Mate(plies) if plies > 0 => MATE_VALUE - plies.min(MATE_VALUE - CP_LIMIT - 1),
            Score::Mate(plies) => {
                -(MATE_VALUE - plies.saturating_neg().min(MATE_VALUE - CP_LIMIT - 1))
            }
        }
    }

    /// The public form of a raw search or table score: mates and rule
    /// verdicts (one scale: a win by rule `n` plies away scores as a mate
    /// in `n`) become [`Score::Mate`] in plies, everything else
    /// [`Score::Cp`]. The one decoder of raw scores: search reports and
    /// table probes both go through it.
    pub(crate) fn from_raw(raw: i32) -> Score {
        if raw >= MATE_BOUND {
            Score::Mate(MATE - raw)
        } else if raw <= -MATE_BOUND {
            Score::Mate(-(MATE + raw))
        } else {
            Score::Cp(raw)
        }
    }
}

impl fmt::Display for Score {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(p) => write!(f, "mate {p} plies"),
        }
    }
}

/// How a score relates to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The score is exact.
    Exact,
    /// The true score is at least this (fail high).
    Lower,
    /// The true score is at most this (fail low).
    Upper,
}

impl Bound {
    /// What a node's fail-soft result `best` says about its true value,
    /// given the window `[alpha, beta]` it was searched with (`alpha` as it
    /// was on entry).
    pub(crate) fn of_result(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// Whether raw score `s` is decisive (a mate or a rule win or loss).
#[inline]
pub(crate) fn is_decisive(s: i32) -> bool {
    s.abs() >= MATE_BOUND
}

/// The raw score of a rule verdict `ply` plies from the root.
pub(crate) fn verdict_score(v: Verdict, ply: usize) -> i32 {
    let ply = ply as i32;
    match v {
        Verdict::Draw(_) => DRAW,
        Verdict::Win(_) => MATE - ply,
        Verdict::Loss(_) => -MATE + ply,
    }
}

/// Converts a root-relative score found `ply` plies from the root to
/// node-relative for storing: a table entry must not depend on where the
/// node was reached, so decisive scores count their distance from the node.
pub(crate) fn to_tt(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= MATE_BOUND {
        score + ply
    } else if score <= -MATE_BOUND {
        score - ply
    } else {
        score
    }
}

/// Converts a stored node-relative score back to root-relative for a node
/// `ply` plies from the root (the inverse of [`to_tt`]).
pub(crate) fn from_tt(score: i32, ply: usize) -> i32 {
    let ply = ply as i32;
    if score >= MATE_BOUND {
        score - ply
    } else if score <= -MATE_BOUND {
        score + ply
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use board::Reason;

    use super::*;

    #[test]
    fn verdicts_score_in_their_bands() {
        assert_eq!(
            verdict_score(Verdict::Draw(Reason::RepetitionDraw), 7),
            DRAW
        );
        assert_eq!(
            verdict_score(Verdict::Loss(Reason::Checkmate), 3),
            -MATE + 3
        );
        assert_eq!(
            verdict_score(Verdict::Loss(Reason::Stalemate), 3),
            -MATE + 3
        );
        // A rule verdict ranks with the mate at the same distance.
        assert_eq!(
            verdict_score(Verdict::Win(Reason::PerpetualCheck), 5),
            MATE - 5
        );
        assert_eq!(
            verdict_score(Verdict::Loss(Reason::PerpetualChase), 6),
            -(MATE - 6)
        );
        assert!(
            verdict_score(Verdict::Loss(Reason::PerpetualCheck), 2)
                < verdict_score(Verdict::Loss(Reason::Checkmate), 10)
        );
        assert_eq!(Score::from_raw(MATE - 5), Score::Mate(5));
        assert_eq!(Score::from_raw(-(MATE - 6)), Score::Mate(-6));
        assert_eq!(Score::from_raw(MATE - 1), Score::Mate(1));
        assert_eq!(Score::from_raw(-MATE + 2), Score::Mate(-2));
        assert_eq!(Score::from_raw(MATE_BOUND - 1), Score::Cp(MATE_BOUND - 1));
        // Every evaluation stays clear of the decisive band.
        const { assert!(MATE_BOUND > 20_000) };
    }

    /// The decoding half of the protocol's former `table_score` test
    /// (raw table scores are decoded here now; the protocol only prints
    /// a [`Score`]).
    #[test]
    fn table_scores_decode_like_search_scores() {
        assert_eq!(Score::from_raw(MATE - 3), Score::Mate(3));
        assert_eq!(Score::from_raw(-MATE + 2), Score::Mate(-2));
        assert_eq!(Score::from_raw(-41), Score::Cp(-41));
    }

    #[test]
    fn bounds_classify_the_window() {
        assert_eq!(Bound::of_result(50, 0, 50), Bound::Lower);
        assert_eq!(Bound::of_result(49, 0, 50), Bound::Exact);
        assert_eq!(Bound::of_result(0, 0, 50), Bound::Upper);
        assert!(is_decisive(MATE_BOUND) && is_decisive(-MATE_BOUND));
        assert!(!is_decisive(MATE_BOUND - 1));
    }
}
