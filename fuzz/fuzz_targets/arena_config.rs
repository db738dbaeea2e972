//! Fuzz target `arena_config`: see `arena::fuzzing::config` for the property.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    arena::fuzzing::config(data);
});
