//! Chariot search engine.
