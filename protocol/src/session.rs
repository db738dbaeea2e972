//! The controller: owns the engine, the current position, the ban list and
//! the options, and turns each [`Command`] into engine calls and reply
//! lines.
//!
//! It runs on its own thread, fed by the reader over a channel. While idle
//! it handles commands in arrival order. While a search runs (on the
//! engine's worker) it waits in one `select!` for the next input line or
//! the end of the search, whichever comes first: `isready`, `stop`,
//! `ponderhit`, `probe`, `quit` and EOF act at once, every other line is
//! queued until the final line (`docs/ucci.md` §9 c; in batch mode nearly
//! everything waits). Exactly one final line is printed per `go`: it is
//! held back while pondering, or for `go infinite`, until `ponderhit` or
//! `stop`. A `go perft` counts on a thread of its own in the same way, so
//! that a deep count can be stopped.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use board::{Color, Move, Outcome, Position, Reason};
use crossbeam_channel::{Receiver, TryRecvError, never, select_biased};
use engine::{Clock, Engine, Event, Favoured, Limits, SearchHandle, SearchResult};

use crate::command::{
    Base, Command, Depth, GoCommand, MAX_TIME_MS, ParseError, PositionSpec, quote,
};
use crate::notation::Notation;
use crate::options::{Action, DEFAULT_NETWORK, Dialect, Options};
use crate::output::{self, Output};

/// What the reader sends: a parsed line, or the end of input.
#[derive(Debug)]
pub enum Input {
    /// One input line, parsed.
    Line(Result<Command, ParseError>),
    /// End of stdin (or a read error): acts as `quit`.
    Eof,
}

/// `currmove` lines start after this long (or at once in debug mode).
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

/// A search in progress, with what is needed to check and print its
/// final line.
struct Running {
    handle: SearchHandle,
    /// Disconnects when the worker has finished ([`Engine::finished`]).
    finished: Receiver<()>,
    /// The searched position.
    pos: Position,
    /// The moves the search may play (legal, unbanned, in `searchmoves`).
    allowed: Vec<Move>,
    /// Pondering and not yet hit: the final line waits.
    pondering: bool,
    /// `go infinite` (or no limit): the final line waits for `stop`.
    infinite: bool,
    /// The GUI offered a draw (`go draw`, `ponderhit draw`).
    draw_offered: bool,
    /// The book move this search is checking.
    book: Option<Move>,
    /// The result, once the worker has finished.
    result: Option<SearchResult>,
    /// Rule names already announced by the event callback.
    rules_said: Arc<Mutex<Vec<Reason>>>,
}

impl Running {
    /// Whether the final line must still wait although the worker ended.
    fn holds(&self) -> bool {
        self.pondering || self.infinite
    }

    /// Whether the worker has finished (its result can be collected
    /// without waiting).
    fn worker_done(&self) -> bool {
        self.finished.try_recv() == Err(TryRecvError::Disconnected)
    }

    /// What to wait on for the worker's end: its channel until the result
    /// is collected, then nothing (a disconnected channel is always ready).
    fn worker_end(&self) -> Receiver<()> {
        if self.result.is_none() {
            self.finished.clone()
        } else {
            never()
        }
    }
}

/// A `go perft` counting on its own thread. The thread sends the text
/// (`None` when stopped) and the session prints it when it collects the
/// job, so output stays in the session's order.
struct PerftJob {
    stop: Arc<AtomicBool>,
    /// The count's text; disconnected without one if the thread panicked.
    result: Receiver<Option<String>>,
    thread: JoinHandle<()>,
}

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

/// Whether the session goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

/// The controller's state.
pub struct Session {
    out: Output,
    dialect: Dialect,
    options: Options,
    engine: Engine,
    /// `None` after a rejected `position`: every `go` then answers no move.
    position: Option<Position>,
    bans: Vec<Move>,
    book: Option<book::BookSet>,
    search: Option<Running>,
    perft: Option<PerftJob>,
    queue: VecDeque<Input>,
    /// Varies book choices from game to game.
    book_seed: u64,
    /// The network `evalfile` names (evaluating when `usennue` is on).
    network: Option<Arc<engine::nnue::Network>>,
}

impl Session {
    /// A session writing to `out`, in the UCI dialect until a handshake,
    /// at the start position.
    pub fn new(out: Output) -> Session {
        let options = Options::default();
        // The default spec is the built-in book, which always opens.
        let (book, _) = book::BookSet::open_available(&options.bookfiles);
        let book = (!book.is_empty()).then_some(book);
        let book_seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9e37_79b9, |d| {
                u64::try_from(d.as_nanos() & u128::from(u64::MAX)).unwrap_or(0)
            });
        Session {
            out,
            dialect: Dialect::Uci,
            options,
            engine: Engine::new(),
            position: Some(Position::startpos()),
            bans: Vec::new(),
            book,
            search: None,
            perft: None,
            queue: VecDeque::new(),
            book_seed,
            network: engine::nnue::embedded(),
        }
    }

    /// Runs until `quit` or end of input.
    pub fn run(mut self, input: &Receiver<Input>) {
        // The reader sends `Eof` before it goes, so once the channel is
        // disconnected the end of input has been handled (or queued)
        // already, and a running job is waited for alone.
        let mut input_open = true;
        loop {
            let flow = if self.search.is_some() || self.perft.is_some() {
                let lines = if input_open { input.clone() } else { never() };
                let search_end = self.search.as_ref().map_or_else(never, Running::worker_end);
                let perft_end = self.perft.as_ref().map_or_else(never, |j| j.result.clone());
                // Biased, input first: a line that arrived before the end
                // of the job was noticed is still handled as during it
                // (a `stop` then answers with the job's own final line).
                select_biased! {
                    recv(lines) -> item => match item {
                        Ok(item) if self.search.is_some() => self.during_search(item),
                        Ok(item) => self.during_perft(item),
                        Err(_) => {
                            input_open = false;
                            Flow::Continue
                        }
                    },
                    recv(search_end) -> _ => {
                        self.collect_search();
                        Flow::Continue
                    }
                    recv(perft_end) -> result => {
                        self.finish_perft(result.ok());
                        Flow::Continue
                    }
                }
            } else if let Some(item) = self.queue.pop_front() {
                self.idle(item)
            } else {
                match input.recv() {
                    Ok(item) => self.idle(item),
                    Err(_) => self.idle(Input::Eof),
                }
            };
            if flow == Flow::Quit {
                return;
            }
        }
    }

    fn diag(&self, text: &str) {
        self.out.diagnostic(text);
    }

    /// Handles one input while a search runs.
    fn during_search(&mut self, item: Input) -> Flow {
        let Some(run) = self.search.as_ref() else {
            return self.idle(item);
        };
        let own_limitless = run.holds();
        let acts = match &item {
            Input::Eof | Input::Line(Ok(Command::Quit | Command::Stop)) => {
                !self.options.batch || own_limitless
            }
            Input::Line(Ok(Command::PonderHit { .. })) => !self.options.batch || run.pondering,
            Input::Line(Ok(Command::IsReady | Command::Probe(_))) => !self.options.batch,
            Input::Line(Ok(Command::Empty)) => return Flow::Continue,
            _ => false,
        };
        if !acts {
            if self.options.debug {
                self.diag("queued until the search ends");
            }
            self.queue.push_back(item);
            return Flow::Continue;
        }
        match item {
            Input::Line(Ok(Command::IsReady)) => self.out.line("readyok"),
            Input::Line(Ok(Command::Probe(spec))) => self.probe(spec.as_ref()),
            Input::Line(Ok(Command::Stop)) => self.stop_search(),
            Input::Line(Ok(Command::PonderHit { draw })) => self.ponderhit(draw),
            _ => {
                self.stop_search();
                return self.quit();
            }
        }
        Flow::Continue
    }

    /// Handles one input while a `go perft` counts: `isready` is answered,
    /// `stop` ends the count, `quit` and EOF end it and the session; the
    /// rest waits for the count (everything does in batch mode).
    fn during_perft(&mut self, item: Input) -> Flow {
        match item {
            Input::Line(Ok(Command::Empty)) => {}
            _ if self.options.batch => self.queue.push_back(item),
            Input::Line(Ok(Command::IsReady)) => self.out.line("readyok"),
            Input::Line(Ok(Command::Stop)) => self.stop_perft(),
            Input::Eof | Input::Line(Ok(Command::Quit)) => {
                self.stop_perft();
                return self.quit();
            }
            other => {
                if self.options.debug {
                    self.diag("queued until perft ends");
                }
                self.queue.push_back(other);
            }
        }
        Flow::Continue
    }

    /// Stops the `go perft` thread, waits for it and prints what it
    /// counted (or that it was stopped).
    fn stop_perft(&mut self) {
        if let Some(job) = &self.perft {
            job.stop.store(true, Ordering::Relaxed);
            let result = job.result.recv().ok();
            self.finish_perft(result);
        }
    }

    /// Prints what the `go perft` thread sent (`None`: it sent nothing,
    /// having panicked) and collects the thread.
    fn finish_perft(&mut self, result: Option<Option<String>>) {
        let Some(job) = self.perft.take() else {
            return;
        };
        // The thread has sent (or died): this join returns at once.
        let _ = job.thread.join();
        match result {
            Some(Some(text)) => self.out.line(&text),
            Some(None) => self.diag("perft stopped"),
            None => self.diag("perft failed"),
        }
    }

    /// Collects the worker's result once it has finished, and prints the
    /// final line unless it must be held.
    fn collect_search(&mut self) {
        let Some(run) = self.search.as_mut() else {
            return;
        };
        if run.result.is_none() && run.worker_done() {
            run.result = Some(self.engine.wait());
        }
        if run.result.is_some() && !run.holds() {
            self.finish();
        }
    }

    fn stop_search(&mut self) {
        let Some(run) = self.search.as_mut() else {
            return;
        };
        run.handle.stop();
        if run.result.is_none() {
            run.result = Some(self.engine.wait());
        }
        run.pondering = false;
        run.infinite = false;
        self.finish();
    }

    fn ponderhit(&mut self, draw: bool) {
        let Some(run) = self.search.as_mut() else {
            return;
        };
        if !run.pondering {
            if self.options.debug {
                self.diag("ponderhit ignored: not pondering");
            }
            return;
        }
        run.handle.ponderhit();
        run.pondering = false;
        run.draw_offered |= draw;
        self.collect_search();
    }

    /// Prints the final line of the running search and returns to idle.
    fn finish(&mut self) {
        let Some(run) = self.search.take() else {
            return;
        };
        let result = run.result.unwrap_or_else(|| self.engine.wait());
        if self.dialect == Dialect::Ucci {
            self.out.line(&output::time_nodes_line(
                result.time.as_millis(),
                result.nodes,
            ));
        }
        if let Some(reason) = result.rule {
            let said = run
                .rules_said
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .contains(&reason);
            if !said {
                self.diag(&format!(
                    "score from a rule: {}",
                    output::reason_text(reason)
                ));
            }
        }
        let best = match result.best {
            Some(m) if run.allowed.contains(&m) => Some(m),
            Some(m) => {
                self.diag(&format!(
                    "search returned {}, which is not allowed here; playing another move",
                    self.notation().show(m)
                ));
                run.allowed.first().copied()
            }
            None => run.allowed.first().copied(),
        };
        let Some(best) = best else {
            self.out.line(output::no_move_line(self.dialect));
            return;
        };
        let notation = self.notation();
        if let Some(book) = run.book
            && book != best
        {
            self.diag(&format!(
                "book move {} overruled: the search prefers {} by more than {BOOK_MARGIN} cp",
                notation.show(book),
                notation.show(best)
            ));
        }
        let mut after = run.pos.clone();
        after.make_move(best);
        let ponder = result
            .ponder
            .filter(|&p| result.best == Some(best) && after.is_legal(p));
        let draw = self.dialect == Dialect::Ucci
            && run.draw_offered
            && output::score_value(result.score) <= 0;
        self.out
            .line(&output::bestmove_line(notation, best, ponder, draw));
    }

    fn quit(&self) -> Flow {
        if self.dialect == Dialect::Ucci {
            self.out.line("bye");
        }
        Flow::Quit
    }

    /// Handles one input while idle.
    fn idle(&mut self, item: Input) -> Flow {
        let command = match item {
            Input::Eof => return self.quit(),
            Input::Line(Err(ParseError::BadPosition(why))) => {
                self.position = None;
                self.bans.clear();
                self.diag(&format!(
                    "position rejected: {why}; no valid position until the next position command"
                ));
                return Flow::Continue;
            }
            Input::Line(Err(e)) => {
                self.diag(&e.to_string());
                return Flow::Continue;
            }
            Input::Line(Ok(command)) => command,
        };
        match command {
            Command::Empty => {}
            Command::Ucci => self.handshake(Dialect::Ucci),
            Command::Uci => self.handshake(Dialect::Uci),
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption(set) => self.set_option(&set.name, set.value.as_deref()),
            Command::Position(spec) => self.set_position(&spec),
            Command::BanMoves(moves) => self.ban(&moves),
            Command::Go(go) => self.go(&go),
            Command::Perft(depth) => self.perft(depth),
            Command::PonderHit { .. } => {
                if self.options.debug {
                    self.diag("ponderhit ignored: not pondering");
                }
            }
            Command::Stop => {
                if self.dialect == Dialect::Ucci {
                    self.out.line("nobestmove");
                }
            }
            Command::NewGame => self.engine.new_game(),
            Command::Debug(on) => self.options.debug = on,
            Command::Probe(spec) => self.probe(spec.as_ref()),
            Command::Quit => return self.quit(),
            Command::Display => match &self.position {
                Some(pos) => self.out.line(&output::display(pos)),
                None => self.diag("no valid position"),
            },
            Command::Eval => match &self.position {
                Some(pos) => {
                    self.out.line(engine::eval_trace(pos).trim_end());
                    if let Some(net) = &self.network {
                        let used = if self.options.use_nnue {
                            "used"
                        } else {
                            "not used"
                        };
                        self.out.line(&format!(
                            "NNUE evaluation: {} (side to move; {used})",
                            net.evaluate(pos)
                        ));
                    }
                }
                None => self.diag("no valid position"),
            },
            Command::Bench => self.bench(),
        }
        Flow::Continue
    }

    fn handshake(&mut self, dialect: Dialect) {
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

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let old_hash = self.options.hash_mb;
        let applied = self.options.set(self.dialect, name, value);
        for d in &applied.diagnostics {
            self.diag(d);
        }
        match applied.action {
            None => {}
            Some(Action::ResizeHash(mb)) => {
                if let Some(free) =
                    available_mb().filter(|&free| mb > free.saturating_add(old_hash))
                {
                    self.options.hash_mb = old_hash;
                    self.diag(&format!("hash size {mb} MB refused (about {free} MB of memory free); keeping {old_hash} MB"));
                } else if let Err(e) = self.engine.set_hash_mb(mb) {
                    self.options.hash_mb = old_hash;
                    self.diag(&format!(
                        "hash size {mb} MB refused ({e}); keeping {old_hash} MB"
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
        }
    }

    /// Gives the engine the loaded network, or none when `usennue` is off.
    fn choose_evaluation(&mut self) {
        let net = self.network.clone().filter(|_| self.options.use_nnue);
        self.engine.set_network(net);
    }

    /// Loads the network an `evalfile` value names (`<builtin>` or empty:
    /// the embedded one). A file that does not load leaves the current
    /// network playing, and says why.
    fn load_network(&mut self, spec: &str) {
        let spec = spec.trim();
        let loaded = if spec.is_empty() || spec.eq_ignore_ascii_case(DEFAULT_NETWORK) {
            engine::nnue::embedded().ok_or_else(|| "this build embeds no network".to_string())
        } else {
            engine::nnue::Network::load(std::path::Path::new(spec))
                .map(Arc::new)
                .map_err(|e| e.to_string())
        };
        match loaded {
            Ok(net) => {
                self.diag(&format!("evalfile {}: {}", quote(spec), net.describe()));
                self.options.evalfile = spec.to_string();
                self.network = Some(net);
                self.choose_evaluation();
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

    /// The notation moves are read and written in.
    fn notation(&self) -> Notation {
        self.options.notation
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
        self.book = (!set.is_empty()).then_some(set);
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

    fn set_position(&mut self, spec: &PositionSpec) {
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

    fn ban(&mut self, moves: &[String]) {
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

    fn probe(&self, spec: Option<&PositionSpec>) {
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
                line.push_str(&format!(" lowerbound {} depth {d}", output::table_score(v)));
            }
            if let Some((v, d)) = found.upper {
                line.push_str(&format!(" upperbound {} depth {d}", output::table_score(v)));
            }
        }
        self.out.line(&line);
    }

    /// Starts `go perft` on its own thread (see [`Session::during_perft`]).
    fn perft(&mut self, depth: u32) {
        let Some(pos) = &self.position else {
            self.diag("no valid position");
            return;
        };
        let mut pos = pos.clone();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let notation = self.notation();
        let (sender, result) = crossbeam_channel::bounded(1);
        let mut count = move || {
            let divide = pos.divide_until(depth, &|| flag.load(Ordering::Relaxed))?;
            let mut text = String::new();
            let total = if depth == 0 {
                1
            } else {
                for &(m, n) in &divide {
                    text.push_str(&format!("{}: {n}\n", notation.show(m)));
                }
                text.push('\n');
                divide.iter().map(|(_, n)| n).sum()
            };
            text.push_str(&format!("Nodes searched: {total}"));
            Some(text)
        };
        let thread = std::thread::spawn(move || {
            // The session holds the receiver until it has this.
            let _ = sender.send(count());
        });
        self.perft = Some(PerftJob {
            stop,
            result,
            thread,
        });
    }

    fn bench(&self) {
        let opts = engine::bench::BenchOptions::default();
        let result = self.out.with_writer(|w| engine::bench::run(&opts, w));
        if let Err(e) = result {
            self.diag(&format!("bench failed: {e}"));
        }
    }

    /// The moves a `go` may play: legal, not banned, and among
    /// `searchmoves` when those name any legal move.
    fn allowed_moves(&self, pos: &Position, go: &GoCommand) -> Vec<Move> {
        let mut allowed: Vec<Move> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !self.bans.contains(m))
            .collect();
        let mut only = Vec::new();
        for text in &go.searchmoves {
            match self.notation().read(pos, text) {
                Ok(m) => only.push(m),
                Err(e) => self.diag(&format!("searchmoves: {e}; ignored")),
            }
        }
        if !only.is_empty() {
            allowed.retain(|m| only.contains(m));
        }
        allowed
    }

    /// Converts a UCCI clock value to a duration (its unit follows
    /// `usemillisec`).
    fn ucci_time(&self, raw: u64) -> Duration {
        let ms = if self.options.usemillisec {
            raw
        } else {
            raw.saturating_mul(1000)
        };
        Duration::from_millis(ms.min(MAX_TIME_MS))
    }

    /// The side to move's clock from the `go` tokens: UCCI `time` and UCI
    /// `wtime`/`btime` of the side to move mean the same, so the later of
    /// them counts (likewise `increment` and `winc`/`binc`). When only the
    /// other side's clock was given, that one, with a diagnostic.
    fn clock(&self, go: &GoCommand, side: Color) -> Option<Clock> {
        let order = go.clock_order;
        let ms = Duration::from_millis;
        let ((own, own_at), (own_inc, own_inc_at), other, other_inc) = match side {
            Color::Red => (
                (go.wtime, order.wtime),
                (go.winc, order.winc),
                go.btime,
                go.binc,
            ),
            Color::Black => (
                (go.btime, order.btime),
                (go.binc, order.binc),
                go.wtime,
                go.winc,
            ),
        };
        let time = later(
            (go.time.map(|t| self.ucci_time(t)), order.time),
            (own.map(ms), own_at),
        );
        let increment = later(
            (go.increment.map(|i| self.ucci_time(i)), order.increment),
            (own_inc.map(ms), own_inc_at),
        );
        let overhead = ms(self.options.move_overhead_ms);
        if let Some(time) = time {
            return Some(Clock {
                time,
                increment: increment.unwrap_or(Duration::ZERO),
                moves_to_go: go.movestogo,
                overhead,
            });
        }
        let t = other?;
        self.diag("go: no clock for the side to move; using the other side's");
        Some(Clock {
            time: ms(t),
            increment: ms(other_inc.unwrap_or(0)),
            moves_to_go: go.movestogo,
            overhead,
        })
    }

    fn go(&mut self, go: &GoCommand) {
        for w in &go.warnings {
            self.diag(w);
        }
        let none = output::no_move_line(self.dialect);
        let Some(pos) = self.position.clone() else {
            self.diag("no valid position: send a valid position first");
            self.out.line(none);
            return;
        };
        if let Outcome::Decided { winner, reason } = pos.outcome() {
            let who = match winner {
                Some(Color::Red) => "Red wins",
                Some(Color::Black) => "Black wins",
                None => "draw",
            };
            self.diag(&format!(
                "game over: {who} by {}",
                output::reason_text(reason)
            ));
        }
        if !pos.has_legal_move() {
            if self.dialect == Dialect::Uci {
                self.out.line("info depth 0 score mate 0");
            }
            self.out.line(none);
            return;
        }
        let allowed = self.allowed_moves(&pos, go);
        if allowed.is_empty() {
            self.diag("every legal move is banned or excluded");
            self.out.line(none);
            return;
        }
        if go.depth == Some(Depth::Plies(0)) {
            self.out.line(&output::depth_zero_line(
                self.dialect,
                engine::evaluate(&pos),
            ));
            self.out.line(none);
            return;
        }
        let clock = self.clock(go, pos.side_to_move());
        let limits = Limits {
            depth: match go.depth {
                // The engine's ply stack bounds the depth it can reach.
                Some(Depth::Plies(d)) => {
                    Some(d.min(u32::try_from(engine::search::MAX_PLY - 1).unwrap_or(d)))
                }
                _ => None,
            },
            nodes: go.nodes,
            movetime: go.movetime.map(Duration::from_millis),
            clock,
            mate: go.mate,
            infinite: go.infinite || !go.has_limit(),
            ponder: go.ponder,
            root_moves: if allowed.len() == pos.legal_moves().len() {
                Vec::new()
            } else {
                allowed.clone()
            },
            multipv: self.options.multipv.max(1),
            favoured: None,
        };
        let mut limits = limits;
        let book = self.book_move(&pos, &limits, &allowed);
        if let Some(mv) = book {
            limits = book_check_limits(limits, mv);
        }
        let rules_said = Arc::new(Mutex::new(Vec::new()));
        let callback = self.event_callback(Arc::clone(&rules_said));
        let infinite = limits.infinite;
        self.engine.start(pos.clone(), limits, callback);
        self.search = Some(Running {
            handle: self.engine.handle(),
            finished: self.engine.finished(),
            pos,
            allowed,
            pondering: go.ponder,
            infinite,
            draw_offered: go.draw,
            book,
            result: None,
            rules_said,
        });
    }

    /// The book's move for a clock-limited search, announced, when the book
    /// has one.
    fn book_move(&mut self, pos: &Position, limits: &Limits, allowed: &[Move]) -> Option<Move> {
        let clock_limited = limits.clock.is_some() || limits.movetime.is_some();
        let pure = limits.depth.is_none() && limits.nodes.is_none() && limits.mate.is_none();
        if !self.options.usebook
            || !clock_limited
            || !pure
            || limits.ponder
            || limits.infinite
            || limits.multipv > 1
        {
            return None;
        }
        let ply = (usize::from(pos.fullmove_number()).saturating_sub(1)) * 2
            + usize::from(pos.side_to_move() == Color::Black);
        if ply >= usize::try_from(self.options.bookdepth).unwrap_or(usize::MAX) {
            return None;
        }
        let set = self.book.as_ref()?;
        self.book_seed = self
            .book_seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let choice = set.choose(pos, self.options.bookvariety, self.book_seed)?;
        if !allowed.contains(&choice.mv) {
            return None;
        }
        let list: Vec<String> = choice
            .candidates
            .iter()
            .map(|&(m, w)| format!("{}({w})", self.notation().show(m)))
            .collect();
        self.diag(&format!(
            "book move {} among {}; checking it by search",
            self.notation().show(choice.mv),
            list.join(" ")
        ));
        Some(choice.mv)
    }

    /// The callback that prints the search's `info` lines from the worker
    /// thread.
    fn event_callback(&self, rules_said: Arc<Mutex<Vec<Reason>>>) -> Box<dyn FnMut(Event) + Send> {
        let out = self.out.clone();
        let dialect = self.dialect;
        let notation = self.notation();
        let style = output::InfoStyle {
            dialect,
            notation,
            multipv: self.options.multipv,
            wdl: self.options.show_wdl,
        };
        let debug = self.options.debug;
        let started = Instant::now();
        Box::new(move |event| match event {
            Event::Iteration(report) => {
                let Some(line) = output::report_line(&style, &report) else {
                    return;
                };
                out.line(&line);
                if let Some(reason) = report.rule {
                    let mut said = rules_said.lock().unwrap_or_else(PoisonError::into_inner);
                    if !said.contains(&reason) {
                        said.push(reason);
                        out.diagnostic(&format!(
                            "score from a rule: {}",
                            output::reason_text(reason)
                        ));
                    }
                }
                if dialect == Dialect::Ucci {
                    out.line(&output::time_nodes_line(
                        report.time.as_millis(),
                        report.nodes,
                    ));
                }
            }
            Event::CurrMove { mv, number, .. } => {
                if debug || started.elapsed() >= CURRMOVE_AFTER {
                    out.line(&output::currmove_line(dialect, notation, mv, number));
                }
            }
        })
    }
}

/// How far a move must beat the book move, in centipawns, for the search to
/// play it instead: opening moves of master games differ by less than this
/// in our evaluation, while a book entry that drops material is overruled.
const BOOK_MARGIN: i32 = 60;

/// The limits of the search that checks book move `mv`: the book move gets
/// a head start of [`BOOK_MARGIN`], and the search plans with half the clock
/// (and half the fixed time), since a book position needs less thought.
fn book_check_limits(mut limits: Limits, mv: Move) -> Limits {
    limits.favoured = Some(Favoured {
        mv,
        margin: BOOK_MARGIN,
    });
    if let Some(clock) = &mut limits.clock {
        clock.time /= 2;
        clock.increment /= 2;
    }
    if let Some(mt) = &mut limits.movetime {
        *mt /= 2;
    }
    limits
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

/// Of two values of the same meaning, each with where it stood in the line
/// (0 = absent), the one given later.
fn later<T>(a: (Option<T>, usize), b: (Option<T>, usize)) -> Option<T> {
    match (a, b) {
        ((Some(x), at_x), (Some(y), at_y)) => Some(if at_x > at_y { x } else { y }),
        ((x, _), (y, _)) => x.or(y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock_of(line: &str, side: Color) -> Option<Clock> {
        let Ok(Command::Go(go)) = line.parse::<Command>() else {
            panic!("{line:?} is not a go line");
        };
        let session = Session::new(Output::new(Box::new(std::io::sink())));
        session.clock(&go, side)
    }

    #[test]
    fn later_clock_token_of_the_same_meaning_wins() {
        let ms = Duration::from_millis;
        let time = |line: &str, side| clock_of(line, side).map(|c| (c.time, c.increment));
        // `time` and Red's `wtime` mean the same when Red is to move.
        assert_eq!(
            time("go time 60000 wtime 100", Color::Red),
            Some((ms(100), ms(0)))
        );
        assert_eq!(
            time("go wtime 100 time 60000", Color::Red),
            Some((ms(60000), ms(0)))
        );
        // `btime` is Black's: it does not override `time` for Red.
        assert_eq!(
            time("go time 60000 btime 100", Color::Red),
            Some((ms(60000), ms(0)))
        );
        assert_eq!(
            time("go btime 100 time 60000 increment 5 binc 7", Color::Black),
            Some((ms(60000), ms(7)))
        );
        assert_eq!(
            time("go wtime 100 winc 3 btime 900", Color::Red),
            Some((ms(100), ms(3)))
        );
        // Only the other side's clock: used, with a diagnostic.
        assert_eq!(
            time("go btime 900 binc 9", Color::Red),
            Some((ms(900), ms(9)))
        );
        assert_eq!(time("go depth 3", Color::Red), None);
    }
}
