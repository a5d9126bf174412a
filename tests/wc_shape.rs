//! The shape of `wc -c`, checked with strace: a regular file is answered from its size without
//! reading it (and the offset is left at the end); a pipe is drained by splice, not read.

use crate::util::*;
use std::process::{Command, Stdio};

const ZERO_COPY: bool = cfg!(all(target_os = "linux", not(feature = "portable")));

fn trace(cmd_line: &str, dir: &TempDir) -> (String, String) {
    let log = dir.0.join("trace");
    let mut sh = Command::new("bash");
    sh.arg("-c").arg(cmd_line).env("WC", ours("wc")).env("LOG", &log).env("LC_ALL", "C").current_dir(&dir.0);
    let out = run_with_stdout(sh, Stdio::piped());
    assert!(out.stderr.is_empty(), "{}", out.stderr_text());
    (String::from_utf8(out.stdout).unwrap(), std::fs::read_to_string(&log).unwrap())
}

#[test]
fn regular_file_bytes_come_from_its_size() {
    let dir = TempDir::new("wc-shape");
    dir.file("big", &noise((10 << 20) + 1, 2));
    let (out, log) = trace("strace -qq -o \"$LOG\" -e trace=openat,read,lseek \"$WC\" -c big", &dir);
    assert_eq!(out, "10485761 big\n");
    let after_open = &log[log.find("\"big\"").expect("big opened")..];
    assert_eq!(after_open.lines().filter(|l| l.starts_with("read(3")).count(), 0, "{after_open}");
    // The offset is left at the end: a second wc -c on the same stdin prints 0.
    let (out, _) = trace("{ \"$WC\" -c; \"$WC\" -c; } < big; : > \"$LOG\"", &dir);
    assert_eq!(out, "10485761\n0\n");
    // A size that is a multiple of the page size may be a /proc-style lie: GNU reads the last
    // st_blksize + 1 bytes' worth to be sure, and so do we, no more.
    dir.file("paged", &noise(10 << 20, 5));
    let (out, log) = trace("strace -qq -o \"$LOG\" -e trace=openat,read \"$WC\" -c paged", &dir);
    assert_eq!(out, "10485760 paged\n");
    let after_open = &log[log.find("\"paged\"").expect("paged opened")..];
    assert!(after_open.lines().filter(|l| l.starts_with("read(3")).count() <= 2, "{after_open}");
}

#[test]
fn pipe_bytes_are_spliced_not_read() {
    let dir = TempDir::new("wc-shape-pipe");
    dir.file("big", &noise(10 << 20, 3));
    let (out, log) = trace("cat big | strace -qq -o \"$LOG\" -e trace=read,splice \"$WC\" -c", &dir);
    assert_eq!(out, "10485760\n");
    let reads_of_stdin = log.lines().filter(|l| l.starts_with("read(0")).count();
    let splices = log.lines().filter(|l| l.starts_with("splice(0")).count();
    if ZERO_COPY {
        assert!(splices >= 1 && reads_of_stdin == 0, "{log}");
    } else {
        assert!(splices == 0 && reads_of_stdin >= 1, "{log}");
    }
    // Splice refused: the rest is read, the count is the same.
    let (out, _) =
        trace("cat big | strace -qq -o \"$LOG\" -e trace=splice -e inject=splice:error=EINVAL:when=2 \"$WC\" -c", &dir);
    assert_eq!(out, "10485760\n");
}
