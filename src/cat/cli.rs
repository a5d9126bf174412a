//! The `cat` command line: the one definition its parser, help, man page and completions use.
//!
//! [`HELP`] is GNU 9.12's `--help`, a gettext msgid a message; clap's `Command` takes its texts from it. Arguments
//! follow GNU's `long_options` table (its order shows in an ambiguous-option message); `display_order`, the help's.

use crate::common::help::{HELP_OPTION, Msg, STDIN_NOTE, VERSION_OPTION, described, documented, help_arg, version_arg};
use clap::{Arg, ArgAction, Command, ValueHint};

const USAGE: Msg = Msg::Printf(c"Usage: %s [OPTION]... [FILE]...\n");
const DESCRIPTION: Msg = Msg::Text(c"Concatenate FILE(s) to standard output.\n");
const SHOW_ALL: Msg = Msg::Option(c"  -A, --show-all           equivalent to -vET\n");
const NUMBER_NONBLANK: Msg = Msg::Option(c"  -b, --number-nonblank    number nonempty output lines, overrides -n\n");
const E: Msg = Msg::Option(c"  -e                       equivalent to -vE\n");
const SHOW_ENDS: Msg = Msg::Option(c"  -E, --show-ends          display $ or ^M$ at end of each line\n");
const NUMBER: Msg = Msg::Option(c"  -n, --number             number all output lines\n");
const SQUEEZE_BLANK: Msg = Msg::Option(c"  -s, --squeeze-blank      suppress repeated empty output lines\n");
const T: Msg = Msg::Option(c"  -t                       equivalent to -vT\n");
const SHOW_TABS: Msg = Msg::Option(c"  -T, --show-tabs          display TAB characters as ^I\n");
const U: Msg = Msg::Option(c"  -u                       (ignored)\n");
const SHOW_NONPRINTING: Msg =
    Msg::Option(c"  -v, --show-nonprinting   use ^ and M- notation, except for LFD and TAB\n");
const EXAMPLES: Msg = Msg::Printf(
    c"
Examples:
  %s f - g  Output f's contents, then standard input, then g's contents.
  %s        Copy standard input to standard output.
",
);

/// `cat --help`, as GNU 9.12 prints it (before its closing lines).
pub const HELP: &[Msg] = &[
    USAGE,
    DESCRIPTION,
    STDIN_NOTE,
    SHOW_ALL,
    NUMBER_NONBLANK,
    E,
    SHOW_ENDS,
    NUMBER,
    SQUEEZE_BLANK,
    T,
    SHOW_TABS,
    U,
    SHOW_NONPRINTING,
    HELP_OPTION,
    VERSION_OPTION,
    EXAMPLES,
];

fn flag(id: &'static str, short: char, long: Option<&'static str>, order: usize, message: Msg) -> Arg {
    let arg = described(Arg::new(id).short(short).action(ArgAction::SetTrue).display_order(order), message);
    match long {
        Some(long) => arg.long(long),
        None => arg,
    }
}

pub fn command() -> Command {
    let cmd = Command::new("cat").about("concatenate files and print on the standard output");
    let cmd = documented(cmd, USAGE, &[DESCRIPTION, STDIN_NOTE]);
    let cmd = if crate::common::help::DOCUMENTED {
        cmd.after_help(EXAMPLES.msgid().replace("%s", "{prog}").trim_end().to_owned())
    } else {
        cmd
    };
    cmd.disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("number-nonblank", 'b', Some("number-nonblank"), 2, NUMBER_NONBLANK))
        .arg(flag("number", 'n', Some("number"), 5, NUMBER))
        .arg(flag("squeeze-blank", 's', Some("squeeze-blank"), 6, SQUEEZE_BLANK))
        .arg(flag("show-nonprinting", 'v', Some("show-nonprinting"), 10, SHOW_NONPRINTING))
        .arg(flag("show-ends", 'E', Some("show-ends"), 4, SHOW_ENDS))
        .arg(flag("show-tabs", 'T', Some("show-tabs"), 8, SHOW_TABS))
        .arg(flag("show-all", 'A', Some("show-all"), 1, SHOW_ALL))
        .arg(flag("e", 'e', None, 3, E))
        .arg(flag("t", 't', None, 7, T))
        .arg(flag("u", 'u', None, 9, U))
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
