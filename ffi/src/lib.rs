//! Chariot as a library: a C ABI over the very session the `chariot`
//! binary runs (`protocol::session::Session`), for hosts that cannot start
//! an executable (Android 10+, iOS) or prefer not to. The host sends
//! protocol lines and receives protocol lines, exactly the text of
//! `docs/ucci.md`; this crate adds no protocol of its own.
//!
//! This file is the whole C surface: the types and functions cbindgen
//! writes into `include/chariot.h` (their `///` comments become the
//! header's documentation, so they are written for C programmers). Each
//! entry point checks its pointers, catches any panic (`panics`) and
//! turns every failure into a [`ChariotStatus`]. The work lives in the
//! private modules: `registry` (handles to engines), `instance` (one
//! engine: its threads, input and shutdown) and `lines` (its output: the
//! queue, the callback, polling).
//!
//! Nothing here writes to stdout or stderr: diagnostics are protocol
//! `info string` lines, and a caught panic's message is one too.

mod instance;
mod lines;
mod panics;
mod registry;

use std::ffi::{CStr, c_char, c_void};
use std::sync::OnceLock;
use std::time::Duration;

use crate::instance::Instance;
use crate::lines::{Callback, Polled};

/// A handle to one engine: an opaque, non-zero number that `chariot_new`
/// hands out. Handles are never reused within a process, so a destroyed
/// handle stays invalid (every call with it answers
/// `CHARIOT_STATUS_INVALID_HANDLE`) instead of reaching another engine. 0 is
/// never a valid handle.
pub type ChariotEngine = u64;

/// Receives one output line of an engine.
///
/// `line` is the line without its line end, UTF-8 (in practice ASCII),
/// followed by a NUL byte; `len` is its length in bytes, the NUL not
/// counted. The text is valid only during the call: copy what you keep.
/// `user` is the pointer given with the callback.
///
/// Each engine calls its callback on one thread of its own (never on the
/// thread that called `chariot_send`), one line at a time, in output
/// order. Inside the callback you may call `chariot_send`, `chariot_poll`,
/// `chariot_version` and `chariot_status_name`; `chariot_set_callback` and
/// `chariot_destroy` answer `CHARIOT_STATUS_IN_CALLBACK` there (they wait
/// for callbacks to return, so they would wait for themselves). A GUI
/// typically posts the line to its UI thread.
pub type ChariotLineCallback =
    Option<unsafe extern "C" fn(user: *mut c_void, line: *const c_char, len: usize)>;

/// `timeout_ms` for `chariot_poll` that waits until a line comes, the
/// session ends or the engine is destroyed.
pub const CHARIOT_POLL_FOREVER: u32 = u32::MAX;

/// The most output lines an engine queues for the host: when that many
/// wait, the engine's threads wait for the host to take some (through
/// `chariot_poll` or the callback), as the binary waits when the GUI does
/// not read its pipe, so that a host that never reads cannot make the
/// engine eat memory.
pub const CHARIOT_MAX_QUEUED_LINES: usize = 1 << 16;

/// What a call did. Every function but `chariot_version` and
/// `chariot_status_name` returns one; `chariot_status_name` names it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChariotStatus {
    /// Done.
    Ok = 0,
    /// `chariot_poll`: no line is waiting (none came within the timeout);
    /// the session goes on.
    WouldBlock = 1,
    /// The session has ended: after `quit` (or after an internal error,
    /// reported as an `info string` line). `chariot_send` sends nothing
    /// more; `chariot_poll` answers this once every remaining line has been
    /// taken. The handle stays valid until `chariot_destroy`.
    SessionEnded = 2,
    /// `chariot_poll`: the next line does not fit in the buffer. `*len`
    /// holds its length (the buffer needs one byte more, for the NUL); the
    /// line stays first in the queue.
    BufferTooSmall = 3,
    /// A pointer that must not be NULL was NULL; nothing was done.
    NullPointer = 4,
    /// The handle is 0, was never handed out, or has been destroyed.
    InvalidHandle = 5,
    /// The text is not UTF-8, or holds a NUL byte; nothing was sent.
    InvalidText = 6,
    /// A line of the text is longer than the protocol allows (1 MiB); nothing
    /// was sent.
    LineTooLong = 7,
    /// `chariot_set_callback` or `chariot_destroy` called from inside an
    /// output callback; nothing was done.
    InCallback = 8,
    /// The system would not start a thread; no engine was created.
    NoThread = 9,
    /// A bug in Chariot was caught before it could cross into the caller;
    /// the call did nothing or did it only in part.
    Internal = 10,
}

/// Every status, in code order.
const STATUSES: [ChariotStatus; 11] = [
    ChariotStatus::Ok,
    ChariotStatus::WouldBlock,
    ChariotStatus::SessionEnded,
    ChariotStatus::BufferTooSmall,
    ChariotStatus::NullPointer,
    ChariotStatus::InvalidHandle,
    ChariotStatus::InvalidText,
    ChariotStatus::LineTooLong,
    ChariotStatus::InCallback,
    ChariotStatus::NoThread,
    ChariotStatus::Internal,
];

impl ChariotStatus {
    /// The status with this code, if any.
    pub fn from_code(code: i32) -> Option<ChariotStatus> {
        STATUSES.into_iter().find(|&s| s as i32 == code)
    }

    /// The status's constant name in the header.
    pub fn name(self) -> &'static CStr {
        match self {
            ChariotStatus::Ok => c"CHARIOT_STATUS_OK",
            ChariotStatus::WouldBlock => c"CHARIOT_STATUS_WOULD_BLOCK",
            ChariotStatus::SessionEnded => c"CHARIOT_STATUS_SESSION_ENDED",
            ChariotStatus::BufferTooSmall => c"CHARIOT_STATUS_BUFFER_TOO_SMALL",
            ChariotStatus::NullPointer => c"CHARIOT_STATUS_NULL_POINTER",
            ChariotStatus::InvalidHandle => c"CHARIOT_STATUS_INVALID_HANDLE",
            ChariotStatus::InvalidText => c"CHARIOT_STATUS_INVALID_TEXT",
            ChariotStatus::LineTooLong => c"CHARIOT_STATUS_LINE_TOO_LONG",
            ChariotStatus::InCallback => c"CHARIOT_STATUS_IN_CALLBACK",
            ChariotStatus::NoThread => c"CHARIOT_STATUS_NO_THREAD",
            ChariotStatus::Internal => c"CHARIOT_STATUS_INTERNAL",
        }
    }
}

/// The library's version: the package version, the commit it was built
/// from and the build date, e.g. `0.1.0 (commit 1a2b3c4, built
/// 2026-11-26)` (what `chariot --version` prints). A static NUL-terminated
/// string; never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn chariot_version() -> *const c_char {
    static VERSION: OnceLock<Box<CStr>> = OnceLock::new();
    panics::guard_or(c"unknown".as_ptr(), || {
        VERSION
            .get_or_init(|| {
                std::ffi::CString::new(protocol::VERSION)
                    .map_or_else(|_| c"unknown".into(), Into::into)
            })
            .as_ptr()
    })
}

/// The name of a status code, such as `"CHARIOT_STATUS_OK"`, for messages;
/// `"CHARIOT_STATUS_UNKNOWN"` for a number that is no status. A static
/// NUL-terminated string; never NULL, never to be freed.
#[unsafe(no_mangle)]
pub extern "C" fn chariot_status_name(status: i32) -> *const c_char {
    ChariotStatus::from_code(status)
        .map_or(c"CHARIOT_STATUS_UNKNOWN", ChariotStatus::name)
        .as_ptr()
}

/// Creates an engine and starts its session, exactly as the `chariot`
/// binary starts: at the start position, answering in UCI forms until the
/// host sends `ucci` or `uci`. Writes the new handle to `*engine` (0 on
/// failure).
///
/// Output lines go to `callback` when it is not NULL (see
/// `ChariotLineCallback`; `user` is passed back to it untouched), otherwise
/// they queue for `chariot_poll`. Either way, every line is delivered
/// exactly once and in order. Engines are independent: any number may run
/// side by side in one process, each with its own threads, options and
/// hash table.
///
/// Returns `CHARIOT_STATUS_OK`, `CHARIOT_STATUS_NULL_POINTER` (`engine` is
/// NULL) or `CHARIOT_STATUS_NO_THREAD`.
///
/// # Safety
///
/// `engine` must be NULL or point to a writable `ChariotEngine`. A
/// non-NULL `callback` must be safe to call with `user` from another thread
/// until it is replaced (`chariot_set_callback`) or the engine is
/// destroyed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chariot_new(
    callback: ChariotLineCallback,
    user: *mut c_void,
    engine: *mut ChariotEngine,
) -> ChariotStatus {
    panics::guard(|| {
        if engine.is_null() {
            return ChariotStatus::NullPointer;
        }
        let started = Instance::start(Callback::new(callback, user));
        let (handle, status) = match started {
            Ok(instance) => (registry::insert(instance), ChariotStatus::Ok),
            Err(status) => (0, status),
        };
        // SAFETY: not NULL (checked above), and the caller promises it
        // points to a writable ChariotEngine.
        unsafe { engine.write(handle) };
        status
    })
}

/// Sends protocol text to the engine: one line, or several.
///
/// `text` is a NUL-terminated UTF-8 string. It is cut into lines at LF,
/// CRLF or a lone CR, as the binary reads stdin; a line end after the last
/// line is optional, so `"isready"` and `"isready\n"` send the same line,
/// and `"position startpos\ngo depth 5"` sends two. The empty string sends
/// nothing. The lines of one call reach the session together and in order,
/// even when other threads send to the same engine at the same time.
///
/// The call never waits for the engine: replies come later, through the
/// callback or `chariot_poll`. `stop` and `isready` during a search are
/// answered at once; other lines wait for the search's final line
/// (`docs/ucci.md` §9 c).
///
/// `quit` ends the session: later calls answer
/// `CHARIOT_STATUS_SESSION_ENDED`, and so does this one if lines follow
/// `quit` in `text` (those are not sent). The handle stays valid until
/// `chariot_destroy`.
///
/// Returns `CHARIOT_STATUS_OK`, `CHARIOT_STATUS_NULL_POINTER`,
/// `CHARIOT_STATUS_INVALID_HANDLE`, `CHARIOT_STATUS_INVALID_TEXT`,
/// `CHARIOT_STATUS_LINE_TOO_LONG` (the last two send nothing of `text`) or
/// `CHARIOT_STATUS_SESSION_ENDED`.
///
/// # Safety
///
/// `text` must be NULL or a NUL-terminated string readable for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chariot_send(engine: ChariotEngine, text: *const c_char) -> ChariotStatus {
    panics::guard(|| {
        if text.is_null() {
            return ChariotStatus::NullPointer;
        }
        // SAFETY: not NULL, and the caller promises a NUL-terminated string.
        let bytes = unsafe { CStr::from_ptr(text) }.to_bytes();
        with_engine(engine, |instance| instance.send(bytes))
    })
}

/// `chariot_send` for text that is not NUL-terminated (or that comes with
/// its length anyway, as from Java, Swift or Python): the `len` bytes at
/// `text`. The rules are `chariot_send`'s; a NUL byte among them is
/// `CHARIOT_STATUS_INVALID_TEXT`.
///
/// # Safety
///
/// `text` must be NULL or point to `len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chariot_send_len(
    engine: ChariotEngine,
    text: *const c_char,
    len: usize,
) -> ChariotStatus {
    panics::guard(|| {
        if text.is_null() {
            return ChariotStatus::NullPointer;
        }
        if isize::try_from(len).is_err() {
            return ChariotStatus::LineTooLong;
        }
        // SAFETY: not NULL, at most isize::MAX bytes, and the caller
        // promises `len` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(text.cast::<u8>(), len) };
        with_engine(engine, |instance| instance.send(bytes))
    })
}

/// Replaces the engine's output callback (see `ChariotLineCallback`):
/// lines from now on, and any still queued for `chariot_poll`, go to the
/// new callback with `user`; NULL switches to polling. When this returns,
/// the old callback is not running and will not be called again, so its
/// `user` data may be freed.
///
/// Returns `CHARIOT_STATUS_OK`, `CHARIOT_STATUS_INVALID_HANDLE` or
/// `CHARIOT_STATUS_IN_CALLBACK`.
///
/// # Safety
///
/// As for `chariot_new`: a non-NULL `callback` must be safe to call with
/// `user` from another thread until it is replaced or the engine is
/// destroyed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chariot_set_callback(
    engine: ChariotEngine,
    callback: ChariotLineCallback,
    user: *mut c_void,
) -> ChariotStatus {
    panics::guard(|| {
        if lines::in_callback() {
            return ChariotStatus::InCallback;
        }
        with_engine(engine, |instance| {
            instance.lines().set_callback(Callback::new(callback, user))
        })
    })
}

/// Takes the next output line, when the engine has no callback.
///
/// Waits up to `timeout_ms` milliseconds for a line (0: not at all;
/// `CHARIOT_POLL_FOREVER`: until a line comes, the session ends or another
/// thread destroys the engine). On `CHARIOT_STATUS_OK` the line, without
/// its line end and followed by a NUL byte, is in `buf`, and `*len` holds
/// its length without the NUL. Lines are at most a few kilobytes (a
/// `position` diagnostic, the `d` board); a 4096-byte buffer holds any in
/// practice, and `CHARIOT_STATUS_BUFFER_TOO_SMALL` says when one does not:
/// `*len` then holds the length and the line waits for a larger buffer
/// (`buf` may be NULL when `cap` is 0, to ask for the length alone).
///
/// Returns `CHARIOT_STATUS_OK`, `CHARIOT_STATUS_WOULD_BLOCK` (no line came
/// in time; while a callback is set, polling never takes a line),
/// `CHARIOT_STATUS_BUFFER_TOO_SMALL`,
/// `CHARIOT_STATUS_SESSION_ENDED` (no line is left and none will come),
/// `CHARIOT_STATUS_NULL_POINTER` (`len` is NULL, or `buf` is NULL with
/// `cap` above 0) or `CHARIOT_STATUS_INVALID_HANDLE` (also when the engine
/// is destroyed during the wait).
///
/// Poll regularly (or set a callback): the engine waits when
/// `CHARIOT_MAX_QUEUED_LINES` lines are queued.
///
/// # Safety
///
/// `buf` must be NULL or point to `cap` writable bytes, and `len` must be
/// NULL or point to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn chariot_poll(
    engine: ChariotEngine,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
    timeout_ms: u32,
) -> ChariotStatus {
    panics::guard(|| {
        if len.is_null() || (buf.is_null() && cap > 0) {
            return ChariotStatus::NullPointer;
        }
        let timeout = (timeout_ms != CHARIOT_POLL_FOREVER)
            .then(|| Duration::from_millis(u64::from(timeout_ms)));
        with_engine(engine, |instance| {
            match instance.lines().poll(cap, timeout) {
                Polled::Line(line) => {
                    let text = line.as_bytes_with_nul();
                    // SAFETY: `poll` hands out a line only when it fits in
                    // `cap` bytes, NUL included, and the caller promises
                    // `cap` writable bytes at `buf` (not NULL: cap > 0) and
                    // a writable `len` (checked not NULL above).
                    unsafe {
                        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
                        len.write(text.len() - 1);
                    }
                    ChariotStatus::Ok
                }
                Polled::TooSmall(needed) => {
                    // SAFETY: checked not NULL above; the caller promises
                    // it is writable.
                    unsafe { len.write(needed) };
                    ChariotStatus::BufferTooSmall
                }
                Polled::Nothing(status) => status,
            }
        })
    })
}

/// Destroys an engine: stops its search or `go perft` at once (even in
/// batch mode), ends its session, waits for all its threads and frees it.
/// When this returns, the engine's callback is not running and will never
/// be called again, no thread of the engine is left, and the handle is
/// invalid for good. Lines still queued are dropped; a `bench` in progress
/// runs to its end first (about 1.5 s in a release build).
///
/// Any thread may destroy an engine, also while other threads send to it
/// or wait in `chariot_poll` (they get `CHARIOT_STATUS_INVALID_HANDLE`).
/// Destroying after `quit` is still needed, to free the engine.
///
/// Returns `CHARIOT_STATUS_OK`, `CHARIOT_STATUS_INVALID_HANDLE` (0, never
/// handed out, or destroyed already: a second destroy is harmless) or
/// `CHARIOT_STATUS_IN_CALLBACK`.
#[unsafe(no_mangle)]
pub extern "C" fn chariot_destroy(engine: ChariotEngine) -> ChariotStatus {
    panics::guard(|| {
        if lines::in_callback() {
            return ChariotStatus::InCallback;
        }
        match registry::remove(engine) {
            Some(instance) => {
                instance.shut_down();
                ChariotStatus::Ok
            }
            None => ChariotStatus::InvalidHandle,
        }
    })
}

/// Runs `f` on the engine `handle` names, or answers that it names none.
fn with_engine(handle: ChariotEngine, f: impl FnOnce(&Instance) -> ChariotStatus) -> ChariotStatus {
    match registry::get(handle) {
        Some(instance) => f(&instance),
        None => ChariotStatus::InvalidHandle,
    }
}

#[cfg(test)]
mod tests;
