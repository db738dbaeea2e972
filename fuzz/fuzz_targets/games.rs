//! Fuzz target `games`: see `protocol::fuzzing::games` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzzing::games(data));
