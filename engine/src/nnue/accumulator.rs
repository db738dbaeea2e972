//! The hidden layer, kept per perspective and updated incrementally.
//!
//! An [`Accumulator`] holds, for Red's and for Black's perspective, the first
//! layer's biases plus the rows of every active feature. A move changes at
//! most three features per perspective (the mover leaves a square, arrives
//! on another, a captured piece disappears), so [`Accumulator::apply_move`]
//! costs a few row additions where [`Accumulator::refresh`] costs one per
//! piece. A perspective whose input bucket the move changes
//! ([`features::Arch::bucket_changed`]: a general's move to another king
//! bucket) is refreshed instead, because every one of its rows changes.
//!
//! The search will keep one accumulator per ply: [`Accumulator::update_from`]
//! writes the next ply's from the previous one in a single pass, and unmake
//! is a pop. The type is 2 KiB of plain data, 64-byte aligned for SIMD.

use board::{Color, Piece, Position, Square};

use super::features::{self, Change, HIDDEN};
use super::network::Network;
use super::simd::{self, Backend};

/// What one ply changed: `None` for a null move (nothing changes).
pub(super) type Delta = Option<Change>;

/// The two perspectives' hidden layers (before the activation).
///
/// Invariant: after [`Accumulator::refresh`] of a position, each
/// [`Accumulator::apply_move`] of the next move played keeps it equal to a
/// refresh of the new position (tested on thousands of random positions).
#[derive(Clone, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct Accumulator {
    /// Values by perspective ([`Color::index`]).
    pub values: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator {
            values: [[0; HIDDEN]; 2],
        }
    }
}

impl Accumulator {
    /// An accumulator computed from scratch for `pos`.
    pub fn new(net: &Network, pos: &Position) -> Accumulator {
        let mut acc = Accumulator::default();
        acc.refresh(net, pos);
        acc
    }

    /// Recomputes both perspectives from the position.
    pub fn refresh(&mut self, net: &Network, pos: &Position) {
        for persp in Color::ALL {
            self.refresh_side(net, pos, persp);
        }
    }

    /// Recomputes one perspective from the position.
    pub fn refresh_side(&mut self, net: &Network, pos: &Position, persp: Color) {
        let acc = &mut self.values[persp.index()];
        *acc = *net.ft_bias();
        for row in net.arch().active(persp, features::pieces_of(pos)) {
            simd::add_row(acc, net.ft_row(usize::from(row)));
        }
    }

    /// Adds `piece` on `sq` to one perspective in input bucket `bucket`.
    #[inline]
    pub fn add(&mut self, net: &Network, persp: Color, bucket: usize, piece: Piece, sq: Square) {
        let row = net.arch().index(persp, bucket, piece, sq);
        simd::add_row(&mut self.values[persp.index()], net.ft_row(row));
    }

    /// Removes `piece` from `sq` in one perspective (see [`Accumulator::add`]).
    #[inline]
    pub fn remove(&mut self, net: &Network, persp: Color, bucket: usize, piece: Piece, sq: Square) {
        let row = net.arch().index(persp, bucket, piece, sq);
        simd::sub_row(&mut self.values[persp.index()], net.ft_row(row));
    }

    /// Brings an accumulator of the position before the last move up to
    /// `pos`, the position after it (its [`board::State`] names the move and
    /// the captured piece). A perspective whose input bucket the move
    /// changed is refreshed; a null move or a position without a last move
    /// changes nothing.
    pub fn apply_move(&mut self, net: &Network, pos: &Position) {
        let state = pos.state();
        let Some(m) = state.last_move else {
            return;
        };
        let (from, to) = (m.from(), m.to());
        let Some(moved) = pos.piece_at(to) else {
            return;
        };
        let arch = net.arch();
        for persp in Color::ALL {
            if arch.bucket_changed(persp, (moved, m, state.captured), pos) {
                self.refresh_side(net, pos, persp);
                continue;
            }
            let kb = arch.input_bucket(persp, pos);
            self.remove(net, persp, kb, moved, from);
            self.add(net, persp, kb, moved, to);
            if let Some(captured) = state.captured {
                self.remove(net, persp, kb, captured, to);
            }
        }
    }

    /// The accumulator of `pos` computed from `prev`, the accumulator of the
    /// position before `pos`'s last move, in one pass per perspective
    /// (the search's copy-and-update; [`Accumulator::apply_move`] is the
    /// in-place twin). Refreshes a perspective whose input bucket the move
    /// changed; a null move or no last move copies `prev`.
    pub fn update_from(
        &mut self,
        prev: &Accumulator,
        net: &Network,
        pos: &Position,
        backend: Backend,
    ) {
        let state = pos.state();
        let (Some(m), Some(moved)) = (
            state.last_move,
            state.last_move.and_then(|m| pos.piece_at(m.to())),
        ) else {
            self.values = prev.values;
            return;
        };
        let arch = net.arch();
        let change = (moved, m, state.captured);
        for persp in Color::ALL {
            if arch.bucket_changed(persp, change, pos) {
                self.refresh_side(net, pos, persp);
                continue;
            }
            let bucket = arch.input_bucket(persp, pos);
            self.update_side(prev, net, persp, bucket, change, backend);
        }
    }

    /// Makes this accumulator the one of `prev` after `delta` (a null move
    /// copies), both perspectives in the input buckets `buckets`: the
    /// caller vouches that the move changed neither side's input bucket (a
    /// move that changes one needs a refresh of that side from its
    /// position). One fused pass a perspective.
    pub fn update_by(
        &mut self,
        prev: &Accumulator,
        net: &Network,
        buckets: [usize; 2],
        delta: Delta,
        backend: Backend,
    ) {
        let Some(change) = delta else {
            self.values = prev.values;
            return;
        };
        for persp in Color::ALL {
            self.update_side(prev, net, persp, buckets[persp.index()], change, backend);
        }
    }

    /// `persp`'s half of a copy-and-update by one move, `(moved, m,
    /// captured)`, in input bucket `kb`.
    #[inline]
    fn update_side(
        &mut self,
        prev: &Accumulator,
        net: &Network,
        persp: Color,
        kb: usize,
        (moved, m, captured): Change,
        backend: Backend,
    ) {
        let arch = net.arch();
        let add = net.ft_row(arch.index(persp, kb, moved, m.to()));
        let sub = net.ft_row(arch.index(persp, kb, moved, m.from()));
        let out = &mut self.values[persp.index()];
        let prev = &prev.values[persp.index()];
        match captured {
            Some(c) => {
                let cap = net.ft_row(arch.index(persp, kb, c, m.to()));
                simd::copy_update(backend, out, prev, add, &[sub, cap]);
            }
            None => simd::copy_update(backend, out, prev, add, &[sub]),
        }
    }

    /// The score of `pos`, the position this accumulator describes, in
    /// centipawns for its side to move, from its output bucket, with the
    /// fastest backend this CPU has.
    pub fn evaluate(&self, net: &Network, pos: &Position) -> i32 {
        self.evaluate_with(
            net,
            pos.side_to_move(),
            net.arch().output_bucket(pos),
            Backend::detect(),
        )
    }

    /// The score in centipawns from `side`'s point of view (normally the
    /// side to move) through output bucket `bucket`
    /// ([`features::Arch::output_bucket`]), with a chosen backend (tests
    /// and benchmarks compare them).
    ///
    /// # Panics
    /// If `bucket` is not one of the network's.
    pub fn evaluate_with(
        &self,
        net: &Network,
        side: Color,
        bucket: usize,
        backend: Backend,
    ) -> i32 {
        let us = &self.values[side.index()];
        let them = &self.values[(!side).index()];
        simd::finish(
            simd::output_sum(backend, us, them, net.out_weights(bucket)),
            net.out_bias(bucket),
        )
    }
}

impl Network {
    /// The score of `pos` for the side to move, computed from scratch with
    /// the scalar backend: the slow twin of the incremental path.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let bucket = self.arch().output_bucket(pos);
        Accumulator::new(self, pos).evaluate_with(self, pos.side_to_move(), bucket, Backend::Scalar)
    }
}
