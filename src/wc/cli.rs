//! The `wc` command line: the one definition its parser, help, man page and completions use.
//!
//! [`HELP`] is GNU 9.12's `--help`, a gettext msgid a message; the clap `Command` takes its texts from it. Arguments
//! follow GNU's `longopts` table (its order shows in an ambiguous-option message); `display_order` gives the help's.

use crate::common::help::{HELP_OPTION, Msg, STDIN_NOTE, VERSION_OPTION, described, documented, help_arg, version_arg};
use clap::{Arg, ArgAction, Command, ValueHint};

/// The values `--total` takes, in GNU's argmatch order. Not a clap value parser, which would grow
/// the binary (benches/RESULTS.md, "Figures behind code comments"); the generator attaches it.
pub const TOTAL_WHEN: [&str; 4] = ["auto", "always", "only", "never"];

const USAGE: Msg = Msg::Printf(c"Usage: %s [OPTION]... [FILE]...\n  or:  %s [OPTION]... --files0-from=F\n");
const DESCRIPTION: Msg = Msg::Text(
    c"Print newline, word, and byte counts for each FILE, and a total line if
more than one FILE is specified.  A word is a nonempty sequence of non white
space delimited by white space characters or by start or end of input.
",
);
const SELECTION: Msg = Msg::Text(
    c"
The options below may be used to select which counts are printed, always in
the following order: newline, word, character, byte, maximum line length.
",
);
const BYTES: Msg = Msg::Option(c"  -c, --bytes\n         print the byte counts\n");
const CHARS: Msg = Msg::Option(c"  -m, --chars\n         print the character counts\n");
const LINES: Msg = Msg::Option(c"  -l, --lines\n         print the newline counts\n");
const DEBUG: Msg = Msg::Option(c"      --debug\n         indicate what line count acceleration is used\n");
const FILES0_FROM: Msg = Msg::Option(
    c"      --files0-from=F
         read input from the files specified by
         NUL-terminated names in file F;
         If F is -, read names from standard input
",
);
const MAX_LINE_LENGTH: Msg = Msg::Option(c"  -L, --max-line-length\n         print the maximum display width\n");
const WORDS: Msg = Msg::Option(c"  -w, --words\n         print the word counts\n");
const TOTAL: Msg = Msg::Option(
    c"      --total=WHEN
         when to print a line with total counts;
         WHEN can be: auto, always, only, never
",
);

/// `wc --help`, as GNU 9.12 prints it (before its closing lines).
pub const HELP: &[Msg] = &[
    USAGE,
    DESCRIPTION,
    STDIN_NOTE,
    SELECTION,
    BYTES,
    CHARS,
    LINES,
    DEBUG,
    FILES0_FROM,
    MAX_LINE_LENGTH,
    WORDS,
    TOTAL,
    HELP_OPTION,
    VERSION_OPTION,
];

fn flag(id: &'static str, short: Option<char>, order: usize, message: Msg) -> Arg {
    let arg = described(Arg::new(id).long(id).action(ArgAction::SetTrue).display_order(order), message);
    match short {
        Some(c) => arg.short(c),
        None => arg,
    }
}

pub fn command() -> Command {
    let cmd = Command::new("wc").about("print newline, word, and byte counts for each file");
    documented(cmd, USAGE, &[DESCRIPTION, STDIN_NOTE, SELECTION])
        .next_line_help(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("bytes", Some('c'), 1, BYTES))
        .arg(flag("chars", Some('m'), 2, CHARS))
        .arg(flag("lines", Some('l'), 3, LINES))
        .arg(flag("words", Some('w'), 8, WORDS))
        .arg(flag("debug", None, 4, DEBUG))
        .arg(described(
            Arg::new("files0-from")
                .long("files0-from")
                .value_name("F")
                .value_hint(ValueHint::FilePath)
                .action(ArgAction::Set)
                .display_order(5),
            FILES0_FROM,
        ))
        .arg(flag("max-line-length", Some('L'), 6, MAX_LINE_LENGTH))
        .arg(described(
            Arg::new("total").long("total").value_name("WHEN").action(ArgAction::Set).display_order(9),
            TOTAL,
        ))
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
