//! `wc`: count lines, words, characters, bytes and the longest line, byte-exact with GNU 9.12.
//!
//! Plan: parse, then pick the inputs: operands, standard input, or NUL-separated names from `--files0-from` (at once
//! from a regular file, else streamed). GNU's column width comes from their `stat`. `paths::Counting` counts each
//! input along the path `plan` picks. Print a line per input (a read error after it, as GNU 9.12), then the total.

mod classes;
mod cli;
pub mod count;
mod parallel;
mod paths;
mod plan;
mod utf8;

pub use cli::{TOTAL_WHEN, command};

use crate::common::getopt::Getopt;
use crate::common::i18n::{format, tr, trf};
use crate::common::{Arg, diag, help, quote, sink};
use crate::platform::{self, FileInfo, FileKind};
use count::{Counts, Want};
use paths::Counting;
use plan::Count;
use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;

pub const TOOL: crate::common::Tool = crate::common::Tool { name: "wc", command, run: main };

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TotalMode {
    Auto,
    Always,
    Only,
    Never,
}

/// Runs `wc` with `args` (without the program name); returns the exit status.
pub fn main(args: Vec<Arg>) -> i32 {
    let cmd = command();
    let mut want = Want::default();
    let mut files0_from: Option<OsString> = None;
    let mut total = TotalMode::Auto;
    let mut debug = false;
    let mut scan = Getopt::for_command(&cmd, args);
    for item in scan.by_ref() {
        let opt = match item {
            Ok(opt) => opt,
            Err(err) => return err.report(),
        };
        match opt.id.as_str() {
            "bytes" => want.bytes = true,
            "chars" => want.chars = true,
            "lines" => want.lines = true,
            "words" => want.words = true,
            "max-line-length" => want.max_line_length = true,
            "debug" => debug = true,
            "files0-from" => files0_from = opt.value,
            "total" => match parse_total(opt.value.as_deref().unwrap_or_default()) {
                Ok(mode) => total = mode,
                Err(code) => return code,
            },
            "help" => return help::print_help("wc", cli::HELP, help::Buffering::Line),
            "version" => return help::print_version("wc", help::Buffering::Line),
            other => unreachable!("option {other} is in the table but not handled"),
        }
    }
    if want == Want::default() {
        (want.lines, want.words, want.bytes) = (true, true, true);
    }
    let operands = scan.into_operands();
    if files0_from.is_some() && !operands.is_empty() {
        diag::error(&trf(c"extra operand %s", &[&quote::quote_always(operands[0].as_bytes())]));
        let mut line = tr(c"file operands cannot be combined with --files0-from").to_vec();
        line.push(b'\n');
        diag::write_stderr(&line);
        diag::try_help();
        return diag::EXIT_FAILURE;
    }
    let posixly_correct = std::env::var_os("POSIXLY_CORRECT").is_some();
    let mut wc = Wc {
        want,
        counting: Counting::new(want, posixly_correct),
        debug,
        total,
        width: 1,
        totals: Counts::default(),
        overflow: [false; 4],
        read_stdin: false,
        ok: true,
        out: Vec::with_capacity(256),
    };
    let result = match files0_from {
        Some(list) => wc.run_files0(&list),
        None => wc.run_operands(operands),
    };
    if let Err(err) = result {
        diag::error_errno(tr(c"write error"), &err);
        return diag::EXIT_FAILURE;
    }
    // GNU closes standard input once read: failing there (it was closed all along) is an error.
    if wc.read_stdin {
        if let Err(err) = platform::close(platform::STDIN) {
            diag::error_errno(b"-", &err);
            return diag::EXIT_FAILURE;
        }
    }
    if wc.ok { diag::EXIT_SUCCESS } else { diag::EXIT_FAILURE }
}

/// `--total=WHEN`: GNU's argmatch (exact or unambiguous prefix) and its messages.
fn parse_total(value: &OsStr) -> Result<TotalMode, i32> {
    const MODES: [TotalMode; 4] = [TotalMode::Auto, TotalMode::Always, TotalMode::Only, TotalMode::Never];
    let choices = || cli::TOTAL_WHEN.iter().zip(MODES);
    let v = value.as_bytes();
    if let Some((_, mode)) = choices().find(|(name, _)| name.as_bytes() == v) {
        return Ok(mode);
    }
    let matches: Vec<TotalMode> = choices().filter(|(name, _)| name.as_bytes().starts_with(v)).map(|c| c.1).collect();
    if matches.len() == 1 {
        return Ok(matches[0]);
    }
    let message = if matches.is_empty() { c"invalid argument %s for %s" } else { c"ambiguous argument %s for %s" };
    diag::error(&trf(message, &[&quote::quote_locale(v), &quote::quote_locale(b"--total")]));
    let mut list = tr(c"Valid arguments are:").to_vec();
    for name in cli::TOTAL_WHEN {
        list.extend_from_slice(b"\n  - ");
        list.extend_from_slice(&quote::quote_locale(name.as_bytes()));
    }
    list.push(b'\n');
    diag::write_stderr(&list);
    diag::try_help();
    Err(diag::EXIT_FAILURE)
}

struct Wc {
    want: Want,
    counting: Counting,
    /// `--debug`, until the kernel was reported: GNU checks the CPU once, at the first line count.
    debug: bool,
    total: TotalMode,
    width: usize,
    totals: Counts,
    /// A total (lines, words, characters, bytes) passed 2^64 - 1: GNU 9.12 prints the maximum and reports EOVERFLOW.
    overflow: [bool; 4],
    /// Standard input was counted: it is closed at the end, as GNU does.
    read_stdin: bool,
    ok: bool,
    out: Vec<u8>,
}

/// How the column width is decided for an input (GNU's `get_input_fstatus`).
fn input_stat(name: Option<&[u8]>) -> Option<FileInfo> {
    match name {
        None | Some(b"-") => platform::fstat(platform::STDIN).ok(),
        Some(path) => platform::stat(std::path::Path::new(OsStr::from_bytes(path))).ok(),
    }
}

/// What was found of an input at start (GNU's `fstatus`).
#[derive(Clone, Copy, Debug)]
enum StartStat {
    /// Not stat'ed (one input with one count, or names streamed from `--files0-from`).
    NotTaken,
    /// The stat failed (a missing file: its error comes when it is opened).
    Failed,
    Taken(FileInfo),
}

/// GNU's `compute_number_width`: the digits of the regular inputs' summed sizes, at least 7 if an input is not regular.
fn number_width(stats: &[StartStat]) -> usize {
    let mut minimum = 1;
    let mut regular_total: u64 = 0;
    for info in stats.iter().filter_map(|s| if let StartStat::Taken(info) = s { Some(info) } else { None }) {
        if info.kind == FileKind::Regular {
            regular_total = regular_total.saturating_add(info.size);
        } else {
            minimum = 7;
        }
    }
    let digits = regular_total.checked_ilog10().map_or(1, |d| d as usize + 1);
    digits.max(minimum)
}

impl Wc {
    fn counts_wanted(&self) -> usize {
        let w = self.want;
        [w.lines, w.words, w.chars, w.bytes, w.max_line_length].iter().filter(|&&b| b).count()
    }

    /// GNU's `get_input_fstatus`: each input stat'ed at start (None: unnamed standard input), unless one input and
    /// one count. They decide the column width (1 for one count of one input and for --total=only; failed stats do
    /// not count) and bytes alone: a file growing meanwhile (`wc -c a log >> log`) counts at its first size.
    fn stat_inputs(&mut self, names: &[Option<&[u8]>]) -> Vec<StartStat> {
        if names.len() == 1 && self.counts_wanted() == 1 {
            return vec![StartStat::NotTaken];
        }
        let stats: Vec<StartStat> =
            names.iter().map(|n| input_stat(*n).map_or(StartStat::Failed, StartStat::Taken)).collect();
        if self.total != TotalMode::Only {
            self.width = number_width(&stats);
        }
        stats
    }

    fn run_operands(&mut self, operands: Vec<Arg>) -> io::Result<()> {
        let names: Vec<Option<&[u8]>> =
            if operands.is_empty() { vec![None] } else { operands.into_iter().map(|o| Some(o.as_bytes())).collect() };
        let stats = self.stat_inputs(&names);
        for (name, stat) in names.iter().zip(stats) {
            match name {
                Some([]) => {
                    diag::error(tr(c"invalid zero-length file name"));
                    self.ok = false;
                }
                _ => self.count_input(*name, stat)?,
            }
        }
        let n_args = if names == [None] { 0 } else { names.len() };
        self.print_total(n_args)
    }

    fn run_files0(&mut self, list: &OsStr) -> io::Result<()> {
        let list_name = list.as_bytes();
        let from_stdin = list_name == b"-";
        let mut file = if from_stdin {
            None
        } else {
            match std::fs::File::open(list) {
                Ok(f) => Some(f),
                Err(err) => {
                    diag::error_errno(&trf(c"cannot open %s for reading", &[&quote::quote_always(list_name)]), &err);
                    self.ok = false;
                    return Ok(());
                }
            }
        };
        let fd = file.as_ref().map_or(platform::STDIN, |f| f.as_raw_fd());
        let names = paths::names(fd);
        // GNU reads a regular list file whole when it is at most 10 MiB (and half the available
        // memory); a larger one is streamed like a pipe, so the widths do not depend on the files.
        const LIST_IN_MEMORY: u64 = 10 * 1024 * 1024;
        let regular =
            matches!(platform::fstat(fd), Ok(info) if info.kind == FileKind::Regular && info.size <= LIST_IN_MEMORY);
        let mut n_args = 0;
        if regular {
            // All names first (a regular list file): the widths can consider every input.
            let Ok(all) = names.collect::<io::Result<Vec<_>>>() else {
                // GNU reads a regular list whole first, and gives up when it cannot.
                diag::error(&trf(c"cannot read file names from %s", &[&quote::quote_always(list_name)]));
                self.ok = false;
                return Ok(());
            };
            // Closed first, as GNU does (with stdin closed, the list got descriptor 0, which a `-` must not read).
            drop(file.take());
            if from_stdin {
                // GNU fcloses stdin after the list too: a `-` name (refused) has no size to widen the columns.
                let _ = platform::close(platform::STDIN);
            }
            let stats = self.stat_inputs(&all.iter().map(|n| Some(n.as_slice())).collect::<Vec<_>>());
            for (name, stat) in all.iter().zip(stats) {
                n_args += 1;
                self.list_entry(list_name, from_stdin, name, n_args, stat)?;
            }
        } else {
            for name in names {
                match name {
                    Ok(name) => {
                        n_args += 1;
                        self.list_entry(list_name, from_stdin, &name, n_args, StartStat::NotTaken)?;
                    }
                    Err(err) => {
                        diag::error_errno(&trf(c"%s: read error", &[&quote::quotef(list_name)]), &err);
                        self.ok = false;
                        break;
                    }
                }
            }
        }
        self.print_total(n_args)
    }

    /// One name from `--files0-from`, with GNU's diagnostics for `-` and empty names.
    fn list_entry(
        &mut self,
        list_name: &[u8],
        from_stdin: bool,
        name: &[u8],
        number: usize,
        stat: StartStat,
    ) -> io::Result<()> {
        if from_stdin && name == b"-" {
            diag::error(&trf(
                c"when reading file names from standard input, no file name of %s allowed",
                &[&quote::quote_always(name)],
            ));
        } else if name.is_empty() {
            let number = number.to_string();
            let message = format(
                b"%s:%zu: %s",
                &[&quote::quotef(list_name), number.as_bytes(), tr(c"invalid zero-length file name")],
            );
            diag::error(&message);
        } else {
            return self.count_input(Some(name), stat);
        }
        self.ok = false;
        Ok(())
    }

    fn print_total(&mut self, n_args: usize) -> io::Result<()> {
        let print = match self.total {
            TotalMode::Never => false,
            TotalMode::Auto => n_args > 1,
            TotalMode::Always | TotalMode::Only => true,
        };
        if print {
            let label = if self.total == TotalMode::Only { None } else { Some(tr(c"total")) };
            let mut totals = self.totals;
            let fields = [
                (&mut totals.lines, tr(c"total lines")),
                (&mut totals.words, tr(c"total words")),
                (&mut totals.chars, tr(c"total characters")),
                (&mut totals.bytes, tr(c"total bytes")),
            ];
            for ((total, what), overflowed) in fields.into_iter().zip(self.overflow) {
                if overflowed {
                    *total = u64::MAX;
                    diag::error_errno(what, &io::Error::from_raw_os_error(platform::errno::EOVERFLOW));
                    self.ok = false;
                }
            }
            self.write_counts(&totals, label)?;
        }
        Ok(())
    }

    /// Counts one input (None: unnamed standard input; `stat`: what [`Self::stat_inputs`] found) and prints its line.
    fn count_input(&mut self, name: Option<&[u8]>, stat: StartStat) -> io::Result<()> {
        let path = name.filter(|&name| name != b"-");
        self.read_stdin |= path.is_none();
        let file = match path.map(|path| std::fs::File::open(OsStr::from_bytes(path))).transpose() {
            Ok(file) => file,
            Err(err) => {
                diag::error_errno(&quote::quotef(path.unwrap_or_default()), &err);
                self.ok = false;
                return Ok(());
            }
        };
        let fd = file.as_ref().map_or(platform::STDIN, |f| f.as_raw_fd());
        if self.debug && self.counting.count == Count::Lines {
            self.debug = false;
            report_kernel();
        }
        let (counts, read_error) = self.counting.count(fd, file.is_some(), stat);
        if self.total != TotalMode::Only {
            self.write_counts(&counts, name)?;
        }
        if let Some(err) = read_error {
            // GNU names standard input without an operand 'standard input' (quoted), with one '-'.
            diag::error_errno(&quote::quotef(name.unwrap_or(tr(c"standard input"))), &err);
            self.ok = false;
        }
        // GNU adds characters only when they are printed (else its count stays 0).
        let chars = if self.want.chars { counts.chars } else { 0 };
        let totals = [&mut self.totals.lines, &mut self.totals.words, &mut self.totals.chars, &mut self.totals.bytes];
        for ((total, add), overflowed) in
            totals.into_iter().zip([counts.lines, counts.words, chars, counts.bytes]).zip(&mut self.overflow)
        {
            let (sum, over) = total.overflowing_add(add);
            *total = sum;
            *overflowed |= over;
        }
        self.totals.max_line_length = self.totals.max_line_length.max(counts.max_line_length);
        Ok(())
    }

    /// One output line: the wanted counts right-aligned in `width` columns, then the name
    /// (quoted when it holds a newline). Written at once, like GNU's line-buffered stdout.
    fn write_counts(&mut self, counts: &Counts, name: Option<&[u8]>) -> io::Result<()> {
        self.out.clear();
        let fields = [
            (self.want.lines, counts.lines),
            (self.want.words, counts.words),
            (self.want.chars, counts.chars),
            (self.want.bytes, counts.bytes),
            (self.want.max_line_length, counts.max_line_length),
        ];
        let mut first = true;
        for (wanted, value) in fields {
            if !wanted {
                continue;
            }
            if !first {
                self.out.push(b' ');
            }
            first = false;
            write!(self.out, "{value:>width$}", width = self.width)?;
        }
        if let Some(name) = name {
            self.out.push(b' ');
            if name.contains(&b'\n') {
                self.out.extend_from_slice(&quote::quotef(name));
            } else {
                self.out.extend_from_slice(name);
            }
        }
        self.out.push(b'\n');
        sink::write_all(platform::STDOUT, &self.out)
    }
}

/// `--debug`: which line-counting acceleration is used, worded as GNU 9.12 words it. With
/// `RAPIDUTILS_SIMD` set (for tests and comparisons), also the kernel that setting led to.
fn report_kernel() {
    for &message in platform::simd::Kernel::best().gnu_debug_report() {
        diag::error(tr(message));
    }
    if std::env::var_os("RAPIDUTILS_SIMD").is_some() {
        diag::error(format!("RAPIDUTILS_SIMD: using {}", platform::simd::Kernel::best().name()).as_bytes());
    }
}
