//! `--help` and `--version` in GNU's shape.
//!
//! `--help` is printed as GNU 9.12 prints it, one msgid GNU passes to gettext a message (usage lines, description,
//! each option), so the system's coreutils catalogs translate it. The clap `Command`s (for man pages and completions)
//! share the messages. The closing lines name rapidutils for bugs, GNU for documentation. Options print as with GNU's
//! `oputs`: plain if `TERM` is unset, empty or `dumb`, else bold, linked to GNU's manual.

use super::diag;
use super::i18n::{format, tr};
use super::sink;
use crate::platform;
use clap::{Arg, ArgAction, Command};
use std::ffi::CStr;
use std::os::unix::ffi::OsStrExt;

/// One message of a tool's `--help`, one gettext msgid each, in the order GNU prints them.
#[derive(Clone, Copy, Debug)]
pub enum Msg {
    /// `printf (_(msgid), program_name, ...)`: each conversion is the program name as invoked.
    Printf(&'static CStr),
    /// `fputs (_(msgid), stdout)`.
    Text(&'static CStr),
    /// `oputs (_(msgid))`: one option, its names then its description.
    Option(&'static CStr),
}

impl Msg {
    pub fn msgid(self) -> &'static str {
        let (Msg::Printf(m) | Msg::Text(m) | Msg::Option(m)) = self;
        m.to_str().expect("msgids are ASCII")
    }
}

/// GNU's `emit_stdin_note`.
pub const STDIN_NOTE: Msg = Msg::Text(c"\nWith no FILE, or when FILE is -, read standard input.\n");
/// GNU's `HELP_OPTION_DESCRIPTION`.
pub const HELP_OPTION: Msg = Msg::Option(c"      --help\n         display this help and exit\n");
/// GNU's `VERSION_OPTION_DESCRIPTION`.
pub const VERSION_OPTION: Msg = Msg::Option(c"      --version\n         output version information and exit\n");

/// Where GNU's manual is (`PACKAGE_URL` and `MANUAL_URL` of GNU 9.12's build).
const PACKAGE_URL: &str = "https://www.gnu.org/software/coreutils/";
const MANUAL_URL: &str = "https://www.gnu.org/software/coreutils/manual/coreutils.html";

/// Whether the clap `Command`s carry their texts (usage, description, option help): only the generator and the tests
/// read them, the tools print `--help` from the messages (benches/RESULTS.md, "Figures behind code comments").
pub const DOCUMENTED: bool = cfg!(any(test, feature = "gen"));

/// `arg` with the description of its help message, where the texts are wanted ([`DOCUMENTED`]).
pub fn described(arg: Arg, message: Msg) -> Arg {
    if DOCUMENTED { arg.help(option_description(message)) } else { arg }
}

/// `cmd` with its usage message's lines and `about`'s messages as long description, where wanted ([`DOCUMENTED`]).
pub fn documented(cmd: Command, usage: Msg, about: &[Msg]) -> Command {
    if !DOCUMENTED {
        return cmd;
    }
    let name = cmd.get_name().to_owned();
    let long_about: String = about.iter().map(|p| p.msgid()).collect();
    cmd.override_usage(usage_lines(usage, &name)).long_about(long_about.trim_end().to_owned())
}

/// GNU's `--help` option for the tool's clap `Command`, its text from [`HELP_OPTION`].
pub fn help_arg() -> Arg {
    described(Arg::new("help").long("help").action(ArgAction::SetTrue), HELP_OPTION)
}

/// GNU's `--version` option, its text from [`VERSION_OPTION`].
pub fn version_arg() -> Arg {
    described(Arg::new("version").long("version").action(ArgAction::SetTrue), VERSION_OPTION)
}

/// The description part of an option message, unindented, for clap: what follows the option's
/// names, on the next lines (`  -c, --bytes\n         print the byte counts\n`) or after a
/// gap of two spaces or more on the same line (`  -A, --show-all           equivalent to -vET\n`).
pub fn option_description(message: Msg) -> String {
    let text = message.msgid().trim_end_matches('\n');
    let (first, rest) = text.split_once('\n').unwrap_or((text, ""));
    let mut lines: Vec<&str> = Vec::new();
    if let Some(gap) = first.trim_start().find("  ") {
        lines.push(first.trim_start()[gap..].trim_start());
    }
    lines.extend(rest.lines().map(str::trim_start));
    lines.join("\n")
}

/// A `Printf` usage message's lines as clap's `override_usage` wants them: one per form, each from the tool's name.
pub fn usage_lines(message: Msg, name: &str) -> String {
    message
        .msgid()
        .lines()
        .map(|line| line.replacen("Usage: %s", name, 1).replacen("  or:  %s", name, 1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The help of tool `name` from its messages, with `prog` (`argv[0]` as given) for the program.
pub fn help_text(name: &str, messages: &[Msg], prog: &[u8]) -> Vec<u8> {
    let term = std::env::var_os("TERM");
    let plain = term.as_ref().is_none_or(|t| t.is_empty() || t == "dumb");
    let mut out = Vec::with_capacity(2048);
    for &message in messages {
        match message {
            Msg::Printf(msgid) => {
                let args = [prog; 4];
                out.extend_from_slice(&format(tr(msgid), &args));
            }
            Msg::Text(msgid) => out.extend_from_slice(tr(msgid)),
            Msg::Option(msgid) if plain => out.extend_from_slice(tr(msgid)),
            Msg::Option(msgid) => oputs(&mut out, name, tr(msgid)),
        }
    }
    out.extend_from_slice(format!("\nrapidutils {name}: a drop-in replacement for GNU {name}.\n").as_bytes());
    let program = name.as_bytes();
    out.extend_from_slice(&format(tr(c"Full documentation <%s%s>\n"), &[PACKAGE_URL.as_bytes(), program]));
    out.extend_from_slice(&format(
        tr(c"or available locally via: info '(coreutils) %s%s'\n"),
        &[program, b" invocation"],
    ));
    out
}

/// GNU 9.12's `oputs_`: the option's names (up to the gap before its description) in bold, linked to GNU's manual.
fn oputs(out: &mut Vec<u8>, program: &str, option: &[u8]) {
    let isspace = |b: u8| platform::ctype(b, false).0;
    let first_word = option.iter().position(|&b| !matches!(b, b' ' | b'\t' | b'\n')).unwrap_or(option.len());
    let mut double_space = true;
    let mut option_text = match option.iter().position(|&b| b == b'-') {
        Some(dash) => dash,
        None => {
            // dd-style "name=value description": the first word.
            double_space = false;
            first_word
        }
    };
    if option_text != first_word && option.contains(&b'-') {
        // test(1)-style: a word before the '-'; two spaces before it mean a mismatched format.
        let spaces = option[first_word..option_text].iter().filter(|&&b| isspace(b)).take(2).count();
        if spaces == 2 {
            option_text = first_word;
            double_space = false;
        }
    }
    let anchor_len =
        option[option_text..].iter().position(|b| b",=[ \n".contains(b)).unwrap_or(option.len() - option_text);
    let mut desc = option_text + anchor_len;
    while desc < option.len() && option[desc] != b'\n' {
        if option[desc] == b'-' && option.get(desc + 1) == Some(&b'-') {
            double_space = false;
        }
        if isspace(option[desc]) {
            let next = option.get(desc + 1).copied().unwrap_or(0);
            if option[desc] == b'\t' || (next != 0 && isspace(next)) {
                break;
            }
            if !double_space && next != b'-' {
                break;
            }
        }
        desc += 1;
    }
    out.extend_from_slice(&option[..first_word]);
    let anchor = &option[option_text..option_text + anchor_len];
    if anchor.starts_with(b"--help") || anchor.starts_with(b"--version") {
        out.extend_from_slice(format!("\x1b]8;;{PACKAGE_URL}{program}#{program}").as_bytes());
    } else {
        out.extend_from_slice(format!("\x1b]8;;{MANUAL_URL}#{program}").as_bytes());
    }
    out.extend_from_slice(anchor);
    out.extend_from_slice(b"\x1b\\\x1b[1m");
    out.extend_from_slice(&option[first_word..desc]);
    out.extend_from_slice(b"\x1b[0m\x1b]8;;\x1b\\");
    out.extend_from_slice(&option[desc..]);
}

/// The GNU coreutils release whose behaviour the tools reproduce (the tests' oracle).
pub const GNU_COREUTILS_VERSION: &str = "9.12";

/// The `--version` text: the GNU layout, naming rapidutils. Its second line, where GNU's names a distribution's
/// packaging, says which GNU coreutils the tools match, for scripts that probe `cat --version | grep -qi coreutils`
/// (or `grep -q GNU`) before relying on GNU behaviour. It is our own line (no GNU msgid), untranslated like the rest.
pub fn version_text(name: &str) -> Vec<u8> {
    format!(
        "{name} (rapidutils) {}\n\
         Compatible with GNU coreutils {GNU_COREUTILS_VERSION}.\n\
         Copyright (C) 2026 the rapidutils developers.\n\
         License MIT OR Apache-2.0: <https://opensource.org/licenses/MIT>,\n\
         <https://www.apache.org/licenses/LICENSE-2.0>.\n\
         This is free software: you are free to change and redistribute it.\n\
         There is NO WARRANTY, to the extent permitted by law.\n",
        env!("CARGO_PKG_VERSION")
    )
    .into_bytes()
}

/// How a tool's stdout is buffered, which decides GNU's message when `--help` or `--version` cannot be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Buffering {
    /// stdio's default (cat, yes): the text is written when stdout is closed, and that error
    /// is reported with its `strerror` (`cat: write error: No space left on device`).
    Full,
    /// Line-buffered (GNU's wc): the first line already failed, and gnulib's `close_stdout`
    /// gives the `strerror` of the close, not of that write. Only a closed stdout (`EBADF`) fails
    /// to close too (`wc: write error: Bad file descriptor`); else it is `wc: write error`.
    Line,
}

/// Writes `text` to stdout, returning the exit status; a failed write is reported as GNU's `close_stdout` does.
pub fn emit(text: &[u8], buffering: Buffering) -> i32 {
    match sink::write_all(platform::STDOUT, text) {
        Ok(()) => diag::EXIT_SUCCESS,
        Err(err) => {
            match buffering {
                Buffering::Full => diag::error_errno(tr(c"write error"), &err),
                Buffering::Line if err.raw_os_error() == Some(platform::errno::EBADF) => {
                    diag::error_errno(tr(c"write error"), &err)
                }
                Buffering::Line => diag::error(tr(c"write error")),
            }
            diag::EXIT_FAILURE
        }
    }
}

/// Prints tool `name`'s help (usage lines naming the program as invoked); returns the exit status.
pub fn print_help(name: &str, messages: &[Msg], buffering: Buffering) -> i32 {
    emit(&help_text(name, messages, diag::program_name().as_bytes()), buffering)
}

pub fn print_version(name: &str, buffering: Buffering) -> i32 {
    emit(&version_text(name), buffering)
}
