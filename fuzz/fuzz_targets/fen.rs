//! Fuzz target `fen`: see `protocol::fuzzing::fen` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzzing::fen(data));
