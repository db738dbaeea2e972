//! Fuzz target `moves`: see `fuzz_props::moves` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::moves(data));
