//! Game-end judging (`docs/rules.md` §4) on the cases of
//! `tests/data/rules/cases.txt`: each line replays a move sequence from a
//! FEN with `play` (so every move is checked for legality) and compares the
//! judge's answer with the expected outcome and reason.
//!
//! Line format, fields separated by `|`:
//!
//! ```text
//! judge | fen | moves | expected | description
//! ```
//!
//! * `judge`: `game` for [`Position::outcome`], or `search N` for
//!   [`Position::rule_verdict`]`(N)` (the search root `N` plies before the
//!   end of the sequence), whose verdict is turned into an outcome with the
//!   side to move.
//! * `moves`: ICCS moves separated by spaces, possibly none.
//! * `expected`: `ongoing`, or `red <reason>` / `black <reason>` (the
//!   winner) / `draw <reason>`, with the reason in kebab case
//!   (`perpetual-check`).
//!
//! For `game` cases with moves, the position before the last move must
//! still be undecided, so that each case pins the exact ply of the verdict.

use board::{Color, Outcome, Position, Reason};

const CASES: &str = include_str!("../data/rules/cases.txt");

fn parse_reason(s: &str) -> Reason {
    match s {
        "checkmate" => Reason::Checkmate,
        "stalemate" => Reason::Stalemate,
        "perpetual-check" => Reason::PerpetualCheck,
        "perpetual-chase" => Reason::PerpetualChase,
        "mutual-perpetual" => Reason::MutualPerpetual,
        "repetition-draw" => Reason::RepetitionDraw,
        "move-limit" => Reason::MoveLimit,
        "insufficient-material" => Reason::InsufficientMaterial,
        _ => panic!("unknown reason '{s}'"),
    }
}

fn parse_outcome(s: &str) -> Outcome {
    let mut words = s.split_whitespace();
    let result = words.next().unwrap_or_default();
    if result == "ongoing" {
        return Outcome::Ongoing;
    }
    let reason = parse_reason(words.next().unwrap_or_default());
    let winner = match result {
        "red" => Some(Color::Red),
        "black" => Some(Color::Black),
        "draw" => None,
        _ => panic!("unknown result '{result}'"),
    };
    Outcome::Decided { winner, reason }
}

/// One line of the case file.
struct Case {
    line: usize,
    search_root: Option<usize>,
    fen: String,
    moves: Vec<String>,
    expected: Outcome,
    description: String,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (i, raw) in CASES.lines().enumerate() {
        let text = raw.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = text.split('|').map(str::trim).collect();
        assert_eq!(fields.len(), 5, "line {}: expected 5 fields: {text}", i + 1);
        let search_root = match fields[0].split_whitespace().collect::<Vec<_>>()[..] {
            ["game"] => None,
            ["search", n] => Some(n.parse().expect("search root")),
            _ => panic!("line {}: bad judge '{}'", i + 1, fields[0]),
        };
        out.push(Case {
            line: i + 1,
            search_root,
            fen: fields[1].to_string(),
            moves: fields[2].split_whitespace().map(str::to_string).collect(),
            expected: parse_outcome(fields[3]),
            description: fields[4].to_string(),
        });
    }
    out
}

fn judge(pos: &Position, search_root: Option<usize>) -> Outcome {
    match search_root {
        None => pos.outcome(),
        Some(n) => pos
            .rule_verdict(n)
            .map_or(Outcome::Ongoing, |v| v.to_outcome(pos.side_to_move())),
    }
}

#[test]
fn rule_cases() {
    let cases = cases();
    assert!(cases.len() >= 25, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let mut pos = Position::from_fen(&case.fen)
            .unwrap_or_else(|e| panic!("line {}: bad FEN {}: {e:?}", case.line, case.fen));
        for (i, text) in case.moves.iter().enumerate() {
            let m = pos
                .parse_move(text)
                .unwrap_or_else(|e| panic!("line {}: move {} {text}: {e}", case.line, i + 1));
            if case.search_root.is_none()
                && i + 1 == case.moves.len()
                && pos.outcome() != Outcome::Ongoing
            {
                failures.push(format!(
                    "line {} ({}): decided before the last move: {:?}",
                    case.line,
                    case.description,
                    pos.outcome()
                ));
            }
            pos.play(m)
                .unwrap_or_else(|e| panic!("line {}: {e}", case.line));
        }
        let got = judge(&pos, case.search_root);
        if got != case.expected {
            failures.push(format!(
                "line {} ({}): expected {:?}, got {got:?}",
                case.line, case.description, case.expected
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Every repetition case is judged the same on the left-right mirror of
/// the game (the rules have no preferred wing).
#[test]
fn mirrored_cases_agree() {
    for case in cases() {
        let original = Position::from_fen(&case.fen).expect("valid FEN");
        let mut pos = original.mirror();
        for text in &case.moves {
            let m: board::Move = text.parse().expect("ICCS move");
            pos.play(m.mirror())
                .unwrap_or_else(|e| panic!("line {}: mirrored {e}", case.line));
        }
        assert_eq!(
            judge(&pos, case.search_root),
            case.expected,
            "line {} mirrored ({})",
            case.line,
            case.description
        );
    }
}

/// Plays `moves` from `fen`, checking each for legality.
fn game(fen: &str, moves: &str) -> Position {
    let mut pos = Position::from_fen(fen).expect("valid FEN");
    for text in moves.split_whitespace() {
        let m = pos.parse_move(text).expect("legal move");
        pos.play(m).expect("legal move");
    }
    pos
}

/// The search breaks a perpetual chase. Red's chariot has chased Black's
/// horse between b3 and a5 for two cycles; Red is far behind (one chariot
/// against two and a horse), so a repetition draw would suit it, but the
/// chase move `h5h3` would bring about the position after it a third time
/// and lose by perpetual chase. The engine must play something else and
/// must not report a rule loss.
///
/// The control is the same game with the horse protected by soldiers on
/// a6 and a3: the same moves are then no chase, `h5h3` is a plain
/// repetition draw, and the engine, being lost otherwise, takes it.
#[test]
fn search_breaks_perpetual_chase() {
    use engine::{Engine, Limits, Score};

    const HISTORY: &str = "h6h3 b3a5 h3h5 a5b3 h5h3 b3a5 h3h5 a5b3";
    let search = |pos: Position| {
        let mut engine = Engine::new();
        engine.start(
            pos,
            Limits {
                depth: Some(6),
                ..Default::default()
            },
            Box::new(|_| {}),
        );
        engine.wait()
    };

    let pos = game("2r2kr2/9/9/7R1/9/9/1n7/9/9/3K5 w", HISTORY);
    assert_eq!(pos.outcome(), Outcome::Ongoing);
    let chase = pos.parse_move("h5h3").expect("legal");
    let mut after = pos.clone();
    after.play(chase).expect("legal");
    assert_eq!(
        after.outcome(),
        Outcome::Decided {
            winner: Some(Color::Black),
            reason: Reason::PerpetualChase
        }
    );
    let result = search(pos);
    assert!(
        result.best.is_some_and(|m| m != chase),
        "the engine repeated the chase: {result:?}"
    );
    assert!(
        !(matches!(result.score, Score::Mate(p) if p < 0) && result.rule.is_some()),
        "the engine reports a rule loss: {result:?}"
    );

    let control = game("2r2kr2/9/9/p6R1/9/9/pn7/9/9/3K5 w", HISTORY);
    let mut after = control.clone();
    after.play(chase).expect("legal");
    assert_eq!(
        after.outcome(),
        Outcome::Decided {
            winner: None,
            reason: Reason::RepetitionDraw
        }
    );
    let result = search(control);
    assert_eq!(
        result.best,
        Some(chase),
        "the control should take the repetition draw: {result:?}"
    );
}
