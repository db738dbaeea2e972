//! The in-process engine for Python: `Engine` wraps `engine::Engine`
//! (no child process, no protocol text) with the options a user sets —
//! `hash`, `threads`, `level`/`elo` — and `analyse`, which runs one search
//! on the engine's own threads while the calling thread waits without the
//! GIL, handing progress to a callback as it comes.
//!
//! The seam to the engine crate is its public surface only: `Engine::start`
//! with `Limits` and an event callback, `Engine::handle` (the stop button,
//! usable from any thread), `Engine::wait` for the result, and
//! `engine::strength` for what a level means. A search is stopped by
//! `Engine.stop()` from another thread, by the callback returning `True`,
//! by the callback raising, or by Ctrl-C.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::Duration;

use crossbeam_channel::{RecvTimeoutError, select};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use engine::strength::{MAX_ELO, MAX_SKILL, MIN_ELO, StrengthOptions};
use engine::{
    Bound as ScoreBound, Engine as CoreEngine, Event, Limits, MAX_HASH_MB, MAX_THREADS, Report,
    Score as CoreScore, SearchHandle, SearchResult,
};

use crate::board::{Board, PyMove};
use crate::errors::{self, Kind};

/// How often the waiting thread looks for Ctrl-C while a search runs.
const SIGNAL_POLL: Duration = Duration::from_millis(50);

/// A score from the side to move's point of view: ``cp`` (centipawns) or
/// ``mate`` (moves to mate, negative when the side to move is mated; also
/// ``mate_plies``), and ``rule``, the rule behind a decisive or drawn
/// score when it is a verdict of the rules rather than a mate or an even
/// evaluation (``"perpetual check"``, ``"60-move limit"``, …).
#[pyclass(module = "chariot", frozen, eq)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Score {
    /// Centipawns, or `None` for a mate score.
    #[pyo3(get)]
    cp: Option<i32>,
    /// Plies to mate, signed; `None` for a centipawn score.
    #[pyo3(get)]
    mate_plies: Option<i32>,
    /// The rule behind the score, if one decides it.
    #[pyo3(get)]
    rule: Option<&'static str>,
}

impl Score {
    fn new(s: CoreScore, rule: Option<board::Reason>) -> Score {
        let (cp, mate_plies) = match s {
            CoreScore::Cp(c) => (Some(c), None),
            CoreScore::Mate(p) => (None, Some(p)),
        };
        Score {
            cp,
            mate_plies,
            rule: rule.map(board::Reason::name),
        }
    }
}

#[pymethods]
impl Score {
    /// Moves (not plies) to mate, as UCI counts them: positive when the
    /// side to move mates, negative when it is mated; ``None`` for a
    /// centipawn score.
    #[getter]
    fn mate(&self) -> Option<i32> {
        self.mate_plies
            .map(|p| if p > 0 { (p + 1) / 2 } else { -((-p + 1) / 2) })
    }

    /// Whether this is a mate (or rule win/loss) score.
    #[getter]
    fn is_mate(&self) -> bool {
        self.mate_plies.is_some()
    }

    fn __repr__(&self) -> String {
        let rule = self
            .rule
            .map(|r| format!(", rule={r:?}"))
            .unwrap_or_default();
        match (self.cp, self.mate_plies) {
            (Some(cp), _) => format!("Score(cp={cp}{rule})"),
            (None, Some(p)) => format!("Score(mate_plies={p}{rule})"),
            (None, None) => "Score()".to_string(),
        }
    }
}

/// One line of a search's progress or result: ``multipv`` (1 = best),
/// ``depth``, ``seldepth``, ``score``, ``bound`` (``"exact"``, ``"lower"``
/// or ``"upper"``), ``pv`` (the principal variation as ``Move`` objects),
/// ``nodes``, ``nps``, ``time`` (seconds) and ``hashfull`` (per mille).
#[pyclass(module = "chariot", frozen, get_all)]
#[derive(Clone, Debug)]
pub struct Info {
    /// 1-based line index.
    multipv: usize,
    /// Completed depth.
    depth: u32,
    /// Deepest ply reached.
    seldepth: u32,
    /// The line's score.
    score: Score,
    /// Exactness of the score.
    bound: &'static str,
    /// The principal variation.
    pv: Vec<PyMove>,
    /// Nodes so far.
    nodes: u64,
    /// Nodes per second.
    nps: u64,
    /// Seconds since the search started.
    time: f64,
    /// Table occupancy, per mille.
    hashfull: u32,
}

impl From<&Report> for Info {
    fn from(r: &Report) -> Info {
        Info {
            multipv: r.multipv,
            depth: r.depth,
            seldepth: r.seldepth,
            score: Score::new(r.score, r.rule),
            bound: match r.bound {
                ScoreBound::Exact => "exact",
                ScoreBound::Lower => "lower",
                ScoreBound::Upper => "upper",
            },
            pv: r.pv.iter().copied().map(PyMove).collect(),
            nodes: r.nodes,
            nps: r.nps,
            time: r.time.as_secs_f64(),
            hashfull: r.hashfull,
        }
    }
}

#[pymethods]
impl Info {
    fn __repr__(&self) -> String {
        let pv: Vec<String> = self.pv.iter().map(|m| m.0.to_string()).collect();
        format!(
            "<Info multipv {} depth {} score {} nodes {} pv {}>",
            self.multipv,
            self.depth,
            self.score.__repr__(),
            self.nodes,
            pv.join(" ")
        )
    }
}

/// A finished search: ``best`` (``None`` only without a legal move),
/// ``ponder`` (the expected reply), ``score``, ``depth``, ``nodes``,
/// ``time`` (seconds) and ``lines``, the last ``Info`` of each principal
/// variation, best first (one per ``multipv``).
#[pyclass(module = "chariot", frozen, get_all)]
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The best move.
    best: Option<PyMove>,
    /// The expected reply.
    ponder: Option<PyMove>,
    /// The best move's score.
    score: Score,
    /// Last completed depth.
    depth: u32,
    /// Nodes searched.
    nodes: u64,
    /// Seconds used.
    time: f64,
    /// The last report of each line, best first.
    lines: Vec<Info>,
}

#[pymethods]
impl Analysis {
    /// The principal variation of the best line (empty without one).
    #[getter]
    fn pv(&self) -> Vec<PyMove> {
        self.lines.first().map(|l| l.pv.clone()).unwrap_or_default()
    }

    fn __repr__(&self) -> String {
        let best = self
            .best
            .map_or_else(|| "None".to_string(), |m| m.0.to_string());
        format!(
            "<Analysis best {best} score {} depth {} nodes {}>",
            self.score.__repr__(),
            self.depth,
            self.nodes
        )
    }
}

/// What the options ask of every search.
#[derive(Clone, Copy, Debug)]
struct Settings {
    /// Skill 0–20.
    level: u8,
    /// `UCI_Elo`, when set (it decides the skill).
    elo: Option<u32>,
}

/// Chariot's engine, in this process: ``Engine(hash=16, threads=1,
/// level=20, elo=None)``. ``analyse`` searches a board; ``stop`` (from any
/// thread) ends the search running now; ``close`` (or leaving a ``with``
/// block) ends the search threads and frees the table, after which every
/// method raises ``EngineClosedError``. One search runs at a time: a second
/// thread's ``analyse`` raises ``EngineBusyError``.
///
/// ``level`` is the strength level 0–20 of the ``Skill Level`` option
/// (docs/lab/strength.md: a node budget from 1,000 nodes at 0, and below 12 a
/// draw among the best four lines); ``elo`` picks the level by the
/// measured ladder instead.
#[pyclass(module = "chariot", frozen, subclass)]
pub struct Engine {
    /// `None` once closed.
    inner: Mutex<Option<CoreEngine>>,
    /// Stops the engine's current search; reachable without the lock.
    handle: SearchHandle,
    settings: Mutex<Settings>,
    /// Varies the draw of a weakened level from search to search.
    seed: AtomicU64,
}

/// Locks a mutex, taking over a poisoned one (a panic elsewhere must not
/// make the engine unusable from Python).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    match m.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    }
}

fn engine_error(e: &engine::EngineError) -> PyErr {
    errors::err(Kind::Engine, e.to_string())
}

fn check_level(level: i64) -> PyResult<u8> {
    u8::try_from(level)
        .ok()
        .filter(|l| *l <= MAX_SKILL)
        .ok_or_else(|| PyValueError::new_err(format!("level {level} is not 0-{MAX_SKILL}")))
}

fn check_elo(elo: Option<i64>) -> PyResult<Option<u32>> {
    match elo {
        None => Ok(None),
        Some(e) => u32::try_from(e)
            .ok()
            .filter(|e| (MIN_ELO..=MAX_ELO).contains(e))
            .map(Some)
            .ok_or_else(|| PyValueError::new_err(format!("elo {e} is not {MIN_ELO}-{MAX_ELO}"))),
    }
}

impl Engine {
    /// The engine, locked for a setting (waits for a running search).
    fn locked(&self, py: Python<'_>) -> PyResult<MutexGuard<'_, Option<CoreEngine>>> {
        let guard = self.lock_waiting(py);
        if guard.is_none() {
            return Err(errors::err(Kind::EngineClosed, "the engine is closed"));
        }
        Ok(guard)
    }

    /// The engine's lock, waited for without the GIL (a guard cannot
    /// cross `detach`, so the wait is a loop of short sleeps; a search
    /// holding the lock may need the GIL for its callback).
    fn lock_waiting(&self, py: Python<'_>) -> MutexGuard<'_, Option<CoreEngine>> {
        loop {
            match self.inner.try_lock() {
                Ok(g) => return g,
                Err(TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(TryLockError::WouldBlock) => {
                    py.detach(|| std::thread::sleep(Duration::from_millis(1)));
                }
            }
        }
    }

    /// The engine, locked for a search, or `EngineBusyError`.
    fn locked_for_search(&self) -> PyResult<MutexGuard<'_, Option<CoreEngine>>> {
        let guard = match self.inner.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => {
                return Err(errors::err(
                    Kind::EngineBusy,
                    "another thread is using this engine",
                ));
            }
        };
        if guard.is_none() {
            return Err(errors::err(Kind::EngineClosed, "the engine is closed"));
        }
        Ok(guard)
    }

    /// Applies the level to `limits` as the protocol's `go` does.
    fn weaken(&self, limits: &mut Limits) {
        let s = *lock(&self.settings);
        let level = StrengthOptions {
            skill: s.level,
            limit_strength: s.elo.is_some(),
            elo: s.elo.unwrap_or(MAX_ELO),
            ..StrengthOptions::default()
        }
        .level();
        if let Some(n) = level.nodes() {
            limits.nodes = Some(limits.nodes.map_or(n, |m| m.min(n)));
        }
        let seed = self
            .seed
            .fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
        limits.weakening = level.weakening(seed);
    }
}

/// What a Python callback said about an event.
enum Verdict {
    Go,
    Stop,
    Fail(PyErr),
}

fn call_back(py: Python<'_>, callback: Option<&Bound<'_, PyAny>>, report: &Report) -> Verdict {
    let Some(cb) = callback else {
        return Verdict::Go;
    };
    let info = Info::from(report);
    match cb.call1((info,)) {
        Ok(v) => {
            if v.is_truthy().unwrap_or(false) {
                Verdict::Stop
            } else {
                Verdict::Go
            }
        }
        Err(e) => Verdict::Fail(e),
    }
    .or_signal(py)
}

impl Verdict {
    /// Ctrl-C pending wins over going on.
    fn or_signal(self, py: Python<'_>) -> Verdict {
        match self {
            Verdict::Go => match py.check_signals() {
                Ok(()) => Verdict::Go,
                Err(e) => Verdict::Fail(e),
            },
            v => v,
        }
    }
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (hash = 16, threads = 1, level = 20, elo = None))]
    fn py_new(
        py: Python<'_>,
        hash: i64,
        threads: i64,
        level: i64,
        elo: Option<i64>,
    ) -> PyResult<Engine> {
        let level = check_level(level)?;
        let elo = check_elo(elo)?;
        let hash = usize::try_from(hash)
            .ok()
            .filter(|h| (1..=MAX_HASH_MB).contains(h))
            .ok_or_else(|| {
                PyValueError::new_err(format!("hash {hash} MB is not 1-{MAX_HASH_MB}"))
            })?;
        let threads = usize::try_from(threads)
            .ok()
            .filter(|t| (1..=MAX_THREADS).contains(t))
            .ok_or_else(|| {
                PyValueError::new_err(format!("threads {threads} is not 1-{MAX_THREADS}"))
            })?;
        let core = py.detach(move || -> Result<CoreEngine, engine::EngineError> {
            let mut e = CoreEngine::new();
            if hash != e.hash_mb() {
                e.set_hash_mb(hash)?;
            }
            e.set_threads(threads)?;
            Ok(e)
        });
        let core = core.map_err(|e| engine_error(&e))?;
        let handle = core.handle();
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Ok(Engine {
            inner: Mutex::new(Some(core)),
            handle,
            settings: Mutex::new(Settings { level, elo }),
            seed: AtomicU64::new(seed),
        })
    }

    /// The table size in MB; setting it resizes (and empties) the table.
    #[getter]
    fn get_hash(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.locked(py)?.as_ref().map_or(0, CoreEngine::hash_mb))
    }

    #[setter]
    fn set_hash(&self, py: Python<'_>, mb: i64) -> PyResult<()> {
        let mb = usize::try_from(mb)
            .map_err(|_| PyValueError::new_err(format!("hash {mb} MB is not 1-{MAX_HASH_MB}")))?;
        let mut g = self.locked(py)?;
        let Some(e) = g.as_mut() else { return Ok(()) };
        py.detach(|| e.set_hash_mb(mb)).map_err(|e| match e {
            engine::EngineError::HashSize(_) if mb == 0 || mb > MAX_HASH_MB => {
                PyValueError::new_err(format!("hash {mb} MB is not 1-{MAX_HASH_MB}"))
            }
            e => engine_error(&e),
        })
    }

    /// The number of search threads (Lazy SMP).
    #[getter]
    fn get_threads(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.locked(py)?.as_ref().map_or(0, CoreEngine::threads))
    }

    #[setter]
    fn set_threads(&self, py: Python<'_>, n: i64) -> PyResult<()> {
        let n = usize::try_from(n)
            .ok()
            .filter(|t| (1..=MAX_THREADS).contains(t))
            .ok_or_else(|| PyValueError::new_err(format!("threads {n} is not 1-{MAX_THREADS}")))?;
        let mut g = self.locked(py)?;
        let Some(e) = g.as_mut() else { return Ok(()) };
        py.detach(|| e.set_threads(n)).map_err(|e| engine_error(&e))
    }

    /// The strength level 0–20 (20: full strength).
    #[getter]
    fn get_level(&self) -> u8 {
        lock(&self.settings).level
    }

    #[setter]
    fn set_level(&self, level: i64) -> PyResult<()> {
        lock(&self.settings).level = check_level(level)?;
        Ok(())
    }

    /// The Elo the level is chosen by, or ``None`` (then ``level`` decides).
    #[getter]
    fn get_elo(&self) -> Option<u32> {
        lock(&self.settings).elo
    }

    #[setter]
    fn set_elo(&self, elo: Option<i64>) -> PyResult<()> {
        lock(&self.settings).elo = check_elo(elo)?;
        Ok(())
    }

    /// Whether ``close`` was called.
    #[getter]
    fn closed(&self) -> bool {
        // A search holds the lock only while the engine is open.
        match self.inner.try_lock() {
            Ok(g) => g.is_none(),
            Err(TryLockError::Poisoned(p)) => p.into_inner().is_none(),
            Err(TryLockError::WouldBlock) => false,
        }
    }

    /// Forgets what earlier searches learnt (the table and histories).
    fn new_game(&self, py: Python<'_>) -> PyResult<()> {
        let mut g = self.locked(py)?;
        if let Some(e) = g.as_mut() {
            py.detach(|| e.new_game());
        }
        Ok(())
    }

    /// Searches ``board`` (its move stack is the history the rules judge
    /// repetitions by) and returns an ``Analysis``. Limits: ``depth``
    /// (plies), ``nodes``, ``movetime`` (seconds); with none of them,
    /// ``infinite=True`` searches until ``stop()``. ``multipv`` lines are
    /// searched and reported. ``callback(info)`` is called with each
    /// ``Info`` as iterations complete (on the calling thread); returning
    /// ``True`` stops the search, and an exception it raises stops the
    /// search and propagates. The GIL is released while the engine thinks.
    #[pyo3(signature = (board, *, depth = None, nodes = None, movetime = None, multipv = 1, infinite = false, callback = None))]
    #[allow(clippy::too_many_arguments)]
    fn analyse(
        &self,
        py: Python<'_>,
        board: &Board,
        depth: Option<u32>,
        nodes: Option<u64>,
        movetime: Option<f64>,
        multipv: usize,
        infinite: bool,
        callback: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Analysis> {
        if depth.is_none() && nodes.is_none() && movetime.is_none() && !infinite {
            return Err(PyValueError::new_err(
                "give depth, nodes or movetime, or infinite=True",
            ));
        }
        let movetime = match movetime {
            None => None,
            Some(t) if (0.0..1e9).contains(&t) => Some(Duration::from_secs_f64(t)),
            Some(t) => {
                return Err(PyValueError::new_err(format!(
                    "movetime {t} is not a number of seconds"
                )));
            }
        };
        if multipv == 0 || multipv > 128 {
            return Err(PyValueError::new_err(format!(
                "multipv {multipv} is not 1-128"
            )));
        }
        if let Some(cb) = &callback
            && !cb.is_callable()
        {
            return Err(PyValueError::new_err("callback is not callable"));
        }
        let mut limits = Limits {
            depth,
            nodes,
            movetime,
            infinite: infinite && depth.is_none() && nodes.is_none() && movetime.is_none(),
            multipv,
            ..Limits::default()
        };
        self.weaken(&mut limits);
        let mut guard = self.locked_for_search()?;
        let Some(core) = guard.as_mut() else {
            return Err(errors::err(Kind::EngineClosed, "the engine is closed"));
        };
        let (tx, rx) = crossbeam_channel::unbounded::<Event>();
        core.start(
            board.pos.clone(),
            limits,
            Box::new(move |e| drop(tx.send(e))),
        );
        let finished = core.finished();
        let mut lines: Vec<Report> = Vec::new();
        let mut failure: Option<PyErr> = None;
        let mut stopped = false;
        loop {
            // Waits without the GIL for the next event, the end of the
            // search, or the next look at Ctrl-C.
            let next = py.detach(|| {
                select! {
                    recv(rx) -> e => e.map_err(|_| RecvTimeoutError::Disconnected),
                    recv(finished) -> _ => rx.try_recv().map_err(|_| RecvTimeoutError::Disconnected),
                    default(SIGNAL_POLL) => Err(RecvTimeoutError::Timeout),
                }
            });
            let verdict = match next {
                Ok(Event::Iteration(report)) => {
                    let v = if stopped {
                        Verdict::Go
                    } else {
                        call_back(py, callback.as_ref(), &report)
                    };
                    let slot = report.multipv.saturating_sub(1);
                    if lines.len() <= slot {
                        lines.resize(slot + 1, report.clone());
                    }
                    lines[slot] = report;
                    v
                }
                Ok(Event::CurrMove { .. }) | Err(RecvTimeoutError::Timeout) => {
                    Verdict::Go.or_signal(py)
                }
                Err(RecvTimeoutError::Disconnected) => break,
            };
            match verdict {
                Verdict::Go => {}
                Verdict::Stop => {
                    stopped = true;
                    self.handle.stop();
                }
                Verdict::Fail(e) => {
                    stopped = true;
                    self.handle.stop();
                    failure.get_or_insert(e);
                }
            }
        }
        let result: SearchResult = py.detach(|| core.wait());
        drop(guard);
        if let Some(e) = failure {
            return Err(e);
        }
        Ok(Analysis {
            best: result.best.map(PyMove),
            ponder: result.ponder.map(PyMove),
            score: Score::new(result.score, result.rule),
            depth: result.depth,
            nodes: result.nodes,
            time: result.time.as_secs_f64(),
            lines: lines.iter().map(Info::from).collect(),
        })
    }

    /// The best move for ``board`` under the same limits as ``analyse``
    /// (``None`` without a legal move).
    #[pyo3(signature = (board, *, depth = None, nodes = None, movetime = None))]
    fn play(
        &self,
        py: Python<'_>,
        board: &Board,
        depth: Option<u32>,
        nodes: Option<u64>,
        movetime: Option<f64>,
    ) -> PyResult<Option<PyMove>> {
        self.analyse(py, board, depth, nodes, movetime, 1, false, None)
            .map(|a| a.best)
    }

    /// Stops the search running now (from any thread); ``analyse`` then
    /// returns within milliseconds with what it found. Harmless when
    /// nothing runs.
    fn stop(&self) {
        self.handle.stop();
    }

    /// Stops any search, ends the engine's threads and frees its table.
    /// Closing twice is harmless.
    fn close(&self, py: Python<'_>) {
        self.handle.stop();
        let engine = self.lock_waiting(py).take();
        py.detach(move || drop(engine));
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let s = *lock(&self.settings);
        match self.inner.try_lock() {
            Ok(g) => match g.as_ref() {
                Some(e) => format!(
                    "<Engine hash {} MB, threads {}, level {}>",
                    e.hash_mb(),
                    e.threads(),
                    s.level
                ),
                None => "<Engine closed>".to_string(),
            },
            Err(_) => {
                let _ = py;
                "<Engine searching>".to_string()
            }
        }
    }
}

/// Adds the classes of this module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Engine>()?;
    m.add_class::<Analysis>()?;
    m.add_class::<Info>()?;
    m.add_class::<Score>()?;
    Ok(())
}
