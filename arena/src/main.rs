//! `arena`: the program. Everything it does lives in the library
//! (`arena::cli`), so the configuration can be fuzzed without a process.

fn main() -> std::process::ExitCode {
    arena::cli::main()
}
