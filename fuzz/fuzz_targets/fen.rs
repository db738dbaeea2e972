//! Fuzz target `fen`: see `fuzz_props::fen` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::fen(data));
