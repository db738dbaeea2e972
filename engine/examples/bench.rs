//! Runs [`engine::bench::run`] from the command line, for measurements:
//! `cargo run --release -p engine --example bench -- --depth 8 --tt two-tier --hash 16 [--store-qs on|off]`,
//! the flags of `chariot bench`, spelled the same.

use engine::bench::{BenchOptions, run};

fn main() {
    let mut opts = BenchOptions::default();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).map(String::as_str).unwrap_or("");
        match args[i].as_str() {
            "--depth" => opts.depth = value.parse().ok(),
            "--hash" => opts.hash_mb = value.parse().unwrap_or(16),
            "--tt" => opts.tt = value.parse().unwrap_or_else(|e: String| exit(&e)),
            "--store-qs" => {
                opts.store_qs = match value {
                    "on" => true,
                    "off" => false,
                    _ => exit(&format!("--store-qs takes on or off, not '{value}'")),
                };
            }
            other => exit(&format!("unknown option {other}")),
        }
        i += 2;
    }
    if let Err(e) = run(&opts, &mut std::io::stdout().lock()) {
        exit(&e.to_string());
    }
}

fn exit(msg: &str) -> ! {
    eprintln!("bench: {msg}");
    std::process::exit(2);
}
