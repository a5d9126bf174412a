//! Hostile and unusual inputs and environments: huge sparse files, counters that overflow,
//! files that change while read, pseudo-files, FIFOs, sockets, terminals, endless devices,
//! huge lines in bounded memory, huge argument lists, every byte value in file names, and
//! closed standard descriptors. GNU 9.12 is the reference wherever it gives an answer.

use crate::util::*;
use std::process::{Command, Stdio};

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

/// A 20 GiB sparse file: `wc -c` answers from its size at once (GNU reads the last block or
/// so of a size that is a multiple of the page size, and so do we); `cat file | head -c 1M`
/// and `cat -n` of it are cut by SIGPIPE with the right bytes, as GNU's.
#[test]
fn twenty_gib_sparse_file() {
    let dir = tmpfs_dir("sparse20");
    sparse(&dir.0.join("big"), 20 << 30);
    for script in [
        "$T -c big; echo rc=$?",
        "$T -c < big; echo rc=$?",
        "$T -c big big; echo rc=$?",
        "$T --total=only -c big big; echo rc=$?",
    ] {
        let (mine, gnu) = script_pair("wc", script, &dir.0);
        compare(script, &mine, &gnu);
        // Not read: at most the last block or so of each file (strace adds up what was read,
        // the dynamic loader's few KiB included).
        let log = dir.0.join("trace");
        let mut sh = Command::new("bash");
        sh.arg("-c")
            .arg(script.replace("$T", "$S $T"))
            .current_dir(&dir.0)
            .env("T", ours("wc"))
            .env("PATH", SYSTEM_PATH);
        sh.env("S", format!("strace -qq -e trace=read -o {}", log.display()));
        assert!(run_with_stdout(sh, Stdio::piped()).stdout_text().ends_with("rc=0\n"), "{script} traced");
        let calls = trace_calls(&std::fs::read_to_string(&log).unwrap());
        assert!(calls.iter().any(|c| c.name == "read"), "{script}: no read traced");
        let read: u64 = calls.iter().filter_map(|c| c.result.parse::<u64>().ok()).sum();
        assert!(read < 1 << 20, "{script}: read {read} bytes of the 20 GiB files ({} reads)", calls.len());
    }
    for script in [
        "$T big | head -c 1M | od -An -c | uniq; echo ${PIPESTATUS[*]}",
        "$T -n big | head -c 1M | od -An -c | uniq; echo ${PIPESTATUS[*]}",
        "$T -A big | head -c 1M | od -An -c | uniq -c; echo ${PIPESTATUS[*]}",
        "$T < big | head -c 1M | wc -c; echo ${PIPESTATUS[*]}",
    ] {
        let (mine, gnu) = script_pair("cat", script, &dir.0);
        compare(script, &mine, &gnu);
    }
}

/// Files that shrink or grow while `cat` reads them (cat is held back by a full pipe while
/// the file changes): it never fails, never invents or repeats bytes, and sees the change as
/// GNU does (reads go on to the end of the file as it is then).
#[test]
fn files_that_shrink_or_grow_while_read() {
    use std::io::{Read, Write};
    let data = &big_data().1[..16 << 20];
    for opts in [&[][..], &["-v"]] {
        for grow in [false, true] {
            let dir = TempDir::new("changing");
            let path = dir.0.join("f");
            std::fs::write(&path, data).unwrap();
            let [mut mine, _] = both("cat", "cat");
            let mut child = mine.args(opts).arg(&path).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            let mut first = vec![0u8; 1 << 20];
            stdout.read_exact(&mut first).unwrap();
            // The change comes while cat sleeps on its full stdout, at most its buffers and
            // the pipe ahead of what was read (16 MiB are far more than those).
            assert!(wait_held_back_by_stdout(child.id()), "{opts:?} grow={grow}: cat ended before the change");
            let extra = noise(3 << 20, 77);
            let now = if grow {
                let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
                f.write_all(&extra).unwrap();
                [data, &extra[..]].concat()
            } else {
                std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(8 << 20).unwrap();
                data[..8 << 20].to_vec()
            };
            let mut rest = Vec::new();
            stdout.read_to_end(&mut rest).unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success() && out.stderr.is_empty(), "{opts:?} grow={grow}: {:?}", out);
            let got = [first, rest].concat();
            let want = if opts.is_empty() {
                now
            } else {
                let mut gnu = Command::new(oracle("cat"));
                gnu.args(opts).arg(&path);
                run_piped(gnu, None).stdout
            };
            // cat had read ahead of the change by at most its buffers and the pipe: what it sent
            // is the new content (grown), or the old content up to where it stood (shrunk).
            if grow {
                assert!(got == want, "{opts:?} grew: {} bytes, want {}", got.len(), want.len());
            } else {
                let old = if opts.is_empty() { data.to_vec() } else { run_piped_bytes("cat", opts, data) };
                assert!(got.len() >= want.len() && got.len() < old.len(), "{opts:?} shrank: {} bytes", got.len());
                assert!(got == old[..got.len()], "{opts:?} shrank: not a prefix of the old content");
            }
        }
    }
}

/// `cat` formatting into the very file it reads (stdout opened read-write on it at its start,
/// which GNU's input-is-output rule lets through): formatted text is longer than its input, so
/// reading on to the end would read cat's own output back without end (GNU 9.12 does, until
/// the disk is full). It ends at the size the file had when reached, mapped or read. The file
/// size limit turns a runaway into a failure (SIGXFSZ), with no clock involved.
#[test]
fn formatting_into_the_file_it_reads_ends() {
    let dir = TempDir::new("self-format");
    for (lines, way) in [(5, "read"), (131_072, "read"), (131_072, "map"), (700_000, "map"), (700_000, "read")] {
        std::fs::write(dir.0.join("f"), b"abcdefg\n".repeat(lines)).unwrap();
        let mut sh = Command::new("bash");
        sh.arg("-c")
            .arg("ulimit -f 65536; \"$CAT\" -n f 1<> f; echo \"rc=$?\"")
            .env("CAT", ours("cat"))
            .env("PATH", SYSTEM_PATH)
            .env("RAPIDUTILS_INPUT", way)
            .current_dir(&dir.0);
        let out = run_with_stdout(sh, Stdio::piped());
        let label = format!("{lines} lines of 8 bytes, {way}");
        assert_eq!((out.stdout_text().as_str(), out.stderr_text().as_str()), ("rc=0\n", ""), "{label}");
        let now = std::fs::read(dir.0.join("f")).unwrap();
        assert!(now.starts_with(b"     1\tabcdefg\n     2\tabcdefg\n"), "{label}");
        if lines == 5 {
            let numbered: String = (1..=5).map(|n| format!("{n:6}\tabcdefg\n")).collect();
            assert_eq!(String::from_utf8_lossy(&now), numbered, "{label}");
        }
    }
}

/// Files formatted from a mapping (mapping forced) that shrink while cat is held back well
/// before the new end: the pages past it would raise SIGBUS, the last page reads as zeros past
/// the end. cat must end as read() would: exactly GNU's output for the file as it is now,
/// status 0, no message. The new ends fall inside a chunk, on the last page of a chunk, on the
/// last page of a 4 MiB window, on a page boundary, and on a window boundary.
///
/// cat runs under strace, which traces no call and shows the SIGBUS signals cat gets: where the
/// new end leaves a page of the window cat had mapped when the file shrank (it must have the
/// file's start mapped then: /proc/PID/maps says so), the SIGBUS must come, as a fault past the
/// file's end (BUS_ADRERR), and cat must recover from it; elsewhere (cat may map a window past
/// the end after the change) at most one may. No other SIGBUS, and none kills it.
#[test]
fn mapped_files_that_shrink_end_where_the_file_ends() {
    use std::io::Read;
    const TEST: &str = "hostile::mapped_files_that_shrink_end_where_the_file_ends";
    let mapped = rapidutils::platform::MAPPED_FILES;
    if !mapped {
        skipped(TEST, "the SIGBUS recovery", "not part of this build: the portable build maps no file, it reads");
    }
    let page = rapidutils::platform::page_size() as u64;
    let data = noise(12 << 20, 31);
    for opts in [&["-n"][..], &["-A"]] {
        for new_len in [(2 << 20) + 123, (3 << 20) - 100, (4 << 20) - 100, (6 << 20) + 4096, 8 << 20] {
            let label = format!("{opts:?} cut to {new_len}");
            let dir = TempDir::new("mapped-shrink");
            let path = dir.file("f", &data);
            let log = dir.0.join("signals");
            let [mut mine, _] = both("cat", "cat");
            mine.env("RAPIDUTILS_INPUT", "map").args(opts).arg(&path);
            let mut traced = Command::new(require_program("strace"));
            traced.args(["-f", "-e", "trace=none", "-e", "signal=SIGBUS", "-o"]).arg(&log);
            traced.arg(mine.get_program()).args(mine.get_args()).env_clear();
            for (key, value) in mine.get_envs() {
                traced.env(key, value.unwrap());
            }
            let mut child = traced.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            // cat is now at most its output buffer, the pipe and a chunk ahead: under 1 MiB.
            let mut first = vec![0u8; 128 << 10];
            stdout.read_exact(&mut first).unwrap();
            if mapped {
                let children = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", child.id())).unwrap();
                let cat = children.split_whitespace().next().expect("strace runs cat");
                let maps = std::fs::read_to_string(format!("/proc/{cat}/maps")).unwrap();
                let name = format!(" {}", path.display());
                assert!(
                    maps.lines().any(|l| l.ends_with(&name) && l.split_whitespace().nth(2) == Some("00000000")),
                    "{label}: cat has not mapped the file's start:\n{maps}"
                );
            }
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(new_len).unwrap();
            let mut rest = Vec::new();
            stdout.read_to_end(&mut rest).unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success() && out.stderr.is_empty(), "{label}: {out:?}");
            let got = [first, rest].concat();
            let want = run_piped_bytes("cat", opts, &data[..new_len as usize]);
            assert!(got == want, "{label}: {} bytes, want {}", got.len(), want.len());
            let signals = std::fs::read_to_string(&log).unwrap();
            let bus: Vec<&str> = signals.lines().filter(|l| l.contains("SIGBUS")).collect();
            let faults = bus.iter().filter(|l| l.contains("--- SIGBUS {si_signo=SIGBUS, si_code=BUS_ADRERR")).count();
            assert!(signals.contains("+++ exited with 0 +++"), "{label}: cat did not exit by itself:\n{signals}");
            assert_eq!(faults, bus.len(), "{label}: a SIGBUS that is not a fault past the file's end:\n{signals}");
            // The first page past the new end, inside the 4 MiB window mapped before the change.
            let in_first_window = new_len.div_ceil(page) * page < 4 << 20;
            match (mapped, in_first_window) {
                (false, _) => assert_eq!(faults, 0, "{label}: a build that maps nothing got a SIGBUS:\n{signals}"),
                (true, true) => assert_eq!(faults, 1, "{label}: the fault past the new end never came:\n{signals}"),
                (true, false) => assert!(faults <= 1, "{label}: {faults} faults:\n{signals}"),
            }
        }
    }
    // A SIGBUS that another process sends (not a fault on the mapping) still kills, as GNU's.
    use std::os::unix::process::ExitStatusExt;
    let dir = TempDir::new("mapped-kill");
    let path = dir.file("f", &data);
    for cmd in both("cat", "cat") {
        let mut cmd = cmd;
        let mut child = cmd.arg("-n").arg(&path).stdout(Stdio::piped()).spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = vec![0u8; 128 << 10];
        stdout.read_exact(&mut first).unwrap();
        // SAFETY: kill() with the pid of our own child, which has not been waited for.
        assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGBUS) }, 0);
        let status = child.wait().unwrap();
        drop(stdout);
        assert_eq!(status.signal(), Some(libc::SIGBUS), "{:?}: {status:?}", cmd.get_program());
    }
    // SIGBUS ignored by the parent: kill -BUS changes nothing (cat maps nothing then, so as not
    // to replace the disposition). SIGBUS blocked: a fault would kill whatever the handler, so
    // cat maps nothing and a file that shrinks ends as with read. Both as GNU.
    for blocked in [false, true] {
        for cmd in both("cat", "cat") {
            let path = dir.file("g", &data);
            let mut cmd = cmd;
            cmd.arg("-n").arg(&path).stdout(Stdio::piped()).stderr(Stdio::piped());
            // SAFETY: between fork and exec only async-signal-safe calls (signal, sigprocmask
            // on a local set) are made.
            unsafe {
                use std::os::unix::process::CommandExt;
                cmd.pre_exec(move || {
                    if blocked {
                        let mut set: libc::sigset_t = std::mem::zeroed();
                        libc::sigemptyset(&mut set);
                        libc::sigaddset(&mut set, libc::SIGBUS);
                        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
                    } else {
                        libc::signal(libc::SIGBUS, libc::SIG_IGN);
                    }
                    Ok(())
                });
            }
            let mut child = cmd.spawn().unwrap();
            let mut stdout = child.stdout.take().unwrap();
            let mut first = vec![0u8; 128 << 10];
            stdout.read_exact(&mut first).unwrap();
            let new_len = if blocked {
                std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(5_000_000).unwrap();
                5_000_000
            } else {
                // SAFETY: kill() with the pid of our own child, which has not been waited for.
                assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGBUS) }, 0);
                data.len()
            };
            let mut rest = Vec::new();
            stdout.read_to_end(&mut rest).unwrap();
            let out = child.wait_with_output().unwrap();
            let label = format!("{:?} SIGBUS {}", cmd.get_program(), if blocked { "blocked" } else { "ignored" });
            assert!(out.status.success() && out.stderr.is_empty(), "{label}: {out:?}");
            assert!([first, rest].concat() == run_piped_bytes("cat", &["-n"], &data[..new_len]), "{label}");
        }
    }
    // A formatting cat that stops early (a write error) leaves a shared stdin's offset past
    // what it formatted, not at the start: the next reader goes on from there (GNU: from after
    // its last read).
    let path = dir.file("h", &data);
    let mut sh = std::process::Command::new("bash");
    sh.arg("-c").arg("{ \"$CAT\" -n > /dev/full; wc -c; } < \"$F\"").env("CAT", ours("cat")).env("F", &path);
    sh.env("PATH", SYSTEM_PATH);
    let out = run_piped(sh, None);
    assert_eq!(out.stderr_text(), "cat: write error: No space left on device\n");
    let left: usize = String::from_utf8(out.stdout).unwrap().trim().parse().unwrap();
    assert!(left > 0 && left <= data.len() - (64 << 10), "{left} bytes left of {}", data.len());
}

/// A file that another process rewrites while it is mapped (mapping forced; a file large
/// enough for wc's second thread, which maps chunks of its own): the bytes may change between
/// two reads of one byte, so the output may mix old and new contents, as `read` of a file
/// being written can; but every count stays within what the file's length allows, bytes are
/// exactly its length, and nothing crashes or complains. Contents alternate, a piece at a
/// time, between noise (invalid UTF-8, every byte value) and UTF-8 text with multibyte
/// characters (of two to four bytes), spaces, tabs and line ends, so characters and words
/// straddle the changes. Every count and formatting option, on every kernel; in the portable
/// build nothing is mapped and the same holds of reads.
#[test]
fn mapped_files_rewritten_while_counted_give_bounded_counts() {
    use std::os::unix::fs::FileExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    const LEN: usize = 72 << 20;
    const PIECE: usize = 256 << 10;
    let noise = noise(LEN, 47);
    // (Four-byte forms too: -L looks their widths up by their first two bytes.)
    let text = "日本語 テキスト\tmixed — ascii words\u{3000}全角 😀𝄞\u{10fffd}\n".repeat(LEN / 40 + 1).into_bytes();
    let dir = TempDir::new("mapped-rewrite");
    let path = dir.file("f", &noise);
    let stop = AtomicBool::new(false);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let mut round = 0;
            while !stop.load(Ordering::Relaxed) {
                for at in (0..LEN).step_by(PIECE) {
                    let from = if (at / PIECE + round) % 2 == 0 { &noise } else { &text };
                    file.write_all_at(&from[at..at + PIECE], at as u64).unwrap();
                }
                round += 1;
            }
        });
        // The writer stops when the checks end, also when one fails.
        struct StopWriter<'a>(&'a AtomicBool);
        impl Drop for StopWriter<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let _stop = StopWriter(&stop);
        let size = LEN as u64;
        for kernel in ["portable", "sse2", "ssse3", "avx2", "avx512", "neon"] {
            // Every count alone (-c alone is the file's size, never read), each path's
            // pairs (-L with -w and -m measures every window), all of them, and the default.
            let every: [&[&str]; 11] =
                [&["-c"], &["-l"], &["-w"], &["-m"], &["-L"], &["-lc"], &["-wL"], &["-mL"], &["-lw"], &["-lwmcL"], &[]];
            for opts in every {
                let mut wc = Command::new(ours("wc"));
                wc.args(opts).arg(&path).env("LC_ALL", "C.UTF-8");
                wc.env("RAPIDUTILS_INPUT", "map").env("RAPIDUTILS_SIMD", kernel);
                let out = run_piped(wc, None);
                let label = format!("wc {opts:?} on {kernel}: {} {:?}", out.status, out.stderr_text());
                assert!(out.status == "exit 0" && out.stderr.is_empty(), "{label}");
                let printed = String::from_utf8(out.stdout).unwrap();
                let fields: Vec<u64> = printed.split_whitespace().filter_map(|f| f.parse().ok()).collect();
                let letters: Vec<char> = match opts.first() {
                    Some(opts) => opts.chars().skip(1).collect(),
                    None => vec!['l', 'w', 'c'],
                };
                assert_eq!(fields.len(), letters.len(), "{label}");
                for (letter, value) in letters.into_iter().zip(fields) {
                    match letter {
                        'c' => assert_eq!(value, size, "{label}"),
                        'L' => assert!(value <= 8 * size, "{label}"),
                        _ => assert!(value <= size, "{label}"),
                    }
                }
            }
            // Every formatting option, alone and as GNU's -A -e -t, and with line state.
            for opts in ["-A", "-v", "-e", "-t", "-n", "-b", "-E", "-T", "-s", "-ET", "-nsA", "-bvE"] {
                let mut cat = Command::new(ours("cat"));
                cat.arg(opts).arg(&path).env("RAPIDUTILS_INPUT", "map").env("RAPIDUTILS_SIMD", kernel);
                let out = run_piped(cat, None);
                let (len, status, stderr) = (out.stdout.len(), &out.status, out.stderr_text());
                let label = format!("cat {opts} on {kernel}: {len} bytes, {status} {stderr:?}");
                assert!(out.status == "exit 0" && out.stderr.is_empty(), "{label}");
                // Each byte is shown as at most 21 (a LF with the widest line number and `$`);
                // squeezing drops at most every other byte.
                let least = if opts.contains('s') { LEN / 2 } else { LEN };
                assert!((least..=21 * LEN).contains(&len), "{label}");
            }
        }
    });
}

/// GNU cat's output for `data` with `opts`.
fn run_piped_bytes(tool: &str, opts: &[&str], data: &[u8]) -> Vec<u8> {
    let mut gnu = std::process::Command::new(oracle(tool));
    gnu.args(opts).env("LC_ALL", "C");
    run_piped(gnu, Some(data)).stdout
}

/// /proc and /sys files whose size says 0 or 4096 whatever they hold: cat (into a pipe and a
/// file) and wc as GNU.
#[test]
fn proc_and_sys_files_with_sizes_that_lie() {
    let files = [
        "/proc/version",
        "/proc/filesystems",
        "/proc/crypto",
        "/proc/sys/kernel/ostype",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/sys/devices/system/cpu/online",
    ];
    let sizes: Vec<u64> = files.iter().map(|f| std::fs::metadata(f).unwrap().len()).collect();
    assert!(sizes.contains(&0) && sizes.contains(&4096), "{sizes:?}");
    let dir = TempDir::new("proc");
    for file in files {
        for script in ["$T F", "$T -n F", "$T F > out; cat out", "$T < F > out; cat out", "$T F F | $T -A"] {
            let script = format!("{}; echo rc=$?", script.replace('F', file));
            let (mine, gnu) = script_pair("cat", &script, &dir.0);
            compare(&script, &mine, &gnu);
        }
        for script in ["$T F", "$T -c F", "$T -c < F", "$T -l F F", "$T -L F"] {
            let script = format!("{}; echo rc=$?", script.replace('F', file));
            let (mine, gnu) = script_pair("wc", &script, &dir.0);
            compare(&script, &mine, &gnu);
        }
    }
}

/// FIFOs named as operands and sockets as standard input.
#[test]
fn fifos_and_sockets() {
    let dir = TempDir::new("fifo");
    std::fs::write(dir.0.join("data"), &big_data().1[..3 << 20]).unwrap();
    let fifo = "rm -f p; mkfifo p; head -c 2000000 data > p &";
    for (tool, args) in
        [("cat", ""), ("cat", "-n"), ("cat", "-A"), ("wc", ""), ("wc", "-c"), ("wc", "-l"), ("wc", "-L")]
    {
        let script = format!("{fifo} $T {args} p | cksum; echo rc=${{PIPESTATUS[0]}}; wait");
        let (mine, gnu) = script_pair(tool, &script, &dir.0);
        compare(&script, &mine, &gnu);
    }
    // A socket on standard input (the writer shuts its side down at the end).
    for (tool, args) in [("cat", vec![]), ("cat", vec!["-n"]), ("wc", vec![]), ("wc", vec!["-c"])] {
        let mut results = Vec::new();
        for mut cmd in both(tool, tool) {
            let (mut ours_end, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
            cmd.args(&args).stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs))).stdout(Stdio::piped());
            let child = cmd.spawn().unwrap();
            drop(cmd);
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                ours_end.write_all(&big_data().1[..3 << 20]).unwrap();
                ours_end.shutdown(std::net::Shutdown::Write).unwrap();
            });
            let out = child.wait_with_output().unwrap();
            writer.join().unwrap();
            results.push((out.status.code(), out.stdout, out.stderr));
        }
        assert!(results[0] == results[1], "{tool} {args:?} from a socket");
    }
}

/// /dev/zero cut by head, with and without formatting: the bytes and SIGPIPE as GNU.
#[test]
fn dev_zero_with_head() {
    let dir = TempDir::new("zero");
    for script in [
        "$T /dev/zero | head -c 10M | cksum; echo ${PIPESTATUS[*]}",
        "$T -v /dev/zero | head -c 1M | cksum; echo ${PIPESTATUS[*]}",
        "$T -n /dev/zero | head -c 1M | cksum; echo ${PIPESTATUS[*]}",
        "$T < /dev/zero | head -c 3 | od -c; echo ${PIPESTATUS[*]}",
        "(trap '' PIPE; $T /dev/zero 2>err | head -c 1M | cksum; echo ${PIPESTATUS[*]}; cat err)",
    ] {
        let (mine, gnu) = script_pair("cat", script, &dir.0);
        compare(script, &mine, &gnu);
    }
    let (mine, gnu) = script_pair("wc", "head -c 5M /dev/zero | $T; head -c 1M /dev/zero | $T -L -m", &dir.0);
    compare("wc of /dev/zero through head", &mine, &gnu);
}

/// A pseudo-terminal as standard input (`cat` reading what a person types): each line comes
/// out as soon as it is typed, numbered or not, and ^D ends the input; `wc` counts it. The
/// same as GNU.
#[test]
fn terminal_input_is_shown_line_by_line() {
    use std::io::{Read, Write};
    use std::sync::mpsc;
    for (tool, args) in
        [("cat", vec![]), ("cat", vec!["-n"]), ("cat", vec!["-A"]), ("cat", vec!["-s", "-b"]), ("wc", vec![])]
    {
        let mut transcripts = Vec::new();
        for mut cmd in both(tool, tool) {
            let (mut master, slave) = open_pty();
            cmd.args(&args).stdin(Stdio::from(slave)).stdout(Stdio::piped()).stderr(Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            drop(cmd);
            let mut stdout = child.stdout.take().unwrap();
            let (tx, rx) = mpsc::channel();
            let reader = std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                loop {
                    match stdout.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => tx.send(buf[..n].to_vec()).unwrap(),
                    }
                }
            });
            let mut transcript = Vec::new();
            for (i, line) in ["first line\n", "\n", "\n", "x\ty\n"].into_iter().enumerate() {
                master.write_all(line.as_bytes()).unwrap();
                // Every line shows at once, but the second empty one under -s (squeezed).
                if tool == "cat" && !(args.contains(&"-s") && i == 2) {
                    // The line must come out now, not when more input arrives.
                    match rx.recv_timeout(WATCHDOG) {
                        Ok(got) => transcript.push(got),
                        Err(_) => {
                            let _ = child.kill();
                            panic!("{tool} {args:?} ({:?}): {line:?} not shown in time", child.id());
                        }
                    }
                }
            }
            master.write_all(b"\x04").unwrap();
            let status = child.wait().unwrap();
            reader.join().unwrap();
            transcript.extend(rx.try_iter());
            let mut stderr = Vec::new();
            child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
            transcripts.push((transcript, stderr, status.code()));
        }
        assert_eq!(transcripts[0], transcripts[1], "{tool} {args:?} on a terminal");
    }
}

/// A socket on standard input that delivers a line and then waits: `cat` into a pipe passes
/// the line on at once (a splice straight from the socket into stdout would hold the pipe's
/// lock while it waits, and the reader could not take the line).
#[test]
fn socket_input_is_passed_on_as_it_comes() {
    use std::io::{Read, Write};
    for args in [vec![], vec!["-n"]] {
        let [mut mine, _] = both("cat", "cat");
        let (mut ours_end, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        mine.args(&args).stdin(Stdio::from(std::os::fd::OwnedFd::from(theirs))).stdout(Stdio::piped());
        let mut child = mine.spawn().unwrap();
        drop(mine);
        let mut stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        for i in 1..=3 {
            ours_end.write_all(format!("line {i}\n").as_bytes()).unwrap();
            let want = if args.is_empty() { format!("line {i}\n") } else { format!("{i:>6}\tline {i}\n") };
            match rx.recv_timeout(WATCHDOG) {
                Ok(got) => assert_eq!(String::from_utf8_lossy(&got), want, "{args:?}"),
                Err(_) => {
                    let _ = child.kill();
                    panic!("{args:?}: line {i} not passed on in time");
                }
            }
        }
        drop(ours_end);
        assert!(child.wait().unwrap().success());
        reader.join().unwrap();
    }
}

/// A new pseudo-terminal: (master, slave).
fn open_pty() -> (std::fs::File, std::fs::File) {
    use std::os::fd::FromRawFd;
    // SAFETY: posix_openpt/grantpt/unlockpt/ptsname_r on a descriptor we just opened and own;
    // ptsname_r writes a NUL-terminated name into the buffer of the size given.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(master >= 0);
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut name = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, name.as_mut_ptr(), name.len()), 0);
        let path = std::ffi::CStr::from_ptr(name.as_ptr()).to_str().unwrap().to_string();
        let slave = std::fs::OpenOptions::new().read(true).write(true).open(path).unwrap();
        (std::fs::File::from_raw_fd(master), slave)
    }
}

/// Peak resident memory (KiB) of a command, by /usr/bin/time (GNU time).
fn peak_rss_kib(cmd: &str, dir: &std::path::Path, locale: &str) -> (u64, String) {
    let mut sh = std::process::Command::new("bash");
    sh.arg("-c")
        .arg(format!("/usr/bin/time -f %M -o rss {cmd}; echo rc=$?"))
        .current_dir(dir)
        .env("LC_ALL", locale)
        .env("CAT", ours("cat"))
        .env("WC", ours("wc"))
        .env("PATH", SYSTEM_PATH);
    let out = run_with_stdout(sh, Stdio::piped());
    assert!(out.stderr.is_empty(), "{cmd}: {}", out.stderr_text());
    let rss = std::fs::read_to_string(dir.join("rss")).unwrap().trim().parse().unwrap();
    (rss, String::from_utf8(out.stdout).unwrap())
}

/// A 1 GiB line without a newline (a sparse file: NUL bytes): `cat -n`, `wc -L` and the full
/// `wc` in both locales run in bounded memory (measured here: about 2 MiB peak).
#[test]
fn a_one_gib_line_in_bounded_memory() {
    assert!(std::path::Path::new("/usr/bin/time").exists(), "GNU time is needed (make test-deps)");
    let dir = tmpfs_dir("line1g");
    sparse(&dir.0.join("line"), 1 << 30);
    sparse(&dir.0.join("small"), 1 << 20);
    const LIMIT_KIB: u64 = 64 << 10;
    for (cmd, locale) in [
        ("$CAT -n line > /dev/null", "C"),
        ("$CAT -vE line | tail -c 3", "C"),
        ("$WC -L line", "C"),
        ("$WC line", "C"),
        ("$WC -lwmcL line", "C.UTF-8"),
    ] {
        let (rss, out) = peak_rss_kib(cmd, &dir.0, locale);
        eprintln!("peak RSS {rss} KiB: {cmd} ({locale})");
        assert!(rss < LIMIT_KIB, "{cmd}: peak RSS {rss} KiB");
        assert!(out.ends_with("rc=0\n"), "{cmd}: {out}");
        if cmd.starts_with("$WC") {
            // The same counts GNU gives for a 1 MiB line of NULs, with the sizes scaled.
            let small = cmd.replace("$WC", "").replace("line", "small");
            let mut gnu = std::process::Command::new(oracle("wc"));
            gnu.args(small.split_whitespace()).current_dir(&dir.0).env("LC_ALL", locale);
            let gnu = String::from_utf8(run_piped(gnu, None).stdout).unwrap();
            let want: Vec<String> = gnu
                .split_whitespace()
                .map(|f| match f {
                    "1048576" => (1u64 << 30).to_string(),
                    "small" => "line".to_string(),
                    f => f.to_string(),
                })
                .collect();
            let got: Vec<&str> = out.trim_end_matches("rc=0\n").split_whitespace().collect();
            assert_eq!(got, want, "{cmd} ({locale})");
        } else if cmd.contains("tail") {
            assert!(out.starts_with("@^@rc=0"), "{cmd}: {out}");
        }
    }
}

/// 100,000 operands for `yes`, 50,000 for `wc` and `cat` (and through --files0-from, from a
/// file and from a pipe): the same output as GNU.
#[test]
fn huge_argument_lists() {
    let words: Vec<String> = (0..100_000).map(|i| format!("w{i}")).collect();
    let [mut mine, mut gnu] = both("yes", "yes");
    mine.args(&words);
    gnu.args(&words);
    let (a, b) = (run_cut(mine, 8 << 20), run_cut(gnu, 8 << 20));
    assert!(a == b && a.stdout.len() == 8 << 20, "yes with 100,000 operands");
    let dir = TempDir::new("many-args");
    for i in 0..1000 {
        std::fs::write(dir.0.join(format!("f{i}")), "word ".repeat(i % 37) + &"\n".repeat(i % 5)).unwrap();
    }
    let names: Vec<String> = (0..50_000).map(|i| format!("f{}", (i * 7) % 1000)).collect();
    std::fs::write(dir.0.join("list"), names.iter().map(|n| format!("{n}\0")).collect::<String>()).unwrap();
    for tool in ["wc", "cat"] {
        let [mut mine, mut gnu] = both(tool, tool);
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(&names).current_dir(&dir.0);
        }
        let (a, b) = (run_piped(mine, None), run_piped(gnu, None));
        assert!(a == b, "{tool} with 50,000 operands: {} / {}", a.stderr_text(), b.stderr_text());
    }
    let (mine, gnu) = script_pair(
        "wc",
        "$T --files0-from=list | cksum; $T -l --files0-from=- < list | cksum; cat list | $T -c --files0-from=- | cksum",
        &dir.0,
    );
    compare("wc --files0-from with 50,000 names", &mine, &gnu);
}

/// File names holding every byte value but '/' and NUL: `wc` prints them (quoting the ones
/// with a newline) and `cat` reads them, in both locales, as operands and from --files0-from.
#[test]
fn file_names_with_every_byte_value() {
    use std::os::unix::ffi::OsStrExt;
    let dir = TempDir::new("byte-names");
    let mut names = Vec::new();
    for b in (1..=255u8).filter(|&b| b != b'/') {
        let name = std::ffi::OsStr::from_bytes(&[b'x', b, b'y']).to_owned();
        std::fs::write(dir.0.join(&name), vec![b'a'; b as usize]).unwrap();
        names.push(name);
    }
    let mut list = Vec::new();
    for name in &names {
        list.extend_from_slice(name.as_bytes());
        list.push(0);
    }
    std::fs::write(dir.0.join("list"), &list).unwrap();
    for locale in ["C", "C.UTF-8"] {
        for (tool, args) in [("wc", vec![]), ("wc", vec!["--files0-from=list"]), ("cat", vec![]), ("cat", vec!["-n"])] {
            let mut mine = std::process::Command::new(oracle("with-oracle-libc"));
            mine.arg(ours(tool));
            let mut gnu = std::process::Command::new(oracle(tool));
            for cmd in [&mut mine, &mut gnu] {
                cmd.env_clear().env("LC_ALL", locale).env("TERM", "dumb").current_dir(&dir.0).args(&args);
                if args.is_empty() || tool == "cat" {
                    cmd.args(&names);
                }
            }
            let (a, b) = (run_piped(mine, None), run_piped(gnu, None));
            compare(&format!("{tool} {args:?} {locale}"), &a, &b);
        }
    }
}

/// A --files0-from list file larger than 10 MiB is streamed by GNU 9.12 (as from a pipe), so
/// its widths do not depend on the sizes of the files named: the same columns here.
#[test]
fn wc_list_files_over_ten_mib_are_streamed_like_gnu() {
    let dir = TempDir::new("big-list");
    std::fs::write(dir.0.join("f"), b"a b\n").unwrap();
    let name = format!("{}f", "./".repeat(49));
    for count in [104_000, 105_000] {
        // 100 bytes a name: 10,400,000 bytes (read whole, widths from every file) and
        // 10,500,000 bytes (over 10 MiB: streamed, width 1).
        std::fs::write(dir.0.join("list"), format!("{name}\0").repeat(count)).unwrap();
        let script = "$T --files0-from=list | uniq -c; $T -l --files0-from=list | tail -n 1; echo rc=$?";
        let (mine, gnu) = script_pair("wc", script, &dir.0);
        compare(&format!("{count} names"), &mine, &gnu);
    }
}
