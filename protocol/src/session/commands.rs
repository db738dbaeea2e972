//! The commands a session carries out at once, whatever the dialect: the
//! handshake, options (hash size, threads, books, network), `position` and
//! `banmoves`, `probe` and `bench`. Each changes or shows the session's
//! state and returns; `go` and `go perft` start jobs instead
//! ([`super::go`], [`super::jobs`]).

use board::Position;

use super::Session;
use crate::command::{Base, PositionSpec, quote};
use crate::notation::Notation;
use crate::options::{Action, Dialect};
use crate::output;

/// The memory the system could still give us, in MB, where the system
/// says (Linux `MemAvailable`). A table larger than this would not fail to
/// allocate under overcommit; it would get the process killed while being
/// cleared, so the session refuses it up front.
fn available_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

impl Session {
    pub(super) fn handshake(&mut self, dialect: Dialect) {
        self.dialect = dialect;
        let mut lines = vec![
            format!("id name Chariot {}", env!("CARGO_PKG_VERSION")),
            format!("id author {}", env!("CARGO_PKG_AUTHORS")),
        ];
        lines.extend(crate::options::advertise(dialect));
        lines.push(match dialect {
            Dialect::Ucci => "ucciok".to_string(),
            Dialect::Uci => "uciok".to_string(),
        });
        for line in lines {
            self.out.line(&line);
        }
    }

    pub(super) fn set_option(&mut self, name: &str, value: Option<&str>) {
        let old_kib = self.options.tt_size_kib;
        let applied = self.options.set(self.dialect, name, value);
        for d in &applied.diagnostics {
            self.diag(d);
        }
        match applied.action {
            None => {}
            Some(Action::ResizeHash(mb)) => {
                // Messages report what the table really holds: the size
                // asked for may have been rounded down, and a refused one
                // leaves the old table, whatever was asked before it.
                let name = applied.name;
                let held = self.engine.hash_mb();
                if let Some(free) = available_mb().filter(|&free| mb > free.saturating_add(held)) {
                    self.options.hash_mb = held;
                    self.diag(&format!(
                        "option {name}: {mb} MB refused (about {free} MB of memory free); the table stays at {held} MB"
                    ));
                } else if let Err(e) = self.engine.set_hash_mb(mb) {
                    let held = self.engine.hash_mb();
                    self.options.hash_mb = held;
                    self.diag(&format!(
                        "option {name}: {mb} MB refused ({e}); the table stays at {held} MB"
                    ));
                } else {
                    let got = self.engine.hash_mb();
                    self.options.hash_mb = got;
                    if got != mb {
                        // The table has a power-of-two number of buckets.
                        self.diag(&format!(
                            "option {name}: {mb} MB asked, {got} MB allocated (a power of two of buckets)"
                        ));
                    }
                }
            }
            Some(Action::ResizeHashKib(kib)) => {
                let name = applied.name;
                let held_kib = self.engine.hash_kib();
                if let Some(free) =
                    available_mb().filter(|&free| kib / 1024 > free.saturating_add(held_kib / 1024))
                {
                    self.options.tt_size_kib = old_kib;
                    self.diag(&format!(
                        "option {name}: {kib} KiB refused (about {free} MB of memory free); the table stays at {held_kib} KiB"
                    ));
                } else if let Err(e) = self.engine.set_hash_kib(kib) {
                    self.options.tt_size_kib = old_kib;
                    let got = self.engine.hash_kib();
                    self.diag(&format!(
                        "option {name}: {kib} KiB refused ({e}); the table stays at {got} KiB"
                    ));
                } else if self.engine.hash_kib() != kib {
                    let got = self.engine.hash_kib();
                    self.diag(&format!(
                        "option {name}: {kib} KiB asked, {got} KiB allocated (a power of two of buckets)"
                    ));
                }
            }
            Some(Action::SetThreads(n)) => {
                if let Err(e) = self.engine.set_threads(n) {
                    let running = self.engine.threads().max(1);
                    self.options.threads = running;
                    self.diag(&format!(
                        "threads {n} refused ({e}); searching with {running}"
                    ));
                }
            }
            Some(Action::NewGame) => self.engine.new_game(),
            Some(Action::OpenBook(spec)) => self.open_books(&spec),
            Some(Action::LoadNetwork(spec)) => self.load_network(&spec),
            Some(Action::UseNetwork) => self.choose_evaluation(),
            Some(Action::SetExperiment) => {
                if let Err(e) = self.engine.set_experiment(self.options.experiment()) {
                    self.diag(&format!("table experiment refused ({e})"));
                }
            }
        }
    }

    /// Tells the engine whether its network evaluates (`usennue`).
    fn choose_evaluation(&mut self) {
        self.engine.set_use_network(self.options.use_nnue);
    }

    /// Loads the network an `evalfile` value names (read as the command
    /// line's `--eval` is: [`engine::nnue::EvalSource`]). A file that does
    /// not load leaves the current network playing, and says why.
    fn load_network(&mut self, spec: &str) {
        let spec = spec.trim();
        match engine::nnue::EvalSource::parse(spec).load() {
            Ok(net) => {
                let described = net.as_ref().map_or_else(
                    || "the hand-written evaluation".to_string(),
                    |n| n.describe(),
                );
                self.diag(&format!("evalfile {}: {described}", quote(spec)));
                self.options.evalfile = spec.to_string();
                self.engine.set_network(net);
            }
            Err(e) => {
                let current = self.options.evalfile.clone();
                self.diag(&format!(
                    "evalfile {}: {e}; keeping {}",
                    quote(spec),
                    quote(&current)
                ));
            }
        }
    }
    /// Opens the books of a `bookfiles` value: plays from those that open
    /// and names each that does not, with the whole reason (the OS's words
    /// are never cut).
    fn open_books(&mut self, spec: &str) {
        let (set, failed) = book::BookSet::open_available(spec);
        let left = match set.books().len() {
            0 => "playing without a book".to_string(),
            1 => "using the 1 book that opened".to_string(),
            n => format!("using the {n} books that opened"),
        };
        for e in &failed {
            self.diag(&format!("{}; {left}", book_failure(e)));
        }
        self.book = set;
    }

    /// Builds the position a `position` or `probe` line describes, reading
    /// its moves in `notation`.
    fn build_position(spec: &PositionSpec, notation: Notation) -> Result<Position, String> {
        let mut pos = match &spec.base {
            Base::StartPos => Position::startpos(),
            Base::Fen(fen) => Position::from_fen(fen).map_err(|e| format!("invalid FEN ({e})"))?,
        };
        for (i, text) in spec.moves.iter().enumerate() {
            let m = notation
                .read(&pos, text)
                .map_err(|e| format!("move {} of the list: {e}", i + 1))?;
            pos.make_move(m);
        }
        Ok(pos)
    }

    pub(super) fn set_position(&mut self, spec: &PositionSpec) {
        self.bans.clear();
        match Session::build_position(spec, self.notation()) {
            Ok(pos) => self.position = Some(pos),
            Err(why) => {
                self.position = None;
                self.diag(&format!(
                    "position rejected: {why}; no valid position until the next position command"
                ));
            }
        }
    }

    pub(super) fn ban(&mut self, moves: &[String]) {
        let Some(pos) = &self.position else {
            self.diag("banmoves rejected: no valid position");
            return;
        };
        let mut bans = Vec::with_capacity(moves.len());
        for text in moves {
            match self.notation().read(pos, text) {
                Ok(m) => bans.push(m),
                Err(e) => {
                    self.diag(&format!("banmoves rejected: {e}; ban list unchanged"));
                    return;
                }
            }
        }
        self.bans = bans;
    }

    pub(super) fn probe(&self, spec: Option<&PositionSpec>) {
        let notation = self.notation();
        let Some(pos) = spec.and_then(|s| Session::build_position(s, notation).ok()) else {
            self.out.line("pophash");
            return;
        };
        let mut line = String::from("pophash");
        if let Some(found) = self.engine.probe(&pos) {
            if let Some(m) = found.best.filter(|&m| pos.is_legal(m)) {
                line.push_str(&format!(" bestmove {}", notation.show(m)));
            }
            if let Some((v, d)) = found.lower {
                line.push_str(&format!(" lowerbound {} depth {d}", output::score_value(v)));
            }
            if let Some((v, d)) = found.upper {
                line.push_str(&format!(" upperbound {} depth {d}", output::score_value(v)));
            }
        }
        self.out.line(&line);
    }
    pub(super) fn bench(&self) {
        let opts = engine::bench::BenchOptions::default();
        let result = self.out.with_writer(|w| crate::bench::run(&opts, w));
        if let Err(e) = result {
            self.diag(&format!("bench failed: {e}"));
        }
    }
}

/// Why a book did not open, naming it: the path shortened in the middle
/// when long (it is the GUI's input, of any length), the reason whole.
fn book_failure(e: &book::BookError) -> String {
    use book::BookError;
    const MAX_PATH: usize = 80;
    let (path, reason) = match e {
        BookError::Io { path, source } => (path, source.to_string()),
        BookError::InFile { path, error } => (path, error.to_string()),
        other => return format!("book not opened: {other}"),
    };
    let path = path.to_string_lossy();
    let chars: Vec<char> = path.chars().collect();
    let shown = if chars.len() > MAX_PATH {
        let head: String = chars[..MAX_PATH / 2].iter().collect();
        let tail: String = chars[chars.len() - MAX_PATH / 2..].iter().collect();
        format!("{head}...{tail}")
    } else {
        path.into_owned()
    };
    format!("book {shown} not opened: {reason}")
}
