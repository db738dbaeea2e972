//! `docs/design.md` describes the search with the defaults of its
//! parameters ("reverse futility at depth ≤ 3", "null move (R = 2 +
//! depth/4)"). The defaults live in one table, `engine/src/params.rs`; a
//! tune that moves one of them has to move the page too, and this test
//! says which phrase did not.

use engine::params;

const DESIGN: &str = include_str!("../../docs/design.md");

/// The default of parameter `name`.
fn d(name: &str) -> i32 {
    params::find(name)
        .unwrap_or_else(|| panic!("no parameter {name} in engine/src/params.rs"))
        .default
}

/// The page with every run of white space as one space, so that a phrase
/// matches across the page's line breaks.
fn page() -> String {
    DESIGN.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_search_description_quotes_the_parameter_table() {
    let page = page();
    let phrases = [
        format!(
            "±{} from depth {}",
            d("aspiration_window"),
            d("aspiration_depth")
        ),
        format!(
            "widened by half plus {} on each failure",
            d("aspiration_widen")
        ),
        format!("reverse futility at depth ≤ {}", d("rfp_depth")),
        format!(
            "null move (R = {} + depth/{})",
            d("null_reduction"),
            d("null_depth_divisor")
        ),
        format!(
            "at depth ≤ {} late quiet moves are skipped past {} + depth² moves",
            d("lmp_depth"),
            d("lmp_base")
        ),
        format!(
            "at depth ≤ {} quiet non-checking moves",
            d("futility_depth")
        ),
        format!("at depth ≤ {} moves that lose the exchange", d("see_depth")),
        format!(
            "{} + {} × its reduction",
            d("lmr_deeper_base"),
            d("lmr_deeper_per_ply")
        ),
        format!("singular extensions from depth {}", d("singular_depth")),
        format!("at most {} plies shallower", d("singular_entry_depth")),
        format!("a bar {} × depth below its score", d("singular_margin")),
        format!("a node from depth {} whose", d("iir_depth")),
        format!(
            "b = min({}·depth − {}, {})",
            d("history_bonus_per_depth"),
            d("history_bonus_offset"),
            d("history_bonus_max")
        ),
    ];
    let missing: Vec<_> = phrases
        .iter()
        .filter(|p| !page.contains(p.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/design.md should say, from engine/src/params.rs's defaults: {missing:?}"
    );
}

/// The page says the quiet moves tried before the best one "lose as
/// much" as it gains: the malus's three parameters equal the bonus's.
#[test]
fn the_malus_is_the_bonus_as_the_page_says() {
    assert!(
        page().contains("the quiet moves tried before it lose as much"),
        "docs/design.md no longer says the malus equals the bonus; drop this test"
    );
    for (bonus, malus) in [
        ("history_bonus_per_depth", "history_malus_per_depth"),
        ("history_bonus_offset", "history_malus_offset"),
        ("history_bonus_max", "history_malus_max"),
    ] {
        assert_eq!(
            d(bonus),
            d(malus),
            "docs/design.md says the malus equals the bonus: {bonus} and {malus} differ"
        );
    }
}
