//! `cat`: concatenate files to standard output, byte-exact with GNU coreutils 9.12.
//!
//! Plan: parse (GNU getopt over the clap definition); check stdout once; then for each operand
//! open it, refuse it if it is the output file (GNU 9.12's rule), and either move its bytes
//! with the cheapest zero-copy call the file types allow (`copy`) or run the formatting state
//! machine over large chunks (`format`). Errors on one input are reported where GNU reports
//! them and the next input is still copied; a write error ends the run.

mod cli;
pub mod copy;
pub mod format;
#[cfg(test)]
mod gnu_model;

pub use cli::command;

use crate::common::getopt::Getopt;
use crate::common::i18n::{tr, trf};
use crate::common::{diag, help, quote, sink};
use crate::platform::{self, Fd, FileInfo, FileKind};
use copy::{Copier, CopyError};
use format::{Formatter, Options, OutBuf};
use std::ffi::OsString;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;

/// `cat` in the tool table.
pub const TOOL: crate::common::Tool = crate::common::Tool { name: "cat", command, run: main };

/// Formatted output is written in pieces of about this size.
const OUTPUT_FLUSH: usize = 128 * 1024;
/// Formatting reads this much at a time: 64 KiB stays in L2, so the kernel's copy costs a third
/// less system time than with 128 KiB (cat -n of 200 MB: 78 against 84 ms in all).
const FORMAT_READ: usize = 64 * 1024;
/// Regular files with at least this much left are formatted from a mapping of the file (Linux):
/// no copy into a read buffer (200 MB, hyperfine: cat -A 68.0 -> 61.5 ms, cat -n 75.7 -> 68.3).
const MAP_MIN: u64 = 1 << 20;
/// Files are mapped this much at a time: mapped pages count in the resident set, which stays
/// small (a 1 GiB line under -n: 6 MiB peak), and windows of 4, 16 or 64 MiB measured the same.
const MAP_WINDOW: u64 = 4 << 20;

/// Runs `cat` with `args` (without the program name); returns the exit status.
pub fn main(args: Vec<OsString>) -> i32 {
    let cmd = command();
    let mut opts = Options::default();
    let mut scan = Getopt::for_command(&cmd, args);
    for item in scan.by_ref() {
        let opt = match item {
            Ok(opt) => opt,
            Err(err) => return err.report(),
        };
        match opt.id.as_str() {
            "number-nonblank" => {
                opts.number = true;
                opts.number_nonblank = true;
            }
            "number" => opts.number = true,
            "squeeze-blank" => opts.squeeze_blank = true,
            "show-nonprinting" => opts.show_nonprinting = true,
            "show-ends" => opts.show_ends = true,
            "show-tabs" => opts.show_tabs = true,
            "show-all" => (opts.show_nonprinting, opts.show_ends, opts.show_tabs) = (true, true, true),
            "e" => (opts.show_nonprinting, opts.show_ends) = (true, true),
            "t" => (opts.show_nonprinting, opts.show_tabs) = (true, true),
            "u" => {}
            "help" => return help::print_help("cat", cli::HELP, help::Buffering::Full),
            "version" => return help::print_version("cat", help::Buffering::Full),
            other => unreachable!("option {other} is in the table but not handled"),
        }
    }
    let mut operands = scan.into_operands();
    if operands.is_empty() {
        operands.push(OsString::from("-"));
    }
    let out_info = match platform::fstat(platform::STDOUT) {
        Ok(info) => info,
        Err(err) => {
            diag::error_errno(tr(c"standard output"), &err);
            return diag::EXIT_FAILURE;
        }
    };
    let mut cat = Cat {
        out_info,
        copier: Copier::new(),
        formatter: opts.any().then(|| Formatter::new(opts)),
        in_buf: Vec::new(),
        out_buf: OutBuf::room_for(0, 0),
        ok: true,
        read_stdin: false,
    };
    match cat.run(&operands) {
        Ok(()) => {}
        Err(err) => {
            diag::error_errno(tr(c"write error"), &err);
            return diag::EXIT_FAILURE;
        }
    }
    if cat.read_stdin
        && let Err(err) = platform::close(platform::STDIN)
    {
        diag::error_errno(tr(c"closing standard input"), &err);
        cat.ok = false;
    }
    if cat.ok { diag::EXIT_SUCCESS } else { diag::EXIT_FAILURE }
}

struct Cat {
    out_info: FileInfo,
    copier: Copier,
    formatter: Option<Formatter>,
    in_buf: Vec<u8>,
    out_buf: OutBuf,
    /// No input failed so far.
    ok: bool,
    /// An operand was `-`: GNU closes stdin at the end and reports a failure.
    read_stdin: bool,
}

/// An input operand, opened.
enum Input {
    Stdin,
    File(std::fs::File),
}

impl Input {
    fn fd(&self) -> Fd {
        match self {
            Input::Stdin => platform::STDIN,
            Input::File(f) => f.as_raw_fd(),
        }
    }
}

impl Cat {
    /// Copies every operand; returns only a write error (which ends the run).
    fn run(&mut self, operands: &[OsString]) -> io::Result<()> {
        for name in operands {
            self.one(name.as_bytes())?;
        }
        if let Some(formatter) = self.formatter.as_mut() {
            formatter.finish(&mut self.out_buf);
            self.flush()?;
        }
        Ok(())
    }

    fn input_error(&mut self, name: &[u8], err: &io::Error) {
        diag::error_errno(&quote::quotef(name), err);
        self.ok = false;
    }

    fn one(&mut self, name: &[u8]) -> io::Result<()> {
        let input = if name == b"-" {
            self.read_stdin = true;
            Input::Stdin
        } else {
            match std::fs::File::open(std::ffi::OsStr::from_bytes(name)) {
                Ok(file) => Input::File(file),
                Err(err) => {
                    self.input_error(name, &err);
                    return Ok(());
                }
            }
        };
        let fd = input.fd();
        let in_info = match platform::fstat(fd) {
            Ok(info) => info,
            Err(err) => {
                self.input_error(name, &err);
                return Ok(());
            }
        };
        if self.is_output(&in_info, fd) {
            diag::error(&trf(c"%s: input file is output file", &[&quote::quotef(name)]));
            self.ok = false;
            return Ok(());
        }
        let result = if self.formatter.is_some() {
            self.format(fd, &in_info)
        } else {
            self.copier.copy(fd, &in_info, platform::STDOUT, &self.out_info)
        };
        match result {
            Ok(()) => Ok(()),
            Err(CopyError::Read(err)) => {
                self.input_error(name, &err);
                Ok(())
            }
            Err(CopyError::Write(err)) => Err(err),
        }
    }

    /// GNU 9.12's "input file is output file" rule: the same file (not a FIFO or socket), read
    /// from below the point where output is written (the output offset, or the end of the file
    /// when stdout appends). Copying it would never end or would clobber what is yet unread.
    fn is_output(&self, input: &FileInfo, fd: Fd) -> bool {
        if matches!(input.kind, FileKind::Pipe | FileKind::Socket)
            || input.dev != self.out_info.dev
            || input.ino != self.out_info.ino
        {
            return false;
        }
        let Ok(in_pos) = platform::current_offset(fd) else {
            return false;
        };
        if platform::is_append(platform::STDOUT) {
            return in_pos < input.size;
        }
        match platform::current_offset(platform::STDOUT) {
            Ok(out_pos) => in_pos < out_pos,
            Err(_) => false,
        }
    }

    /// Formatting mode: read big chunks, format them, write in big pieces; flush before a read
    /// that would wait (so `cat -n` on a slow pipe shows lines as they come) and at the end of
    /// each input (so messages about the next one come after its output, as with GNU).
    fn format(&mut self, fd: Fd, info: &FileInfo) -> Result<(), CopyError> {
        if self.in_buf.is_empty() {
            self.in_buf = vec![0; FORMAT_READ];
            self.out_buf = OutBuf::room_for(OUTPUT_FLUSH, FORMAT_READ);
        }
        let may_block = info.kind != FileKind::Regular;
        if !may_block {
            platform::advise_sequential(fd);
            self.format_mapped(fd, info)?;
        }
        loop {
            if may_block && !self.out_buf.is_empty() && platform::bytes_available(fd).unwrap_or(0) == 0 {
                self.flush().map_err(CopyError::Write)?;
            }
            let n = match platform::read(fd, &mut self.in_buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(err) => {
                    self.flush().map_err(CopyError::Write)?;
                    return Err(CopyError::Read(err));
                }
            };
            let formatter = self.formatter.as_mut().expect("format mode has a formatter");
            formatter.feed(&self.in_buf[..n], &mut self.out_buf);
            if self.out_buf.len() >= OUTPUT_FLUSH {
                self.flush().map_err(CopyError::Write)?;
            }
        }
        self.flush().map_err(CopyError::Write)
    }

    /// A regular file with at least MAP_MIN bytes left is formatted straight from the page
    /// cache, MAP_WINDOW bytes at a time, in FORMAT_READ chunks as if read; then the offset is
    /// set past what was formatted, and the read loop takes what remains (a file that grew, a
    /// tail under MAP_MIN). A file that shrank under the mapping: a chunk that may hold bytes
    /// past the new end (the SIGBUS handler cut the mapping, or the chunk ends where the
    /// window does) is checked against fstat's size, and what lies past it is formatted again
    /// from a state saved before the chunk, so no byte the file did not hold is written.
    fn format_mapped(&mut self, fd: Fd, info: &FileInfo) -> Result<(), CopyError> {
        if !platform::MAPPED_FILES {
            return Ok(());
        }
        let Ok(mut pos) = platform::current_offset(fd) else {
            return Ok(());
        };
        let start = pos;
        while info.size.saturating_sub(pos) >= MAP_MIN {
            let len = (info.size - pos).min(MAP_WINDOW) as usize;
            let Ok(map) = platform::Mapping::new(fd, pos, len) else {
                break;
            };
            let (done, whole) = self.format_window(fd, pos, &map)?;
            pos += done as u64;
            if !whole {
                break;
            }
        }
        if pos != start {
            platform::seek_to(fd, pos).map_err(CopyError::Read)?;
        }
        Ok(())
    }

    /// Formats one mapped window (see `format_mapped`); returns how many of its bytes were
    /// the file's and formatted, and whether that is all of it.
    fn format_window(&mut self, fd: Fd, pos: u64, map: &platform::Mapping) -> Result<(usize, bool), CopyError> {
        let bytes = map.bytes();
        // Chunks end at file offsets that are multiples of FORMAT_READ, so each chunk's end is
        // the start of a page of the mapping, which `touch` can probe.
        let mut at = 0;
        while at < bytes.len() {
            let end = ((pos + at as u64) / FORMAT_READ as u64 + 1) * FORMAT_READ as u64 - pos;
            let end = (end as usize).min(bytes.len());
            let formatter = self.formatter.as_mut().expect("format mode has a formatter");
            let saved = formatter.clone();
            let before = self.out_buf.len();
            formatter.feed(&bytes[at..end], &mut self.out_buf);
            if end < bytes.len() {
                // The page after the chunk: past the file's end, this cuts the mapping.
                map.touch(end);
            }
            let cut = map.cut();
            if cut.is_some() || end == bytes.len() {
                let size = platform::fstat(fd).map_err(CopyError::Read)?.size;
                let real = (size.saturating_sub(pos) as usize).min(cut.unwrap_or(usize::MAX));
                if real < end {
                    *formatter = saved;
                    self.out_buf.truncate(before);
                    let real = real.max(at);
                    formatter.feed(&bytes[at..real], &mut self.out_buf);
                    return Ok((real, false));
                }
                if cut.is_some() {
                    return Ok((end, false));
                }
            }
            at = end;
            if self.out_buf.len() >= OUTPUT_FLUSH {
                // The offset first, past what the output holds, as after reads: if the write
                // fails or a signal ends cat, a next reader of a shared stdin goes on from there.
                platform::seek_to(fd, pos + at as u64).map_err(CopyError::Read)?;
                self.flush().map_err(CopyError::Write)?;
            }
        }
        Ok((bytes.len(), true))
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = sink::write_all(platform::STDOUT, self.out_buf.as_slice());
        self.out_buf.clear();
        result
    }
}
