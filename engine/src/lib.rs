//! Chariot search engine.
//!
//! NOTE TO THE ENGINE DEVELOPER (replace this paragraph when you write the crate docs):
//! before anything else read /work/notes/common.md (team rules for this shared
//! working tree: own CARGO_TARGET_DIR, commit only your own paths with
//! `git commit -- <paths>`, never `git add -A`; and the board/rules API) and
//! /work/notes/engine_api.md (the binding public API the protocol developer is
//! coding against).
