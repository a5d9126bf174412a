//! What every tool shares: GNU-style diagnostics and exit codes, name quoting, the getopt
//! parser driven by each tool's clap `Command`, `--help`/`--version` output, and the output sink.

pub mod diag;
pub mod getopt;
pub mod help;
pub mod i18n;
pub mod quote;
pub mod sink;

pub use diag::{EXIT_FAILURE, EXIT_SUCCESS};
