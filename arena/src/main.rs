//! arena
fn main() {}
