//! Records what `chariot --version` reports besides the version: the git
//! commit the binary was built from and the build date. Both fall back
//! gracefully, so a source tarball without `.git` (or a machine without
//! git) still builds: the commit is then `unknown`. Uncommitted changes are
//! not flagged: the script reruns only when the commit moves.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    // Only our own repository counts: a tarball unpacked inside some other
    // repository must not report that one's commit.
    let ours = git(&["rev-parse", "--show-toplevel"]).is_some_and(|top| {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        match (Path::new(&top).canonicalize(), workspace.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    });
    let commit = ours
        .then(|| git(&["rev-parse", "--short", "HEAD"]))
        .flatten()
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=CHARIOT_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=CHARIOT_BUILD_DATE={}", build_date());
    // Run again when the checked-out commit moves: HEAD, the branch it
    // names, and packed refs. Without git, only when this script changes.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name])
            && Path::new(&path).exists()
        {
            println!("cargo:rerun-if-changed={path}");
        }
    }
}

/// The trimmed output of a successful `git` command run in this crate's
/// directory, or `None` (no git, no repository, an error).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    // A relative --git-path is relative to the crate directory.
    let text = if args.first() == Some(&"rev-parse") && args.get(1) == Some(&"--git-path") {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(text)
            .to_string_lossy()
            .into_owned()
    } else {
        text.to_string()
    };
    Some(text)
}

/// Today's date (UTC) as `YYYY-MM-DD`, or the date of `SOURCE_DATE_EPOCH`
/// when set (reproducible builds).
fn build_date() -> String {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .ok()
                .map(|d| d.as_secs())
        })
        .unwrap_or(0);
    let (y, m, d) = civil_from_days(i64::try_from(secs / 86_400).unwrap_or(0));
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (
        y,
        u32::try_from(m).unwrap_or(1),
        u32::try_from(d).unwrap_or(1),
    )
}
