//! Fuzz target `moves`: see `protocol::fuzzing::moves` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzzing::moves(data));
