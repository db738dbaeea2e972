//! Fuzz target `protocol`: see `fuzz_props::protocol` for the properties.
//!
//! It also counts the protocol lines it has fed to sessions and prints the
//! running total to stderr at each million, so a run's log says how many
//! lines it tried (the measure), not only how many inputs.
#![no_main]

use std::sync::atomic::{AtomicU64, Ordering};

static LINES: AtomicU64 = AtomicU64::new(0);

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_props::protocol(data);
    let lines = fuzz_props::protocol_lines(data) as u64;
    let before = LINES.fetch_add(lines, Ordering::Relaxed);
    if (before + lines) / 1_000_000 > before / 1_000_000 {
        eprintln!("protocol lines: {}", before + lines);
    }
});
