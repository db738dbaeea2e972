//! The running tally of a tournament and the text made from it: the
//! per-game progress line and the final report.
//!
//! The tournament loop feeds finished games in with [`Tally::add`]; the
//! statistics themselves (Elo, pentanomial, SPRT) are `stats`' job.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use board::GameResult;

use crate::game::GameRecord;
use crate::sprt::{EloModel, Sprt, SprtState};
use crate::stats::{GameScore, Pentanomial, Trinomial};

/// The running tally of one pair of engines, from `a`'s point of view.
#[derive(Default)]
pub struct PairingStats {
    /// Index of the first engine.
    pub a: usize,
    /// Index of the second engine.
    pub b: usize,
    /// `a`'s games.
    pub games: Trinomial,
    /// `a`'s finished game pairs.
    pub pairs: Pentanomial,
    /// The first game of each pair whose second game is not in yet, by
    /// pair id.
    first_of_pair: HashMap<u64, GameScore>,
}

/// Everything counted so far.
///
/// `points` and `played` are indexed by engine; `pairings` by pairing, in
/// schedule order. A game pair enters `pairs` only when both its games are
/// in, whichever finished first.
pub struct Tally {
    /// Per pair of engines.
    pub pairings: Vec<PairingStats>,
    /// Half points per engine.
    pub points: Vec<u64>,
    /// Games per engine.
    pub played: Vec<u64>,
    /// Games by the text of their termination.
    pub terminations: BTreeMap<String, u64>,
    /// Games lost by a fault, by (engine, termination text).
    pub faults: BTreeMap<(String, String), u64>,
    /// Games counted.
    pub done: u64,
}

/// The score of engine `a` in a finished game of the pair; `second` is the
/// game with colours swapped (`b` was Red).
pub fn score_for_a(result: GameResult, second: bool) -> GameScore {
    let red_score = match result {
        GameResult::RedWins => GameScore::Win,
        GameResult::Draw => GameScore::Draw,
        GameResult::BlackWins => GameScore::Loss,
    };
    if second { red_score.flip() } else { red_score }
}

impl Tally {
    /// An empty tally of `engines` engines playing `pairings`.
    pub fn new(engines: usize, pairings: &[(usize, usize)]) -> Tally {
        Tally {
            pairings: pairings
                .iter()
                .map(|&(a, b)| PairingStats {
                    a,
                    b,
                    ..PairingStats::default()
                })
                .collect(),
            points: vec![0; engines],
            played: vec![0; engines],
            terminations: BTreeMap::new(),
            faults: BTreeMap::new(),
            done: 0,
        }
    }

    /// Counts one finished game of pair `pair_id` in pairing `pairing`.
    pub fn add(&mut self, pairing: usize, pair_id: u64, second: bool, record: &GameRecord) {
        self.done += 1;
        let score_a = score_for_a(record.result, second);
        let st = &mut self.pairings[pairing];
        st.games.add(score_a);
        if let Some(first) = st.first_of_pair.remove(&pair_id) {
            let (g1, g2) = if second {
                (first, score_a)
            } else {
                (score_a, first)
            };
            st.pairs.add(g1, g2);
        } else {
            st.first_of_pair.insert(pair_id, score_a);
        }
        let (a, b) = (st.a, st.b);
        self.points[a] += score_a.half_points() as u64;
        self.points[b] += score_a.flip().half_points() as u64;
        self.played[a] += 1;
        self.played[b] += 1;
        *self
            .terminations
            .entry(record.termination.to_string())
            .or_default() += 1;
        if record.termination.is_fault() {
            let loser = match record.result {
                GameResult::RedWins => &record.black,
                _ => &record.red,
            };
            *self
                .faults
                .entry((loser.clone(), record.termination.to_string()))
                .or_default() += 1;
        }
    }

    /// The SPRT's LLR and where it stands, for a match with a test.
    pub fn sprt(&self, sprt: Option<&Sprt>) -> Option<(f64, SprtState)> {
        let sprt = sprt?;
        let [st] = self.pairings.as_slice() else {
            return None;
        };
        let llr = sprt.llr(&st.pairs);
        Some((llr, sprt.state(llr)))
    }

    /// The standings after the games so far: a round robin's points, or a
    /// match's W-D-L and Elo with the SPRT's LLR against its bounds.
    pub fn standings(&self, names: &[&str], sprt: Option<&Sprt>) -> String {
        if self.pairings.len() > 1 {
            return standings_text(names, &self.points, &self.played);
        }
        let mut line = String::new();
        if let Some(st) = self.pairings.first() {
            line = trinomial_text(names[st.a], names[st.b], &st.games);
        }
        if let (Some(sprt), Some((llr, _))) = (sprt, self.sprt(sprt)) {
            let (lo, hi) = sprt.bounds();
            let _ = write!(line, " | LLR {llr:.2} ({lo:.2}, {hi:.2})");
        }
        line
    }

    /// The final report: a round robin's table, then for every pairing its
    /// W-D-L, Elo from pairs, pentanomial and SPRT state, then how the
    /// games ended and who broke which.
    pub fn report(&self, names: &[&str], tc: &str, sprt: Option<&Sprt>) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Finished {} games, time control {tc}.", self.done);
        if names.len() > 2 {
            self.write_table(&mut out, names);
        }
        for st in &self.pairings {
            write_pairing(
                &mut out,
                names[st.a],
                names[st.b],
                &st.games,
                &st.pairs,
                sprt,
            );
        }
        let list: Vec<String> = self
            .terminations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(out, "Terminations: {}", list.join(", "));
        for ((engine, what), n) in &self.faults {
            let _ = writeln!(out, "Fault: {engine}: {what} x{n}");
        }
        out.trim_end().to_string()
    }

    /// The round-robin table, highest score first.
    fn write_table(&self, out: &mut String, names: &[&str]) {
        let _ = writeln!(
            out,
            "{:<20} {:>6} {:>8} {:>7}",
            "Engine", "Games", "Points", "Score"
        );
        let mut order: Vec<usize> = (0..names.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.points[i]));
        for i in order {
            let score = if self.played[i] > 0 {
                50.0 * self.points[i] as f64 / self.played[i] as f64
            } else {
                0.0
            };
            let _ = writeln!(
                out,
                "{:<20} {:>6} {:>8.1} {:>6.1} %",
                names[i],
                self.played[i],
                self.points[i] as f64 / 2.0,
                score
            );
        }
    }
}

/// One pairing's block of the final report: W-D-L with the score and Elo
/// from games, Elo and normalized Elo from pairs, the pentanomial and the
/// SPRT's state. `arena pool` prints the same block for pooled runs.
pub fn write_pairing(
    out: &mut String,
    a: &str,
    b: &str,
    games: &Trinomial,
    pairs: &Pentanomial,
    sprt: Option<&Sprt>,
) {
    let _ = writeln!(out, "{}", trinomial_text(a, b, games));
    if let Some(e) = pairs.elo() {
        let _ = writeln!(out, "  Elo from pairs: {e} (95 %)");
    }
    if let Some(e) = pairs.normalized_elo() {
        let _ = writeln!(out, "  nElo from pairs: {e} (95 %)");
    }
    let c = pairs.counts;
    let _ = writeln!(
        out,
        "  Pentanomial [0, 0.5, 1, 1.5, 2]: [{}, {}, {}, {}, {}] ({} pairs)",
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        pairs.pairs()
    );
    if let Some(sprt) = sprt {
        let llr = sprt.llr(pairs);
        let (lo, hi) = sprt.bounds();
        let model = match sprt.model {
            EloModel::Normalized => "normalized",
            EloModel::Logistic => "logistic",
        };
        let _ = writeln!(
            out,
            "  SPRT elo0={} elo1={} alpha={} beta={} ({model}): LLR {llr:.2} [{lo:.2}, {hi:.2}] {}",
            sprt.elo0,
            sprt.elo1,
            sprt.alpha,
            sprt.beta,
            sprt_verdict(sprt.state(llr))
        );
    }
}

/// What an SPRT state means for the change under test.
pub fn sprt_verdict(state: SprtState) -> &'static str {
    match state {
        SprtState::Continue => "(no decision yet)",
        SprtState::AcceptH0 => "H0 accepted (fail)",
        SprtState::AcceptH1 => "H1 accepted (pass)",
    }
}

/// `a vs b: W 5 D 4 L 3 [54.2 %] Elo +29.1 ± 45.2`.
fn trinomial_text(a: &str, b: &str, t: &Trinomial) -> String {
    let mut s = format!("{a} vs {b}: W {} D {} L {}", t.wins, t.draws, t.losses);
    if let Some(score) = t.score() {
        let _ = write!(s, " [{:.1} %]", 100.0 * score);
    }
    if let Some(e) = t.elo() {
        let _ = write!(s, " Elo {e}");
    }
    s
}

/// The round-robin standings for the progress line, leader first:
/// `a 3.5/5, b 2/4, c 1.5/3` (points / games).
fn standings_text(names: &[&str], points: &[u64], played: &[u64]) -> String {
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(points[i]), played[i]));
    order
        .iter()
        .map(|&i| {
            let whole = points[i] / 2;
            let half = if points[i] % 2 == 1 { ".5" } else { "" };
            format!("{} {whole}{half}/{}", names[i], played[i])
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_scores() {
        assert_eq!(score_for_a(GameResult::RedWins, false), GameScore::Win);
        assert_eq!(score_for_a(GameResult::RedWins, true), GameScore::Loss);
        assert_eq!(score_for_a(GameResult::BlackWins, true), GameScore::Win);
        assert_eq!(score_for_a(GameResult::Draw, true), GameScore::Draw);
    }
}
