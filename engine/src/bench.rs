//! The bench: a fixed list of positions searched to a fixed depth with one
//! thread, a new game per position. Its node count is the search's
//! behaviour signature (`Bench: N` in commit messages), so it must be
//! deterministic: no clocks influence the search, nothing carries over
//! between positions.
//!
//! The bench drives an [`Engine`] exactly as a `go` does (`new_game`,
//! `start`, `wait`), so the signature signs the path games run. It returns
//! its figures and prints nothing: the protocol crate writes the report,
//! for `chariot bench` and the protocol's `bench` command alike.
//!
//! With more threads ([`BenchOptions::threads`]) it measures the speed of
//! Lazy SMP instead: the node count then varies from run to run. With an
//! [`Experiment`] it runs the experiment build of the search, which counts
//! table statistics.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use board::Position;

use crate::nnue::Network;
use crate::tt::{DEFAULT_HASH_MB, TtStats};
use crate::{Engine, EngineError, Experiment, FeatureCounts, Limits, SearchResult};

/// The default bench depth.
pub const DEFAULT_DEPTH: u32 = 7;

/// The bench positions: openings, middlegames (the three of the perft file
/// among them), master-game positions, check-heavy positions and endgames.
pub const POSITIONS: &[&str] = &[
    // Start and opening positions.
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1bakab1r/9/1cn3nc1/p1p1p1p1p/9/9/P1P1P1P1P/1CN3NC1/9/R1BAKAB1R w - - 0 1",
    "r1bakab1r/9/1c2c4/p3p3p/2p3p2/2P3P2/P3P3P/1C2C4/9/R1BAKAB1R w - - 0 1",
    // Middlegames (perft file lines 2-4, 12-19).
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "r2akab1r/3n5/4b3n/p1p1pRp1p/9/2P3P2/P3P3c/N2C3C1/4A4/1RBAK1B2 w - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
    "2bakabr1/7r1/c1n3n2/p3p1p1p/9/2pR4P/P3P1Pc1/2N1C1C1N/9/2BAKABR1 w - - 0 1",
    "1r1akabr1/1c7/2n1b1n2/p1p1p3p/6p2/PN3R3/1cP1P1P1P/2C1C1N2/1R7/2BAKAB2 b - - 0 1",
    "2bakab2/6r2/2n1c1nc1/p1p2rp1p/4p4/2PN2PC1/P3P3P/6N2/3CA4/1RBAK1B1R w - - 0 1",
    // Checks and evasions (perft file lines 5-11, 14).
    "CRN1k1b2/3ca4/4ba3/9/2nr5/9/9/4B4/4A4/4KA3 w - - 0 1",
    "R1N1k1b2/9/3aba3/9/2nr5/2B6/9/4B4/4A4/4KA3 w - - 0 1",
    "C1nNk4/9/9/9/9/9/n1pp5/B3C4/9/3A1K3 w - - 0 1",
    "4ka3/4a4/9/9/4N4/p8/9/4C3c/7n1/2BK5 w - - 0 1",
    "2b1ka3/9/b3N4/4n4/9/9/9/4C4/2p6/2BK5 w - - 0 1",
    "1C2ka3/9/C1Nab1n2/p3p3p/6p2/9/P3P3P/3AB4/3p2c2/c1BAK4 w - - 0 1",
    "CnN1k1b2/c3a4/4ba3/9/2nr5/9/9/4C4/4A4/4KA3 w - - 0 1",
    "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
    // Master games at plies 24, 50 and 80 (Chinese Chess Practical
    // Dataset by Yu-Han Tseng and Bo-Nian Chen, CC BY 4.0).
    "2bakab2/3r5/2n3n2/p1N1p3p/2P3p2/2C6/Pr2P1c1P/R2cC4/4N4/2BAKABR1 w - - 9 13",
    "2baka3/9/4b4/p3p3p/1r4p2/3n2c2/P3PN1RP/1R4C2/3rA4/2BAK1B2 w - - 0 26",
    "2bk1a3/4a4/4b4/4p2Np/p3c4/8P/P1n1P4/2RC5/3rA4/2BAK4 w - - 19 41",
    "2bakab2/rr7/2n1c4/p1p1p2np/9/2P2R3/P1c1P3P/C1N3N2/4C4/1RBAKAB2 w - - 5 13",
    "2baka3/9/2n1b4/p3p3p/5rn2/5N2P/P1c1P4/1rNR5/3CA4/R1B1KAB2 w - - 5 26",
    "2bak4/9/c2ab4/p3N3p/9/Pr6P/4P4/3R5/2r1A1n2/R2K1AB2 w - - 6 41",
    "1r1akabr1/2c6/2n1b1n2/pC2p3p/2c3p2/3N3R1/P3P1P1P/1R2C1N2/9/2BAKAB2 w - - 0 13",
    "4kab2/n3a4/1C2b1C2/p2r4p/2c1P1p2/9/PR4P1P/4B1N2/2c1A4/4KA3 w - - 16 26",
    "1C2kab2/1n7/3ab1N2/p2P3Cp/5cp1c/P8/6P2/4BA3/4A4/4K4 w - - 4 41",
    "r2akab2/1c7/2nrb1n2/p1R1p1p1p/9/5NP2/P1P1P3P/2N1C4/9/R1BAKAB2 w - - 1 13",
    "2r1kab2/4a4/4b4/p4n2p/3r1n3/2P3P2/PR5RP/2N1C4/4A4/2BAK1B2 w - - 6 26",
    "2rk1ab2/4a1N2/3nb4/p5n1p/5R3/P2r2P2/1R6P/3C5/4A4/2BAK1B2 w - - 8 41",
    "3rkabr1/4a4/2n1b2c1/p3p3p/1cp3p2/PR7/2P1P1nRP/N1C3N2/2C6/2BAKAB2 w - - 2 13",
    "c2k1abr1/4a4/4b1nc1/4pR2p/p5p2/P3P4/8P/N1C1B1N2/4A4/3AK1B2 w - - 0 26",
    "1R1akab2/7r1/4b1n2/1N6p/3Np1p2/1p7/8P/3C5/4A4/ccBAK1B2 w - - 20 41",
    "3rkabr1/4a4/2n1b1n2/p1p5p/4p4/2P3B2/P3P1c1P/C1NC2N2/4AR3/1RBAK2c1 w - - 5 13",
    "4kab2/4a4/2n1b4/p7p/9/5RB2/P1rnP2r1/1RN1C3B/4A4/C2A1K2c w - - 4 26",
    "2bakab2/9/2n1c1n2/pC2p3p/2R3p2/9/P3P1P1P/4B1N2/7r1/2BAKA3 w - - 0 13",
    // Endgames.
    "3k5/9/9/9/9/9/3N1n3/4B4/9/4K4 w - - 0 1",
    "3k5/9/4r4/9/4p4/9/9/4C4/9/5K3 w - - 0 1",
    "4k4/9/9/9/4p4/4N4/9/4C4/9/3K5 w - - 0 1",
    "3k5/4a4/2N6/9/9/9/9/9/9/3RK4 b - - 0 1",
];

/// What the bench runs.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// Depth per position (`None`: [`DEFAULT_DEPTH`]).
    pub depth: Option<u32>,
    /// Table size in KiB (a whole number of MB for play; smaller tables
    /// for the table experiments).
    pub hash_kib: usize,
    /// The measurement to run (`None`: the search games play).
    pub experiment: Option<Experiment>,
    /// The network that evaluates (`None`: the hand-written evaluation).
    pub network: Option<Arc<Network>>,
    /// Search threads (1 for the signature).
    pub threads: usize,
}

impl Default for BenchOptions {
    fn default() -> BenchOptions {
        BenchOptions {
            depth: None,
            hash_kib: DEFAULT_HASH_MB * 1024,
            experiment: None,
            network: crate::nnue::embedded(),
            threads: 1,
        }
    }
}

impl BenchOptions {
    /// The depth each position is searched to.
    pub fn depth(&self) -> u32 {
        self.depth.unwrap_or(DEFAULT_DEPTH).max(1)
    }
}

/// One position's search.
#[derive(Clone, Debug)]
pub struct BenchPosition {
    /// Its place in [`POSITIONS`], from 1.
    pub number: usize,
    /// The position.
    pub fen: &'static str,
    /// What the search answered.
    pub result: SearchResult,
    /// Wall time of the search.
    pub time: Duration,
}

/// The bench's totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BenchSummary {
    /// Nodes over all positions (the signature).
    pub nodes: u64,
    /// Wall time.
    pub time: Duration,
    /// Nodes per second.
    pub nps: u64,
    /// Table statistics summed over the positions (zero without an
    /// experiment).
    pub tt: TtStats,
    /// How often each selective-search feature acted, summed over the
    /// positions (zero without an experiment).
    pub features: FeatureCounts,
}

/// Why the bench could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BenchError {
    /// The engine refused a setting (table size, threads).
    Engine(EngineError),
    /// A bench position did not parse (a bug: a test reads them all).
    Position {
        /// The position.
        fen: &'static str,
        /// Why.
        error: String,
    },
}

impl fmt::Display for BenchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BenchError::Engine(e) => e.fmt(f),
            BenchError::Position { fen, error } => write!(f, "bench position {fen}: {error}"),
        }
    }
}

impl std::error::Error for BenchError {}

impl From<EngineError> for BenchError {
    fn from(e: EngineError) -> BenchError {
        BenchError::Engine(e)
    }
}

/// Runs the bench, calling `on_position` after each position.
///
/// # Errors
/// A table size or thread count the engine refuses.
pub fn run(
    opts: &BenchOptions,
    on_position: &mut dyn FnMut(&BenchPosition),
) -> Result<BenchSummary, BenchError> {
    let mut engine = Engine::new();
    engine.set_hash_kib(opts.hash_kib)?;
    engine.set_threads(opts.threads)?;
    engine.set_experiment(opts.experiment)?;
    engine.set_network(opts.network.clone());
    let limits = Limits {
        depth: Some(opts.depth()),
        ..Limits::default()
    };
    let mut summary = BenchSummary::default();
    for (i, &fen) in POSITIONS.iter().enumerate() {
        let pos = Position::from_fen(fen).map_err(|e| BenchError::Position {
            fen,
            error: e.to_string(),
        })?;
        engine.new_game();
        let t0 = Instant::now();
        engine.start(pos, limits.clone(), Box::new(|_| {}));
        let result = engine.wait();
        let time = t0.elapsed();
        summary.time += time;
        summary.nodes += result.nodes;
        summary.tt += engine.table_stats();
        summary.features += engine.feature_counts();
        on_position(&BenchPosition {
            number: i + 1,
            fen,
            result,
            time,
        });
    }
    summary.nps = crate::report::nodes_per_second(summary.nodes, summary.time);
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_position_parses() {
        for fen in POSITIONS {
            assert!(Position::from_fen(fen).is_ok(), "{fen}");
        }
    }
}
