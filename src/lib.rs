//! rapidutils: GNU-compatible `yes`, `cat` and `wc` that pick their fastest path at run time.
//!
//! The library holds every tool; the binaries are thin: `src/bin/<tool>.rs` runs one tool, and
//! `src/main.rs` is the multi-call binary that dispatches on its name or first argument.

// `platform` is the one module allowed `unsafe` (every syscall, the SIMD kernels, the C library's locale functions).
// Cargo.toml's [lints] deny it in the crate; every other module forbids it, so no `allow` below can let it back in.
#[forbid(unsafe_code)]
pub mod cat;
#[forbid(unsafe_code)]
pub mod common;
#[forbid(unsafe_code)]
pub mod input;
#[allow(unsafe_code)]
pub mod platform;
#[cfg(test)]
#[forbid(unsafe_code)]
mod testing;
#[forbid(unsafe_code)]
pub mod wc;
#[forbid(unsafe_code)]
pub mod yes;

use clap::Command;
pub use common::{Arg, Tool};
use common::{diag, help};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

pub const TOOLS: &[Tool] = &[cat::TOOL, wc::TOOL, yes::TOOL];

/// Finds the tool a program name stands for: the tool whose name is the longest suffix of the
/// name's last path component, so `yes`, `/usr/bin/yes`, `ru-yes` and `gyes` all mean `yes`.
pub fn tool_for_program(program: &OsStr) -> Option<&'static Tool> {
    let bytes = program.as_bytes();
    let base = bytes.rsplit(|&b| b == b'/').next().unwrap_or(bytes);
    TOOLS.iter().filter(|t| base.ends_with(t.name.as_bytes())).max_by_key(|t| t.name.len())
}

/// Runs one tool as a standalone binary: `argv[0]` is the program name in diagnostics, as GNU's.
pub fn run_tool(tool: &Tool, mut args: Vec<Arg>) -> i32 {
    let program = if args.is_empty() { OsStr::new(tool.name) } else { args.remove(0) };
    diag::set_program_name(program);
    let status = (tool.run)(args);
    // GNU's close_stdout: a diagnostic that could not be written fails the run.
    if status == diag::EXIT_SUCCESS && diag::stderr_failed() { diag::EXIT_FAILURE } else { status }
}

/// The multi-call binary: dispatch on the program name, else on the first argument.
pub fn multicall_main(mut args: Vec<Arg>) -> i32 {
    if let Some(tool) = args.first().and_then(|p| tool_for_program(p)) {
        return run_tool(tool, args);
    }
    if args.len() < 2 {
        return multicall_error(b"missing tool name");
    }
    let name = args.remove(1);
    let own_option = |text: &[u8]| {
        diag::set_program_name(OsStr::new("rapidutils"));
        help::emit(text, help::Buffering::Full)
    };
    match name.as_bytes() {
        b"--help" => return own_option(multicall_help().as_bytes()),
        b"--version" => return own_option(&[help::version_text("rapidutils"), kernels_line()].concat()),
        b"--list" => {
            let list: String = TOOLS.iter().map(|t| format!("{}\n", t.name)).collect();
            return own_option(list.as_bytes());
        }
        _ => {}
    }
    match TOOLS.iter().find(|t| t.name.as_bytes() == name.as_bytes()) {
        Some(tool) => {
            args[0] = OsStr::new(tool.name);
            run_tool(tool, args)
        }
        None => {
            let mut message = common::quote::quotef(name.as_bytes());
            message.extend_from_slice(b": no such tool in rapidutils");
            multicall_error(&message)
        }
    }
}

fn multicall_error(message: &[u8]) -> i32 {
    diag::set_program_name(OsStr::new("rapidutils"));
    diag::usage_error(message)
}

/// The multi-call binary's own command line: its usage forms, description and options (the tools
/// are not subcommands here: `--help` lists them in the text, the generator adds them).
pub fn multicall_command() -> Command {
    let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
    let flag =
        |id: &'static str, help: &'static str| clap::Arg::new(id).long(id).action(clap::ArgAction::SetTrue).help(help);
    Command::new("rapidutils")
        .override_usage(MULTICALL_USAGE)
        .about("GNU-compatible yes, cat and wc in one multi-call binary")
        .long_about(format!(
            "Run one of the rapidutils tools: GNU-compatible {}.\n\n\
             A link or copy whose name ends in a tool's name runs that tool, so the binary can be\n\
             installed as 'yes' or with a prefix such as 'ru-yes' or 'gyes'.",
            names.join(", ")
        ))
        .disable_help_flag(true)
        .disable_version_flag(true)
        .arg(flag("list", "list the tools, one per line"))
        .arg(flag("help", "display this help and exit"))
        .arg(flag("version", "output version information and exit"))
}

/// The line of `rapidutils --version` that names the SIMD kernels this build has (the AVX-512
/// kernel needs a compiler from Rust 1.89), whether or not this CPU runs them.
fn kernels_line() -> Vec<u8> {
    let names: Vec<&str> = platform::simd::Kernel::ALL.iter().filter(|k| k.in_build()).map(|k| k.name()).collect();
    format!("SIMD kernels in this build: {}.\n", names.join(", ")).into_bytes()
}

/// The multi-call binary's usage forms, one a line.
const MULTICALL_USAGE: &str =
    "rapidutils TOOL [ARGUMENT]...\nTOOL [ARGUMENT]...   (through a link named after the tool)";

/// `rapidutils --help`: usage, description, each option with its description below (GNU's layout).
fn multicall_help() -> String {
    let cmd = multicall_command();
    let mut text = String::new();
    for (i, line) in MULTICALL_USAGE.lines().enumerate() {
        text.push_str(if i == 0 { "Usage: " } else { "  or:  " });
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&cmd.get_long_about().map(|a| a.to_string()).unwrap_or_default());
    text.push_str("\n\n");
    for arg in cmd.get_arguments() {
        let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
        text.push_str(&format!("      --{}\n         {help}\n", arg.get_long().unwrap_or_default()));
    }
    text
}
