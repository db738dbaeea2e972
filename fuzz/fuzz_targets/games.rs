//! Fuzz target `games`: see `fuzz_props::games` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::games(data));
