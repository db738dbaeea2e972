//! The one policy of every command that reads a file of cases — `chariot
//! epd`, `chariot perft --epd`, `chariot book build`, `chariot book import`
//! and `chariot data check` (the tools page, "Files of cases"):
//!
//! * a malformed line (or record, or chunk) is named on stderr with its file
//!   and line, `chariot <command>: <file>:<line>: <what>; skipped`, and the
//!   run goes on with the others;
//! * the exit status is then 1, as for a case that fails its check, unless
//!   `--lenient` asks for the malformed ones to be only reported;
//! * an input with nothing to check is an error of its own, status 2, like
//!   a bad argument or a file that cannot be read.
//!
//! A tester's CI then never loses positions silently, and one bad line
//! does not hide the verdicts of the others.

use std::fmt::Display;
use std::path::Path;
use std::process::ExitCode;

/// Exit status when a case fails or a line is malformed.
pub const FAILED: u8 = 1;
/// Exit status for bad arguments, an unreadable file, or an input with
/// nothing to check.
pub const USAGE: u8 = 2;

/// The `--lenient` switch, shared by the commands of this policy.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct Leniency {
    /// Report malformed lines but do not let them fail the run (exit 0
    /// when every case read passes).
    #[arg(long)]
    pub lenient: bool,
}

/// Counts and names the malformed lines of one run.
#[derive(Debug)]
pub struct Malformed {
    command: &'static str,
    lenient: bool,
    /// The lines written so far, as written.
    reported: Vec<String>,
}

impl Malformed {
    /// A run of `chariot <command>` (`"epd"`, `"book build"` …).
    pub fn new(command: &'static str, leniency: Leniency) -> Malformed {
        Malformed {
            command,
            lenient: leniency.lenient,
            reported: Vec::new(),
        }
    }

    /// Names a malformed line of `file` (`line` 1-based; 0 when the problem
    /// is the file's as a whole) and counts it.
    pub fn report(&mut self, file: &Path, line: usize, what: impl Display) {
        let text = if line == 0 {
            format!(
                "chariot {}: {}: {what}; skipped",
                self.command,
                file.display()
            )
        } else {
            format!(
                "chariot {}: {}:{line}: {what}; skipped",
                self.command,
                file.display()
            )
        };
        eprintln!("{text}");
        self.reported.push(text);
    }

    /// How many were reported.
    pub fn count(&self) -> usize {
        self.reported.len()
    }

    /// The lines reported, as written to stderr.
    #[cfg(test)]
    pub fn reported(&self) -> &[String] {
        &self.reported
    }

    /// The summary's clause, `"; 2 malformed lines skipped"`, or nothing.
    pub fn clause(&self) -> String {
        match self.count() {
            0 => String::new(),
            1 => "; 1 malformed line skipped".to_string(),
            n => format!("; {n} malformed lines skipped"),
        }
    }

    /// The exit status of a run whose cases all passed (`passed`) or not.
    pub fn exit(&self, passed: bool) -> ExitCode {
        if passed && (self.count() == 0 || self.lenient) {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(FAILED)
        }
    }

    /// Says that `file` held nothing to check, with the malformed count,
    /// and gives the status for it.
    pub fn nothing_to_check(&self, file: &Path, what: &str) -> ExitCode {
        eprintln!(
            "chariot {}: {} has no {what}{}",
            self.command,
            file.display(),
            self.clause()
        );
        ExitCode::from(USAGE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_fail_the_run_unless_lenient() {
        let path = Path::new("suite.epd");
        let mut strict = Malformed::new("epd", Leniency { lenient: false });
        assert_eq!(strict.exit(true), ExitCode::SUCCESS);
        strict.report(path, 3, "bad position");
        assert_eq!(strict.count(), 1);
        assert_eq!(strict.exit(true), ExitCode::from(FAILED));
        assert_eq!(strict.clause(), "; 1 malformed line skipped");
        let mut lenient = Malformed::new("epd", Leniency { lenient: true });
        lenient.report(path, 3, "bad position");
        lenient.report(path, 4, "bad position");
        assert_eq!(lenient.exit(true), ExitCode::SUCCESS);
        assert_eq!(lenient.exit(false), ExitCode::from(FAILED));
        assert_eq!(lenient.clause(), "; 2 malformed lines skipped");
    }
}
