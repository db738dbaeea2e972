//! Tells the tests whether ElephantEye's `BOOK.DAT`, LGPL test data kept
//! outside the repository in `../shared`, is present: the tests that need
//! it are then run, and otherwise listed as ignored with the reason, so
//! that a missing file is visible instead of a silent pass.

use std::path::Path;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(shared_eleeye_book)");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let book = manifest.join("../../shared/data/eleeye-book/BOOK.DAT");
    if book.is_file() {
        println!("cargo:rustc-cfg=shared_eleeye_book");
        println!("cargo:rerun-if-changed={}", book.display());
    } else {
        // The directory beside the workspace changes when shared/ appears.
        println!(
            "cargo:rerun-if-changed={}",
            manifest.join("../..").display()
        );
    }
    println!("cargo:rerun-if-changed=build.rs");
}
