//! Training data kept in the repository (`docs/nnue.md` §8): a directory
//! per network generation with xz-compressed games chunks and a
//! `MANIFEST.toml` that names, for each chunk, the exact command and seed
//! that made it, the commit and evaluation that played it, its counts and
//! its SHA-256.
//!
//! `chariot datagen --manifest FILE` appends its chunk to a manifest;
//! `chariot data check DIR` proves a directory against its manifest (every
//! checksum and count, by decoding every game) and prints the generation's
//! totals, duplicates across chunks removed as the trainer removes them;
//! `chariot data add DIR FROM` moves the chunks of another directory (one
//! datagen run's, played elsewhere: `tools/cluster`) into `DIR`, each
//! proved against its own manifest entry before it moves. This module is
//! the manifest's one writer. `check` reads a file of cases, the chunks:
//! a chunk that fails is named and the others are still proved, as
//! [`crate::cases`] says.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use engine::nnue::games::{self, Filters, Selector};

use crate::cases::{Leniency, Malformed, USAGE};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The manifest's file name in a data directory.
pub const MANIFEST: &str = "MANIFEST.toml";

/// A data directory's manifest.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The generation's name (the directory's).
    pub name: String,
    /// The data format.
    pub format: String,
    /// Earlier generations' directories, relative to this one
    /// (`"../chariot-5"`), whose chunks this generation trains on too:
    /// referenced, not copied. `data check` proves them with the chunks
    /// of this directory and `data files` lists them first, in this
    /// order. Their own references are not followed: a generation names
    /// every directory it trains on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier: Vec<String>,
    /// The chunks, in the order the trainer reads them.
    #[serde(default)]
    pub chunk: Vec<Chunk>,
}

/// One chunk: one `chariot datagen` run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// File name, relative to the manifest.
    pub file: String,
    /// SHA-256 of the file, hex.
    pub sha256: String,
    /// File size.
    pub bytes: u64,
    /// The command that wrote it, as run.
    pub command: String,
    /// `chariot --version` of the binary that ran it.
    pub engine: String,
    /// The evaluation of its searches.
    pub eval: String,
    /// Seed of its first game (game `i` uses `seed + i`).
    pub seed: u64,
    /// Games.
    pub games: u64,
    /// Plies.
    pub plies: u64,
    /// Plies searched (scored positions).
    pub scored: u64,
    /// Positions the default filters keep within the chunk.
    pub kept: u64,
    /// Wall time of the run, seconds.
    pub seconds: f64,
}

/// The data format's name in manifests.
const FORMAT: &str = "chariot games v1 (docs/nnue.md §3)";

/// SHA-256 of a file, hex.
///
/// # Errors
/// The file cannot be read.
pub fn sha256(path: &Path) -> Result<String> {
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    let mut hex = String::with_capacity(64);
    for b in hasher.finalize() {
        let _ = write!(hex, "{b:02x}");
    }
    Ok(hex)
}

/// Reads a manifest.
///
/// # Errors
/// The file cannot be read or is not a manifest.
pub fn read_manifest(path: &Path) -> Result<Manifest> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("{} is not a data manifest", path.display()))
}

/// Appends `chunk` to the manifest at `path`, creating it (named after its
/// directory) when there is none.
///
/// # Errors
/// The manifest exists but is not one, names the chunk's file already,
/// or cannot be written.
pub fn append_chunk(path: &Path, chunk: Chunk) -> Result<()> {
    let mut manifest = if path.exists() {
        read_manifest(path)?
    } else {
        let name = path
            .parent()
            .and_then(Path::file_name)
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        Manifest {
            name,
            format: FORMAT.to_string(),
            earlier: Vec::new(),
            chunk: Vec::new(),
        }
    };
    if manifest.chunk.iter().any(|c| c.file == chunk.file) {
        bail!("{} already lists {}", path.display(), chunk.file);
    }
    manifest.chunk.push(chunk);
    let text = toml::to_string(&manifest).context("cannot write the manifest as TOML")?;
    let header = "# Training data of one network generation: see docs/nnue.md §8.\n";
    std::fs::write(path, format!("{header}{text}"))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Arguments of `chariot data`.
#[derive(clap::Args)]
pub struct DataArgs {
    #[command(subcommand)]
    command: DataCommand,
}

#[derive(clap::Subcommand)]
enum DataCommand {
    /// Check a data directory against its MANIFEST.toml: every chunk's
    /// checksum and counts, every game replayed; print the totals.
    Check {
        /// The directory (holding MANIFEST.toml).
        dir: PathBuf,
        #[command(flatten)]
        leniency: Leniency,
    },
    /// List the chunk files a generation trains on, one path a line: the
    /// earlier generations' it references first, then its own (for
    /// `chariot-train train $(chariot data files DIR) …`).
    Files {
        /// The directory (holding MANIFEST.toml).
        dir: PathBuf,
    },
    /// Move the chunks of another data directory (such as one made by
    /// `chariot datagen --manifest`) into DIR and append them to DIR's
    /// MANIFEST.toml, each checked against its own entry first.
    Add {
        /// The directory that receives the chunks (created if missing).
        dir: PathBuf,
        /// The directory whose MANIFEST.toml lists the chunks to move.
        from: PathBuf,
    },
}

/// Runs `chariot data`.
pub fn run(args: &DataArgs) -> ExitCode {
    match &args.command {
        DataCommand::Check { dir, leniency } => {
            let mut malformed = Malformed::new("data check", *leniency);
            match check(dir, &mut malformed) {
                Ok(totals) if totals.chunks == 0 && malformed.count() == 0 => {
                    malformed.nothing_to_check(&dir.join(MANIFEST), "chunk")
                }
                Ok(totals) => {
                    // The work is done: a reader that went away only loses
                    // the report.
                    let _ = writeln!(std::io::stdout(), "{totals}{}", malformed.clause());
                    malformed.exit(true)
                }
                Err(e) => {
                    eprintln!("chariot data check: {e:#}");
                    ExitCode::from(USAGE)
                }
            }
        }
        DataCommand::Files { dir } => match chunks_of(dir) {
            Ok(chunks) => {
                let mut out = std::io::stdout().lock();
                for (at, c) in chunks {
                    // A reader that went away wants no more lines.
                    if writeln!(out, "{}", at.join(&c.file).display()).is_err() {
                        break;
                    }
                }
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("chariot data files: {e:#}");
                ExitCode::from(USAGE)
            }
        },
        DataCommand::Add { dir, from } => match add(dir, from) {
            Ok(chunks) => {
                let _ = writeln!(std::io::stdout(), "{}", added_text(dir, &chunks));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("chariot data add: {e:#}");
                ExitCode::FAILURE
            }
        },
    }
}

/// One line per added chunk.
fn added_text(dir: &Path, chunks: &[Chunk]) -> String {
    chunks
        .iter()
        .map(|c| {
            format!(
                "added {}: {} games, {} plies ({} searched), {} kept, seed {}",
                dir.join(&c.file).display(),
                c.games,
                c.plies,
                c.scored,
                c.kept,
                c.seed
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a data directory holds, once checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    /// The generation's name.
    pub name: String,
    /// Chunks.
    pub chunks: usize,
    /// Games, plies, scored plies.
    pub games: u64,
    /// Plies.
    pub plies: u64,
    /// Searched plies.
    pub scored: u64,
    /// Positions the default filters keep over the whole directory
    /// (duplicates across chunks dropped).
    pub kept: u64,
    /// Compressed bytes.
    pub bytes: u64,
    /// Of the chunks, those in earlier generations' directories.
    pub referenced: usize,
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        #[allow(clippy::cast_precision_loss)]
        let per = self.bytes as f64 / self.kept.max(1) as f64;
        write!(f, "{}: {} chunks verified", self.name, self.chunks)?;
        if self.referenced > 0 {
            write!(f, " ({} in earlier generations)", self.referenced)?;
        }
        write!(
            f,
            ", {} games, {} plies ({} searched), {} positions kept by the default filters, \
             {} bytes ({per:.2} bytes a kept position)",
            self.games, self.plies, self.scored, self.kept, self.bytes
        )
    }
}

/// Proves `dir` against its manifest (module docs): a chunk that fails
/// (missing, a checksum or count that differs, a game that does not
/// replay) is named through `malformed` and left out of the totals, and
/// the others are still proved.
///
/// # Errors
/// A missing or unreadable manifest.
pub fn check(dir: &Path, malformed: &mut Malformed) -> Result<Totals> {
    let manifest = read_manifest(&dir.join(MANIFEST))?;
    let mut totals = Totals {
        name: manifest.name.clone(),
        ..Totals::default()
    };
    let mut across = Selector::new(Filters::default());
    let here = normal(dir);
    for (at, c) in &chunks_of(dir)? {
        match verify_chunk(at, c, &mut across) {
            Ok((games, plies, scored)) => {
                totals.chunks += 1;
                totals.referenced += usize::from(*at != here);
                totals.games += games;
                totals.plies += plies;
                totals.scored += scored;
                totals.bytes += c.bytes;
            }
            Err(e) => malformed.report(&at.join(&c.file), 0, format_args!("{e:#}")),
        }
    }
    totals.kept = across.kept;
    Ok(totals)
}

/// The chunks a generation trains on, each with the directory it lies
/// in: those of its `earlier` directories (their manifests read), then
/// its own.
///
/// # Errors
/// A manifest that cannot be read, this one's or an earlier one's.
pub fn chunks_of(dir: &Path) -> Result<Vec<(PathBuf, Chunk)>> {
    let manifest = read_manifest(&dir.join(MANIFEST))?;
    let mut out = Vec::new();
    for earlier in &manifest.earlier {
        let at = normal(&dir.join(earlier));
        let theirs = read_manifest(&at.join(MANIFEST))
            .with_context(|| format!("earlier generation {earlier} of {}", dir.display()))?;
        out.extend(theirs.chunk.into_iter().map(|c| (at.clone(), c)));
    }
    let here = normal(dir);
    out.extend(manifest.chunk.into_iter().map(|c| (here.clone(), c)));
    Ok(out)
}

/// `dir/../other` as `other`: the paths `data files` prints read as the
/// repository writes them. Purely lexical, as the directories are named
/// in the manifest.
fn normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

fn verify_chunk(dir: &Path, c: &Chunk, across: &mut Selector) -> Result<(u64, u64, u64)> {
    let plain = Path::new(&c.file)
        .file_name()
        .is_some_and(|n| n == c.file.as_str());
    if !plain || c.file.starts_with('.') {
        bail!(
            "the manifest names '{}': chunks are plain file names",
            c.file
        );
    }
    let path = dir.join(&c.file);
    let sum = sha256(&path)?;
    if sum != c.sha256 {
        bail!("{}: SHA-256 {sum}, the manifest says {}", c.file, c.sha256);
    }
    let mut within = Selector::new(Filters::default());
    let (mut games, mut plies, mut scored) = (0u64, 0u64, 0u64);
    for game in games::open(&path).with_context(|| format!("in {}", c.file))? {
        let game = game.with_context(|| format!("in {}", c.file))?;
        games += 1;
        plies += game.plies.len() as u64;
        scored += game.scored() as u64;
        game.replay(|pos, ply| {
            let _ = within.judge(pos, ply);
            let _ = across.judge(pos, ply);
        })
        .map_err(|e| anyhow::anyhow!("{}: {e}", c.file))?;
    }
    let found = (games, plies, scored, within.kept);
    let listed = (c.games, c.plies, c.scored, c.kept);
    if found != listed {
        bail!(
            "{}: games, plies, searched, kept are {found:?}; the manifest says {listed:?}",
            c.file
        );
    }
    Ok((games, plies, scored))
}

/// Moves the chunks listed in `from`'s manifest into `dir` and appends
/// their entries, unchanged, to `dir`'s manifest (module docs):
///
/// 1. every chunk is proved against its entry ([`check`]'s test) and its
///    name checked free in `dir`, before anything moves;
/// 2. each file is moved (renamed, or copied under a temporary name and
///    renamed where `from` is on another file system), then its entry
///    appended; a failed append takes the moved file back out.
///
/// Returns the entries added.
///
/// # Errors
/// `from` lists no chunk or one that does not prove; a name already in
/// `dir`'s manifest or directory; a file that cannot be moved; a manifest
/// that cannot be read or written.
pub fn add(dir: &Path, from: &Path) -> Result<Vec<Chunk>> {
    let source = read_manifest(&from.join(MANIFEST))?;
    if source.chunk.is_empty() {
        bail!("{} lists no chunk", from.join(MANIFEST).display());
    }
    let target = dir.join(MANIFEST);
    let mut taken: Vec<String> = if target.exists() {
        read_manifest(&target)?
            .chunk
            .into_iter()
            .map(|c| c.file)
            .collect()
    } else {
        Vec::new()
    };
    for c in &source.chunk {
        verify_chunk(from, c, &mut Selector::new(Filters::default()))?;
        if taken.contains(&c.file) || dir.join(&c.file).exists() {
            bail!("{} already holds a chunk named {}", dir.display(), c.file);
        }
        taken.push(c.file.clone());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for c in &source.chunk {
        let to = dir.join(&c.file);
        move_file(&from.join(&c.file), &to)?;
        if let Err(e) = append_chunk(&target, c.clone()) {
            let _ = std::fs::remove_file(&to);
            return Err(e);
        }
    }
    Ok(source.chunk)
}

/// Moves a file; across file systems, through a temporary name in the
/// target's directory, so the final name never holds a partial copy.
fn move_file(from: &Path, to: &Path) -> Result<()> {
    if std::fs::rename(from, to).is_ok() {
        return Ok(());
    }
    let part = to.with_extension("part");
    std::fs::copy(from, &part)
        .and_then(|_| std::fs::rename(&part, to))
        .with_context(|| format!("cannot move {} to {}", from.display(), to.display()))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&part);
        })?;
    let _ = std::fs::remove_file(from);
    Ok(())
}

/// The command line as run, each argument quoted for a POSIX shell when it
/// needs it, so that the manifest's command can be pasted back.
pub fn command_line() -> String {
    // The program as `chariot`, wherever the binary lay on the machine
    // that ran it (the manifest's `engine` names its version and commit).
    std::iter::once("chariot".to_string())
        .chain(std::env::args().skip(1))
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                a
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_append_and_round_trip() {
        let dir = test_support::scratch_dir("manifest");
        let path = dir.join(MANIFEST);
        let _ = std::fs::remove_file(&path);
        let chunk = |file: &str| Chunk {
            file: file.to_string(),
            sha256: "00".repeat(32),
            command: "chariot datagen --out 'a b.games.xz' --seed 5".to_string(),
            seed: 5,
            games: 3,
            seconds: 1.5,
            ..Chunk::default()
        };
        append_chunk(&path, chunk("a.games.xz")).expect("first");
        append_chunk(&path, chunk("b.games.xz")).expect("second");
        assert!(
            append_chunk(&path, chunk("a.games.xz")).is_err(),
            "listed twice"
        );
        let m = read_manifest(&path).expect("reads back");
        assert_eq!(m.chunk, vec![chunk("a.games.xz"), chunk("b.games.xz")]);
        assert_eq!(m.format, FORMAT);
        assert!(m.name.starts_with("chariot-manifest-"));
    }

    #[test]
    fn sha256_of_a_known_text() {
        let dir = test_support::scratch_dir("sha");
        let path = dir.join("abc");
        std::fs::write(&path, "abc").expect("write");
        let sum = sha256(&path).expect("sum");
        assert_eq!(
            sum,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
