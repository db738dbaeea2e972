//! Everything the engine writes: the shared line sink and the text of each
//! reply in each dialect (`docs/ucci.md` §5 and §7).
//!
//! Formatting is pure (strings in, strings out) so it is unit-tested without
//! a process; [`Output`] is the one place that touches stdout, writing whole
//! lines and flushing each, from the session thread and the search callback
//! alike.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use board::{Color, Move, PieceKind, Position, Reason, Square};
use engine::play::book_check::{CHECK_DEPTH, REFUSAL_MARGIN, Verdict};
use engine::{Bound, Report, Score, TimeBudget};

use crate::notation::Notation;
use crate::options::Dialect;

/// UCCI's and UCI's common score bound for non-mate scores: keeps them
/// apart from the mate range `10000 - p`.
pub const SCORE_CLAMP: i32 = engine::CP_LIMIT;

/// The mate base of the UCCI scale (ElephantEye's).
pub const MATE_BASE: i32 = engine::MATE_VALUE;

/// A line sink shared by the session and the search callback. Each call
/// writes one whole line and flushes it; write errors (a GUI that closed
/// our stdout) are ignored, since stdin decides when we exit.
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
}

impl Output {
    /// An output writing to `sink`.
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Arc::new(Mutex::new(sink)),
        }
    }

    /// Writes `text` (which may hold several lines) and a final newline.
    pub fn line(&self, text: &str) {
        let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = sink
            .write_all(text.as_bytes())
            .and_then(|()| sink.write_all(b"\n"))
            .and_then(|()| sink.flush());
    }

    /// `info string <text>`, cleaned: GUIs read it as one ASCII line, but
    /// the text may quote input (a FEN field, a move) of any length and
    /// with any characters, so everything but printable ASCII becomes `?`
    /// and the text is cut at [`MAX_DIAGNOSTIC`] characters.
    pub fn diagnostic(&self, text: &str) {
        let mut clean = String::with_capacity(text.len().min(MAX_DIAGNOSTIC + 3));
        for (n, c) in text.chars().enumerate() {
            if n == MAX_DIAGNOSTIC {
                clean.push_str("...");
                break;
            }
            clean.push(if c.is_ascii_graphic() || c == ' ' {
                c
            } else {
                '?'
            });
        }
        self.line(&format!("info string {clean}"));
    }

    /// Runs `f` with exclusive use of the sink (for long multi-line output
    /// such as `bench`), flushing afterwards.
    pub fn with_writer<T>(&self, f: impl FnOnce(&mut dyn Write) -> T) -> T {
        let mut sink = self.sink.lock().unwrap_or_else(PoisonError::into_inner);
        let result = f(&mut **sink);
        let _ = sink.flush();
        result
    }
}

/// An in-memory sink for an [`Output`]: a session run in-process (by a
/// fuzzer or a test) writes into one clone, and the caller reads what was
/// written from another.
#[derive(Clone, Debug, Default)]
pub struct Captured(Arc<Mutex<Vec<u8>>>);

impl Captured {
    /// Everything written so far, decoded leniently.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The longest diagnostic text, in characters.
pub const MAX_DIAGNOSTIC: usize = 1000;

/// The integer both dialects print for a score: UCCI after `score`, UCI
/// after `score cp`. Mates use `±(10000 − plies)`; other scores are clamped
/// to ±9000.
pub fn score_value(score: Score) -> i32 {
    score.value()
}

/// UCI's `score …` words: `cp <s>` or `mate <moves>` (positive when the
/// side to move mates).
pub fn uci_score(score: Score) -> String {
    match score {
        Score::Cp(_) => format!("cp {}", score_value(score)),
        Score::Mate(plies) if plies > 0 => format!("mate {}", (plies.saturating_add(1)) / 2),
        Score::Mate(plies) => format!("mate {}", -(plies.saturating_neg() / 2)),
    }
}

/// The words naming a rule in diagnostics.
pub fn reason_text(reason: Reason) -> &'static str {
    match reason {
        Reason::Checkmate => "checkmate",
        Reason::Stalemate => "stalemate (no legal move)",
        Reason::PerpetualCheck => "perpetual check",
        Reason::PerpetualChase => "perpetual chase",
        Reason::MutualPerpetual => "mutual perpetual",
        Reason::RepetitionDraw => "repetition (no perpetual check or chase)",
        Reason::MoveLimit => "move limit (60 moves without capture)",
        Reason::InsufficientMaterial => "insufficient material",
    }
}

fn pv_text(pv: &[Move], notation: Notation) -> String {
    let mut text = String::new();
    for &m in pv {
        let _ = write!(text, " {}", notation.show(m));
    }
    text
}

/// How `info` lines are written, as the dialect and the options decide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InfoStyle {
    /// The dialect.
    pub dialect: Dialect,
    /// The notation of moves.
    pub notation: Notation,
    /// The `MultiPV` option: UCCI names a line's index only above 1.
    pub multipv: usize,
    /// `UCI_ShowWDL`: UCI lines carry `wdl <w> <d> <l>` after the score.
    pub wdl: bool,
}

/// The score at which the side to move wins half its games in the
/// win/draw/loss model of [`wdl`], in centipawns.
pub const WDL_HALF_WIN_CP: f64 = 250.0;
/// The spread of the model's logistic curve, in centipawns.
pub const WDL_SPREAD_CP: f64 = 75.0;

/// Win, draw and loss chances per mille for `score` (side to move's view),
/// as `UCI_ShowWDL` reports them.
///
/// The model is the logistic curve Stockfish and Pikafish use, with fixed
/// constants instead of ones that depend on material:
///
/// 1. win: `W(s) = 1 / (1 + exp((A − s) / B))` with `A` =
///    [`WDL_HALF_WIN_CP`] (250, about half a horse and a pawn: the score
///    that wins half the games) and `B` = [`WDL_SPREAD_CP`] (75);
/// 2. loss: `L(s) = W(−s)`, the same curve seen from the other side;
/// 3. draw: what is left, `1 − W − L` (never negative, since `A` > 0).
///
/// So an even position reads 34/932/34, a pawn up 119/872/9 and a horse up
/// 906/94/0. The constants are a first guess in the shape of those engines'
/// models, not yet fitted to Chariot's own games. A mate (or a rule verdict
/// scored like one) is a certain win or loss. Each part is rounded; the
/// draw takes the rounding, so the three always sum to 1000.
pub fn wdl(score: Score) -> (u32, u32, u32) {
    let cp = match score {
        Score::Cp(cp) => f64::from(cp),
        Score::Mate(plies) if plies > 0 => return (1000, 0, 0),
        Score::Mate(_) => return (0, 0, 1000),
    };
    let chance = |s: f64| 1.0 / (1.0 + ((WDL_HALF_WIN_CP - s) / WDL_SPREAD_CP).exp());
    // Both chances lie in 0..=1, so the rounded per mille fit a u32.
    let per_mille = |p: f64| (p * 1000.0).round().clamp(0.0, 1000.0) as u32;
    let (win, loss) = (per_mille(chance(cp)), per_mille(chance(-cp)));
    let loss = loss.min(1000 - win);
    (win, 1000 - win - loss, loss)
}

/// The `info` line for one iteration, or `None` when the dialect does not
/// print it (UCCI prints exact scores only).
pub fn report_line(style: &InfoStyle, report: &Report) -> Option<String> {
    let notation = style.notation;
    match style.dialect {
        Dialect::Ucci => {
            if report.bound != Bound::Exact {
                return None;
            }
            let index = if style.multipv > 1 {
                format!(" multipv {}", report.multipv)
            } else {
                String::new()
            };
            Some(format!(
                "info depth {}{index} score {} pv{}",
                report.depth,
                score_value(report.score),
                pv_text(&report.pv, notation)
            ))
        }
        Dialect::Uci => {
            let bound = match report.bound {
                Bound::Exact => "",
                Bound::Lower => " lowerbound",
                Bound::Upper => " upperbound",
            };
            let wdl = if style.wdl {
                let (w, d, l) = wdl(report.score);
                format!(" wdl {w} {d} {l}")
            } else {
                String::new()
            };
            Some(format!(
                "info depth {} seldepth {} multipv {} score {}{wdl}{bound} nodes {} nps {} hashfull {} time {} pv{}",
                report.depth,
                report.seldepth,
                report.multipv,
                uci_score(report.score),
                report.nodes,
                report.nps,
                report.hashfull,
                report.time.as_millis(),
                pv_text(&report.pv, notation)
            ))
        }
    }
}

/// UCCI's `info time <ms> nodes <n>` line.
pub fn time_nodes_line(time_ms: u128, nodes: u64) -> String {
    format!("info time {time_ms} nodes {nodes}")
}

/// The `currmove` line.
pub fn currmove_line(dialect: Dialect, notation: Notation, mv: Move, number: usize) -> String {
    let mv = notation.show(mv);
    match dialect {
        Dialect::Ucci => format!("info currmove {mv}"),
        Dialect::Uci => format!("info currmove {mv} currmovenumber {number}"),
    }
}

/// The final line for a move.
pub fn bestmove_line(notation: Notation, best: Move, ponder: Option<Move>, draw: bool) -> String {
    let mut line = format!("bestmove {}", notation.show(best));
    if let Some(p) = ponder {
        let _ = write!(line, " ponder {}", notation.show(p));
    }
    if draw {
        line.push_str(" draw");
    }
    line
}

/// The final line when there is no move to play.
pub fn no_move_line(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Ucci => "nobestmove",
        Dialect::Uci => "bestmove (none)",
    }
}

/// The diagnostic for the book check's `verdict` on `book_move`
/// (`engine::play::book_check`).
pub fn book_verdict_text(book_move: Move, verdict: &Verdict, notation: Notation) -> String {
    let mut text = format!("book move {}", notation.show(book_move));
    // Writing to a String cannot fail.
    let _ = match *verdict {
        Verdict::Agreed { depth } => {
            write!(text, " played: the search prefers it too at depth {depth}")
        }
        Verdict::Unchecked { depth } => write!(
            text,
            " played unchecked: the check reached depth {depth} of {CHECK_DEPTH}"
        ),
        Verdict::Compared {
            best,
            best_score,
            book_score,
            gap,
        } => write!(
            text,
            " {}: at depth {CHECK_DEPTH} it scores {}, {} scores {} ({gap} more; the limit is {REFUSAL_MARGIN})",
            if verdict.refuses() {
                "refused"
            } else {
                "played"
            },
            score_value(book_score),
            notation.show(best),
            score_value(best_score),
        ),
    };
    if verdict.refuses() {
        text.push_str("; searching for another move");
    }
    text
}

/// The depth-0 line of `go depth 0` with the static evaluation.
pub fn depth_zero_line(dialect: Dialect, eval: i32) -> String {
    let value = eval.clamp(-SCORE_CLAMP, SCORE_CLAMP);
    match dialect {
        Dialect::Ucci => format!("info depth 0 score {value}"),
        Dialect::Uci => format!("info depth 0 score cp {value}"),
    }
}

/// The debug mode's diagnostic text for a search's time bounds (without
/// the `info string` prefix), or `None` for a search without a time
/// limit. The bounds count from the `go`, or from `ponderhit` for a ponder
/// search.
pub fn budget_text(budget: &TimeBudget) -> Option<String> {
    let hard = budget.hard()?;
    let soft = budget.soft().unwrap_or(hard);
    let scaled = if budget.adaptive() {
        " (scaled by what the search finds)"
    } else {
        ""
    };
    Some(format!(
        "time: no new iteration after {} ms{scaled}; stop at {} ms",
        soft.as_millis(),
        hard.as_millis()
    ))
}

/// The pieces giving check to the side to move, found square by square
/// from the piece rules (a slow, independent twin of the move generator's
/// attack tables; used only by `d`).
pub fn checkers(pos: &Position) -> Vec<Square> {
    let us = pos.side_to_move();
    let them = !us;
    let king = pos.king_square(us);
    let occupied = |sq: Square| pos.piece_at(sq).is_some();
    let between_count = |a: Square, b: Square| -> Option<usize> {
        let (df, dr) = (
            b.file().index() as i32 - a.file().index() as i32,
            b.rank().index() as i32 - a.rank().index() as i32,
        );
        if df != 0 && dr != 0 {
            return None;
        }
        let steps = df.abs().max(dr.abs());
        let mut count = 0;
        for k in 1..steps {
            let sq = a.offset(df.signum() * k, dr.signum() * k)?;
            count += usize::from(occupied(sq));
        }
        Some(count)
    };
    let mut found = Vec::new();
    for sq in Square::all() {
        let Some(piece) = pos.piece_at(sq) else {
            continue;
        };
        if piece.color() != them {
            continue;
        }
        let (df, dr) = (
            king.file().index() as i32 - sq.file().index() as i32,
            king.rank().index() as i32 - sq.rank().index() as i32,
        );
        let gives = match piece.kind() {
            PieceKind::Rook => between_count(sq, king) == Some(0),
            PieceKind::King => df == 0 && between_count(sq, king) == Some(0),
            PieceKind::Cannon => between_count(sq, king) == Some(1),
            PieceKind::Knight => {
                // The leg is the point next to the horse in the long direction.
                let leg = match (df.abs(), dr.abs()) {
                    (1, 2) => sq.offset(0, dr.signum()),
                    (2, 1) => sq.offset(df.signum(), 0),
                    _ => None,
                };
                leg.is_some_and(|l| !occupied(l))
            }
            PieceKind::Pawn => {
                let forward = if them == Color::Red { 1 } else { -1 };
                let crossed = !sq.on_own_side(them);
                (df == 0 && dr == forward) || (crossed && dr == 0 && df.abs() == 1)
            }
            PieceKind::Advisor | PieceKind::Bishop => false,
        };
        if gives {
            found.push(sq);
        }
    }
    found
}

/// The `d` output: the board, `Fen:`, `Key:` and `Checkers:`.
pub fn display(pos: &Position) -> String {
    let checkers: Vec<String> = checkers(pos).iter().map(ToString::to_string).collect();
    format!(
        "{pos}\nKey: {:016x}\nCheckers: {}",
        pos.key(),
        checkers.join(" ")
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use engine::{Clock, Limits};

    use super::*;

    fn report(score: Score, bound: Bound) -> Report {
        Report {
            depth: 5,
            seldepth: 9,
            multipv: 1,
            score,
            bound,
            rule: None,
            nodes: 12345,
            nps: 100_000,
            time: Duration::from_millis(123),
            hashfull: 7,
            pv: vec!["h2e2".parse().unwrap(), "h9g7".parse().unwrap()],
        }
    }

    #[test]
    fn scores() {
        assert_eq!(score_value(Score::Cp(35)), 35);
        assert_eq!(score_value(Score::Cp(-20_000)), -9000);
        assert_eq!(score_value(Score::Mate(3)), 9997);
        assert_eq!(score_value(Score::Mate(-4)), -9996);
        assert_eq!(score_value(Score::Mate(0)), -10000);
        assert_eq!(score_value(Score::Mate(5000)), 9001);
        // The printing half of the former `table_score` test; the engine
        // decodes raw table scores (`engine::score` tests).
        assert_eq!(score_value(Score::Mate(-2)), -9998);
        assert_eq!(score_value(Score::Cp(-41)), -41);
        assert_eq!(uci_score(Score::Cp(-7)), "cp -7");
        assert_eq!(uci_score(Score::Mate(1)), "mate 1");
        assert_eq!(uci_score(Score::Mate(3)), "mate 2");
        assert_eq!(uci_score(Score::Mate(-4)), "mate -2");
        assert_eq!(uci_score(Score::Mate(0)), "mate 0");
    }

    fn style(dialect: Dialect, notation: Notation, multipv: usize) -> InfoStyle {
        InfoStyle {
            dialect,
            notation,
            multipv,
            wdl: false,
        }
    }

    #[test]
    fn wdl_model() {
        assert_eq!(wdl(Score::Cp(0)), (34, 932, 34));
        assert_eq!(wdl(Score::Cp(100)), (119, 872, 9));
        assert_eq!(wdl(Score::Cp(-100)), (9, 872, 119));
        assert_eq!(wdl(Score::Cp(250)), (500, 499, 1));
        assert_eq!(wdl(Score::Cp(420)), (906, 94, 0));
        assert_eq!(wdl(Score::Cp(30_000)), (1000, 0, 0));
        assert_eq!(wdl(Score::Cp(i32::MIN)), (0, 0, 1000));
        assert_eq!(wdl(Score::Mate(3)), (1000, 0, 0));
        assert_eq!(wdl(Score::Mate(-2)), (0, 0, 1000));
        // Monotone, and always 1000 in all.
        let mut last = (0, 0, 1000);
        for cp in -2000..=2000 {
            let (w, d, l) = wdl(Score::Cp(cp));
            assert_eq!(w + d + l, 1000);
            assert!(w >= last.0 && l <= last.2, "{cp}");
            last = (w, d, l);
        }
        let r = report(Score::Cp(100), Bound::Lower);
        let with = InfoStyle {
            wdl: true,
            ..style(Dialect::Uci, Notation::Iccs, 1)
        };
        assert!(
            report_line(&with, &r)
                .unwrap()
                .contains(" score cp 100 wdl 119 872 9 lowerbound nodes ")
        );
        let ucci = InfoStyle {
            dialect: Dialect::Ucci,
            ..with
        };
        let r = report(Score::Cp(100), Bound::Exact);
        assert!(!report_line(&ucci, &r).unwrap().contains("wdl"));
    }

    #[test]
    fn report_lines() {
        let r = report(Score::Cp(35), Bound::Exact);
        assert_eq!(
            report_line(&style(Dialect::Ucci, Notation::Iccs, 1), &r).unwrap(),
            "info depth 5 score 35 pv h2e2 h9g7"
        );
        assert_eq!(
            report_line(&style(Dialect::Ucci, Notation::Iccs, 2), &r).unwrap(),
            "info depth 5 multipv 1 score 35 pv h2e2 h9g7"
        );
        assert_eq!(
            report_line(&style(Dialect::Uci, Notation::Iccs, 1), &r).unwrap(),
            "info depth 5 seldepth 9 multipv 1 score cp 35 nodes 12345 nps 100000 hashfull 7 time 123 pv h2e2 h9g7"
        );
        let r = report(Score::Mate(3), Bound::Lower);
        assert_eq!(
            report_line(&style(Dialect::Ucci, Notation::Iccs, 1), &r),
            None
        );
        assert!(
            report_line(&style(Dialect::Uci, Notation::Ranks1To10, 1), &r)
                .unwrap()
                .ends_with(" pv h3e3 h10g8")
        );
        assert_eq!(
            report_line(&style(Dialect::Uci, Notation::Iccs, 1), &r).unwrap(),
            "info depth 5 seldepth 9 multipv 1 score mate 2 lowerbound nodes 12345 nps 100000 hashfull 7 time 123 pv h2e2 h9g7"
        );
    }

    #[test]
    fn final_lines() {
        let m: Move = "h2e2".parse().unwrap();
        let p: Move = "h9g7".parse().unwrap();
        assert_eq!(
            bestmove_line(Notation::Iccs, m, Some(p), false),
            "bestmove h2e2 ponder h9g7"
        );
        assert_eq!(
            bestmove_line(Notation::Iccs, m, None, true),
            "bestmove h2e2 draw"
        );
        assert_eq!(no_move_line(Dialect::Ucci), "nobestmove");
        assert_eq!(no_move_line(Dialect::Uci), "bestmove (none)");
        assert_eq!(depth_zero_line(Dialect::Ucci, 12), "info depth 0 score 12");
        assert_eq!(
            depth_zero_line(Dialect::Uci, -12),
            "info depth 0 score cp -12"
        );
        assert_eq!(
            currmove_line(Dialect::Uci, Notation::Iccs, m, 4),
            "info currmove h2e2 currmovenumber 4"
        );
        assert_eq!(time_nodes_line(5, 6), "info time 5 nodes 6");
    }

    #[test]
    fn book_verdicts_say_what_was_decided() {
        let mv = |t: &str| t.parse::<Move>().unwrap();
        let say = |v: Verdict| book_verdict_text(mv("h2e2"), &v, Notation::Iccs);
        assert_eq!(
            say(Verdict::Agreed { depth: 6 }),
            "book move h2e2 played: the search prefers it too at depth 6"
        );
        assert_eq!(
            say(Verdict::Unchecked { depth: 2 }),
            "book move h2e2 played unchecked: the check reached depth 2 of 6"
        );
        assert_eq!(
            say(Verdict::Compared {
                best: mv("b2e2"),
                best_score: Score::Cp(20),
                book_score: Score::Cp(-900),
                gap: 920,
            }),
            "book move h2e2 refused: at depth 6 it scores -900, b2e2 scores 20 \
             (920 more; the limit is 350); searching for another move"
        );
        assert!(
            book_verdict_text(
                mv("h2e2"),
                &Verdict::Agreed { depth: 6 },
                Notation::Ranks1To10
            )
            .starts_with("book move h3e3 ")
        );
    }

    #[test]
    fn checkers_by_piece_rules() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert!(checkers(&Position::startpos()).is_empty());
        // Rook on the file, cannon with a screen, horse with a free leg, pawn beside.
        let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4r4/3K5 w - - 0 1").unwrap();
        assert!(checkers(&pos).is_empty());
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/3r5/4K4 w - - 0 1").unwrap();
        assert!(checkers(&pos).is_empty());
        let pos = Position::from_fen("4k4/9/9/9/4c4/9/4P4/9/9/4K4 w - - 0 1").unwrap();
        assert_eq!(checkers(&pos), vec![sq("e5")]);
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/5n3/9/4K4 w - - 0 1").unwrap();
        assert_eq!(checkers(&pos), vec![sq("f2")]);
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/5n3/5R3/4K4 w - - 0 1").unwrap();
        assert!(checkers(&pos).is_empty());
        let pos = Position::from_fen("3k5/9/9/9/9/9/9/9/9/3pK4 w - - 0 1").unwrap();
        assert_eq!(checkers(&pos), vec![sq("d0")]);
        let pos = Position::from_fen("4k4/9/9/9/9/9/9/9/4p4/4K4 w - - 0 1").unwrap();
        assert_eq!(checkers(&pos), vec![sq("e1")]);
    }

    #[test]
    fn display_has_key_and_checkers() {
        let text = display(&Position::startpos());
        assert!(
            text.contains("Fen: rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w"),
            "{text}"
        );
        let key = text.lines().find_map(|l| l.strip_prefix("Key: ")).unwrap();
        assert_eq!(key.len(), 16);
        assert_eq!(
            u64::from_str_radix(key, 16).unwrap(),
            Position::startpos().key()
        );
        assert!(text.ends_with("Checkers: "));
    }

    #[test]
    fn budget_text_says_both_bounds_and_whether_they_adapt() {
        let budget = |limits: Limits| budget_text(&TimeBudget::new(&limits));
        assert_eq!(budget(Limits::default()), None);
        let clock = Clock {
            time: Duration::from_secs(3),
            moves_to_go: Some(1),
            overhead: Duration::ZERO,
            ..Clock::default()
        };
        // 3 s less the 40 ms lag margin, 60 % of it for the one move.
        assert_eq!(
            budget(Limits {
                clock: Some(clock),
                ..Limits::default()
            })
            .as_deref(),
            Some(
                "time: no new iteration after 1776 ms (scaled by what the search finds); \
                 stop at 1776 ms"
            )
        );
        let fixed = budget(Limits {
            movetime: Some(Duration::from_secs(1)),
            ..Limits::default()
        });
        assert_eq!(
            fixed.as_deref(),
            Some("time: no new iteration after 985 ms; stop at 985 ms")
        );
    }
}
