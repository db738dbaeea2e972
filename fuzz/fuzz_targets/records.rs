//! Fuzz target `records`: see `fuzz_props::records` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::records(data));
