//! `cat`: concatenate files to standard output, byte-exact with GNU coreutils 9.12.
//!
//! Plan: parse (GNU getopt over clap's definition) and check stdout once. Then open each operand, refuse the output
//! file (GNU 9.12's rule), and move its bytes with the cheapest zero-copy call (`copy`) or format it in large chunks
//! (`format`). An input's errors are reported where GNU does, the next still copied; a write error ends the run.

mod cli;
pub mod copy;
pub mod format;

pub use cli::command;

use crate::common::getopt::Getopt;
use crate::common::i18n::{tr, trf};
use crate::common::{Arg, diag, help, quote, sink};
use crate::input::{self, Stop};
use crate::platform::{self, Changing, Fd, FileInfo, FileKind};
use copy::{Copier, CopyError};
use format::{Formatter, Options, OutBuf};
use std::ffi::OsStr;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;

pub const TOOL: crate::common::Tool = crate::common::Tool { name: "cat", command, run: main };

/// Formatted output is written about this much at a time.
const OUTPUT_FLUSH: usize = 128 * 1024;
/// Formatting reads this much at a time: 64 KiB stays in L2, so the kernel's copy costs less
/// system time than with 128 KiB (benches/RESULTS.md, "Figures behind code comments").
const FORMAT_READ: usize = 64 * 1024;
/// Runs `cat` with `args` (without the program name); returns the exit status.
pub fn main(args: Vec<Arg>) -> i32 {
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
        operands.push(OsStr::new("-"));
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
    if cat.read_stdin {
        if let Err(err) = platform::close(platform::STDIN) {
            diag::error_errno(tr(c"closing standard input"), &err);
            cat.ok = false;
        }
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
    fn run(&mut self, operands: &[Arg]) -> io::Result<()> {
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

    /// Whether standard output is the file `input` (same device and inode).
    fn writes_into(&self, input: &FileInfo) -> bool {
        input.dev == self.out_info.dev && input.ino == self.out_info.ino
    }

    /// GNU 9.12's "input file is output file" rule: the same file (not a FIFO or socket), read from below where
    /// output is written (its offset, or the end when stdout appends): copying would never end or clobber the unread.
    fn is_output(&self, input: &FileInfo, fd: Fd) -> bool {
        if matches!(input.kind, FileKind::Pipe | FileKind::Socket) || !self.writes_into(input) {
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

    /// Formatting mode: big chunks formatted, written whole. A regular file is taken the cheaper way here
    /// (`input::feed`), anything else read. Output is flushed before a read that would wait (so `cat -n` on a slow
    /// pipe shows lines as they come) and at each input's end (so messages on the next follow its output, as GNU's).
    fn format(&mut self, fd: Fd, info: &FileInfo) -> Result<(), CopyError> {
        if self.in_buf.is_empty() {
            self.in_buf = vec![0; FORMAT_READ];
            self.out_buf = OutBuf::room_for(OUTPUT_FLUSH, FORMAT_READ);
        }
        // Formatting into the file it reads (allowed when output is at or behind the reading) would read its longer
        // output back and never end (GNU's does, until the disk is full): it stops at the file's size when reached.
        let into_itself = self.writes_into(info);
        let formatter = self.formatter.as_mut().expect("format mode has a formatter");
        if info.kind == FileKind::Regular {
            let end = if into_itself { info.size } else { u64::MAX };
            let mut formatting = Formatting { formatter, out: &mut self.out_buf };
            match input::feed(fd, info, &mut self.in_buf, FORMAT_READ, &mut formatting, &end) {
                Ok(()) => {}
                Err(Stop::Output(err)) => return Err(CopyError::Write(err)),
                Err(Stop::Read(err)) => {
                    self.flush().map_err(CopyError::Write)?;
                    return Err(CopyError::Read(err));
                }
            }
            return self.flush().map_err(CopyError::Write);
        }
        loop {
            if !self.out_buf.is_empty() && platform::bytes_available(fd).unwrap_or(0) == 0 {
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
            formatter.feed(Changing::of(&self.in_buf[..n]), &mut self.out_buf);
            if self.out_buf.len() >= OUTPUT_FLUSH {
                self.flush().map_err(CopyError::Write)?;
            }
        }
        self.flush().map_err(CopyError::Write)
    }

    fn flush(&mut self) -> io::Result<()> {
        flush(&mut self.out_buf)
    }
}

fn flush(out: &mut OutBuf) -> io::Result<()> {
    let result = sink::write_all(platform::STDOUT, out.as_slice());
    out.clear();
    result
}

/// Formatter as file consumer: a piece past the file's end is redone from its earlier state, output taken back.
struct Formatting<'a> {
    formatter: &'a mut Formatter,
    out: &'a mut OutBuf,
}

impl input::Consumer for Formatting<'_> {
    type Mark = (Formatter, usize);
    type Error = io::Error;

    fn mark(&self) -> Self::Mark {
        (self.formatter.clone(), self.out.len())
    }

    fn rewind(&mut self, (formatter, len): Self::Mark) {
        *self.formatter = formatter;
        self.out.truncate(len);
    }

    fn feed(&mut self, bytes: Changing<'_>) {
        self.formatter.feed(bytes, self.out);
    }

    fn output_due(&self) -> bool {
        self.out.len() >= OUTPUT_FLUSH
    }

    fn output(&mut self) -> io::Result<()> {
        flush(self.out)
    }
}
