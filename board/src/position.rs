//! [`Position`]: the checked board, its legal moves, make/unmake with an
//! incrementally kept Zobrist key, and the per-ply history that repetition
//! and move-limit judging read.

use std::fmt;

use crate::attacks::{self, Line};
use crate::fen::{FenError, START_FEN, Setup};
use crate::moves::{Move, MoveList};
use crate::types::{ByColor, Color, Piece, PieceKind, Square};
use crate::zobrist;

/// Checks per side after which further checks (and the replies to them) no
/// longer advance the move-limit counter (`docs/rules.md` §4.4).
pub const CHECKS_COUNTED: u8 = 10;

/// What a move changed, kept so it can be undone and so the rules can look
/// back over the game. One entry per ply; the current ply's entry is
/// [`Position::state`].
///
/// Copied forward on make and popped on unmake: everything here is either
/// carried over from the previous entry and adjusted (`key`, `rule60`,
/// `checks`) or computed once by the make (`captured`, `in_check`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    /// Zobrist key of the position.
    pub key: u64,
    /// The move that led here (`None` at the root and after a null move).
    pub last_move: Option<Move>,
    /// The piece that move captured.
    pub captured: Option<Piece>,
    /// Whether the side to move is in check.
    pub in_check: bool,
    /// Move-limit counter: plies since the last capture, not counting checks
    /// past [`CHECKS_COUNTED`] and their replies.
    pub rule60: u16,
    /// Checks each side gave since the last capture (saturating).
    pub checks: ByColor<u8>,
}

/// A legal xiangqi position with its game history since the setup.
///
/// Invariant: `board`, `by_color`, `by_piece`, `file_occ`, `file_occ_by`, `kings` and
/// `state.key` always describe the same placement; only `Position::toggle`
/// changes them, and it changes all of them at once.
#[derive(Clone)]
pub struct Position {
    board: [Option<Piece>; 90],
    by_color: [u128; 2],
    by_piece: [[u128; 7]; 2],
    /// Occupancy of each file as a 10-bit mask (bit = rank), kept so that
    /// file lookups need no bit gathering.
    file_occ: [u16; 9],
    /// The same per colour, for counting moves on whole lines at once.
    file_occ_by: [[u16; 9]; 2],
    kings: [Square; 2],
    side: Color,
    fullmove: u16,
    state: State,
    history: Vec<State>,
}

/// Why a move could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalMove {
    /// The text is not an ICCS move.
    Unreadable(String),
    /// The move is well formed but not legal here.
    Illegal(Move),
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::Unreadable(s) => write!(f, "cannot read move '{s}'"),
            IllegalMove::Illegal(m) => write!(f, "illegal move {m}"),
        }
    }
}

impl std::error::Error for IllegalMove {}

impl Default for Position {
    fn default() -> Position {
        Position::startpos()
    }
}

impl Position {
    /// The start position.
    ///
    /// # Panics
    /// Never: the start FEN is a constant that parses.
    pub fn startpos() -> Position {
        Position::from_fen(START_FEN).expect("the start position is valid")
    }

    /// Reads and checks a FEN.
    ///
    /// # Errors
    /// A [`FenError`] naming the first problem with the text or the position.
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        Position::from_setup(&Setup::parse(fen)?)
    }

    /// Checks a setup against every rule of `docs/rules.md` §5.
    ///
    /// # Errors
    /// A [`FenError`] naming the failed check.
    pub fn from_setup(setup: &Setup) -> Result<Position, FenError> {
        setup.validate_placement()?;
        let mut pos = Position {
            board: [None; 90],
            by_color: [0; 2],
            by_piece: [[0; 7]; 2],
            file_occ: [0; 9],
            file_occ_by: [[0; 9]; 2],
            kings: [Square::from_index_panicking(0); 2],
            side: setup.side,
            fullmove: setup.fullmove,
            state: State {
                key: 0,
                last_move: None,
                captured: None,
                in_check: false,
                rule60: setup.rule60,
                checks: ByColor::default(),
            },
            history: Vec::new(),
        };
        for sq in Square::all() {
            if let Some(p) = setup.board[sq.index()] {
                pos.toggle(p, sq);
            }
        }
        if setup.side == Color::Black {
            pos.state.key ^= zobrist::SIDE_KEY;
        }
        let (rk, bk) = (pos.kings[0], pos.kings[1]);
        if rk.file() == bk.file() && pos.between_on_file(rk, bk) == 0 {
            return Err(FenError::GeneralsFacing);
        }
        if pos.is_attacked(pos.kings[(!pos.side).index()], pos.side) {
            return Err(FenError::SideNotToMoveInCheck);
        }
        pos.state.in_check = pos.is_attacked(pos.kings[pos.side.index()], !pos.side);
        Ok(pos)
    }

    /// The setup this position would be written as.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board,
            side: self.side,
            rule60: self.state.rule60,
            fullmove: self.fullmove_number(),
        }
    }

    /// The FEN of the position, all six fields.
    pub fn fen(&self) -> String {
        let mut s = String::with_capacity(90);
        for rank in (0..10).rev() {
            let mut empty = 0;
            for file in 0..9 {
                match self.board[rank * 9 + file] {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            s.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        s.push(p.to_char());
                    }
                }
            }
            if empty > 0 {
                s.push(char::from(b'0' + empty));
            }
            if rank > 0 {
                s.push('/');
            }
        }
        format!(
            "{s} {} - - {} {}",
            self.side.fen_char(),
            self.state.rule60,
            self.fullmove_number()
        )
    }

    /// Adds or removes piece `p` on `sq`, keeping every representation and
    /// the key in step. The single place the placement changes.
    #[inline]
    fn toggle(&mut self, p: Piece, sq: Square) {
        let bit = 1u128 << sq.index();
        let (c, k) = (p.color().index(), p.kind().index());
        self.by_color[c] ^= bit;
        self.by_piece[c][k] ^= bit;
        self.file_occ[sq.file().index()] ^= 1 << sq.rank().index();
        self.file_occ_by[c][sq.file().index()] ^= 1 << sq.rank().index();
        self.state.key ^= zobrist::PIECE_KEYS[c][k][sq.index()];
        if self.board[sq.index()].is_some() {
            self.board[sq.index()] = None;
        } else {
            self.board[sq.index()] = Some(p);
            if p.kind() == PieceKind::King {
                self.kings[c] = sq;
            }
        }
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// The piece on `sq`.
    #[inline]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// The squares of `color`'s pieces of `kind`.
    #[inline]
    pub fn pieces(&self, color: Color, kind: PieceKind) -> crate::Bitboard {
        crate::Bitboard(self.by_piece[color.index()][kind.index()])
    }

    /// The squares of all `color`'s pieces.
    #[inline]
    pub fn occupied_by(&self, color: Color) -> crate::Bitboard {
        crate::Bitboard(self.by_color[color.index()])
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> crate::Bitboard {
        crate::Bitboard(self.by_color[0] | self.by_color[1])
    }

    /// Where `color`'s general stands.
    #[inline]
    pub fn king_square(&self, color: Color) -> Square {
        self.kings[color.index()]
    }

    /// The Zobrist key of the placement and side to move.
    #[inline]
    pub fn key(&self) -> u64 {
        self.state.key
    }

    /// The current ply's state.
    #[inline]
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The states of the earlier plies, oldest first: entry `i` describes the
    /// position before the `i`-th move since the setup.
    #[inline]
    pub fn history(&self) -> &[State] {
        &self.history
    }

    /// Plies played since the setup.
    #[inline]
    pub fn game_ply(&self) -> usize {
        self.history.len()
    }

    /// The move counter as a FEN would print it.
    pub fn fullmove_number(&self) -> u16 {
        let black_moves = self.history.len() / 2
            + usize::from(self.history.len() % 2 == 1 && self.side == Color::Red);
        self.fullmove
            .saturating_add(u16::try_from(black_moves).unwrap_or(u16::MAX))
    }

    /// Whether the side to move is in check.
    #[inline]
    pub fn in_check(&self) -> bool {
        self.state.in_check
    }

    /// Plies counted toward the 60-move limit.
    #[inline]
    pub fn rule60(&self) -> u16 {
        self.state.rule60
    }

    /// The Zobrist key computed from scratch, to cross-check the incremental one.
    pub fn compute_key(&self) -> u64 {
        let mut key = if self.side == Color::Black {
            zobrist::SIDE_KEY
        } else {
            0
        };
        for sq in Square::all() {
            if let Some(p) = self.board[sq.index()] {
                key ^= zobrist::PIECE_KEYS[p.color().index()][p.kind().index()][sq.index()];
            }
        }
        key
    }

    /// The Zobrist key `piece_at` would contribute on `sq`, for tools that
    /// need keys of positions they do not build (book lookups of mirrors).
    pub fn piece_key(piece: Piece, sq: Square) -> u64 {
        zobrist::PIECE_KEYS[piece.color().index()][piece.kind().index()][sq.index()]
    }

    /// The key component for Black to move.
    pub fn side_key() -> u64 {
        zobrist::SIDE_KEY
    }

    /// Occupancy of the squares strictly between two squares of one file.
    fn between_on_file(&self, a: Square, b: Square) -> u16 {
        let (lo, hi) = (
            a.rank().index().min(b.rank().index()),
            a.rank().index().max(b.rank().index()),
        );
        let mask = ((1u16 << hi) - 1) & !((1u16 << (lo + 1)) - 1);
        self.file_occ[a.file().index()] & mask
    }

    /// Whether a piece of `by` attacks `sq`: could capture an enemy piece
    /// standing there by its movement rules, pins ignored (so for a square
    /// holding `by`'s own piece: whether it is protected). On the other
    /// general's square this includes the flying-general rule.
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        let occ = self.by_color[0] | self.by_color[1];
        let file_occ = self.file_occ[sq.file().index()] as usize;
        if sq == self.kings[(!by).index()] {
            return self.attacked_in(sq, by, occ, file_occ, 0);
        }
        // Elsewhere the general attacks only its neighbours in the palace
        // (not along the file: leave it out of the check test's line
        // attackers), and advisors and elephants count (they never reach
        // the other general, so the check test leaves them out).
        let king = self.kings[by.index()];
        let bit = 1u128 << sq.index();
        let theirs = &self.by_piece[by.index()];
        self.attacked_in(sq, by, occ, file_occ, 1u128 << king.index())
            || attacks::king_moves(king) & bit != 0
            || crate::Bitboard(theirs[PieceKind::Advisor.index()])
                .any(|a| attacks::advisor_moves(a) & bit != 0)
            || crate::Bitboard(theirs[PieceKind::Bishop.index()])
                .any(|b| attacks::bishop_moves(b, occ) & bit != 0)
    }

    /// Attack test on a hypothetical board: `occ` is the occupancy,
    /// `file_occ` that of `sq`'s file, and `removed` squares whose piece
    /// does not count (an attacker just captured, or the general where it
    /// does not fly).
    #[inline]
    fn attacked_in(
        &self,
        sq: Square,
        by: Color,
        occ: u128,
        file_occ: usize,
        removed: u128,
    ) -> bool {
        let theirs = &self.by_piece[by.index()];
        let live = !removed;
        let rooks = (theirs[PieceKind::Rook.index()] | theirs[PieceKind::King.index()]) & live;
        if attacks::line_attacks(Line::Rook, sq, occ, file_occ) & rooks != 0 {
            return true;
        }
        let cannons = theirs[PieceKind::Cannon.index()] & live;
        if cannons != 0 && attacks::line_attacks(Line::Cannon, sq, occ, file_occ) & cannons != 0 {
            return true;
        }
        let knights = theirs[PieceKind::Knight.index()] & live;
        if knights != 0 && attacks::knight_attackers(sq, occ) & knights != 0 {
            return true;
        }
        attacks::pawn_attackers(by, sq) & theirs[PieceKind::Pawn.index()] & live != 0
    }

    /// The squares a piece of kind `p` on `from` could move to if there were
    /// no general to protect (own pieces excluded).
    #[inline]
    fn pseudo_targets(&self, p: Piece, from: Square, occ: u128) -> u128 {
        let own = self.by_color[p.color().index()];
        let theirs = self.by_color[(!p.color()).index()];
        let fo = self.file_occ[from.file().index()] as usize;
        let t = match p.kind() {
            PieceKind::King => attacks::king_moves(from),
            PieceKind::Advisor => attacks::advisor_moves(from),
            PieceKind::Bishop => attacks::bishop_moves(from, occ),
            PieceKind::Knight => attacks::knight_moves(from, occ),
            PieceKind::Rook => attacks::line_attacks(Line::Rook, from, occ, fo),
            PieceKind::Cannon => {
                attacks::line_attacks(Line::Slide, from, occ, fo)
                    | (attacks::line_attacks(Line::Cannon, from, occ, fo) & theirs)
            }
            PieceKind::Pawn => attacks::pawn_moves(p.color(), from),
        };
        t & !own
    }

    /// Whether moving `p` from `from` to `to` leaves the mover's general safe.
    #[inline]
    fn king_safe_after(&self, p: Piece, from: Square, to: Square) -> bool {
        let us = p.color();
        let from_bit = 1u128 << from.index();
        let to_bit = 1u128 << to.index();
        let occ = ((self.by_color[0] | self.by_color[1]) & !from_bit) | to_bit;
        let ksq = if p.kind() == PieceKind::King {
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
        !self.attacked_in(ksq, !us, occ, fo as usize, to_bit)
    }

    /// The squares a move must touch to need a full king-safety test,
    /// `(from_mask, to_mask)`. A move of a piece other than the general can
    /// expose its own general in only three ways, each found by looking
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
    fn exposure_masks(&self, us: Color) -> (u128, u128) {
        let them = &self.by_piece[(!us).index()];
        let ksq = self.kings[us.index()];
        let occ = self.by_color[0] | self.by_color[1];
        let fo = self.file_occ[ksq.file().index()] as usize;
        let first = attacks::line_attacks(Line::Rook, ksq, occ, fo) & occ;
        let second = attacks::line_attacks(Line::Cannon, ksq, occ, fo);
        let rooks = them[PieceKind::Rook.index()] | them[PieceKind::King.index()];
        let cannons = them[PieceKind::Cannon.index()];
        let mut from_mask = 0;
        let mut to_mask = 0;
        for sq in crate::Bitboard(second & rooks) {
            from_mask |= attacks::between(ksq, sq) & occ;
        }
        for sq in crate::Bitboard(first & cannons) {
            to_mask |= attacks::between(ksq, sq);
        }
        if cannons != 0 {
            // Third pieces along the rays: the second blockers once the
            // first ones are gone.
            let occ2 = occ & !first;
            let fo2 = fo & !(attacks::file_bits(first, ksq));
            let third = attacks::line_attacks(Line::Cannon, ksq, occ2, fo2);
            for sq in crate::Bitboard(third & cannons) {
                from_mask |= attacks::between(ksq, sq) & occ;
            }
        }
        let horses = them[PieceKind::Knight.index()];
        if horses != 0 {
            from_mask |= attacks::horse_legs_towards(ksq, horses);
        }
        (from_mask, to_mask)
    }

    /// Feeds the legal moves of the side to move to `sink`; only captures
    /// when `captures_only`. Moves that cannot expose the general are handed
    /// over as whole target sets, so a counting sink never iterates them.
    #[inline]
    fn generate<S: MoveSink>(&self, captures_only: bool, sink: &mut S) {
        let us = self.side;
        let occ = self.by_color[0] | self.by_color[1];
        let theirs = self.by_color[(!us).index()];
        let (from_mask, to_mask) = self.exposure_masks(us);
        let in_check = self.state.in_check;
        let mask = if captures_only { theirs } else { !0 };
        for kind in PieceKind::ALL {
            let p = Piece::new(us, kind);
            let mut froms = self.by_piece[us.index()][kind.index()];
            while froms != 0 {
                let from = Square::from_index_trusted(froms.trailing_zeros());
                froms &= froms - 1;
                let targets = self.pseudo_targets(p, from, occ) & mask;
                let test_all =
                    in_check || kind == PieceKind::King || from_mask >> from.index() & 1 != 0;
                let mut risky = if test_all { targets } else { targets & to_mask };
                sink.add_all(from, targets & !risky);
                while risky != 0 {
                    let to = Square::from_index_trusted(risky.trailing_zeros());
                    risky &= risky - 1;
                    if self.king_safe_after(p, from, to) {
                        sink.add(from, to);
                    }
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
        if self.state.in_check || to_mask != 0 {
            let mut n = MoveCount(0);
            self.generate(false, &mut n);
            return n.0;
        }
        let occ = self.by_color[0] | self.by_color[1];
        let own = self.by_color[us.index()];
        let theirs = self.by_color[(!us).index()];
        let mine = &self.by_piece[us.index()];
        let special = from_mask | mine[PieceKind::King.index()];
        let mut n = 0u32;
        for sq in crate::Bitboard(mine[PieceKind::Rook.index()] & !special) {
            let (f, r) = (sq.file().index(), sq.rank().index());
            let (rank, file) = attacks::line_masks(Line::Rook, sq, occ, self.file_occ[f] as usize);
            let own_rank = attacks::rank_occupancy(own, r) as u16;
            n += (rank & !own_rank).count_ones()
                + (file & !self.file_occ_by[us.index()][f]).count_ones();
        }
        for sq in crate::Bitboard(mine[PieceKind::Cannon.index()] & !special) {
            let (f, r) = (sq.file().index(), sq.rank().index());
            let fo = self.file_occ[f] as usize;
            let (rank, file) = attacks::line_masks(Line::Slide, sq, occ, fo);
            let (rank_hit, file_hit) = attacks::line_masks(Line::Cannon, sq, occ, fo);
            let their_rank = attacks::rank_occupancy(theirs, r) as u16;
            n += rank.count_ones()
                + file.count_ones()
                + (rank_hit & their_rank).count_ones()
                + (file_hit & self.file_occ_by[(!us).index()][f]).count_ones();
        }
        for sq in crate::Bitboard(mine[PieceKind::Knight.index()] & !special) {
            n += (attacks::knight_moves(sq, occ) & !own).count_ones();
        }
        for sq in crate::Bitboard(mine[PieceKind::Bishop.index()] & !special) {
            n += (attacks::bishop_moves(sq, occ) & !own).count_ones();
        }
        for sq in crate::Bitboard(mine[PieceKind::Advisor.index()] & !special) {
            n += (attacks::advisor_moves(sq) & !own).count_ones();
        }
        for sq in crate::Bitboard(mine[PieceKind::Pawn.index()] & !special) {
            n += (attacks::pawn_moves(us, sq) & !own).count_ones();
        }
        let mut rest = MoveCount(n as usize);
        for sq in crate::Bitboard(own & special) {
            if let Some(p) = self.board[sq.index()] {
                for to in crate::Bitboard(self.pseudo_targets(p, sq, occ)) {
                    if self.king_safe_after(p, sq, to) {
                        rest.add(sq, to);
                    }
                }
            }
        }
        rest.0
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(false, &mut ListSink(&mut list));
        list
    }

    /// The legal captures of the side to move (for quiescence search).
    pub fn legal_captures(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate(true, &mut ListSink(&mut list));
        list
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
        let occ = self.by_color[0] | self.by_color[1];
        self.pseudo_targets(p, m.from(), occ) >> m.to().index() & 1 != 0
            && self.king_safe_after(p, m.from(), m.to())
    }

    /// Whether legal move `m` captures.
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        self.board[m.to().index()].is_some()
    }

    /// Whether legal move `m` gives check.
    pub fn gives_check(&mut self, m: Move) -> bool {
        self.make_move(m);
        let check = self.state.in_check;
        self.unmake_move();
        check
    }

    /// Reads an ICCS move and checks that it is legal here.
    ///
    /// # Errors
    /// [`IllegalMove::Unreadable`] for bad text, [`IllegalMove::Illegal`]
    /// for a well-formed move that is not legal.
    pub fn parse_move(&self, text: &str) -> Result<Move, IllegalMove> {
        let m: Move = text
            .parse()
            .map_err(|_| IllegalMove::Unreadable(text.chars().take(32).collect()))?;
        if self.is_legal(m) {
            Ok(m)
        } else {
            Err(IllegalMove::Illegal(m))
        }
    }

    /// Plays `m` after checking that it is legal.
    ///
    /// # Errors
    /// [`IllegalMove::Illegal`] if it is not; the position is unchanged.
    pub fn play(&mut self, m: Move) -> Result<(), IllegalMove> {
        if !self.is_legal(m) {
            return Err(IllegalMove::Illegal(m));
        }
        self.make_move(m);
        Ok(())
    }

    /// Plays a move known to be legal (the search's path). Debug builds
    /// assert legality and re-check the incremental key.
    pub fn make_move(&mut self, m: Move) {
        debug_assert!(self.is_legal(m), "make_move({m}) in {}", self.fen());
        let (from, to) = (m.from(), m.to());
        let Some(p) = self.board[from.index()] else {
            return;
        };
        let us = self.side;
        self.history.push(self.state);
        let captured = self.board[to.index()];
        if let Some(c) = captured {
            self.toggle(c, to);
        }
        self.toggle(p, from);
        self.toggle(p, to);
        self.side = !us;
        self.state.key ^= zobrist::SIDE_KEY;
        let was_in_check = self.state.in_check;
        let gives_check = self.is_attacked(self.kings[(!us).index()], us);
        self.state.last_move = Some(m);
        self.state.captured = captured;
        self.state.in_check = gives_check;
        if captured.is_some() {
            self.state.rule60 = 0;
            self.state.checks = ByColor::default();
        } else {
            // Rules §4.4: checks past the tenth of a side, and the replies to
            // them, do not advance the counter.
            let exempt = if gives_check {
                self.state.checks[us] >= CHECKS_COUNTED
            } else {
                was_in_check && self.state.checks[!us] > CHECKS_COUNTED
            };
            if gives_check {
                self.state.checks[us] = self.state.checks[us].saturating_add(1);
            }
            if !exempt {
                self.state.rule60 = self.state.rule60.saturating_add(1);
            }
        }
        debug_assert_eq!(self.state.key, self.compute_key());
    }

    /// Takes back the last move (or null move).
    ///
    /// # Panics
    /// If there is no move to take back.
    pub fn unmake_move(&mut self) {
        let prev = self
            .history
            .pop()
            .expect("unmake_move without a move to take back");
        if let Some(m) = self.state.last_move {
            let (from, to) = (m.from(), m.to());
            if let Some(p) = self.board[to.index()] {
                self.toggle(p, to);
                self.toggle(p, from);
            }
            if let Some(c) = self.state.captured {
                self.toggle(c, to);
            }
        }
        self.side = !self.side;
        self.state = prev;
        debug_assert_eq!(self.state.key, self.compute_key());
    }

    /// Passes the move (for null-move pruning). Not legal when in check.
    pub fn make_null_move(&mut self) {
        debug_assert!(!self.state.in_check);
        self.history.push(self.state);
        self.side = !self.side;
        self.state.key ^= zobrist::SIDE_KEY;
        self.state.last_move = None;
        self.state.captured = None;
        self.state.in_check = false;
    }

    /// Takes back a null move.
    pub fn unmake_null_move(&mut self) {
        self.unmake_move();
    }

    /// Forgets the history, keeping the position: makes the current position
    /// the new root for repetition and move-limit purposes.
    pub fn clear_history(&mut self) {
        self.fullmove = self.fullmove_number();
        self.history.clear();
        self.state.last_move = None;
        self.state.captured = None;
    }

    /// The left-right mirror of the position (file a ↔ i), same side to move
    /// and counters, no history.
    #[must_use]
    pub fn mirror(&self) -> Position {
        let mut setup = self.to_setup();
        for sq in Square::all() {
            setup.board[sq.mirror().index()] = self.board[sq.index()];
        }
        // A mirrored legal position is legal: every rule of §5 is symmetric.
        Position::from_setup(&setup).expect("the mirror of a legal position is legal")
    }

    /// The Zobrist key of the mirrored position, without building it.
    pub fn mirrored_key(&self) -> u64 {
        let mut key = if self.side == Color::Black {
            zobrist::SIDE_KEY
        } else {
            0
        };
        for sq in self.occupied() {
            if let Some(p) = self.board[sq.index()] {
                key ^= Position::piece_key(p, sq.mirror());
            }
        }
        key
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
            total += self.perft_full(depth - 1);
            self.unmake_move();
        }
        total
    }

    /// Perft split by root move, in generation order.
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
        Some(out)
    }
}

/// Where move generation delivers legal moves.
trait MoveSink {
    /// One legal move.
    fn add(&mut self, from: Square, to: Square);
    /// A legal move from `from` to every square of `targets`.
    fn add_all(&mut self, from: Square, mut targets: u128) {
        while targets != 0 {
            let to = Square::from_index_trusted(targets.trailing_zeros());
            targets &= targets - 1;
            self.add(from, to);
        }
    }
}

/// Collects the moves.
struct ListSink<'a>(&'a mut MoveList);

impl MoveSink for ListSink<'_> {
    #[inline]
    fn add(&mut self, from: Square, to: Square) {
        // The list holds MAX_MOVES, more than any position has.
        self.0.push(Move::new_unchecked_distinct(from, to));
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
    fn add_all(&mut self, _from: Square, targets: u128) {
        self.0 += targets.count_ones() as usize;
    }
}

impl fmt::Display for Position {
    /// The board as text, rank 9 at the top, then the FEN.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for rank in (0..10).rev() {
            write!(f, "{rank} ")?;
            for file in 0..9 {
                let c = self.board[rank * 9 + file].map_or('.', Piece::to_char);
                write!(f, " {c}")?;
            }
            writeln!(f)?;
        }
        writeln!(f, "   a b c d e f g h i")?;
        write!(f, "Fen: {}", self.fen())
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}
