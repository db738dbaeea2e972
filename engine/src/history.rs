//! Move-ordering knowledge learnt during a search and kept between
//! searches: the butterfly history (by moving piece and target), the
//! continuation histories (this move against the moves one and two plies
//! earlier), the countermove table and the capture history (by moving
//! piece, target and victim). The killers belong to one search's
//! ply stack (`search/stack.rs`), not here: they name moves at a distance
//! from the root, which means nothing to the next search.
//!
//! Every statistic moves by *gravity*: `h += bonus − h·|bonus| / MAX`, so
//! a value approaches ±[`HISTORY_MAX`] smoothly and never passes it; no
//! periodic halving is needed. A quiet move that causes a cut-off (or is
//! the best of a node) is rewarded; the quiet moves tried before it are
//! punished by the same amount, which is what lets the tables learn which
//! moves fail, not only which succeed. Captures learn the same way in
//! their own table: the best move's bonus when it captures, and a malus
//! for every capture tried before the best move, whatever it is.

use board::{Move, PieceKind, Square};

use crate::params;

/// The bound of every history value.
pub const HISTORY_MAX: i32 = 16_384;

/// Piece indices (colour and kind: [`board::Piece::index`]).
const PIECES: usize = 14;

/// A moved piece and where it went: the key of the continuation and
/// countermove tables. `None` at the root's parent and after a null move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PieceTo {
    /// [`board::Piece::index`] of the moving piece.
    pub piece: u8,
    /// Target square index.
    pub to: u8,
}

impl PieceTo {
    /// The key of `piece` (index) moving to `to`.
    pub fn new(piece: usize, to: Square) -> PieceTo {
        PieceTo {
            piece: piece as u8,
            to: to.index() as u8,
        }
    }

    /// The continuation tables' index: dense over the points each piece
    /// can stand on ([`STANDING`]).
    #[inline]
    fn index(self) -> usize {
        usize::from(
            STANDING.index[usize::from(self.piece) % PIECES][usize::from(self.to) % Square::NUM],
        )
    }
}

/// The (piece, point) pairs a piece can stand on, numbered densely: 692
/// of the 1,260 pairs (advisors, elephants, generals and soldiers keep to
/// their points), so a continuation table indexed by them is 0.96 MB
/// instead of 3.2 MB, and the cache and the ageing between searches touch
/// a third of the memory. Pairs no piece can stand on share one spare
/// index, [`Standing::COUNT`], which no move ever reaches.
struct Standing {
    index: [[u16; Square::NUM]; PIECES],
}

impl Standing {
    /// Standing pairs, plus the spare.
    const COUNT: usize = 692;

    const fn build() -> Standing {
        let mut index = [[Standing::COUNT as u16; Square::NUM]; PIECES];
        let mut next = 0;
        let mut p = 0;
        while p < PIECES {
            let Some(piece) = board::Piece::from_index(p) else {
                panic!("every piece index names a piece");
            };
            let mut sq = 0;
            while sq < Square::NUM {
                let Some(square) = Square::from_index(sq) else {
                    panic!("every square index names a square");
                };
                if piece.can_stand_on(square) {
                    index[p][sq] = next;
                    next += 1;
                }
                sq += 1;
            }
            p += 1;
        }
        assert!(next as usize == Standing::COUNT, "692 standing pairs");
        Standing { index }
    }
}

static STANDING: Standing = Standing::build();

/// Rows (and columns) of a continuation table: the standing pairs and the
/// spare.
const CONT_SIZE: usize = Standing::COUNT + 1;

/// One continuation table: `[previous piece-to][this piece-to]`.
type ContTable = [[i16; CONT_SIZE]; CONT_SIZE];

/// The bonus for a quiet best move at `depth`.
pub fn stat_bonus(depth: i32) -> i32 {
    (params::history_bonus_per_depth() * depth - params::history_bonus_offset())
        .clamp(0, params::history_bonus_max())
}

/// The malus for a quiet move tried before the best one at `depth`.
pub fn stat_malus(depth: i32) -> i32 {
    (params::history_malus_per_depth() * depth - params::history_malus_offset())
        .clamp(0, params::history_malus_max())
}

/// Applies one gravity step of `bonus` to `v`.
#[inline]
fn gravity(v: &mut i16, bonus: i32) {
    let cur = i32::from(*v);
    let next = cur + bonus - cur * bonus.abs() / HISTORY_MAX;
    *v = next.clamp(-HISTORY_MAX, HISTORY_MAX) as i16;
}

/// Move-ordering knowledge kept from one search to the next.
pub struct Histories {
    /// By piece index and target square.
    butterfly: [[i16; Square::NUM]; PIECES],
    /// Continuation history, indexed by an earlier move and this one. The
    /// moves one and two plies back read and teach the same table: the
    /// pairs mean much the same at both distances, and sharing halves the
    /// memory and doubles what each entry learns from.
    cont: Box<ContTable>,
    /// Which rows of `cont` may hold a value other than zero: the rows
    /// taught since they last aged to nothing. Ageing walks only these, so
    /// that a short search (datagen's few thousand nodes) does not pay for
    /// the whole megabyte.
    live: [bool; CONT_SIZE],
    /// The quiet reply that last refuted each piece-to.
    countermoves: Box<[[Option<Move>; Square::NUM]; PIECES]>,
    /// Capture history, by the capture's piece-to (dense, as the
    /// continuation tables index it) and the victim's kind.
    capture: [[i16; PieceKind::NUM]; CONT_SIZE],
}

impl std::fmt::Debug for Histories {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histories").finish_non_exhaustive()
    }
}

/// The context a quiet move is scored in: the moves one and two plies
/// before it.
#[derive(Clone, Copy, Debug, Default)]
pub struct QuietContext {
    /// The previous move (the opponent's), if any.
    pub prev1: Option<PieceTo>,
    /// The move before that (our own), if any.
    pub prev2: Option<PieceTo>,
}

impl Histories {
    /// Empty histories, boxed (the continuation table is about a megabyte).
    pub fn new_boxed() -> Box<Histories> {
        let cont: Box<ContTable> = vec![[0i16; CONT_SIZE]; CONT_SIZE]
            .into_boxed_slice()
            .try_into()
            .unwrap_or_else(|_| unreachable!("the vector has the table's length"));
        Box::new(Histories {
            butterfly: [[0; Square::NUM]; PIECES],
            cont,
            live: [false; CONT_SIZE],
            countermoves: Box::new([[None; Square::NUM]; PIECES]),
            capture: [[0; PieceKind::NUM]; CONT_SIZE],
        })
    }

    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        self.butterfly = [[0; Square::NUM]; PIECES];
        for row in self.cont.iter_mut() {
            row.fill(0);
        }
        self.live = [false; CONT_SIZE];
        *self.countermoves = [[None; Square::NUM]; PIECES];
        self.capture = [[0; PieceKind::NUM]; CONT_SIZE];
    }

    /// Between searches: what was learnt counts for less (a quarter of the
    /// butterfly and the captures, half the continuations).
    pub fn age(&mut self) {
        let butterfly = self.butterfly.iter_mut().flatten();
        for v in butterfly.chain(self.capture.iter_mut().flatten()) {
            *v /= 4;
        }
        for (row, live) in self.cont.iter_mut().zip(&mut self.live) {
            if *live {
                let mut any = 0;
                for v in row.iter_mut() {
                    *v /= 2;
                    any |= *v;
                }
                *live = any != 0;
            }
        }
    }

    /// The countermove to the previous move, if known.
    pub fn countermove(&self, prev: Option<PieceTo>) -> Option<Move> {
        prev.and_then(|p| self.countermoves[usize::from(p.piece)][usize::from(p.to)])
    }

    /// The ordering value of a quiet move: butterfly plus both
    /// continuations, within ±3 × 16384 (three bounded tables).
    pub fn quiet_score(&self, mv: PieceTo, ctx: QuietContext) -> i32 {
        let mut s = i32::from(self.butterfly[usize::from(mv.piece)][usize::from(mv.to)]);
        for prev in [ctx.prev1, ctx.prev2].into_iter().flatten() {
            s += i32::from(self.cont[prev.index()][mv.index()]);
        }
        s
    }

    /// Updates after a node whose best move `best` is quiet: a bonus for
    /// it, a malus for every quiet move tried before it (`tried`),
    /// and the countermove when it cut off.
    pub fn update_quiet(
        &mut self,
        best: (Move, PieceTo),
        tried: &[(Move, PieceTo)],
        ctx: QuietContext,
        depth: i32,
        cut: bool,
    ) {
        self.apply(best.1, ctx, stat_bonus(depth));
        let malus = stat_malus(depth);
        for &(m, pt) in tried {
            if m != best.0 {
                self.apply(pt, ctx, -malus);
            }
        }
        if cut && let Some(p) = ctx.prev1 {
            self.countermoves[usize::from(p.piece)][usize::from(p.to)] = Some(best.0);
        }
    }

    /// The capture history of `mv` taking a `victim`, within ±16384.
    pub fn capture_score(&self, mv: PieceTo, victim: PieceKind) -> i32 {
        i32::from(self.capture[mv.index()][victim.index()])
    }

    /// Updates the capture history after a node with a best move: a bonus
    /// for `best` when it is a capture (its piece-to and victim), a malus
    /// for every capture in `tried` but the best.
    pub fn update_captures(
        &mut self,
        best: Option<(Move, PieceTo, PieceKind)>,
        tried: &[(Move, PieceTo, PieceKind)],
        depth: i32,
    ) {
        if let Some((_, pt, victim)) = best {
            gravity(
                &mut self.capture[pt.index()][victim.index()],
                stat_bonus(depth),
            );
        }
        let malus = stat_malus(depth);
        for &(m, pt, victim) in tried {
            if best.is_none_or(|b| b.0 != m) {
                gravity(&mut self.capture[pt.index()][victim.index()], -malus);
            }
        }
    }

    fn apply(&mut self, mv: PieceTo, ctx: QuietContext, bonus: i32) {
        gravity(
            &mut self.butterfly[usize::from(mv.piece)][usize::from(mv.to)],
            bonus,
        );
        for prev in [ctx.prev1, ctx.prev2].into_iter().flatten() {
            let row = prev.index();
            gravity(&mut self.cont[row][mv.index()], bonus);
            self.live[row] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_stays_within_bounds_and_saturates_smoothly() {
        let mut v = 0i16;
        let mut last = 0;
        for _ in 0..1000 {
            gravity(&mut v, stat_bonus(20));
            assert!(i32::from(v) <= HISTORY_MAX);
            assert!(i32::from(v) >= last, "a bonus never lowers the value");
            last = i32::from(v);
        }
        assert!(
            last > HISTORY_MAX * 9 / 10,
            "saturates near the bound: {last}"
        );
        for _ in 0..1000 {
            gravity(&mut v, -stat_bonus(20));
            assert!(i32::from(v) >= -HISTORY_MAX);
        }
        assert!(i32::from(v) < -HISTORY_MAX * 9 / 10);
        // A malus against a large value moves it more than against a
        // small one of the same sign as the malus.
        let (mut big, mut small) = (12_000i16, -12_000i16);
        gravity(&mut big, -800);
        gravity(&mut small, -800);
        assert!(12_000 - i32::from(big) > -12_000 - i32::from(small));
    }

    /// The dense index numbers every standing pair once, below the spare,
    /// and sends the rest to the spare.
    #[test]
    fn standing_pairs_are_numbered_densely() {
        let mut seen = vec![false; Standing::COUNT];
        for p in 0..PIECES {
            let piece = board::Piece::from_index(p).expect("a piece");
            for sq in Square::all() {
                let i = PieceTo::new(p, sq).index();
                if piece.can_stand_on(sq) {
                    assert!(i < Standing::COUNT && !seen[i], "{piece} {sq}");
                    seen[i] = true;
                } else {
                    assert_eq!(i, Standing::COUNT, "{piece} {sq}");
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn best_gains_and_tried_moves_lose() {
        let mut h = Histories::new_boxed();
        let a: Move = "h2e2".parse().expect("move");
        let b: Move = "b0c2".parse().expect("move");
        let sq = |s: &str| s.parse::<Square>().expect("square");
        let pa = PieceTo::new(5, sq("e2"));
        let pb = PieceTo::new(3, sq("c2"));
        let prev = PieceTo::new(12, sq("e7"));
        let ctx = QuietContext {
            prev1: Some(prev),
            prev2: None,
        };
        h.update_quiet((a, pa), &[(b, pb), (a, pa)], ctx, 6, true);
        assert!(h.quiet_score(pa, ctx) > 0);
        assert!(h.quiet_score(pb, ctx) < 0);
        // The continuation part is only seen in the same context.
        assert!(h.quiet_score(pa, QuietContext::default()) < h.quiet_score(pa, ctx));
        assert_eq!(h.countermove(Some(prev)), Some(a));
        h.age();
        assert!(h.quiet_score(pa, ctx) > 0, "ageing keeps the sign");
        h.clear();
        assert_eq!(h.quiet_score(pa, ctx), 0);
        assert_eq!(h.countermove(Some(prev)), None);
    }

    #[test]
    fn best_captures_gain_and_tried_captures_lose() {
        let mut h = Histories::new_boxed();
        let sq = |s: &str| s.parse::<Square>().expect("square");
        // A red cannon takes on b9, a red chariot on a9 (moves as keys only).
        let a: Move = "b2b9".parse().expect("move");
        let b: Move = "a0a9".parse().expect("move");
        let pa = PieceTo::new(5, sq("b9"));
        let pb = PieceTo::new(4, sq("a9"));
        let ka = (a, pa, PieceKind::Knight);
        let kb = (b, pb, PieceKind::Rook);
        h.update_captures(Some(ka), &[kb, ka], 6);
        assert!(h.capture_score(pa, PieceKind::Knight) > 0);
        assert!(h.capture_score(pb, PieceKind::Rook) < 0);
        // The victim is part of the key.
        assert_eq!(h.capture_score(pa, PieceKind::Rook), 0);
        // A quiet best move still punishes the captures tried before it.
        h.update_captures(None, &[ka], 6);
        assert!(h.capture_score(pa, PieceKind::Knight) < stat_bonus(6));
        h.age();
        assert!(
            h.capture_score(pb, PieceKind::Rook) < 0,
            "ageing keeps the sign"
        );
        h.clear();
        assert_eq!(h.capture_score(pb, PieceKind::Rook), 0);
    }

    /// Ageing only the live rows gives the table that ageing every row
    /// gives (the slow twin), over searches that teach a few rows each,
    /// and a row that has aged to nothing stops being walked.
    #[test]
    fn ageing_the_live_rows_is_ageing_them_all() {
        use rand::{Rng as _, SeedableRng as _};
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
        let mut h = Histories::new_boxed();
        let mut twin: Box<ContTable> = h.cont.clone();
        let pair = |rng: &mut rand_pcg::Pcg64Mcg| loop {
            let p = rng.gen_range(0..PIECES);
            let sq = Square::from_index(rng.gen_range(0..Square::NUM)).expect("a square");
            if board::Piece::from_index(p).is_some_and(|piece| piece.can_stand_on(sq)) {
                break PieceTo::new(p, sq);
            }
        };
        for search in 0..50 {
            // A few contexts a search, taught in turn; none after the
            // thirtieth, so that everything ages away (15 halvings take
            // the largest value to zero).
            let contexts: Vec<QuietContext> = (0..if search < 30 { 4 } else { 0 })
                .map(|_| QuietContext {
                    prev1: Some(pair(&mut rng)),
                    prev2: Some(pair(&mut rng)).filter(|_| rng.gen_range(0..2) == 0),
                })
                .collect();
            for _ in 0..200 {
                let Some(&ctx) = contexts.get(rng.gen_range(0..contexts.len().max(1))) else {
                    break;
                };
                let mv = pair(&mut rng);
                let bonus = stat_bonus(rng.gen_range(1..12))
                    * if rng.gen_range(0..2) == 0 { 1 } else { -1 };
                h.apply(mv, ctx, bonus);
                for prev in [ctx.prev1, ctx.prev2].into_iter().flatten() {
                    gravity(&mut twin[prev.index()][mv.index()], bonus);
                }
            }
            h.age();
            for row in twin.iter_mut() {
                for v in row.iter_mut() {
                    *v /= 2;
                }
            }
            assert!(h.cont == twin, "after search {search}");
            for (row, live) in h.cont.iter().zip(&h.live) {
                assert!(*live || row.iter().all(|&v| v == 0));
            }
        }
        assert!(h.live.iter().all(|&l| !l), "everything aged away");
    }
}
