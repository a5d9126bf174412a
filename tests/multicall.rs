//! The multi-call binary: dispatch on the program name (with any prefix) and on the first
//! argument, `--list`, `--help`, `--version`, and unknown tool names.

use crate::util::*;
use assert_cmd::Command as AssertCommand;
use predicates::prelude::*;
use std::os::unix::process::CommandExt;
use std::process::Command;

fn multi(argv0: &str) -> Command {
    let mut cmd = Command::new(ours("rapidutils"));
    cmd.arg0(argv0).env("LC_ALL", "C");
    cmd
}

#[test]
fn dispatches_on_program_name_with_prefixes() {
    for argv0 in ["yes", "/usr/bin/yes", "ru-yes", "gyes", "rapidutils-yes"] {
        let out = run_cut(multi(argv0), 6);
        assert_eq!(out.stdout, b"y\ny\ny\n", "{argv0}");
        let mut cmd = multi(argv0);
        cmd.arg("--bogus");
        let [_, mut gnu] = both("yes", argv0);
        gnu.arg("--bogus");
        assert_eq!(run_cut(cmd, 100), run_cut(gnu, 100), "{argv0}");
    }
}

#[test]
fn dispatches_on_first_argument_and_names_the_tool() {
    let mut cmd = multi("rapidutils");
    cmd.args(["yes", "a", "b"]);
    assert_eq!(run_cut(cmd, 8).stdout, b"a b\na b\n");
    let mut cmd = multi("/opt/x/rapidutils");
    cmd.args(["yes", "--nope"]);
    let out = run_cut(cmd, 100);
    assert_eq!(out.status, "exit 1");
    assert_eq!(out.stderr_text(), "yes: unrecognized option '--nope'\nTry 'yes --help' for more information.\n");
}

#[test]
fn cat_through_the_multicall_binary() {
    let mut cmd = multi("rapidutils");
    cmd.args(["cat", "-n", "/nonexistent-ru"]);
    let out = run_cut(cmd, 100);
    assert_eq!(out.stderr_text(), "cat: /nonexistent-ru: No such file or directory\n");
    assert_eq!(out.status, "exit 1");
    for argv0 in ["cat", "/bin/ru-cat", "gcat"] {
        let mut cmd = multi(argv0);
        cmd.arg("-n");
        assert_eq!(run_piped(cmd, Some(b"a\nb\n")).stdout, b"     1\ta\n     2\tb\n", "{argv0}");
    }
}

#[test]
fn list_help_version() {
    AssertCommand::new(ours("rapidutils")).arg("--list").assert().success().stdout("cat\nwc\nyes\n");
    AssertCommand::new(ours("rapidutils"))
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("Usage: rapidutils TOOL [ARGUMENT]...\n"));
    AssertCommand::new(ours("rapidutils"))
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with(concat!("rapidutils (rapidutils) ", env!("CARGO_PKG_VERSION"), "\n")));
    // Its last line names the kernels the build has: AVX-512's where the compiler has its
    // intrinsics (build.rs).
    let kernels = match arch().as_str() {
        _ if cfg!(feature = "portable") => "portable",
        "x86_64" if cfg!(rapidutils_avx512) => "portable, sse2, ssse3, avx2, avx512",
        "x86_64" => "portable, sse2, ssse3, avx2",
        "aarch64" => "portable, neon",
        _ => "portable",
    };
    AssertCommand::new(ours("rapidutils"))
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::ends_with(format!("\nSIMD kernels in this build: {kernels}.\n")));
}

/// Scripts probe `cat --version 2>/dev/null | grep -qi coreutils` (or `grep -q GNU`) before
/// relying on GNU behaviour: both must find the line naming the GNU release matched, for each
/// tool and the multi-call binary, also in a translated locale (the line is ours, untranslated),
/// and the first line must stay `NAME (rapidutils) VERSION`.
#[test]
fn version_passes_scripts_gnu_probes() {
    let version = env!("CARGO_PKG_VERSION");
    for tool in ["yes", "cat", "wc", "rapidutils"] {
        for locale in ["C", "fr_FR.UTF-8"] {
            for probe in ["grep -qi coreutils", "grep -q GNU"] {
                let status = Command::new("sh")
                    .arg("-c")
                    .arg(format!("\"$0\" --version 2>/dev/null | {probe}"))
                    .arg(ours(tool))
                    .env("LC_ALL", locale)
                    .status()
                    .expect("sh runs");
                assert!(status.success(), "`{tool} --version | {probe}` failed in {locale}: {status}");
            }
            let out = Command::new(ours(tool)).arg("--version").env("LC_ALL", locale).output().unwrap();
            assert!(out.status.success(), "{tool} --version in {locale}: {:?}", out.status);
            let text = String::from_utf8(out.stdout).unwrap();
            let mut lines = text.lines();
            assert_eq!(lines.next(), Some(format!("{tool} (rapidutils) {version}").as_str()), "{tool} in {locale}");
            assert_eq!(lines.next(), Some("Compatible with GNU coreutils 9.12."), "{tool} in {locale}");
        }
    }
}

#[test]
fn unknown_tool_and_no_tool_are_errors() {
    AssertCommand::new(ours("rapidutils"))
        .arg("frob")
        .assert()
        .code(1)
        .stdout("")
        .stderr("rapidutils: frob: no such tool in rapidutils\nTry 'rapidutils --help' for more information.\n");
    AssertCommand::new(ours("rapidutils"))
        .assert()
        .code(1)
        .stderr("rapidutils: missing tool name\nTry 'rapidutils --help' for more information.\n");
    AssertCommand::new(ours("rapidutils"))
        .arg("a b")
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("rapidutils: 'a b': no such tool"));
}

/// Start-up: on x86-64 Linux with glibc the binaries load no shared library but the C library
/// (build.rs links the unwinder from libgcc_eh.a instead of loading libgcc_s.so.1 at every run).
/// On aarch64 the standard library's libgcc_s.so.1 is named before that archive is read, so it
/// stays needed there (a known start-up cost of that platform). A toolchain whose standard
/// library names more libraries in every program (Debian's rustc: libgcc_s.so.1, and libm.so.6
/// for its float functions) says so in `RAPIDUTILS_TEST_STD_LIBS` (make check-distro-build sets
/// it): those are allowed too, and the only-the-C-library check is reported as not run.
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn binaries_need_only_the_c_library() {
    const TEST: &str = "multicall::binaries_need_only_the_c_library";
    let mut expected: Vec<String> =
        if arch() == "aarch64" { vec!["libgcc_s.so.1".into(), "libc.so.6".into()] } else { vec!["libc.so.6".into()] };
    if let Ok(std_libs) = std::env::var("RAPIDUTILS_TEST_STD_LIBS") {
        skipped(
            TEST,
            "the only-the-C-library check",
            &format!("the toolchain's standard library needs {std_libs} too"),
        );
        expected.extend(std_libs.split_whitespace().map(str::to_owned));
    }
    for tool in ["rapidutils", "yes", "cat", "wc"] {
        let needed = needed_libraries(&ours(tool));
        assert!(needed.iter().all(|lib| expected.contains(lib)), "{tool}: {needed:?}, only {expected:?} expected");
        assert!(needed.contains(&"libc.so.6".to_owned()), "{tool}: {needed:?}");
    }
}
