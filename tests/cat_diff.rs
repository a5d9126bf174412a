//! `cat` against GNU coreutils 9.12 on generated inputs: every option combination and
//! spelling, every byte value, inputs larger than any buffer, several files with partial lines,
//! errors in the middle, input-is-output cases, and every kind of stdin and stdout.

use crate::util::*;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::process::{Command, Stdio};

/// Inputs that exercise the formatting state machine: CR/LF, runs of empty lines, tabs,
/// control and high bytes, lines longer than the buffers, no final newline.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let mut all_bytes: Vec<u8> = (0..=255u8).collect();
    all_bytes.extend((0..=255u8).rev());
    let mut text = Vec::new();
    for i in 0..3000 {
        text.extend_from_slice(format!("line {i}\twith\ttabs\r\n").as_bytes());
        if i % 7 == 0 {
            text.extend_from_slice(b"\n\n\n");
        }
        if i % 11 == 0 {
            text.extend_from_slice(b"caf\xc3\xa9 \x1b[1m\x7f\r\r\n");
        }
    }
    let mut long_line = vec![b'x'; 300_000];
    long_line.extend_from_slice(b"\r\n\n\t\r");
    vec![
        ("empty", Vec::new()),
        ("all-bytes", all_bytes),
        ("noise", noise(200_000, 7)),
        ("text", text),
        ("long-line", long_line),
        ("newlines", b"\n\n\n\na\n\n\nb\n\n".to_vec()),
        ("cr-at-end", b"a\r".to_vec()),
    ]
}

/// Every combination of -b -n -s -v -E -T (64), and the other spellings.
fn option_sets() -> Vec<Vec<&'static str>> {
    let flags = ["-b", "-n", "-s", "-v", "-E", "-T"];
    let mut sets: Vec<Vec<&str>> =
        (0..64).map(|m| flags.iter().enumerate().filter(|(i, _)| m >> i & 1 == 1).map(|(_, f)| *f).collect()).collect();
    for extra in [
        &["-A"][..],
        &["-e"],
        &["-t"],
        &["-u"],
        &["-vET"],
        &["-nb"],
        &["--show-all"],
        &["--number-nonblank", "--number"],
        &["--squeeze-blank", "--show-ends"],
        &["--show-nonprinting", "--show-tabs"],
        &["--num"],
        &["--number-n"],
        &["--sq", "--show-e", "--show-t"],
        &["-s", "-s", "-n", "-E", "-E"],
    ] {
        sets.push(extra.to_vec());
    }
    sets
}

fn compare(label: &str, mine: Outcome, gnu: Outcome) {
    assert_eq!(mine.status, gnu.status, "{label}: status; stderr {}", mine.stderr_text());
    assert_eq!(mine.stderr_text(), gnu.stderr_text(), "{label}: stderr");
    if mine.stdout != gnu.stdout {
        let at = mine.stdout.iter().zip(&gnu.stdout).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{label}: stdout differs at byte {at} (lengths {} vs {}): ours {:?} gnu {:?}",
            mine.stdout.len(),
            gnu.stdout.len(),
            String::from_utf8_lossy(&mine.stdout[at.saturating_sub(20)..(at + 40).min(mine.stdout.len())]),
            String::from_utf8_lossy(&gnu.stdout[at.saturating_sub(20)..(at + 40).min(gnu.stdout.len())]),
        );
    }
}

#[test]
fn every_option_combination_on_files_and_pipes() {
    let dir = TempDir::new("cat-opts");
    let inputs = inputs();
    let paths: Vec<_> = inputs.iter().map(|(name, data)| dir.file(name, data)).collect();
    for opts in option_sets() {
        // All inputs as files in one run: state (numbers, blank runs, a pending CR) crosses files.
        let [mut mine, mut gnu] = both("cat", "cat");
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(&opts).args(&paths);
        }
        compare(&format!("{opts:?} files"), run_piped(mine, None), run_piped(gnu, None));
        // Each input through a pipe, and as stdin between two files with '-'.
        for (i, (name, data)) in inputs.iter().enumerate() {
            let [mut mine, mut gnu] = both("cat", "cat");
            for cmd in [&mut mine, &mut gnu] {
                cmd.args(&opts).arg(&paths[(i + 1) % paths.len()]).arg("-").arg(&paths[(i + 3) % paths.len()]);
            }
            compare(&format!("{opts:?} pipe {name}"), run_piped(mine, Some(data)), run_piped(gnu, Some(data)));
        }
    }
}

#[test]
fn every_simd_kernel_formats_the_same() {
    // The formatting loops run with each kernel's block masks (RAPIDUTILS_SIMD forces one:
    // baseline SSE2/SWAR masks for portable and sse2, SSSE3, AVX2 and AVX-512 where the CPU has them).
    let dir = TempDir::new("cat-kernels");
    let paths: Vec<_> = inputs().iter().map(|(name, data)| dir.file(name, data)).collect();
    for opts in [&["-A"][..], &["-n"], &["-vns"], &["-bE"], &["-T"], &["-et"]] {
        let [_, mut gnu] = both("cat", "cat");
        gnu.args(opts).args(&paths);
        let expected = run_piped(gnu, None);
        for kernel in kernels("cat_diff::every_simd_kernel_formats_the_same") {
            let [mut mine, _] = both("cat", "cat");
            mine.env("RAPIDUTILS_SIMD", kernel).args(opts).args(&paths);
            let gnu = Outcome {
                stdout: expected.stdout.clone(),
                stderr: expected.stderr.clone(),
                status: expected.status.clone(),
            };
            compare(&format!("{opts:?} {kernel}"), run_piped(mine, None), gnu);
        }
    }
}

#[test]
fn stdin_as_regular_file_also_at_an_offset() {
    // stdin is a regular file whose offset was moved first: cat must start there (and the
    // zero-copy paths must use the file offset, not the start of the file).
    // Files of 1 MiB and more are formatted from a mapping (Linux): from the offset, and the
    // offset is left at the end (what a second reader finds after cat is appended: nothing).
    let dir = TempDir::new("cat-stdin");
    let small = dir.file("in", &noise(300_000, 3));
    let big_len = (5 << 20) + 77;
    let big = dir.file("big", &noise(big_len, 4));
    let cases = [(&small, vec![0, 1, 4096, 299_999, 300_000]), (&big, vec![0, 1, 4097, (1 << 20) + 3, (4 << 20) + 1])];
    for opts in [&[][..], &["-n"], &["-A"]] {
        for (path, skips) in &cases {
            for &skip in skips {
                let mut results = Vec::new();
                for cmd in both("cat", "cat") {
                    let mut sh = Command::new("bash");
                    sh.arg("-c")
                    .arg(format!(
                        "exec < '{}'; head -c {skip} >/dev/null; \"$@\" - > out; echo \" rc=$?\" >> out; exec head -c 10 >> out",
                        path.display()
                    ))
                    .arg("sh")
                    .arg(cmd.get_program())
                    .args(opts)
                    .current_dir(&dir.0)
                    .env_clear();
                    for (k, v) in cmd.get_envs() {
                        if let Some(v) = v {
                            sh.env(k, v);
                        }
                    }
                    let outcome = run_with_stdout(sh, Stdio::null());
                    results.push((outcome, std::fs::read(dir.0.join("out")).unwrap()));
                }
                assert!(results[0].1.ends_with(b" rc=0\n"), "{opts:?} stdin at offset {skip}");
                assert!(results[0] == results[1], "{opts:?} {} at offset {skip}", path.display());
            }
        }
    }
}

#[test]
fn errors_in_the_middle_keep_order_and_status() {
    let dir = TempDir::new("cat-err");
    let a = dir.file("a", b"first\nfile");
    let b = dir.file("b", b" continues\n\n\nx");
    let sub = dir.0.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let missing = dir.0.join("missing");
    for opts in [&[][..], &["-n"], &["-sE"], &["-b"]] {
        let operands: Vec<OsString> = vec![
            a.clone().into(),
            missing.clone().into(),
            sub.clone().into(),
            "/proc/self/mem".into(),
            b.clone().into(),
            missing.clone().into(),
        ];
        let [mut mine, mut gnu] = both("cat", "cat");
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(opts).args(&operands).current_dir(&dir.0);
        }
        // stdout and stderr into one pipe, so the order of messages and output is compared.
        let merged = |cmd: Command| run_with_stdout(through_shell(&cmd, "cat", "", "2>&1"), Stdio::piped());
        compare(&format!("{opts:?}"), merged(mine), merged(gnu));
    }
}

#[test]
fn odd_file_names_are_quoted_like_gnu_in_both_locales() {
    let mut names: Vec<OsString> = (1..=255u8).map(|b| OsString::from_vec(vec![b'x', b, b'y'])).collect();
    for n in ["", "a b", "a:b", "it's", "it's $x", "-", "~x", "x~", "#x", "{", "}", "a{b", "é", "日本", "\u{200b}"] {
        names.push(OsString::from(format!("nonexistent/{n}")));
    }
    names.push(OsString::from_vec(b"bad\xc3(utf8".to_vec()));
    names.push(OsString::from_vec(b"trunc\xe6\x97".to_vec()));
    for locale in ["C", "C.UTF-8"] {
        let [mine, mut gnu] = both("cat", "cat");
        // Same C library for both (the oracle's), so printability comes from the same tables.
        let mut mine_on_oracle_libc = Command::new(oracle("with-oracle-libc"));
        mine_on_oracle_libc.arg(mine.get_program()).env_clear().env("LC_ALL", locale).env("TERM", "dumb");
        gnu.env("LC_ALL", locale);
        for cmd in [&mut mine_on_oracle_libc, &mut gnu] {
            cmd.args(names.iter().filter(|n| !n.is_empty() && n.as_encoded_bytes() != b"-"));
            cmd.arg("");
        }
        compare(&format!("names in {locale}"), run_piped(mine_on_oracle_libc, None), run_piped(gnu, None));
    }
}

#[test]
fn input_file_is_output_file_rules_of_gnu_9_12() {
    // Each script runs with CAT set to the implementation; the file contents afterwards are part
    // of the comparison.
    let scripts = [
        "printf 'hi\\n' > f; $CAT f > f; echo rc=$?; cat f",
        "printf 'hi\\n' > f; $CAT f >> f; echo rc=$?; cat f",
        "printf 'hi\\n' > f; $CAT < f >> f; echo rc=$?; cat f",
        "printf 'hi\\n' > f; $CAT -n f >> f; echo rc=$?; cat f",
        "printf 'hello\\n' > g; $CAT - g < g 1<> g; echo rc=$?; cat g",
        "printf 'hello\\n' > g; printf 'b\\n' > b; $CAT - b < g 1<> g; echo rc=$?; cat g",
        "printf 'abc\\n' > g; $CAT g - < /dev/null 1<> g; echo rc=$?; cat g",
        "printf '12345\\n' > g; exec 3<> g; head -c 2 <&3 >/dev/null; $CAT <&3 1<> g; echo rc=$?; cat g",
        "printf 'a\\n' > a; printf 'b\\n' > b; $CAT a b > ab; echo rc=$?; cat ab",
        "printf 'x\\n' > f; $CAT f /dev/null f >> f; echo rc=$?; cat f",
        "$CAT /dev/null > /dev/null; echo rc=$?",
    ];
    for script in scripts {
        let mut outputs = Vec::new();
        for (i, cmd) in both("cat", "cat").into_iter().enumerate() {
            let dir = TempDir::new(&format!("cat-same-{i}"));
            let mut sh = Command::new("bash");
            sh.arg("-c").arg(script).current_dir(&dir.0).env_clear().env("LC_ALL", "C").env("PATH", "/usr/bin:/bin");
            sh.env("CAT", cmd.get_program());
            for (k, v) in cmd.get_envs() {
                if let Some(v) = v {
                    sh.env(k, v);
                }
            }
            outputs.push(run_with_stdout(sh, Stdio::piped()));
        }
        let gnu = outputs.pop().unwrap();
        compare(script, outputs.pop().unwrap(), gnu);
    }
}

#[test]
fn write_errors_closed_stdout_and_sigpipe_match_gnu() {
    let dir = TempDir::new("cat-werr");
    let big = dir.file("big", &noise(3 << 20, 11));
    for opts in [&[][..], &["-n"], &["-v"]] {
        for source in [big.to_str().unwrap(), "/dev/zero"] {
            let [mut mine, mut gnu] = both("cat", "cat");
            for cmd in [&mut mine, &mut gnu] {
                cmd.args(opts).arg(source);
            }
            let full = || Stdio::from(std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap());
            compare(
                &format!("{opts:?} {source} > /dev/full"),
                run_with_stdout(through_shell(&mine, "cat", "", ""), full()),
                run_with_stdout(through_shell(&gnu, "cat", "", ""), full()),
            );
            compare(
                &format!("{opts:?} {source} >&-"),
                run_with_stdout(through_shell(&mine, "cat", "", ">&-"), Stdio::null()),
                run_with_stdout(through_shell(&gnu, "cat", "", ">&-"), Stdio::null()),
            );
            for cut in [0, 1, 100_000] {
                let a = run_cut(through_shell(&mine, "cat", "", ""), cut);
                let b = run_cut(through_shell(&gnu, "cat", "", ""), cut);
                assert_eq!(a.status, "signal 13", "{opts:?} {source} cut {cut}");
                compare(&format!("{opts:?} {source} | head -c {cut}"), a, b);
                let a = run_cut(through_shell(&mine, "cat", "trap '' PIPE;", ""), cut);
                let b = run_cut(through_shell(&gnu, "cat", "trap '' PIPE;", ""), cut);
                compare(&format!("{opts:?} {source} | head -c {cut}, SIGPIPE ignored"), a, b);
            }
        }
    }
    let [mut mine, mut gnu] = both("cat", "cat");
    for cmd in [&mut mine, &mut gnu] {
        cmd.arg("-");
    }
    compare(
        "closed stdin",
        run_with_stdout(through_shell(&mine, "cat", "", "<&-"), Stdio::piped()),
        run_with_stdout(through_shell(&gnu, "cat", "", "<&-"), Stdio::piped()),
    );
}

#[test]
fn every_kind_of_output_gets_the_same_bytes() {
    use std::io::Read;
    let dir = TempDir::new("cat-outputs");
    let data = noise(5 << 20, 5);
    let src = dir.file("src", &data);
    for opts in [&[][..], &["-n"]] {
        let expected = {
            let [_, mut gnu] = both("cat", "cat");
            gnu.args(opts).arg(&src);
            run_piped(gnu, None).stdout
        };
        // Regular file (fresh, and appended to), socket, /dev/null.
        let out = dir.0.join("out");
        let [mut mine, _] = both("cat", "cat");
        mine.args(opts).arg(&src);
        let status = mine.stdout(std::fs::File::create(&out).unwrap()).status().unwrap();
        assert!(status.success());
        assert!(std::fs::read(&out).unwrap() == expected, "{opts:?} into a file");
        let [mut mine, _] = both("cat", "cat");
        mine.args(opts).arg(&src);
        let append = std::fs::OpenOptions::new().append(true).open(&out).unwrap();
        assert!(mine.stdout(append).status().unwrap().success());
        assert!(std::fs::read(&out).unwrap() == [expected.clone(), expected.clone()].concat(), "{opts:?} appended");
        let (mut ours_end, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
        let [mut mine, _] = both("cat", "cat");
        mine.args(opts).arg(&src).stdout(Stdio::from(std::os::fd::OwnedFd::from(theirs)));
        let mut child = mine.spawn().unwrap();
        drop(mine);
        let mut got = Vec::new();
        ours_end.read_to_end(&mut got).unwrap();
        assert!(child.wait().unwrap().success());
        assert!(got == expected, "{opts:?} into a socket");
        let [mut mine, _] = both("cat", "cat");
        assert!(mine.args(opts).arg(&src).stdout(Stdio::null()).status().unwrap().success());
    }
}

#[test]
fn proc_and_sys_files() {
    for path in [
        "/proc/version",
        "/proc/sys/fs/pipe-max-size",
        "/sys/kernel/mm/transparent_hugepage/enabled",
        "/proc/self/nonexistent",
    ] {
        for opts in [&[][..], &["-A"]] {
            let [mut mine, mut gnu] = both("cat", "cat");
            for cmd in [&mut mine, &mut gnu] {
                cmd.args(opts).arg(path);
            }
            compare(&format!("{opts:?} {path} | pipe"), run_piped(mine, None), run_piped(gnu, None));
        }
        let dir = TempDir::new("cat-proc");
        let mut files = Vec::new();
        for (i, cmd) in both("cat", "cat").into_iter().enumerate() {
            let out = dir.0.join(format!("o{i}"));
            let mut cmd = cmd;
            cmd.arg(path);
            let o = run_with_stdout(cmd, Stdio::from(std::fs::File::create(&out).unwrap()));
            files.push((o, std::fs::read(&out).unwrap()));
        }
        assert!(files[0] == files[1], "{path} into a regular file");
    }
}

#[test]
fn help_and_usage_errors() {
    for args in [
        &["--help"][..],
        &["--hel"],
        &["--version"],
        &["--sh"],
        &["--show"],
        &["-x"],
        &["--bogus=1"],
        &["-n", "--number=3"],
        &["--show-all", "--", "--help"],
    ] {
        let [mut mine, mut gnu] = both("cat", "cat");
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(args);
        }
        let (a, b) = (run_piped(mine, None), run_piped(gnu, None));
        assert_eq!((a.status.clone(), a.stderr_text()), (b.status.clone(), b.stderr_text()), "{args:?}");
        let body = |o: &Outcome| {
            let t = String::from_utf8_lossy(&o.stdout).into_owned();
            if t.starts_with("cat (") {
                return "version".to_string();
            }
            t.split("\nReport bugs to:").next().unwrap().split("\nrapidutils cat:").next().unwrap().to_string()
        };
        assert_eq!(body(&a), body(&b), "{args:?}");
    }
}
