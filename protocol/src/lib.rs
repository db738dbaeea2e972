//! The protocol front end as a library: the command parser, the session
//! that owns the engine, the line reader and the output, so that a fuzzer
//! or a test can drive a whole UCCI/UCI session in-process. The `chariot`
//! binary (`cli/`) is a thin shell over these modules plus its
//! command-line tools; the C library (`ffi/`) is another. Neither shell's
//! dependencies come here: this crate needs the engine, the book and a
//! channel.

pub mod bench;
pub mod command;
pub mod limits;
pub mod notation;
pub mod options;
pub mod output;
pub mod reader;
pub mod session;
// The strength levels live in the engine crate, beside the `Weakening`
// they produce, so that in-process users (the Python package) reach them
// without this crate; `crate::strength` paths keep working.
pub use engine::strength;

/// The version with its provenance, as `chariot --version` prints it and
/// the C library's `chariot_version` returns it: the package version, the
/// commit the build came from (`unknown` without git) and the build date,
/// both recorded by `build.rs`.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("CHARIOT_GIT_COMMIT"),
    ", built ",
    env!("CHARIOT_BUILD_DATE"),
    ")"
);
