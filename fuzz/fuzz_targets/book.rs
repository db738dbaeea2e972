//! Fuzz target `book`: see `protocol::fuzzing::book` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzzing::book(data));
