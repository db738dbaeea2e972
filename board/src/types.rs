//! The vocabulary of the board: colours, piece kinds, pieces, files, ranks
//! and squares, each as its own small `Copy` type.
//!
//! The square and piece types carry their lookup tables beside them (the
//! square's bit, file and rank, the piece's kind and colour, read by
//! generation on every move): each table belongs with the type that
//! answers from it.

use std::fmt;
use std::ops::{Index, IndexMut, Not};
use std::str::FromStr;

/// One side of the game. Red moves first and sits at ranks 0–4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// The side at the bottom (ranks 0–4), upper-case FEN letters, moves first.
    Red = 0,
    /// The side at the top (ranks 5–9), lower-case FEN letters.
    Black = 1,
}

impl Color {
    /// Number of colours.
    pub const NUM: usize = 2;
    /// Both colours, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// Index 0 for Red, 1 for Black.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The other colour.
    #[inline]
    #[must_use]
    pub const fn opposite(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// FEN side letter: `w` for Red (the UCCI convention), `b` for Black.
    pub const fn fen_char(self) -> char {
        match self {
            Color::Red => 'w',
            Color::Black => 'b',
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.opposite()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Red => "Red",
            Color::Black => "Black",
        })
    }
}

/// A pair of values, one per colour, indexed by [`Color`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// Red's value.
    pub red: T,
    /// Black's value.
    pub black: T,
}

impl<T> ByColor<T> {
    /// Builds the pair from a function of the colour.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> ByColor<T> {
        ByColor {
            red: f(Color::Red),
            black: f(Color::Black),
        }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, color: Color) -> &T {
        match color {
            Color::Red => &self.red,
            Color::Black => &self.black,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Red => &mut self.red,
            Color::Black => &mut self.black,
        }
    }
}

/// The seven kinds of piece, with the chess-style names Pikafish and
/// ElephantEye use (see the crate documentation for the aliases).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceKind {
    /// General 帅/将, `K`.
    King = 0,
    /// Advisor 仕/士, `A`.
    Advisor = 1,
    /// Elephant 相/象, `B` (also `E` on input).
    Bishop = 2,
    /// Horse 马, `N` (also `H` on input).
    Knight = 3,
    /// Chariot 车, `R`.
    Rook = 4,
    /// Cannon 炮, `C`.
    Cannon = 5,
    /// Soldier 兵/卒, `P`.
    Pawn = 6,
}

impl PieceKind {
    /// Number of piece kinds.
    pub const NUM: usize = 7;
    /// Every kind, in index order.
    pub const ALL: [PieceKind; 7] = [
        PieceKind::King,
        PieceKind::Advisor,
        PieceKind::Bishop,
        PieceKind::Knight,
        PieceKind::Rook,
        PieceKind::Cannon,
        PieceKind::Pawn,
    ];

    /// Index 0–6.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// How many of this kind each side has at the start, the most it can have.
    pub const fn max_count(self) -> u8 {
        match self {
            PieceKind::King => 1,
            PieceKind::Pawn => 5,
            _ => 2,
        }
    }

    /// Upper-case FEN letter (`K A B N R C P`).
    pub const fn upper_char(self) -> char {
        match self {
            PieceKind::King => 'K',
            PieceKind::Advisor => 'A',
            PieceKind::Bishop => 'B',
            PieceKind::Knight => 'N',
            PieceKind::Rook => 'R',
            PieceKind::Cannon => 'C',
            PieceKind::Pawn => 'P',
        }
    }

    /// Reads a FEN letter of either case, including the `E`/`H` synonyms.
    pub const fn from_char(c: char) -> Option<PieceKind> {
        Some(match c.to_ascii_uppercase() {
            'K' => PieceKind::King,
            'A' => PieceKind::Advisor,
            'B' | 'E' => PieceKind::Bishop,
            'N' | 'H' => PieceKind::Knight,
            'R' => PieceKind::Rook,
            'C' => PieceKind::Cannon,
            'P' => PieceKind::Pawn,
            _ => return None,
        })
    }
}

impl fmt::Display for PieceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PieceKind::King => "general",
            PieceKind::Advisor => "advisor",
            PieceKind::Bishop => "elephant",
            PieceKind::Knight => "horse",
            PieceKind::Rook => "chariot",
            PieceKind::Cannon => "cannon",
            PieceKind::Pawn => "soldier",
        })
    }
}

/// The fourteen pieces, numbered `color * 7 + kind`. A private enum rather
/// than a plain byte so that the compiler knows the range: `Option<Piece>`
/// then fits in one byte (the position's mailbox is half the size) and
/// tables of fourteen indexed by [`Piece::index`] need no bounds check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
enum PieceCode {
    RedKing,
    RedAdvisor,
    RedBishop,
    RedKnight,
    RedRook,
    RedCannon,
    RedPawn,
    BlackKing,
    BlackAdvisor,
    BlackBishop,
    BlackKnight,
    BlackRook,
    BlackCannon,
    BlackPawn,
}

/// Every code in index order, for building pieces from numbers.
const PIECE_CODES: [PieceCode; 14] = [
    PieceCode::RedKing,
    PieceCode::RedAdvisor,
    PieceCode::RedBishop,
    PieceCode::RedKnight,
    PieceCode::RedRook,
    PieceCode::RedCannon,
    PieceCode::RedPawn,
    PieceCode::BlackKing,
    PieceCode::BlackAdvisor,
    PieceCode::BlackBishop,
    PieceCode::BlackKnight,
    PieceCode::BlackRook,
    PieceCode::BlackCannon,
    PieceCode::BlackPawn,
];

/// A coloured piece, numbered `color * 7 + kind` (0–13).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(PieceCode);

const _: () = assert!(std::mem::size_of::<Option<Piece>>() == 1);

impl Piece {
    /// Number of distinct pieces.
    pub const NUM: usize = 14;

    /// The piece of this colour and kind.
    #[inline]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece(PIECE_CODES[color as usize * 7 + kind as usize])
    }

    /// Index 0–13 (Red's kinds, then Black's).
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The piece with index `i`, if `i < 14`.
    pub const fn from_index(i: usize) -> Option<Piece> {
        if i < 14 {
            Some(Piece(PIECE_CODES[i]))
        } else {
            None
        }
    }

    /// Its colour.
    #[inline]
    pub const fn color(self) -> Color {
        if (self.0 as u8) < 7 {
            Color::Red
        } else {
            Color::Black
        }
    }

    /// Its kind.
    #[inline]
    pub const fn kind(self) -> PieceKind {
        // A lookup, not `% 7`: this sits on the make/unmake path.
        const KINDS: [PieceKind; 14] = {
            let mut t = [PieceKind::King; 14];
            let mut i = 0;
            while i < 14 {
                t[i] = PieceKind::ALL[i % 7];
                i += 1;
            }
            t
        };
        KINDS[self.0 as usize]
    }

    /// FEN letter: upper case for Red, lower case for Black.
    pub const fn to_char(self) -> char {
        let c = self.kind().upper_char();
        match self.color() {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// Whether this piece can ever stand on `sq` (`docs/rules.md` §5,
    /// rules 3 and 5): the general and the advisors only in their own
    /// palace, the advisors on its 5 diagonal points, the elephants on
    /// their 7 points on their own side of the river, the soldiers never
    /// behind their start rank and, before the river, only on files a, c,
    /// e, g and i. Horses, chariots and cannons stand anywhere. FEN
    /// validation refuses every other placement, so no position holds one.
    pub const fn can_stand_on(self, sq: Square) -> bool {
        let color = self.color();
        let rel = sq.rank().relative_to(color) as usize;
        let file = sq.file().index();
        match self.kind() {
            PieceKind::King => sq.in_palace(color),
            PieceKind::Advisor => sq.in_palace(color) && (file + rel) % 2 == 1,
            PieceKind::Bishop => {
                rel <= 4
                    && rel.is_multiple_of(2)
                    && file.is_multiple_of(2)
                    && (file / 2 + rel / 2) % 2 == 1
            }
            PieceKind::Pawn => rel >= 5 || (rel >= 3 && file.is_multiple_of(2)),
            PieceKind::Knight | PieceKind::Rook | PieceKind::Cannon => true,
        }
    }

    /// Reads a FEN letter (case gives the colour; `E`/`H` accepted).
    pub const fn from_char(c: char) -> Option<Piece> {
        match PieceKind::from_char(c) {
            Some(kind) => {
                let color = if c.is_ascii_uppercase() {
                    Color::Red
                } else {
                    Color::Black
                };
                Some(Piece::new(color, kind))
            }
            None => None,
        }
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_char())
    }
}

/// A file, `a` (Red's left) to `i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct File(u8);

impl File {
    /// Number of files.
    pub const NUM: usize = 9;

    /// File `i` (0 = `a`), if `i < 9`.
    pub const fn new(i: u8) -> Option<File> {
        if i < 9 { Some(File(i)) } else { None }
    }
    /// Index 0–8.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The left-right mirror (`a` ↔ `i`).
    #[must_use]
    pub const fn mirror(self) -> File {
        File(8 - self.0)
    }
    /// Its letter.
    pub const fn to_char(self) -> char {
        (b'a' + self.0) as char
    }
}

/// A rank, 0 (Red's back rank) to 9 (Black's back rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    /// Number of ranks.
    pub const NUM: usize = 10;

    /// Rank `i`, if `i < 10`.
    pub const fn new(i: u8) -> Option<Rank> {
        if i < 10 { Some(Rank(i)) } else { None }
    }
    /// Index 0–9.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The colour flip (0 ↔ 9).
    #[must_use]
    pub const fn flip(self) -> Rank {
        Rank(9 - self.0)
    }
    /// Its digit.
    pub const fn to_char(self) -> char {
        (b'0' + self.0) as char
    }
    /// The same rank counted from `color`'s own back rank (0–9).
    pub const fn relative_to(self, color: Color) -> u8 {
        match color {
            Color::Red => self.0,
            Color::Black => 9 - self.0,
        }
    }
}

/// Declares the private square codes and their conversion from numbers.
macro_rules! square_codes {
    ($($name:ident = $i:literal,)*) => {
        /// The 90 points as a byte whose range the compiler knows, as
        /// `PieceCode` does for pieces: tables of 90 indexed by
        /// [`Square::index`] need no bounds check.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        enum SquareCode {
            $($name = $i),*
        }

        impl SquareCode {
            /// The code numbered `i`, if `i < 90`. The compiler sees that
            /// the match maps every number to itself and reduces it to one
            /// comparison.
            #[inline]
            const fn from_u8(i: u8) -> Option<SquareCode> {
                match i {
                    $($i => Some(SquareCode::$name),)*
                    _ => None,
                }
            }
        }
    };
}

square_codes! {
    A0 = 0, B0 = 1, C0 = 2, D0 = 3, E0 = 4, F0 = 5, G0 = 6, H0 = 7, I0 = 8,
    A1 = 9, B1 = 10, C1 = 11, D1 = 12, E1 = 13, F1 = 14, G1 = 15, H1 = 16, I1 = 17,
    A2 = 18, B2 = 19, C2 = 20, D2 = 21, E2 = 22, F2 = 23, G2 = 24, H2 = 25, I2 = 26,
    A3 = 27, B3 = 28, C3 = 29, D3 = 30, E3 = 31, F3 = 32, G3 = 33, H3 = 34, I3 = 35,
    A4 = 36, B4 = 37, C4 = 38, D4 = 39, E4 = 40, F4 = 41, G4 = 42, H4 = 43, I4 = 44,
    A5 = 45, B5 = 46, C5 = 47, D5 = 48, E5 = 49, F5 = 50, G5 = 51, H5 = 52, I5 = 53,
    A6 = 54, B6 = 55, C6 = 56, D6 = 57, E6 = 58, F6 = 59, G6 = 60, H6 = 61, I6 = 62,
    A7 = 63, B7 = 64, C7 = 65, D7 = 66, E7 = 67, F7 = 68, G7 = 69, H7 = 70, I7 = 71,
    A8 = 72, B8 = 73, C8 = 74, D8 = 75, E8 = 76, F8 = 77, G8 = 78, H8 = 79, I8 = 80,
    A9 = 81, B9 = 82, C9 = 83, D9 = 84, E9 = 85, F9 = 86, G9 = 87, H9 = 88, I9 = 89,
}

/// `FILES[i]` and `RANKS[i]`: the file and rank of square `i`, looked up
/// because they are wanted on every make and unmake and a division by nine
/// costs more than a load.
const FILES: [u8; 90] = {
    let mut t = [0u8; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = (i % 9) as u8;
        i += 1;
    }
    t
};
const RANKS: [u8; 90] = {
    let mut t = [0u8; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = (i / 9) as u8;
        i += 1;
    }
    t
};

/// One of the 90 points, numbered `rank * 9 + file` (a0 = 0, i9 = 89).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(SquareCode);

impl Square {
    /// Number of squares.
    pub const NUM: usize = 90;

    /// The square with index `i`, which the callers know is under 90.
    ///
    /// # Panics
    /// If it is not: a bitboard built with bits above the board, say.
    #[inline]
    #[track_caller]
    const fn code(i: u8) -> Square {
        match SquareCode::from_u8(i) {
            Some(c) => Square(c),
            None => panic!("a square index is below 90"),
        }
    }

    /// The square at `file`, `rank`.
    #[inline]
    pub const fn new(file: File, rank: Rank) -> Square {
        Square::code(rank.0 * 9 + file.0)
    }

    /// The square with index `i`, if `i < 90`.
    #[inline]
    pub const fn from_index(i: usize) -> Option<Square> {
        if i < 90 {
            Some(Square::code(i as u8))
        } else {
            None
        }
    }

    /// The square at file index `file` (0–8) and rank index `rank` (0–9),
    /// if both are on the board.
    #[inline]
    pub const fn from_coords(file: i32, rank: i32) -> Option<Square> {
        if file >= 0 && file < 9 && rank >= 0 && rank < 10 {
            Some(Square::code((rank * 9 + file) as u8))
        } else {
            None
        }
    }

    /// The square of bit `i` of a board-sized bitboard (or of a field of a
    /// decoded move): always below 90, which is checked, so a bitboard built
    /// with bits above the board panics instead of naming a square that
    /// does not exist.
    #[inline]
    #[track_caller]
    pub(crate) const fn from_bit(i: u32) -> Square {
        assert!(i < 90, "a bitboard holds no bit above 89");
        Square::code(i as u8)
    }

    /// Index 0–89.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// Its file.
    #[inline]
    pub const fn file(self) -> File {
        File(FILES[self.index()])
    }
    /// Its rank.
    #[inline]
    pub const fn rank(self) -> Rank {
        Rank(RANKS[self.index()])
    }

    /// The square `df` files and `dr` ranks away, if on the board.
    #[inline]
    pub const fn offset(self, df: i32, dr: i32) -> Option<Square> {
        Square::from_coords(
            self.file().index() as i32 + df,
            self.rank().index() as i32 + dr,
        )
    }

    /// Left-right mirror (file a ↔ i).
    #[inline]
    #[must_use]
    pub const fn mirror(self) -> Square {
        Square::new(self.file().mirror(), self.rank())
    }

    /// Colour flip (rank r ↔ 9 − r).
    #[inline]
    #[must_use]
    pub const fn flip(self) -> Square {
        Square::new(self.file(), self.rank().flip())
    }

    /// Whether the square is in `color`'s palace (files d–f, its ranks 0–2).
    pub const fn in_palace(self, color: Color) -> bool {
        let f = self.file().0;
        let r = self.rank().relative_to(color);
        f >= 3 && f <= 5 && r <= 2
    }

    /// Whether the square is on `color`'s own side of the river.
    pub const fn on_own_side(self, color: Color) -> bool {
        self.rank().relative_to(color) <= 4
    }

    /// All 90 squares in index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90).map(Square::code)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().to_char(), self.rank().to_char())
    }
}

/// Why a square name could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError;

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a square is a file a-i followed by a rank 0-9")
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        match s.as_bytes() {
            [f, r] => {
                let f = f.to_ascii_lowercase();
                if (b'a'..=b'i').contains(&f) && r.is_ascii_digit() {
                    Ok(Square::code((r - b'0') * 9 + (f - b'a')))
                } else {
                    Err(ParseSquareError)
                }
            }
            _ => Err(ParseSquareError),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip() {
        for sq in Square::all() {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(sq.mirror().mirror(), sq);
            assert_eq!(sq.flip().flip(), sq);
        }
        assert_eq!("a0".parse::<Square>().map(Square::index), Ok(0));
        assert_eq!("I9".parse::<Square>().map(Square::index), Ok(89));
        assert!("j0".parse::<Square>().is_err());
        assert!("a10".parse::<Square>().is_err());
        assert!("".parse::<Square>().is_err());
    }

    /// The looked-up codes, files and ranks against plain arithmetic.
    #[test]
    fn square_codes_match_their_numbers() {
        for i in 0..90 {
            let sq = Square::from_index(i).expect("on the board");
            assert_eq!(sq.index(), i);
            assert_eq!(sq.file().index(), i % 9);
            assert_eq!(sq.rank().index(), i / 9);
            assert_eq!(Square::from_bit(i as u32), sq);
        }
        assert_eq!(Square::from_index(90), None);
        assert_eq!(Square::all().count(), 90);
        assert!(std::panic::catch_unwind(|| Square::from_bit(90)).is_err());
        for i in 0..Piece::NUM {
            let p = Piece::from_index(i).expect("a piece");
            assert_eq!(p.index(), i);
            assert_eq!(p.kind().index(), i % 7);
            assert_eq!(p.color().index(), i / 7);
        }
        assert_eq!(Piece::from_index(Piece::NUM), None);
    }

    #[test]
    fn pieces_round_trip() {
        for i in 0..Piece::NUM {
            let p = Piece::from_index(i).unwrap();
            assert_eq!(Piece::from_char(p.to_char()), Some(p));
            assert_eq!(Piece::new(p.color(), p.kind()), p);
        }
        assert_eq!(
            Piece::from_char('H'),
            Some(Piece::new(Color::Red, PieceKind::Knight))
        );
        assert_eq!(
            Piece::from_char('e'),
            Some(Piece::new(Color::Black, PieceKind::Bishop))
        );
        assert_eq!(Piece::from_char('x'), None);
    }

    #[test]
    fn palace_and_river() {
        let e0: Square = "e0".parse().unwrap();
        assert!(e0.in_palace(Color::Red));
        assert!(!e0.in_palace(Color::Black));
        let d9: Square = "d9".parse().unwrap();
        assert!(d9.in_palace(Color::Black));
        assert!("a4".parse::<Square>().unwrap().on_own_side(Color::Red));
        assert!(!"a5".parse::<Square>().unwrap().on_own_side(Color::Red));
    }

    #[test]
    fn standing_squares_per_piece() {
        // General 9, advisor 5, elephant 7, horse, chariot and cannon 90,
        // soldier 5 + 5 before the river and 45 beyond it.
        let expected = [9, 5, 7, 90, 90, 90, 55];
        for c in Color::ALL {
            for k in PieceKind::ALL {
                let p = Piece::new(c, k);
                let n = Square::all().filter(|&sq| p.can_stand_on(sq)).count();
                assert_eq!(n, expected[k.index()], "{p}");
                // The colour flip of a standing square is the other
                // colour's, and the mirror keeps it.
                for sq in Square::all() {
                    let q = Piece::new(!c, k);
                    assert_eq!(p.can_stand_on(sq), q.can_stand_on(sq.flip()));
                    assert_eq!(p.can_stand_on(sq), p.can_stand_on(sq.mirror()));
                }
            }
        }
        let a: Piece = Piece::new(Color::Red, PieceKind::Advisor);
        assert!(a.can_stand_on("e1".parse().unwrap()));
        assert!(!a.can_stand_on("e0".parse().unwrap()));
        let p = Piece::new(Color::Black, PieceKind::Pawn);
        assert!(p.can_stand_on("c6".parse().unwrap()));
        assert!(!p.can_stand_on("b6".parse().unwrap()));
        assert!(p.can_stand_on("b4".parse().unwrap()));
    }
}
