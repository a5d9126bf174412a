//! `--help` and `--version` in GNU's shape, rendered from the tool's clap `Command`.
//!
//! GNU 9.12 prints each option on a line of its own with its description below, indented by
//! nine spaces; the usage lines name the program as invoked. We print the same body; the
//! closing lines name rapidutils instead of GNU's bug-report addresses. (GNU 9.12 also wraps
//! option names in terminal hyperlinks when `TERM` is set; rapidutils does not.)

use super::diag;
use super::sink;
use crate::platform;
use clap::{Arg, ArgAction, Command};
use std::os::unix::ffi::OsStrExt;

/// GNU's `--help` option, as every tool declares it (the tool sets its `display_order`).
pub fn help_arg() -> Arg {
    Arg::new("help").long("help").action(ArgAction::SetTrue).help("display this help and exit")
}

/// GNU's `--version` option, as every tool declares it (the tool sets its `display_order`).
pub fn version_arg() -> Arg {
    Arg::new("version").long("version").action(ArgAction::SetTrue).help("output version information and exit")
}

const HELP_LINE: &str = "      --help\n         display this help and exit\n";
const VERSION_LINE: &str = "      --version\n         output version information and exit\n";

/// The help text for `cmd`, with `prog` (argv[0] as given) in the usage lines and wherever
/// the after-help text says `{prog}`.
///
/// Options are listed in `display_order`. GNU 9.12 lays them out two ways, and the `Command`'s
/// `next_line_help` flag says which: on a line of their own with the description below indented
/// by nine spaces (wc), or with the description on the same line at a column three past the
/// longest option (cat). `--help` and `--version` always use the first layout.
pub fn help_text(cmd: &Command, prog: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2048);
    let usage = cmd.get_overridden_usage().map(|u| u.to_string()).unwrap_or_default();
    for (i, line) in usage.lines().enumerate() {
        out.extend_from_slice(if i == 0 { b"Usage: " } else { b"  or:  " });
        out.extend_from_slice(prog);
        // Each usage line is "name ARGS"; the name is replaced by prog.
        if let Some((_, rest)) = line.split_once(' ') {
            out.push(b' ');
            out.extend_from_slice(rest.as_bytes());
        }
        out.push(b'\n');
    }
    if let Some(about) = cmd.get_long_about().or(cmd.get_about()) {
        out.extend_from_slice(about.to_string().as_bytes());
        out.push(b'\n');
    }
    let mut args: Vec<&clap::Arg> = cmd.get_arguments().filter(|a| !a.is_positional()).collect();
    args.sort_by_key(|a| a.get_display_order());
    let specs: Vec<String> = args.iter().map(|a| option_spec(a)).collect();
    let column = specs.iter().zip(&args).filter(|(_, a)| !is_standard(a)).map(|(s, _)| s.len()).max().unwrap_or(0) + 3;
    for (arg, spec) in args.iter().zip(&specs) {
        match arg.get_id().as_str() {
            "help" => out.extend_from_slice(HELP_LINE.as_bytes()),
            "version" => out.extend_from_slice(VERSION_LINE.as_bytes()),
            _ => {
                let text = arg.get_long_help().or(arg.get_help()).map(|h| h.to_string()).unwrap_or_default();
                out.extend_from_slice(spec.as_bytes());
                if cmd.is_next_line_help_set() {
                    out.push(b'\n');
                    for line in text.lines() {
                        out.extend_from_slice(b"         ");
                        out.extend_from_slice(line.as_bytes());
                        out.push(b'\n');
                    }
                } else {
                    for (i, line) in text.lines().enumerate() {
                        let pad = if i == 0 { column - spec.len() } else { column };
                        out.extend(std::iter::repeat_n(b' ', pad));
                        out.extend_from_slice(line.as_bytes());
                        out.push(b'\n');
                    }
                }
            }
        }
    }
    if let Some(after) = cmd.get_after_help() {
        let after = after.to_string();
        for (i, piece) in after.split("{prog}").enumerate() {
            if i > 0 {
                out.extend_from_slice(prog);
            }
            out.extend_from_slice(piece.as_bytes());
        }
        out.push(b'\n');
    }
    let name = cmd.get_name();
    out.extend_from_slice(
        format!(
            "\nrapidutils {name}: a drop-in replacement for GNU {name}.\n\
             Full documentation: man {name}, or info '(coreutils) {name} invocation'\n"
        )
        .as_bytes(),
    );
    out
}

fn is_standard(arg: &clap::Arg) -> bool {
    matches!(arg.get_id().as_str(), "help" | "version")
}

/// `  -c, --bytes`, `      --files0-from=F` or `  -e`.
fn option_spec(arg: &clap::Arg) -> String {
    let mut spec = match (arg.get_short(), arg.get_long()) {
        (Some(s), Some(l)) => format!("  -{s}, --{l}"),
        (Some(s), None) => format!("  -{s}"),
        (None, Some(l)) => format!("      --{l}"),
        (None, None) => String::new(),
    };
    if arg.get_action().takes_values() {
        let name = arg.get_value_names().and_then(|n| n.first()).map(|n| n.to_string());
        spec.push('=');
        spec.push_str(&name.unwrap_or_else(|| "VALUE".into()));
    }
    spec
}

/// The `--version` text: the GNU layout, naming rapidutils.
pub fn version_text(name: &str) -> Vec<u8> {
    format!(
        "{name} (rapidutils) {}\n\
         Copyright (C) 2026 the rapidutils developers.\n\
         License MIT OR Apache-2.0: <https://opensource.org/licenses/MIT>.\n\
         This is free software: you are free to change and redistribute it.\n\
         There is NO WARRANTY, to the extent permitted by law.\n",
        env!("CARGO_PKG_VERSION")
    )
    .into_bytes()
}

/// Writes `text` to standard output and returns the exit status; a failed write is reported
/// as GNU's `close_stdout` does (`prog: write error: ...`, status 1).
pub fn emit(text: &[u8]) -> i32 {
    match sink::write_all(platform::STDOUT, text) {
        Ok(()) => diag::EXIT_SUCCESS,
        Err(err) => {
            diag::error_errno(b"write error", &err);
            diag::EXIT_FAILURE
        }
    }
}

/// Prints the help for `cmd` (usage lines naming the program as invoked) and returns the status.
pub fn print_help(cmd: &Command) -> i32 {
    emit(&help_text(cmd, diag::program_name().as_bytes()))
}
