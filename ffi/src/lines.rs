//! One engine's output, from the session's writes to the host: the
//! [`LineWriter`] the session's `protocol::output::Output` writes through
//! cuts the byte stream into lines and queues them in [`Lines`]; the host
//! takes them with `chariot_poll` ([`Lines::poll`]) or the engine's output
//! thread hands them to the host's callback ([`Lines::deliver`]).
//!
//! The queue is bounded ([`CHARIOT_MAX_QUEUED_LINES`]): when it is full, the writing
//! thread (the session or the search) waits for room, as the binary waits
//! on a full stdout pipe, so a host that never reads cannot make the
//! engine eat memory. Closing ([`Lines::close`], at `chariot_destroy`)
//! drops the queue, forgets the callback and wakes every waiter, so that
//! nothing waits on a host that has let go.

use std::cell::Cell;
use std::collections::VecDeque;
use std::ffi::{CString, c_char, c_void};
use std::io::{self, Write};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::{CHARIOT_MAX_QUEUED_LINES, ChariotLineCallback, ChariotStatus};

/// The host's callback and its `user` pointer.
#[derive(Clone, Copy, Debug)]
pub struct Callback {
    f: unsafe extern "C" fn(*mut c_void, *const c_char, usize),
    user: *mut c_void,
}

// SAFETY: `user` is the host's pointer, never dereferenced here, only
// passed back to the host's function; `chariot_new` and
// `chariot_set_callback` require the pair to be callable from another
// thread.
unsafe impl Send for Callback {}

impl Callback {
    /// The callback, or `None` for polling (a NULL function).
    pub fn new(f: ChariotLineCallback, user: *mut c_void) -> Option<Callback> {
        f.map(|f| Callback { f, user })
    }

    /// Hands `line` to the host.
    fn call(self, line: &CString) {
        let bytes = line.as_bytes();
        // SAFETY: the host promised that `f` may be called with `user` on
        // this thread; the text is NUL-terminated, `len` bytes long before
        // the NUL, and lives until the call returns.
        unsafe { (self.f)(self.user, line.as_ptr(), bytes.len()) }
    }
}

thread_local! {
    /// Whether this thread is inside a host callback.
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is inside an output callback (of any
/// engine): there, the calls that wait for callbacks to return must
/// refuse, or they would wait for themselves — or, across two engines,
/// for each other.
pub fn in_callback() -> bool {
    IN_CALLBACK.with(Cell::get)
}

/// What [`Lines::poll`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Polled {
    /// The next line, taken from the queue (it fits the buffer).
    Line(CString),
    /// The next line needs a buffer of this length plus one for the NUL;
    /// it stays queued.
    TooSmall(usize),
    /// No line: [`ChariotStatus::WouldBlock`],
    /// [`ChariotStatus::SessionEnded`] or
    /// [`ChariotStatus::InvalidHandle`] (closed).
    Nothing(ChariotStatus),
}

/// The queue and the callback of one engine, shared by the session's
/// writer, the output thread and the host's calls.
///
/// Invariants: once `closed`, the queue stays empty and the callback
/// `None`; once `ended`, nothing is queued any more. `in_flight` is the
/// generation of the callback being called outside the lock, if any;
/// `generation` counts callback changes, so a change can wait for the
/// calls of the callbacks it replaced.
pub struct Lines {
    state: Mutex<State>,
    /// Signalled on every change of `state`.
    changed: Condvar,
}

#[derive(Debug)]
struct State {
    queue: VecDeque<CString>,
    callback: Option<Callback>,
    generation: u64,
    in_flight: Option<u64>,
    /// The session has ended: no more lines will come.
    ended: bool,
    /// The engine is being destroyed.
    closed: bool,
}

impl Lines {
    /// An empty, open queue delivering to `callback` (`None`: polling).
    pub fn new(callback: Option<Callback>) -> Lines {
        Lines {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                callback,
                generation: 0,
                in_flight: None,
                ended: false,
                closed: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'a>(&self, state: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues one line, waiting while the queue is full; dropped when
    /// closed.
    pub fn push(&self, line: CString) {
        let mut state = self.lock();
        while !state.closed && state.queue.len() >= CHARIOT_MAX_QUEUED_LINES {
            state = self.wait(state);
        }
        if !state.closed {
            state.queue.push_back(line);
            self.changed.notify_all();
        }
    }

    /// Records that the session has ended: once the queue is empty,
    /// [`Lines::poll`] says so.
    pub fn end(&self) {
        self.lock().ended = true;
        self.changed.notify_all();
    }

    /// Drops the queue and the callback and wakes every waiter; the
    /// output thread returns once a callback in progress has.
    pub fn close(&self) {
        let mut state = self.lock();
        state.closed = true;
        state.callback = None;
        state.queue.clear();
        self.changed.notify_all();
    }

    /// Replaces the callback; then, unless called from inside a callback,
    /// waits until no call of an older callback is in progress.
    pub fn set_callback(&self, callback: Option<Callback>) -> ChariotStatus {
        let mut state = self.lock();
        if state.closed {
            return ChariotStatus::InvalidHandle;
        }
        state.callback = callback;
        state.generation += 1;
        let current = state.generation;
        self.changed.notify_all();
        if !in_callback() {
            while state.in_flight.is_some_and(|g| g < current) {
                state = self.wait(state);
            }
        }
        ChariotStatus::Ok
    }

    /// Takes the next line if it fits `cap` bytes with its NUL, when no
    /// callback is set, waiting up to `timeout` (`None`: without limit)
    /// for one.
    pub fn poll(&self, cap: usize, timeout: Option<Duration>) -> Polled {
        // A deadline too far off to represent is no deadline.
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        let mut state = self.lock();
        loop {
            if state.closed {
                return Polled::Nothing(ChariotStatus::InvalidHandle);
            }
            if state.callback.is_none()
                && let Some(len) = state.queue.front().map(|l| l.as_bytes().len())
            {
                if len >= cap {
                    return Polled::TooSmall(len);
                }
                if let Some(line) = state.queue.pop_front() {
                    self.changed.notify_all();
                    return Polled::Line(line);
                }
            }
            if state.ended && state.queue.is_empty() {
                return Polled::Nothing(ChariotStatus::SessionEnded);
            }
            state = match (timeout, deadline) {
                (None, _) | (Some(_), None) => self.wait(state),
                (Some(_), Some(deadline)) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Polled::Nothing(ChariotStatus::WouldBlock);
                    }
                    self.changed
                        .wait_timeout(state, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        }
    }

    /// The output thread's work: hands each queued line to the callback,
    /// when one is set, until closed. The call is made without the lock,
    /// so that the callback may send, poll, or take long without holding
    /// up the session's writes beyond the queue's bound.
    pub fn deliver(&self) {
        IN_CALLBACK.with(|c| c.set(true));
        let mut state = self.lock();
        loop {
            if state.closed {
                return;
            }
            let next = match state.callback {
                Some(callback) => state.queue.pop_front().map(|line| (callback, line)),
                None => None,
            };
            let Some((callback, line)) = next else {
                state = self.wait(state);
                continue;
            };
            state.in_flight = Some(state.generation);
            // Room for a writer waiting on a full queue.
            self.changed.notify_all();
            drop(state);
            callback.call(&line);
            state = self.lock();
            state.in_flight = None;
            self.changed.notify_all();
        }
    }
}

/// The session's output sink: cuts what the session writes into lines
/// (at LF; the session writes nothing else as a line end) and queues
/// them. A NUL byte, which no protocol line holds, becomes `?` so every
/// line is a C string.
pub struct LineWriter {
    lines: Arc<Lines>,
    partial: Vec<u8>,
}

impl LineWriter {
    /// A writer queueing into `lines`.
    pub fn new(lines: Arc<Lines>) -> LineWriter {
        LineWriter {
            lines,
            partial: Vec::new(),
        }
    }

    fn push_partial(&mut self) {
        let mut bytes = std::mem::take(&mut self.partial);
        for b in &mut bytes {
            if *b == 0 {
                *b = b'?';
            }
        }
        // No NUL is left, so this cannot fail.
        if let Ok(line) = CString::new(bytes) {
            self.lines.push(line);
        }
    }
}

impl Write for LineWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&rest[..end]);
            self.push_partial();
            rest = &rest[end + 1..];
        }
        self.partial.extend_from_slice(rest);
        Ok(buf.len())
    }

    /// Lines are queued as their LF arrives; there is nothing to flush.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for LineWriter {
    /// A last line without its LF still counts.
    fn drop(&mut self) {
        if !self.partial.is_empty() {
            self.push_partial();
        }
    }
}

#[cfg(test)]
mod tests;
