//! The engine options of `docs/ucci.md` §3: their two names, types,
//! defaults and ranges, how each dialect advertises them, and how a
//! `setoption` value is read. Effects on the engine (resizing the table,
//! opening a book) are returned as an [`Action`] for the session to carry
//! out, so this module stays free of engine state.

use crate::command::quote;
use crate::notation::Notation;
use crate::strength::{self, Grade, Randomness, StrengthOptions};

mod specs;

use specs::{Id, Kind, SPECS, Shown, Spec};

/// The protocol dialect in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// xqbase UCCI 3.0, as ElephantEye speaks it.
    Ucci,
    /// UCI as Pikafish speaks it (also the dialect before any handshake).
    Uci,
}

/// The one `UCI_Variant` Chariot plays.
pub const VARIANT: &str = "xiangqi";

/// The `bookfiles` default: the book compiled into the binary.
pub const DEFAULT_BOOK: &str = book::BUILTIN_SPEC;

/// The `evalfile` default: the network compiled into the binary.
pub const DEFAULT_NETWORK: &str = "<builtin>";

/// What a `setoption` asks the session to do beyond storing a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Resize the hash table to this many MB.
    ResizeHash(usize),
    /// Resize the hash table to this many KiB (`TT Size KiB`).
    ResizeHashKib(usize),
    /// Use this many search threads.
    SetThreads(usize),
    /// Clear the table and histories (`newgame`, `Clear Hash`).
    NewGame,
    /// Open the book(s) named by this `bookfiles` value.
    OpenBook(String),
    /// Load the network file named by this `evalfile` value.
    LoadNetwork(String),
    /// `usennue` changed: evaluate as [`Options::use_nnue`] now says.
    UseNetwork,
    /// A table experiment option changed: search as
    /// [`Options::experiment`] now says.
    SetExperiment,
}

/// The result of one `setoption`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Diagnostics to print (clamped value, ignored option …).
    pub diagnostics: Vec<String>,
    /// The option's name as the GUI wrote it (its UCI or UCCI spelling),
    /// for the session's own messages about it; empty for an unknown name.
    pub name: &'static str,
    /// The effect to carry out, if any.
    pub action: Option<Action>,
}

/// The current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Hash table size in MB: as allocated once the session has resized
    /// the table (a refused size leaves the table's own), or as asked while
    /// `ttsizekib` holds the table at another size.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// UCCI clock values in milliseconds (true) or seconds (false).
    pub usemillisec: bool,
    /// Use the opening book in clock-limited searches.
    pub usebook: bool,
    /// The book specification: `<builtin>`, empty/`<empty>`, or paths.
    pub bookfiles: String,
    /// Consult the book only while the game ply is below this.
    pub bookdepth: u32,
    /// How the book's weights are shaped: 0 plays the heaviest move, 100
    /// chooses in proportion to the weights, more flattens toward uniform
    /// (see `book::BookSet::choose`).
    pub bookvariety: u32,
    /// Batch mode (§3).
    pub batch: bool,
    /// Debug output.
    pub debug: bool,
    /// Principal variations reported.
    pub multipv: usize,
    /// `Move Overhead`: milliseconds kept back from every clock-limited
    /// move for the time lost outside the search.
    pub move_overhead_ms: u64,
    /// `UCI_ShowWDL`: UCI `info` lines carry `wdl <w> <d> <l>`.
    pub show_wdl: bool,
    /// The notation of moves: ICCS until a GUI sets `UCI_Variant`, which
    /// Fairy-Stockfish and the cutechess fork that plays xiangqi do, and
    /// which selects their ranks 1–10.
    pub notation: Notation,
    /// `EvalFile`: the network file, or [`DEFAULT_NETWORK`].
    pub evalfile: String,
    /// `Use NNUE`: evaluate with the network rather than the hand-written
    /// terms.
    pub use_nnue: bool,
    /// The strength options (`Skill Level`, `UCI_LimitStrength`,
    /// `UCI_Elo`; UCCI `knowledge`, `pruning`, `randomness`, `idle`).
    pub strength: StrengthOptions,
    /// `TT Policy` (an experiment): the table's replacement rule.
    pub tt_policy: engine::TtPolicy,
    /// `TT Store QS` (an experiment): quiescence results go to the table.
    pub tt_store_qs: bool,
    /// `TT Size KiB` (an experiment): the table's size in KiB, which wins
    /// over `Hash` while it is not 0, so that a table can be crowded below
    /// the 1 MB `Hash` allows.
    pub tt_size_kib: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: engine::DEFAULT_HASH_MB,
            threads: 1,
            usemillisec: true,
            usebook: true,
            bookfiles: DEFAULT_BOOK.to_string(),
            bookdepth: 40,
            bookvariety: 100,
            batch: false,
            debug: false,
            multipv: 1,
            move_overhead_ms: 10,
            show_wdl: false,
            notation: Notation::Iccs,
            evalfile: DEFAULT_NETWORK.to_string(),
            use_nnue: true,
            strength: StrengthOptions::default(),
            tt_policy: engine::TtPolicy::TwoTier,
            tt_store_qs: true,
            tt_size_kib: 0,
        }
    }
}

impl Options {
    /// The table experiment the options ask for (`None`: the shipped
    /// search, which is what games play unless an experiment is set).
    pub fn experiment(&self) -> Option<engine::Experiment> {
        let e = engine::Experiment {
            policy: self.tt_policy,
            store_qs: self.tt_store_qs,
            ..engine::Experiment::default()
        };
        (e != engine::Experiment::default()).then_some(e)
    }
}

fn find(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| {
        s.ucci.eq_ignore_ascii_case(name) || s.uci.is_some_and(|u| u.eq_ignore_ascii_case(name))
    })
}

/// The handshake's option lines for `dialect` (§3).
pub fn advertise(dialect: Dialect) -> Vec<String> {
    let mut lines = Vec::new();
    for spec in SPECS {
        match (dialect, spec.shown) {
            (_, Shown::Hidden) | (Dialect::Ucci, Shown::UciOnly) => {}
            (Dialect::Ucci, _) => {
                let tail = match spec.kind {
                    Kind::Check(d) => format!("type check default {d}"),
                    Kind::Spin { default, min, max } => {
                        format!("type spin min {min} max {max} default {default}")
                    }
                    Kind::Text(d) => format!("type string default {d}"),
                    Kind::Combo(values) => combo_tail(values),
                    Kind::Button => "type button".to_string(),
                };
                lines.push(format!("option {} {tail}", spec.ucci));
            }
            (Dialect::Uci, _) => {
                let Some(name) = spec.uci else { continue };
                let tail = match spec.kind {
                    Kind::Check(d) => format!("type check default {d}"),
                    Kind::Spin { default, min, max } => {
                        format!("type spin default {default} min {min} max {max}")
                    }
                    Kind::Text(d) => format!("type string default {d}"),
                    Kind::Combo(values) => combo_tail(values),
                    Kind::Button => "type button".to_string(),
                };
                lines.push(format!("option name {name} {tail}"));
            }
        }
    }
    lines
}

/// `type combo default <first> var <v>…`, the same in both dialects.
fn combo_tail(values: &[&str]) -> String {
    let mut tail = format!("type combo default {}", values.first().unwrap_or(&""));
    for v in values {
        tail.push_str(" var ");
        tail.push_str(v);
    }
    tail
}

/// Sets a search parameter of the tuning build (`engine::params`): hidden
/// options, named as the parameters, in both dialects. Returns the
/// diagnostic when the value is refused.
fn set_param(param: &engine::params::Param, value: Option<&str>) -> Option<String> {
    let name = param.name;
    let Some(v) = value.and_then(|v| v.trim().parse::<i32>().ok()) else {
        return Some(format!(
            "option {name}: expected a whole number, not '{}'; ignored",
            quote(value.unwrap_or_default())
        ));
    };
    engine::params::set(name, v)
        .err()
        .map(|e| format!("option {e}; ignored"))
}

fn read_check(text: &str) -> Option<bool> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "on" => Some(true),
        "false" | "off" => Some(false),
        _ => None,
    }
}

impl Options {
    /// Applies `setoption <name> [<value>]`, in `dialect`.
    ///
    /// An unknown name, a non-numeric spin or a check without a readable
    /// value is ignored with one diagnostic; a spin out of range is clamped
    /// with one, except the thread count, which is refused (a thread count
    /// the GUI did not ask for would be a surprise on a shared machine).
    /// Hash takes `0` as "default" when named by its UCCI name or set in
    /// the UCCI dialect.
    pub fn set(&mut self, dialect: Dialect, name: &str, value: Option<&str>) -> Applied {
        let mut applied = Applied::default();
        if find(name).is_none() && engine::params::TUNABLE {
            let lower = name.to_ascii_lowercase();
            if let Some(param) = engine::params::find(&lower) {
                applied.diagnostics.extend(set_param(param, value));
                return applied;
            }
        }
        // The UCCI shape splits `setoption Clear Hash` into a name and a
        // value; recognise the two-word name in that case too.
        let (spec, value, sent) = match (find(name), value) {
            (Some(spec), value) => (spec, value, name.to_string()),
            (None, Some(v)) => match find(&format!("{name} {v}")) {
                Some(spec) => (spec, None, format!("{name} {v}")),
                None => {
                    applied
                        .diagnostics
                        .push(format!("unknown option: {}", quote(name)));
                    return applied;
                }
            },
            (None, None) => {
                applied
                    .diagnostics
                    .push(format!("unknown option: {}", quote(name)));
                return applied;
            }
        };
        // Diagnostics name the option as the GUI did: a UCI GUI that sent
        // `Skill Level` does not know it as `skilllevel`.
        // Where the two names differ only in case (`threads`, `Threads`)
        // the exact spelling decides, then the dialect.
        let said = match spec.uci {
            Some(uci) if uci == sent => uci,
            _ if spec.ucci == sent => spec.ucci,
            Some(uci)
                if uci.eq_ignore_ascii_case(&sent)
                    && (dialect == Dialect::Uci || !spec.ucci.eq_ignore_ascii_case(&sent)) =>
            {
                uci
            }
            _ => spec.ucci,
        };
        applied.name = said;
        let zero_is_default = dialect == Dialect::Ucci || spec.ucci.eq_ignore_ascii_case(name);
        match spec.kind {
            Kind::Button => {
                if spec.id == Id::NewGame {
                    applied.action = Some(Action::NewGame);
                }
            }
            Kind::Check(_) => {
                let Some(on) = value.and_then(read_check) else {
                    applied.diagnostics.push(format!(
                        "option {said}: expected true or false, not '{}'; ignored",
                        quote(value.unwrap_or_default())
                    ));
                    return applied;
                };
                match spec.id {
                    Id::UseMillisec => self.usemillisec = on,
                    Id::UseBook => self.usebook = on,
                    Id::Batch => self.batch = on,
                    Id::Debug => self.debug = on,
                    Id::ShowWdl => self.show_wdl = on,
                    Id::UseNnue => {
                        self.use_nnue = on;
                        applied.action = Some(Action::UseNetwork);
                    }
                    Id::LimitStrength => self.strength.limit_strength = on,
                    Id::TtStoreQs => {
                        self.tt_store_qs = on;
                        applied.action = Some(Action::SetExperiment);
                    }
                    // `ponder` among them: accepted and checked, but it
                    // changes nothing, since the engine ponders only when
                    // told `go ponder` and its time allocation does not
                    // plan for pondering.
                    _ => {}
                }
            }
            Kind::Text(_) => {
                let text = value.unwrap_or_default().to_string();
                match spec.id {
                    Id::BookFiles => {
                        self.bookfiles.clone_from(&text);
                        applied.action = Some(Action::OpenBook(text));
                    }
                    // Stored by the session once the file has loaded.
                    Id::EvalFile => applied.action = Some(Action::LoadNetwork(text)),
                    _ => {}
                }
            }
            Kind::Combo(values) => {
                let text = value.unwrap_or_default();
                let Some(&chosen) = values.iter().find(|v| v.eq_ignore_ascii_case(text)) else {
                    applied.diagnostics.push(format!(
                        "option {said}: '{}' is not one of {}; ignored",
                        quote(text),
                        values.join(", ")
                    ));
                    return applied;
                };
                let grade = |v: &str| match v {
                    "none" => Grade::None,
                    "small" => Grade::Small,
                    "medium" => Grade::Medium,
                    _ => Grade::Large,
                };
                match spec.id {
                    Id::UciVariant if chosen == VARIANT => self.notation = Notation::Ranks1To10,
                    Id::Knowledge => self.strength.knowledge = grade(chosen),
                    Id::Pruning => self.strength.pruning = grade(chosen),
                    Id::Idle => self.strength.idle = grade(chosen),
                    Id::TtPolicy => {
                        if let Ok(p) = chosen.parse() {
                            self.tt_policy = p;
                            applied.action = Some(Action::SetExperiment);
                        }
                    }
                    Id::Randomness => {
                        self.strength.randomness = match chosen {
                            "tiny" => Randomness::Tiny,
                            "small" => Randomness::Small,
                            "medium" => Randomness::Medium,
                            "large" => Randomness::Large,
                            "huge" => Randomness::Huge,
                            _ => Randomness::None,
                        };
                    }
                    _ => {}
                }
            }
            Kind::Spin { default, min, max } => {
                self.set_spin(
                    spec,
                    value,
                    (default, min, max),
                    zero_is_default,
                    said,
                    &mut applied,
                );
            }
        }
        applied
    }

    /// The spin branch of [`Options::set`]: reads `value` as a whole
    /// number, refuses or clamps it to `min..=max` (a 0 hash size means
    /// the default where the dialect or name says so), stores it and adds
    /// the action it needs to `applied`.
    fn set_spin(
        &mut self,
        spec: &Spec,
        value: Option<&str>,
        (default, min, max): (u64, u64, u64),
        zero_is_default: bool,
        said: &str,
        applied: &mut Applied,
    ) {
        let Some(raw) = value.and_then(read_spin) else {
            applied.diagnostics.push(format!(
                "option {said}: '{}' is not a whole number; ignored",
                quote(value.unwrap_or_default())
            ));
            return;
        };
        if spec.id == Id::Threads && !(i128::from(min)..=i128::from(max)).contains(&raw) {
            applied.diagnostics.push(format!(
                "option {said}: {} is outside {min}..{max}; keeping {}",
                quote(value.unwrap_or_default()),
                self.threads
            ));
            return;
        }
        let n = if raw == 0 && zero_is_default && spec.id == Id::Hash {
            default
        } else {
            let clamped = raw.clamp(i128::from(min), i128::from(max));
            if clamped != raw {
                applied.diagnostics.push(format!(
                    "option {said}: {} is outside {min}..{max}, using {clamped}",
                    quote(value.unwrap_or_default())
                ));
            }
            u64::try_from(clamped).unwrap_or(default)
        };
        let n_usize = usize::try_from(n).unwrap_or(usize::MAX);
        match spec.id {
            Id::Hash if self.tt_size_kib != 0 => {
                self.hash_mb = n_usize;
                applied.diagnostics.push(format!(
                    "option {said}: {n} MB kept for later; the table stays at {} KiB while ttsizekib is set",
                    self.tt_size_kib
                ));
            }
            Id::Hash => {
                self.hash_mb = n_usize;
                applied.action = Some(Action::ResizeHash(n_usize));
            }
            Id::TtSizeKib => {
                self.tt_size_kib = n_usize;
                applied.action = Some(if n_usize == 0 {
                    Action::ResizeHash(self.hash_mb)
                } else {
                    Action::ResizeHashKib(n_usize)
                });
            }
            Id::Threads => {
                self.threads = n_usize;
                applied.action = Some(Action::SetThreads(n_usize));
            }
            Id::MultiPv => self.multipv = n_usize,
            Id::MoveOverhead => self.move_overhead_ms = n,
            Id::BookDepth => self.bookdepth = u32::try_from(n).unwrap_or(u32::MAX),
            Id::BookVariety => self.bookvariety = u32::try_from(n).unwrap_or(u32::MAX),
            Id::SkillLevel => self.strength.skill = u8::try_from(n).unwrap_or(strength::MAX_SKILL),
            Id::UciElo => self.strength.elo = u32::try_from(n).unwrap_or(strength::MAX_ELO),
            _ => {}
        }
    }
}

/// A spin value: a decimal integer, saturated far outside every range.
fn read_spin(text: &str) -> Option<i128> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Anything longer than 30 digits is far beyond every range anyway.
    let magnitude: i128 = if digits.len() > 30 {
        i128::MAX / 2
    } else {
        digits.parse().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

#[cfg(test)]
mod tests;
