//! The chariot binary.
fn main() {}
