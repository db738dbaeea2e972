//! The option table of `docs/ucci.md` §3 as data: every option's two
//! names, its type, default and range, in handshake order. The parent
//! module reads and advertises them; a new option is one row here, one
//! field there, and its row in the page (which
//! `cli/tests/option_table.rs` checks).

use super::{DEFAULT_BOOK, DEFAULT_NETWORK, VARIANT};
use crate::strength;

/// Every option Chariot knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Id {
    Hash,
    Threads,
    UseMillisec,
    Ponder,
    UseBook,
    BookFiles,
    BookDepth,
    BookVariety,
    NewGame,
    Batch,
    Debug,
    MultiPv,
    MoveOverhead,
    ShowWdl,
    UciVariant,
    EvalFile,
    UseNnue,
    SkillLevel,
    LimitStrength,
    UciElo,
    Knowledge,
    Pruning,
    Randomness,
    Idle,
    TtPolicy,
    TtStoreQs,
    TtSizeKib,
}

/// An option's type with its default and range.
#[derive(Clone, Copy, Debug)]
pub(super) enum Kind {
    Check(bool),
    Spin {
        default: u64,
        min: u64,
        max: u64,
    },
    Text(&'static str),
    /// One of a fixed list of values (the first is the default).
    Combo(&'static [&'static str]),
    Button,
}

/// Which handshakes advertise an option; every option is accepted under
/// either of its names whatever this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shown {
    /// Both handshakes (UCI only where the option has a UCI name).
    Both,
    /// The UCI handshake only: options of UCI GUIs that a UCCI GUI would
    /// not understand.
    UciOnly,
    /// Neither: the table experiments, which a player has no use for and
    /// which would empty the table and switch to the experiment build of
    /// the search if a GUI set them (`docs/ucci.md` §3, "Hidden options").
    Hidden,
}

/// One row of the option table.
pub(super) struct Spec {
    pub(super) id: Id,
    pub(super) ucci: &'static str,
    /// `None` when UCI does not advertise the option (it is still accepted
    /// under its UCCI name).
    pub(super) uci: Option<&'static str>,
    /// Which handshakes list the option.
    pub(super) shown: Shown,
    pub(super) kind: Kind,
}

/// The option table, in the order each dialect advertises it.
pub(super) const SPECS: &[Spec] = &[
    Spec {
        id: Id::UseMillisec,
        ucci: "usemillisec",
        uci: None,
        shown: Shown::Both,
        kind: Kind::Check(true),
    },
    Spec {
        id: Id::Batch,
        ucci: "batch",
        uci: None,
        shown: Shown::Both,
        kind: Kind::Check(false),
    },
    Spec {
        id: Id::Debug,
        ucci: "debug",
        uci: None,
        shown: Shown::Both,
        kind: Kind::Check(false),
    },
    Spec {
        id: Id::Ponder,
        ucci: "ponder",
        uci: Some("Ponder"),
        shown: Shown::Both,
        kind: Kind::Check(false),
    },
    Spec {
        id: Id::UseBook,
        ucci: "usebook",
        uci: Some("OwnBook"),
        shown: Shown::Both,
        kind: Kind::Check(true),
    },
    Spec {
        id: Id::BookFiles,
        ucci: "bookfiles",
        uci: Some("BookFile"),
        shown: Shown::Both,
        kind: Kind::Text(DEFAULT_BOOK),
    },
    Spec {
        id: Id::BookDepth,
        ucci: "bookdepth",
        uci: Some("BookDepth"),
        shown: Shown::Both,
        kind: Kind::Spin {
            default: 40,
            min: 0,
            max: 1000,
        },
    },
    Spec {
        id: Id::BookVariety,
        ucci: "bookvariety",
        uci: Some("BookVariety"),
        shown: Shown::Both,
        kind: Kind::Spin {
            default: 100,
            min: 0,
            max: 1000,
        },
    },
    Spec {
        id: Id::Hash,
        ucci: "hashsize",
        uci: Some("Hash"),
        shown: Shown::Both,
        kind: Kind::Spin {
            default: engine::DEFAULT_HASH_MB as u64,
            min: 1,
            max: engine::MAX_HASH_MB as u64,
        },
    },
    Spec {
        id: Id::Threads,
        ucci: "threads",
        uci: Some("Threads"),
        shown: Shown::Both,
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: engine::MAX_THREADS as u64,
        },
    },
    Spec {
        id: Id::MultiPv,
        ucci: "multipv",
        uci: Some("MultiPV"),
        shown: Shown::Both,
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 128,
        },
    },
    Spec {
        id: Id::MoveOverhead,
        ucci: "moveoverhead",
        uci: Some("Move Overhead"),
        shown: Shown::Both,
        kind: Kind::Spin {
            default: 10,
            min: 0,
            max: 5000,
        },
    },
    Spec {
        id: Id::ShowWdl,
        ucci: "uci_showwdl",
        uci: Some("UCI_ShowWDL"),
        shown: Shown::UciOnly,
        kind: Kind::Check(false),
    },
    Spec {
        id: Id::UciVariant,
        ucci: "uci_variant",
        uci: Some("UCI_Variant"),
        shown: Shown::UciOnly,
        kind: Kind::Combo(&[VARIANT]),
    },
    Spec {
        id: Id::EvalFile,
        ucci: "evalfile",
        uci: Some("EvalFile"),
        shown: Shown::Both,
        kind: Kind::Text(DEFAULT_NETWORK),
    },
    Spec {
        id: Id::UseNnue,
        ucci: "usennue",
        uci: Some("Use NNUE"),
        shown: Shown::Both,
        kind: Kind::Check(true),
    },
    Spec {
        id: Id::SkillLevel,
        ucci: "skilllevel",
        uci: Some("Skill Level"),
        shown: Shown::UciOnly,
        kind: Kind::Spin {
            default: strength::MAX_SKILL as u64,
            min: 0,
            max: strength::MAX_SKILL as u64,
        },
    },
    Spec {
        id: Id::LimitStrength,
        ucci: "uci_limitstrength",
        uci: Some("UCI_LimitStrength"),
        shown: Shown::UciOnly,
        kind: Kind::Check(false),
    },
    Spec {
        id: Id::UciElo,
        ucci: "uci_elo",
        uci: Some("UCI_Elo"),
        shown: Shown::UciOnly,
        kind: Kind::Spin {
            default: strength::MAX_ELO as u64,
            min: strength::MIN_ELO as u64,
            max: strength::MAX_ELO as u64,
        },
    },
    Spec {
        id: Id::Knowledge,
        ucci: "knowledge",
        uci: None,
        shown: Shown::Both,
        kind: Kind::Combo(GRADES_DOWN),
    },
    Spec {
        id: Id::Pruning,
        ucci: "pruning",
        uci: None,
        shown: Shown::Both,
        kind: Kind::Combo(GRADES_DOWN),
    },
    Spec {
        id: Id::Randomness,
        ucci: "randomness",
        uci: None,
        shown: Shown::Both,
        kind: Kind::Combo(&["none", "tiny", "small", "medium", "large", "huge"]),
    },
    Spec {
        id: Id::Idle,
        ucci: "idle",
        uci: None,
        shown: Shown::Both,
        kind: Kind::Combo(&["none", "small", "medium", "large"]),
    },
    Spec {
        id: Id::TtPolicy,
        ucci: "ttpolicy",
        uci: Some("TT Policy"),
        shown: Shown::Hidden,
        kind: Kind::Combo(&[
            "two-tier",
            "two-tier-aged",
            "bucket",
            "always",
            "depth",
            "off",
        ]),
    },
    Spec {
        id: Id::TtStoreQs,
        ucci: "ttstoreqs",
        uci: Some("TT Store QS"),
        shown: Shown::Hidden,
        kind: Kind::Check(true),
    },
    Spec {
        id: Id::TtSizeKib,
        ucci: "ttsizekib",
        uci: Some("TT Size KiB"),
        shown: Shown::Hidden,
        kind: Kind::Spin {
            default: 0,
            min: 0,
            max: (engine::MAX_HASH_MB * 1024) as u64,
        },
    },
    Spec {
        id: Id::NewGame,
        ucci: "newgame",
        uci: Some("Clear Hash"),
        shown: Shown::Both,
        kind: Kind::Button,
    },
];

/// `knowledge` and `pruning`, default first (ElephantEye's order of
/// strength, strongest first).
const GRADES_DOWN: &[&str] = &["large", "medium", "small", "none"];
