//! The shape of `yes`'s fast path, checked without a clock: which system calls move the data
//! (strace), and that injected failures of the zero-copy call never lose or repeat a byte.

use crate::util::*;
use std::process::Command;

fn strace(extra: &[&str], args: &[&str]) -> Command {
    let mut cmd = Command::new("strace");
    cmd.args(["-qq", "-o"]).args(extra).arg(ours("yes")).args(args);
    cmd
}

fn count_calls(log: &str, prefix: &str) -> usize {
    log.lines().filter(|l| l.starts_with(prefix)).count()
}

/// Runs `yes WORDS...` under strace with `extra` options, cut after `cut` bytes; checks the bytes.
fn traced_run(extra: &[&str], words: &[String], cut: usize) -> Outcome {
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut cmd = strace(extra, &words);
    cmd.env("LC_ALL", "C");
    let out = run_cut(cmd, cut);
    let line = format!("{}\n", words.join(" "));
    assert!(out.stdout.len() == cut || !out.stderr.is_empty(), "short output without an error");
    let expected = repeated(line.as_bytes(), out.stdout.len());
    assert!(out.stdout == expected, "wrong bytes: {extra:?}, line {}", line.len());
    out
}

/// The operands that make a line of `len` bytes (an argument may hold at most 128 KiB).
fn line_of(len: usize) -> Vec<String> {
    let mut words = Vec::new();
    let mut left = len - 1;
    while left > 100_000 {
        words.push("w".repeat(99_999));
        left -= 100_000;
    }
    words.push("w".repeat(left));
    words
}

#[test]
fn pipe_output_moves_without_copying_after_the_first_line_and_one_buffer() {
    // A private pipe, filled by write (one unit of lines, then copies of its pages), is tee'd
    // into a relay that is spliced into stdout; a line longer than the pipe (1 MiB at the
    // default pipe-max-size) goes by vmsplice.
    for (len, fast_call) in
        [(2, "splice("), (85, "splice("), (4097, "splice("), (100_000, "splice("), (1_500_000, "vmsplice(1,")]
    {
        let log = std::env::temp_dir().join(format!("ru-yes-strace-{}-{len}", std::process::id()));
        traced_run(
            &[log.to_str().unwrap(), "-e", "trace=write,writev,vmsplice,tee,splice,fcntl"],
            &line_of(len),
            64 << 20,
        );
        let text = std::fs::read_to_string(&log).unwrap();
        std::fs::remove_file(&log).unwrap();
        let writes = count_calls(&text, "write(1,") + count_calls(&text, "writev(1,");
        let fast = count_calls(&text, fast_call);
        let excerpt = &text[..text.len().min(1500)];
        if ZERO_COPY {
            // The first line, then one buffer (128 KiB or a line) before the zero-copy set-up.
            assert_eq!(writes, 2, "line {len}: only the first line and one buffer are written, got:\n{excerpt}");
            assert!(fast >= 2, "line {len}: expected {fast_call} calls, got:\n{excerpt}");
            // Standard output grown once, to min(pipe-max-size, 1 MiB).
            let want = stdout_pipe_target();
            let grown: Vec<String> = text
                .lines()
                .filter(|l| l.starts_with("fcntl(1, F_SETPIPE_SZ, "))
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
                .collect();
            assert_eq!(grown, [format!("fcntl(1, F_SETPIPE_SZ, {want}) = {want}")], "line {len}");
            if fast_call == "splice(" {
                let filled: Vec<usize> = text
                    .lines()
                    .filter(|l| l.starts_with("write(") && !l.starts_with("write(1,"))
                    .map(|l| l.rsplit("= ").next().unwrap().trim().parse().unwrap())
                    .collect();
                assert!(
                    !filled.is_empty() && count_calls(&text, "vmsplice(") == 0,
                    "line {len}: the pipe is written:\n{excerpt}"
                );
                // The pipe holds copies of one unit: the lines of 64 KiB at most, or one longer
                // line. Only that is written (what a reader copies from stays in its caches).
                let written: usize = filled.iter().sum();
                if len <= 64 * 1024 {
                    assert!(written <= 64 * 1024 && written + len > 64 * 1024, "line {len}: {written} bytes written");
                } else {
                    assert_eq!(written, len, "line {len}: one line is written");
                }
                assert!(count_calls(&text, "tee(") > 1, "line {len}: the unit is copied by tee:\n{excerpt}");
            }
        } else {
            assert_eq!(count_calls(&text, "vmsplice(") + count_calls(&text, "tee(") + count_calls(&text, "splice("), 0);
            assert!(writes > 1, "portable build writes the data");
        }
    }
}

/// The pipe's reader sees it grown to min(pipe-max-size, 1 MiB) (1 MiB by default) once more
/// than the first line and one buffer have come: every later byte is written after the growth.
/// A larger pipe (as root) is left as large. The portable build leaves the pipe as it is.
#[test]
fn the_callers_pipe_is_grown_to_at_most_1_mib_and_never_shrunk() {
    const TEST: &str = "yes_shape::the_callers_pipe_is_grown_to_at_most_1_mib_and_never_shrunk";
    let (bytes, seen, _) = read_through_pipe(Command::new(ours("yes")), None, 4 << 20);
    assert!(bytes == repeated(b"y\n", 4 << 20), "wrong bytes");
    if !ZERO_COPY {
        assert_eq!(seen, None);
        return;
    }
    assert_eq!(seen, Some(stdout_pipe_target()));
    if !pipe_can_be(2 << 20) {
        skipped(TEST, "a pipe of 2 MiB", "a pipe larger than pipe-max-size needs root");
        return;
    }
    let (bytes, seen, _) = read_through_pipe(Command::new(ours("yes")), Some(2 << 20), 8 << 20);
    assert!(bytes == repeated(b"y\n", 8 << 20), "wrong bytes");
    assert_eq!(seen, Some(2 << 20));
}

/// Every "not supported" failure of every zero-copy call, at the first call and later ones,
/// and a failure to make the internal pipes: the output is still exactly the line pattern.
#[test]
fn unsupported_calls_fall_back_without_losing_bytes() {
    let lens = [2, 85, 4096, 4097, 100_000, 1_500_000];
    let mut faults: Vec<String> = Vec::new();
    for call in ["vmsplice", "tee", "splice"] {
        for errno in ["ENOSYS", "EINVAL", "EXDEV", "EOPNOTSUPP"] {
            for when in ["1", "2", "3", "2+"] {
                faults.push(format!("inject={call}:error={errno}:when={when}"));
            }
        }
    }
    for when in ["1", "2", "1+"] {
        faults.push(format!("inject=pipe2:error=EMFILE:when={when}"));
    }
    if ZERO_COPY {
        // The third write is the first into the private pipe (the first line and one buffer go
        // to stdout first): failing, it sends yes to vmsplice. (In the portable build it is a
        // real write error.)
        for errno in ["ENOSPC", "EIO", "EINVAL"] {
            faults.push(format!("inject=write:error={errno}:when=3"));
        }
    }
    // Interrupted and would-block calls (every other call from the second on) are retried.
    for call in ["vmsplice", "tee", "splice", "write"] {
        for errno in ["EINTR", "EAGAIN"] {
            faults.push(format!("inject={call}:error={errno}:when=2+2"));
        }
    }
    for len in lens {
        let words = line_of(len);
        for fault in &faults {
            let out = traced_run(
                &["/dev/null", "-e", "trace=vmsplice,tee,splice,pipe2,write", "-e", fault],
                &words,
                24 << 20,
            );
            assert!(out.stderr.is_empty(), "{fault}, line {len}: {}", out.stderr_text());
            assert_eq!(out.stdout.len(), 24 << 20, "{fault}, line {len}");
        }
    }
}

#[test]
fn real_errors_of_zero_copy_calls_are_reported_and_output_stops() {
    for (len, call, errno, text) in [
        (3, "tee", "EIO", "Input/output error"),
        (100_000, "splice", "EIO", "Input/output error"),
        (3, "vmsplice:when=1", "EIO", "Input/output error"),
        (3, "tee", "ENOSPC", "No space left on device"),
        (100_000, "splice", "ENOSPC", "No space left on device"),
        (3, "vmsplice:when=1", "ENOSPC", "No space left on device"),
    ] {
        let words = line_of(len);
        let fault = if call.contains("when") {
            // vmsplice fails only when the internal pipes are unavailable: take them away too.
            vec![
                "-e".to_string(),
                "inject=pipe2:error=EMFILE".to_string(),
                "-e".to_string(),
                format!("inject=vmsplice:error={errno}:when=2"),
            ]
        } else {
            // After the set-up (a short line's pipe is built by at most 8 tee+splice pairs,
            // whose failures send yes to the other paths): a tee or splice of the output loop.
            vec!["-e".to_string(), format!("inject={call}:error={errno}:when=12")]
        };
        let mut extra = vec!["/dev/null".to_string()];
        extra.extend(fault);
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        if !ZERO_COPY {
            // The portable build never makes these calls: nothing fails, the output goes on.
            let out = traced_run(&extra, &words, 16 << 20);
            assert!(out.stderr.is_empty(), "{call}: {}", out.stderr_text());
            continue;
        }
        let out = traced_run(&extra, &words, 1 << 30);
        assert_eq!(out.stderr_text(), format!("yes: standard output: {text}\n"), "{call}");
        assert_eq!(out.status, "exit 1", "{call}");
        assert!(out.stdout.len() >= len, "{call}: the first line at least");
    }
}
