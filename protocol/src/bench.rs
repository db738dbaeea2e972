//! The bench's report: the one front end of `engine::bench` that both
//! `chariot bench` and the protocol's `bench` command print through, so
//! the two cannot drift apart.

use std::io::{self, Write};

use engine::bench::{BenchOptions, BenchPosition, BenchSummary};

/// Runs the bench and writes its report to `out`: a line pair per
/// position, then the totals (`Nodes searched: N` is the signature).
///
/// # Errors
/// The engine refusing a setting, or `out` failing, as an
/// [`io::Error`].
pub fn run(opts: &BenchOptions, out: &mut dyn Write) -> io::Result<BenchSummary> {
    let mut written = Ok(());
    let mut on_position = |p: &BenchPosition| {
        if written.is_ok() {
            written = write_position(out, p);
        }
    };
    let summary = engine::bench::run(opts, &mut on_position)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    written?;
    write_summary(out, opts, &summary)?;
    Ok(summary)
}

fn write_position(out: &mut dyn Write, p: &BenchPosition) -> io::Result<()> {
    let best = p
        .result
        .best
        .map_or_else(|| "(none)".to_string(), |m| m.to_string());
    writeln!(
        out,
        "Position {:>2}/{}: {}\n  best {best} score {} depth {} nodes {} time {} ms",
        p.number,
        engine::bench::POSITIONS.len(),
        p.fen,
        p.result.score,
        p.result.depth,
        p.result.nodes,
        p.time.as_millis()
    )
}

/// A table size as the report prints it: MB when whole, else KiB.
fn size(kib: usize) -> String {
    if kib.is_multiple_of(1024) {
        format!("{} MB", kib / 1024)
    } else {
        format!("{kib} KiB")
    }
}

fn write_summary(out: &mut dyn Write, opts: &BenchOptions, s: &BenchSummary) -> io::Result<()> {
    let eval = opts
        .network
        .as_ref()
        .map_or_else(|| "hand-written".to_string(), |n| n.describe());
    writeln!(out, "===========================")?;
    match opts.experiment {
        None => writeln!(
            out,
            "Depth: {}  Hash: {}  Eval: {eval}  Threads: {}",
            opts.depth(),
            size(opts.hash_kib),
            opts.threads
        )?,
        Some(e) => {
            writeln!(
                out,
                "Depth: {}  Hash: {}  TT: {}  Store qs: {}  Search: {}  Eval: {eval}  Threads: {}",
                opts.depth(),
                size(opts.hash_kib),
                e.policy,
                e.store_qs,
                if e.classic { "classic" } else { "full" },
                opts.threads
            )?;
            let t = s.tt;
            let rate = if t.probes == 0 {
                0.0
            } else {
                t.hits as f64 * 100.0 / t.probes as f64
            };
            writeln!(out, "TT probes: {}", t.probes)?;
            writeln!(out, "TT hits: {}", t.hits)?;
            writeln!(out, "TT cut-offs: {}", t.cutoffs)?;
            writeln!(out, "TT hit rate: {rate:.2} %")?;
            let f = s.features;
            writeln!(
                out,
                "Features: iir {}  singular {}  reduced {}  late-pruned {}  futile {}  see-pruned {}  reverse-futile {}  null cut-offs {}",
                f.iir,
                f.singular,
                f.reduced,
                f.late_pruned,
                f.futile,
                f.see_pruned,
                f.reverse_futile,
                f.null_cutoffs
            )?;
        }
    }
    writeln!(out, "Total time (ms): {}", s.time.as_millis())?;
    writeln!(out, "Nodes searched: {}", s.nodes)?;
    writeln!(out, "Nodes/second: {}", s.nps)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The report names every position and ends with the signature line
    /// and the speed; a measurement adds the table statistics.
    #[test]
    fn the_report_ends_with_the_signature() {
        let mut opts = BenchOptions {
            depth: Some(1),
            ..BenchOptions::default()
        };
        let mut text = Vec::new();
        let summary = run(&opts, &mut text).expect("bench");
        let text = String::from_utf8(text).expect("utf-8");
        let n = engine::bench::POSITIONS.len();
        assert!(text.contains(&format!("Position {n}/{n}: ")));
        assert!(text.contains(&format!("\nNodes searched: {}\n", summary.nodes)));
        assert!(text.contains("Nodes/second: "));
        assert!(!text.contains("TT probes"));
        opts.experiment = Some(engine::Experiment::default());
        let mut text = Vec::new();
        run(&opts, &mut text).expect("bench");
        let text = String::from_utf8(text).expect("utf-8");
        assert!(text.contains("TT probes: ") && text.contains("TT hit rate: "));
        assert!(text.contains("Features: iir "), "{text}");
    }
}
