//! Fuzz target `network`: see `protocol::fuzzing::network` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzzing::network(data));
