//! The strength ladder's figures where users read them, against the one
//! table they come from: [`ELO_LADDER`] and [`LADDER_NETWORKS`]. The fit's
//! section of `docs/lab/strength.md` ("Strength levels") holds the table of
//! measured Elo that `ELO_LADDER` rounds; the README's option row and
//! `docs/ucci.md`'s `UCI_Elo` row quote that table and the range. When the
//! ladder is fitted again, or a new network is checked against it, these
//! pages have to move with it, and this test says which line did not.

use engine::strength::{ELO_LADDER, LADDER_NETWORKS, LadderBasis, LadderNetwork, MAX_ELO, MIN_ELO};

const STRENGTH_LOG: &str = include_str!("../../docs/lab/strength.md");
const README: &str = include_str!("../../README.md");
const UCCI: &str = include_str!("../../docs/ucci.md");
const DESIGN: &str = include_str!("../../docs/design.md");

/// The network the ladder was fitted with (one of [`LADDER_NETWORKS`]).
fn fitted_network() -> &'static str {
    let fitted: Vec<_> = LADDER_NETWORKS
        .iter()
        .filter(|n| n.basis == LadderBasis::Fitted)
        .collect();
    assert_eq!(
        fitted.len(),
        1,
        "LADDER_NETWORKS names one fitted network: {LADDER_NETWORKS:?}"
    );
    fitted[0].name
}

/// The row of [`LADDER_NETWORKS`] of the network the build embeds (the
/// unit test `ladder_holds_for_the_embedded_network` says when there is
/// none).
fn shipped_network() -> &'static LadderNetwork {
    let checksum = engine::nnue::embedded()
        .expect("the build embeds a network")
        .checksum();
    LadderNetwork::of_checksum(checksum).unwrap_or_else(|| {
        panic!("the embedded network ({checksum:08x}) is not in LADDER_NETWORKS")
    })
}

/// How the pages name the networks behind the ladder: the shipped one, if
/// the ladder was fitted with it; otherwise the one it was fitted with and
/// the shipped one a check found it true for.
fn networks_claim() -> String {
    let shipped = shipped_network();
    match shipped.basis {
        LadderBasis::Fitted => format!("with the shipped network `{}`", shipped.name),
        LadderBasis::Checked => format!(
            "with `{}`, checked with the shipped network `{}`",
            fitted_network(),
            shipped.name
        ),
    }
}

/// The strength log's section of the ladder `ELO_LADDER` holds: from its
/// heading to the next heading of its level.
fn fit_section() -> &'static str {
    let net = fitted_network();
    let heading = format!("### The `{net}` ladder (");
    let start = STRENGTH_LOG
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/lab/strength.md has no section headed {heading:?}…"));
    let section = &STRENGTH_LOG[start..];
    let first_line = section.lines().next().unwrap_or_default();
    assert!(
        first_line.ends_with("the one `ELO_LADDER` holds"),
        "docs/lab/strength.md: {first_line:?} should say it is the one `ELO_LADDER` holds"
    );
    let end = section[heading.len()..]
        .find("\n### ")
        .map_or(section.len(), |i| i + heading.len());
    &section[..end]
}

/// A level's Elo and error on the fit's scale (`| L12 | … | 2322 ± 56 |`).
fn measured(section: &str, skill: u8) -> (u32, u32) {
    let label = format!("| L{skill} |");
    let row = section
        .lines()
        .find(|l| l.starts_with(&label))
        .unwrap_or_else(|| panic!("the fit's table has no row {label:?}"));
    let cell = row
        .trim_end_matches('|')
        .rsplit('|')
        .next()
        .unwrap_or_default()
        .trim();
    let (elo, err) = cell
        .split_once(" ± ")
        .unwrap_or_else(|| panic!("row {row:?}: the last cell is not \"Elo ± error\""));
    let parse = |s: &str| {
        s.parse::<u32>()
            .unwrap_or_else(|_| panic!("row {row:?}: {s:?} is not a whole number"))
    };
    (parse(elo), parse(err))
}

/// `text` with every run of whitespace one space, so that a sentence
/// matches however the page wraps it.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn round_to_5(elo: u32) -> u32 {
    (elo + 2) / 5 * 5
}

#[test]
fn every_ladder_row_is_the_fit_rounded_to_five() {
    let section = fit_section();
    for &(skill, elo) in ELO_LADDER {
        let (fit, _) = measured(section, skill);
        assert_eq!(
            round_to_5(fit),
            elo,
            "skill {skill}: ELO_LADDER says {elo}, the fit in docs/lab/strength.md {fit}"
        );
    }
}

#[test]
fn the_fit_section_lists_the_ladder_it_rounds_to() {
    let section = fit_section();
    let elos: Vec<String> = ELO_LADDER.iter().map(|(_, e)| e.to_string()).collect();
    let skills: Vec<String> = ELO_LADDER.iter().map(|(s, _)| s.to_string()).collect();
    let and_list = |v: &[String]| {
        let (last, rest) = v.split_last().expect("a ladder has rows");
        format!("{} and {last}", rest.join(", "))
    };
    let sentence = format!(
        "rounded to 5: {} for skills {}",
        and_list(&elos),
        and_list(&skills)
    );
    assert!(
        flat(section).contains(&sentence),
        "docs/lab/strength.md's fit section should say {sentence:?}"
    );
}

#[test]
fn the_readme_quotes_the_fit() {
    let row = README
        .lines()
        .find(|l| l.starts_with("| `UCI_LimitStrength` + `UCI_Elo` |"))
        .expect("README.md's option table has its UCI_Elo row");
    let section = fit_section();
    let (l12, e12) = measured(section, 12);
    let top = ELO_LADDER.last().map(|&(s, _)| s).unwrap_or_default();
    let (full, efull) = measured(section, top);
    for claim in [
        format!("| false, {MAX_ELO} |"),
        format!("{MIN_ELO}–{MAX_ELO}"),
        networks_claim(),
        format!("skill 12 plays {l12} ± {e12}"),
        format!("full strength {full} ± {efull}"),
    ] {
        assert!(
            row.contains(&claim),
            "README.md's UCI_Elo row should say {claim:?}: {row}"
        );
    }
}

#[test]
fn the_protocol_pages_quote_the_ladder() {
    let elo = |skill: u8| {
        ELO_LADDER
            .iter()
            .find(|&&(s, _)| s == skill)
            .map(|&(_, e)| e)
            .unwrap_or_else(|| panic!("ELO_LADDER has no row for skill {skill}"))
    };
    let row = UCCI
        .lines()
        .find(|l| l.contains("| `UCI_Elo` |"))
        .expect("docs/ucci.md's option table has its UCI_Elo row");
    for claim in [
        format!("full strength {MAX_ELO}"),
        format!("skill 12 {}", elo(12)),
        format!("skill 11 {}", elo(11)),
        format!("skill 0 {MIN_ELO}"),
        networks_claim(),
    ] {
        assert!(
            row.contains(&claim),
            "docs/ucci.md's UCI_Elo row should say {claim:?}: {row}"
        );
    }
    let range = format!("({MIN_ELO}–{MAX_ELO} on a scale");
    assert!(
        flat(DESIGN).contains(&range),
        "docs/design.md should give UCI_Elo's range as {range:?}"
    );
}
