//! Fuzz target `protocol`: see `protocol::fuzzing::protocol` for the properties.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    protocol::fuzzing::protocol(data);
});
