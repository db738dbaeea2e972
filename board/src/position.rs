//! [`Position`]: the checked board, attack tests, make/unmake with an
//! incrementally kept Zobrist key, and the per-ply history that repetition
//! and move-limit judging read. Generating and counting the legal moves
//! lives in the child module `movegen`.
//!
//! Make and unmake, and the check test that make derives from the lines
//! the move changed, live together because each must keep every field of
//! the position's invariant; generation, SEE and the rules read the
//! position and live in their own modules.

use std::fmt;

use crate::attacks::{self, Line};
use crate::bitboard::Bitboard;
use crate::fen::{FenError, START_FEN, Setup};
use crate::moves::Move;
use crate::types::{ByColor, Color, Piece, PieceKind, Square};
use crate::zobrist;

mod movegen;

/// Checks per side after which further checks (and the replies to them) no
/// longer advance the move-limit counter (`docs/rules.md` §4.4).
pub const CHECKS_COUNTED: u8 = 10;

/// What a move changed, kept so it can be undone and so the rules can look
/// back over the game. One entry per ply; the current ply's entry is
/// [`Position::state`].
///
/// Copied forward on make and popped on unmake: everything here is either
/// carried over from the previous entry and adjusted (`key`, `rule60`,
/// `checks`, `reversible`, `seen`) or computed once by the make (`captured`,
/// `in_check`).
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
    /// Plies since the last capture, null move or the setup (saturating):
    /// how far back an earlier occurrence of this position can lie, so
    /// that the repetition test reads only those entries.
    pub reversible: u16,
    /// A one-word filter of the positions 2, 4, 6, … plies back within the
    /// `reversible` window (the same side to move): bit `key >> 58` of
    /// each one's key. A position whose own bit is clear here occurred
    /// nowhere in the window, so the repetition test needs no walk; one
    /// whose bit is set may have (a false alarm about one time in two
    /// at a window of 40 same-side positions, the 80 plies of a long
    /// quiet stretch), and is walked. (128 bits halve the false alarms
    /// but cost the make more than they save the test.)
    pub seen: u64,
}

impl State {
    /// Whether an earlier occurrence of this position may lie in the
    /// repetition window: not right after a capture, a null move or the
    /// setup, and its own bit set in [`State::seen`]. `false` means
    /// certainly none, so the look-back is not needed.
    #[inline]
    pub fn may_repeat(&self) -> bool {
        self.captured.is_none() && self.last_move.is_some() && self.seen & seen_bit(self.key) != 0
    }
}

/// The bit a key sets in [`State::seen`]: its top six bits (the table
/// indexes by the low bits), so the filter is as good as the key.
#[inline]
pub(crate) const fn seen_bit(key: u64) -> u64 {
    1 << (key >> 58)
}

/// A legal xiangqi position with its game history since the setup.
///
/// Invariant: `board`, `occ`, `by_color`, `by_piece`, `file_occ`, `kings`
/// and `state.key` always describe the same placement. Only
/// `Position::put`, `Position::lift` and `Position::shift` change the
/// placement, each keeping all the sets in step. The key follows in
/// `Position::toggle` (the setup), in `make_move` (by the whole move at
/// once) and in `unmake_move` (restored from the history).
#[derive(Clone)]
pub struct Position {
    board: [Option<Piece>; 90],
    /// Every occupied square: `by_color[0] | by_color[1]`, kept rather than
    /// computed because the two sets are written half by half (two 64-bit
    /// stores) and an OR of both, compiled to one 128-bit load each, would
    /// wait for those stores to reach the cache (a store-forwarding stall
    /// measured at a tenth of perft's time).
    occ: Bitboard,
    by_color: [Bitboard; 2],
    by_piece: [[Bitboard; 7]; 2],
    /// Occupancy of each file as a 10-bit mask (bit = rank), kept so that
    /// file lookups need no bit gathering.
    file_occ: [u16; 9],
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
            occ: Bitboard::EMPTY,
            by_color: [Bitboard::EMPTY; 2],
            by_piece: [[Bitboard::EMPTY; 7]; 2],
            file_occ: [0; 9],
            // Placeholders: toggling the setup's generals in sets both.
            kings: [Square::from_bit(0); 2],
            side: setup.side,
            fullmove: setup.fullmove,
            state: State {
                key: 0,
                last_move: None,
                captured: None,
                in_check: false,
                rule60: setup.rule60,
                checks: ByColor::default(),
                reversible: 0,
                seen: 0,
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
    /// the key in step: how a setup is placed.
    fn toggle(&mut self, p: Piece, sq: Square) {
        self.state.key ^= Position::piece_key(p, sq);
        if self.board[sq.index()].is_some() {
            self.lift(p, sq);
        } else {
            self.put(p, sq);
        }
    }

    /// Puts `p` on the empty square `sq`. The key is the caller's:
    /// `make_move` updates it by the whole move at once and `unmake_move`
    /// restores it from the history.
    #[inline]
    fn put(&mut self, p: Piece, sq: Square) {
        self.flip_sets(p, Bitboard::from_square(sq));
        self.flip_file_bit(sq);
        self.board[sq.index()] = Some(p);
        if p.kind() == PieceKind::King {
            self.kings[p.color().index()] = sq;
        }
    }

    /// Takes `p` off `sq`, leaving the key to the caller as [`Position::put`] does.
    #[inline]
    fn lift(&mut self, p: Piece, sq: Square) {
        self.flip_sets(p, Bitboard::from_square(sq));
        self.flip_file_bit(sq);
        self.board[sq.index()] = None;
    }

    /// Moves `p` from `from` to the empty square `to`: [`Position::lift`]
    /// then [`Position::put`] with each set written once.
    #[inline]
    fn shift(&mut self, p: Piece, from: Square, to: Square) {
        self.flip_sets(p, Bitboard::from_square(from) | Bitboard::from_square(to));
        self.flip_file_bit(from);
        self.flip_file_bit(to);
        self.board[from.index()] = None;
        self.board[to.index()] = Some(p);
        if p.kind() == PieceKind::King {
            self.kings[p.color().index()] = to;
        }
    }

    /// Flips `p`'s presence on the squares of `bits` in the piece sets.
    #[inline]
    fn flip_sets(&mut self, p: Piece, bits: Bitboard) {
        self.occ ^= bits;
        self.by_color[p.color().index()] ^= bits;
        self.by_piece.as_flattened_mut()[p.index()] ^= bits;
    }

    /// Flips `sq` in the file masks.
    #[inline]
    fn flip_file_bit(&mut self, sq: Square) {
        self.file_occ[sq.file().index()] ^= 1 << sq.rank().index();
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
    pub fn pieces(&self, color: Color, kind: PieceKind) -> Bitboard {
        self.by_piece[color.index()][kind.index()]
    }

    /// The squares of all `color`'s pieces.
    #[inline]
    pub fn occupied_by(&self, color: Color) -> Bitboard {
        self.by_color[color.index()]
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.occ
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

    /// The key [`Position::make_move`] of `m` would give, without making
    /// it: a search asks for the child's table entry this early so that
    /// memory can fetch it while the move is made. `m` must be
    /// pseudo-legal (a piece of either side on its origin); with an empty
    /// origin the key is this position's.
    #[inline]
    pub fn key_after(&self, m: Move) -> u64 {
        let (from, to) = (m.from(), m.to());
        let Some(p) = self.board[from.index()] else {
            return self.state.key;
        };
        let mut key = self.state.key
            ^ zobrist::SIDE_KEY
            ^ Position::piece_key(p, from)
            ^ Position::piece_key(p, to);
        if let Some(c) = self.board[to.index()] {
            key ^= Position::piece_key(c, to);
        }
        key
    }

    /// The key [`Position::make_null_move`] would give: the other side to
    /// move, nothing moved.
    #[inline]
    pub fn key_after_null(&self) -> u64 {
        self.state.key ^ zobrist::SIDE_KEY
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
                key ^= Position::piece_key(p, sq);
            }
        }
        key
    }

    /// The Zobrist key `piece_at` would contribute on `sq`, for tools that
    /// need keys of positions they do not build (book lookups of mirrors).
    pub fn piece_key(piece: Piece, sq: Square) -> u64 {
        zobrist::PIECE_KEYS.as_flattened()[piece.index()][sq.index()]
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
        let occ = self.occupied();
        let file_occ = self.file_occ[sq.file().index()] as usize;
        if sq == self.kings[(!by).index()] {
            return self.attacked_in(sq, by, occ, file_occ, Bitboard::EMPTY);
        }
        // Elsewhere the general attacks only its neighbours in the palace
        // (not along the file: leave it out of the check test's line
        // attackers), and advisors and elephants count (they never reach
        // the other general, so the check test leaves them out).
        let king = self.kings[by.index()];
        let target = Bitboard::from_square(sq);
        self.attacked_in(sq, by, occ, file_occ, Bitboard::from_square(king))
            || attacks::king_moves(king).intersects(target)
            || self
                .pieces(by, PieceKind::Advisor)
                .any(|a| attacks::advisor_moves(a).intersects(target))
            || self
                .pieces(by, PieceKind::Bishop)
                .any(|b| attacks::bishop_moves(b, occ).intersects(target))
    }

    /// The points `by`'s pieces of `kind` attack: those where a piece of
    /// the other side would be capturable by their movement rules, pins
    /// ignored, whatever stands there now (a point holding `by`'s own
    /// piece is one it protects). For a cannon these are the points past
    /// its screen up to and including the next piece; for the general,
    /// its palace steps (not the flying-general file). What
    /// [`Position::is_attacked`] asks of one point, by kind, for every
    /// point at once.
    pub fn attacks_by(&self, by: Color, kind: PieceKind) -> Bitboard {
        let occ = self.occupied();
        let pieces = self.pieces(by, kind);
        let each = |f: &dyn Fn(Square) -> Bitboard| pieces.fold(Bitboard::EMPTY, |a, sq| a | f(sq));
        match kind {
            PieceKind::Rook => each(&|sq| {
                let fo = self.file_occ[sq.file().index()] as usize;
                attacks::line_attacks(Line::Rook, sq, occ, fo)
            }),
            // Past the screen: what a chariot would reach from the same
            // point with its screens lifted, less what it reaches now.
            PieceKind::Cannon => each(&|sq| {
                let fo = self.file_occ[sq.file().index()] as usize;
                let near = attacks::line_attacks(Line::Rook, sq, occ, fo);
                let (occ2, fo2) = attacks::lift(occ, fo, near & occ, sq);
                attacks::line_attacks(Line::Rook, sq, occ2, fo2).minus(near)
            }),
            PieceKind::Knight => each(&|sq| attacks::knight_moves(sq, occ)),
            PieceKind::Bishop => each(&|sq| attacks::bishop_moves(sq, occ)),
            PieceKind::Advisor => each(&|sq| attacks::advisor_moves(sq)),
            PieceKind::Pawn => each(&|sq| attacks::pawn_moves(by, sq)),
            PieceKind::King => attacks::king_moves(self.kings[by.index()]),
        }
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
        occ: Bitboard,
        file_occ: usize,
        removed: Bitboard,
    ) -> bool {
        let theirs = &self.by_piece[by.index()];
        let rooks =
            (theirs[PieceKind::Rook.index()] | theirs[PieceKind::King.index()]).minus(removed);
        if attacks::line_attacks(Line::Rook, sq, occ, file_occ).intersects(rooks) {
            return true;
        }
        let cannons = theirs[PieceKind::Cannon.index()].minus(removed);
        if cannons.is_nonempty()
            && attacks::line_attacks(Line::Cannon, sq, occ, file_occ).intersects(cannons)
        {
            return true;
        }
        let knights = theirs[PieceKind::Knight.index()].minus(removed);
        if knights.is_nonempty() && attacks::knight_attackers(sq, occ).intersects(knights) {
            return true;
        }
        attacks::pawn_attackers(by, sq).intersects(theirs[PieceKind::Pawn.index()].minus(removed))
    }

    /// Whether legal move `m` captures.
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        self.board[m.to().index()].is_some()
    }

    /// Whether legal move `m` gives check: `make_move`'s test, on the piece
    /// sets alone (moved there and back; no key, state or history), so a
    /// search can ask before it decides to make the move.
    pub fn gives_check(&mut self, m: Move) -> bool {
        debug_assert!(self.is_legal(m), "gives_check({m}) in {}", self.fen());
        let (from, to) = (m.from(), m.to());
        let Some(p) = self.board[from.index()] else {
            return false;
        };
        let us = p.color();
        let captured = self.board[to.index()];
        if let Some(c) = captured {
            self.lift(c, to);
        }
        self.shift(p, from, to);
        // As in `make_move`: after a pass the other general may already be
        // in check, which `move_gives_check` does not look for.
        let check = if self.state.last_move.is_some() {
            self.move_gives_check(p, from, to)
        } else {
            self.is_attacked(self.kings[(!us).index()], us)
        };
        self.shift(p, to, from);
        if let Some(c) = captured {
            self.put(c, to);
        }
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
    /// assert legality, re-check the incremental key and compare the check
    /// found by the move's lines with a full attack test.
    pub fn make_move(&mut self, m: Move) {
        debug_assert!(self.is_legal(m), "make_move({m}) in {}", self.fen());
        let (from, to) = (m.from(), m.to());
        let Some(p) = self.board[from.index()] else {
            return;
        };
        let us = self.side;
        // After a move the side that made it is never in check, which the
        // check test below relies on. After a pass (or at the setup) that
        // is not known: `pass_for_rules` passes in check.
        let after_move = self.state.last_move.is_some();
        self.history.push(self.state);
        let captured = self.board[to.index()];
        let key = self.key_after(m);
        if let Some(c) = captured {
            self.lift(c, to);
        }
        self.shift(p, from, to);
        self.side = !us;
        let was_in_check = self.state.in_check;
        let gives_check = if after_move {
            self.move_gives_check(p, from, to)
        } else {
            self.is_attacked(self.kings[(!us).index()], us)
        };
        debug_assert_eq!(
            gives_check,
            self.is_attacked(self.kings[(!us).index()], us),
            "check after {m}"
        );
        self.state.key = key;
        self.state.last_move = Some(m);
        self.state.captured = captured;
        self.state.in_check = gives_check;
        if captured.is_some() {
            self.state.rule60 = 0;
            self.state.checks = ByColor::default();
            self.state.reversible = 0;
            self.state.seen = 0;
        } else {
            self.state.reversible = self.state.reversible.saturating_add(1);
            // The position two plies back, with what it had seen, when it
            // lies inside the window (no capture or null move since).
            self.state.seen = if self.state.reversible >= 2 {
                let n = self.history.len();
                self.history
                    .get(n.wrapping_sub(2))
                    .map_or(0, |s| s.seen | seen_bit(s.key))
            } else {
                0
            };
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

    /// Whether `p`, just moved from `from` to `to`, checks the other general,
    /// on a board where that general was not in check before the move.
    ///
    /// Only three things can then have made a check, so only they are
    /// looked at (the full test is [`Position::is_attacked`]):
    /// 1. a line of the general's rank or file changed, because `from` or
    ///    `to` lies on it: the moved piece attacks along it, or uncovered a
    ///    chariot, a cannon or the own general, or became a cannon's screen;
    /// 2. the moved piece is a horse, or it left a point that was the leg of
    ///    a horse aiming at the general;
    /// 3. the moved piece is a soldier.
    ///
    /// Advisors and elephants never reach the other palace, and a capture
    /// off the general's lines changes no occupancy there.
    #[inline]
    fn move_gives_check(&self, p: Piece, from: Square, to: Square) -> bool {
        let us = p.color();
        let ksq = self.kings[(!us).index()];
        let mine = &self.by_piece[us.index()];
        let occ = self.occupied();
        if attacks::lines_through(ksq).intersects(Bitboard::from_square(from).with(to)) {
            let fo = self.file_occ[ksq.file().index()] as usize;
            // Chariots and the general tested one after the other: an OR of
            // two sets just written would stall (see `occ`).
            let rook_lines = attacks::line_attacks(Line::Rook, ksq, occ, fo);
            if rook_lines.intersects(mine[PieceKind::Rook.index()])
                || rook_lines.contains(self.kings[us.index()])
                || attacks::line_attacks(Line::Cannon, ksq, occ, fo)
                    .intersects(mine[PieceKind::Cannon.index()])
            {
                return true;
            }
        }
        let horses = mine[PieceKind::Knight.index()];
        if (p.kind() == PieceKind::Knight || attacks::horse_leg_points(ksq).contains(from))
            && attacks::knight_attackers(ksq, occ).intersects(horses)
        {
            return true;
        }
        p.kind() == PieceKind::Pawn && attacks::pawn_attackers(us, ksq).contains(to)
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
                self.shift(p, to, from);
            }
            if let Some(c) = self.state.captured {
                self.put(c, to);
            }
        }
        self.side = !self.side;
        self.state = prev;
        debug_assert_eq!(self.state.key, self.compute_key());
    }

    /// Passes the move (for null-move pruning). Not legal when in check.
    #[inline]
    pub fn make_null_move(&mut self) {
        debug_assert!(!self.state.in_check);
        self.pass();
    }

    /// The other side to move, nothing moved, not in check: the null move
    /// without its precondition.
    #[inline]
    fn pass(&mut self) {
        self.history.push(self.state);
        self.state.key = self.key_after_null();
        self.side = !self.side;
        self.state.last_move = None;
        self.state.captured = None;
        self.state.in_check = false;
        self.state.reversible = 0;
        self.state.seen = 0;
    }

    /// Passes the move to look at the position with the other side to
    /// move, for the chase rules: unlike [`Position::make_null_move`] it
    /// may be made in check (a cycle's checking moves are judged for chases
    /// too), and it works out whether the side now to move is in check, so
    /// that its legal moves are generated right. Taken back with
    /// [`Position::unmake_null_move`].
    pub(crate) fn pass_for_rules(&mut self) {
        self.pass();
        self.state.in_check = self.is_attacked(self.kings[self.side.index()], !self.side);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// After a pass made in check (as the chase rules make one) the side
    /// that passed is still in check when the other side moves, so
    /// `make_move` cannot find checks from the moved piece's lines alone:
    /// every move must report the check it leaves standing.
    #[test]
    fn moves_after_a_pass_in_check_keep_the_check() {
        let mut pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1").expect("FEN");
        assert!(pos.in_check());
        pos.pass_for_rules();
        let moves = pos.legal_moves();
        assert!(moves.len() > 10);
        let black_king = pos.king_square(Color::Black);
        let mut still_checking = 0;
        for m in moves {
            pos.make_move(m);
            let attacked = pos.is_attacked(black_king, Color::Red);
            assert_eq!(pos.in_check(), attacked, "{m}");
            still_checking += usize::from(attacked);
            pos.unmake_move();
        }
        // The general's steps and the chariot's moves along the file.
        assert!(still_checking >= 8, "{still_checking}");
    }
}
