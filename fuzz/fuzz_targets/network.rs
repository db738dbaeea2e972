//! Fuzz target `network`: see `fuzz_props::network` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::network(data));
