//! The search's tunable constants, in one table: every margin, depth
//! bound and step of pruning, reduction, extension, the history bonus
//! and malus, the aspiration window and time management, each with its
//! name, default, range and step ([`PARAMS`]).
//!
//! The search reads a parameter through the function of its name
//! (`params::futility_base()`). In a normal build that function is a
//! `const fn` returning the default, so the compiled search is the one
//! the literals gave. A tuning build (the cargo feature `tune`) reads
//! each value from an atomic instead, set by name ([`set`]): the protocol
//! offers every parameter as a hidden option of the same name in both
//! dialects, and `chariot params` prints the table in the format of the
//! SPSA driver (`tools/cluster/run.py spsa`, fishtest's
//! `name, int, default, min, max, c_end, r_end`). A tuned value comes
//! back into the play build as the new default in this table, and
//! `docs/design.md`, which quotes the defaults in its description of the
//! search, with it (`engine/tests/design_params.rs` names a phrase left
//! behind).
//!
//! The ranges are where a tuner may go without the search stopping to
//! make sense (a depth bound below 1, a margin below 0); the step is the
//! SPSA perturbation at the end of a tune (`c_end`), about a twentieth of
//! the range, and `r_end` is fishtest's usual 0.002.

use std::fmt;

/// One tunable parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Its name: the function the search calls, the tuning build's option
    /// and the SPSA driver's key.
    pub name: &'static str,
    /// The play build's value.
    pub default: i32,
    /// The least value a tune may set.
    pub min: i32,
    /// The greatest value a tune may set.
    pub max: i32,
    /// The SPSA perturbation at the end of a tune (`c_end`).
    pub step: i32,
}

/// fishtest's `r_end`: the learning rate at the end of a tune, relative
/// to the perturbation squared.
pub const R_END: f64 = 0.002;

impl Param {
    /// The parameter as an SPSA input line:
    /// `name, int, default, min, max, c_end, r_end`.
    pub fn spsa_line(&self) -> String {
        format!(
            "{}, int, {}, {}, {}, {}, {R_END:.4}",
            self.name, self.default, self.min, self.max, self.step
        )
    }
}

/// Why [`set`] refused a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// No parameter has this name.
    Unknown(String),
    /// The value is outside the parameter's range.
    OutOfRange {
        /// The parameter.
        name: &'static str,
        /// The value asked for.
        value: i32,
        /// Its range.
        min: i32,
        /// Its range.
        max: i32,
    },
    /// This build reads the defaults as constants (built without the
    /// `tune` feature).
    NotTunable(&'static str),
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamError::Unknown(name) => write!(f, "no search parameter is called '{name}'"),
            ParamError::OutOfRange {
                name,
                value,
                min,
                max,
            } => write!(f, "{name}: {value} is outside {min}..={max}"),
            ParamError::NotTunable(name) => write!(
                f,
                "{name} is a constant in this build; build with the feature `tune` to set it"
            ),
        }
    }
}

impl std::error::Error for ParamError {}

/// Whether this build reads the parameters at run time (feature `tune`).
pub const TUNABLE: bool = cfg!(feature = "tune");

/// The parameter called `name`, if any.
pub fn find(name: &str) -> Option<&'static Param> {
    PARAMS.iter().find(|p| p.name == name)
}

/// Declares the table: one line per parameter,
/// `name = default, min..=max, step;` with its documentation.
macro_rules! params {
    ($($(#[doc = $doc:literal])+ $name:ident = $default:literal, $min:literal..=$max:literal, $step:literal;)+) => {
        /// Every tunable search parameter, in the order the search meets
        /// them.
        pub const PARAMS: &[Param] = &[$(Param {
            name: stringify!($name),
            default: $default,
            min: $min,
            max: $max,
            step: $step,
        }),+];

        /// Indices into the tuning build's values, by name.
        #[allow(non_camel_case_types, dead_code, clippy::enum_variant_names)]
        #[derive(Clone, Copy)]
        enum Index { $($name),+ }

        #[cfg(not(feature = "tune"))]
        mod read {
            $(
                $(#[doc = $doc])+
                #[inline(always)]
                pub(crate) const fn $name() -> i32 {
                    $default
                }
            )+
        }

        #[cfg(feature = "tune")]
        mod read {
            use std::sync::atomic::{AtomicI32, Ordering};

            /// The values, by [`super::Index`]; the defaults until set.
            pub(super) static VALUES: [AtomicI32; super::PARAMS.len()] =
                [$(AtomicI32::new($default)),+];

            $(
                $(#[doc = $doc])+
                #[inline]
                pub(crate) fn $name() -> i32 {
                    VALUES[super::Index::$name as usize].load(Ordering::Relaxed)
                }
            )+
        }
    };
}

pub(crate) use read::*;

params! {
    /// Least depth at which a node without a table move is searched a ply
    /// shallower (internal iterative reduction).
    iir_depth = 4, 2..=10, 1;
    /// Reverse futility: the deepest node it applies to, …
    rfp_depth = 3, 1..=8, 1;
    /// … the margin per ply of depth the static evaluation must clear
    /// beta by, …
    rfp_margin = 110, 40..=250, 10;
    /// … less this when the position is improving.
    rfp_improving = 40, 0..=120, 8;
    /// Null move: the least depth, …
    null_min_depth = 3, 2..=6, 1;
    /// … the base reduction, …
    null_reduction = 2, 1..=5, 1;
    /// … plus a ply per this many of depth.
    null_depth_divisor = 4, 2..=8, 1;
    /// Late-move pruning: the deepest node it applies to, …
    lmp_depth = 4, 1..=8, 1;
    /// … and the moves searched before it starts, this plus depth²
    /// (halved when not improving).
    lmp_base = 3, 0..=10, 1;
    /// Futility pruning of quiet moves: the deepest node, …
    futility_depth = 3, 1..=8, 1;
    /// … and the margin over the static evaluation, this …
    futility_base = 80, 0..=250, 10;
    /// … plus this per ply of depth.
    futility_per_depth = 110, 40..=250, 10;
    /// SEE pruning: the deepest node, …
    see_depth = 5, 2..=10, 1;
    /// … the loss per ply of depth a capture may risk, …
    see_capture_margin = 100, 20..=250, 10;
    /// … and a quiet move per ply of depth squared.
    see_quiet_margin = 30, 5..=100, 4;
    /// Late-move reductions: the least depth, …
    lmr_depth = 3, 2..=6, 1;
    /// … the moves searched at a PV node before reductions start, …
    lmr_late_pv = 4, 1..=8, 1;
    /// … and at other nodes, …
    lmr_late_nonpv = 2, 1..=6, 1;
    /// … the reduction table `base/100 + ln d · ln n / (divisor/100)`, …
    lmr_base = 50, -50..=150, 10;
    /// … (its divisor), …
    lmr_divisor = 225, 150..=400, 15;
    /// … the history score worth one ply less (or more) of it, …
    lmr_history_unit = 8000, 2000..=20000, 800;
    /// … the plies more a late quiet move is reduced at an expected
    /// cut node.
    lmr_cut_node = 1, 0..=3, 1;
    /// A reduced move that beats alpha by this much more, …
    lmr_deeper_base = 35, 0..=120, 6;
    /// … plus this per ply of its reduction, is searched again a ply
    /// deeper than unreduced.
    lmr_deeper_per_ply = 4, 0..=16, 1;
    /// Singular extensions: the least depth, …
    singular_depth = 7, 4..=12, 1;
    /// … how much shallower than the node the table entry may be, …
    singular_entry_depth = 3, 1..=6, 1;
    /// … and the bar below the table score, per ply of depth.
    singular_margin = 2, 1..=6, 1;
    /// Correction history: the greatest weight (of 256) a searched node's
    /// error gets in its structures' averages (its depth + 1 below), …
    corr_weight_max = 16, 4..=64, 3;
    /// … and the largest correction, in centipawns.
    corr_limit = 64, 16..=120, 6;
    /// Quiescence delta pruning: the margin over the victim's value.
    delta_margin = 150, 50..=400, 15;
    /// Aspiration: the least depth, …
    aspiration_depth = 5, 1..=10, 1;
    /// … the first half-window, …
    aspiration_window = 24, 8..=60, 4;
    /// … and what the window grows by after a failure, beyond half.
    aspiration_widen = 8, 0..=30, 3;
    /// The history bonus of a quiet best move: per ply of depth, …
    history_bonus_per_depth = 160, 80..=320, 12;
    /// … less this, …
    history_bonus_offset = 120, 0..=300, 15;
    /// … at most this.
    history_bonus_max = 1600, 600..=3200, 100;
    /// The history malus of the quiet moves tried before it: per ply of
    /// depth, …
    history_malus_per_depth = 160, 80..=320, 12;
    /// … less this, …
    history_malus_offset = 120, 0..=300, 15;
    /// … at most this.
    history_malus_max = 1600, 600..=3200, 100;
    /// Time: the moves a sudden-death clock is shared over, …
    time_moves = 30, 15..=60, 3;
    /// … the hard bound as a multiple of the soft one, …
    time_hard_factor = 4, 2..=8, 1;
    /// … at most this share of the usable time (per mille), …
    time_hard_share = 600, 300..=900, 30;
    /// … the soft bound's scale: its least (per mille), …
    time_min_scale = 450, 200..=900, 30;
    /// … its greatest (per mille), …
    time_max_scale = 2200, 1200..=4000, 100;
    /// … its stability factor when the best move just changed (per
    /// mille), …
    time_stability_base = 1400, 1000..=2000, 40;
    /// … falling by this per iteration the move held, …
    time_stability_step = 100, 20..=200, 8;
    /// … to this (per mille), …
    time_stability_floor = 800, 400..=1000, 30;
    /// … and the score drop (centipawns) that adds 100 % to it.
    time_falling_divisor = 300, 100..=800, 30;
    /// The effort factor: this (per mille) less the best move's share of
    /// the nodes.
    time_effort_base = 1600, 1200..=2000, 40;
}

/// Sets parameter `name` to `value` (tuning builds only).
pub fn set(name: &str, value: i32) -> Result<(), ParamError> {
    let Some(index) = PARAMS.iter().position(|p| p.name == name) else {
        return Err(ParamError::Unknown(name.to_string()));
    };
    let p = &PARAMS[index];
    if !(p.min..=p.max).contains(&value) {
        return Err(ParamError::OutOfRange {
            name: p.name,
            value,
            min: p.min,
            max: p.max,
        });
    }
    store(index, p, value)
}

#[cfg(feature = "tune")]
fn store(index: usize, _: &Param, value: i32) -> Result<(), ParamError> {
    read::VALUES[index].store(value, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

#[cfg(not(feature = "tune"))]
fn store(_: usize, p: &Param, value: i32) -> Result<(), ParamError> {
    if value == p.default {
        Ok(())
    } else {
        Err(ParamError::NotTunable(p.name))
    }
}

/// The value the search reads now for parameter `name`.
pub fn value(name: &str) -> Option<i32> {
    let index = PARAMS.iter().position(|p| p.name == name)?;
    #[cfg(feature = "tune")]
    {
        Some(read::VALUES[index].load(std::sync::atomic::Ordering::Relaxed))
    }
    #[cfg(not(feature = "tune"))]
    {
        Some(PARAMS[index].default)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_holds_its_default_and_a_step() {
        for p in PARAMS {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(p.step > 0 && p.step <= p.max - p.min, "{p:?}");
        }
    }

    #[test]
    fn names_are_unique_option_words() {
        for (i, p) in PARAMS.iter().enumerate() {
            assert!(
                p.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{}",
                p.name
            );
            assert!(PARAMS[..i].iter().all(|q| q.name != p.name), "{}", p.name);
        }
    }

    /// The functions the search calls read the table's defaults (a build
    /// without `tune`, or a tuning build before anything is set).
    #[test]
    fn the_readers_give_the_defaults() {
        let read = [
            ("iir_depth", iir_depth()),
            ("futility_base", futility_base()),
            ("lmr_divisor", lmr_divisor()),
            ("history_malus_max", history_malus_max()),
            ("time_effort_base", time_effort_base()),
        ];
        for (name, v) in read {
            assert_eq!(Some(v), find(name).map(|p| p.default), "{name}");
            assert_eq!(value(name), Some(v), "{name}");
        }
    }

    #[test]
    fn set_checks_the_name_and_the_range() {
        assert!(matches!(set("no_such", 1), Err(ParamError::Unknown(_))));
        assert!(matches!(
            set("iir_depth", 99),
            Err(ParamError::OutOfRange { max: 10, .. })
        ));
        // Setting the default is always allowed.
        assert_eq!(set("iir_depth", 4), Ok(()));
        if !TUNABLE {
            assert_eq!(
                set("iir_depth", 5),
                Err(ParamError::NotTunable("iir_depth"))
            );
        }
    }

    #[test]
    fn spsa_lines_have_fishtest_s_seven_fields() {
        let line = find("futility_base").map(Param::spsa_line);
        assert_eq!(
            line.as_deref(),
            Some("futility_base, int, 80, 0, 250, 10, 0.0020")
        );
    }
}
