//! Builds `tests/c/abi_test.c` with the system C compiler (`cc`, or `$CC`)
//! against the static library this build made and the committed header,
//! then runs it: handshakes, a search, `stop`, two engines at once,
//! destroy during a search and every misuse case, checked from C as a
//! GUI would call the library (the checks are in the C file).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the C program may run before it counts as hung: far more
/// than it needs (a few seconds) on a loaded machine.
const HANG: Duration = Duration::from_secs(300);

/// The system libraries a Rust static library needs (what `rustc --print
/// native-static-libs` lists for the target).
const NATIVE_LIBS: &[&str] = if cfg!(target_os = "macos") {
    &["-lSystem", "-lc", "-lm"]
} else {
    &[
        "-lgcc_s",
        "-lutil",
        "-lrt",
        "-lpthread",
        "-lm",
        "-ldl",
        "-lc",
    ]
};

/// `libchariot.a` of this build: cargo puts it beside this test's
/// executable, in `target/<profile>/deps`.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let deps = exe.parent().expect("the test sits in a directory");
    [deps, deps.parent().unwrap_or(deps)]
        .iter()
        .map(|dir| dir.join("libchariot.a"))
        .find(|path| path.exists())
        .expect("cargo built libchariot.a beside the test")
}

#[test]
fn the_c_program_passes_every_check() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let program = Path::new(env!("CARGO_TARGET_TMPDIR")).join("chariot_abi_test");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let built = Command::new(&compiler)
        .args([
            "-std=c11",
            "-D_POSIX_C_SOURCE=200809L",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .arg("-pthread")
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg(crate_dir.join("tests/c/abi_test.c"))
        .arg(static_library())
        .args(NATIVE_LIBS)
        .arg("-o")
        .arg(&program)
        .status()
        .unwrap_or_else(|e| panic!("cannot run the C compiler {compiler:?}: {e}"));
    assert!(built.success(), "the C test program did not build");

    // Files, not pipes: a full pipe must not stall the program.
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let (out_path, err_path) = (
        tmp.join("chariot_abi_test.out"),
        tmp.join("chariot_abi_test.err"),
    );
    let file = |path: &Path| std::fs::File::create(path).expect("a file in the target directory");
    let mut child = Command::new(&program)
        .stdin(Stdio::null())
        .stdout(file(&out_path))
        .stderr(file(&err_path))
        .spawn()
        .expect("the C test program starts");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("the program can be waited for") {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            panic!("the C test program hung for {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    let (stdout, stderr) = (read(&out_path), read(&err_path));
    assert!(
        status.success(),
        "the C checks failed ({status}):\n{stderr}{stdout}"
    );
    // The library printed nothing itself: the one stdout line is the
    // program's verdict, and stderr is empty.
    assert!(stdout.starts_with("all C ABI checks passed ("), "{stdout}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stderr.is_empty(), "{stderr}");
}
