//! Singular extensions: the test of whether a node's table move is the
//! only good one (extended a ply), whether the node is cut at once because
//! even without it the search beats beta (multi-cut), or whether the move
//! deserves less depth.

use board::Move;

use super::{Mode, NodeKind, Search};
use crate::params;
use crate::score::{Bound, is_decisive};
use crate::tt::TtHit;

impl<M: Mode> Search<'_, M> {
    /// The singular-extension test of table move `mv` (stored as a lower
    /// bound `tt_score`): the node is searched again at half depth without
    /// it, against a bar `2 × depth` below its score. Every other move
    /// failing that bar makes `mv` singular (extended one ply); the search
    /// without it beating beta cuts the node (multi-cut); a table score at
    /// or above beta that is not singular reduces `mv` a ply.
    pub(super) fn singular(
        &mut self,
        mv: Move,
        tt_score: i32,
        beta: i32,
        depth: i32,
        ply: usize,
    ) -> Singular {
        let bar = tt_score - params::singular_margin() * depth;
        self.stack[ply].excluded = Some(mv);
        let s = self.search(bar - 1, bar, (depth - 1) / 2, ply, NodeKind::NonPv);
        self.stack[ply].excluded = None;
        if self.stopped {
            Singular::Stopped
        } else if s < bar {
            Singular::Extend(1)
        } else if bar >= beta {
            Singular::MultiCut(bar)
        } else if tt_score >= beta {
            Singular::Extend(-1)
        } else {
            Singular::Extend(0)
        }
    }
}

/// What [`Search::singular`] found.
pub(super) enum Singular {
    /// The search stopped meanwhile.
    Stopped,
    /// The node's score without searching its moves.
    MultiCut(i32),
    /// Plies to add to (or, negative, take from) the move's depth.
    Extend(i32),
}

/// The table move and its score, when it is worth a singularity test: a
/// lower bound (or exact score) not decided by mate, searched nearly as
/// deep as this node.
pub(super) fn singular_candidate(hit: &TtHit, depth: i32) -> Option<(Move, i32)> {
    if depth < params::singular_depth() {
        return None;
    }
    let e = hit.entries.iter().flatten().find(|e| e.mv.is_some())?;
    let deep = i32::from(e.depth) >= depth - params::singular_entry_depth();
    let lower = matches!(e.bound, Bound::Lower | Bound::Exact);
    (deep && lower && !is_decisive(e.score)).then_some((e.mv?, e.score))
}

#[cfg(test)]
mod tests {
    use board::Position;

    use super::*;
    use crate::score::MATE;
    use crate::tt::TtEntry;

    fn entry(mv: Option<Move>, score: i32, depth: u8, bound: Bound) -> Option<TtEntry> {
        Some(TtEntry {
            mv,
            score,
            depth,
            bound,
            generation: 0,
        })
    }

    #[test]
    fn singular_candidates_are_deep_lower_bounds_with_a_move() {
        let mv = Position::startpos().parse_move("h2e2").ok();
        let hit = |e: Option<TtEntry>| TtHit { entries: [e, None] };
        let lower = entry(mv, 35, 8, Bound::Lower);
        // Deep enough (entry depth ≥ node depth − 3), from SINGULAR_DEPTH on.
        assert_eq!(singular_candidate(&hit(lower), 11), Some((mv.unwrap(), 35)));
        assert_eq!(singular_candidate(&hit(lower), 7), Some((mv.unwrap(), 35)));
        assert_eq!(singular_candidate(&hit(lower), 6), None);
        assert_eq!(singular_candidate(&hit(lower), 12), None);
        // An exact score qualifies; an upper bound says nothing of the move.
        assert!(singular_candidate(&hit(entry(mv, 35, 8, Bound::Exact)), 9).is_some());
        assert_eq!(
            singular_candidate(&hit(entry(mv, 35, 8, Bound::Upper)), 9),
            None
        );
        // A mate score is not tested: the bar below it means nothing.
        assert_eq!(
            singular_candidate(&hit(entry(mv, MATE - 10, 8, Bound::Lower)), 9),
            None
        );
        // The first entry with a move is the one tested.
        let both = TtHit {
            entries: [entry(None, 50, 10, Bound::Lower), lower],
        };
        assert_eq!(singular_candidate(&both, 9), Some((mv.unwrap(), 35)));
    }
}
