//! Fuzz target `epd`: see `protocol::fuzzing::epd` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzzing::epd(data));
