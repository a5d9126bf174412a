//! The shape of `wc -c`, checked with strace: a regular file is answered from its size without
//! reading it (and the offset is left at the end); a pipe is drained by splice, not read.

use crate::util::*;
use std::process::{Command, Stdio};

fn trace(cmd_line: &str, dir: &TempDir) -> (String, String) {
    let log = dir.0.join("trace");
    let mut sh = Command::new("bash");
    sh.arg("-c").arg(cmd_line).env("WC", ours("wc")).env("LOG", &log).env("LC_ALL", "C").current_dir(&dir.0);
    sh.env("PATH", SYSTEM_PATH);
    let out = run_with_stdout(sh, Stdio::piped());
    assert!(out.stderr.is_empty(), "{}", out.stderr_text());
    (String::from_utf8(out.stdout).unwrap(), std::fs::read_to_string(&log).unwrap())
}

#[test]
fn regular_file_bytes_come_from_its_size() {
    let dir = TempDir::new("wc-shape");
    dir.file("big", &noise((10 << 20) + 1, 2));
    let (out, log) = trace("strace -qq -o \"$LOG\" -e trace=open,openat,read,lseek \"$WC\" -c big", &dir);
    assert_eq!(out, "10485761 big\n");
    let rest = after_open(&log, "big");
    assert_eq!(rest.lines().filter(|l| l.starts_with("read(3")).count(), 0, "{rest}");
    // The offset is left at the end: a second wc -c on the same stdin prints 0.
    let (out, _) = trace("{ \"$WC\" -c; \"$WC\" -c; } < big; : > \"$LOG\"", &dir);
    assert_eq!(out, "10485761\n0\n");
    // A size that is a multiple of the page size may be a /proc-style lie: GNU reads the last
    // st_blksize + 1 bytes' worth to be sure, and so do we, no more.
    dir.file("paged", &noise(10 << 20, 5));
    let (out, log) = trace("strace -qq -o \"$LOG\" -e trace=open,openat,read \"$WC\" -c paged", &dir);
    assert_eq!(out, "10485760 paged\n");
    let rest = after_open(&log, "paged");
    assert!(rest.lines().filter(|l| l.starts_with("read(3")).count() <= 2, "{rest}");
}

/// Many small files cost no calls that GNU's do not make: `wc -c` of several files goes by
/// the stats taken at start (no `fstat`, offset or read of its own), and `wc -l` of files too
/// small to be mapped asks no offset and gives no read-ahead advice (only a file larger than
/// its read buffer gets it: GNU advises every file).
#[test]
fn small_files_take_no_extra_calls() {
    let dir = TempDir::new("wc-shape-small");
    for (i, len) in [10, 5000, 70_000].into_iter().enumerate() {
        dir.file(&format!("s{i}"), &noise(len, i as u64 + 7));
    }
    let calls = "-e trace=open,openat,read,lseek,fstat,newfstatat,statx,fadvise64";
    let (out, log) = trace(&format!("strace -qq -o \"$LOG\" {calls} \"$WC\" -c s0 s1 s2"), &dir);
    assert_eq!(out, "   10 s0\n 5000 s1\n70000 s2\n75010 total\n");
    // From the line that opens s0 (`openat` with glibc, `open` with musl; the stats taken at
    // start name it before).
    let from_open = |log: &str| {
        let at = log.lines().position(|l| l.starts_with("open") && l.contains("\"s0\"")).expect("s0 opened");
        log.lines().skip(at).collect::<Vec<_>>().join("\n")
    };
    let rest = from_open(&log);
    for call in ["read(3", "lseek(3", "fstat(3", "newfstatat(3", "statx(3"] {
        assert!(!rest.contains(call), "{call} in\n{rest}");
    }
    let (_, log) = trace(&format!("strace -qq -o \"$LOG\" {calls} \"$WC\" -l s0 s1 s2"), &dir);
    let rest = from_open(&log);
    assert!(!rest.contains("lseek("), "{rest}");
    assert_eq!(rest.matches("read(3").count(), 6, "two reads a file:\n{rest}");
    assert!(!rest.contains("fadvise64("), "{rest}");
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

/// Text of every script the kernels have paths for, with line ends, TABs and invalid bytes.
fn mixed_text(len: usize, seed: u64) -> Vec<u8> {
    let pieces: [&[u8]; 14] = [
        b"word ",
        b"\n",
        b"\t",
        "\u{444}\u{44b}\u{432} ".as_bytes(),
        "\u{928}\u{92e}\u{94d}\u{924}\u{947} ".as_bytes(),
        "\u{65e5}\u{672c}\u{8a9e}\u{3001}".as_bytes(),
        "\u{3000}".as_bytes(),
        "\u{a0}".as_bytes(),
        "\u{1f600}\u{200d}\u{1f469} ".as_bytes(),
        "\u{d55c}\u{ad6d} ".as_bytes(),
        "e\u{301} ".as_bytes(),
        b"\xff",
        b"\xe3\x80",
        b"\xf0\x9f",
    ];
    let mut out = Vec::with_capacity(len + 16);
    let mut s = seed;
    while out.len() < len {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.extend_from_slice(pieces[(s >> 33) as usize % pieces.len()]);
    }
    out.truncate(len);
    out
}

/// Large regular files are counted from mappings of the page cache (4 MiB windows, checked
/// every 256 KiB): no read of their data, the same counts as through a pipe (read in 64 KiB
/// and 1 MiB chunks, so characters are cut in other places) and as GNU where GNU's own read
/// boundaries do not matter (lines, bytes, characters and widths in UTF-8), and a shared
/// stdin's offset left at the end. Each option set takes a different counting path.
#[test]
fn large_files_are_counted_from_mappings() {
    let dir = TempDir::new("wc-mapped");
    let data = mixed_text((9 << 20) + 12_345, 77);
    dir.file("big", &data);
    let run = |script: &str| {
        let mut sh = Command::new("bash");
        sh.arg("-c")
            .arg(script)
            .env("WC", ours("wc"))
            .env("GNU", oracle("wc"))
            .env("PATH", SYSTEM_PATH)
            .env("LC_ALL", "C.UTF-8")
            .current_dir(&dir.0);
        let out = run_with_stdout(sh, Stdio::piped());
        assert!(out.stderr.is_empty(), "{script}: {}", out.stderr_text());
        String::from_utf8(out.stdout).unwrap()
    };
    for opts in ["-l", "-w", "-m", "-L", "", "-lwmcL", "-wm"] {
        let mapped = run(&format!("\"$WC\" {opts} < big"));
        let piped = run(&format!("cat big | \"$WC\" {opts}"));
        assert_eq!(mapped, piped, "wc {opts}: mapped and piped counts differ");
        if !opts.contains('w') && !opts.is_empty() {
            assert_eq!(mapped, run(&format!("\"$GNU\" {opts} < big")), "wc {opts} against GNU");
        }
    }
    // Under qemu (the binaries of another architecture) strace sees the emulator's calls: its
    // own mappings stand for the program's.
    let emulated = arch() != std::env::consts::ARCH;
    if ZERO_COPY && emulated {
        skipped(
            "wc_shape::large_files_are_counted_from_mappings",
            "the strace count of mappings and reads",
            "under qemu strace sees the emulator's system calls, not the program's",
        );
    }
    if ZERO_COPY && !emulated {
        // Mapping forced: only the tail past the last whole window (under 2 MiB) is read. Left
        // to choose, on 6 MiB and a bit: each way's first two rounds measure (a MiB read, a
        // MiB and 2 MiB mapped, up to 2 MiB boundaries, a MiB read), then the rest, under
        // 2 MiB, is read; or, where the kernel keeps the file in whole 2 MiB folios (the 2 MiB
        // mapped took a fault or two, not 32), the rest is mapped to the end after those first
        // three rounds, without the second read.
        let log = dir.0.join("trace");
        let mid = &data[..(6 << 20) + 12_345];
        dir.file("mid", mid);
        let timed = (mid.len() - (3 << 20), 2);
        for (way, file, shapes) in
            [("map", "big", [(data.len() - (8 << 20), 2); 2]), ("choose", "mid", [timed, (1 << 20, 3)])]
        {
            for opts in ["-l", "-w", "-m", "-L"] {
                let script = format!(
                    "RAPIDUTILS_INPUT={way} strace -qq -o '{}' -e trace=open,openat,read,mmap \"$WC\" {opts} {file} > /dev/null",
                    log.display()
                );
                run(&script);
                let text = std::fs::read_to_string(&log).unwrap();
                let calls = trace_calls(after_open(&text, file));
                let got: usize = calls
                    .iter()
                    .filter(|c| c.name == "read" && c.args.starts_with("3,"))
                    .map(|c| c.result.parse::<usize>().unwrap())
                    .sum();
                let windows =
                    calls.iter().filter(|c| c.name == "mmap" && c.args.contains("PROT_READ, MAP_PRIVATE, 3,")).count();
                assert!(
                    shapes.contains(&(got, windows)),
                    "wc {opts}, {way}: {got} bytes read, {windows} windows mapped"
                );
            }
        }
    }
    // From an offset part-way in, leaving the offset at the end: a second wc sees nothing.
    let script = "{ dd bs=1 skip=1000001 count=0 2>/dev/null; \"$W\" -lmL; \"$W\" -c; } < big";
    let mine = run(&script.replace("$W", "$WC"));
    assert_eq!(mine, run(&script.replace("$W", "$GNU")), "from an offset");
    assert!(mine.ends_with("\n0\n"), "{mine}");
}

/// Whether strace can show here how wc takes a file in: this build maps files (not the
/// portable one), and the binaries are this machine's (under qemu strace sees the emulator's
/// calls). Where not, `test` is reported as skipped, with the reason.
fn mappings_traced_here(test: &str) -> bool {
    let why = if !ZERO_COPY {
        "not part of this build: the portable build reads files, it maps none"
    } else if arch() != std::env::consts::ARCH {
        "under qemu strace sees the emulator's system calls, not the program's"
    } else {
        return true;
    };
    skipped(test, "the whole test", why);
    false
}

/// A file of 64 MiB or more, counted on two threads (wc opened it, two CPUs): the second,
/// taking chunks from the end, maps them where the first maps the file (forced here), and reads
/// them where the first reads: the same counts either way as through a pipe (on one thread),
/// and as GNU's where GNU's own read boundaries do not matter (not words: see
/// `large_files_are_counted_from_mappings`).
#[test]
fn both_threads_map_a_large_file_where_the_first_maps() {
    let test = "wc_shape::both_threads_map_a_large_file_where_the_first_maps";
    if !mappings_traced_here(test) {
        return;
    }
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        skipped(test, "the whole test", "this process may use one CPU only: wc counts on one thread");
        return;
    }
    let dir = TempDir::new("wc-two-threads");
    let data = mixed_text(70 << 20, 31);
    dir.file("big", &data);
    for (way, opts) in [("map", "-l"), ("map", "-lwmL"), ("read", "-l")] {
        let (out, log) = trace(
            &format!(
                "RAPIDUTILS_INPUT={way} LC_ALL=C.UTF-8 strace -qq -f -o \"$LOG\" -e trace=mmap,pread64 \"$WC\" {opts} big"
            ),
            &dir,
        );
        let (_, piped) = trace(&format!("cat big | LC_ALL=C.UTF-8 \"$WC\" {opts} > \"$LOG\""), &dir);
        let numbers = |s: &str| s.split_whitespace().filter(|w| *w != "big").map(str::to_owned).collect::<Vec<_>>();
        assert_eq!(numbers(&out), numbers(&piped), "wc {opts} ({way}) against a pipe");
        if !opts.contains('w') {
            let mut gnu = Command::new(oracle("wc"));
            gnu.arg(opts).arg("big").env("LC_ALL", "C.UTF-8").current_dir(&dir.0);
            assert_eq!(out, run_with_stdout(gnu, Stdio::piped()).stdout_text(), "wc {opts} ({way}) against GNU");
        }
        // The second thread: the one that is not the first line's. Its chunks are mapped, or read
        // with pread into its 256 KiB buffer (its line searches read 64 KiB).
        let main = log.split_whitespace().next().unwrap_or_default();
        let second: Vec<&str> = log.lines().filter(|l| !l.starts_with(main)).collect();
        let mapped = second.iter().filter(|l| l.contains("PROT_READ, MAP_PRIVATE, 3, 0x")).count();
        let read = second.iter().filter(|l| l.contains("pread64(3,") && l.contains(", 262144, ")).count();
        if mapped + read == 0 {
            // A busy second CPU takes no chunk: the front counts it all (see `Counting::count_on_two_threads`).
            skipped(
                test,
                &format!("wc {opts} ({way}): the second thread's way"),
                "it got no chunk: the other CPU was busy",
            );
            continue;
        }
        let front_mapped = log.lines().any(|l| l.starts_with(main) && l.contains("PROT_READ, MAP_PRIVATE, 3, 0x"));
        match way {
            "map" => assert!(front_mapped && mapped > 0 && read == 0, "wc {opts}: the second thread read\n{log}"),
            _ => assert!(!front_mapped && mapped == 0, "wc {opts}: a thread mapped\n{log}"),
        }
    }
}

/// The choice between mapping and reading goes on from one file to the next: each way's first
/// round, which is not timed, is made once in a run, not once a file (measured anew, a file of
/// 8 MiB gave its first 5 MiB to rounds that measure, 3 of them mapped). That first mapped round
/// is the only mapping of a MiB starting a MiB into a file (it follows the first read round,
/// which takes the first MiB). A later round after a MiB read is not one that measures (the
/// read was the recheck): it goes on to the window's end at 4 MiB, mapped or read. Which way
/// wins is the machine's, and not asserted; `RAPIDUTILS_INPUT` is cleared, so none is forced.
#[test]
fn the_map_or_read_choice_goes_on_from_file_to_file() {
    let test = "wc_shape::the_map_or_read_choice_goes_on_from_file_to_file";
    if !mappings_traced_here(test) {
        return;
    }
    let dir = TempDir::new("wc-choice");
    let names: Vec<String> = (0..5).map(|i| format!("f{i}")).collect();
    for (i, name) in names.iter().enumerate() {
        dir.file(name, &mixed_text(8 << 20, 100 + i as u64));
    }
    for opts in ["-l", "-m"] {
        let (out, log) = trace(
            &format!(
                "env -u RAPIDUTILS_INPUT LC_ALL=C.UTF-8 strace -qq -f -o \"$LOG\" -e trace=openat,mmap \"$WC\" {opts} {}",
                names.join(" ")
            ),
            &dir,
        );
        let mut gnu = Command::new(oracle("wc"));
        gnu.arg(opts).args(&names).env("LC_ALL", "C.UTF-8").current_dir(&dir.0);
        assert_eq!(out, run_with_stdout(gnu, Stdio::piped()).stdout_text(), "wc {opts} against GNU");
        let calls = trace_calls(after_open(&log, &names[0]));
        let first_rounds = calls
            .iter()
            .filter(|c| c.name == "mmap" && c.args.ends_with("1048576, PROT_READ, MAP_PRIVATE, 3, 0x100000"));
        assert_eq!(first_rounds.count(), 1, "wc {opts}: first mapped rounds in:\n{log}");
    }
}

/// Runs `wc -lmL` of `path` mapped, under strace (`trace`: what it traces, `inject`: more of
/// its options), stopped by a SIGSTOP strace injects at the second stretch's madvise while the
/// file is cut to `new_len`, then continued. Returns wc's output and strace's log.
fn counted_while_cut(
    path: &std::path::Path,
    new_len: u64,
    trace: &str,
    inject: &[&str],
) -> (std::process::Output, String) {
    let log = path.with_extension("trace");
    let _ = std::fs::remove_file(&log);
    // The second madvise is the second stretch's (each stretch has one).
    let child = Command::new("strace")
        .args(["-qq", "-f", "-e", trace, "-e", "inject=madvise:signal=SIGSTOP:when=2"])
        .args(inject)
        .arg("-o")
        .arg(&log)
        .arg(ours("wc"))
        .env("RAPIDUTILS_INPUT", "map")
        .args(["-lmL"])
        .arg(path)
        .env("LC_ALL", "C.UTF-8")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // wc's pid, once it is stopped.
    let stopped = |trace: &str| {
        let line = trace.lines().find(|l| l.ends_with("--- stopped by SIGSTOP ---"))?;
        line.split_whitespace().next().map(str::to_owned)
    };
    let pid =
        wait_for("wc to stop at its second stretch", || stopped(&std::fs::read_to_string(&log).unwrap_or_default()));
    std::fs::OpenOptions::new().write(true).open(path).unwrap().set_len(new_len).unwrap();
    // (The shell's own kill: a chroot may have no kill program.)
    assert!(Command::new("sh").args(["-c", "kill -CONT \"$0\"", &pid]).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    (out, std::fs::read_to_string(&log).unwrap())
}

/// Whether this build and machine can stop wc at a stretch's madvise (see the tests below).
fn can_stop_wc_at_a_stretch(test: &str) -> bool {
    if !ZERO_COPY {
        skipped(test, "the whole test", "not part of this build: the portable build reads files, it maps none");
        return false;
    }
    if arch() != std::env::consts::ARCH {
        // qemu (7.2) answers the program's MADV_SEQUENTIAL itself: strace sees only the
        // emulator's own madvise, so the injected stop never holds the count back.
        skipped(test, "the whole test", "under qemu strace cannot stop wc at a stretch's madvise");
        return false;
    }
    true
}

/// A file that shrinks while it is counted from a mapping (wc is stopped while the file is
/// cut): the counts are those of the file as it ends, as read() would give them, with no
/// message and status 0; and the mapping's SIGBUS recovery ran (strace saw the signal), so the
/// test cannot pass without it.
#[test]
fn mapped_files_that_shrink_are_counted_to_their_new_end() {
    if !can_stop_wc_at_a_stretch("wc_shape::mapped_files_that_shrink_are_counted_to_their_new_end") {
        return;
    }
    let data = mixed_text(12 << 20, 5);
    let stretch = 4 << 20;
    // New ends inside the second stretch, on a 256 KiB piece boundary, at the stretch's end,
    // and in the third stretch.
    for new_len in [stretch + 123, stretch + (256 << 10), 2 * stretch, 2 * stretch + 4096 * 3 + 17, 11 << 20] {
        let dir = TempDir::new("wc-shrink");
        let path = dir.file("f", &data);
        let (out, trace) = counted_while_cut(&path, new_len, "trace=madvise", &[]);
        assert!(out.status.success() && out.stderr.is_empty(), "cut to {new_len}: {out:?}");
        assert!(trace.contains("--- SIGBUS {"), "cut to {new_len}: no SIGBUS, the recovery never ran\n{trace}");
        let mut gnu = Command::new(oracle("wc"));
        gnu.env("LC_ALL", "C.UTF-8").arg("-lmL");
        let want = run_piped(gnu, Some(&data[..new_len as usize]));
        let got = String::from_utf8(out.stdout).unwrap();
        assert_eq!(
            got.split_whitespace().take(3).collect::<Vec<_>>(),
            want.stdout_text().split_whitespace().collect::<Vec<_>>(),
            "cut to {new_len}"
        );
    }
}

/// The SIGBUS recovery replaces the mapping's pages by `mmap(MAP_FIXED)` inside the signal
/// handler, a call POSIX does not list as async-signal-safe (docs/ARCHITECTURE.md says why it
/// is safe there on Linux). Killed in the middle of it (strace injects SIGKILL at that very
/// call), wc dies of the signal at once: no hang, no output, the file as it was cut.
#[test]
fn killed_in_the_middle_of_the_sigbus_recovery_wc_just_dies() {
    if !can_stop_wc_at_a_stretch("wc_shape::killed_in_the_middle_of_the_sigbus_recovery_wc_just_dies") {
        return;
    }
    let data = mixed_text(12 << 20, 6);
    let new_len = (4 << 20) + 123;
    let dir = TempDir::new("wc-kill-recovery");
    // A first run finds which of wc's mmap calls is the handler's: the anonymous MAP_FIXED one
    // after the SIGBUS.
    let path = dir.file("f", &data);
    let (out, trace) = counted_while_cut(&path, new_len, "trace=madvise,mmap", &[]);
    assert!(out.status.success(), "{out:?}");
    let pid = trace.lines().find(|l| l.ends_with("--- stopped by SIGSTOP ---")).unwrap().split_whitespace().next();
    let mut mmaps = 0;
    let mut after_sigbus = false;
    let handlers = trace.lines().filter(|l| l.split_whitespace().next() == pid).find_map(|line| {
        after_sigbus |= line.contains("--- SIGBUS {");
        mmaps += usize::from(line.contains(" mmap("));
        (after_sigbus && line.contains("MAP_FIXED|MAP_ANONYMOUS")).then_some(mmaps)
    });
    let handlers = handlers.unwrap_or_else(|| panic!("no recovery mmap after a SIGBUS\n{trace}"));
    // The second run kills wc at that call.
    let path = dir.file("f", &data);
    let inject = format!("inject=mmap:signal=SIGKILL:when={handlers}");
    let (out, trace) = counted_while_cut(&path, new_len, "trace=madvise,mmap", &["-e", &inject]);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), Some(9), "{out:?}\n{trace}");
    assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
    // The SIGBUS, the recovery's mmap that never returned (`= ?`), the end.
    let last: Vec<&str> = trace.lines().rev().take(3).collect();
    assert!(
        last[0].ends_with("+++ killed by SIGKILL +++")
            && last[1].contains(" mmap(")
            && last[1].contains("MAP_FIXED|MAP_ANONYMOUS")
            && last[1].ends_with("= ?")
            && last[2].contains("--- SIGBUS {"),
        "not killed at the recovery's mmap\n{trace}"
    );
    assert!(std::fs::read(&path).unwrap() == data[..new_len as usize], "the file changed");
}

/// The counting loops' instructions per input byte, counted by callgrind (deterministic, unlike
/// a clock) for each kernel the counter runs (valgrind: not AVX-512), on text of every script
/// with invalid bytes: bounds about half again above today's, so that a loop that lost its instruction
/// set's context (each vector operation a call: `-m` with AVX2 went from 2.6 to 4.3 when its
/// error path did) or its batches fails, and a compiler's day does not. Binaries of another
/// architecture (the aarch64 suite under qemu) have their instructions counted by qemu, with
/// the plugin the Makefile builds from `ci/qemu-insn.c` (`RAPIDUTILS_QEMU_INSN`); the text is
/// small enough to be counted on one thread, which the plugin's counter assumes.
#[test]
fn counting_costs_few_instructions_per_byte() {
    let dir = TempDir::new("wc-instructions");
    let len = 4 << 20;
    dir.file("text", &mixed_text(len, 91));
    dir.file("tiny", b"x\n");
    // (options, instructions per byte at most with SWAR masks (the portable kernel), with SSE2
    // masks, SSSE3's, AVX2's and AVX-512's, and NEON's). Today: SWAR -w 25.8, -m 31.0, -L 10.0,
    // -l 0.70; SSE2 -w 9.8, -m 11.3, -L 4.4, -l 0.26; SSSE3 -w 3.76, -m 6.06, -L 2.88, -l 0.26;
    // AVX2 -w 1.73, -m 2.40, -L 1.95, -l 0.14. NEON, under qemu: -w and default 2.92, -m 4.2,
    // -L 3.28, -l 0.21.
    let bounds: [(&str, f64, f64, f64, f64, f64); 5] = [
        ("-w", 40.0, 15.0, 5.5, 3.0, 4.5),
        ("", 40.0, 15.0, 5.5, 3.0, 4.5),
        ("-m", 55.0, 40.0, 9.0, 3.5, 6.5),
        ("-L", 15.0, 7.0, 4.5, 4.0, 5.0),
        ("-l", 1.5, 0.5, 0.5, 0.5, 0.5),
    ];
    let instructions = |kernel: &str, opts: &str, file: &str| -> u64 {
        let mut cmd = instruction_counter(ours("wc"));
        cmd.args(opts.split_whitespace()).arg(file);
        cmd.env("RAPIDUTILS_SIMD", kernel).env("LC_ALL", "C.UTF-8").current_dir(&dir.0);
        count_instructions(cmd)
    };
    for kernel in kernels("counting_costs_few_instructions_per_byte").into_iter().filter(|&k| k != "avx512") {
        for (opts, swar, sse2, ssse3, vector, neon) in bounds {
            // Start-up and the C library's tables are the same for any length: not counted.
            let (text, tiny) = (instructions(kernel, opts, "text"), instructions(kernel, opts, "tiny"));
            // A counter that counted nothing (or missed the loop) must not pass.
            assert!(tiny > 50_000 && text > tiny + len as u64 / 8, "wc {opts} with {kernel}: {tiny}, {text}");
            let per_byte = (text - tiny) as f64 / len as f64;
            let bound = match kernel {
                "portable" => swar,
                "neon" => neon,
                "sse2" => sse2,
                "ssse3" => ssse3,
                _ => vector,
            };
            eprintln!("wc {opts} with {kernel}: {per_byte:.2} instructions per byte");
            assert!(
                per_byte <= bound,
                "wc {opts} with {kernel}: {per_byte:.2} instructions per byte, more than {bound}"
            );
        }
    }
}

/// `wc -m` alone asks the C library nothing about the characters it counts: 8 MiB of CJK
/// ideographs from 64 different 256-character pages cost what 8 MiB from one page cost
/// (instructions, counted as above). The short end of each chunk goes through the character
/// loop, which took each character's class (width, space) from the C library, a page of 256
/// classes at a time, about 38,000 instructions a page; a count of characters needs none of
/// them (before: 280,000 instructions more for the 64 pages here, and 2.2 million of 6.7
/// million for 4 MB of the Chinese corpus; now within a few instructions).
#[test]
fn counting_characters_asks_no_character_classes() {
    let dir = TempDir::new("wc-char-classes");
    dir.file("one", &ideographs(1));
    dir.file("many", &ideographs(64));
    for kernel in kernels("counting_characters_asks_no_character_classes") {
        let instructions = |file: &str| {
            let mut cmd = instruction_counter(ours("wc"));
            cmd.args(["-m", file]).env("RAPIDUTILS_SIMD", kernel).env("LC_ALL", "C.UTF-8").current_dir(&dir.0);
            count_instructions(cmd)
        };
        let (one, many) = (instructions("one"), instructions("many"));
        eprintln!("wc -m with {kernel}: {one} instructions for one page, {many} for 64");
        assert!(one > 1_000_000, "{one}");
        // Under the cost of three pages' classes.
        assert!(many < one + 100_000, "wc -m with {kernel}: {many} instructions for 64 pages, {one} for one");
    }
}

/// 8 MiB of CJK ideographs from `pages` different 256-character pages, a line every 40.
fn ideographs(pages: u32) -> Vec<u8> {
    let mut s = String::new();
    let mut i = 0u32;
    while s.len() < 8 << 20 {
        // The page changes every 300 characters or so, not in step with any chunk size.
        s.push(char::from_u32(0x4e00 + (i / 301 % pages) * 256 + i % 256).unwrap());
        if i % 40 == 39 {
            s.push('\n');
        }
        i += 1;
    }
    s.into_bytes()
}

/// `wc -m` of text of one- and three-byte characters takes the check of those forms alone with SSE2's and SSSE3's
/// kernels as with AVX2's (compares, no look-ups: benches/RESULTS.md, "The check of one- and three-byte forms on
/// SSE"). Instructions per byte of 8 MiB of CJK ideographs, counted as above: today SSE2 1.6, SSSE3 1.7, AVX2 0.66;
/// the full check alone costs SSE2 3.65 and SSSE3 2.25, over the bounds, so a kernel that lost the check fails.
#[test]
fn cjk_text_takes_the_check_of_three_byte_forms() {
    const TEST: &str = "cjk_text_takes_the_check_of_three_byte_forms";
    let dir = TempDir::new("wc-three");
    let text = ideographs(1);
    dir.file("cjk", &text);
    dir.file("tiny", b"x\n");
    let mut checked = 0;
    for kernel in kernels(TEST) {
        let bound = match kernel {
            "sse2" | "ssse3" => 2.0,
            "avx2" => 1.0,
            _ => continue,
        };
        let instructions = |file: &str| {
            let mut cmd = instruction_counter(ours("wc"));
            cmd.args(["-m", file]).env("RAPIDUTILS_SIMD", kernel).env("LC_ALL", "C.UTF-8").current_dir(&dir.0);
            count_instructions(cmd)
        };
        let (counted, tiny) = (instructions("cjk"), instructions("tiny"));
        assert!(tiny > 50_000 && counted > tiny + text.len() as u64 / 8, "wc -m with {kernel}: {tiny}, {counted}");
        let per_byte = (counted - tiny) as f64 / text.len() as f64;
        eprintln!("wc -m of CJK text with {kernel}: {per_byte:.2} instructions per byte");
        assert!(
            per_byte <= bound,
            "wc -m of CJK text with {kernel}: {per_byte:.2} instructions per byte, over {bound}"
        );
        checked += 1;
    }
    if checked == 0 {
        skipped(TEST, "the whole test", "no kernel here has the check (x86's SSE2, SSSE3 and AVX2 do)");
    }
}
