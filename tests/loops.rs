//! The hot loops' cost by mechanism, the same on every machine: instructions a byte (callgrind)
//! and conditional branches mispredicted per 64 bytes (cachegrind's branch model) of each loop
//! of the AVX2 kernel, forced (valgrind runs no AVX-512, so an AVX-512 machine counts what an
//! AVX2 one does). Each figure is a run on an input twice over less a run on it once, so that
//! start-up and what is done once (the C library's character classes) do not count. A loop
//! fails when either grows more than 10 % over the figures in `LOOPS` (benches/RESULTS.md,
//! "The hot loops' regression bounds"), which a change that makes one of them cheaper lowers.

use crate::util::*;
use std::path::Path;
use std::process::Command;

/// A hot loop: what runs it, and its figures as the build that set them counted them.
struct Loop {
    name: &'static str,
    tool: &'static str,
    opts: &'static [&'static str],
    /// The input, by its name in `write_inputs`.
    input: &'static str,
    locale: &'static str,
    instructions_a_byte: f64,
    mispredicts_a_block: f64,
}

/// A row of `LOOPS`.
const fn hot(
    name: &'static str,
    tool: &'static str,
    opts: &'static [&'static str],
    input: &'static str,
    locale: &'static str,
    instructions_a_byte: f64,
    mispredicts_a_block: f64,
) -> Loop {
    Loop { name, tool, opts, input, locale, instructions_a_byte, mispredicts_a_block }
}

const LOOPS: [Loop; 8] = [
    hot("wc -m, ASCII", "wc", &["-m"], "ascii", "C.UTF-8", 0.102, 0.016),
    hot("wc -m, the benchmark's text", "wc", &["-m"], "text", "C.UTF-8", 0.567, 0.048),
    hot("wc -m, mixed scripts", "wc", &["-m"], "mixed", "C.UTF-8", 0.716, 0.022),
    hot("wc -m, Chinese", "wc", &["-m"], "chinese", "C.UTF-8", 0.661, 0.025),
    hot("cat -A, the benchmark's text", "cat", &["-A"], "text", "C", 1.652, 0.586),
    hot("cat -A, Chinese", "cat", &["-A"], "chinese", "C", 3.730, 0.009),
    // Counted from Debian 13's rustc 1.85.1 build, whose loop takes more of both; rustc 1.95's: 1.875, 0.741.
    hot("cat -n, the benchmark's text", "cat", &["-n"], "text", "C", 1.999, 1.038),
    hot("wc -L, Chinese", "wc", &["-L"], "chinese", "C.UTF-8", 1.332, 0.017),
];

/// How much a figure may grow over `LOOPS`' before the loop fails.
const SLACK: f64 = 1.10;

/// Mispredicts per 64 bytes a loop may gain whatever its figure: near none, a tenth of it
/// would be a branch missed once in some hundred kilobytes.
const MISPREDICTS_FLOOR: f64 = 0.01;

/// Bytes of each input, once (the runs take it once and twice over).
const SIZE: usize = 1 << 20;

/// The inputs of `make mca` (benches/mca.py: the benchmark's text, it without its non-ASCII
/// bytes, the mixed and Chinese corpora), `SIZE` bytes of whole lines, once and twice over, in
/// `dir`.
fn write_inputs(dir: &Path) {
    let benches = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches");
    let script = format!(
        "import sys; sys.path.insert(0, {benches:?}); import mca\n\
         for name, path in mca.write_inputs({dir:?}, {SIZE}).items():\n\
         \x20   data = open(path, 'rb').read()\n\
         \x20   open(path[:-4] + '.twice', 'wb').write(data + data)\n",
        benches = benches.display().to_string(),
        dir = dir.display().to_string(),
    );
    let out = Command::new(require_program("python3")).args(["-c", &script]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// What valgrind's `tool` counts of `tool`'s run on `input`: the whole run's instructions
/// (callgrind), or its conditional branches mispredicted (cachegrind).
fn counted(valgrind_tool: &str, tool: &str, opts: &[&str], input: &Path, locale: &str) -> u64 {
    let mut cmd = Command::new(require_program("valgrind"));
    match valgrind_tool {
        "callgrind" => cmd.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]),
        _ => cmd.args(["--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes", "--cachegrind-out-file=/dev/null"]),
    };
    cmd.arg(ours(tool)).args(opts).arg(input);
    cmd.env("RAPIDUTILS_SIMD", "avx2").env("LC_ALL", locale).stdout(std::process::Stdio::null());
    let out = cmd.output().expect("valgrind runs");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    let (marker, field) = match valgrind_tool {
        "callgrind" => ("I   refs:", 0),
        _ => ("Mispredicts:", 1),
    };
    // "Mispredicts: total ( cond + ind )": the conditional ones, the second number.
    let line = log.lines().find_map(|l| l.split(marker).nth(1)).unwrap_or_else(|| panic!("{log}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit() && c != ',')
        .filter(|w| !w.is_empty())
        .map(|w| w.replace(',', "").parse().unwrap())
        .collect();
    numbers[field]
}

#[test]
fn hot_loops_keep_their_instructions_and_mispredicts() {
    const TEST: &str = "loops::hot_loops_keep_their_instructions_and_mispredicts";
    // valgrind counts only what runs.
    if arch() != "x86_64" {
        skipped(TEST, "every loop", "not part of this build: the AVX2 kernel is x86-64's");
        return;
    }
    if !kernels(TEST).contains(&"avx2") {
        skipped(TEST, "every loop", &not_run("avx2"));
        return;
    }
    let dir = TempDir::new("loops");
    write_inputs(&dir.0);
    let mut failed = Vec::new();
    for Loop { name, tool, opts, input, locale, instructions_a_byte: instructions, mispredicts_a_block: mispredicts } in
        LOOPS
    {
        let once = dir.0.join(format!("{input}.txt"));
        let twice = dir.0.join(format!("{input}.twice"));
        let size = std::fs::metadata(&once).unwrap().len() as f64;
        let per = |valgrind_tool: &str| {
            let (a, b) =
                (counted(valgrind_tool, tool, opts, &once, locale), counted(valgrind_tool, tool, opts, &twice, locale));
            assert!(b > a, "{name}: {valgrind_tool} counted {a} once, {b} twice over");
            (b - a) as f64
        };
        let got_instructions = per("callgrind") / size;
        let got_mispredicts = per("cachegrind") / (size / 64.0);
        let mispredicts_bound = (mispredicts * SLACK).max(mispredicts + MISPREDICTS_FLOOR);
        eprintln!(
            "{name}: {got_instructions:.3} instructions a byte (bound {:.3}), {got_mispredicts:.3} mispredicts / 64 B (bound {mispredicts_bound:.3})",
            instructions * SLACK,
        );
        if got_instructions > instructions * SLACK || got_mispredicts > mispredicts_bound {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "loops that grew more than 10 %: {failed:?} (figures above)");
}
