//! `rapidutils-gen OUTDIR`: writes the man pages (`OUTDIR/man/*.1`) and the bash, zsh and fish
//! completions (`OUTDIR/completions/{bash,zsh,fish}/`) from each tool's clap `Command`, the same
//! definition the tools parse with and render `--help` from.
//!
//! Not shipped: the binary exists only with `--features gen` (`make man completions`, and the
//! test that fails when the committed files are stale). It needs no crate beyond the library's.
//! The output is reproducible: the pages carry `SOURCE_DATE_EPOCH`'s date when it is set, else
//! the release date below.

#![forbid(unsafe_code)]

mod completions;
mod man;

use clap::Command;
use rapidutils::{TOOLS, Tool};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The date the man pages carry without `SOURCE_DATE_EPOCH`: this version's release date.
const RELEASE_DATE: &str = "2026-11-30";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [out] = args.as_slice() else {
        eprintln!("usage: rapidutils-gen OUTDIR   (writes OUTDIR/man and OUTDIR/completions)");
        return ExitCode::from(2);
    };
    let date = match page_date() {
        Ok(date) => date,
        Err(message) => {
            eprintln!("rapidutils-gen: {message}");
            return ExitCode::FAILURE;
        }
    };
    match generate(Path::new(out), &date) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("rapidutils-gen: {err}");
            ExitCode::FAILURE
        }
    }
}

/// Writes every page and completion file under `out`.
fn generate(out: &Path, date: &str) -> std::io::Result<()> {
    let multicall = rapidutils::multicall_command().subcommands(TOOLS.iter().map(tool_command));
    let mut files: Vec<(PathBuf, String)> = vec![(PathBuf::from("man/rapidutils.1"), man::page(&multicall, date))];
    for tool in TOOLS {
        files.push((PathBuf::from(format!("man/{}.1", tool.name)), man::page(&tool_command(tool), date)));
    }
    files.extend(completions::all(&multicall));
    for (path, text) in files {
        let path = out.join(path);
        std::fs::create_dir_all(path.parent().expect("a file under OUTDIR"))?;
        std::fs::write(&path, text).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    }
    Ok(())
}

/// A tool's `Command` with what only the pages and completions use, which the shipped binaries
/// do without: `wc --total`'s values as a value parser (17 KB of clap code in the binary).
fn tool_command(tool: &Tool) -> Command {
    let cmd = (tool.command)();
    match tool.name {
        "wc" => cmd.mut_arg("total", |arg| arg.value_parser(rapidutils::wc::TOTAL_WHEN)),
        _ => cmd,
    }
}

/// `SOURCE_DATE_EPOCH` as YYYY-MM-DD (UTC), else the release date.
fn page_date() -> Result<String, String> {
    let Some(epoch) = std::env::var_os("SOURCE_DATE_EPOCH") else {
        return Ok(RELEASE_DATE.to_owned());
    };
    let secs: i64 = epoch
        .to_str()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("SOURCE_DATE_EPOCH is not a number of seconds: {epoch:?}"))?;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    Ok(format!("{y:04}-{m:02}-{d:02}"))
}

/// The proleptic Gregorian date of a day number since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}
