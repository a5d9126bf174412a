//! The `yes` command line: the one definition its parser, help, man page and completions use.
//!
//! [`HELP`] is GNU 9.12's `--help`, one gettext msgid per message; the clap `Command` takes its texts from them.

use crate::common::help::{HELP_OPTION, Msg, VERSION_OPTION, documented, help_arg, version_arg};
use clap::{Arg, ArgAction, Command, ValueHint};

const USAGE: Msg = Msg::Printf(c"Usage: %s [STRING]...\n  or:  %s OPTION\n");
const DESCRIPTION: Msg = Msg::Text(c"Repeatedly output a line with all specified STRING(s), or 'y'.\n\n");

/// `yes --help`, as GNU 9.12 prints it (before its closing lines).
pub const HELP: &[Msg] = &[USAGE, DESCRIPTION, HELP_OPTION, VERSION_OPTION];

pub fn command() -> Command {
    let cmd = Command::new("yes").about("output a string repeatedly until killed");
    documented(cmd, USAGE, &[DESCRIPTION])
        .next_line_help(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(help_arg())
        .arg(version_arg())
        .arg(
            Arg::new("STRING")
                .action(ArgAction::Append)
                .num_args(0..)
                .value_hint(ValueHint::Other)
                .help("the text of each line"),
        )
}
