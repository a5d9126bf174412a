//! What every tool shares: GNU-style diagnostics and exit codes, name quoting, the getopt parser driven by each
//! tool's clap `Command`, `--help`/`--version` output, and the output sink.

pub mod diag;
pub mod getopt;
pub mod help;
pub mod i18n;
pub mod quote;
pub mod sink;

pub use diag::{EXIT_FAILURE, EXIT_SUCCESS};

use std::ffi::OsStr;

/// A command-line argument, borrowed from the C runtime's `argv`, which lives as long as the process: no copy made.
pub type Arg = &'static OsStr;

/// A tool: its name, its command-line definition, and its entry point (which gets the arguments
/// after the program name and returns the exit status). The crate root lists them.
pub struct Tool {
    pub name: &'static str,
    pub command: fn() -> clap::Command,
    pub run: fn(Vec<Arg>) -> i32,
}
