use super::*;

#[test]
fn advertised_lines() {
    let ucci = advertise(Dialect::Ucci);
    assert!(ucci.contains(&"option usemillisec type check default true".to_string()));
    assert!(ucci.contains(&"option hashsize type spin min 1 max 65536 default 16".to_string()));
    assert!(ucci.contains(&"option newgame type button".to_string()));
    assert!(ucci.contains(&"option bookfiles type string default <builtin>".to_string()));
    for name in [
        "usemillisec",
        "batch",
        "debug",
        "ponder",
        "usebook",
        "bookfiles",
        "hashsize",
        "threads",
        "multipv",
    ] {
        assert!(
            ucci.iter()
                .any(|l| l.starts_with(&format!("option {name} type "))),
            "{name}"
        );
    }
    let uci = advertise(Dialect::Uci);
    assert!(uci.contains(&"option name Hash type spin default 16 min 1 max 65536".to_string()));
    assert!(uci.contains(&"option name Clear Hash type button".to_string()));
    assert!(uci.contains(&"option name OwnBook type check default true".to_string()));
    assert!(uci.contains(&"option name MultiPV type spin default 1 min 1 max 128".to_string()));
    assert!(!uci.iter().any(|l| l.contains("usemillisec")));
}

/// Whether a `setoption` was taken without a word or an action.
fn quiet(a: &Applied) -> bool {
    a.diagnostics.is_empty() && a.action.is_none()
}

#[test]
fn both_names_in_both_dialects() {
    for dialect in [Dialect::Ucci, Dialect::Uci] {
        for (name, said) in [("hashsize", "hashsize"), ("Hash", "Hash"), ("HASH", "Hash")] {
            let mut o = Options::default();
            let a = o.set(dialect, name, Some("64"));
            assert_eq!(
                a,
                Applied {
                    diagnostics: vec![],
                    name: said,
                    action: Some(Action::ResizeHash(64))
                }
            );
            assert_eq!(o.hash_mb, 64);
        }
        let mut o = Options::default();
        assert_eq!(
            o.set(dialect, "Clear Hash", None).action,
            Some(Action::NewGame)
        );
        assert_eq!(
            o.set(dialect, "clear", Some("hash")).action,
            Some(Action::NewGame)
        );
        assert_eq!(
            o.set(dialect, "newgame", Some("whatever")).action,
            Some(Action::NewGame)
        );
        assert!(quiet(&o.set(dialect, "OwnBook", Some("off"))));
        assert!(!o.usebook);
        assert!(quiet(&o.set(dialect, "MultiPV", Some("3"))));
        assert_eq!(o.multipv, 3);
    }
}

#[test]
fn pikafish_options() {
    let uci = advertise(Dialect::Uci);
    assert!(
        uci.contains(&"option name Move Overhead type spin default 10 min 0 max 5000".to_string())
    );
    assert!(uci.contains(&"option name UCI_ShowWDL type check default false".to_string()));
    let ucci = advertise(Dialect::Ucci);
    assert!(ucci.contains(&"option moveoverhead type spin min 0 max 5000 default 10".to_string()));
    assert!(
        !ucci
            .iter()
            .any(|l| l.contains("wdl") || l.contains("variant"))
    );
    let mut o = Options::default();
    assert_eq!(
        u128::from(o.move_overhead_ms),
        engine::DEFAULT_MOVE_OVERHEAD.as_millis()
    );
    assert!(quiet(&o.set(Dialect::Uci, "move overhead", Some("300"))));
    assert_eq!(o.move_overhead_ms, 300);
    assert_eq!(
        o.set(Dialect::Uci, "Move Overhead", Some("9000"))
            .diagnostics
            .len(),
        1
    );
    assert_eq!(o.move_overhead_ms, 5000);
    assert!(quiet(&o.set(Dialect::Uci, "UCI_ShowWDL", Some("true"))));
    assert!(o.show_wdl);
    assert!(quiet(&o.set(Dialect::Uci, "UCI_Variant", Some("Xiangqi"))));
    assert_eq!(o.notation, Notation::Ranks1To10);
    assert!(quiet(&o.set(Dialect::Uci, "Skill Level", Some("3"))));
    assert_eq!(o.strength.skill, 3);
    assert_eq!(
        o.set(Dialect::Uci, "Skill Level", Some("30"))
            .diagnostics
            .len(),
        1
    );
    assert_eq!(o.strength.skill, 20, "clamped");
    o.set(Dialect::Uci, "UCI_LimitStrength", Some("true"));
    let ten = strength::ELO_LADDER
        .iter()
        .find(|r| r.0 == 10)
        .expect("a row");
    o.set(Dialect::Uci, "UCI_Elo", Some(&ten.1.to_string()));
    assert_eq!(o.strength.level().skill, 10);
    let a = o.set(Dialect::Uci, "Contempt", Some("3"));
    assert_eq!(a.diagnostics, vec!["unknown option: Contempt".to_string()]);
    // ElephantEye's grades, by their UCCI names, in either dialect.
    let mut u = Options::default();
    assert!(quiet(&u.set(Dialect::Ucci, "randomness", Some("huge"))));
    assert!(quiet(&u.set(Dialect::Ucci, "knowledge", Some("small"))));
    assert_eq!(u.strength.level().skill, 12);
    assert_eq!(u.strength.level().temperature, 80);
    assert_eq!(
        u.set(Dialect::Ucci, "idle", Some("lots")).diagnostics.len(),
        1
    );
}

#[test]
fn clamping_and_bad_values() {
    let mut o = Options::default();
    let a = o.set(Dialect::Uci, "Hash", Some("0"));
    assert_eq!(a.diagnostics.len(), 1);
    assert_eq!(a.action, Some(Action::ResizeHash(1)));
    let a = o.set(Dialect::Uci, "hashsize", Some("0"));
    assert!(a.diagnostics.is_empty());
    assert_eq!(a.action, Some(Action::ResizeHash(16)));
    let a = o.set(
        Dialect::Ucci,
        "threads",
        Some("99999999999999999999999999999999999999999"),
    );
    assert_eq!(a.diagnostics.len(), 1);
    assert_eq!(o.threads, 1);
    let a = o.set(Dialect::Ucci, "multipv", Some("-4"));
    assert_eq!(a.diagnostics.len(), 1);
    assert_eq!(o.multipv, 1);
    let before = o.clone();
    let a = o.set(Dialect::Ucci, "hashsize", Some("lots"));
    assert_eq!((a.diagnostics.len(), a.action), (1, None));
    let a = o.set(Dialect::Ucci, "usemillisec", None);
    assert_eq!((a.diagnostics.len(), a.action), (1, None));
    let a = o.set(Dialect::Ucci, "foo", Some("bar"));
    assert_eq!(a.diagnostics, vec!["unknown option: foo".to_string()]);
    assert_eq!(o, before);
    o.set(Dialect::Ucci, "usemillisec", Some("FALSE"));
    assert!(!o.usemillisec);
    let a = o.set(Dialect::Ucci, "bookfiles", Some("a.obk;b.obk"));
    assert_eq!(a.action, Some(Action::OpenBook("a.obk;b.obk".to_string())));
    assert_eq!(o.bookfiles, "a.obk;b.obk");
}

#[test]
fn bad_thread_counts_are_refused_and_the_old_value_kept() {
    for dialect in [Dialect::Ucci, Dialect::Uci] {
        let mut o = Options::default();
        let a = o.set(dialect, "Threads", Some("4"));
        assert_eq!(
            a,
            Applied {
                diagnostics: vec![],
                name: "Threads",
                action: Some(Action::SetThreads(4))
            }
        );
        assert_eq!(o.threads, 4);
        for bad in ["0", "-1", "-3", "1025", "99999999999", "two", "2.5", ""] {
            let a = o.set(dialect, "threads", Some(bad));
            assert_eq!(a.action, None, "{bad}");
            assert_eq!(a.diagnostics.len(), 1, "{bad}");
            assert!(a.diagnostics[0].starts_with("option threads: "), "{bad}");
            assert_eq!(a.name, "threads", "the name as sent");
            assert_eq!(o.threads, 4, "{bad}");
        }
        let a = o.set(dialect, "threads", Some("1025"));
        assert_eq!(
            a.diagnostics,
            vec!["option threads: 1025 is outside 1..1024; keeping 4".to_string()]
        );
        let a = o.set(dialect, "Threads", Some("1024"));
        assert_eq!(a.action, Some(Action::SetThreads(1024)));
    }
    assert!(
        advertise(Dialect::Uci)
            .contains(&"option name Threads type spin default 1 min 1 max 1024".to_string())
    );
}

#[test]
fn diagnostics_name_the_option_as_the_gui_sent_it() {
    let mut o = Options::default();
    let a = o.set(Dialect::Uci, "Skill Level", Some("25"));
    assert_eq!(
        a.diagnostics,
        vec!["option Skill Level: 25 is outside 0..20, using 20".to_string()]
    );
    let a = o.set(Dialect::Uci, "skilllevel", Some("x"));
    assert_eq!(
        a.diagnostics,
        vec!["option skilllevel: 'x' is not a whole number; ignored".to_string()]
    );
    let a = o.set(Dialect::Uci, "OwnBook", Some("maybe"));
    assert_eq!(
        a.diagnostics,
        vec!["option OwnBook: expected true or false, not 'maybe'; ignored".to_string()]
    );
}

#[test]
fn table_experiments_are_hidden_from_both_handshakes() {
    for dialect in [Dialect::Ucci, Dialect::Uci] {
        let lines = advertise(dialect);
        for name in [
            "ttpolicy",
            "ttstoreqs",
            "ttsizekib",
            "TT Policy",
            "TT Store QS",
            "TT Size KiB",
        ] {
            assert!(
                !lines.iter().any(|l| l.contains(name)),
                "{dialect:?} advertises {name}"
            );
        }
    }
}

#[test]
fn table_experiments_are_options() {
    let mut o = Options::default();
    assert_eq!(o.experiment(), None, "play by default");
    let a = o.set(Dialect::Uci, "TT Policy", Some("Bucket"));
    assert_eq!(a.action, Some(Action::SetExperiment));
    assert_eq!(
        o.experiment().map(|e| e.policy),
        Some(engine::TtPolicy::Bucket)
    );
    let a = o.set(Dialect::Ucci, "ttstoreqs", Some("false"));
    assert_eq!(a.action, Some(Action::SetExperiment));
    let e = o.experiment().expect("an experiment");
    assert!(!e.store_qs && !e.classic);
    assert_eq!(
        o.set(Dialect::Uci, "TT Policy", Some("lru"))
            .diagnostics
            .len(),
        1
    );
    o.set(Dialect::Uci, "TT Policy", Some("two-tier"));
    o.set(Dialect::Uci, "TT Store QS", Some("true"));
    assert_eq!(o.experiment(), None, "back to play");
}

#[test]
fn a_table_below_one_megabyte_is_an_experiment_option_that_wins_over_hash() {
    let mut o = Options::default();
    let a = o.set(Dialect::Uci, "TT Size KiB", Some("256"));
    assert_eq!(a.action, Some(Action::ResizeHashKib(256)));
    assert_eq!(o.experiment(), None, "a size alone still plays");
    // Hash is kept for later, not applied, while the KiB size is set.
    let a = o.set(Dialect::Uci, "Hash", Some("64"));
    assert_eq!(a.action, None);
    assert_eq!(a.diagnostics.len(), 1);
    assert_eq!(o.hash_mb, 64);
    // Back to 0: the table takes Hash's size again.
    let a = o.set(Dialect::Ucci, "ttsizekib", Some("0"));
    assert_eq!(a.action, Some(Action::ResizeHash(64)));
    let a = o.set(Dialect::Uci, "TT Size KiB", Some("lots"));
    assert_eq!((a.action, a.diagnostics.len()), (None, 1));
}
