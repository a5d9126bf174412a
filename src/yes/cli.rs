//! The `yes` command line: the one definition its parser, help, man page and completions use.

use crate::common::help::{help_arg, version_arg};
use clap::{Arg, ArgAction, Command, ValueHint};

pub fn command() -> Command {
    Command::new("yes")
        .override_usage("yes [STRING]...\nyes OPTION")
        .about("output a string repeatedly until killed")
        .long_about("Repeatedly output a line with all specified STRING(s), or 'y'.\n")
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
