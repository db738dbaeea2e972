//! Generates the Zobrist key tables at build time from a fixed `rand_pcg`
//! seed, so every build and every run hashes positions alike and the keys are
//! plain `const` data (no lazily initialised globals).

use std::fmt::Write as _;
use std::path::PathBuf;

use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// The seed is part of the book format: changing it invalidates every book
/// written with our keys.
const SEED: u64 = 0x4348_4152_494F_5421; // "CHARIOT!"

fn main() {
    let mut rng = Pcg64Mcg::seed_from_u64(SEED);
    let mut out = String::new();
    out.push_str(
        "/// Key of each (colour, piece kind, square), indexed `[color][kind][square]`.\n",
    );
    out.push_str("pub(crate) const PIECE_KEYS: [[[u64; 90]; 7]; 2] = [\n");
    for _color in 0..2 {
        out.push_str("    [\n");
        for _kind in 0..7 {
            out.push_str("        [");
            for _sq in 0..90 {
                let _ = write!(out, "{:#018x}, ", rng.next_u64());
            }
            out.push_str("],\n");
        }
        out.push_str("    ],\n");
    }
    out.push_str("];\n");
    let _ = writeln!(
        out,
        "/// XORed into the key when Black is to move.\npub(crate) const SIDE_KEY: u64 = {:#018x};",
        rng.next_u64()
    );
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("zobrist_keys.rs");
    std::fs::write(path, out).expect("OUT_DIR is writable");
    println!("cargo:rerun-if-changed=build.rs");
}
