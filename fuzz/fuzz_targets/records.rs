//! Fuzz target `records`: see `protocol::fuzzing::records` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzzing::records(data));
