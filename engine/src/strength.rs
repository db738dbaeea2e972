//! Strength levels: what the options a GUI uses to ask for a weaker
//! engine (`docs/ucci.md` §3) mean for a search. UCI's `Skill Level`
//! (0–20) and `UCI_LimitStrength` with `UCI_Elo`, and UCCI's ElephantEye
//! options `knowledge`, `pruning`, `randomness` and `idle`, all come down
//! to one [`Level`]: a skill from 0 to 20 and a temperature.
//!
//! A level below 20 plays like a weaker player, not like a strong one
//! that blunders at random: its search is smaller (a node budget that
//! grows by 30 % with every skill step: 1,000 nodes at 0, about 146,000
//! at 19), so it misses deep tactics; and below skill 12 it draws its
//! move among the best four lines of that search by a temperature that
//! rises as the skill falls (4 centipawns a step: 48 at skill 0), never a
//! move the search sees losing more than the allowed loss (at skill 0
//! less than half a horse), so it does not hang a chariot in one move
//! (the engine's `Weakening`). From skill 12 up the budget alone weakens.
//! The rules stay the engine's: a move that loses by rule while the best
//! does not is never drawn.
//!
//! The steps are small so that a GUI's slider moves the strength by
//! little at each notch, and so that neighbouring levels score well
//! enough against each other to be measured in games. The draw is kept
//! to the levels that should play loosely: at a strong level it costs
//! far more than the smaller budget does, because four lines at the same
//! budget search about two plies less. That makes skill 11 against 12 the
//! steepest step of the ladder. The designs measured and dropped, with
//! their figures, are in `docs/lab/strength.md`, "Strength levels".
//!
//! `UCI_Elo` maps onto the skill by the ladder measured in games
//! (`docs/lab/strength.md`, "Strength levels"), anchored on ElephantEye 3.31 at
//! its default strength; see [`ELO_LADDER`].

use crate::Weakening;

/// The full-strength skill.
pub const MAX_SKILL: u8 = 20;

/// Lines a weakened search draws its move from.
const CANDIDATES: usize = 4;

/// The level's node budget at skill 0, and its growth per skill step.
const BASE_NODES: f64 = 1000.0;
const NODE_GROWTH: f64 = 1.3;

/// The temperature added per skill step below [`DRAW_BELOW`], centipawns.
const TEMPERATURE_STEP: i32 = 4;

/// The skill below which a level draws its move among its best lines.
const DRAW_BELOW: u8 = 12;

/// `UCI_Elo` by skill, as measured in games with the network
/// `chariot-8` (`docs/lab/strength.md`, "Strength levels"): ElephantEye 3.31
/// at its default strength (5 s + 0.05 s, no book) is 2000 on this scale.
/// One least-squares fit over the levels' meetings with each other (at
/// 100,000 nodes a move, 120–2,400 games a meeting) and with ElephantEye
/// (skill 12, 240 games) places every row, rounded to 5
/// (`tools/ladder/fit.py`); each row's error is in the table there
/// (±60 at skill 12, up to ±83 at the ends). Levels between two rows are
/// interpolated. `engine/tests/ladder_claims.rs` holds the fit's table and
/// the pages that quote it (README, `docs/ucci.md`) to these rows.
pub const ELO_LADDER: &[(u8, u32)] = &[
    (0, 835),
    (2, 1040),
    (4, 1210),
    (6, 1445),
    (8, 1665),
    (10, 1880),
    (11, 2020),
    (12, 2330),
    (14, 2440),
    (16, 2570),
    (20, 2675),
];

/// A network the ladder was measured or checked with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LadderNetwork {
    /// The network's name in the lineage (`docs/lab/strength.md`).
    pub name: &'static str,
    /// Its checksum, as [`crate::nnue::Network::checksum`] gives it and
    /// `chariot-train check` prints it.
    pub checksum: u32,
    /// Whether [`ELO_LADDER`] was fitted with it or a check found the fit
    /// still true for it.
    pub basis: LadderBasis,
}

/// How a network came to be in [`LADDER_NETWORKS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LadderBasis {
    /// The ladder was fitted with this network's games.
    Fitted,
    /// The ladder check (`CONTRIBUTING.md`, "Checking the strength
    /// levels") found the fit within its tolerance with this network.
    Checked,
}

/// The networks [`ELO_LADDER`] holds for. The levels' Elo depends on the
/// network that plays them, so a network not listed here has levels that
/// nobody measured: the test `ladder_holds_for_the_embedded_network`
/// fails until the new network is checked, and its row added here with
/// the check in the strength log, or the ladder is fitted again.
pub const LADDER_NETWORKS: &[LadderNetwork] = &[LadderNetwork {
    name: "chariot-8",
    checksum: 0x5889_02f9,
    basis: LadderBasis::Fitted,
}];

impl LadderNetwork {
    /// The row of [`LADDER_NETWORKS`] of a network, by its checksum.
    pub fn of_checksum(checksum: u32) -> Option<&'static LadderNetwork> {
        LADDER_NETWORKS.iter().find(|n| n.checksum == checksum)
    }
}

/// The lowest and highest `UCI_Elo` (the ladder's ends).
pub const MIN_ELO: u32 = ELO_LADDER[0].1;
/// See [`MIN_ELO`].
pub const MAX_ELO: u32 = ELO_LADDER[ELO_LADDER.len() - 1].1;

/// ElephantEye's grades of `knowledge`, `pruning` and `idle`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Grade {
    /// `none`.
    None,
    /// `small`.
    Small,
    /// `medium`.
    Medium,
    /// `large`.
    Large,
}

/// ElephantEye's grades of `randomness`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Randomness {
    /// `none`: the best move of the level's search.
    None,
    /// `tiny`.
    Tiny,
    /// `small`.
    Small,
    /// `medium`.
    Medium,
    /// `large`.
    Large,
    /// `huge`.
    Huge,
}

impl Randomness {
    /// The temperature it asks for, centipawns.
    fn temperature(self) -> i32 {
        match self {
            Randomness::None => 0,
            Randomness::Tiny => 5,
            Randomness::Small => 10,
            Randomness::Medium => 20,
            Randomness::Large => 40,
            Randomness::Huge => 80,
        }
    }
}

/// What the strength options ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrengthOptions {
    /// `Skill Level`.
    pub skill: u8,
    /// `UCI_LimitStrength`: `UCI_Elo` decides instead of the skill.
    pub limit_strength: bool,
    /// `UCI_Elo`.
    pub elo: u32,
    /// UCCI `knowledge` (default `large`).
    pub knowledge: Grade,
    /// UCCI `pruning` (default `large`).
    pub pruning: Grade,
    /// UCCI `randomness` (default `none`).
    pub randomness: Randomness,
    /// UCCI `idle` (default `none`).
    pub idle: Grade,
}

impl Default for StrengthOptions {
    fn default() -> StrengthOptions {
        StrengthOptions {
            skill: MAX_SKILL,
            limit_strength: false,
            elo: MAX_ELO,
            knowledge: Grade::Large,
            pruning: Grade::Large,
            randomness: Randomness::None,
            idle: Grade::None,
        }
    }
}

/// A strength level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// 0–20; 20 is full strength.
    pub skill: u8,
    /// The temperature of the draw, centipawns (0: the best move).
    pub temperature: i32,
}

impl StrengthOptions {
    /// The level the options ask for. `UCI_LimitStrength` makes `UCI_Elo`
    /// decide the skill; otherwise `Skill Level` does, lowered by the UCCI
    /// grades (`knowledge` medium/small/none: −4/−8/−12; `pruning`: −2/−4/
    /// −6; `idle` small/medium/large: −2/−4/−8). `randomness` other than
    /// `none` sets the temperature, at any skill.
    pub fn level(&self) -> Level {
        let base = if self.limit_strength {
            skill_for_elo(self.elo)
        } else {
            self.skill.min(MAX_SKILL)
        };
        let lower = |g: Grade, steps: [i32; 3]| match g {
            Grade::Large => 0,
            Grade::Medium => steps[0],
            Grade::Small => steps[1],
            Grade::None => steps[2],
        };
        let idle = match self.idle {
            Grade::None => 0,
            Grade::Small => 2,
            Grade::Medium => 4,
            Grade::Large => 8,
        };
        let skill = i32::from(base)
            - lower(self.knowledge, [4, 8, 12])
            - lower(self.pruning, [2, 4, 6])
            - idle;
        let skill = u8::try_from(skill.clamp(0, i32::from(MAX_SKILL))).unwrap_or(0);
        let temperature = match self.randomness {
            Randomness::None => TEMPERATURE_STEP * i32::from(DRAW_BELOW.saturating_sub(skill)),
            r => r.temperature(),
        };
        Level { skill, temperature }
    }
}

impl Level {
    /// Whether this is full strength: no node budget, no draw.
    pub fn is_full(&self) -> bool {
        self.skill >= MAX_SKILL && self.temperature == 0
    }

    /// The level's node budget per move (`None` at full skill).
    pub fn nodes(&self) -> Option<u64> {
        (self.skill < MAX_SKILL).then(|| {
            let n = BASE_NODES * NODE_GROWTH.powi(i32::from(self.skill));
            // At most 1000 × 1.3^19 ≈ 146,000: far inside u64.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let n = n.round() as u64;
            n
        })
    }

    /// The engine's draw for this level with `seed` (`None` at full
    /// strength, and for a level that plays its search's best move).
    pub fn weakening(&self, seed: u64) -> Option<Weakening> {
        (self.temperature > 0).then(|| Weakening {
            candidates: CANDIDATES,
            temperature: self.temperature,
            max_loss: 40 + 2 * self.temperature,
            seed,
        })
    }
}

/// The skill whose ladder Elo is nearest below or at `elo`
/// (interpolated between the ladder's rows).
pub fn skill_for_elo(elo: u32) -> u8 {
    let elo = elo.clamp(MIN_ELO, MAX_ELO);
    for pair in ELO_LADDER.windows(2) {
        let ((s0, e0), (s1, e1)) = (pair[0], pair[1]);
        if elo <= e1 {
            let span = f64::from(e1 - e0);
            let t = f64::from(elo - e0) / span;
            let s = f64::from(s0) + t * f64::from(s1 - s0);
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            return s.floor() as u8;
        }
    }
    MAX_SKILL
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_full_strength() {
        let level = StrengthOptions::default().level();
        assert!(level.is_full());
        assert_eq!(level.nodes(), None);
        assert_eq!(level.weakening(1), None);
    }

    #[test]
    fn lower_skills_search_less_and_choose_hotter() {
        let at = |skill| {
            StrengthOptions {
                skill,
                ..StrengthOptions::default()
            }
            .level()
        };
        assert_eq!(at(0).nodes(), Some(1000));
        assert_eq!(at(10).nodes(), Some(13_786));
        assert_eq!(at(19).nodes(), Some(146_192));
        assert!(at(0).temperature > at(10).temperature);
        assert_eq!(at(10).temperature, 8);
        assert_eq!(at(12).temperature, 0);
        assert_eq!(at(12).weakening(7), None, "the budget alone");
        assert_eq!(at(19).temperature, 0);
        let w = at(0).weakening(7).expect("weakened");
        assert_eq!(
            (w.candidates, w.temperature, w.max_loss, w.seed),
            (4, 48, 136, 7)
        );
        // Even skill 0 never gives up a horse the search sees lost.
        let horse = crate::PIECE_VALUE[board::PieceKind::Knight.index()];
        assert!(w.max_loss < horse, "{} against {horse}", w.max_loss);
    }

    #[test]
    fn ucci_grades_lower_the_skill_and_randomness_heats_the_draw() {
        let o = StrengthOptions {
            knowledge: Grade::Small,
            pruning: Grade::Medium,
            idle: Grade::Small,
            ..StrengthOptions::default()
        };
        assert_eq!(o.level().skill, 20 - 8 - 2 - 2);
        let r = StrengthOptions {
            randomness: Randomness::Huge,
            ..StrengthOptions::default()
        };
        let level = r.level();
        assert_eq!((level.skill, level.temperature), (20, 80));
        assert!(!level.is_full());
        assert_eq!(level.nodes(), None, "full search, random choice");
        let none = StrengthOptions {
            knowledge: Grade::None,
            pruning: Grade::None,
            idle: Grade::Large,
            ..StrengthOptions::default()
        };
        assert_eq!(none.level().skill, 0);
    }

    /// The claim a user reads (`UCI_Elo 2000` plays like ElephantEye)
    /// holds only for a network the ladder was measured or checked with:
    /// a new network fails this test until the ladder is checked or
    /// fitted again with it.
    #[test]
    fn ladder_holds_for_the_embedded_network() {
        let net = crate::nnue::embedded().expect("the build embeds a network");
        let checksum = net.checksum();
        let known = LADDER_NETWORKS;
        assert!(
            LadderNetwork::of_checksum(checksum).is_some(),
            "the embedded network ({checksum:08x}) is not one the strength ladder was fitted \
             or checked with ({known:?}): check the levels (CONTRIBUTING.md, \"Checking the \
             strength levels\") and add its row to LADDER_NETWORKS, or fit the ladder again"
        );
        assert_eq!(
            LADDER_NETWORKS
                .iter()
                .filter(|n| n.basis == LadderBasis::Fitted)
                .count(),
            1,
            "one network the ladder was fitted with"
        );
    }

    /// The ladder's Elo of a skill, interpolated between its rows as
    /// [`skill_for_elo`] reads them.
    fn ladder_elo(skill: u8) -> f64 {
        let pair = ELO_LADDER
            .windows(2)
            .find(|w| skill <= w[1].0)
            .expect("a skill within the ladder");
        let ((s0, e0), (s1, e1)) = (pair[0], pair[1]);
        f64::from(e0) + f64::from(skill - s0) / f64::from(s1 - s0) * f64::from(e1 - e0)
    }

    /// Properties of the table, not its values: a refit (a new network)
    /// changes every row and none of these.
    #[test]
    fn elo_follows_the_ladder() {
        assert_eq!(ELO_LADDER[0].0, 0, "the ladder starts at skill 0");
        assert_eq!(ELO_LADDER[ELO_LADDER.len() - 1].0, MAX_SKILL);
        assert!(
            ELO_LADDER
                .windows(2)
                .all(|w| w[0].0 < w[1].0 && w[0].1 < w[1].1),
            "skills and Elo both rise"
        );
        assert_eq!(skill_for_elo(0), 0);
        assert_eq!(skill_for_elo(MIN_ELO), 0);
        assert_eq!(skill_for_elo(MAX_ELO), MAX_SKILL);
        assert_eq!(skill_for_elo(u32::MAX), MAX_SKILL);
        for &(skill, elo) in ELO_LADDER {
            assert_eq!(skill_for_elo(elo), skill, "a row's Elo plays its skill");
            if elo > MIN_ELO {
                assert!(skill_for_elo(elo - 1) < skill, "one below plays lower");
            }
        }
        // At or below: every Elo gets the strongest skill the ladder puts
        // at or under it, ElephantEye's 2000 included.
        for elo in (MIN_ELO..=MAX_ELO).step_by(7).chain([2000]) {
            let skill = skill_for_elo(elo);
            assert!(ladder_elo(skill) <= f64::from(elo), "{elo}: skill {skill}");
            if skill < MAX_SKILL {
                assert!(
                    ladder_elo(skill + 1) > f64::from(elo),
                    "{elo}: skill {skill}"
                );
            }
        }
        let twelve = ELO_LADDER.iter().find(|r| r.0 == 12).expect("a row");
        let o = StrengthOptions {
            limit_strength: true,
            elo: twelve.1,
            skill: 3,
            ..StrengthOptions::default()
        };
        assert_eq!(o.level().skill, 12, "UCI_Elo decides over Skill Level");
    }
}
