//! Panics never cross into the host and never print: every entry point
//! runs under [`guard`], the engine's own threads under [`quietly`].
//!
//! Rust's default panic hook writes the message to stderr before the panic
//! unwinds to whoever catches it, and a library must print nothing. So
//! the first call installs a hook that stays silent on a thread marked
//! quiet (ours, and a host thread while it is inside a Chariot call) and
//! hands every other panic to the hook that was there before, so a Rust
//! host keeps its own reporting. The hook is process-wide but holds no
//! engine state. The catching side reports the message instead, as an
//! `info string` line ([`message`]). Panics on the engine's search threads
//! are caught by the engine itself; their hook message is not silenced,
//! since those threads are the engine's and not marked here.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use crate::ChariotStatus;

thread_local! {
    /// Whether a panic on this thread is kept off stderr.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Installs the silencing hook once per process.
fn install_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `f` with this thread's panics kept off stderr (they still unwind).
pub fn quietly<T>(f: impl FnOnce() -> T) -> T {
    /// Puts the flag back however `f` ends, unwinding included.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            QUIET.with(|q| q.set(self.0));
        }
    }
    install_hook();
    let _restore = Restore(QUIET.with(|q| q.replace(true)));
    f()
}

/// Runs an entry point's body: a panic becomes [`ChariotStatus::Internal`]
/// instead of unwinding into the caller, which would be undefined
/// behaviour.
pub fn guard(f: impl FnOnce() -> ChariotStatus) -> ChariotStatus {
    guard_or(ChariotStatus::Internal, f)
}

/// [`guard`] for an entry point that returns something else: `fallback`
/// when `f` panics.
pub fn guard_or<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    quietly(|| catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback))
}

/// The text a panic carried (a `panic!` message is a `&str` or a
/// `String`).
pub fn message(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guard_turns_a_panic_into_a_status_and_restores_the_flag() {
        assert_eq!(guard(|| ChariotStatus::Ok), ChariotStatus::Ok);
        assert_eq!(guard(|| panic!("boom")), ChariotStatus::Internal);
        assert_eq!(guard_or(7, || -> i32 { panic!("boom") }), 7);
        assert!(!QUIET.with(Cell::get));
        let nested = quietly(|| quietly(|| QUIET.with(Cell::get)) && QUIET.with(Cell::get));
        assert!(nested);
        assert!(!QUIET.with(Cell::get));
    }

    #[test]
    fn messages_of_both_payload_kinds() {
        let caught = |f: fn()| quietly(|| catch_unwind(f).unwrap_err());
        let text = caught(|| panic!("plain"));
        assert_eq!(message(&*text), "plain");
        let formatted = caught(|| panic!("{} {}", "with", 2));
        assert_eq!(message(&*formatted), "with 2");
        let other = caught(|| std::panic::panic_any(5_u8));
        assert_eq!(message(&*other), "a panic without a message");
    }
}
