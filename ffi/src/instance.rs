//! One engine: the session thread that runs `protocol::session::Session`
//! exactly as the binary's main thread does, the output thread that calls
//! the host's callback ([`Lines::deliver`]), the sender that feeds the
//! session, and the shutdown that stops and joins them.
//!
//! Text from the host is cut into lines by the binary's own line reader
//! (`protocol::reader::read_line`, so LF, CRLF and a lone CR end lines
//! alike and the same length limit holds) and parsed by the binary's
//! `protocol::reader::parse_line`; what the binary would decode leniently
//! (invalid UTF-8) or cut (an overlong line) is refused here with a status
//! instead, before anything of the text is sent.

use std::io::Cursor;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use protocol::command::Command;
use protocol::output::Output;
use protocol::reader::{self, LineRead, MAX_LINE};
use protocol::session::{Input, Session};

use crate::ChariotStatus;
use crate::lines::{Callback, LineWriter, Lines};
use crate::panics;

/// A running engine, shared by the registry and the calls using it.
///
/// Invariant: `input.tx` is `None` only after [`Instance::shut_down`]
/// began; `threads` holds both threads until then.
pub struct Instance {
    input: Mutex<Sending>,
    lines: Arc<Lines>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

/// The session's input side. Its lock also keeps the lines of one
/// `chariot_send` together.
struct Sending {
    /// `None` once the engine is being destroyed.
    tx: Option<Sender<Input>>,
    /// `quit` has been sent: the session is ending or has ended.
    quit: bool,
}

impl Instance {
    /// Starts an engine: its output thread, then its session thread.
    ///
    /// # Errors
    /// [`ChariotStatus::NoThread`] when a thread cannot be started (any
    /// thread already started is stopped and joined).
    pub fn start(callback: Option<Callback>) -> Result<Arc<Instance>, ChariotStatus> {
        let lines = Arc::new(Lines::new(callback));
        let output = {
            let lines = Arc::clone(&lines);
            std::thread::Builder::new()
                .name("chariot-output".to_string())
                .spawn(move || panics::quietly(|| lines.deliver()))
                .map_err(|_| ChariotStatus::NoThread)?
        };
        let (tx, rx) = crossbeam_channel::unbounded();
        let session = {
            let lines = Arc::clone(&lines);
            std::thread::Builder::new()
                .name("chariot-session".to_string())
                .spawn(move || panics::quietly(|| run_session(&rx, &lines)))
        };
        let Ok(session) = session else {
            lines.close();
            let _ = output.join();
            return Err(ChariotStatus::NoThread);
        };
        Ok(Arc::new(Instance {
            input: Mutex::new(Sending {
                tx: Some(tx),
                quit: false,
            }),
            lines,
            threads: Mutex::new(vec![session, output]),
        }))
    }

    /// The engine's output.
    pub fn lines(&self) -> &Lines {
        &self.lines
    }

    fn input(&self) -> MutexGuard<'_, Sending> {
        self.input.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sends the lines of `text` to the session (`chariot_send`'s rules).
    pub fn send(&self, text: &[u8]) -> ChariotStatus {
        let inputs = match split(text) {
            Ok(inputs) => inputs,
            Err(status) => return status,
        };
        let mut input = self.input();
        let Sending { tx, quit } = &mut *input;
        let Some(tx) = tx else {
            return ChariotStatus::InvalidHandle;
        };
        if *quit {
            return ChariotStatus::SessionEnded;
        }
        for item in inputs {
            if *quit {
                // A line after `quit` in the same text.
                return ChariotStatus::SessionEnded;
            }
            *quit = matches!(item, Input::Line(Ok(Command::Quit)));
            if tx.send(item).is_err() {
                // The session ended without `quit`: an internal error.
                return ChariotStatus::SessionEnded;
            }
        }
        ChariotStatus::Ok
    }

    /// Destroys the engine (`chariot_destroy`): closes the output (no
    /// callback starts after this, and joining the output thread waits for
    /// one in progress), stops the session at once with [`Input::Abort`]
    /// and joins both threads; the session joins the engine's search
    /// threads as it drops the engine.
    pub fn shut_down(&self) {
        self.lines.close();
        if let Some(tx) = self.input().tx.take() {
            // Fails only when the session has already ended.
            let _ = tx.send(Input::Abort);
        }
        let threads =
            std::mem::take(&mut *self.threads.lock().unwrap_or_else(PoisonError::into_inner));
        for thread in threads {
            // Both threads catch their panics, so a join cannot fail.
            let _ = thread.join();
        }
    }
}

/// The session thread: the binary's session over the engine's output,
/// until `quit` or [`Input::Abort`]. A panic (a bug) ends the session with
/// an `info string` saying so, instead of taking the host down.
fn run_session(rx: &Receiver<Input>, lines: &Arc<Lines>) {
    let out = Output::new(Box::new(LineWriter::new(Arc::clone(lines))));
    let ran = catch_unwind(AssertUnwindSafe(|| Session::new(out.clone()).run(rx)));
    if let Err(payload) = ran {
        out.diagnostic(&format!(
            "internal error, the session has ended: {}",
            panics::message(&*payload)
        ));
    }
    // The last writer goes with `out`: every line is queued before the
    // end is recorded.
    drop(out);
    lines.end();
}

/// The lines of `text`, parsed, or why none may be sent: the text is not
/// UTF-8 or holds a NUL ([`ChariotStatus::InvalidText`]), or a line is too
/// long ([`ChariotStatus::LineTooLong`]). Blank lines are left out.
fn split(text: &[u8]) -> Result<Vec<Input>, ChariotStatus> {
    if std::str::from_utf8(text).is_err() || text.contains(&0) {
        return Err(ChariotStatus::InvalidText);
    }
    let mut reader = Cursor::new(text);
    let (mut buf, mut after_cr) = (Vec::new(), false);
    let mut inputs = Vec::new();
    loop {
        match reader::read_line(&mut reader, &mut buf, MAX_LINE, &mut after_cr) {
            Ok(LineRead::End) => return Ok(inputs),
            Ok(LineRead::TooLong) => return Err(ChariotStatus::LineTooLong),
            Ok(LineRead::Line) => match reader::parse_line(&buf) {
                Input::Line(Ok(Command::Empty)) => {}
                item => inputs.push(item),
            },
            // Reading from memory cannot fail.
            Err(_) => return Err(ChariotStatus::Internal),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::CString;

    use super::*;
    use crate::lines::Polled;

    fn commands(text: &str) -> Vec<String> {
        split(text.as_bytes())
            .expect("valid text")
            .into_iter()
            .map(|item| match item {
                Input::Line(Ok(c)) => format!("{c:?}"),
                other => format!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn text_is_cut_into_lines_as_the_reader_cuts_stdin() {
        assert_eq!(commands("isready"), ["IsReady"]);
        assert_eq!(commands("isready\n"), ["IsReady"]);
        assert_eq!(
            commands("isready\r\nquit\rstop\n\n  \n"),
            ["IsReady", "Quit", "Stop"]
        );
        assert!(commands("").is_empty());
        assert!(commands("\r\n\n").is_empty());
    }

    #[test]
    fn bad_text_sends_nothing() {
        assert_eq!(
            split(b"isready\n\xff").err(),
            Some(ChariotStatus::InvalidText)
        );
        assert_eq!(
            split(b"isready\0quit").err(),
            Some(ChariotStatus::InvalidText)
        );
        let mut long = b"isready\n".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_LINE + 1));
        assert_eq!(split(&long).err(), Some(ChariotStatus::LineTooLong));
        long.truncate(8 + MAX_LINE);
        assert_eq!(split(&long).map(|v| v.len()), Ok(2));
    }

    #[test]
    fn the_session_runs_until_quit_and_later_sends_are_refused() {
        let engine = Instance::start(None).expect("threads start");
        assert_eq!(
            engine.send(b"isready\nquit\nisready"),
            ChariotStatus::SessionEnded
        );
        assert_eq!(engine.send(b"isready"), ChariotStatus::SessionEnded);
        let mut got = Vec::new();
        loop {
            match engine.lines().poll(100, None) {
                Polled::Line(l) => got.push(l),
                other => {
                    assert_eq!(other, Polled::Nothing(ChariotStatus::SessionEnded));
                    break;
                }
            }
        }
        assert_eq!(got, [CString::new("readyok").expect("no NUL")]);
        engine.shut_down();
        assert_eq!(engine.send(b"isready"), ChariotStatus::InvalidHandle);
    }
}
