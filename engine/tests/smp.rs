//! Lazy SMP through the engine's API: with several threads every search
//! still gives a legal move with a legal, consistent principal variation,
//! node limits count every thread, `stop` ends them all, bad thread counts
//! are refused, and going back to one thread is exactly deterministic.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use board::{Move, Position};
use engine::{Engine, EngineError, Event, Limits, MAX_THREADS, Report, SearchResult};

fn pos(fen: &str) -> Position {
    Position::from_fen(fen).expect("test FEN")
}

fn engine_with(threads: usize) -> Engine {
    let mut e = Engine::new();
    e.set_threads(threads).expect("threads");
    assert_eq!(e.threads(), threads);
    e
}

/// Runs one search and returns its result and every iteration report.
fn search(e: &mut Engine, p: &Position, limits: Limits) -> (SearchResult, Vec<Report>) {
    let (tx, rx) = mpsc::channel();
    e.start(
        p.clone(),
        limits,
        Box::new(move |ev| {
            if let Event::Iteration(r) = ev {
                let _ = tx.send(r);
            }
        }),
    );
    let r = e.wait();
    (r, rx.try_iter().collect())
}

/// Whether `line` is a sequence of legal moves from `p`.
fn legal_line(p: &Position, line: &[Move]) -> bool {
    let mut p = p.clone();
    for &m in line {
        if !p.is_legal(m) {
            return false;
        }
        p.make_move(m);
    }
    true
}

/// Checks what every search must give: a legal move, a legal ponder move
/// after it, legal reported lines, and node counts that only grow.
fn check(fen: &str, p: &Position, r: &SearchResult, reports: &[Report]) {
    let best = r.best.unwrap_or_else(|| panic!("{fen}: no move"));
    assert!(p.is_legal(best), "{fen}: {best} is illegal");
    if let Some(ponder) = r.ponder {
        assert!(legal_line(p, &[best, ponder]), "{fen}: ponder {ponder}");
    }
    assert!(!reports.is_empty(), "{fen}: no report");
    for rep in reports {
        assert!(!rep.pv.is_empty(), "{fen}: empty pv");
        assert!(legal_line(p, &rep.pv), "{fen}: illegal pv {:?}", rep.pv);
    }
    for w in reports.windows(2) {
        assert!(w[0].nodes <= w[1].nodes, "{fen}: nodes went down");
    }
    let last = reports.last().map_or(0, |rep| rep.nodes);
    assert!(
        r.nodes >= last,
        "{fen}: result counts fewer nodes than reported"
    );
}

#[test]
fn many_positions_give_legal_moves_and_consistent_lines() {
    let mut e = engine_with(3);
    for fen in engine::bench::POSITIONS {
        let p = pos(fen);
        e.new_game();
        let (r, reports) = search(
            &mut e,
            &p,
            Limits {
                depth: Some(5),
                ..Limits::default()
            },
        );
        check(fen, &p, &r, &reports);
        // A depth-limited search plays the main thread's completed line:
        // the move is the one its last report announced, at that depth.
        let last = reports.last().expect("a report");
        assert_eq!(r.depth, 5, "{fen}");
        assert_eq!(last.depth, 5, "{fen}");
        assert_eq!(Some(last.pv[0]), r.best, "{fen}");
        if last.pv.len() > 1 {
            assert_eq!(r.ponder, Some(last.pv[1]), "{fen}");
        }
    }
}

#[test]
fn timed_and_node_limited_searches_with_two_threads() {
    let mut e = engine_with(2);
    for fen in engine::bench::POSITIONS.iter().step_by(4) {
        let p = pos(fen);
        let (r, reports) = search(
            &mut e,
            &p,
            Limits {
                movetime: Some(Duration::from_millis(60)),
                ..Limits::default()
            },
        );
        check(fen, &p, &r, &reports);
        let limit = 30_000;
        let (r, reports) = search(
            &mut e,
            &p,
            Limits {
                nodes: Some(limit),
                ..Limits::default()
            },
        );
        check(fen, &p, &r, &reports);
        // Every thread counts towards the limit: each stops within a
        // publishing interval (256 nodes) of the total reaching it, or
        // after the first iteration, which the main thread always
        // completes.
        assert!(
            r.nodes < limit + 50_000,
            "{fen}: {} nodes for a limit of {limit}",
            r.nodes
        );
    }
}

#[test]
fn stop_ends_a_many_threaded_search_at_once() {
    let mut e = engine_with(4);
    let p = Position::startpos();
    for _ in 0..3 {
        e.start(
            p.clone(),
            Limits {
                infinite: true,
                ..Limits::default()
            },
            Box::new(|_| {}),
        );
        std::thread::sleep(Duration::from_millis(150));
        assert!(e.handle().is_running());
        let t0 = Instant::now();
        e.handle().stop();
        let r = e.wait();
        // A hang or a thread that never polls would take forever; the
        // latency itself is a measurement (docs/lab/measurements.md, protocol
        // latency), not a test. Four threads of a debug build share two
        // cores here with whatever else runs: 1 s was once exceeded under
        // two concurrent matches, so the bound only catches a stuck stop.
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        assert!(p.is_legal(r.best.expect("a move")));
        assert!(!e.handle().is_running());
    }
}

#[test]
fn bad_thread_counts_are_refused() {
    let mut e = engine_with(2);
    for n in [0, MAX_THREADS + 1, usize::MAX] {
        assert_eq!(e.set_threads(n), Err(EngineError::ThreadCount(n)));
        assert_eq!(e.threads(), 2);
    }
    e.set_threads(1).expect("one thread");
    assert_eq!(e.threads(), 1);
}

#[test]
fn one_thread_after_many_is_exactly_deterministic() {
    let limits = Limits {
        nodes: Some(20_000),
        ..Limits::default()
    };
    let p = Position::startpos();
    let mut fresh = Engine::new();
    let (a, _) = search(&mut fresh, &p, limits.clone());
    let mut e = engine_with(3);
    search(&mut e, &p, limits.clone());
    e.set_threads(1).expect("one thread");
    e.new_game();
    let (b, _) = search(&mut e, &p, limits);
    assert_eq!((a.best, a.nodes, a.depth), (b.best, b.nodes, b.depth));
}
