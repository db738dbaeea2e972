//! Tells the tests whether ElephantEye's `BOOK.DAT`, LGPL data that is not
//! part of this repository, was named by `CHARIOT_ELEEYE_BOOK`: the tests
//! that need it are then run against that file, and otherwise listed as
//! ignored with the instruction, so that a missing file is visible instead
//! of a silent pass (`docs/book-formats.md` §1 says where to get it).

use std::path::Path;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(eleeye_book)");
    println!("cargo:rerun-if-env-changed=CHARIOT_ELEEYE_BOOK");
    println!("cargo:rerun-if-changed=build.rs");
    let Some(book) = std::env::var_os("CHARIOT_ELEEYE_BOOK") else {
        return;
    };
    let book = Path::new(&book);
    if book.is_file() {
        println!("cargo:rustc-cfg=eleeye_book");
        println!("cargo:rustc-env=CHARIOT_ELEEYE_BOOK={}", book.display());
        println!("cargo:rerun-if-changed={}", book.display());
    } else {
        println!(
            "cargo:warning=CHARIOT_ELEEYE_BOOK={} is not a file: the BOOK.DAT tests stay ignored",
            book.display()
        );
    }
}
