//! `yes` against GNU coreutils 9.12 on generated cases: stdout, stderr and how the process
//! ended must be identical (--help and --version differ only in their closing lines).

use crate::util::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::process::{Command, Stdio};

/// Argument lists covering every option spelling, `--` placement and odd operands.
fn arg_cases() -> Vec<Vec<OsString>> {
    let text: &[&[&str]] = &[
        &[],
        &["a"],
        &["a", "b"],
        &[""],
        &["", ""],
        &["a b", " ", "c"],
        &["-"],
        &["--"],
        &["--", "--"],
        &["a", "--", "b"],
        &["--", "-x", "--help"],
        &["a", "--", "--help"],
        &["--help"],
        &["--hel"],
        &["--h"],
        &["--version"],
        &["--vers"],
        &["--v"],
        &["a", "--help"],
        &["a", "--version", "b"],
        &["--help", "--version"],
        &["--version", "--bogus"],
        &["--bogus", "--help"],
        &["--help=x"],
        &["--version="],
        &["--h=1"],
        &["--foo"],
        &["--foo=bar"],
        &["--=x"],
        &["---"],
        &["-h"],
        &["-v"],
        &["-ab"],
        &["a", "-y"],
        &["-", "-", "x"],
        &["\t", "\n"],
        &["y\n"],
    ];
    let mut cases: Vec<Vec<OsString>> = text.iter().map(|c| c.iter().map(OsString::from).collect()).collect();
    // Bytes that are not UTF-8, every byte value, and an invalid option byte.
    cases.push(vec![OsString::from_vec(vec![0xff, 0xfe, b'a', 0x80])]);
    cases.push(vec![OsString::from_vec((1..=255u8).collect())]);
    cases.push(vec![OsString::from_vec(vec![b'-', 0xc3, 0xa9])]);
    // Long lines (longer than every buffer; Linux caps one argument at 128 KiB) and many operands.
    cases.push((0..15).map(|_| OsString::from("x".repeat(100_000))).collect());
    cases.push(vec![OsString::from("ab".repeat(40_000)), OsString::from("c")]);
    cases.push((0..5000).map(|i| OsString::from(i.to_string())).collect());
    // Line lengths around page and buffer sizes.
    for len in [84, 4095, 4096, 4097, 65535, 131071] {
        cases.push(vec![OsString::from("z".repeat(len))]);
    }
    cases
}

/// How many bytes of output to compare, chosen so cuts land inside and between lines/buffers.
const CUTS: &[usize] = &[1, 2, 3, 4095, 4096, 4097, 65537, 131073, 1 << 20, (3 << 20) + 7, 9 << 20];

fn compare(args: &[OsString], env: &[(&str, &str)], cut: usize) {
    let [mut mine, mut gnu] = both("yes", "yes");
    for cmd in [&mut mine, &mut gnu] {
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
    }
    let a = run_cut(mine, cut);
    let b = run_cut(gnu, cut);
    let shown: Vec<_> = args.iter().map(|a| a.to_string_lossy().chars().take(40).collect::<String>()).take(5).collect();
    if is_help_or_version(&b) {
        assert_eq!(a.status, b.status, "status for {shown:?} {env:?}");
        assert_eq!(a.stderr, b.stderr, "stderr for {shown:?} {env:?}");
        assert_eq!(help_body(&a.stdout), help_body(&b.stdout), "help body for {shown:?} {env:?}");
        return;
    }
    assert_eq!(a.status, b.status, "status for {shown:?} {env:?} cut {cut}");
    assert_eq!(a.stderr_text(), b.stderr_text(), "stderr for {shown:?} {env:?} cut {cut}");
    assert!(a.stdout == b.stdout, "stdout differs for {shown:?} {env:?} cut {cut}");
}

fn is_help_or_version(outcome: &Outcome) -> bool {
    outcome.status == "exit 0" && (outcome.stdout.starts_with(b"Usage:") || outcome.stdout.starts_with(b"yes (GNU"))
}

/// Help up to the closing lines; a version text reduces to its first word.
fn help_body(out: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(out);
    if text.starts_with("yes (") {
        return b"version".to_vec();
    }
    text.split("\n\n").take(2).collect::<Vec<_>>().join("\n\n").into_bytes()
}

#[test]
fn every_argument_case_matches_gnu() {
    for args in arg_cases() {
        let total: usize = args.iter().map(|a| a.len() + 1).sum();
        for &cut in CUTS.iter().filter(|&&c| c <= 4 * total.max(1 << 20)) {
            compare(&args, &[], cut);
        }
    }
}

#[test]
fn posixly_correct_stops_option_scanning_at_first_operand() {
    for args in arg_cases().into_iter().filter(|a| a.len() > 1 || a.iter().any(|x| x.len() < 10)) {
        compare(&args, &[("POSIXLY_CORRECT", "1")], 4097);
    }
}

#[test]
fn help_version_and_errors_use_argv0_as_given() {
    for argv0 in ["yes", "/usr/local/bin/yes", "./yes"] {
        for args in [&["--help"][..], &["--bogus"], &["-q"], &["--ver=1"]] {
            let [mut mine, mut gnu] = both("yes", argv0);
            mine.args(args);
            gnu.args(args);
            let a = run_cut(mine, 1 << 16);
            let b = run_cut(gnu, 1 << 16);
            assert_eq!((a.status.clone(), a.stderr_text()), (b.status.clone(), b.stderr_text()), "{argv0} {args:?}");
            assert_eq!(help_body(&a.stdout), help_body(&b.stdout), "{argv0} {args:?}");
        }
    }
}

#[test]
fn version_names_rapidutils() {
    let [mut mine, _] = both("yes", "yes");
    mine.arg("--version");
    let out = run_cut(mine, 1 << 16);
    assert_eq!(out.status, "exit 0");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().next(), Some(concat!("yes (rapidutils) ", env!("CARGO_PKG_VERSION"))));
}

#[test]
fn sigpipe_default_kills_and_ignored_reports_like_gnu() {
    for args in [&[][..], &["hello", "world"], &["--"]] {
        for cut in [0, 1, 2, 100_000] {
            let [mine, gnu] = both("yes", "yes");
            let (mut mine, mut gnu) = (mine, gnu);
            mine.args(args);
            gnu.args(args);
            let a = run_cut(mine, cut);
            let b = run_cut(gnu, cut);
            assert_eq!(a.status, "signal 13", "default SIGPIPE, {args:?} cut {cut}");
            assert_eq!(a, b, "default SIGPIPE, {args:?} cut {cut}");
            let [mine, gnu] = both("yes", "yes");
            let (mut mine, mut gnu) = (mine, gnu);
            mine.args(args);
            gnu.args(args);
            let a = run_cut(through_shell(&mine, "yes", "trap '' PIPE;", ""), cut);
            let b = run_cut(through_shell(&gnu, "yes", "trap '' PIPE;", ""), cut);
            assert_eq!(a.status, "exit 1", "ignored SIGPIPE, {args:?} cut {cut}");
            assert_eq!(a.stderr_text(), "yes: standard output: Broken pipe\n");
            assert_eq!(a, b, "ignored SIGPIPE, {args:?} cut {cut}");
        }
    }
}

#[test]
fn write_errors_match_gnu() {
    // /dev/full: ENOSPC at once; closed stdout: EBADF.
    for args in [&[][..], &["x"], &["--help"], &["--version"]] {
        let [mut mine, mut gnu] = both("yes", "yes");
        mine.args(args);
        gnu.args(args);
        let full = || Stdio::from(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
        let a = run_with_stdout(through_shell(&mine, "yes", "", ""), full());
        let b = run_with_stdout(through_shell(&gnu, "yes", "", ""), full());
        assert_eq!(a, b, "/dev/full {args:?}");
        assert_eq!(a.status, "exit 1");
        let a = run_with_stdout(through_shell(&mine, "yes", "", ">&-"), Stdio::null());
        let b = run_with_stdout(through_shell(&gnu, "yes", "", ">&-"), Stdio::null());
        assert_eq!(a, b, "closed stdout {args:?}");
        assert_eq!(a.status, "exit 1");
    }
}

#[test]
fn output_into_regular_file_matches_gnu() {
    // Not a pipe: the write path. `ulimit -f` bounds the file (SIGXFSZ ends both tools at the
    // same byte), so the whole file and the way each process ended can be compared.
    let dir = std::env::temp_dir().join(format!("ru-yes-file-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for args in [&["abc"][..], &[], &["0123456789".repeat(10).as_str()]] {
        let mut results = Vec::new();
        for (i, cmd) in both("yes", "yes").into_iter().enumerate() {
            let mut cmd = cmd;
            cmd.args(args);
            let path = dir.join(format!("out{i}"));
            let file = Stdio::from(std::fs::File::create(&path).unwrap());
            let outcome = run_with_stdout(through_shell(&cmd, "yes", "ulimit -f 3000;", ""), file);
            results.push((outcome, std::fs::read(&path).unwrap()));
        }
        assert_eq!(results[0].0.status, "signal 25", "{args:?}");
        assert_eq!(results[0].1.len(), 3000 * 1024);
        assert!(results[0] == results[1], "{args:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `yes > /dev/null` writes on until killed: it is still running once it has written 1 GiB
/// (the kernel's count of the bytes it wrote, /proc/PID/io), far past any buffer of its own,
/// and it dies of the signal that kills it, having said nothing.
#[test]
fn output_into_dev_null_runs_until_killed() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(ours("yes")).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let io = format!("/proc/{}/io", child.id());
    let written = wait_for("yes to write 1 GiB into /dev/null", || {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("yes > /dev/null stopped by itself: {status}");
        }
        let text = std::fs::read_to_string(&io).ok()?;
        let wchar: u64 = text.lines().find_map(|l| l.strip_prefix("wchar: "))?.parse().ok()?;
        (wchar >= 1 << 30).then_some(wchar)
    });
    assert!(child.try_wait().unwrap().is_none(), "yes > /dev/null stopped by itself after {written} bytes");
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(libc::SIGKILL), "{:?}", out.status);
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}
