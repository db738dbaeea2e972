//! The option table of `docs/ucci.md` §3 against the handshakes: every
//! option that `ucci` or `uci` advertises has its row, with the same type,
//! default and range, in handshake order, and every row names an option
//! the engine advertises. A failure names each missing or different
//! option. New options need nothing here, only their row on the page.

mod common;

use common::Engine;

/// The page, read where the repository keeps it.
const PAGE: &str = include_str!("../../docs/ucci.md");

/// The two handshakes, by the name the page's columns use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    Ucci,
    Uci,
}

impl Dialect {
    fn name(self) -> &'static str {
        match self {
            Dialect::Ucci => "UCCI",
            Dialect::Uci => "UCI",
        }
    }
}

/// What an option line says, or a row of the table: type, default and
/// range (`[min, max]` of a spin, the values of a combo, else empty).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Spec {
    kind: String,
    default: String,
    range: Vec<String>,
}

impl std::fmt::Display for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "type {}", self.kind)?;
        if !self.default.is_empty() {
            write!(f, ", default {}", self.default)?;
        }
        match (self.kind.as_str(), self.range.as_slice()) {
            ("spin", [min, max]) => write!(f, ", range {min}–{max}"),
            (_, []) => Ok(()),
            (_, values) => write!(f, ", values {}", values.join(", ")),
        }
    }
}

/// One advertised option: its name and what its line says.
type Advertised = (String, Spec);

/// Reads a handshake's `option` line (either dialect's shape): the name
/// runs to ` type `, then `default`, `min`, `max` and `var` each take the
/// words up to the next of them.
fn parse_option_line(line: &str) -> Option<Advertised> {
    let rest = line.strip_prefix("option ")?;
    let rest = rest.strip_prefix("name ").unwrap_or(rest);
    let (name, tail) = rest.split_once(" type ")?;
    let mut words = tail.split_whitespace();
    let kind = words.next()?.to_string();
    let (mut default, mut min, mut max, mut vars) = (Vec::new(), None, None, Vec::new());
    let mut key = "";
    for w in words {
        match w {
            "default" | "min" | "max" | "var" => {
                key = w;
                if w == "var" {
                    vars.push(String::new());
                }
            }
            _ => match key {
                "default" => default.push(w),
                "min" => min = Some(w.to_string()),
                "max" => max = Some(w.to_string()),
                "var" => {
                    if let Some(v) = vars.last_mut() {
                        if !v.is_empty() {
                            v.push(' ');
                        }
                        v.push_str(w);
                    }
                }
                _ => return None,
            },
        }
    }
    let range = match (min, max) {
        (Some(min), Some(max)) => vec![min, max],
        _ => vars,
    };
    Some((
        name.to_string(),
        Spec {
            kind,
            default: default.join(" "),
            range,
        },
    ))
}

/// The options a handshake advertises, in order.
fn handshake(dialect: Dialect) -> Vec<Advertised> {
    let mut e = Engine::start();
    let (command, ok) = match dialect {
        Dialect::Ucci => ("ucci", "ucciok"),
        Dialect::Uci => ("uci", "uciok"),
    };
    e.send(command);
    e.expect_line(ok)
        .iter()
        .filter(|l| l.starts_with("option "))
        .map(|l| parse_option_line(l).unwrap_or_else(|| panic!("unreadable option line {l:?}")))
        .collect()
}

/// One row of the table: the name in each dialect (`None`: not
/// advertised there) and the spec.
#[derive(Clone, Debug)]
struct Row {
    ucci: Option<String>,
    uci: Option<String>,
    spec: Spec,
}

/// The first word in backticks of a cell, when the cell starts with it.
fn code_name(cell: &str) -> Option<String> {
    let rest = cell.strip_prefix('`')?;
    rest.split_once('`').map(|(name, _)| name.to_string())
}

/// The rows of the table in `page`'s §3.
fn table(page: &str) -> Vec<Row> {
    let section = page
        .split("\n## ")
        .find(|s| s.starts_with("3. Options"))
        .expect("docs/ucci.md has a section 3. Options");
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<String> = line
            .replace("\\|", "\u{0}")
            .split('|')
            .map(|c| c.trim().replace('\u{0}', "|"))
            .collect();
        // "", UCCI, UCI, type, default, range, effect, "".
        if cells.len() < 7 || cells[1] == "UCCI name" {
            continue;
        }
        let kind = cells[3].clone();
        let range = match kind.as_str() {
            "spin" => {
                let span = cells[5].split(' ').next().unwrap_or_default();
                span.split('–').map(str::to_string).collect()
            }
            "combo" => cells[5]
                .split(',')
                .map(|v| v.trim().trim_matches('`').to_string())
                .collect(),
            _ => Vec::new(),
        };
        rows.push(Row {
            ucci: code_name(&cells[1]),
            uci: code_name(&cells[2]),
            spec: Spec {
                kind,
                default: cells[4].trim_matches('`').to_string(),
                range,
            },
        });
    }
    rows
}

/// Everything that differs between the page's table and what `dialect`'s
/// handshake advertised, one sentence each.
fn differences(page: &str, dialect: Dialect, advertised: &[Advertised]) -> Vec<String> {
    let who = dialect.name();
    let documented: Vec<(String, Spec)> = table(page)
        .into_iter()
        .filter_map(|row| {
            let name = match dialect {
                Dialect::Ucci => row.ucci,
                Dialect::Uci => row.uci,
            };
            name.map(|n| (n, row.spec))
        })
        .collect();
    let mut problems = Vec::new();
    for (name, spec) in advertised {
        match documented.iter().find(|(n, _)| n == name) {
            None => problems.push(format!(
                "docs/ucci.md §3 does not list the {who} option `{name}`, which the handshake \
                 advertises ({spec})"
            )),
            Some((_, doc)) if doc != spec => problems.push(format!(
                "{who} option `{name}`: docs/ucci.md §3 says {doc}, the handshake advertises {spec}"
            )),
            Some(_) => {}
        }
    }
    for (name, _) in &documented {
        if !advertised.iter().any(|(n, _)| n == name) {
            problems.push(format!(
                "docs/ucci.md §3 lists the {who} option `{name}`, which the handshake does not \
                 advertise"
            ));
        }
    }
    if problems.is_empty() {
        let order = |list: &[(String, Spec)]| list.iter().map(|(n, _)| n.clone()).collect();
        let (page_order, engine_order): (Vec<String>, Vec<String>) =
            (order(&documented), order(advertised));
        if page_order != engine_order {
            problems.push(format!(
                "docs/ucci.md §3 lists the {who} options in the order {page_order:?}, the \
                 handshake in the order {engine_order:?}"
            ));
        }
    }
    problems
}

#[test]
fn the_page_lists_every_advertised_option_as_advertised() {
    let mut problems = Vec::new();
    for dialect in [Dialect::Ucci, Dialect::Uci] {
        let advertised = handshake(dialect);
        assert!(advertised.len() >= 10, "{dialect:?}: {advertised:?}");
        problems.extend(differences(PAGE, dialect, &advertised));
    }
    assert!(
        problems.is_empty(),
        "docs/ucci.md §3 and the handshakes differ:\n{}",
        problems.join("\n")
    );
}

/// The comparison itself catches a missing row, a changed default or
/// range, an extra row and a row out of order, and names the option.
#[test]
fn a_drifted_page_is_caught_by_name() {
    let advertised = handshake(Dialect::Uci);
    let row = |name: &str| {
        PAGE.lines()
            .find(|l| l.starts_with("| ") && l.contains(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("no row for {name}"))
            .to_string()
    };
    let overhead = row("Move Overhead");
    let missing = PAGE.replace(&format!("{overhead}\n"), "");
    assert_eq!(
        differences(&missing, Dialect::Uci, &advertised),
        [
            "docs/ucci.md §3 does not list the UCI option `Move Overhead`, which the handshake \
          advertises (type spin, default 10, range 0–5000)"
        ]
    );
    let hash = row("Hash");
    let changed = PAGE.replace(
        &hash,
        &hash.replace("| 16 | 1–65536 (MB) |", "| 32 | 1–1024 (MB) |"),
    );
    assert_eq!(
        differences(&changed, Dialect::Uci, &advertised),
        [
            "UCI option `Hash`: docs/ucci.md §3 says type spin, default 32, range 1–1024, the \
          handshake advertises type spin, default 16, range 1–65536"
        ]
    );
    let extra = PAGE.replace(
        &format!("{hash}\n"),
        &format!("{hash}\n| `contempt` | `Contempt` | spin | 0 | 0–100 | Draw aversion. |\n"),
    );
    let found = differences(&extra, Dialect::Uci, &advertised);
    assert_eq!(
        found,
        [
            "docs/ucci.md §3 lists the UCI option `Contempt`, which the handshake does not \
          advertise"
        ]
    );
    assert_eq!(
        differences(&extra, Dialect::Ucci, &handshake(Dialect::Ucci)),
        [
            "docs/ucci.md §3 lists the UCCI option `contempt`, which the handshake does not advertise"
        ]
    );
    let swapped = PAGE
        .replace(&format!("{overhead}\n"), "")
        .replace(&format!("{hash}\n"), &format!("{overhead}\n{hash}\n"));
    let found = differences(&swapped, Dialect::Uci, &advertised);
    assert!(
        found.len() == 1 && found[0].contains("in the order"),
        "{found:?}"
    );
}

#[test]
fn option_lines_of_both_shapes_read() {
    let spec = |kind: &str, default: &str, range: &[&str]| Spec {
        kind: kind.to_string(),
        default: default.to_string(),
        range: range.iter().map(ToString::to_string).collect(),
    };
    assert_eq!(
        parse_option_line("option hashsize type spin min 1 max 65536 default 16"),
        Some(("hashsize".into(), spec("spin", "16", &["1", "65536"])))
    );
    assert_eq!(
        parse_option_line("option name Move Overhead type spin default 10 min 0 max 5000"),
        Some(("Move Overhead".into(), spec("spin", "10", &["0", "5000"])))
    );
    assert_eq!(
        parse_option_line(
            "option name UCI_Variant type combo default xiangqi var xiangqi var janggi"
        ),
        Some((
            "UCI_Variant".into(),
            spec("combo", "xiangqi", &["xiangqi", "janggi"])
        ))
    );
    assert_eq!(
        parse_option_line("option name Clear Hash type button"),
        Some(("Clear Hash".into(), spec("button", "", &[])))
    );
    assert_eq!(
        parse_option_line("option bookfiles type string default <builtin>"),
        Some(("bookfiles".into(), spec("string", "<builtin>", &[])))
    );
}
