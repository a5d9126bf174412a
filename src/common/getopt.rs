//! A getopt_long that behaves like glibc's, driven by a tool's clap `Command`.
//!
//! clap's `Command` defines each tool's options (help text, man pages and completions come from it too), but clap's
//! parser differs from GNU getopt where scripts can see it: messages, exit status (2, not 1), abbreviations. This
//! parser reads the option table out of the `Command` and follows glibc's rules and messages: unambiguous long-option
//! abbreviations, `--name=value` and `--name value`, clustered short options; `--` ends the options, and `-` is an
//! operand. Operands are permuted after options unless `POSIXLY_CORRECT` is set or the tool scans in order.

use super::i18n::{format, tr_libc};
use clap::{Arg, Command};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// One option of the table, as getopt sees it.
#[derive(Clone, Debug)]
pub struct OptDef {
    pub id: String,
    pub short: Option<u8>,
    pub long: Option<String>,
    pub takes_value: bool,
}

/// A clap `Command`'s option table in declaration order, which glibc's ambiguous-option message shows.
pub fn option_table(cmd: &Command) -> Vec<OptDef> {
    cmd.get_arguments().filter(|arg| !arg.is_positional()).map(opt_def).collect()
}

fn opt_def(arg: &Arg) -> OptDef {
    OptDef {
        id: arg.get_id().as_str().to_owned(),
        short: arg.get_short().and_then(|c| u8::try_from(c).ok()),
        long: arg.get_long().map(str::to_owned),
        takes_value: arg.get_action().takes_values(),
    }
}

/// How operands and options may be mixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// GNU's default: options are recognised anywhere before `--` (unless POSIXLY_CORRECT).
    Permute,
    /// Option scanning stops at the first operand (`+` in the optstring, or POSIXLY_CORRECT).
    RequireOrder,
}

/// A recognised option and its argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    pub id: String,
    pub value: Option<OsString>,
}

/// A usage error, worded as glibc words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GetoptError {
    /// `--name[=value]` matches no option (the text after `--`).
    Unrecognized(Vec<u8>),
    /// `--abbrev[=value]` matches several options (the text after `--`, and their names).
    Ambiguous(Vec<u8>, Vec<String>),
    /// `--name=value` for an option without an argument (the full option name).
    NoArgumentAllowed(String),
    /// A long option that needs an argument had none (the full option name).
    ArgumentRequired(String),
    /// `-c` is not an option.
    InvalidShort(u8),
    /// `-c` needs an argument and had none.
    ShortArgumentRequired(u8),
}

impl GetoptError {
    /// glibc getopt's lines, from the C library's catalog, with `prog` (`argv[0]` as given) where glibc puts it.
    pub fn render(&self, prog: &[u8]) -> Vec<u8> {
        match self {
            GetoptError::Unrecognized(text) => {
                format(tr_libc(c"%s: unrecognized option '%s%s'\n"), &[prog, b"--", text])
            }
            GetoptError::Ambiguous(text, names) => {
                let mut m = format(tr_libc(c"%s: option '%s%s' is ambiguous; possibilities:"), &[prog, b"--", text]);
                for name in names {
                    m.extend_from_slice(b" '--");
                    m.extend_from_slice(name.as_bytes());
                    m.push(b'\'');
                }
                m.push(b'\n');
                m
            }
            GetoptError::NoArgumentAllowed(name) => {
                format(tr_libc(c"%s: option '%s%s' doesn't allow an argument\n"), &[prog, b"--", name.as_bytes()])
            }
            GetoptError::ArgumentRequired(name) => {
                format(tr_libc(c"%s: option '%s%s' requires an argument\n"), &[prog, b"--", name.as_bytes()])
            }
            GetoptError::InvalidShort(c) => format(tr_libc(c"%s: invalid option -- '%c'\n"), &[prog, &[*c]]),
            GetoptError::ShortArgumentRequired(c) => {
                format(tr_libc(c"%s: option requires an argument -- '%c'\n"), &[prog, &[*c]])
            }
        }
    }

    /// Prints the error and GNU's `Try ... --help` line; returns the usage-error status.
    pub fn report(&self) -> i32 {
        super::diag::usage_error_text(&self.render(super::diag::program_name().as_bytes()))
    }
}

/// The scanner: an iterator of options; operands are collected for [`Getopt::into_operands`] once options run out.
pub struct Getopt {
    table: Vec<OptDef>,
    args: std::vec::IntoIter<&'static OsStr>,
    /// The rest of a short-option cluster being scanned (`-abc` after `a`).
    cluster: Vec<u8>,
    operands: Vec<&'static OsStr>,
    ordering: Ordering,
    done: bool,
}

impl Getopt {
    /// `args` are the arguments after the program name.
    pub fn new(table: Vec<OptDef>, args: Vec<&'static OsStr>, ordering: Ordering) -> Getopt {
        let ordering = if std::env::var_os("POSIXLY_CORRECT").is_some() { Ordering::RequireOrder } else { ordering };
        Getopt { table, args: args.into_iter(), cluster: Vec::new(), operands: Vec::new(), ordering, done: false }
    }

    /// A scanner for a tool's `Command` in GNU's default order: options anywhere before `--` unless POSIXLY_CORRECT.
    pub fn for_command(cmd: &Command, args: Vec<&'static OsStr>) -> Getopt {
        Getopt::new(option_table(cmd), args, Ordering::Permute)
    }

    /// The operands, in order, once the iterator has returned `None`.
    pub fn into_operands(mut self) -> Vec<&'static OsStr> {
        self.operands.extend(self.args);
        self.operands
    }

    fn short(&mut self) -> Result<Matched, GetoptError> {
        let c = self.cluster.remove(0);
        let Some(def) = self.table.iter().find(|d| d.short == Some(c)) else {
            return Err(GetoptError::InvalidShort(c));
        };
        let id = def.id.clone();
        if !def.takes_value {
            return Ok(Matched { id, value: None });
        }
        if !self.cluster.is_empty() {
            let value = OsString::from_vec(std::mem::take(&mut self.cluster));
            return Ok(Matched { id, value: Some(value) });
        }
        match self.args.next() {
            Some(value) => Ok(Matched { id, value: Some(value.to_owned()) }),
            None => Err(GetoptError::ShortArgumentRequired(c)),
        }
    }

    fn long(&mut self, text: &[u8]) -> Result<Matched, GetoptError> {
        let (name, value) = match text.iter().position(|&b| b == b'=') {
            Some(eq) => (&text[..eq], Some(&text[eq + 1..])),
            None => (text, None),
        };
        let exact = self.table.iter().find(|d| d.long.as_deref().map(str::as_bytes) == Some(name));
        let def = match exact {
            Some(def) => def,
            None => {
                let mut candidates =
                    self.table.iter().filter(|d| d.long.as_deref().is_some_and(|l| l.as_bytes().starts_with(name)));
                let Some(first) = candidates.next() else {
                    return Err(GetoptError::Unrecognized(text.to_vec()));
                };
                if candidates.next().is_some() {
                    let names = self
                        .table
                        .iter()
                        .filter_map(|d| d.long.clone())
                        .filter(|l| l.as_bytes().starts_with(name))
                        .collect();
                    return Err(GetoptError::Ambiguous(text.to_vec(), names));
                }
                first
            }
        };
        let long = def.long.clone().unwrap_or_default();
        let id = def.id.clone();
        match (def.takes_value, value) {
            (false, Some(_)) => Err(GetoptError::NoArgumentAllowed(long)),
            (false, None) => Ok(Matched { id, value: None }),
            (true, Some(v)) => Ok(Matched { id, value: Some(OsStr::from_bytes(v).to_owned()) }),
            (true, None) => match self.args.next() {
                Some(v) => Ok(Matched { id, value: Some(v.to_owned()) }),
                None => Err(GetoptError::ArgumentRequired(long)),
            },
        }
    }
}

impl Iterator for Getopt {
    type Item = Result<Matched, GetoptError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.cluster.is_empty() {
            return Some(self.short());
        }
        while !self.done {
            let arg = self.args.next()?;
            let bytes = arg.as_bytes();
            if bytes == b"--" {
                self.done = true;
            } else if let Some(text) = bytes.strip_prefix(b"--") {
                let text = text.to_vec();
                return Some(self.long(&text));
            } else if bytes.len() > 1 && bytes[0] == b'-' {
                self.cluster = bytes[1..].to_vec();
                return Some(self.short());
            } else {
                self.operands.push(arg);
                if self.ordering == Ordering::RequireOrder {
                    self.done = true;
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ArgAction;

    fn table() -> Vec<OptDef> {
        let cmd = Command::new("t")
            .arg(Arg::new("bytes").short('c').long("bytes").action(ArgAction::SetTrue))
            .arg(Arg::new("files0-from").long("files0-from").action(ArgAction::Set))
            .arg(Arg::new("total").long("total").action(ArgAction::Set))
            .arg(Arg::new("help").long("help").action(ArgAction::SetTrue))
            .arg(Arg::new("version").long("version").action(ArgAction::SetTrue));
        option_table(&cmd)
    }

    fn run(args: &[&'static str]) -> (Vec<Result<Matched, GetoptError>>, Vec<&'static OsStr>) {
        let mut g = Getopt::new(table(), args.iter().map(|a| OsStr::new(*a)).collect(), Ordering::Permute);
        let items: Vec<_> = g.by_ref().collect();
        (items, g.into_operands())
    }

    #[test]
    fn abbreviations_and_values() {
        let (items, ops) = run(&["a", "--by", "--tot=only", "b", "--files0", "x", "--", "--help"]);
        let ids: Vec<_> = items.iter().map(|r| r.as_ref().unwrap().id.clone()).collect();
        assert_eq!(ids, ["bytes", "total", "files0-from"]);
        assert_eq!(items[1].as_ref().unwrap().value.as_deref(), Some(OsStr::new("only")));
        assert_eq!(items[2].as_ref().unwrap().value.as_deref(), Some(OsStr::new("x")));
        assert_eq!(ops, ["a", "b", "--help"]);
    }

    #[test]
    fn errors_are_worded_like_glibc() {
        let msg = |args: &[&'static str]| {
            String::from_utf8(run(args).0.last().unwrap().clone().unwrap_err().render(b"t")).unwrap()
        };
        assert_eq!(msg(&["--x=1"]), "t: unrecognized option '--x=1'\n");
        assert_eq!(
            msg(&["--=1"]),
            "t: option '--=1' is ambiguous; possibilities: '--bytes' '--files0-from' '--total' '--help' '--version'\n"
        );
        assert_eq!(msg(&["--bytes=3"]), "t: option '--bytes' doesn't allow an argument\n");
        assert_eq!(msg(&["--tot"]), "t: option '--total' requires an argument\n");
        assert_eq!(msg(&["-cq"]), "t: invalid option -- 'q'\n");
    }
}
