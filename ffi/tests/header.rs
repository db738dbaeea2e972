//! `include/chariot.h` is what cbindgen makes of `src/lib.rs` today: the
//! test regenerates it and fails on any difference, so the header a C, Swift
//! or JNI host compiles against always matches the library. With
//! `CHARIOT_BLESS=1` it rewrites the header instead.

use std::path::Path;

#[test]
fn the_committed_header_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .generate()
        .expect("cbindgen reads src/lib.rs");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let path = dir.join("include/chariot.h");
    if std::env::var_os("CHARIOT_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("include/chariot.h is writable");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/chariot.h is out of date; regenerate it with \
         CHARIOT_BLESS=1 cargo test -p chariot-ffi --test header"
    );
}
