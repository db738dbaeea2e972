//! The reader thread: reads stdin line by line as bytes (LF, CRLF or bare
//! CR ending a line), decodes each line lossily, parses it and forwards it
//! to the session. It never searches and never writes to stdout, so it
//! stays responsive whatever the session does.
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

/// What [`read_line`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A whole line, now in the buffer.
    Line,
    /// A line longer than the limit: the buffer holds only its start, and
    /// the rest was skipped.
    TooLong,
    /// The end of input; the buffer is empty.
    End,
}

/// Reads one line, without its line end, into `buf`, keeping at most
/// `max` bytes. A line ends at LF, at CRLF or at a bare CR (classic Mac
/// line ends, which some GUIs still send). Says whether it read a line, a
/// line longer than `max`, or the end of input.
///
/// `after_cr` carries state between calls: a line that ended at CR sets
/// it, so that the LF of a CRLF pair, which may arrive only with the next
/// read, is skipped instead of being read as an empty line. A line must be
/// returned as soon as its CR arrives: the GUI may wait for our answer
/// before it sends anything else.
///
/// # Errors
/// A read error other than an interruption.
pub fn read_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
    after_cr: &mut bool,
) -> io::Result<LineRead> {
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
            // Input that ends without a line end still ends its last line.
            return Ok(if any {
                line_read(too_long)
            } else {
                LineRead::End
            });
        }
        if std::mem::take(after_cr) && chunk[0] == b'\n' {
            reader.consume(1);
            continue;
        }
        any = true;
        let end = chunk.iter().position(|&b| b == b'\n' || b == b'\r');
        let take = end.unwrap_or(chunk.len());
        let room = max.saturating_sub(buf.len());
        if take > room {
            too_long = true;
        }
        buf.extend_from_slice(&chunk[..take.min(room)]);
        let ended_by = end.map(|i| chunk[i]);
        let used = end.map_or(chunk.len(), |i| i + 1);
        reader.consume(used);
        if let Some(byte) = ended_by {
            *after_cr = byte == b'\r';
            return Ok(line_read(too_long));
        }
    }
}

fn line_read(too_long: bool) -> LineRead {
    if too_long {
        LineRead::TooLong
    } else {
        LineRead::Line
    }
}

/// One line (without its line end) as the session takes it: decoded
/// leniently (invalid UTF-8 becomes a replacement character, which no
/// keyword matches) and parsed. The reader and the C library both read
/// lines through this.
pub fn parse_line(line: &[u8]) -> Input {
    Input::Line(String::from_utf8_lossy(line).parse::<Command>())
}

/// Reads `reader` to its end, sending every line to `tx`, then
/// [`Input::Eof`]. Returns early when the session has gone.
pub fn run(mut reader: impl BufRead, tx: &Sender<Input>) {
    let mut buf = Vec::new();
    let mut after_cr = false;
    loop {
        let item = match read_line(&mut reader, &mut buf, MAX_LINE, &mut after_cr) {
            Ok(LineRead::End) | Err(_) => Input::Eof,
            Ok(LineRead::TooLong) => Input::Line(Err(ParseError::Malformed(format!(
                "line longer than {MAX_LINE} bytes ignored"
            )))),
            Ok(LineRead::Line) => parse_line(&buf),
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

    /// Every line of `data`, read with `max` bytes per line through a
    /// buffer of `capacity` bytes, with the too-long flags.
    fn lines(data: &[u8], capacity: usize, max: usize) -> Vec<(Vec<u8>, bool)> {
        let mut r = io::BufReader::with_capacity(capacity, io::Cursor::new(data.to_vec()));
        let mut buf = Vec::new();
        let mut after_cr = false;
        let mut out = Vec::new();
        loop {
            let long = match read_line(&mut r, &mut buf, max, &mut after_cr).unwrap() {
                LineRead::End => break,
                LineRead::TooLong => true,
                LineRead::Line => false,
            };
            out.push((buf.clone(), long));
        }
        out
    }

    fn plain(lines: &[&str]) -> Vec<(Vec<u8>, bool)> {
        lines
            .iter()
            .map(|l| (l.as_bytes().to_vec(), false))
            .collect()
    }

    #[test]
    fn lf_crlf_and_bare_cr_all_end_lines() {
        // Every buffer size, so that a CRLF pair is also split between two
        // reads.
        for capacity in 1..12 {
            assert_eq!(
                lines(b"ucci\r\n\nisready", capacity, 100),
                plain(&["ucci", "", "isready"])
            );
            assert_eq!(
                lines(b"ucci\risready\r", capacity, 100),
                plain(&["ucci", "isready"])
            );
            assert_eq!(
                lines(b"a\r\rb\n\r\nc\r\n", capacity, 100),
                plain(&["a", "", "b", "", "c"])
            );
        }
    }

    #[test]
    fn a_bare_cr_line_is_returned_without_waiting_for_more() {
        // A reader that fails after "uci\r": the line must come out before
        // the reader is asked again.
        struct Then<R>(R);
        impl<R: io::Read> io::Read for Then<R> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(io::Error::other("would block")),
                    n => Ok(n),
                }
            }
        }
        let mut r = io::BufReader::new(Then(io::Cursor::new(b"uci\r".to_vec())));
        let (mut buf, mut after_cr) = (Vec::new(), false);
        assert_eq!(
            read_line(&mut r, &mut buf, 100, &mut after_cr).unwrap(),
            LineRead::Line
        );
        assert_eq!(buf, b"uci");
    }

    #[test]
    fn long_lines_are_cut_and_flagged() {
        let mut data = vec![b'x'; 10_000];
        data.extend_from_slice(b"\nquit\n");
        // A small buffer forces many fill_buf rounds.
        let got = lines(&data, 7, 100);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].0.len(), got[0].1), (100, true));
        assert_eq!(got[1], (b"quit".to_vec(), false));
    }

    #[test]
    fn parse_line_decodes_leniently() {
        assert!(matches!(
            parse_line(b"isready"),
            Input::Line(Ok(Command::IsReady))
        ));
        assert!(matches!(
            parse_line(b"  quit \t"),
            Input::Line(Ok(Command::Quit))
        ));
        assert!(matches!(parse_line(b""), Input::Line(Ok(Command::Empty))));
        assert!(
            matches!(parse_line(b"isready\xff"), Input::Line(Err(ParseError::Unknown(t))) if t == "isready?")
        );
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
