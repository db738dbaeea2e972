//! Insufficient material (`docs/rules.md` §4.5): the table of endings with
//! no soldier left in which neither side can force mate.

use crate::{Color, PieceKind, Position};

/// How the material on the board bears on a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MaterialDraw {
    /// Mating material is left: play on.
    No,
    /// Nobody can mate: draw.
    Direct,
    /// A draw unless the side to move can leave the opponent without a
    /// legal move at once.
    Conditional,
}

/// Whether a soldier, chariot or horse is on the board: then no material
/// draw can be declared (the common case, a few ORs).
#[inline]
pub(crate) fn attackers_remain(pos: &Position) -> bool {
    let any = |k: PieceKind| !(pos.pieces(Color::Red, k) | pos.pieces(Color::Black, k)).is_empty();
    any(PieceKind::Pawn) || any(PieceKind::Rook) || any(PieceKind::Knight)
}

/// Classifies the material per the table of `docs/rules.md` §4.5.
pub(crate) fn material_draw(pos: &Position) -> MaterialDraw {
    // The common case, some soldier, chariot or horse on the board, is
    // settled by a few ORs before anything is counted.
    if attackers_remain(pos) {
        return MaterialDraw::No;
    }
    let count = |c: Color, k: PieceKind| pos.pieces(c, k).count();
    let cannons = |c: Color| count(c, PieceKind::Cannon);
    let advisors = |c: Color| count(c, PieceKind::Advisor);
    let bishops = |c: Color| count(c, PieceKind::Bishop);
    match (cannons(Color::Red), cannons(Color::Black)) {
        (0, 0) => MaterialDraw::Direct,
        (1, 0) | (0, 1) => {
            let us = if cannons(Color::Red) == 1 {
                Color::Red
            } else {
                Color::Black
            };
            if advisors(us) != 0 {
                return MaterialDraw::No;
            }
            match (advisors(!us), bishops(us)) {
                (0, _) | (1, 0) => MaterialDraw::Direct,
                (1, _) | (2, 0) => MaterialDraw::Conditional,
                _ => MaterialDraw::No,
            }
        }
        (1, 1) if advisors(Color::Red) + advisors(Color::Black) == 0 => {
            if bishops(Color::Red) + bishops(Color::Black) == 0 {
                MaterialDraw::Direct
            } else {
                MaterialDraw::Conditional
            }
        }
        _ => MaterialDraw::No,
    }
}

/// Whether the side to move has a move after which the opponent has no
/// legal move (the exception to a conditional draw).
pub(crate) fn can_mate_at_once(pos: &Position) -> bool {
    let mut work = pos.clone();
    for m in pos.legal_moves() {
        work.make_move(m);
        let mated = !work.has_legal_move();
        work.unmake_move();
        if mated {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(fen: &str) -> MaterialDraw {
        material_draw(&Position::from_fen(fen).unwrap())
    }

    #[test]
    fn table() {
        // Bare generals, and advisors and elephants only.
        assert_eq!(class("4k4/9/9/9/9/9/9/9/9/3K5 w"), MaterialDraw::Direct);
        assert_eq!(
            class("2bakab2/9/9/9/9/9/9/9/4A4/2BK1AB2 w"),
            MaterialDraw::Direct
        );
        // Any soldier, chariot or horse: play on.
        assert_eq!(class("4k4/9/9/9/9/2P6/9/9/4A4/3K5 w"), MaterialDraw::No);
        assert_eq!(class("4k4/9/9/9/9/9/9/9/9/3K1R3 w"), MaterialDraw::No);
        assert_eq!(class("4k4/9/9/9/9/9/9/9/9/3K1N3 w"), MaterialDraw::No);
        assert_eq!(class("4k4/9/9/9/p8/9/9/9/9/3K5 w"), MaterialDraw::No);
        // One cannon, its side without advisors.
        assert_eq!(class("4k4/9/9/9/9/9/9/9/1C7/3K5 w"), MaterialDraw::Direct);
        assert_eq!(class("4k4/4a4/9/9/9/9/9/9/1C7/3K5 w"), MaterialDraw::Direct);
        assert_eq!(
            class("4k4/4a4/9/9/9/9/9/4B4/1C7/3K5 w"),
            MaterialDraw::Conditional
        );
        assert_eq!(
            class("3aka3/9/9/9/9/9/9/9/1C7/3K5 w"),
            MaterialDraw::Conditional
        );
        assert_eq!(class("3aka3/9/9/9/9/9/9/4B4/1C7/3K5 w"), MaterialDraw::No);
        // The cannon's side has an advisor: play on.
        assert_eq!(class("4k4/9/9/9/9/9/9/9/1C7/3K1A3 w"), MaterialDraw::No);
        // Black's cannon, mirrored roles.
        assert_eq!(
            class("3k5/4c4/9/9/9/9/9/9/4A4/3AK4 w"),
            MaterialDraw::Conditional
        );
        // One cannon each, no advisors.
        assert_eq!(class("4k4/4c4/9/9/9/9/9/9/1C7/3K5 w"), MaterialDraw::Direct);
        assert_eq!(
            class("4k1b2/4c4/9/9/9/9/9/9/1C7/3K5 w"),
            MaterialDraw::Conditional
        );
        assert_eq!(class("4k4/4c4/9/9/9/9/9/9/1C7/3K1A3 w"), MaterialDraw::No);
        // Two cannons on one side.
        assert_eq!(class("4k4/9/9/9/9/9/9/9/3CC4/3K5 w"), MaterialDraw::No);
    }
}
