//! The protocol front end as a library: the command parser, the session
//! that owns the engine, the line reader and the output, so that a fuzzer
//! or a test can drive a whole UCCI/UCI session in-process. The `chariot`
//! binary (`main.rs`) is a thin shell over these modules plus its
//! command-line tools.

pub mod book_check;
pub mod command;
pub mod fuzzing;
pub mod limits;
pub mod notation;
pub mod options;
pub mod output;
pub mod reader;
pub mod session;
