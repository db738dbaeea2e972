//! Fuzz target `book`: see `fuzz_props::book` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_props::book(data));
