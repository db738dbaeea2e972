//! Fast paths against slow twins, over thousands of positions from seeded
//! random games: move generation against a naive legality test of all
//! 90 × 90 from/to pairs, make/unmake against the original, the incremental
//! key against a recomputed one, FEN and mirror round trips, the bulk
//! perft count against full make/unmake perft.

use board::{Bitboard, Color, Move, Piece, PieceKind, Position, Square};
use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// A seeded stream, so the games are the same on every run.
type Rng = Pcg64Mcg;

/// A plain array board and the rules written out the obvious way, sharing no
/// code with the fast generator.
#[derive(Clone)]
struct Naive {
    cells: [Option<Piece>; 90],
    side: Color,
}

impl Naive {
    fn from(pos: &Position) -> Naive {
        let mut cells = [None; 90];
        for sq in Square::all() {
            cells[sq.index()] = pos.piece_at(sq);
        }
        Naive {
            cells,
            side: pos.side_to_move(),
        }
    }

    fn at(&self, f: i32, r: i32) -> Option<Piece> {
        if (0..9).contains(&f) && (0..10).contains(&r) {
            self.cells[(r * 9 + f) as usize]
        } else {
            None
        }
    }

    /// Pieces strictly between two points of one line.
    fn count_between(&self, (f1, r1): (i32, i32), (f2, r2): (i32, i32)) -> usize {
        let (df, dr) = ((f2 - f1).signum(), (r2 - r1).signum());
        let (mut f, mut r) = (f1 + df, r1 + dr);
        let mut n = 0;
        while (f, r) != (f2, r2) {
            n += usize::from(self.at(f, r).is_some());
            f += df;
            r += dr;
        }
        n
    }

    /// Whether the piece on `from` may go to `to` by its movement rules alone
    /// (ignoring its own general's safety).
    fn can_move(&self, from: usize, to: usize) -> bool {
        let Some(p) = self.cells[from] else {
            return false;
        };
        if self.cells[to].is_some_and(|q| q.color() == p.color()) || from == to {
            return false;
        }
        let (f1, r1) = ((from % 9) as i32, (from / 9) as i32);
        let (f2, r2) = ((to % 9) as i32, (to / 9) as i32);
        let (df, dr) = (f2 - f1, r2 - r1);
        let red = p.color() == Color::Red;
        let in_palace = |f: i32, r: i32| (3..=5).contains(&f) && if red { r <= 2 } else { r >= 7 };
        let own_half = |r: i32| if red { r <= 4 } else { r >= 5 };
        let straight = df == 0 || dr == 0;
        match p.kind() {
            PieceKind::King => in_palace(f2, r2) && df.abs() + dr.abs() == 1,
            PieceKind::Advisor => in_palace(f2, r2) && df.abs() == 1 && dr.abs() == 1,
            PieceKind::Bishop => {
                df.abs() == 2
                    && dr.abs() == 2
                    && own_half(r2)
                    && self.at(f1 + df / 2, r1 + dr / 2).is_none()
            }
            PieceKind::Knight => {
                let leg = if df.abs() == 2 && dr.abs() == 1 {
                    (f1 + df / 2, r1)
                } else if df.abs() == 1 && dr.abs() == 2 {
                    (f1, r1 + dr / 2)
                } else {
                    return false;
                };
                self.at(leg.0, leg.1).is_none()
            }
            PieceKind::Rook => straight && self.count_between((f1, r1), (f2, r2)) == 0,
            PieceKind::Cannon => {
                straight && {
                    let screens = self.count_between((f1, r1), (f2, r2));
                    if self.cells[to].is_some() {
                        screens == 1
                    } else {
                        screens == 0
                    }
                }
            }
            PieceKind::Pawn => {
                let fwd = if red { 1 } else { -1 };
                (df == 0 && dr == fwd) || (dr == 0 && df.abs() == 1 && !own_half(r1))
            }
        }
    }

    fn king(&self, color: Color) -> usize {
        (0..90)
            .find(|&i| self.cells[i] == Some(Piece::new(color, PieceKind::King)))
            .expect("both generals are on the board")
    }

    /// Whether `color`'s general is attacked, flying general included.
    fn king_attacked(&self, color: Color) -> bool {
        let k = self.king(color);
        let other = self.king(!color);
        if k % 9 == other % 9
            && self.count_between(
                ((k % 9) as i32, (k / 9) as i32),
                ((other % 9) as i32, (other / 9) as i32),
            ) == 0
        {
            return true;
        }
        (0..90).any(|i| self.cells[i].is_some_and(|p| p.color() != color) && self.can_move(i, k))
    }

    fn is_legal(&self, from: usize, to: usize) -> bool {
        if self.cells[from].is_none_or(|p| p.color() != self.side) || !self.can_move(from, to) {
            return false;
        }
        let mut next = self.clone();
        next.cells[to] = next.cells[from].take();
        !next.king_attacked(self.side)
    }
}

impl Naive {
    /// Whether a piece of `by` could capture an enemy piece standing on
    /// `sq` (pins ignored), flying general included on the other general's
    /// square.
    fn attacked(&self, sq: usize, by: Color) -> bool {
        if sq == self.king(!by) {
            return self.king_attacked(!by);
        }
        let mut probe = self.clone();
        probe.cells[sq] = Some(Piece::new(!by, PieceKind::Pawn));
        (0..90).any(|i| {
            i != sq && probe.cells[i].is_some_and(|p| p.color() == by) && probe.can_move(i, sq)
        })
    }

    /// Whether a piece of `by` of `kind` could capture an enemy piece
    /// standing on `sq`, whatever stands there now (pins ignored, no
    /// flying general).
    fn attacked_by_kind(&self, sq: usize, by: Color, kind: PieceKind) -> bool {
        let mut probe = self.clone();
        probe.cells[sq] = Some(Piece::new(!by, PieceKind::Pawn));
        (0..90).any(|i| {
            i != sq && probe.cells[i] == Some(Piece::new(by, kind)) && probe.can_move(i, sq)
        })
    }
}

fn sorted(mut v: Vec<Move>) -> Vec<Move> {
    v.sort();
    v
}

/// Positions from seeded random games, starting from the suite's positions
/// and the start position.
fn random_positions(games: usize, max_plies: usize) -> Vec<Position> {
    let suite = include_str!("../../tests/data/perft.epd");
    let mut starts: Vec<Position> = suite
        .lines()
        .filter_map(|l| l.split(" ;").next())
        .map(|fen| Position::from_fen(fen).expect("suite FEN"))
        .collect();
    starts.push(Position::startpos());
    random_walks(
        &starts,
        games,
        max_plies,
        0x9e37_79b9_7f4a_7c15,
        |rng, pos, moves| {
            // Prefer captures now and then so games reach sparse endgames.
            let caps = pos.legal_captures();
            if !caps.is_empty() && rng.gen_range(0..3) == 0 {
                caps[rng.gen_range(0..caps.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            }
        },
    )
}

/// Every position of `games` seeded random games of up to `max_plies`
/// plies each, from `starts` in turn, each move chosen by `pick` among the
/// legal ones.
fn random_walks(
    starts: &[Position],
    games: usize,
    max_plies: usize,
    seed: u64,
    mut pick: impl FnMut(&mut Rng, &Position, &[Move]) -> Move,
) -> Vec<Position> {
    let mut rng = Rng::seed_from_u64(seed);
    let mut out = Vec::new();
    for g in 0..games {
        let mut pos = starts[g % starts.len()].clone();
        for _ in 0..rng.gen_range(0..max_plies) + 1 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = pick(&mut rng, &pos, &moves);
            pos.make_move(m);
            out.push(pos.clone());
        }
    }
    out
}

#[test]
fn generated_moves_equal_naive_legality_of_all_pairs() {
    let positions = random_positions(60, 120);
    assert!(
        positions.len() >= 2000,
        "only {} positions",
        positions.len()
    );
    for pos in &positions {
        let naive = Naive::from(pos);
        let mut expected = Vec::new();
        for from in 0..90 {
            for to in 0..90 {
                if naive.is_legal(from, to) {
                    expected.push(
                        Move::new(
                            Square::from_index(from).unwrap(),
                            Square::from_index(to).unwrap(),
                        )
                        .unwrap(),
                    );
                }
            }
        }
        let generated = sorted(pos.legal_moves().to_vec());
        assert_eq!(generated, sorted(expected.clone()), "{}", pos.fen());
        assert_eq!(pos.count_legal_moves(), expected.len(), "{}", pos.fen());
        // is_legal agrees on every pair, not just the legal ones.
        for from in Square::all() {
            for to in Square::all() {
                if let Some(m) = Move::new(from, to) {
                    assert_eq!(
                        pos.is_legal(m),
                        expected.contains(&m),
                        "{m} in {}",
                        pos.fen()
                    );
                }
            }
        }
        let captures: Vec<Move> = expected
            .iter()
            .copied()
            .filter(|&m| pos.is_capture(m))
            .collect();
        assert_eq!(
            sorted(pos.legal_captures().to_vec()),
            sorted(captures),
            "{}",
            pos.fen()
        );
        // The quiet moves are the rest, in the order of full generation.
        let quiets: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| !pos.is_capture(m))
            .collect();
        assert_eq!(pos.legal_quiets().to_vec(), quiets, "{}", pos.fen());
        // The captures of some victims are those captures, in order: the
        // victims of each kind, and a mask of every other square.
        let them = !pos.side_to_move();
        let stripes = Bitboard((0..90).step_by(2).fold(0u128, |b, i| b | 1 << i));
        let masks = PieceKind::ALL
            .map(|k| pos.pieces(them, k))
            .into_iter()
            .chain([stripes, Bitboard::EMPTY]);
        for victims in masks {
            let want: Vec<Move> = pos
                .legal_captures()
                .iter()
                .copied()
                .filter(|m| victims.contains(m.to()))
                .collect();
            assert_eq!(
                pos.legal_captures_of(victims).to_vec(),
                want,
                "{}",
                pos.fen()
            );
        }
        assert_eq!(
            pos.in_check(),
            naive.king_attacked(pos.side_to_move()),
            "{}",
            pos.fen()
        );
    }
}

/// Every piece set, the occupancy and the generals' squares agree with the
/// mailbox, square by square.
fn assert_placement_consistent(pos: &Position) {
    let mut red = Bitboard::EMPTY;
    let mut black = Bitboard::EMPTY;
    for sq in Square::all() {
        let here = pos.piece_at(sq);
        for color in [Color::Red, Color::Black] {
            for kind in PieceKind::ALL {
                assert_eq!(
                    pos.pieces(color, kind).contains(sq),
                    here == Some(Piece::new(color, kind)),
                    "{sq} in {}",
                    pos.fen()
                );
            }
        }
        match here.map(Piece::color) {
            Some(Color::Red) => red = red.with(sq),
            Some(Color::Black) => black = black.with(sq),
            None => {}
        }
    }
    assert_eq!(pos.occupied_by(Color::Red), red, "{}", pos.fen());
    assert_eq!(pos.occupied_by(Color::Black), black, "{}", pos.fen());
    assert_eq!(pos.occupied(), red | black, "{}", pos.fen());
    for color in [Color::Red, Color::Black] {
        assert_eq!(
            pos.piece_at(pos.king_square(color)),
            Some(Piece::new(color, PieceKind::King))
        );
    }
}

#[test]
fn make_unmake_and_keys() {
    for pos in random_positions(80, 150) {
        assert_eq!(pos.key(), pos.compute_key(), "{}", pos.fen());
        let mut p = pos.clone();
        let fen = p.fen();
        let state = *p.state();
        assert_placement_consistent(&p);
        for m in pos.legal_moves() {
            let check = p.gives_check(m);
            assert_eq!(p.fen(), fen, "gives_check({m}) put everything back");
            assert_placement_consistent(&p);
            let key_after = p.key_after(m);
            p.make_move(m);
            assert_eq!(p.key(), p.compute_key(), "after {m} in {fen}");
            assert_eq!(p.key(), key_after, "key_after({m}) in {fen}");
            assert_eq!(p.in_check(), check);
            // The check make_move finds from the move's lines against the
            // naive attack test of the whole board.
            assert_eq!(
                p.in_check(),
                Naive::from(&p).king_attacked(p.side_to_move()),
                "check after {m} in {fen}"
            );
            assert_placement_consistent(&p);
            p.unmake_move();
            assert_eq!(p.fen(), fen);
            assert_eq!(*p.state(), state);
            assert_placement_consistent(&p);
        }
        if !p.in_check() {
            p.make_null_move();
            assert_eq!(p.key(), p.compute_key());
            // After a pass: the other path of `gives_check`.
            for m in p.legal_moves() {
                let check = p.gives_check(m);
                p.make_move(m);
                assert_eq!(p.in_check(), check, "after a pass and {m} in {fen}");
                p.unmake_move();
            }
            p.unmake_null_move();
            assert_eq!(p.fen(), fen);
        }
    }
}

/// Positions from seeded random games that give check half the time they
/// can and push soldiers half the rest, so the games reach the checks a
/// plain random game rarely does: soldiers at the palace, horses and
/// cannons around the general.
fn checking_positions(games: usize, max_plies: usize) -> Vec<Position> {
    let start = [Position::startpos()];
    random_walks(
        &start,
        games,
        max_plies,
        0x51_7cc1_b7ee_b2d7,
        |rng, pos, moves| {
            let of = |keep: &dyn Fn(Move) -> bool| -> Vec<Move> {
                moves.iter().copied().filter(|&m| keep(m)).collect()
            };
            let checks = of(&|m| pos.clone().gives_check(m));
            let pawns = of(&|m| pos.piece_at(m.from()).map(Piece::kind) == Some(PieceKind::Pawn));
            if !checks.is_empty() && rng.gen_range(0..2) == 0 {
                checks[rng.gen_range(0..checks.len())]
            } else if !pawns.is_empty() && rng.gen_range(0..2) == 0 {
                pawns[rng.gen_range(0..pawns.len())]
            } else {
                moves[rng.gen_range(0..moves.len())]
            }
        },
    )
}

/// The quiet checks' generator against its slow definition: every legal
/// quiet move that `gives_check`, in the same order, also after a pass.
#[test]
fn quiet_checks_equal_checking_quiets() {
    let slow = |p: &mut Position| -> Vec<Move> {
        let quiets = p.legal_quiets();
        quiets.into_iter().filter(|&m| p.gives_check(m)).collect()
    };
    let mut checks = 0;
    for pos in random_positions(80, 150)
        .into_iter()
        .chain(checking_positions(120, 150))
    {
        let mut p = pos.clone();
        let expected = slow(&mut p);
        checks += expected.len();
        assert_eq!(p.legal_quiet_checks().to_vec(), expected, "{}", pos.fen());
        if !p.in_check() {
            p.make_null_move();
            let expected = slow(&mut p);
            assert_eq!(
                p.legal_quiet_checks().to_vec(),
                expected,
                "after a pass in {}",
                pos.fen()
            );
            p.unmake_null_move();
        }
    }
    // The games must reach enough checks for the test to mean much.
    assert!(checks > 3000, "only {checks} quiet checks");
    // Rarer than the games find: a chariot on a horse's leg uncovering its
    // check by moving off the general's lines (no cannon on the board, so
    // no landing square is a screen); a soldier's and a horse's checks
    // without a cannon.
    for (fen, expected) in [
        (
            "4k4/2NR5/9/9/9/9/9/9/9/3K5 w - - 0 1",
            "d8d1 d8d2 d8d3 d8d4 d8d5 d8d6 d8d7 d8e8 d8f8 d8g8 d8h8 d8i8 d8d9",
        ),
        ("3k5/9/3P5/9/9/9/9/9/9/4K4 w - - 0 1", "d7d8"),
        ("3k5/9/9/4N4/9/9/9/9/9/4K4 w - - 0 1", "e6c7 e6f8"),
    ] {
        let mut p = Position::from_fen(fen).expect("test FEN");
        let found: Vec<String> = p.legal_quiet_checks().iter().map(Move::to_string).collect();
        assert_eq!(found.join(" "), expected, "{fen}");
        assert_eq!(p.legal_quiet_checks().to_vec(), slow(&mut p), "{fen}");
    }
}

#[test]
fn fen_round_trip() {
    for pos in random_positions(60, 150) {
        let fen = pos.fen();
        let again = Position::from_fen(&fen).expect("own FEN reads back");
        assert_eq!(again.fen(), fen);
        assert_eq!(again.key(), pos.key());
    }
}

#[test]
fn mirror_is_an_involution_and_keeps_perft() {
    for (i, pos) in random_positions(40, 100).into_iter().enumerate() {
        let mut m = pos.mirror();
        assert_eq!(m.mirror().fen(), pos.fen());
        assert_eq!(m.key(), pos.mirrored_key());
        assert_eq!(m.key(), m.compute_key());
        let mut p = pos.clone();
        let depth = if i % 10 == 0 { 3 } else { 2 };
        assert_eq!(m.perft(depth), p.perft(depth), "{}", pos.fen());
        let mirrored: Vec<Move> = sorted(p.legal_moves().iter().map(|mv| mv.mirror()).collect());
        assert_eq!(sorted(m.legal_moves().to_vec()), mirrored);
    }
}

#[test]
fn bulk_perft_matches_full_perft() {
    for pos in random_positions(30, 80).iter().step_by(7) {
        let mut p = pos.clone();
        assert_eq!(p.perft(3), p.perft_full(3), "{}", pos.fen());
    }
}

#[test]
fn perft_until_gives_up_when_asked_and_only_then() {
    let mut pos = Position::startpos();
    assert_eq!(pos.perft_until(3, &|| false), Some(79_666));
    assert_eq!(pos.perft_until(3, &|| true), None);
    // The last ply is counted without asking.
    assert_eq!(pos.perft_until(1, &|| true), Some(44));
    // Stopping part-way leaves the position as it was.
    let asked = std::cell::Cell::new(0);
    let stop = || {
        asked.set(asked.get() + 1);
        asked.get() > 100
    };
    assert_eq!(pos.divide_until(4, &stop), None);
    assert_eq!(pos.fen(), Position::startpos().fen());
    assert_eq!(pos.key(), Position::startpos().key());
    assert_eq!(pos.divide_until(0, &|| true), Some(Vec::new()));
}

#[test]
fn attacked_squares_equal_naive_attacks() {
    for pos in random_positions(20, 120) {
        let naive = Naive::from(&pos);
        for sq in Square::all() {
            for by in [Color::Red, Color::Black] {
                assert_eq!(
                    pos.is_attacked(sq, by),
                    naive.attacked(sq.index(), by),
                    "{sq} by {by:?} in {}",
                    pos.fen()
                );
            }
        }
    }
}

#[test]
fn attack_sets_by_kind_equal_naive_attacks() {
    for pos in random_positions(20, 120) {
        let naive = Naive::from(&pos);
        for by in [Color::Red, Color::Black] {
            for kind in PieceKind::ALL {
                let set = pos.attacks_by(by, kind);
                for sq in Square::all() {
                    assert_eq!(
                        set.contains(sq),
                        naive.attacked_by_kind(sq.index(), by, kind),
                        "{sq} by {by:?} {kind:?} in {}",
                        pos.fen()
                    );
                }
            }
        }
    }
}
