//! The reader thread: reads stdin line by line as bytes, decodes each line
//! lossily, parses it and forwards it to the session. It never searches and
//! never writes to stdout, so it stays responsive whatever the session does.
//!
//! Lines are capped at [`MAX_LINE`] bytes so that endless input without a
//! newline cannot exhaust memory; a longer line is dropped whole (a cut
//! `position` line must not be applied) and reported as malformed.

use std::io::{self, BufRead, ErrorKind};

use crossbeam_channel::Sender;

use crate::command::{Command, ParseError};
use crate::session::Input;

/// The longest line accepted, in bytes: room for a FEN and several
/// thousand moves.
pub const MAX_LINE: usize = 1 << 20;

/// Reads one line (without its `\n`) into `buf`, keeping at most `max`
/// bytes. Returns `None` at end of input, else whether the line was longer
/// than `max`.
///
/// # Errors
/// A read error other than an interruption.
pub fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<bool>> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(any.then_some(too_long));
        }
        any = true;
        let newline = chunk.iter().position(|&b| b == b'\n');
        let take = newline.unwrap_or(chunk.len());
        let room = max.saturating_sub(buf.len());
        if take > room {
            too_long = true;
        }
        buf.extend_from_slice(&chunk[..take.min(room)]);
        let used = newline.map_or(chunk.len(), |i| i + 1);
        reader.consume(used);
        if newline.is_some() {
            return Ok(Some(too_long));
        }
    }
}

/// Reads `reader` to its end, sending every line to `tx`, then
/// [`Input::Eof`]. Returns early when the session has gone.
pub fn run(mut reader: impl BufRead, tx: &Sender<Input>) {
    let mut buf = Vec::new();
    loop {
        let item = match read_line(&mut reader, &mut buf, MAX_LINE) {
            Ok(None) | Err(_) => Input::Eof,
            Ok(Some(true)) => Input::Line(Err(ParseError::Malformed(format!(
                "line longer than {MAX_LINE} bytes ignored"
            )))),
            Ok(Some(false)) => Input::Line(String::from_utf8_lossy(&buf).parse::<Command>()),
        };
        let eof = matches!(item, Input::Eof);
        if tx.send(item).is_err() || eof {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_crlf_and_eof() {
        let mut r = io::Cursor::new(b"ucci\r\n\nisready".to_vec());
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf, 100).unwrap(), Some(false));
        assert_eq!(buf, b"ucci\r");
        assert_eq!(read_line(&mut r, &mut buf, 100).unwrap(), Some(false));
        assert_eq!(buf, b"");
        assert_eq!(read_line(&mut r, &mut buf, 100).unwrap(), Some(false));
        assert_eq!(buf, b"isready");
        assert_eq!(read_line(&mut r, &mut buf, 100).unwrap(), None);
    }

    #[test]
    fn long_lines_are_cut_and_flagged() {
        let mut data = vec![b'x'; 10_000];
        data.extend_from_slice(b"\nquit\n");
        // A small buffer forces many fill_buf rounds.
        let mut r = io::BufReader::with_capacity(7, io::Cursor::new(data));
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf, 100).unwrap(), Some(true));
        assert_eq!(buf.len(), 100);
        assert_eq!(read_line(&mut r, &mut buf, 100).unwrap(), Some(false));
        assert_eq!(buf, b"quit");
    }

    #[test]
    fn forwards_parsed_lines_then_eof() {
        let (tx, rx) = crossbeam_channel::unbounded();
        run(io::Cursor::new(b"isready\n\xff\xfe junk\n".to_vec()), &tx);
        let items: Vec<Input> = rx.try_iter().collect();
        assert_eq!(items.len(), 3);
        assert!(matches!(items[0], Input::Line(Ok(Command::IsReady))));
        assert!(matches!(&items[1], Input::Line(Err(ParseError::Unknown(t))) if t == "??"));
        assert!(matches!(items[2], Input::Eof));
    }
}
