//! Naming the rule behind a root score. Rule wins and losses score
//! exactly like mates at the same distance (`score.rs`), and a draw by
//! rule like an even evaluation, so the score alone cannot say which it
//! is: the line is replayed from the root and the rules are asked where it
//! ends. Reporting only; nothing here steers the search.

use board::{Move, Position, Reason, Verdict};

use crate::score::{DRAW, Score, is_decisive};

/// The public score of an internal one, and the rule behind it when it
/// is a rule verdict (found at the end of `pv`).
/// A draw score is named only when the line reaches a position the
/// rules declare drawn (a 0 may also be an even evaluation).
pub(super) fn public_score(root: &Position, s: i32, pv: &[Move]) -> (Score, Option<Reason>) {
    let rule = if is_decisive(s) {
        rule_at_end(root, pv)
    } else if s == DRAW {
        draw_along(root, pv)
    } else {
        None
    };
    (Score::from_raw(s), rule)
}

/// The verdicts of the positions along `pv` from `root` that the rules
/// decide, in order, replayed while the moves stay legal (a line from the
/// table may not be).
fn verdicts_along<'a>(root: &Position, pv: &'a [Move]) -> impl Iterator<Item = Verdict> + 'a {
    let mut p = root.clone();
    pv.iter()
        .enumerate()
        .map_while(move |(i, &m)| {
            p.is_legal(m).then(|| {
                p.make_move(m);
                p.rule_verdict(i + 1)
            })
        })
        .flatten()
}

/// The rule of the first position along `pv` that the rules decide, if
/// it is a draw (move limit, repetition, insufficient material).
fn draw_along(root: &Position, pv: &[Move]) -> Option<Reason> {
    match verdicts_along(root, pv).next() {
        Some(Verdict::Draw(r)) => Some(r),
        _ => None,
    }
}

/// The rule that decides the line `pv` from the root: the first
/// position along it with a win or loss verdict by rule; `None` when
/// the line ends in mate (or is cut short: a table cut-off hides the
/// end, and a mate is then the likelier reading).
fn rule_at_end(root: &Position, pv: &[Move]) -> Option<Reason> {
    verdicts_along(root, pv)
        .find_map(|v| match v {
            Verdict::Win(r) | Verdict::Loss(r) => Some(r),
            Verdict::Draw(_) => None,
        })
        .filter(|r| !matches!(r, Reason::Checkmate | Reason::Stalemate))
}
