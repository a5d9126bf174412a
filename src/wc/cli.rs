//! The `wc` command line: the one definition its parser, help, man page and completions use.
//!
//! Arguments are declared in the order of GNU's `longopts` table (it decides the order of
//! "possibilities" in an ambiguous-option message); `display_order` gives the help's order.

use crate::common::help::{help_arg, version_arg};
use clap::{Arg, ArgAction, Command, ValueHint};

/// The values `--total` takes, in GNU's argmatch order (its "Valid arguments" list). Not a
/// clap value parser: that would add 17 KB of clap to the binary; the generator attaches it.
pub const TOTAL_WHEN: [&str; 4] = ["auto", "always", "only", "never"];

fn flag(id: &'static str, short: Option<char>, order: usize, help: &'static str) -> Arg {
    let arg = Arg::new(id).long(id).action(ArgAction::SetTrue).display_order(order).help(help);
    match short {
        Some(c) => arg.short(c),
        None => arg,
    }
}

pub fn command() -> Command {
    Command::new("wc")
        .override_usage("wc [OPTION]... [FILE]...\nwc [OPTION]... --files0-from=F")
        .about("print newline, word, and byte counts for each file")
        .long_about(
            "Print newline, word, and byte counts for each FILE, and a total line if\n\
             more than one FILE is specified.  A word is a nonempty sequence of non white\n\
             space delimited by white space characters or by start or end of input.\n\
             \n\
             With no FILE, or when FILE is -, read standard input.\n\
             \n\
             The options below may be used to select which counts are printed, always in\n\
             the following order: newline, word, character, byte, maximum line length.",
        )
        .next_line_help(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("bytes", Some('c'), 1, "print the byte counts"))
        .arg(flag("chars", Some('m'), 2, "print the character counts"))
        .arg(flag("lines", Some('l'), 3, "print the newline counts"))
        .arg(flag("words", Some('w'), 8, "print the word counts"))
        .arg(flag("debug", None, 4, "indicate what line count acceleration is used"))
        .arg(
            Arg::new("files0-from")
                .long("files0-from")
                .value_name("F")
                .value_hint(ValueHint::FilePath)
                .action(ArgAction::Set)
                .display_order(5)
                .help(
                    "read input from the files specified by\n\
                     NUL-terminated names in file F;\n\
                     If F is -, read names from standard input",
                ),
        )
        .arg(flag("max-line-length", Some('L'), 6, "print the maximum display width"))
        .arg(
            Arg::new("total")
                .long("total")
                .value_name("WHEN")
                .action(ArgAction::Set)
                .display_order(9)
                .help("when to print a line with total counts;\nWHEN can be: auto, always, only, never"),
        )
        .arg(help_arg().display_order(10))
        .arg(version_arg().display_order(11))
        .arg(
            Arg::new("FILE")
                .action(ArgAction::Append)
                .num_args(0..)
                .value_hint(ValueHint::FilePath)
                .help("files to count ('-' is standard input)"),
        )
}
