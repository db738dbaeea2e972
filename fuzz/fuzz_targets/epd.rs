//! Fuzz target `epd`: see `fuzz_props::epd` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::epd(data));
