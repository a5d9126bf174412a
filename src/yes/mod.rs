//! `yes`: print a line forever, as fast as the output can take it.
//!
//! Plan: the line is the operands joined by spaces (or `y`). The first line is written alone at once, as GNU 9.12
//! does, so `yes | head -n1` is answered before any buffer is built. On a Linux pipe, the pipe is then grown and fed
//! without copying by a relay of `tee` and `splice`; elsewhere, or when a zero-copy call is not supported, a buffer
//! of whole lines is written in a loop from where it stopped. See docs/ARCHITECTURE.md, "How `yes` is fast".

mod cli;

pub use cli::command;

use crate::common::getopt::Getopt;
use crate::common::i18n::tr;
use crate::common::{Arg, diag, help, sink};
use crate::platform::{self, FileKind, PageBuffer};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;

pub const TOOL: crate::common::Tool = crate::common::Tool { name: "yes", command, run: main };

/// The write fallback's buffer holds at least this many bytes of whole lines.
const WRITE_BUFFER_MIN: usize = 128 * 1024;
/// The relay's source pipe is written this many pages at a time.
const SOURCE_PAGES: usize = 16;
/// The relay's source pipe holds copies of one unit of whole lines of at most this many bytes (or a page, if larger).
const UNIT: usize = 64 * 1024;

/// Runs `yes` with `args` (without the program name); returns the exit status.
pub fn main(args: Vec<Arg>) -> i32 {
    let cmd = command();
    // GNU's parse_gnu_standard_options_only makes one getopt_long call: the first option found
    // (anywhere before `--`, unless POSIXLY_CORRECT) decides, and later ones are not looked at.
    let mut scan = Getopt::for_command(&cmd, args);
    match scan.next() {
        Some(Ok(opt)) if opt.id == "help" => return help::print_help("yes", cli::HELP, help::Buffering::Full),
        Some(Ok(_)) => return help::print_version("yes", help::Buffering::Full),
        Some(Err(err)) => return err.report(),
        None => {}
    }
    let operands = scan.into_operands();
    let line = build_line(&operands);
    let err = run(&line);
    diag::error_errno(tr(c"standard output"), &err);
    diag::EXIT_FAILURE
}

/// The operands joined by single spaces, and a newline; `y` when there are none.
pub fn build_line(operands: &[Arg]) -> Vec<u8> {
    if operands.is_empty() {
        return b"y\n".to_vec();
    }
    let mut line = Vec::with_capacity(operands.iter().map(|o| o.len() + 1).sum());
    for (i, operand) in operands.iter().enumerate() {
        if i > 0 {
            line.push(b' ');
        }
        line.extend_from_slice(operand.as_bytes());
    }
    line.push(b'\n');
    line
}

/// Writes `line` forever; returns only with the error that stopped it.
fn run(line: &[u8]) -> io::Error {
    if let Err(err) = sink::write_all(platform::STDOUT, line) {
        return err;
    }
    // Whole lines from any phase: a write of WRITE_BUFFER_MIN bytes may start anywhere in the
    // pattern (where a zero-copy path stopped, or the relay's set-up, which writes from it).
    let mut buf = vec![0; whole_lines(line, WRITE_BUFFER_MIN + line.len())];
    fill(&mut buf, line);
    let mut offset = 0;
    let is_pipe = matches!(platform::fstat(platform::STDOUT), Ok(info) if info.kind == FileKind::Pipe);
    if platform::ZERO_COPY && is_pipe {
        // One buffer written before the zero-copy set-up (which writes a pipe's worth of lines into the private
        // pipe): larger than a pipe not yet grown, it waits in the pipe, so a reader that stops early is found gone
        // at once, not after the set-up (benches/RESULTS.md, "Figures behind code comments").
        if let Err(err) = sink::write_all(platform::STDOUT, &buf) {
            return err;
        }
        match splice_forever(line, &buf) {
            Outcome::Failed(err) => return err,
            Outcome::Unsupported { offset: stopped_at } => offset = stopped_at,
        }
    }
    write_forever(&buf, line.len(), offset)
}

/// Fills `buf` with copies of `line` by doubling (`buf.len()` is a multiple of `line.len()`).
pub fn fill(buf: &mut [u8], line: &[u8]) {
    buf[..line.len()].copy_from_slice(line);
    let mut filled = line.len();
    while filled < buf.len() {
        let n = filled.min(buf.len() - filled);
        buf.copy_within(..n, filled);
        filled += n;
    }
}

/// The length of the smallest whole number of lines holding at least `min` bytes.
fn whole_lines(line: &[u8], min: usize) -> usize {
    min.div_ceil(line.len()).max(1) * line.len()
}

/// Writes `buf` (whole lines of `line_len` bytes) forever, from `offset` into the pattern (where a path stopped).
fn write_forever(buf: &[u8], line_len: usize, offset: usize) -> io::Error {
    let offset = offset % line_len;
    if let Err(err) = sink::write_all(platform::STDOUT, &buf[offset..]) {
        return err;
    }
    loop {
        if let Err(err) = sink::write_all(platform::STDOUT, buf) {
            return err;
        }
    }
}

enum Outcome {
    /// A real error (EPIPE, EIO, ...) to report.
    Failed(io::Error),
    /// The zero-copy call is not available; the pattern stands `offset` bytes in.
    Unsupported { offset: usize },
}

/// Grows the stdout pipe (`platform::grow_stdout_pipe`), then feeds it without copying: by the tee + splice relay, or
/// by `vmsplice` when the relay's pipes cannot be had. Of the three designs measured, only the relay holds up when
/// the reader runs on another CPU, the usual case (benches/RESULTS.md, "Figures behind code comments").
fn splice_forever(line: &[u8], lines: &[u8]) -> Outcome {
    let capacity = platform::grow_stdout_pipe(platform::STDOUT).unwrap_or(platform::PIPE_SIZE_DEFAULT);
    relay_forever(line, lines, capacity).unwrap_or_else(|| vmsplice_forever(line, capacity))
}

/// Waits after EAGAIN (None: go on); sorts other errors into fallback or failure.
fn retry_or_stop(err: io::Error, offset: usize) -> Option<Outcome> {
    match err.raw_os_error() {
        Some(e) if e == platform::errno::EAGAIN || e == platform::errno::EWOULDBLOCK => {
            platform::wait_writable(platform::STDOUT).err().map(Outcome::Failed)
        }
        _ if platform::is_unsupported(&err) => Some(Outcome::Unsupported { offset }),
        _ => Some(Outcome::Failed(err)),
    }
}

/// A private pipe is filled once with whole lines; each round `tee`s all of it into an empty relay pipe and `splice`s
/// the relay into stdout until it is empty, so the stream stays in order whatever each call moves. Returns None when
/// the pipes cannot be set up (nothing has been written to stdout then), or when the line is longer than the pipe.
/// The private pipe is filled by `write`, so its pages are the kernel's: a `read()` reader of `vmsplice`d pages
/// (GNU 9.12's design) ran much slower in some rounds. Only one [`UNIT`] of lines is written, the rest of the pipe
/// being its pages again by doubling, so a `read()` reader copies from those few pages only, which stay in its
/// caches; the writes come from `lines`, so the set-up touches no memory of its own. See docs/ARCHITECTURE.md, "How
/// `yes` is fast" (why 64 KiB), and benches/RESULTS.md, "Figures behind code comments".
fn relay_forever(line: &[u8], lines: &[u8], capacity: usize) -> Option<Outcome> {
    let (source, source_in) = platform::pipe().ok()?;
    let (relay, relay_in) = platform::pipe().ok()?;
    let cap = platform::set_pipe_size(source_in.as_raw_fd(), capacity).ok()?;
    if platform::set_pipe_size(relay_in.as_raw_fd(), cap).ok()? < cap {
        return None;
    }
    let page = platform::page_size();
    // Whole lines: up to a unit (or a page), or one longer line; each copy takes whole pipe buffers (last part full).
    let unit = UNIT.max(page).max(line.len()).min(cap) / line.len() * line.len();
    let copies = (cap / page).checked_div(unit.div_ceil(page)).unwrap_or(0);
    let len = unit * copies;
    if len == 0 {
        return None;
    }
    // A write of `write_len` bytes starting `phase` bytes into the pattern, from `lines`.
    let write_len = (page * SOURCE_PAGES).min(unit).min(WRITE_BUFFER_MIN);
    // Never blocks: a pipe that took less than asked ends the set-up.
    platform::set_nonblocking(source_in.as_raw_fd(), true).ok()?;
    let mut written = 0;
    while written < unit {
        let phase = written % line.len();
        let n = write_len.min(unit - written);
        if platform::write(source_in.as_raw_fd(), &lines[phase..phase + n]).ok()? != n {
            return None;
        }
        written += n;
    }
    let mut have = 1;
    while have < copies {
        let n = have.min(copies - have) * unit;
        if platform::tee(source.as_raw_fd(), relay_in.as_raw_fd(), n).ok()? != n
            || platform::splice(relay.as_raw_fd(), source_in.as_raw_fd(), n).ok()? != n
        {
            return None;
        }
        have += n / unit;
    }
    loop {
        // The relay is empty and as large as the source, so one tee copies all of it.
        match platform::tee(source.as_raw_fd(), relay_in.as_raw_fd(), len) {
            Ok(n) if n == len => {}
            Ok(_) => return Some(Outcome::Unsupported { offset: 0 }),
            Err(err) => match retry_or_stop(err, 0) {
                Some(outcome) => return Some(outcome),
                None => continue,
            },
        }
        let mut moved = 0;
        while moved < len {
            match platform::splice(relay.as_raw_fd(), platform::STDOUT, len - moved) {
                Ok(n) => moved += n,
                Err(err) => {
                    if let Some(outcome) = retry_or_stop(err, moved % line.len()) {
                        return Some(outcome);
                    }
                }
            }
        }
    }
}

/// Any line length: `vmsplice` a frozen buffer of whole lines into stdout forever, from where the last call stopped.
fn vmsplice_forever(line: &[u8], capacity: usize) -> Outcome {
    let len = whole_lines(line, capacity);
    let Ok(mut buf) = PageBuffer::new(len) else {
        return Outcome::Unsupported { offset: 0 };
    };
    fill(buf.as_mut_slice(), line);
    let buf = buf.freeze();
    let mut offset = 0;
    loop {
        match platform::vmsplice(platform::STDOUT, &[&buf[offset..], buf]) {
            Ok(n) => offset = (offset + n) % len,
            Err(err) => {
                if let Some(outcome) = retry_or_stop(err, offset) {
                    return outcome;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_is_operands_joined_by_spaces() {
        assert_eq!(build_line(&[]), b"y\n");
        assert_eq!(build_line(&["a", "", "b c"].map(std::ffi::OsStr::new)), b"a  b c\n");
    }

    #[test]
    fn fill_repeats_whole_lines() {
        let line = b"abc\n";
        let mut buf = vec![0; whole_lines(line, 1000)];
        assert_eq!(buf.len(), 1000);
        fill(&mut buf, line);
        assert!(buf.chunks(4).all(|c| c == line));
        let long = vec![b'x'; 5000];
        assert_eq!(whole_lines(&long, 1000), 5000);
    }
}
