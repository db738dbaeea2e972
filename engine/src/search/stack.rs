//! The search's ply stack: one [`Frame`] per ply from the root, holding
//! what a node leaves for the nodes below and beside it (the move made
//! from it, its static evaluation, the move a singular test leaves out,
//! its killers), and the triangular table of principal variations.
//!
//! The stack belongs to a search thread's [`Worker`](super::Worker): it is
//! allocated once when the thread starts and [`Stack::reset`] before each
//! search, so that nothing of one search (killers name moves by their
//! distance from the root) leaks into the next.

use board::Move;

use super::FrameEval;
use crate::history::PieceTo;
use crate::score::MAX_PLY;

/// What one ply of the current line knows.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Frame {
    /// The move made from this ply (`None`: a null move, or not made yet),
    /// for the continuation histories and countermoves of the plies below.
    pub(super) moved: Option<PieceTo>,
    /// The static evaluation as the plies below see it, for the
    /// `improving` and after-evasion tests.
    pub(super) eval: FrameEval,
    /// The move a singular-extension search at this ply leaves out.
    pub(super) excluded: Option<Move>,
    /// Two quiet moves that cut off at this ply, most recent first.
    pub(super) killers: [Option<Move>; 2],
}

impl Frame {
    /// Remembers `mv` as the latest killer of its ply.
    pub(super) fn add_killer(&mut self, mv: Move) {
        if self.killers[0] != Some(mv) {
            self.killers[1] = self.killers[0];
            self.killers[0] = Some(mv);
        }
    }
}

/// Plies in the stack: every ply the search can reach, plus the child of
/// the deepest (which reads its parent's frame).
const FRAMES: usize = MAX_PLY + 2;

/// The frames and principal variations of one search.
pub(super) struct Stack {
    frames: [Frame; FRAMES],
    /// `pv[ply][ply..pv_len[ply]]` is the best line found from `ply`.
    pv: [[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1],
    pv_len: [usize; MAX_PLY + 1],
}

impl Stack {
    /// An empty stack, boxed (it is about 40 KB).
    pub(super) fn new_boxed() -> Box<Stack> {
        Box::new(Stack {
            frames: [Frame::default(); FRAMES],
            pv: [[None; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
        })
    }

    /// Forgets the last search's frames (killers included).
    pub(super) fn reset(&mut self) {
        self.frames = [Frame::default(); FRAMES];
        self.pv_len = [0; MAX_PLY + 1];
    }

    /// Starts an empty line at `ply`.
    #[inline]
    pub(super) fn clear_pv(&mut self, ply: usize) {
        self.pv_len[ply] = ply;
    }

    /// Makes `mv` followed by the child's line the line of `ply`.
    pub(super) fn update_pv(&mut self, ply: usize, mv: Move) {
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        let (upper, lower) = self.pv.split_at_mut(ply + 1);
        let line = &mut upper[ply];
        line[ply] = Some(mv);
        line[ply + 1..child_len].copy_from_slice(&lower[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }

    /// The line found from `ply`.
    pub(super) fn pv(&self, ply: usize) -> impl Iterator<Item = Move> + '_ {
        let len = self.pv_len[ply].max(ply);
        self.pv[ply][ply..len].iter().flatten().copied()
    }
}

impl std::ops::Index<usize> for Stack {
    type Output = Frame;

    #[inline]
    fn index(&self, ply: usize) -> &Frame {
        &self.frames[ply]
    }
}

impl std::ops::IndexMut<usize> for Stack {
    #[inline]
    fn index_mut(&mut self, ply: usize) -> &mut Frame {
        &mut self.frames[ply]
    }
}
