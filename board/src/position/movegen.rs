//! Legal move generation for [`Position`]: pseudo-legal targets, the
//! king-safety test and the exposure masks that let most moves skip it,
//! the quiet checks' candidate points, the bulk move count, legality of a
//! single move, and perft. Attack tests and make/unmake stay in the
//! parent, which owns the placement.

use super::Position;
use crate::attacks::{self, Line};
use crate::bitboard::Bitboard;
use crate::moves::{MAX_MOVES, Move, MoveList};
use crate::types::{Color, PieceKind, Square};

/// Which legal moves [`Position::generate`] lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Generate {
    All,
    /// The captures of the pieces on these squares.
    Captures(Bitboard),
    Quiets,
    /// The quiet moves that may give check: a superset of the checking
    /// ones, which [`Position::legal_quiet_checks`] then sifts exactly.
    QuietCheckCandidates,
}

impl Position {
    /// The squares a piece of `us` of `kind` on `from` could move to if
    /// there were no general to protect (own pieces excluded). Always
    /// inlined: the generator calls it with a constant kind, and the
    /// dispatch on the kind then folds away.
    #[inline(always)]
    fn pseudo_targets(&self, us: Color, kind: PieceKind, from: Square, occ: Bitboard) -> Bitboard {
        let own = self.by_color[us.index()];
        let theirs = self.by_color[(!us).index()];
        let fo = self.file_occ[from.file().index()] as usize;
        let t = match kind {
            PieceKind::King => attacks::king_moves(from),
            PieceKind::Advisor => attacks::advisor_moves(from),
            PieceKind::Bishop => attacks::bishop_moves(from, occ),
            PieceKind::Knight => attacks::knight_moves(from, occ),
            PieceKind::Rook => attacks::line_attacks(Line::Rook, from, occ, fo),
            PieceKind::Cannon => {
                attacks::line_attacks(Line::Slide, from, occ, fo)
                    | (attacks::line_attacks(Line::Cannon, from, occ, fo) & theirs)
            }
            PieceKind::Pawn => attacks::pawn_moves(us, from),
        };
        t.minus(own)
    }

    /// Whether moving `us`'s piece of `kind` from `from` to `to` leaves
    /// `us`'s general safe.
    #[inline]
    fn king_safe_after(&self, us: Color, kind: PieceKind, from: Square, to: Square) -> bool {
        let occ = self.occupied().without(from).with(to);
        let ksq = if kind == PieceKind::King {
            to
        } else {
            self.kings[us.index()]
        };
        let kf = ksq.file().index();
        let mut fo = self.file_occ[kf];
        if from.file().index() == kf {
            fo &= !(1 << from.rank().index());
        }
        if to.file().index() == kf {
            fo |= 1 << to.rank().index();
        }
        !self.attacked_in(ksq, !us, occ, fo as usize, Bitboard::from_square(to))
    }

    /// The squares a move must touch to need a full king-safety test,
    /// `(from_mask, to_mask)`. A move of a piece other than the general can
    /// expose its own general in only four ways, each found by looking
    /// along the four rays from the general and at its horse-leg points:
    /// 1. it leaves the ray between the general and an enemy chariot or
    ///    general of which it is the only blocker (a pin);
    /// 2. it leaves the ray between the general and an enemy cannon of which
    ///    it is one of the two screens;
    /// 3. it lands between the general and an enemy cannon that has no
    ///    screen yet, becoming one;
    /// 4. it leaves a horse-leg point behind which an enemy horse waits.
    ///
    /// Moves touching neither mask are legal when the general is not in
    /// check; the rest are tested one by one.
    #[inline]
    fn exposure_masks(&self, us: Color) -> (Bitboard, Bitboard) {
        let them = &self.by_piece[(!us).index()];
        let ksq = self.kings[us.index()];
        let occ = self.occupied();
        let fo = self.file_occ[ksq.file().index()] as usize;
        let first = attacks::line_attacks(Line::Rook, ksq, occ, fo) & occ;
        let second = attacks::line_attacks(Line::Cannon, ksq, occ, fo);
        let rooks = them[PieceKind::Rook.index()] | them[PieceKind::King.index()];
        let cannons = them[PieceKind::Cannon.index()];
        let mut from_mask = Bitboard::EMPTY;
        let mut to_mask = Bitboard::EMPTY;
        for sq in second & rooks {
            from_mask |= attacks::between(ksq, sq) & occ;
        }
        for sq in first & cannons {
            to_mask |= attacks::between(ksq, sq);
        }
        if cannons.is_nonempty() {
            // Third pieces along the rays: the second blockers once the
            // first ones are gone.
            let (occ2, fo2) = attacks::lift(occ, fo, first, ksq);
            let third = attacks::line_attacks(Line::Cannon, ksq, occ2, fo2);
            for sq in third & cannons {
                from_mask |= attacks::between(ksq, sq) & occ;
            }
        }
        let horses = them[PieceKind::Knight.index()];
        if horses.is_nonempty() {
            from_mask |= attacks::horse_legs_towards(ksq, horses);
        }
        (from_mask, to_mask)
    }

    /// Feeds the legal moves of the side to move of kind `which` to `sink`.
    /// Moves that cannot expose the general are handed over as whole target
    /// sets, so a counting sink never iterates them.
    #[inline]
    fn generate<S: MoveSink>(&self, which: Generate, sink: &mut S) {
        let us = self.side;
        let occ = self.occupied();
        let (from_mask, to_mask) = self.exposure_masks(us);
        let scope = Scope {
            occ,
            targets: match which {
                Generate::All => Bitboard::FULL,
                Generate::Captures(victims) => self.by_color[(!us).index()] & victims,
                Generate::Quiets | Generate::QuietCheckCandidates => Bitboard::FULL.minus(occ),
            },
            checks: (which == Generate::QuietCheckCandidates).then(|| self.check_squares(us, occ)),
            from_mask,
            to_mask,
            in_check: self.state.in_check,
        };
        // One call per kind, each with its kind a constant, rather than a
        // loop over the kinds: the order is the same (`PieceKind::ALL`).
        self.generate_kind(PieceKind::King, &scope, sink);
        self.generate_kind(PieceKind::Advisor, &scope, sink);
        self.generate_kind(PieceKind::Bishop, &scope, sink);
        self.generate_kind(PieceKind::Knight, &scope, sink);
        self.generate_kind(PieceKind::Rook, &scope, sink);
        self.generate_kind(PieceKind::Cannon, &scope, sink);
        self.generate_kind(PieceKind::Pawn, &scope, sink);
    }

    /// [`Position::generate`] for the pieces of one kind.
    #[inline(always)]
    fn generate_kind<S: MoveSink>(&self, kind: PieceKind, scope: &Scope, sink: &mut S) {
        let us = self.side;
        for from in self.by_piece[us.index()][kind.index()] {
            let mut targets = self.pseudo_targets(us, kind, from, scope.occ) & scope.targets;
            if let Some(checks) = &scope.checks {
                targets &= checks.landing(kind, from);
            }
            let test_all =
                scope.in_check || kind == PieceKind::King || scope.from_mask.contains(from);
            let risky = if test_all {
                targets
            } else {
                targets & scope.to_mask
            };
            sink.add_all(from, targets.minus(risky));
            for to in risky {
                if self.king_safe_after(us, kind, from, to) {
                    sink.add(from, to);
                }
            }
        }
    }

    /// The number of legal moves, without listing them (perft's last ply).
    ///
    /// When the general is not in check and no enemy cannon lacks only a
    /// screen, the pieces outside the exposure mask cannot expose the
    /// general, so their moves are counted whole lines at a time; the rest go
    /// through the per-move path of move generation. The cross-check tests
    /// and the perft suite check the two agree.
    pub fn count_legal_moves(&self) -> usize {
        let us = self.side;
        let (from_mask, to_mask) = self.exposure_masks(us);
        if self.state.in_check || to_mask.is_nonempty() {
            let mut n = MoveCount(0);
            self.generate(Generate::All, &mut n);
            return n.0;
        }
        let occ = self.occupied();
        let own = self.by_color[us.index()];
        let theirs = self.by_color[(!us).index()];
        let mine = &self.by_piece[us.index()];
        let special = from_mask | mine[PieceKind::King.index()];
        let mut n = 0u32;
        for sq in mine[PieceKind::Rook.index()].minus(special) {
            let fo = self.file_occ[sq.file().index()] as usize;
            n += attacks::line_attacks(Line::Rook, sq, occ, fo)
                .minus(own)
                .count();
        }
        for sq in mine[PieceKind::Cannon.index()].minus(special) {
            let fo = self.file_occ[sq.file().index()] as usize;
            n += attacks::line_attacks(Line::Slide, sq, occ, fo).count()
                + (attacks::line_attacks(Line::Cannon, sq, occ, fo) & theirs).count();
        }
        for sq in mine[PieceKind::Knight.index()].minus(special) {
            n += attacks::knight_moves(sq, occ).minus(own).count();
        }
        for sq in mine[PieceKind::Bishop.index()].minus(special) {
            n += attacks::bishop_moves(sq, occ).minus(own).count();
        }
        for sq in mine[PieceKind::Advisor.index()].minus(special) {
            n += attacks::advisor_moves(sq).minus(own).count();
        }
        for sq in mine[PieceKind::Pawn.index()].minus(special) {
            n += attacks::pawn_moves(us, sq).minus(own).count();
        }
        let mut rest = MoveCount(n as usize);
        for sq in own & special {
            if let Some(p) = self.board[sq.index()] {
                for to in self.pseudo_targets(us, p.kind(), sq, occ) {
                    if self.king_safe_after(us, p.kind(), sq, to) {
                        rest.add(sq, to);
                    }
                }
            }
        }
        rest.0
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut sink = ListSink::new();
        self.generate(Generate::All, &mut sink);
        sink.into_list()
    }

    /// The legal captures of the side to move (for quiescence search and
    /// the first stage of a staged move picker).
    pub fn legal_captures(&self) -> MoveList {
        self.legal_captures_of(Bitboard::FULL)
    }

    /// The legal captures of the pieces on `victims`, in the order
    /// [`Position::legal_captures`] lists them: quiescence asks only for
    /// the victims worth taking.
    pub fn legal_captures_of(&self, victims: Bitboard) -> MoveList {
        let mut sink = ListSink::new();
        self.generate(Generate::Captures(victims), &mut sink);
        sink.into_list()
    }

    /// The legal moves of the side to move that capture nothing, in the
    /// order [`Position::legal_moves`] lists them: with
    /// [`Position::legal_captures`], exactly the legal moves.
    pub fn legal_quiets(&self) -> MoveList {
        let mut sink = ListSink::new();
        self.generate(Generate::Quiets, &mut sink);
        sink.into_list()
    }

    /// The legal moves of the side to move that capture nothing and give
    /// check, in the order [`Position::legal_quiets`] lists them: exactly
    /// those of its moves for which [`Position::gives_check`] holds, found
    /// without testing every quiet move.
    pub fn legal_quiet_checks(&mut self) -> MoveList {
        let mut sink = ListSink::new();
        // The candidates assume the other general is not in check yet,
        // which only a pass made in check (`pass_for_rules`) breaks.
        let us = self.side;
        let which =
            if self.state.last_move.is_none() && self.is_attacked(self.kings[(!us).index()], us) {
                Generate::Quiets
            } else {
                Generate::QuietCheckCandidates
            };
        self.generate(which, &mut sink);
        let mut moves = sink.into_list();
        moves.retain(|m| self.gives_check(*m));
        moves
    }

    /// [`CheckSquares`] for `us` to move on occupancy `occ`. Where the
    /// other general is exposed to `us` is where `us`'s moves uncover a
    /// check or become a cannon's screen: [`Position::exposure_masks`]
    /// read from that general.
    fn check_squares(&self, us: Color, occ: Bitboard) -> CheckSquares {
        let (discoverers, screens) = self.exposure_masks(!us);
        let ksq = self.kings[(!us).index()];
        let fo = self.file_occ[ksq.file().index()] as usize;
        let rook_rays = attacks::line_attacks(Line::Rook, ksq, occ, fo);
        // The rays again with the first blockers gone: the empty points
        // behind them reach up to the second blockers.
        let (occ2, fo2) = attacks::lift(occ, fo, rook_rays & occ, ksq);
        CheckSquares {
            discoverers,
            rook: rook_rays.minus(occ),
            cannon: attacks::line_attacks(Line::Slide, ksq, occ2, fo2).minus(rook_rays),
            screens,
            horse: attacks::knight_attackers(ksq, occ),
            pawn: attacks::pawn_attackers(us, ksq),
        }
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        !self.legal_moves().is_empty()
    }

    /// Whether `m` is legal here. Works for any move value, so it can vet
    /// moves from a hash table, a killer slot or a book.
    pub fn is_legal(&self, m: Move) -> bool {
        let Some(p) = self.board[m.from().index()] else {
            return false;
        };
        if p.color() != self.side {
            return false;
        }
        let (from, to) = (m.from(), m.to());
        self.pseudo_targets(p.color(), p.kind(), from, self.occupied())
            .contains(to)
            && (self.cannot_expose(p.kind(), from, to)
                || self.king_safe_after(p.color(), p.kind(), from, to))
    }

    /// Whether a move of the side to move's piece of `kind` from `from` to
    /// `to` certainly leaves its general safe, without an attack test: the
    /// general is not in check, the piece is not the general, and the move
    /// touches none of the four ways of [`Position::exposure_masks`] — it
    /// neither leaves nor enters the general's file or rank (pins, cannon
    /// screens, the facing generals) and does not leave a square
    /// diagonally next to the general (a horse leg towards it). Most
    /// killers and table moves pass, and skip the attack test.
    #[inline]
    fn cannot_expose(&self, kind: PieceKind, from: Square, to: Square) -> bool {
        if self.state.in_check || kind == PieceKind::King {
            return false;
        }
        let k = self.kings[self.side.index()];
        let on_lines = |sq: Square| sq.file() == k.file() || sq.rank() == k.rank();
        let leg = from.file().index().abs_diff(k.file().index()) == 1
            && from.rank().index().abs_diff(k.rank().index()) == 1;
        !on_lines(from) && !on_lines(to) && !leg
    }

    /// Counts the leaves of the legal move tree `depth` plies deep. The last
    /// ply is counted in bulk (moves generated, not made).
    pub fn perft(&mut self, depth: u32) -> u64 {
        self.perft_until(depth, &|| false).unwrap_or(0)
    }

    /// [`Position::perft`] that gives up, returning `None`, once `stop`
    /// says so; it is asked at every node above the last ply, so a deep
    /// count can be interrupted within microseconds.
    pub fn perft_until(&mut self, depth: u32, stop: &impl Fn() -> bool) -> Option<u64> {
        if depth == 0 {
            return Some(1);
        }
        if depth == 1 {
            return Some(self.count_legal_moves() as u64);
        }
        if stop() {
            return None;
        }
        let mut total = 0;
        for m in self.legal_moves() {
            self.make_move(m);
            let n = self.perft_until(depth - 1, stop);
            self.unmake_move();
            total += n?;
        }
        Some(total)
    }

    /// Perft that makes and unmakes every move down to the leaves, for
    /// measuring make/unmake speed and cross-checking the bulk count.
    pub fn perft_full(&mut self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let mut total = 0;
        for m in self.legal_moves() {
            self.make_move(m);
            // The leaves are made and counted here rather than by a call
            // that would only return 1.
            total += if depth == 1 {
                1
            } else {
                self.perft_full(depth - 1)
            };
            self.unmake_move();
        }
        total
    }

    /// Perft split by root move, the moves in ICCS order (`a0a1` first):
    /// one order for every front end (`go perft`, `chariot perft`, the
    /// bindings), whatever order the generator finds them in.
    pub fn divide(&mut self, depth: u32) -> Vec<(Move, u64)> {
        self.divide_until(depth, &|| false).unwrap_or_default()
    }

    /// [`Position::divide`] that gives up like [`Position::perft_until`].
    pub fn divide_until(
        &mut self,
        depth: u32,
        stop: &impl Fn() -> bool,
    ) -> Option<Vec<(Move, u64)>> {
        if depth == 0 {
            return Some(Vec::new());
        }
        let mut out = Vec::new();
        for m in self.legal_moves() {
            self.make_move(m);
            let n = self.perft_until(depth - 1, stop);
            self.unmake_move();
            out.push((m, n?));
        }
        out.sort_by_cached_key(|(m, _)| m.to_string());
        Some(out)
    }
}

/// What [`Position::generate`] works out once per position for every
/// kind's loop.
struct Scope {
    /// The occupancy.
    occ: Bitboard,
    /// The target squares wanted: all, the enemy's pieces or the empty ones.
    targets: Bitboard,
    /// The exposure masks of [`Position::exposure_masks`].
    from_mask: Bitboard,
    to_mask: Bitboard,
    /// Whether every move needs the full king-safety test.
    in_check: bool,
    /// For [`Generate::QuietCheckCandidates`]: where a move may check.
    checks: Option<CheckSquares>,
}

/// Where a quiet move of the side to move may give check, worked out once
/// per position from the other general's rays and horse legs (the three
/// ways of `Position::move_gives_check`): a superset of the checking
/// moves, close to exact, cheap to test per target.
struct CheckSquares {
    /// The points whose piece uncovers a check by any move: the only
    /// blocker between the other general and an own chariot, either of a
    /// cannon's two screens, the leg of an own horse aiming at the general
    /// (and the only blocker between the two generals, whose moves off
    /// the file are illegal).
    discoverers: Bitboard,
    /// The empty points from which a chariot attacks the general.
    rook: Bitboard,
    /// The empty points from which a cannon attacks it, over one screen.
    cannon: Bitboard,
    /// The empty points between the general and an own cannon with no
    /// screen: any piece landing there becomes the screen.
    screens: Bitboard,
    /// The points from which a horse attacks the general. A horse's move
    /// never empties the leg of its own new attack, so the occupancy
    /// before the move gives the right legs.
    horse: Bitboard,
    /// The points from which a soldier attacks the general.
    pawn: Bitboard,
}

impl CheckSquares {
    /// The targets of a piece of `kind` on `from` that may give check.
    /// The general gets only the screens: it never reaches the other
    /// general's rank, and on its file it would face it.
    #[inline(always)]
    fn landing(&self, kind: PieceKind, from: Square) -> Bitboard {
        if self.discoverers.contains(from) {
            return Bitboard::FULL;
        }
        match kind {
            PieceKind::Rook => self.rook,
            PieceKind::Cannon => self.cannon | self.screens,
            PieceKind::Knight => self.horse | self.screens,
            PieceKind::Pawn => self.pawn | self.screens,
            _ => self.screens,
        }
    }
}

/// Where move generation delivers legal moves.
trait MoveSink {
    /// One legal move.
    fn add(&mut self, from: Square, to: Square);
    /// A legal move from `from` to every square of `targets`.
    fn add_all(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.add(from, to);
        }
    }
}

/// Collects the moves in a plain array with their count beside it, which
/// `add_all` keeps in a register while it adds a piece's moves: pushing
/// onto the `MoveList` itself loaded and stored its length in memory for
/// every move.
struct ListSink {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl ListSink {
    fn new() -> ListSink {
        ListSink {
            // Any move: only the first `len` entries are read.
            moves: [Move::new_unchecked_distinct(Square::from_bit(0), Square::from_bit(1));
                MAX_MOVES],
            len: 0,
        }
    }

    fn into_list(self) -> MoveList {
        let mut list = MoveList::new();
        // The list and the array hold MAX_MOVES alike, so this never fails.
        let _ = list.try_extend_from_slice(&self.moves[..self.len]);
        list
    }
}

impl MoveSink for ListSink {
    #[inline]
    fn add(&mut self, from: Square, to: Square) {
        // MAX_MOVES is more than any position has.
        self.moves[self.len] = Move::new_unchecked_distinct(from, to);
        self.len += 1;
    }
    #[inline]
    fn add_all(&mut self, from: Square, targets: Bitboard) {
        // The count in a local for the loop: through `self` it would be
        // loaded and stored for every move.
        let mut len = self.len;
        for to in targets {
            self.moves[len] = Move::new_unchecked_distinct(from, to);
            len += 1;
        }
        self.len = len;
    }
}

/// Only counts them.
struct MoveCount(usize);

impl MoveSink for MoveCount {
    #[inline]
    fn add(&mut self, _from: Square, _to: Square) {
        self.0 += 1;
    }
    #[inline]
    fn add_all(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as usize;
    }
}
