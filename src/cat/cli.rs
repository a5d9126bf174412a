//! The `cat` command line: the one definition its parser, help, man page and completions use.
//!
//! Arguments are declared in the order of GNU's `long_options` table (it decides the order of
//! "possibilities" in an ambiguous-option message); `display_order` gives the help's order.

use crate::common::help::{help_arg, version_arg};
use clap::{Arg, ArgAction, Command, ValueHint};

fn flag(id: &'static str, short: char, long: Option<&'static str>, order: usize, help: &'static str) -> Arg {
    let arg = Arg::new(id).short(short).action(ArgAction::SetTrue).display_order(order).help(help);
    match long {
        Some(long) => arg.long(long),
        None => arg,
    }
}

pub fn command() -> Command {
    Command::new("cat")
        .override_usage("cat [OPTION]... [FILE]...")
        .about("concatenate files and print on the standard output")
        .long_about("Concatenate FILE(s) to standard output.\n\nWith no FILE, or when FILE is -, read standard input.")
        .after_help(
            "\nExamples:\n  {prog} f - g  Output f's contents, then standard input, then g's contents.\n  \
             {prog}        Copy standard input to standard output.",
        )
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("number-nonblank", 'b', Some("number-nonblank"), 2, "number nonempty output lines, overrides -n"))
        .arg(flag("number", 'n', Some("number"), 5, "number all output lines"))
        .arg(flag("squeeze-blank", 's', Some("squeeze-blank"), 6, "suppress repeated empty output lines"))
        .arg(flag(
            "show-nonprinting",
            'v',
            Some("show-nonprinting"),
            10,
            "use ^ and M- notation, except for LFD and TAB",
        ))
        .arg(flag("show-ends", 'E', Some("show-ends"), 4, "display $ or ^M$ at end of each line"))
        .arg(flag("show-tabs", 'T', Some("show-tabs"), 8, "display TAB characters as ^I"))
        .arg(flag("show-all", 'A', Some("show-all"), 1, "equivalent to -vET"))
        .arg(flag("e", 'e', None, 3, "equivalent to -vE"))
        .arg(flag("t", 't', None, 7, "equivalent to -vT"))
        .arg(flag("u", 'u', None, 9, "(ignored)"))
        .arg(help_arg().display_order(11))
        .arg(version_arg().display_order(12))
        .arg(
            Arg::new("FILE")
                .action(ArgAction::Append)
                .num_args(0..)
                .value_hint(ValueHint::FilePath)
                .help("files to concatenate ('-' is standard input)"),
        )
}
