//! What the command line describes, in typed form: engines ([`EngineSpec`]),
//! the time control ([`TimeControl`]), SPRT parameters and score
//! adjudication. Each is parsed from `key=value` words here, in one place;
//! the command line (`cli`) only collects the words.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::sprt::{EloModel, Sprt};

/// The dialect an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// UCCI (ElephantEye's protocol): `ucci`, `go time … increment …`.
    Ucci,
    /// UCI as Pikafish speaks it: `uci`, `go wtime … btime …`.
    Uci,
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Protocol::Ucci => "ucci",
            Protocol::Uci => "uci",
        })
    }
}

/// One engine of the tournament and how to start it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Display name (PGN `Red`/`Black`, reports); unique in a tournament.
    pub name: String,
    /// The executable.
    pub cmd: PathBuf,
    /// Arguments passed to it.
    pub args: Vec<String>,
    /// Working directory (default: the arena's).
    pub dir: Option<PathBuf>,
    /// Dialect.
    pub protocol: Protocol,
    /// Options sent after the handshake, in order.
    pub options: Vec<(String, String)>,
}

impl EngineSpec {
    /// Reads `name=… cmd=… [proto=ucci|uci] [arg=…]… [dir=…] [option.X=…]…`.
    ///
    /// # Errors
    /// An unknown key, a missing `cmd`, or a bad protocol name.
    pub fn parse<S: AsRef<str>>(words: &[S]) -> Result<EngineSpec> {
        let mut name = None;
        let mut cmd = None;
        let mut args = Vec::new();
        let mut dir = None;
        let mut protocol = Protocol::Ucci;
        let mut options = Vec::new();
        for word in words {
            let word = word.as_ref();
            let (key, value) = word
                .split_once('=')
                .with_context(|| format!("engine setting '{word}' is not key=value"))?;
            match key {
                "name" => name = Some(value.to_string()),
                "cmd" => cmd = Some(PathBuf::from(value)),
                "arg" => args.push(value.to_string()),
                "dir" => dir = Some(PathBuf::from(value)),
                "proto" | "protocol" => {
                    protocol = match value.to_ascii_lowercase().as_str() {
                        "ucci" => Protocol::Ucci,
                        "uci" => Protocol::Uci,
                        _ => bail!("unknown protocol '{value}' (expected ucci or uci)"),
                    }
                }
                _ => match key.strip_prefix("option.") {
                    Some(opt) if !opt.is_empty() => {
                        options.push((opt.to_string(), value.to_string()));
                    }
                    _ => bail!(
                        "unknown engine setting '{key}' (name, cmd, arg, dir, proto, option.NAME)"
                    ),
                },
            }
        }
        let cmd: PathBuf = cmd.context("engine without cmd=")?;
        let name = name.unwrap_or_else(|| {
            cmd.file_name().map_or_else(
                || cmd.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            )
        });
        Ok(EngineSpec {
            name,
            cmd,
            args,
            dir,
            protocol,
            options,
        })
    }
}

/// How long each engine may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// A clock per side: base time plus an increment after every move.
    Clock {
        /// Starting time.
        base: Duration,
        /// Added after each move.
        increment: Duration,
    },
    /// A fixed search depth per move.
    Depth(u32),
    /// A fixed node count per move.
    Nodes(u64),
}

impl TimeControl {
    /// Reads `BASE+INC` in seconds (`10+0.1`, `60`, `0.5+0.05`).
    ///
    /// # Errors
    /// A number that is not a non-negative decimal, or a zero base time.
    pub fn parse_clock(text: &str) -> Result<TimeControl> {
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let secs = |s: &str| -> Result<Duration> {
            let v: f64 = s
                .trim()
                .parse()
                .with_context(|| format!("bad time '{s}' in time control '{text}'"))?;
            if !v.is_finite() || !(0.0..=1e7).contains(&v) {
                bail!("time '{s}' out of range in '{text}'");
            }
            Ok(Duration::from_secs_f64(v))
        };
        let base = secs(base)?;
        if base.is_zero() {
            bail!("time control '{text}' has no base time");
        }
        Ok(TimeControl::Clock {
            base,
            increment: secs(inc)?,
        })
    }
}

impl fmt::Display for TimeControl {
    /// The PGN `TimeControl` form for clocks (`10+0.1`), else `depth=N` /
    /// `nodes=N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Clock { base, increment } => {
                write!(f, "{}", base.as_secs_f64())?;
                if !increment.is_zero() {
                    write!(f, "+{}", increment.as_secs_f64())?;
                }
                Ok(())
            }
            TimeControl::Depth(d) => write!(f, "depth={d}"),
            TimeControl::Nodes(n) => write!(f, "nodes={n}"),
        }
    }
}

/// Reads `elo0=… elo1=… [alpha=…] [beta=…] [model=normalized|logistic]`.
///
/// # Errors
/// Missing bounds, unknown keys, or rates outside (0, 1).
pub fn parse_sprt<S: AsRef<str>>(words: &[S]) -> Result<Sprt> {
    let mut elo0 = None;
    let mut elo1 = None;
    let mut sprt = Sprt {
        elo0: 0.0,
        elo1: 0.0,
        alpha: 0.05,
        beta: 0.05,
        model: EloModel::Normalized,
    };
    for word in words {
        let word = word.as_ref();
        let (key, value) = word
            .split_once('=')
            .with_context(|| format!("SPRT setting '{word}' is not key=value"))?;
        let num = || -> Result<f64> {
            let v: f64 = value
                .parse()
                .with_context(|| format!("bad number in '{word}'"))?;
            if v.is_finite() {
                Ok(v)
            } else {
                bail!("bad number in '{word}'")
            }
        };
        match key {
            "elo0" => elo0 = Some(num()?),
            "elo1" => elo1 = Some(num()?),
            "alpha" => sprt.alpha = num()?,
            "beta" => sprt.beta = num()?,
            "model" => {
                sprt.model = match value {
                    "normalized" => EloModel::Normalized,
                    "logistic" => EloModel::Logistic,
                    _ => bail!("unknown SPRT model '{value}' (normalized or logistic)"),
                }
            }
            _ => bail!("unknown SPRT setting '{key}' (elo0, elo1, alpha, beta, model)"),
        }
    }
    sprt.elo0 = elo0.context("--sprt needs elo0=")?;
    sprt.elo1 = elo1.context("--sprt needs elo1=")?;
    if sprt.elo0 == sprt.elo1 {
        bail!("--sprt needs elo0 different from elo1");
    }
    for (name, v) in [("alpha", sprt.alpha), ("beta", sprt.beta)] {
        if !(v > 0.0 && v < 0.5) {
            bail!("SPRT {name} must be in (0, 0.5), got {v}");
        }
    }
    Ok(sprt)
}

/// Score-based resignation: a game is given up for a side when, over its
/// last `moves` moves, it reported a score of at most −`score` and its
/// opponent at least +`score` over the opponent's last `moves` moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    /// Centipawn threshold.
    pub score: i32,
    /// Consecutive moves of each side.
    pub moves: usize,
}

/// Score-based draw: after move `after` (full moves), when both engines
/// reported |score| ≤ `score` over their last `moves` moves each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// Centipawn threshold.
    pub score: i32,
    /// Consecutive moves of each side.
    pub moves: usize,
    /// Earliest full-move number at which the rule applies.
    pub after: usize,
}

fn kv_numbers<S: AsRef<str>>(words: &[S], what: &str, keys: &[&str]) -> Result<Vec<Option<i64>>> {
    let mut values = vec![None; keys.len()];
    for word in words {
        let word = word.as_ref();
        let (key, value) = word
            .split_once('=')
            .with_context(|| format!("{what} setting '{word}' is not key=value"))?;
        let i = keys
            .iter()
            .position(|k| *k == key)
            .with_context(|| format!("unknown {what} setting '{key}' ({})", keys.join(", ")))?;
        let v: i64 = value
            .parse()
            .with_context(|| format!("bad number in '{word}'"))?;
        if !(0..=1_000_000).contains(&v) {
            bail!("{what} setting '{word}' out of range");
        }
        values[i] = Some(v);
    }
    Ok(values)
}

/// Reads `score=CP moves=N` for [`ResignRule`].
///
/// # Errors
/// Missing or malformed settings.
pub fn parse_resign<S: AsRef<str>>(words: &[S]) -> Result<ResignRule> {
    let v = kv_numbers(words, "--resign", &["score", "moves"])?;
    let moves = usize::try_from(v[1].unwrap_or(3))?.max(1);
    Ok(ResignRule {
        score: i32::try_from(v[0].context("--resign needs score=")?)?,
        moves,
    })
}

/// Reads `score=CP moves=N [after=M]` for [`DrawRule`].
///
/// # Errors
/// Missing or malformed settings.
pub fn parse_draw<S: AsRef<str>>(words: &[S]) -> Result<DrawRule> {
    let v = kv_numbers(words, "--draw", &["score", "moves", "after"])?;
    Ok(DrawRule {
        score: i32::try_from(v[0].context("--draw needs score=")?)?,
        moves: usize::try_from(v[1].unwrap_or(8))?.max(1),
        after: usize::try_from(v[2].unwrap_or(30))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_spec() {
        let spec = EngineSpec::parse(&[
            "name=base",
            "cmd=/x/chariot",
            "proto=UCI",
            "option.Hash=16",
            "arg=-v",
            "arg=two words",
        ])
        .unwrap();
        assert_eq!(spec.name, "base");
        assert_eq!(spec.cmd, PathBuf::from("/x/chariot"));
        assert_eq!(spec.protocol, Protocol::Uci);
        assert_eq!(spec.options, vec![("Hash".to_string(), "16".to_string())]);
        assert_eq!(spec.args, vec!["-v".to_string(), "two words".to_string()]);
        let spec = EngineSpec::parse(&["cmd=target/release/chariot"]).unwrap();
        assert_eq!(spec.name, "chariot");
        assert_eq!(spec.protocol, Protocol::Ucci);
        assert!(EngineSpec::parse(&["name=x"]).is_err());
        assert!(EngineSpec::parse(&["cmd=x", "proto=xboard"]).is_err());
        assert!(EngineSpec::parse(&["cmd=x", "colour=red"]).is_err());
        assert!(EngineSpec::parse(&["cmd"]).is_err());
    }

    #[test]
    fn time_controls() {
        assert_eq!(
            TimeControl::parse_clock("10+0.1").unwrap(),
            TimeControl::Clock {
                base: Duration::from_secs(10),
                increment: Duration::from_millis(100)
            }
        );
        assert_eq!(
            TimeControl::parse_clock("60").unwrap(),
            TimeControl::Clock {
                base: Duration::from_secs(60),
                increment: Duration::ZERO
            }
        );
        assert_eq!(
            TimeControl::parse_clock("10+0.1").unwrap().to_string(),
            "10+0.1"
        );
        assert_eq!(TimeControl::parse_clock("60").unwrap().to_string(), "60");
        for bad in ["", "0+1", "x+1", "-1+0", "10+y", "nan", "inf"] {
            assert!(TimeControl::parse_clock(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sprt_settings() {
        let s = parse_sprt(&["elo0=0", "elo1=5"]).unwrap();
        assert_eq!(
            s,
            Sprt {
                elo0: 0.0,
                elo1: 5.0,
                alpha: 0.05,
                beta: 0.05,
                model: EloModel::Normalized
            }
        );
        let s = parse_sprt(&[
            "elo0=-1.5",
            "elo1=3",
            "alpha=0.1",
            "beta=0.2",
            "model=logistic",
        ])
        .unwrap();
        assert_eq!(
            s,
            Sprt {
                elo0: -1.5,
                elo1: 3.0,
                alpha: 0.1,
                beta: 0.2,
                model: EloModel::Logistic
            }
        );
        assert!(parse_sprt(&["elo0=0"]).is_err());
        assert!(parse_sprt(&["elo0=0", "elo1=0"]).is_err());
        assert!(parse_sprt(&["elo0=0", "elo1=5", "alpha=0"]).is_err());
        assert!(parse_sprt(&["elo0=0", "elo1=5", "gamma=1"]).is_err());
    }

    #[test]
    fn adjudication_settings() {
        assert_eq!(
            parse_resign(&["score=600", "moves=4"]).unwrap(),
            ResignRule {
                score: 600,
                moves: 4
            }
        );
        assert_eq!(
            parse_draw(&["score=10", "moves=6", "after=40"]).unwrap(),
            DrawRule {
                score: 10,
                moves: 6,
                after: 40
            }
        );
        assert_eq!(
            parse_draw(&["score=5"]).unwrap(),
            DrawRule {
                score: 5,
                moves: 8,
                after: 30
            }
        );
        assert!(parse_resign(&["moves=3"]).is_err());
        assert!(parse_resign(&["score=-3"]).is_err());
        assert!(parse_draw(&["score=5", "when=3"]).is_err());
    }
}
