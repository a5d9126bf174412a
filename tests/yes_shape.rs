//! The shape of `yes`'s fast path, checked without a clock: which system calls move the data
//! (strace), and that injected failures of the zero-copy call never lose or repeat a byte.

use crate::util::*;
use std::process::Command;

const ZERO_COPY: bool = cfg!(all(target_os = "linux", not(feature = "portable")));

fn strace(extra: &[&str], args: &[&str]) -> Command {
    let mut cmd = Command::new("strace");
    cmd.args(["-qq", "-o"])
        .args(extra)
        .arg(ours("yes"))
        .args(args);
    cmd
}

fn count_calls(log: &str, prefix: &str) -> usize {
    log.lines().filter(|l| l.starts_with(prefix)).count()
}

#[test]
fn pipe_output_moves_by_vmsplice_and_writes_only_the_first_line() {
    for args in [&[][..], &["hello world"], &["y".repeat(100_000).as_str()]] {
        let log = std::env::temp_dir().join(format!("ru-yes-strace-{}", std::process::id()));
        let mut cmd = strace(
            &[log.to_str().unwrap(), "-e", "trace=write,writev,vmsplice"],
            args,
        );
        cmd.env("LC_ALL", "C");
        let cut = 64 << 20;
        let out = run_cut(cmd, cut);
        let line = if args.is_empty() {
            b"y\n".to_vec()
        } else {
            format!("{}\n", args[0]).into_bytes()
        };
        assert!(
            out.stdout == repeated(&line, cut),
            "output bytes wrong for {} byte line",
            line.len()
        );
        let text = std::fs::read_to_string(&log).unwrap();
        std::fs::remove_file(&log).unwrap();
        let writes = count_calls(&text, "write(1,") + count_calls(&text, "writev(1,");
        let vmsplices = count_calls(&text, "vmsplice(1,");
        if ZERO_COPY {
            assert_eq!(
                writes,
                1,
                "only the first line is written, got:\n{}",
                &text[..text.len().min(2000)]
            );
            assert!(vmsplices >= 1, "no vmsplice");
        } else {
            assert_eq!(vmsplices, 0, "portable build must not vmsplice");
            assert!(writes > 1, "portable build writes the data");
        }
    }
}

/// Expected output after every injected "unsupported" failure: exactly the line pattern.
#[test]
fn unsupported_vmsplice_falls_back_without_losing_bytes() {
    let lines = [
        "y".to_string(),
        "x".repeat(84),
        "z".repeat(4095),
        "w".repeat(99_999),
    ];
    for line in &lines {
        for errno in ["ENOSYS", "EINVAL"] {
            for when in ["1", "2", "3", "2+"] {
                let inject = format!("inject=vmsplice:error={errno}:when={when}");
                let cmd = strace(
                    &["/dev/null", "-e", "trace=vmsplice", "-e", &inject],
                    &[line.as_str()],
                );
                let cut = 24 << 20;
                let out = run_cut(cmd, cut);
                let expected = repeated(format!("{line}\n").as_bytes(), cut);
                assert!(
                    out.stdout == expected,
                    "{errno} at call {when}, line {}: output differs",
                    line.len() + 1
                );
                assert!(out.stderr.is_empty(), "{}", out.stderr_text());
            }
        }
    }
}

#[test]
fn real_vmsplice_error_is_reported_and_output_stops() {
    if !ZERO_COPY {
        return assert_eq!(count_calls("", "x"), 0);
    }
    let cmd = strace(
        &[
            "/dev/null",
            "-e",
            "trace=vmsplice",
            "-e",
            "inject=vmsplice:error=EIO:when=3",
        ],
        &["ab"],
    );
    let out = run_cut(cmd, 1 << 30);
    assert_eq!(
        out.stderr_text(),
        "yes: standard output: Input/output error\n"
    );
    assert_eq!(out.status, "exit 1");
    assert!(out.stdout.len() >= 3 && out.stdout == repeated(b"ab\n", out.stdout.len()));
}
