//! GNU-style diagnostics: `prog: message[: strerror]` on standard error, and the program name they start with.
//!
//! GNU 9.12 names itself in two forms. Getopt's complaints, `Try '... --help'` and the usage lines use `argv[0]` as
//! given (`/usr/bin/wc: invalid option -- 'x'`); `error()` messages use its last component (`wc: f: No such file or
//! directory`). The name is kept as raw bytes. Each message is one `write`, never interleaved with others' output.

use super::i18n::trf;
use crate::platform;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

pub const EXIT_SUCCESS: i32 = 0;
pub const EXIT_FAILURE: i32 = 1;

static PROGRAM_NAME: OnceLock<OsString> = OnceLock::new();

/// Sets the program name (`argv[0]` as given); set once per process, before any diagnostic.
pub fn set_program_name(name: &OsStr) {
    let _ = PROGRAM_NAME.set(name.to_owned());
}

/// `argv[0]` as given: what getopt messages, `Try ...` and usage lines print.
pub fn program_name() -> &'static OsStr {
    PROGRAM_NAME.get().map(OsString::as_os_str).unwrap_or(OsStr::new("rapidutils"))
}

/// The last component of `argv[0]`: what `error()` messages start with.
pub fn short_program_name() -> &'static [u8] {
    let name = program_name().as_bytes();
    name.rsplit(|&b| b == b'/').next().unwrap_or(name)
}

/// A write to stderr failed: GNU's `close_stdout` then exits 1 even if all else went well (`wc --debug 2>/dev/full`).
static STDERR_FAILED: AtomicBool = AtomicBool::new(false);

pub fn stderr_failed() -> bool {
    STDERR_FAILED.load(Ordering::Relaxed)
}

/// Writes `bytes` to stderr; a failure is remembered (see [`stderr_failed`]): there is nowhere left to report it.
pub fn write_stderr(bytes: &[u8]) {
    let mut rest = bytes;
    while !rest.is_empty() {
        match platform::write(platform::STDERR, rest) {
            Ok(0) => break,
            Ok(n) => {
                rest = &rest[n..];
                continue;
            }
            Err(_) => break,
        }
    }
    if !rest.is_empty() {
        STDERR_FAILED.store(true, Ordering::Relaxed);
    }
}

/// Prints `prog: message` (message as raw bytes, already translated), GNU's `error (0, 0, ...)`.
pub fn error(message: &[u8]) {
    print_prefixed(short_program_name(), message);
}

fn print_prefixed(prog: &[u8], message: &[u8]) {
    let mut line = Vec::with_capacity(prog.len() + message.len() + 3);
    line.extend_from_slice(prog);
    line.extend_from_slice(b": ");
    line.extend_from_slice(message);
    line.push(b'\n');
    write_stderr(&line);
}

/// Prints `prog: context: strerror(errno)`, GNU's `error (0, errno, "%s", context)`.
pub fn error_errno(context: &[u8], err: &io::Error) {
    let mut message = context.to_vec();
    message.extend_from_slice(b": ");
    message.extend_from_slice(&platform::strerror(platform::errno_of(err)));
    error(&message);
}

/// GNU's `emit_try_help`: `Try 'prog --help' for more information.`
pub fn try_help() {
    write_stderr(&trf(c"Try '%s --help' for more information.\n", &[program_name().as_bytes()]));
}

/// A usage error: `text` (whole lines, as getopt prints them), then the `Try ... --help` line; GNU's usage status.
pub fn usage_error_text(text: &[u8]) -> i32 {
    write_stderr(text);
    try_help();
    EXIT_FAILURE
}

/// A usage error of our own (`argv[0]: message`), then the `Try ... --help` line.
pub fn usage_error(message: &[u8]) -> i32 {
    print_prefixed(program_name().as_bytes(), message);
    try_help();
    EXIT_FAILURE
}
