//! `make stress`: what only load and many runs find, longer than `make test` (which does not run
//! this: Cargo.toml's `test = false`). Each case runs `RAPIDUTILS_STRESS_ROUNDS` rounds (default
//! 100), each with a pseudo-random choice of option set, SIMD kernel (`RAPIDUTILS_SIMD`, every
//! kernel this CPU runs), locale and input way (`RAPIDUTILS_INPUT=map|read`), from the seed
//! `RAPIDUTILS_STRESS_SEED` (default: the clock; each case prints its own, and run with it repeats that case's rounds):
//!
//! * files that shrink or grow (a writer truncating or appending, step by step, at moments of
//!   its own) while `cat` and `wc` read them: never a failure or a message; `cat`'s output is
//!   GNU's output for the file at some length between its smallest and its largest, cut where
//!   it stood (but for the zeros a truncation puts in the page cache where plain cat's splice
//!   still holds it, as GNU's); each of `wc`'s counts lies between GNU's counts of those two
//!   lengths;
//! * readers that close early: `cat` and `yes` die of SIGPIPE with exactly the bytes read, or
//!   with SIGPIPE ignored say `write error: Broken pipe` and exit 1, as GNU;
//! * full disks (a small tmpfs, in a mount namespace of its own: root): GNU's message and status,
//!   and what was written is a prefix of the output;
//! * stop, continue and ignored signals sent into the tools' writes to a full pipe, and after
//!   each read: no byte lost or repeated.
//!
//! Each case prints its figures (runs, failures, time); a case fails listing its first failures,
//! each with what to rerun.

#[allow(dead_code)]
mod util;

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::time::Instant;
use util::*;

/// The rounds of each case.
fn rounds() -> usize {
    std::env::var("RAPIDUTILS_STRESS_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(100)
}

/// The pseudo-random sequence of a case, from the run's seed and the case's name.
fn sequence(case: &str) -> (u64, impl FnMut() -> u64) {
    let seed = std::env::var("RAPIDUTILS_STRESS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    let salted = case.bytes().fold(seed, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3)) | 1;
    (seed, xorshift(salted))
}

fn pick<'a, T: ?Sized>(next: &mut impl FnMut() -> u64, from: &[&'a T]) -> &'a T {
    from[(next() >> 16) as usize % from.len()]
}

/// The runs and failures of one case; `finish` prints its figures and fails the test when any
/// run failed.
struct Tally {
    case: &'static str,
    seed: u64,
    runs: usize,
    failures: Vec<String>,
    start: Instant,
}

impl Tally {
    fn new(case: &'static str, seed: u64) -> Tally {
        eprintln!("stress {case}: seed {seed}, {} rounds", rounds());
        Tally { case, seed, runs: 0, failures: Vec::new(), start: Instant::now() }
    }

    /// Counts a run; `failure` says what went wrong, if anything.
    fn run(&mut self, label: &str, failure: Option<String>) {
        self.runs += 1;
        if let Some(why) = failure {
            eprintln!("stress {}: FAILED: {label}: {why}", self.case);
            self.failures.push(format!("{label}: {why}"));
        }
    }

    fn finish(self) {
        let secs = self.start.elapsed().as_secs_f64();
        eprintln!(
            "stress {}: {} runs, {} failed, {secs:.1} s (seed {})",
            self.case,
            self.runs,
            self.failures.len(),
            self.seed
        );
        assert!(
            self.failures.is_empty(),
            "{} of {} runs failed (RAPIDUTILS_STRESS_SEED={} repeats them); the first:\n{}",
            self.failures.len(),
            self.runs,
            self.seed,
            self.failures.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
        );
    }
}

/// cat's option sets: each formatting option alone, the usual pairs, and all.
const CAT_OPTS: &[&[&str]] = &[
    &[],
    &["-n"],
    &["-b"],
    &["-s"],
    &["-v"],
    &["-E"],
    &["-T"],
    &["-A"],
    &["-e"],
    &["-t"],
    &["-ns"],
    &["-bE"],
    &["-vT"],
    &["-nbsvET"],
];
/// wc's option sets.
const WC_OPTS: &[&[&str]] = &[&[], &["-l"], &["-w"], &["-c"], &["-m"], &["-L"], &["-lw"], &["-mL"], &["-lwmcL"]];
const LOCALES: &[&str] = &["C", "C.UTF-8", "fr_FR.UTF-8"];
const WAYS: &[&str] = &["map", "read"];

/// Text that straddles every kind of boundary: ASCII words, multibyte characters of two to four
/// bytes, tabs, blank lines, control bytes and invalid UTF-8, `len` bytes from `seed`.
fn mixed(len: usize, seed: u64) -> Vec<u8> {
    let pieces: &[&[u8]] = &[
        b"plain words ",
        b"\n",
        b"\n\n\n",
        b"\t",
        "日本語 ".as_bytes(),
        "ÉTÉ ".as_bytes(),
        "😀𝄞 ".as_bytes(),
        b"\x01\x7f\x9b",
        b"\xff\xfe\xe6\x97",
        b"a-long-word-without-end-",
    ];
    let mut text = text_from(pieces, len, seed);
    text.truncate(len);
    text
}

/// GNU's output of `tool opts` on `data` (its stdin) in `locale`.
fn gnu(tool: &str, opts: &[&str], data: &[u8], locale: &str) -> Vec<u8> {
    let mut cmd = Command::new(oracle(tool));
    cmd.args(opts).env_clear().env("PATH", SYSTEM_PATH).env("LC_ALL", locale);
    run_piped(cmd, Some(data)).stdout
}

/// The numbers on the first line of wc's output.
fn counts(out: &[u8]) -> Vec<u64> {
    String::from_utf8_lossy(out)
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|f| f.parse().ok())
        .collect()
}

#[test]
fn files_that_shrink_or_grow_while_read() {
    use std::io::Write;
    let (seed, mut next) = sequence("changing-files");
    let mut tally = Tally::new("changing-files", seed);
    let kernels = kernels("stress::files_that_shrink_or_grow_while_read");
    let dir = TempDir::new("stress-changing");
    // How many changes came while the tool ran, of those planned.
    let (mut while_running, mut planned) = (0, 0);
    for round in 0..rounds() {
        let tool = pick(&mut next, &["cat", "wc"]);
        let opts: &[&str] = if tool == "cat" { pick(&mut next, CAT_OPTS) } else { pick(&mut next, WC_OPTS) };
        let kernel = pick(&mut next, &kernels);
        let locale = if tool == "cat" { "C" } else { pick(&mut next, LOCALES) };
        let way = pick(&mut next, WAYS);
        let grow = next() % 2 == 0;
        // 3 to 40 MiB: past one 4 MiB window, and past wc's two-thread split now and then.
        let len = (3 << 20) + (next() as usize % (37 << 20));
        let data = mixed(len, next() | 1);
        let path = dir.0.join(format!("f{round}"));
        let (start, steps): (Vec<u8>, Vec<usize>) = if grow {
            let from = len / 4 + next() as usize % (len / 2);
            let mut steps: Vec<usize> = (0..8).map(|_| from + next() as usize % (len - from)).collect();
            steps.sort_unstable();
            steps.push(len);
            (data[..from].to_vec(), steps)
        } else {
            let mut steps: Vec<usize> = (0..8).map(|_| next() as usize % len).collect();
            steps.sort_unstable_by(|a, b| b.cmp(a));
            (data.clone(), steps)
        };
        std::fs::write(&path, &start).unwrap();
        let label = format!(
            "round {round}: {tool} {opts:?} RAPIDUTILS_SIMD={kernel} LC_ALL={locale} RAPIDUTILS_INPUT={way}, \
             {len} bytes {}",
            if grow { format!("grown from {}", start.len()) } else { format!("cut to {}", steps.last().unwrap()) }
        );
        let mut cmd = Command::new(ours(tool));
        cmd.args(opts).arg(&path).env_clear().env("PATH", SYSTEM_PATH).env("LC_ALL", locale);
        cmd.env("RAPIDUTILS_SIMD", kernel).env("RAPIDUTILS_INPUT", way);
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let pid = child.id();
        // The writer: one step at a time, up to 3 ms apart, while the tool runs (its output
        // read as it comes).
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        let reader = {
            let mut stdout = child.stdout.take().unwrap();
            std::thread::spawn(move || {
                let mut out = Vec::new();
                stdout.read_to_end(&mut out).unwrap();
                out
            })
        };
        let mut at = start.len();
        let mut applied = Vec::new();
        planned += steps.len();
        for &step in &steps {
            if matches!(process_state(pid), Some('Z') | None) {
                break;
            }
            while_running += 1;
            if grow {
                file.write_all(&data[at..step]).unwrap();
            } else {
                file.set_len(step as u64).unwrap();
            }
            at = step;
            applied.push(step);
            // The next change a moment later, at a point of the tool's run left to chance.
            std::thread::sleep(std::time::Duration::from_micros(next() % 3000));
        }
        let stdout = reader.join().unwrap();
        let mut out = child.wait_with_output().unwrap();
        out.stdout = stdout;
        let (small, big) = if grow { (&data[..start.len()], &data[..at]) } else { (&data[..at], &data[..]) };
        let failure = if !out.status.success() || !out.stderr.is_empty() {
            Some(format!("{:?}: {}", out.status, String::from_utf8_lossy(&out.stderr)))
        } else if tool == "cat" {
            let (low, high) = (gnu("cat", opts, small, locale), gnu("cat", opts, big, locale));
            let got = &out.stdout;
            // Plain cat splices the file into the pipe (as GNU 9.12 does): the pipe holds the page
            // cache's folios, and a truncation zeroes what it cannot drop past the file's new end
            // (the rest of a page, or of a large folio: up to 2 MiB), which the reader then gets.
            // Zeros past the smallest size the file was cut to, and no other difference, are allowed.
            let cut = applied.iter().copied().min().unwrap_or(usize::MAX);
            let zeroed = |i: usize| ZERO_COPY && opts.is_empty() && !grow && got[i] == 0 && i >= cut;
            let differs = got.len() > high.len() || (0..got.len()).any(|i| got[i] != high[i] && !zeroed(i));
            (differs || got.len() < low.len()).then(|| {
                format!(
                    "{} bytes, not GNU's output of a length between ({} and {} bytes)",
                    got.len(),
                    low.len(),
                    high.len()
                )
            })
        } else {
            let (low, high) = (counts(&gnu("wc", opts, small, locale)), counts(&gnu("wc", opts, big, locale)));
            let got = counts(&out.stdout);
            // (A character cut at the end may count as up to 3 invalid bytes' worth less or more.)
            let fits = got.len() == low.len()
                && got.iter().zip(low.iter().zip(&high)).all(|(&v, (&lo, &hi))| v + 3 >= lo && v <= hi + 3);
            (!fits).then(|| format!("counts {got:?}, not between {low:?} and {high:?}"))
        };
        tally.run(&label, failure);
        std::fs::remove_file(&path).unwrap();
    }
    eprintln!("stress changing-files: {while_running} of {planned} changes made while the tool ran");
    tally.finish();
}

#[test]
fn readers_that_close_early() {
    let (seed, mut next) = sequence("early-close");
    let mut tally = Tally::new("early-close", seed);
    let kernels = kernels("stress::readers_that_close_early");
    let dir = TempDir::new("stress-early");
    let data = mixed(24 << 20, 5);
    let path = dir.file("f", &data);
    let mut expected: std::collections::HashMap<Vec<&str>, Vec<u8>> = std::collections::HashMap::new();
    for round in 0..rounds() {
        let yes = next() % 4 == 0;
        let opts: &[&str] = if yes { &[] } else { pick(&mut next, CAT_OPTS) };
        let kernel = pick(&mut next, &kernels);
        let way = pick(&mut next, WAYS);
        let ignored = next() % 3 == 0;
        let cut = next() as usize % (8 << 20);
        let label = format!(
            "round {round}: {} {opts:?} RAPIDUTILS_SIMD={kernel} RAPIDUTILS_INPUT={way}, read {cut} bytes{}",
            if yes { "yes" } else { "cat" },
            if ignored { ", SIGPIPE ignored" } else { "" }
        );
        let want: Vec<u8> = if yes {
            repeated(b"y\n", cut)
        } else {
            let full = expected.entry(opts.to_vec()).or_insert_with(|| gnu("cat", opts, &data, "C"));
            full[..cut.min(full.len())].to_vec()
        };
        let tool = if yes { "yes" } else { "cat" };
        let mut cmd = Command::new(ours(tool));
        if !yes {
            cmd.args(opts).arg(&path);
        }
        cmd.arg0(tool).env_clear().env("PATH", SYSTEM_PATH).env("LC_ALL", "C").env("RAPIDUTILS_SIMD", kernel);
        cmd.env("RAPIDUTILS_INPUT", way);
        if ignored {
            // bash starts it with SIGPIPE ignored.
            cmd = through_shell(&cmd, tool, "trap '' PIPE;", "");
        }
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut got = Vec::new();
        child.stdout.take().unwrap().take(cut as u64).read_to_end(&mut got).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let ended_early = yes || cut < expected.get(&opts.to_vec()).map_or(0, Vec::len);
        let failure = if got != want {
            Some(format!("read {} bytes, not the {} expected", got.len(), want.len()))
        } else if !ended_early {
            (!out.status.success() || !stderr.is_empty())
                .then(|| format!("{:?} {stderr:?} after its whole output", out.status))
        } else if ignored {
            let message = if yes { "yes: standard output: Broken pipe\n" } else { "cat: write error: Broken pipe\n" };
            (out.status.code() != Some(1) || stderr != message).then(|| format!("{:?} {stderr:?}", out.status))
        } else {
            (out.status.signal() != Some(libc::SIGPIPE) || !stderr.is_empty())
                .then(|| format!("{:?} {stderr:?}", out.status))
        };
        tally.run(&label, failure);
    }
    tally.finish();
}

#[test]
fn full_disks() {
    let (seed, mut next) = sequence("full-disk");
    let mut tally = Tally::new("full-disk", seed);
    let is_root = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"));
    assert!(is_root, "full disks are small tmpfs mounts in a mount namespace: run make stress as root");
    let kernels = kernels("stress::full_disks");
    let dir = TempDir::new("stress-full");
    let data = mixed(6 << 20, 9);
    let path = dir.file("f", &data);
    // wc: 50,000 lines of output, one per name, of a small file.
    let small = dir.file("s", b"a b\n");
    let list = dir.file("list", &format!("{}\0", small.display()).repeat(50_000).into_bytes());
    let wc_output = {
        let mut wc = Command::new(oracle("wc"));
        wc.arg(format!("--files0-from={}", list.display())).env("LC_ALL", "C");
        run_piped(wc, None).stdout
    };
    for round in 0..rounds() {
        let tool = pick(&mut next, &["cat", "cat", "wc", "yes"]);
        let opts: Vec<String> = match tool {
            "cat" => pick(&mut next, CAT_OPTS).iter().map(|o| o.to_string()).collect(),
            "wc" => vec![format!("--files0-from={}", list.display())],
            _ => vec!["0123456789".repeat(1 + next() as usize % 20)],
        };
        let kernel = pick(&mut next, &kernels);
        let way = pick(&mut next, WAYS);
        // One page to 4 MiB: full at once, or part way.
        let size = 4096 * (1 + next() as usize % 1024);
        let label = format!(
            "round {round}: {tool} {opts:?} RAPIDUTILS_SIMD={kernel} RAPIDUTILS_INPUT={way}, tmpfs of {size} bytes"
        );
        let run = |program: std::path::PathBuf, gnu: bool| -> (Outcome, Vec<u8>) {
            let mount = TempDir::new("stress-mount");
            let copy = dir.0.join(if gnu { "got-gnu" } else { "got" });
            let mut sh = Command::new(require_program("unshare"));
            sh.args(["-m", "--propagation", "private", "sh", "-c"])
                .arg(
                    "mount -t tmpfs -o size=\"$SIZE\" rapidutils-stress \"$M\" || exit 99; \
                     \"$T\" \"$@\" > \"$M/out\"; rc=$?; cp \"$M/out\" \"$COPY\"; exit $rc",
                )
                .arg("sh")
                .args(if tool == "cat" {
                    [opts.clone(), vec![path.display().to_string()]].concat()
                } else {
                    opts.clone()
                })
                .env_clear()
                .env("PATH", SYSTEM_PATH)
                .env("LC_ALL", "C")
                .env("SIZE", size.to_string())
                .env("M", &mount.0)
                .env("T", &program)
                .env("COPY", &copy)
                .env("RAPIDUTILS_SIMD", kernel)
                .env("RAPIDUTILS_INPUT", way);
            if gnu {
                sh.env("GNU_ORACLE_ARGV0", tool);
            }
            let outcome = run_with_stdout(sh, Stdio::piped());
            let written = std::fs::read(&copy).unwrap_or_default();
            (outcome, written)
        };
        let (mine, written) = run(ours(tool), false);
        let (theirs, _) = run(oracle(tool), true);
        let stderr = mine.stderr_text().replace(&ours(tool).display().to_string(), tool);
        let failure = if mine.status == "exit 99" {
            Some(format!("the tmpfs could not be mounted: {stderr}"))
        } else if (mine.status.as_str(), stderr.as_str()) != (theirs.status.as_str(), theirs.stderr_text().as_str()) {
            Some(format!("{} {stderr:?}, GNU {} {:?}", mine.status, theirs.status, theirs.stderr_text()))
        } else {
            let full = match tool {
                "cat" => gnu("cat", &opts.iter().map(String::as_str).collect::<Vec<_>>(), &data, "C"),
                "yes" => repeated(format!("{}\n", opts[0]).as_bytes(), written.len()),
                _ => wc_output.clone(),
            };
            (!full.starts_with(&written) || written.len() > size)
                .then(|| format!("wrote {} bytes, not a prefix of the output", written.len()))
        };
        tally.run(&label, failure);
    }
    tally.finish();
}

#[test]
fn signals_into_writes_to_a_full_pipe() {
    let (seed, mut next) = sequence("signals");
    let mut tally = Tally::new("signals", seed);
    let kernels = kernels("stress::signals_into_writes_to_a_full_pipe");
    let dir = TempDir::new("stress-signals");
    let data = mixed(12 << 20, 13);
    let path = dir.file("f", &data);
    for round in 0..rounds() {
        let yes = next() % 4 == 0;
        let opts: &[&str] = if yes { &[] } else { pick(&mut next, CAT_OPTS) };
        let kernel = pick(&mut next, &kernels);
        let way = pick(&mut next, WAYS);
        let piece = (16 << 10) + next() as usize % (240 << 10);
        let label = format!(
            "round {round}: {} {opts:?} RAPIDUTILS_SIMD={kernel} RAPIDUTILS_INPUT={way}, reads of {piece} bytes",
            if yes { "yes" } else { "cat" }
        );
        let expected = if yes { repeated(b"y\n", 12 << 20) } else { gnu("cat", opts, &data, "C") };
        let mut cmd = Command::new(ours(if yes { "yes" } else { "cat" }));
        if !yes {
            cmd.args(opts).arg(&path);
        }
        cmd.env_clear().env("PATH", SYSTEM_PATH).env("LC_ALL", "C").env("RAPIDUTILS_SIMD", kernel);
        cmd.env("RAPIDUTILS_INPUT", way);
        let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut signaller = Signaller::new(child.id());
        let mut stdout = child.stdout.take().unwrap();
        let mut out = vec![0u8; expected.len()];
        let (mut got, mut held) = (0, 0);
        while got < out.len() {
            if wait_held_back_by_stdout(child.id()) {
                signaller.round();
                held += 1;
            }
            let n = stdout.read(&mut out[got..(got + piece).min(expected.len())]).unwrap();
            if n == 0 {
                break;
            }
            got += n;
            signaller.round();
        }
        drop(signaller);
        drop(stdout);
        let status = child.wait().unwrap();
        let mut stderr = String::new();
        child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
        let failure = if got != expected.len() || out != expected {
            Some(format!("{got} bytes of {}, or bytes differ ({status:?} {stderr:?})", expected.len()))
        } else if !stderr.is_empty() || (!yes && !status.success()) {
            Some(format!("{status:?} {stderr:?}"))
        } else if held == 0 {
            Some("never found asleep on its full stdout".to_owned())
        } else {
            None
        };
        tally.run(&label, failure);
    }
    tally.finish();
}

/// Sends signal rounds to a process: stop, continue, and three that are ignored by default
/// (SIGWINCH, SIGCHLD, SIGURG), by bash's `kill` builtin, one round per request, each answered
/// once all five are sent. Dropped, it sends a last SIGCONT.
struct Signaller {
    bash: std::process::Child,
    answers: std::io::BufReader<std::process::ChildStdout>,
}

impl Signaller {
    fn new(pid: u32) -> Signaller {
        let mut bash = Command::new(require_program("bash"))
            .args(["-c", "while read -r _; do kill -STOP $0; kill -CONT $0; kill -WINCH $0; kill -CHLD $0; kill -URG $0; echo sent; done; kill -CONT $0"])
            .arg(pid.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let answers = std::io::BufReader::new(bash.stdout.take().unwrap());
        Signaller { bash, answers }
    }

    fn round(&mut self) {
        use std::io::{BufRead, Write};
        self.bash.stdin.as_mut().unwrap().write_all(b"go\n").unwrap();
        let mut answer = String::new();
        self.answers.read_line(&mut answer).unwrap();
        assert_eq!(answer, "sent\n", "the signals were not sent");
    }
}

impl Drop for Signaller {
    fn drop(&mut self) {
        drop(self.bash.stdin.take());
        let _ = self.bash.wait();
    }
}
