//! The static exchange evaluator against a slow twin that plays the
//! exchange out on a real position with legal moves: each side recaptures
//! with its least valuable legal capturer (ties by square) or stops, as
//! the fast one decides with pseudo-legal attackers. Positions come from
//! the arena's opening suite (master-game openings) continued by seeded
//! random play, every capture of every position checked, plus hand-made
//! cases for the cannon screens and the generals.

use board::{Move, PieceKind, Position, SeeValues};
use rand::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// Centipawn values by kind index (general, advisor, elephant, horse,
/// chariot, cannon, soldier), as the engine's evaluation has them.
const VALUES: [i32; PieceKind::NUM] = [0, 200, 200, 420, 950, 460, 100];
const SEE_VALUES: SeeValues = SeeValues::new(VALUES);

/// A seeded stream, so the games are the same on every run.
type Rng = Pcg64Mcg;

/// The slow twin: the value for the side to move of continuing the
/// exchange on `to` (or stopping), capturing with the least valuable legal
/// capturer each time.
fn exchange(pos: &mut Position, to: board::Square) -> i32 {
    let victim = match pos.piece_at(to) {
        Some(p) if p.kind() == PieceKind::King => return 0,
        Some(p) => VALUES[p.kind().index()],
        None => return 0,
    };
    let rank = |m: &Move, pos: &Position| {
        let k = pos
            .piece_at(m.from())
            .map_or(PieceKind::King, board::Piece::kind);
        let v = if k == PieceKind::King {
            i32::MAX
        } else {
            VALUES[k.index()]
        };
        (v, m.from().index())
    };
    let Some(m) = pos
        .legal_captures()
        .iter()
        .copied()
        .filter(|m| m.to() == to)
        .min_by_key(|m| rank(m, pos))
    else {
        return 0;
    };
    pos.make_move(m);
    let v = victim - exchange(pos, to);
    pos.unmake_move();
    v.max(0)
}

fn slow_see(pos: &mut Position, m: Move) -> i32 {
    let victim = pos.piece_at(m.to()).map_or(0, |p| VALUES[p.kind().index()]);
    pos.make_move(m);
    let v = victim - exchange(pos, m.to());
    pos.unmake_move();
    v
}

fn positions() -> Vec<Position> {
    let suite = include_str!("../../arena/data/openings.epd");
    let mut rng = Rng::seed_from_u64(0x2545_f491_4f6c_dd1d);
    let mut out = Vec::new();
    for line in suite.lines().filter(|l| !l.starts_with('#')) {
        // EPD: the four FEN fields, then operations.
        let fields: Vec<&str> = line.split_whitespace().take(4).collect();
        let Ok(mut pos) = Position::from_fen(&format!("{} 0 1", fields.join(" "))) else {
            continue;
        };
        for _ in 0..40 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.gen_range(0..moves.len())];
            pos.make_move(m);
            if rng.gen_range(0..4) == 0 {
                out.push(pos.clone());
            }
        }
    }
    out
}

#[test]
fn see_agrees_with_the_played_out_exchange() {
    let mut checked = 0usize;
    let mut differ = Vec::new();
    for mut pos in positions() {
        for m in pos.legal_captures() {
            let fast = pos.see(m, &SEE_VALUES);
            let slow = slow_see(&mut pos, m);
            checked += 1;
            if fast != slow {
                differ.push(format!("{} {m}: fast {fast}, slow {slow}", pos.fen()));
            }
        }
    }
    assert!(checked > 5_000, "too few captures checked: {checked}");
    // The fast evaluator ignores pins (a pinned recapturer still counts),
    // the slow one cannot make an illegal move; nothing else may differ.
    let share = differ.len() as f64 / checked as f64;
    eprintln!(
        "SEE: {checked} captures, {} differ ({:.2} %)",
        differ.len(),
        100.0 * share
    );
    assert!(share < 0.01, "{:#?}", &differ[..differ.len().min(20)]);
}

fn see_of(fen: &str, m: &str) -> i32 {
    let pos = Position::from_fen(fen).expect("test FEN");
    let m: Move = m.parse().expect("test move");
    assert!(pos.is_legal(m), "{m} illegal in {fen}");
    pos.see(m, &SEE_VALUES)
}

#[test]
fn hand_made_exchanges() {
    // A chariot takes an undefended soldier, then one a horse defends.
    assert_eq!(see_of("4k4/9/9/9/p8/9/9/9/9/R2K5 w - - 0 1", "a0a5"), 100);
    assert_eq!(
        see_of("4k4/9/1n7/9/p8/9/9/9/9/R2K5 w - - 0 1", "a0a5"),
        100 - 950
    );
    // The cannon on a0 (screen a3) recaptures: soldier and horse for the
    // chariot; the cannon taking first wins soldier and horse for itself.
    let fen = "4k4/9/1n7/9/p7R/9/P8/9/9/C2K5 w - - 0 1";
    assert_eq!(see_of(fen, "i5a5"), 100 - 950 + 420);
    assert_eq!(see_of(fen, "a0a5"), 100 - 460 + 420);
    // A screen vanishes: the chariot on a3 was the cannon's screen, so
    // after it takes, the cannon cannot follow.
    assert_eq!(
        see_of("4k4/9/1n7/9/p8/9/R8/9/9/C2K5 w - - 0 1", "a3a5"),
        100 - 950
    );
    // A screen appears: with soldier and chariot between, the cannon is
    // blocked until the chariot takes; then it recaptures.
    assert_eq!(
        see_of("r3k4/9/9/n8/9/R8/P8/9/9/C2K5 w - - 0 1", "a4a6"),
        420
    );
    // A quiet move onto an attacked square loses the piece.
    assert_eq!(see_of("4k4/9/1n7/9/9/9/9/9/9/R2K5 w - - 0 1", "a0a5"), -950);
}

/// The bounded test answers exactly as the full exchange does, for every
/// legal move (quiet moves too: the search asks about them), the
/// thresholds the search uses and a sweep between them, with the
/// engine's values and with a table whose ties (horse and cannon, advisor
/// and elephant and soldier) make the cheapest attacker a matter of order.
#[test]
fn see_ge_agrees_with_see() {
    const TIED: [i32; PieceKind::NUM] = [0, 150, 150, 450, 1000, 450, 150];
    // Every multiple of 10 (the search's thresholds among them: -750 …
    // 950) and one above every multiple of 50, each once.
    let mut thresholds: Vec<i32> = (-1400..=1400).step_by(10).collect();
    thresholds.extend((-1400..=1400).step_by(50).map(|t| t + 1));
    let mut asked = 0usize;
    for pos in positions() {
        for m in pos.legal_moves() {
            for values in [SeeValues::new(VALUES), SeeValues::new(TIED)] {
                let full = pos.see(m, &values);
                for &t in &thresholds {
                    assert_eq!(
                        pos.see_ge(m, t, &values),
                        full >= t,
                        "{} {m}: see {full}, threshold {t}, values {values:?}",
                        pos.fen()
                    );
                    asked += 1;
                }
            }
        }
    }
    assert!(asked > 100_000, "too few questions: {asked}");
}
