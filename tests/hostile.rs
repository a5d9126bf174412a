//! Hostile and unusual inputs and environments: huge sparse files, counters that overflow,
//! files that change while read, pseudo-files, FIFOs, sockets, terminals, endless devices,
//! huge lines in bounded memory, huge argument lists, every byte value in file names, and
//! closed standard descriptors. GNU 9.12 is the reference wherever it gives an answer.

use crate::util::*;

fn compare(label: &str, mine: &Outcome, gnu: &Outcome) {
    assert_eq!(
        (mine.status.as_str(), String::from_utf8_lossy(&mine.stdout), mine.stderr_text()),
        (gnu.status.as_str(), String::from_utf8_lossy(&gnu.stdout), gnu.stderr_text()),
        "{label}"
    );
}

/// `wc --total` past 2^64 - 1, reached with sparse files of 2^63 - 1 bytes (answered from
/// their size): GNU 9.12 prints UINTMAX_MAX, says which total overflowed (EOVERFLOW) and
/// exits 1; without a total line there is nothing to report.
#[test]
fn wc_totals_that_overflow_are_reported_like_gnu() {
    let dir = tmpfs_dir("wc-overflow");
    for name in ["a", "b", "c"] {
        sparse(&dir.0.join(name), i64::MAX as u64);
    }
    sparse(&dir.0.join("small"), 5);
    for script in [
        "$T -c a b; echo rc=$?",
        "$T -c a b c; echo rc=$?",
        "$T -c a b small c small; echo rc=$?",
        "$T -cm a b c; echo rc=$?",
        "$T -m a b c; echo rc=$?",
        "$T -c --total=only a b c; echo rc=$?",
        "$T -c --total=always a b c; echo rc=$?",
        "$T -c --total=never a b c; echo rc=$?",
        "printf 'a\\0b\\0c\\0' | $T -c --files0-from=-; echo rc=$?",
        "$T -c a b c < /dev/null > /dev/full; echo rc=$?",
    ] {
        let (mine, gnu) = script_pair("wc", script, &dir.0);
        compare(script, &mine, &gnu);
    }
}

/// Standard input that cannot be read (closed, a directory): the message names it as GNU
/// does ('standard input' without operands, '-' as an operand), and a failing close of
/// standard input at the end is reported too.
#[test]
fn wc_standard_input_errors_are_named_like_gnu() {
    let dir = TempDir::new("wc-stdin-err");
    std::fs::write(dir.0.join("f"), b"one two\n").unwrap();
    std::fs::create_dir(dir.0.join("sub")).unwrap();
    for script in [
        "$T <&-; echo rc=$?",
        "$T -c <&-; echo rc=$?",
        "$T -l <&-; echo rc=$?",
        "$T - <&-; echo rc=$?",
        "$T -l f - <&-; echo rc=$?",
        "$T < sub; echo rc=$?",
        "$T -L < sub; echo rc=$?",
        "$T - f < sub; echo rc=$?",
        "printf 'f\\0-\\0' > list; $T --files0-from=list <&-; echo rc=$?",
        "printf 'f\\0' | $T --files0-from=- ; echo rc=$?",
    ] {
        let (mine, gnu) = script_pair("wc", script, &dir.0);
        compare(script, &mine, &gnu);
    }
}

/// Every combination of closed standard input, output and error, with SIGPIPE at its default
/// and ignored, for each tool in several modes: the same output, messages and exit status as
/// GNU 9.12 (output cut by `head` where the tool would run forever).
#[test]
fn closed_standard_descriptors_in_every_combination() {
    let dir = TempDir::new("closed-std");
    std::fs::write(dir.0.join("f"), b"hello\nworld\n").unwrap();
    let cases: &[(&str, &str)] = &[
        ("yes", ""),
        ("yes", "a b"),
        ("cat", ""),
        ("cat", "f"),
        ("cat", "-n f"),
        ("cat", "-"),
        ("cat", "-A - f"),
        ("cat", "f missing"),
        ("wc", ""),
        ("wc", "f"),
        ("wc", "-c"),
        ("wc", "-l f -"),
        ("wc", "--files0-from=-"),
        ("wc", "--bogus"),
    ];
    for (tool, args) in cases {
        for redirect in ["", "<&-", ">&-", "2>&-", "<&- >&-", "<&- 2>&-", ">&- 2>&-", "<&- >&- 2>&-"] {
            for sigpipe in ["", "trap '' PIPE;"] {
                let script = format!(
                    "exec < f; ( {sigpipe} exec -a {tool} $T {args} {redirect} ) 2>&1 | head -c 300; echo \" rc=${{PIPESTATUS[0]}}\""
                );
                let (mine, gnu) = script_pair(tool, &script, &dir.0);
                compare(&format!("{tool} {args} {redirect} {sigpipe}"), &mine, &gnu);
            }
        }
    }
}
