//! Helpers: locating our binaries and the GNU oracle, running a command with its output cut
//! after N bytes, and describing how it ended.

#[path = "../src/testing/shared.rs"]
mod shared;

use rapidutils::platform::cpu::Features;
use rapidutils::platform::simd::Kernel;
pub use shared::{kernel_not_run, skipped, xorshift};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Whether our binaries make the zero-copy calls (`splice`, `vmsplice`, `tee`, ...): Linux,
/// not the `portable` build.
pub const ZERO_COPY: bool = cfg!(all(target_os = "linux", not(feature = "portable")));

/// The PATH of the shells the tests start: the system's own directories, never /usr/local/bin,
/// where a system-wide `make install` puts rapidutils' `cat`, `wc` and `yes`: a helper such as
/// `| wc -c` or `yes |` in a test's script must be the system's, whatever is installed.
pub const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// Where `ci/gnu-oracle.sh` puts the wrappers of GNU coreutils 9.12: /opt/gnu-oracle/bin, or
/// GNU_ORACLE_BIN (the arm64 build's, /opt/gnu-oracle-arm64/bin, when the suite runs for aarch64).
pub fn oracle_bin() -> PathBuf {
    std::env::var_os("GNU_ORACLE_BIN").map_or_else(|| PathBuf::from("/opt/gnu-oracle/bin"), PathBuf::from)
}

/// The GNU 9.12 reference wrapper for `tool`. A missing oracle fails the test: a differential
/// test that cannot compare must not pass.
pub fn oracle(tool: &str) -> PathBuf {
    let path = oracle_bin().join(tool);
    assert!(path.exists(), "GNU oracle missing at {}: run ci/gnu-oracle.sh (as .ci/run does)", path.display());
    path
}

/// One of our binaries, as built by cargo for this test run, or in RAPIDUTILS_BIN_DIR: the
/// binaries of another architecture that the kernel runs through qemu (`make
/// test-aarch64-suite`), tested by this native test program.
pub fn ours(tool: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os("RAPIDUTILS_BIN_DIR") {
        assert!(["yes", "cat", "wc", "rapidutils"].contains(&tool), "no binary {tool}");
        return PathBuf::from(dir).join(tool);
    }
    match tool {
        "yes" => PathBuf::from(env!("CARGO_BIN_EXE_yes")),
        "cat" => PathBuf::from(env!("CARGO_BIN_EXE_cat")),
        "wc" => PathBuf::from(env!("CARGO_BIN_EXE_wc")),
        "rapidutils" => PathBuf::from(env!("CARGO_BIN_EXE_rapidutils")),
        _ => panic!("no binary {tool}"),
    }
}

/// The architecture of the binaries under test: RAPIDUTILS_TEST_ARCH with RAPIDUTILS_BIN_DIR,
/// else this test program's own ("x86_64", "aarch64", ...).
pub fn arch() -> String {
    match std::env::var("RAPIDUTILS_TEST_ARCH") {
        Ok(arch) if std::env::var_os("RAPIDUTILS_BIN_DIR").is_some() => arch,
        _ => std::env::consts::ARCH.to_owned(),
    }
}

/// A command for our `tool` that sees `argv0` as its name, and one for GNU's that does too,
/// both with the same clean environment (TERM=dumb: GNU 9.12 adds hyperlinks to --help otherwise).
pub fn both(tool: &str, argv0: &str) -> [Command; 2] {
    let mut mine = Command::new(ours(tool));
    let mut gnu = Command::new(oracle(tool));
    for cmd in [&mut mine, &mut gnu] {
        cmd.env_clear().env("PATH", SYSTEM_PATH).env("TERM", "dumb").env("LC_ALL", "C");
    }
    mine.arg0(argv0);
    gnu.env("GNU_ORACLE_ARGV0", argv0);
    [mine, gnu]
}

/// How a run ended and what it printed.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: String,
}

impl Outcome {
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

fn describe(status: std::process::ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit {code}"),
        (None, Some(sig)) => format!("signal {sig}"),
        _ => "unknown".into(),
    }
}

/// Runs `cmd` with stdout a pipe, reads at most `limit` bytes, then closes the pipe (like
/// `| head -c limit`) and waits. Input is /dev/null.
pub fn run_cut(mut cmd: Command, limit: usize) -> Outcome {
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn");
    let mut stdout = Vec::new();
    child.stdout.take().unwrap().take(limit as u64).read_to_end(&mut stdout).unwrap();
    let mut stderr = Vec::new();
    child.stderr.take().unwrap().read_to_end(&mut stderr).unwrap();
    let status = child.wait().unwrap();
    Outcome { stdout, stderr, status: describe(status) }
}

/// Runs `cmd` to completion with the given stdout.
pub fn run_with_stdout(mut cmd: Command, stdout: Stdio) -> Outcome {
    let out = cmd.stdin(Stdio::null()).stdout(stdout).stderr(Stdio::piped()).output().expect("spawn");
    Outcome { stdout: out.stdout, stderr: out.stderr, status: describe(out.status) }
}

/// Wraps `cmd` in bash so that it starts with SIGPIPE ignored (`trap '' PIPE`) or with stdout
/// closed (`>&-`), which std::process cannot arrange directly.
pub fn through_shell(cmd: &Command, argv0: &str, prelude: &str, redirect: &str) -> Command {
    let mut sh = Command::new("bash");
    sh.arg("-c")
        .arg(format!("{prelude} exec -a '{argv0}' \"$0\" \"$@\" {redirect}"))
        .arg(cmd.get_program())
        .args(cmd.get_args());
    sh.env_clear();
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => sh.env(key, v),
            None => sh.env_remove(key),
        };
    }
    sh
}

/// Expected `yes` output: `line` repeated, cut at `len` bytes.
pub fn repeated(line: &[u8], len: usize) -> Vec<u8> {
    line.iter().copied().cycle().take(len).collect()
}

/// Runs `cmd` to completion, feeding `input` through a pipe on stdin (or /dev/null for None).
pub fn run_piped(mut cmd: Command, input: Option<&[u8]>) -> Outcome {
    use std::io::Write;
    cmd.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let writer = input.map(|data| {
        let mut stdin = child.stdin.take().unwrap();
        let data = data.to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        })
    });
    let out = child.wait_with_output().unwrap();
    if let Some(w) = writer {
        w.join().unwrap();
    }
    Outcome { stdout: out.stdout, stderr: out.stderr, status: describe(out.status) }
}

/// A fresh temporary directory, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("ru-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn file(&self, name: &str, content: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Deterministic pseudo-random bytes.
pub fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut next = xorshift(seed);
    (0..len).map(|_| (next() >> 24) as u8).collect()
}

/// Pseudo-random text of at least `len` bytes from `pieces` (an encoding's characters, spaces
/// and broken sequences).
pub fn text_from(pieces: &[&[u8]], len: usize, seed: u64) -> Vec<u8> {
    let mut next = xorshift(seed);
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        out.extend_from_slice(pieces[(next() >> 20) as usize % pieces.len()]);
    }
    out
}

/// The man-page and completion generator (`src/bin/rapidutils-gen`), built once per test run
/// with `--features gen` into a target dir of its own beside ours, so the binaries under test
/// are never built with it. A failed build fails every test that needs it.
pub fn generator() -> PathBuf {
    static GENERATOR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    GENERATOR
        .get_or_init(|| {
            let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target dir").join("gen");
            let status = Command::new(env!("CARGO"))
                .args(["build", "--quiet", "--offline", "--features", "gen", "--bin", "rapidutils-gen", "--target-dir"])
                .arg(&target)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                // Not the jobserver of a `make test` above us: its descriptors are not ours.
                .env_remove("MAKEFLAGS")
                .env_remove("MFLAGS")
                .env_remove("CARGO_MAKEFLAGS")
                .status()
                .expect("run cargo to build rapidutils-gen");
            assert!(status.success(), "building rapidutils-gen failed: {status}");
            target.join("debug/rapidutils-gen")
        })
        .clone()
}

/// A command that runs `program` (one of ours) and counts the instructions it runs, for
/// [`count_instructions`]: callgrind for a native binary, and for another architecture's (the
/// aarch64 suite) qemu with the plugin the Makefile builds from `ci/qemu-insn.c`
/// (`RAPIDUTILS_QEMU_INSN`), which counts one thread's.
pub fn instruction_counter(program: PathBuf) -> Command {
    let mut cmd;
    if arch() != std::env::consts::ARCH {
        assert!(arch() == "aarch64", "no instruction counter for {} binaries", arch());
        let plugin = std::env::var("RAPIDUTILS_QEMU_INSN")
            .expect("RAPIDUTILS_QEMU_INSN names the qemu plugin: run the aarch64 suite by `make test-aarch64-suite`");
        cmd = Command::new(require_program("qemu-aarch64"));
        cmd.args(["-L", "/usr/aarch64-linux-gnu", "-plugin", &plugin]);
    } else {
        cmd = Command::new(require_program("valgrind"));
        cmd.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]);
    }
    cmd.arg(program);
    cmd
}

/// Runs a command from [`instruction_counter`]; it must succeed. Returns the instructions
/// counted.
pub fn count_instructions(mut cmd: Command) -> u64 {
    let out = cmd.output().expect("the instruction counter runs");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{log}");
    let marker = if arch() != std::env::consts::ARCH { "guest instructions:" } else { "I   refs:" };
    let count = log.lines().find_map(|l| l.split(marker).nth(1)).unwrap_or_else(|| panic!("{log}"));
    count.trim().replace(',', "").parse().unwrap()
}

/// The shared libraries `program` names (readelf's NEEDED entries, in order).
pub fn needed_libraries(program: &Path) -> Vec<String> {
    let out = Command::new(require_program("readelf")).arg("-d").arg(program).output().expect("readelf (binutils)");
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| l.contains("(NEEDED)"))
        .map(|l| l.rsplit(' ').next().unwrap().trim_matches(['[', ']']).to_owned())
        .collect()
}

/// A program the test needs from the system; its absence fails the test (`make test-deps`
/// installs it).
pub fn require_program(name: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} is not installed: run `make test-deps` (as .ci/run does)"))
}

/// Runs `script` in bash twice, with `$T` naming our `tool` and then GNU's (both called `tool`
/// in messages), in `dir`, with LC_ALL=C; stdout and stderr of the script go to one pipe so the
/// order of output and messages is compared too. Returns (ours, GNU's).
pub fn script_pair(tool: &str, script: &str, dir: &Path) -> (Outcome, Outcome) {
    let run = |program: PathBuf, gnu: bool| {
        let mut sh = Command::new("bash");
        sh.arg("-c")
            .arg(format!("exec 2>&1; {script}"))
            .current_dir(dir)
            .env_clear()
            .env("PATH", SYSTEM_PATH)
            .env("LC_ALL", "C")
            .env("TERM", "dumb")
            .env("T", &program);
        if gnu {
            sh.env("GNU_ORACLE_ARGV0", tool);
        }
        run_with_stdout(sh, Stdio::piped())
    };
    (run(ours(tool), false), run(oracle(tool), true))
}

/// A directory on tmpfs when there is one (/dev/shm): sparse files there may be as large as
/// the kernel allows (2^63 - 1 bytes), and reading their holes costs no disk.
pub fn tmpfs_dir(tag: &str) -> TempDir {
    let shm = Path::new("/dev/shm");
    assert!(shm.is_dir(), "/dev/shm (tmpfs) is needed for the huge sparse files");
    let dir = shm.join(format!("ru-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// Makes `path` a sparse file of `len` bytes (no data written).
pub fn sparse(path: &Path, len: u64) {
    let f = std::fs::File::create(path).unwrap();
    f.set_len(len).unwrap();
}

/// 50 MB of pseudo-random bytes, made once per test run, in memory and in a file (removed
/// when a later run starts; files of runs that are gone are removed then too).
pub fn big_data() -> &'static (PathBuf, Vec<u8>) {
    static DATA: std::sync::OnceLock<(PathBuf, Vec<u8>)> = std::sync::OnceLock::new();
    DATA.get_or_init(|| {
        let tmp = std::env::temp_dir();
        if let Ok(entries) = std::fs::read_dir(&tmp) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.strip_prefix("ru-50mb-").is_some_and(|pid| !Path::new("/proc").join(pid).exists()) {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        // A multiple of 64 KiB (a page multiple on every system): zero-copy calls on such a
        // file go on until one returns 0, so faults can be injected after all data moved
        // (a file of any other size is done once its size has moved, see cat_shape.rs).
        let data = noise(763 << 16, 0x5eed);
        let path = tmp.join(format!("ru-50mb-{}", std::process::id()));
        std::fs::write(&path, &data).unwrap();
        (path, data)
    })
}

/// The names `RAPIDUTILS_SIMD` takes whose kernels our binaries really run here (asked of
/// `wc --debug`, which names the kernel a setting led to); the rest, which would silently run
/// another kernel, are reported as skipped by `test` (see [`skipped`]), with the reason.
/// Kernels of another architecture are not this build's and are left out without a word.
pub fn kernels(test: &str) -> Vec<&'static str> {
    let arch_kernels: &[&'static str] =
        if arch() == "aarch64" { &["portable", "neon"] } else { &["portable", "sse2", "ssse3", "avx2", "avx512"] };
    let mut run = Vec::new();
    for &kernel in arch_kernels {
        let out = Command::new(ours("wc"))
            .env("RAPIDUTILS_SIMD", kernel)
            .args(["-l", "--debug", "/dev/null"])
            .output()
            .expect("wc runs");
        if String::from_utf8_lossy(&out.stderr).contains(&format!("RAPIDUTILS_SIMD: using {kernel}\n")) {
            run.push(kernel);
        } else {
            skipped(test, &format!("the {kernel} kernel"), &not_run(kernel));
        }
    }
    assert!(run.contains(&"portable"), "the portable kernel always runs");
    run
}

/// Why our binaries do not run the kernel `kernel` here (see [`kernel_not_run`]); under qemu,
/// only that they did not.
pub fn not_run(kernel: &str) -> String {
    if arch() != std::env::consts::ARCH {
        return format!("the {} binaries under qemu did not run it", arch());
    }
    // (The AVX-512 kernel where the compiler has its intrinsics: build.rs.)
    let in_build =
        kernel == "portable" || (!cfg!(feature = "portable") && (kernel != "avx512" || cfg!(rapidutils_avx512)));
    kernel_not_run(kernel, in_build, &rapidutils::platform::cpu::features())
}

/// `cmd` (its program, arguments, environment and directory) run under `strace -f`, tracing
/// only `syscalls` (a comma-separated list) into `log`, with strings cut to nothing. Through
/// seccomp-bpf, the calls not traced run without stopping.
pub fn under_strace(cmd: &Command, syscalls: &str, log: &Path) -> Command {
    let mut traced = Command::new(require_program("strace"));
    traced
        .args(["-f", "-qq", "--seccomp-bpf", "-s", "0", "-e", "signal=none", "-e"])
        .arg(format!("trace={syscalls}"))
        .arg("-o")
        .arg(log)
        .arg(cmd.get_program())
        .args(cmd.get_args());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => traced.env(key, v),
            None => traced.env_remove(key),
        };
    }
    if let Some(dir) = cmd.get_current_dir() {
        traced.current_dir(dir);
    }
    traced
}

/// One system call in a trace written by [`under_strace`].
#[derive(Debug)]
pub struct Call {
    pub name: String,
    /// The arguments as strace shows them, without the parentheses.
    pub args: String,
    /// What it returned: `65536`, `-1 EAGAIN (Resource temporarily unavailable)`, or empty
    /// when the trace ends inside the call.
    pub result: String,
}

impl Call {
    /// The error name the call failed with (`EAGAIN`), if it failed.
    pub fn error(&self) -> Option<&str> {
        self.result.strip_prefix("-1 ").and_then(|rest| rest.split_whitespace().next())
    }
}

/// The calls of a trace written by strace (with or without `-f`, as [`under_strace`] runs it),
/// in order; a call another process interrupted (`<unfinished ...>`) is put together with its
/// `resumed` rest.
pub fn trace_calls(text: &str) -> Vec<Call> {
    let mut calls: Vec<Call> = Vec::new();
    let mut open: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for line in text.lines() {
        // `strace -f` puts the process id first.
        let (pid, rest) = match line.split_once(' ') {
            Some((pid, rest)) if pid.bytes().all(|b| b.is_ascii_digit()) => (pid, rest.trim_start()),
            _ => ("", line),
        };
        if let Some(resumed) = rest.strip_prefix("<... ") {
            let Some(at) = open.remove(pid) else { continue };
            let tail = resumed.split_once("resumed>").map_or("", |(_, tail)| tail);
            let (args, result) = tail.rsplit_once(" = ").unwrap_or((tail, ""));
            let call = &mut calls[at];
            call.args.push_str(args.trim_end().trim_end_matches(')'));
            call.result = result.to_owned();
            continue;
        }
        let Some((name, tail)) = rest.split_once('(') else { continue };
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        if let Some(args) = tail.strip_suffix(" <unfinished ...>") {
            open.insert(pid.to_owned(), calls.len());
            calls.push(Call {
                name: name.to_owned(),
                args: args.trim_end_matches(',').to_owned(),
                result: String::new(),
            });
            continue;
        }
        let (args, result) = tail.rsplit_once(" = ").unwrap_or((tail, ""));
        calls.push(Call {
            name: name.to_owned(),
            args: args.trim_end().strip_suffix(')').unwrap_or(args).to_owned(),
            result: result.to_owned(),
        });
    }
    calls
}

/// What a trace holds from the open of `name` on (without that line), asserting the open gave
/// descriptor 3: the shape tests count the calls on descriptor 3, which must be the file's.
pub fn after_open<'a>(trace: &'a str, name: &str) -> &'a str {
    let quoted = format!("\"{name}\"");
    let at = trace.find(&quoted).unwrap_or_else(|| panic!("{name} is not opened in:\n{trace}"));
    let (line, rest) = trace[at..].split_once('\n').unwrap_or((&trace[at..], ""));
    assert!(line.ends_with("= 3"), "{name} opened as another descriptor than 3: {line}");
    rest
}

/// Whether the temporary directory's file system is one where `cat` times copy_file_range
/// against its relay pipe (ext2/3/4, tmpfs, f2fs: there copy_file_range always copies; see
/// src/cat/copy.rs); elsewhere `cat` leaves a large file to one copy_file_range, as GNU.
pub fn temp_dir_copies_in_kernel() -> bool {
    let out = Command::new("stat").args(["-f", "-c", "%T"]).arg(std::env::temp_dir()).output().unwrap();
    matches!(String::from_utf8_lossy(&out.stdout).trim(), "ext2/ext3" | "tmpfs" | "f2fs")
}

/// What `yes` and `cat` grow standard output's pipe to: `min(pipe-max-size, 1 MiB)`, so 1 MiB
/// at the kernel's default `pipe-max-size`. (ci/pipe-max-size.sh checks it with the limit
/// raised: that file is system-wide, so no test here changes it.)
pub fn stdout_pipe_target() -> usize {
    let max = std::fs::read_to_string("/proc/sys/fs/pipe-max-size").expect("/proc/sys/fs/pipe-max-size");
    max.trim().parse::<usize>().expect("pipe-max-size is a number").min(1 << 20)
}

/// Whether this process may give a pipe `size` bytes (past `pipe-max-size`: as root).
pub fn pipe_can_be(size: usize) -> bool {
    use std::os::fd::AsRawFd;
    let (_read_end, write_end) = rapidutils::platform::pipe().unwrap();
    rapidutils::platform::set_pipe_size(write_end.as_raw_fd(), size).is_ok_and(|got| got == size)
}

/// Runs `cmd` with its standard output into a new pipe, first grown to `size` bytes where
/// given, and reads `len` bytes of it (all, if it ends before). Returns those bytes, the pipe's
/// size as its reader sees it then (None in a build without the pipe calls) and the command's
/// status (killed once `len` bytes came).
pub fn read_through_pipe(mut cmd: Command, size: Option<usize>, len: usize) -> (Vec<u8>, Option<usize>, String) {
    use rapidutils::platform;
    use std::os::fd::AsRawFd;
    let (read_end, write_end) = platform::pipe().unwrap();
    if let Some(size) = size {
        assert_eq!(platform::set_pipe_size(write_end.as_raw_fd(), size).unwrap(), size);
    }
    let mut child = cmd.stdin(Stdio::null()).stdout(Stdio::from(write_end)).spawn().expect("spawn");
    // The parent's copy of the write end goes with the Command, so the reader sees the end.
    drop(cmd);
    let mut bytes = Vec::new();
    std::fs::File::from(read_end.try_clone().unwrap()).take(len as u64).read_to_end(&mut bytes).unwrap();
    let seen = platform::pipe_size(read_end.as_raw_fd()).ok();
    if bytes.len() == len {
        let _ = child.kill();
    }
    (bytes, seen, describe(child.wait().unwrap()))
}

/// How long a test waits for an event it has made happen before it fails: a watchdog against a
/// hang, not a measure of speed (the event is what the test waits for, however long it takes
/// short of this).
pub const WATCHDOG: std::time::Duration = std::time::Duration::from_secs(30);

/// Looks at `probe` until it gives something, and returns that; fails the test, naming `what`
/// was awaited, when [`WATCHDOG`] passes first. Between looks it backs off from 50 µs to 5 ms:
/// the looks watch for the event, no pause is counted on to bring it.
pub fn wait_for<T>(what: &str, mut probe: impl FnMut() -> Option<T>) -> T {
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_micros(50);
    loop {
        if let Some(found) = probe() {
            return found;
        }
        assert!(start.elapsed() < WATCHDOG, "waited {WATCHDOG:?} for {what}: it never happened");
        std::thread::sleep(pause);
        pause = (pause * 2).min(std::time::Duration::from_millis(5));
    }
}

/// The state letter of process (or thread) `pid` in /proc (`R`, `S`, `D`, `T`, `Z`, ...).
pub fn process_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// The system call process `pid` sleeps in, as /proc/PID/syscall shows it (its number, then its
/// arguments), if it is asleep inside one (not running, not in user space).
pub fn sleeping_in_call(pid: u32) -> Option<(i64, Vec<u64>)> {
    let parse = || -> Option<(i64, Vec<u64>)> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/syscall")).ok()?;
        let mut fields = text.split_whitespace();
        let number: i64 = fields.next()?.parse().ok()?;
        let args = fields.take(6).map(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).unwrap_or(u64::MAX));
        (number >= 0).then(|| (number, args.collect()))
    };
    let before = parse()?;
    // Asleep, and still in the same call after that was seen.
    (matches!(process_state(pid), Some('S' | 'D')) && parse().as_ref() == Some(&before)).then_some(before)
}

/// Whether `call` (from [`sleeping_in_call`]) writes to descriptor 1: `write`, `writev`,
/// `pwrite64`, `vmsplice`, `sendfile` name their output first, `splice`, `tee` and
/// `copy_file_range` third.
pub fn writes_stdout(call: &(i64, Vec<u64>)) -> bool {
    let (number, args) = call;
    let out = match *number {
        libc::SYS_write | libc::SYS_writev | libc::SYS_pwrite64 | libc::SYS_vmsplice | libc::SYS_sendfile => {
            args.first()
        }
        libc::SYS_splice => args.get(2),
        libc::SYS_tee => args.get(1),
        libc::SYS_copy_file_range => args.get(2),
        _ => None,
    };
    out == Some(&1)
}

/// Waits until process `pid` is held back by its standard output: asleep in a call that writes
/// to it (a pipe that is full), or gone (a zombie: it wrote its last byte). Returns whether it
/// was held back (false: it had ended).
pub fn wait_held_back_by_stdout(pid: u32) -> bool {
    wait_for(&format!("process {pid} to sleep writing its full stdout, or to end"), || {
        if matches!(process_state(pid), Some('Z') | None) {
            return Some(false);
        }
        sleeping_in_call(pid).filter(writes_stdout).map(|_| true)
    })
}

/// Writes `content` to `path` as an executable (mode 755), through a child process: a file this
/// multi-threaded test program held open for writing could be inherited, still open, by a child
/// another test thread forks at that moment, and executing it would then fail with ETXTBSY
/// ("Text file busy") until that child execs.
pub fn write_executable(path: &Path, content: &[u8]) {
    use std::io::Write;
    let mut sh = Command::new("/bin/sh")
        .args(["-c", "cat > \"$0\" && chmod 755 \"$0\""])
        .arg(path)
        .env("PATH", SYSTEM_PATH)
        .stdin(Stdio::piped())
        .spawn()
        .expect("sh runs");
    sh.stdin.take().unwrap().write_all(content).unwrap();
    assert!(sh.wait().unwrap().success(), "writing {} failed", path.display());
}

/// Copies the executable `from` to `to` through a child process (see [`write_executable`]).
pub fn copy_executable(from: &Path, to: &Path) {
    let status = Command::new("/bin/cp").arg(from).arg(to).status().expect("cp runs");
    assert!(status.success(), "copying {} to {} failed", from.display(), to.display());
}
