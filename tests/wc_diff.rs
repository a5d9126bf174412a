//! `wc` against GNU coreutils 9.12 on generated inputs, in the C and C.UTF-8 locales, with
//! rapidutils running on the oracle's own C library (`with-oracle-libc`) so that character
//! classes and widths come from the same tables: every option combination, every byte value,
//! invalid and truncated UTF-8, Unicode spaces, wide and combining characters, `--total`,
//! `--files0-from`, widths for files, redirected stdin and pipes, errors.
//!
//! Multibyte inputs stay below 64 KiB: GNU 9.12 counts an extra word when a multibyte space is
//! split by a read boundary (see docs/COMPATIBILITY.md), which rapidutils deliberately does not copy.

use crate::util::*;
use std::process::{Command, Stdio};

/// GNU's wc and ours on the same C library, both seeing `wc` as their name in messages.
fn pair(locale: &str) -> [Command; 2] {
    let mut mine = Command::new(oracle("with-oracle-libc"));
    mine.arg(ours("wc"));
    let mut gnu = Command::new(oracle("wc"));
    for cmd in [&mut mine, &mut gnu] {
        cmd.env_clear().env("LC_ALL", locale).env("TERM", "dumb").env("PATH", "/usr/bin:/bin");
    }
    [mine, gnu]
}

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let mut all: Vec<u8> = (0..=255u8).collect();
    all.extend((0..=255u8).map(|b| b ^ 0x55));
    let spaces = "a\u{a0}b c\u{2007}d e\u{202f}f g\u{2060}h i\u{3000}j k\u{2003}l m\u{200b}n o\u{85}p q\u{1680}r";
    let mut wide = String::new();
    for i in 0..300 {
        wide.push_str(&format!("日本語{i}\tcafé e\u{301} ｆｕｌｌ　width \u{1f600}\r\n"));
    }
    let invalid: Vec<u8> =
        b"ok \xff\xfe x\xc3 \xe2\x82 y\xed\xa0\x80 z\xf4\x90\x80\x80 w\xc0\xaf v\xf0\x9f\x98 u\x80\x80\xe6\x97"
            .to_vec();
    let mut long = vec![b'w'; 20_000];
    long.extend_from_slice(b" \t\tx\n");
    vec![
        ("empty", Vec::new()),
        ("all-bytes", all),
        ("noise", noise(40_000, 9)),
        ("spaces", spaces.as_bytes().to_vec()),
        ("wide", wide.into_bytes()),
        ("invalid", invalid),
        ("long-line", long),
        ("controls", b"a\x0bb\x0cc\rd\x00e\x1bf\x7fg\t\th \n\n".to_vec()),
        ("no-newline", b"last line".to_vec()),
        ("truncated", "x é".as_bytes()[..3].to_vec()),
    ]
}

fn option_sets() -> Vec<Vec<&'static str>> {
    let flags = ["-l", "-w", "-m", "-c", "-L"];
    let mut sets: Vec<Vec<&str>> =
        (0..32).map(|m| flags.iter().enumerate().filter(|(i, _)| m >> i & 1 == 1).map(|(_, f)| *f).collect()).collect();
    sets.push(vec!["--lines", "--words", "--chars", "--bytes", "--max-line-length"]);
    sets.push(vec!["--li", "--wo", "--ch", "--by", "--max"]);
    sets
}

fn compare(label: &str, mine: Outcome, gnu: Outcome) {
    assert_eq!(
        (mine.status.as_str(), mine.stderr_text(), String::from_utf8_lossy(&mine.stdout)),
        (gnu.status.as_str(), gnu.stderr_text(), String::from_utf8_lossy(&gnu.stdout)),
        "{label}"
    );
}

#[test]
fn every_option_combination_on_files_stdin_and_pipes() {
    let dir = TempDir::new("wc-opts");
    let inputs = inputs();
    let paths: Vec<_> = inputs.iter().map(|(n, d)| dir.file(n, d)).collect();
    for locale in ["C", "C.UTF-8"] {
        for opts in option_sets() {
            let [mut mine, mut gnu] = pair(locale);
            for cmd in [&mut mine, &mut gnu] {
                cmd.args(&opts).args(&paths);
            }
            compare(&format!("{locale} {opts:?} files"), run_piped(mine, None), run_piped(gnu, None));
            for (name, data) in &inputs {
                let [mut mine, mut gnu] = pair(locale);
                for cmd in [&mut mine, &mut gnu] {
                    cmd.args(&opts);
                }
                compare(
                    &format!("{locale} {opts:?} pipe {name}"),
                    run_piped(mine, Some(data)),
                    run_piped(gnu, Some(data)),
                );
            }
        }
    }
}

#[test]
fn posixly_correct_turns_off_the_no_break_space_rule() {
    let input = "a\u{a0}b c\u{2007}d e\u{202f}f g\u{2060}h".as_bytes().to_vec();
    let mut bytes = input.clone();
    bytes.extend_from_slice(b" x\xa0y");
    for locale in ["C", "C.UTF-8"] {
        let [mut mine, mut gnu] = pair(locale);
        for cmd in [&mut mine, &mut gnu] {
            cmd.env("POSIXLY_CORRECT", "1").arg("-w");
        }
        compare(&format!("{locale} POSIXLY_CORRECT"), run_piped(mine, Some(&bytes)), run_piped(gnu, Some(&bytes)));
    }
}

#[test]
fn widths_for_files_redirected_stdin_pipes_and_offsets() {
    let dir = TempDir::new("wc-width");
    dir.file("small", b"one two\nthree\n");
    dir.file("big", &noise(123_456, 4));
    let scripts = [
        "$WC small",
        "$WC -l small",
        "$WC small big",
        "$WC -c small big",
        "$WC < small",
        "$WC -c < big",
        "cat small | $WC",
        "cat small | $WC -l",
        "$WC small - < big",
        "$WC - small < /dev/null",
        "$WC small /dev/null",
        "$WC /dev/null",
        "$WC -c /dev/null small",
        "{ head -c 5 >/dev/null; $WC -c; $WC -c; } < big",
        "{ head -c 5 >/dev/null; $WC; } < small",
        "$WC --total=only small big",
        "$WC --total=always small",
        "$WC --total=never small big",
        "$WC --total=al -l small",
        "$WC --tot=n small big",
        "$WC -c /proc/version",
        "$WC /proc/version",
        "$WC -L small big",
        "$WC small missing big sub",
        "$WC sub",
        "$WC -c sub",
        "$WC -l /proc/self/mem small",
        "$WC ''",
        "$WC small '' big",
        "$WC -- -l small",
        "$WC \"$(printf 'n\\nl')\"",
        // Bytes alone go by the stat taken at start: a file that grows while wc runs (its own
        // output appended to it) is counted at its size then, named as operands or in a list.
        "printf 'old\\n' > log; $WC -c small log >> log; cat log",
        "printf 'old\\n' > log; $WC -c log small log >> log; cat log",
        "printf 'old\\n' > log; $WC -cm small log >> log; cat log",
        "printf 'old\\n' > log; $WC -c --total=only small log >> log; cat log",
        "printf 'old\\n' > log; $WC -c small - < log >> log; cat log",
        "printf 'old\\n' > log; printf 'small\\0log\\0' > list; $WC -c --files0-from=list >> log; cat log",
        "printf 'old\\n' > log; printf 'small\\0log\\0' | $WC -c --files0-from=- >> log; cat log",
        "printf 'old\\n' > log; $WC -l small log >> log; cat log",
    ];
    std::fs::create_dir(dir.0.join("sub")).unwrap();
    std::fs::write(dir.0.join("n\nl"), b"x\ny").unwrap();
    for locale in ["C", "C.UTF-8"] {
        for script in scripts {
            let mut outcomes = Vec::new();
            for cmd in pair(locale) {
                let mut sh = Command::new("bash");
                let wc: Vec<String> = std::iter::once(cmd.get_program())
                    .chain(cmd.get_args())
                    .map(|a| format!("'{}'", a.to_string_lossy()))
                    .collect();
                sh.arg("-c").arg(format!("WC=\"{}\"; eval \"{script}\" 2>&1", wc.join(" ").replace('"', "\\\"")));
                sh.current_dir(&dir.0).env_clear().env("LC_ALL", locale).env("PATH", "/usr/bin:/bin");
                outcomes.push(run_with_stdout(sh, Stdio::piped()));
            }
            let gnu = outcomes.pop().unwrap();
            compare(&format!("{locale}: {script}"), outcomes.pop().unwrap(), gnu);
        }
    }
}

#[test]
fn files0_from_in_all_forms() {
    let dir = TempDir::new("wc-files0");
    dir.file("a", b"alpha beta\n");
    dir.file("b", "gamma δέλτα\n".as_bytes());
    let lists: Vec<(&str, Vec<u8>)> = vec![
        ("plain", b"a\0b\0".to_vec()),
        ("no-final-nul", b"a\0b".to_vec()),
        ("empty-names", b"a\0\0b\0\0".to_vec()),
        ("missing", b"a\0nope\0b\0".to_vec()),
        ("dash", b"a\0-\0b\0".to_vec()),
        ("nothing", Vec::new()),
        ("one", b"a\0".to_vec()),
    ];
    for (name, list) in &lists {
        std::fs::write(dir.0.join(format!("list-{name}")), list).unwrap();
    }
    for locale in ["C", "C.UTF-8"] {
        for (name, list) in &lists {
            for opts in [&[][..], &["-l"], &["--total=always"], &["--total=only", "-w"], &["-m", "-L"]] {
                // From a regular file, from stdin redirected from it, and from a pipe (streamed).
                for how in ["file", "stdin-file", "pipe"] {
                    let [mut mine, mut gnu] = pair(locale);
                    for cmd in [&mut mine, &mut gnu] {
                        cmd.current_dir(&dir.0).args(opts);
                        if how == "file" {
                            cmd.arg(format!("--files0-from=list-{name}"));
                        } else {
                            cmd.arg("--files0-from=-");
                        }
                        if how == "stdin-file" {
                            cmd.stdin(std::fs::File::open(dir.0.join(format!("list-{name}"))).unwrap());
                        }
                    }
                    let (a, b) = if how == "pipe" {
                        (run_piped(mine, Some(list)), run_piped(gnu, Some(list)))
                    } else if how == "stdin-file" {
                        (run_with_stdout(mine, Stdio::piped()), run_with_stdout(gnu, Stdio::piped()))
                    } else {
                        (run_piped(mine, None), run_piped(gnu, None))
                    };
                    compare(&format!("{locale} {opts:?} {name} {how}"), a, b);
                }
            }
        }
    }
}

#[test]
fn usage_errors_and_help() {
    let cases: &[&[&str]] = &[
        &["--total=bogus"],
        &["--total=a"],
        &["--total="],
        &["--total"],
        &["--files0-from"],
        &["-x"],
        &["--bogus"],
        &["--files0-from=x", "extra"],
        &["--files0-from=/nonexistent"],
        &["--lin=1"],
        &["--help"],
        &["--m"],
    ];
    for locale in ["C", "C.UTF-8"] {
        for args in cases {
            let [mut mine, mut gnu] = both("wc", "wc");
            for cmd in [&mut mine, &mut gnu] {
                cmd.env("LC_ALL", locale).args(*args);
            }
            let (a, b) = (run_piped(mine, None), run_piped(gnu, None));
            let body = |o: &Outcome| {
                let t = String::from_utf8_lossy(&o.stdout).into_owned();
                t.split("\nReport bugs to:").next().unwrap().split("\nrapidutils wc:").next().unwrap().to_string()
            };
            assert_eq!(
                (a.status.clone(), a.stderr_text(), body(&a)),
                (b.status.clone(), b.stderr_text(), body(&b)),
                "{locale} {args:?}"
            );
        }
    }
}

#[test]
fn write_errors_end_promptly() {
    // Names streamed from a pipe that never ends: the first failed write must stop wc.
    {
        let target = "/dev/full";
        let mut sh = Command::new("bash");
        sh.arg("-c").arg(format!(
            "yes /dev/null | tr '\\n' '\\0' | timeout 10 '{}' --files0-from=- > {target}; echo rc=$?",
            ours("wc").display()
        ));
        sh.env("PATH", SYSTEM_PATH);
        let out = run_with_stdout(sh, Stdio::piped());
        assert_eq!(String::from_utf8_lossy(&out.stdout), "rc=1\n");
        assert_eq!(out.stderr_text(), "wc: write error: No space left on device\n");
    }
}

/// Code points in groups of 16, each group one file: `a` + character, 16 times, then `a`, the
/// whole repeated 5 times (over 64 bytes, at shifting offsets, so the block paths see them).
/// Per file, `-w` counts the white-space characters, `-m` the valid ones, `-L` sums the widths:
/// every character's class and width, as rapidutils caches them, against GNU on the same C library.
fn class_groups(dir: &TempDir, ranges: &[std::ops::Range<u32>]) -> Vec<std::path::PathBuf> {
    let mut paths = Vec::new();
    for range in ranges {
        for base in range.clone().step_by(16) {
            let mut group = String::new();
            for cp in base..base + 16 {
                // Surrogates are not characters (their encodings are invalid: covered elsewhere);
                // line ends would hide the widths of the rest of the line.
                if let Some(ch) = char::from_u32(cp).filter(|c| !matches!(c, '\n' | '\r' | '\x0c')) {
                    group.push('a');
                    group.push(ch);
                }
            }
            group.push('a');
            paths.push(dir.file(&format!("{base:x}"), group.repeat(5).as_bytes()));
        }
    }
    paths
}

#[test]
fn every_character_class_and_width_as_the_c_library_says() {
    let dir = TempDir::new("wc-classes");
    let paths = class_groups(
        &dir,
        &[0..0x1_0000, 0x1_f000..0x1_fb00, 0x2_0000..0x2_0100, 0xe_0000..0xe_0200, 0x10_ff00..0x11_0000],
    );
    for opts in [&["-w", "-m", "-L"][..], &["-L"], &["-w"], &["-m"]] {
        let [mut mine, mut gnu] = pair("C.UTF-8");
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(opts).args(&paths);
        }
        let (mine, gnu) = (run_piped(mine, None), run_piped(gnu, None));
        assert!(gnu.stdout.len() > 100_000 && gnu.status == "exit 0", "{opts:?}: {}", gnu.stderr_text());
        compare(&format!("classes {opts:?}"), mine, gnu);
    }
}

#[test]
fn every_simd_kernel_counts_the_same() {
    // Each kernel this machine has (RAPIDUTILS_SIMD forces one; --debug names the one for -l):
    // wc -l, and the block paths of -w, -m and -L (baseline masks for portable and sse2, SSSE3's,
    // AVX2's and AVX-512's where the CPU has them), on inputs long enough for every block size
    // and remainder.
    let dir = TempDir::new("wc-kernels");
    let mut lines = Vec::new();
    for i in 0..70_000u32 {
        lines.extend(std::iter::repeat_n(b'x', (i % 300) as usize));
        lines.push(b'\n');
    }
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!("line {i}\tcafé 日本語 — \u{3000}x\u{a0}y e\u{301} {}\n", "w ".repeat(i % 90)));
    }
    let mut mixed = text.clone().into_bytes();
    mixed.extend_from_slice(b"\xff\xe2\x82 \xed\xa0\x80\r\x0b\x0c\x00");
    mixed.extend_from_slice(&noise(200_000, 78));
    let inputs = [
        dir.file("noise", &noise(3_000_001, 77)),
        dir.file("lines", &lines),
        dir.file("text", text.as_bytes()),
        dir.file("mixed", &mixed),
        dir.file("tiny", b"a\nb"),
    ];
    for (locale, opts) in [
        ("C", &["-l"][..]),
        ("C", &["-wmL"]),
        ("C.UTF-8", &["-l"]),
        ("C.UTF-8", &["-w", "-m", "-L"]),
        ("C.UTF-8", &["-m"]),
        ("C.UTF-8", &["-L"]),
        ("C.UTF-8", &[]),
    ] {
        let [_, mut gnu] = pair(locale);
        gnu.args(opts).args(&inputs);
        let expected = run_piped(gnu, None);
        assert_eq!(expected.status, "exit 0");
        let mut seen = Vec::new();
        let kernels = ["portable", "neon", "sse2", "ssse3", "avx2", "avx512"];
        for kernel in kernels {
            let [mut mine, _] = pair(locale);
            mine.env("RAPIDUTILS_SIMD", kernel).args(opts).arg("--debug").args(&inputs);
            let out = run_piped(mine, None);
            let label = format!("{locale} {opts:?} {kernel}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&expected.stdout), "{label}");
            seen.push(out.stderr_text());
        }
        if opts == ["-l"] {
            // The portable kernel always runs when asked; without the `portable` feature, SSE2
            // does too on x86-64 and NEON on aarch64 (the rest as the CPU allows).
            let said = |kernel: &str| &seen[kernels.iter().position(|k| *k == kernel).unwrap()];
            assert!(said("portable").contains("RAPIDUTILS_SIMD: using portable\n"), "{seen:?}");
            if arch() == "x86_64" && !cfg!(feature = "portable") {
                assert!(said("sse2").contains("RAPIDUTILS_SIMD: using sse2\n"), "{seen:?}");
            } else if arch() == "aarch64" && !cfg!(feature = "portable") {
                assert!(said("neon").contains("RAPIDUTILS_SIMD: using neon\n"), "{seen:?}");
            } else {
                assert!(seen.iter().all(|s| s.contains("RAPIDUTILS_SIMD: using portable\n")), "{seen:?}");
            }
            // A kernel that was asked for and did not run was compared above only as a name
            // that falls back: say so.
            for (kernel, said) in kernels.iter().zip(&seen) {
                let this_arch = if arch() == "aarch64" {
                    *kernel == "neon"
                } else {
                    kernel.starts_with("avx") || *kernel == "ssse3"
                };
                if this_arch
                    && !cfg!(feature = "portable")
                    && !said.contains(&format!("RAPIDUTILS_SIMD: using {kernel}\n"))
                {
                    skipped(
                        "wc_diff::every_simd_kernel_counts_the_same",
                        &format!("the {kernel} kernel"),
                        &not_run(kernel),
                    );
                }
            }
        }
    }
}

/// A locale compiled by `localedef` into `dir` (a private LOCPATH), e.g. ja_JP + EUC-JP.
fn make_locale(dir: &TempDir, source: &str, charmap: &str) -> String {
    let name = format!("{source}.{charmap}");
    let status = Command::new("localedef")
        .args(["-i", source, "-f", charmap])
        .arg(dir.0.join(&name))
        .stderr(Stdio::null())
        .status()
        .expect("localedef (libc-bin) and the locale sources (package 'locales') are needed: make test-deps");
    // localedef exits 1 for warnings (it still writes the locale); the check below decides.
    assert!(status.code().is_some_and(|c| c <= 1), "localedef {name}: {status}");
    name
}

#[test]
fn other_multibyte_locales_go_through_mbrtowc_as_gnu() {
    // EUC-JP and GB18030: not UTF-8, so the C library's mbrtowc decides, for GNU and for us.
    let dir = TempDir::new("wc-mb");
    let euc = make_locale(&dir, "ja_JP", "EUC-JP");
    let gb = make_locale(&dir, "zh_CN", "GB18030");
    let euc_pieces: &[&[u8]] = &[
        b"a",
        b"word",
        b" ",
        b"\n",
        b"\t",
        b"\r",
        b"\xc6\xfc\xcb\xdc\xb8\xec", // 日本語
        b"\xa1\xa1",                 // ideographic space
        b"\x8e\xb1",                 // half-width katakana
        b"\x8f\xb0\xa1",             // JIS X 0212
        b"\xa4\xa2\xa4\xa4",         // あい
        b"\xff",
        b"\x8e",
        b"\xa1",
        b"\x8f\xb0",
        b"\x80",
    ];
    let gb_pieces: &[&[u8]] = &[
        b"a",
        b"word",
        b" ",
        b"\n",
        b"\t",
        b"\x0c",
        b"\xc4\xe3\xba\xc3", // 你好
        b"\xa1\xa1",         // ideographic space
        b"\x81\x30\x81\x30", // four bytes: U+0080
        b"\x95\x32\x82\x36", // four bytes: U+10000
        b"\x84\x31\xa4\x39", // four bytes: U+FFFF
        b"\xa8\xa6",         // é
        b"\xff",
        b"\x81",
        b"\x81\x30",
        b"\x80",
        b"\x81\x30\x81",
    ];
    // Only LC_CTYPE: with LC_ALL, GNU would also translate its messages ("total"), which
    // rapidutils does not (see docs/COMPATIBILITY.md).
    let pair = |locale: &str| {
        let [mut mine, mut gnu] = pair("C");
        for cmd in [&mut mine, &mut gnu] {
            cmd.env_remove("LC_ALL").env("LC_CTYPE", locale).env("LOCPATH", &dir.0);
        }
        [mine, gnu]
    };
    for (locale, pieces) in [(&euc, euc_pieces), (&gb, gb_pieces)] {
        let mut files = Vec::new();
        for k in 0..6u64 {
            let name = format!("{locale}-{k}");
            files
                .push(dir.file(&name, &text_from(pieces, 200 + 2000 * k as usize + (k as usize / 5) * 300_000, k + 1)));
        }
        // The locale must really be in force for the oracle: one character, one column pair.
        let [_, mut probe] = pair(locale);
        probe.arg("-m");
        let sample = if locale == &euc { &b"\xc6\xfc"[..] } else { b"\xc4\xe3" };
        assert_eq!(run_piped(probe, Some(sample)).stdout, b"1\n", "{locale} not in force");
        for opts in [&["-l", "-w", "-m", "-c", "-L"][..], &["-w"], &["-m"], &["-L"], &["-wL"], &[]] {
            let [mut mine, mut gnu] = pair(locale);
            for cmd in [&mut mine, &mut gnu] {
                cmd.args(opts).args(&files);
            }
            compare(&format!("{locale} {opts:?} files"), run_piped(mine, None), run_piped(gnu, None));
            // Through a pipe GNU 9.12's counts in these locales depend on where its reads end
            // (the same 310 kB give other counts when a pipe delivers 64 KiB at a time: see
            // docs/COMPATIBILITY.md), so pipes get an input that arrives in one read.
            let input = std::fs::read(&files[3]).unwrap();
            let [mut mine, mut gnu] = pair(locale);
            for cmd in [&mut mine, &mut gnu] {
                cmd.args(opts);
            }
            compare(&format!("{locale} {opts:?} pipe"), run_piped(mine, Some(&input)), run_piped(gnu, Some(&input)));
        }
    }
}

/// A character straddling GNU 9.12's first 256 KiB read: GNU decodes its last bytes again and
/// miscounts (see docs/COMPATIBILITY.md); rapidutils counts it once, as one pass of `mbrtowc`
/// over the whole file does. The expected counts are built with the file: `a` × N, a
/// character, the tail's characters and columns.
#[test]
fn characters_across_gnus_reads_count_once() {
    let dir = TempDir::new("wc-straddle");
    // (locale, N, bytes after the a's, characters and columns they add)
    for (locale, n, tail, chars, columns) in [
        // あ (two columns), a lone lead byte (invalid: nothing), x y z, a newline.
        ("ja_JP.EUC-JP", 262_143, &b"\xa4\xa2\xa4xyz\n"[..], 5, 5),
        ("ko_KR.EUC-KR", 262_143, b"\xb0\xa1\xb0xyz\n", 5, 5),
        // U+0080, a control character (no column).
        ("zh_CN.GB18030", 262_141, b"\x81\x30\x81\x30xyz\n", 5, 3),
        ("zh_TW.BIG5", 262_143, b"\xa4\x40xyz\n", 5, 5),
    ] {
        let mut data = vec![b'a'; n];
        data.extend_from_slice(tail);
        let path = dir.file(locale, &data);
        let [mut mine, _] = pair(locale);
        mine.arg("-mL").arg(&path);
        let got = run_piped(mine, None);
        let want = format!("{} {} {}\n", n + chars, n + columns, path.display());
        assert_eq!(got.stdout_text(), want, "{locale}: {}", got.stderr_text());
    }
}

#[test]
fn large_files_counted_on_two_threads_as_on_one() {
    // Files of 64 MiB or more are counted on two threads (when two CPUs may be used), the
    // second taking 4 MiB chunks from the end, each cut after a line end; the counts must be
    // GNU's, also where lines are longer than a chunk.
    let dir = TempDir::new("wc-halves");
    let mut block = String::new();
    for i in 0..2000 {
        block.push_str(&format!("{i}\tcafé 日本語 —\u{3000}x\u{a0}y {}\r\n", "word ".repeat(i % 37)));
    }
    let text = block.as_bytes().repeat((70 << 20) / block.len() + 1);
    let text = dir.file("text", &text);
    // One line of 70 MiB: no line end to cut after.
    let line = dir.file("line", &b"ab \xce\xb1 ".repeat(10 << 20));
    // Lines of 1 to 9 MiB between short ones, multibyte characters and broken ones at every
    // place a chunk could begin.
    let mut long = Vec::new();
    for (i, mib) in [3, 9, 1, 5, 7, 2, 9, 4, 6, 8, 3, 5, 9].iter().enumerate() {
        long.extend(b"x \xe6\x97\xa5\xe2\x80".iter().cycle().take((mib << 20) + i * 4099));
        long.extend_from_slice(b"\n\xce\xb1 short\n\n");
    }
    let long = dir.file("long", &long);
    for (locale, opts) in [("C", &["-l"][..]), ("C.UTF-8", &[]), ("C.UTF-8", &["-m", "-L"]), ("C", &["-wL"])] {
        let [mut mine, mut gnu] = pair(locale);
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(opts).arg(&text).arg(&line).arg(&long);
        }
        compare(&format!("{locale} {opts:?}"), run_piped(mine, None), run_piped(gnu, None));
    }
    // The second thread really ran, and counted (its reads are the only preads) where two
    // CPUs may be used.
    if std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2 {
        let out = Command::new("strace")
            .args(["-f", "-e", "trace=clone,clone3,pread64", "-o", "/dev/stdout"])
            .arg(ours("wc"))
            .arg("-l")
            .arg(&text)
            .stderr(Stdio::null())
            .output()
            .expect("strace");
        let trace = String::from_utf8_lossy(&out.stdout);
        assert!(trace.contains("clone"), "no thread: {trace}");
        assert!(trace.contains("pread64("), "the second thread counted nothing: {trace}");
    }
}

/// Every code point of Unicode between letters, in C.UTF-8: words (which characters separate
/// them: the byte patterns of the multibyte spaces must cover every space the C library knows),
/// characters and widths against GNU, in files below GNU's 256 KiB reads. Also a file of the
/// characters alone, cut by our 64 KiB reads, for -m and -L.
#[test]
fn every_code_point_counts_as_gnu_counts_it() {
    let dir = TempDir::new("wc-every-cp");
    let mut files = Vec::new();
    let mut text = Vec::new();
    let mut bare = Vec::new();
    let mut buf = [0u8; 4];
    for cp in (0x20..0x11_0000u32).filter_map(char::from_u32) {
        let ch = cp.encode_utf8(&mut buf).as_bytes();
        text.push(b'x');
        text.extend_from_slice(ch);
        text.extend_from_slice(b"y\n");
        bare.extend_from_slice(ch);
        if u32::from(cp) % 64 == 63 {
            bare.push(b'\n');
        }
        if text.len() > 200_000 {
            files.push(dir.file(&format!("cp{}", files.len()), &text));
            text.clear();
        }
    }
    files.push(dir.file(&format!("cp{}", files.len()), &text));
    // The characters alone: over 1 MiB, so counted from a mapping, cut at its pieces.
    let bare = dir.file("bare", &bare);
    for opts in [&["-w"][..], &["-m"], &["-L"], &["-wmL"], &[]] {
        let [mut mine, mut gnu] = pair("C.UTF-8");
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(opts).args(&files);
        }
        compare(&format!("{opts:?} every code point"), run_piped(mine, None), run_piped(gnu, None));
    }
    for opts in [&["-m"][..], &["-L"], &["-mL"]] {
        let [mut mine, mut gnu] = pair("C.UTF-8");
        for cmd in [&mut mine, &mut gnu] {
            cmd.args(opts).arg(&bare);
        }
        compare(&format!("{opts:?} every code point, bare"), run_piped(mine, None), run_piped(gnu, None));
    }
}

/// The benchmark corpora (`benches/corpora.py`: Cyrillic, Greek, Arabic, Devanagari, Chinese,
/// Japanese, Korean, emoji, mixed, 1 % invalid), about 1.5 MB each, generated once per target
/// directory with python3.
fn corpora() -> Vec<(String, Vec<u8>)> {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("corpora-1500000");
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/corpora.py");
        let out = Command::new(require_program("python3")).arg(script).arg(&dir).arg("1500000").output().unwrap();
        assert!(out.status.success(), "corpora.py: {}", String::from_utf8_lossy(&out.stderr));
        dir
    });
    let mut all: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap()))
        .collect();
    all.sort();
    assert_eq!(all.len(), 10, "corpora in {}", dir.display());
    all
}

/// The numbers on each line of wc's output.
fn numbers(out: &Outcome) -> Vec<Vec<u64>> {
    out.stdout_text().lines().map(|l| l.split_whitespace().filter_map(|w| w.parse().ok()).collect()).collect()
}

/// Every corpus, in C.UTF-8 and en_US.UTF-8, with every kernel, from a file (over 1 MiB:
/// counted from a mapping, cut at its pieces and windows) and from a pipe, shifted by 0, 1 and
/// 63 bytes so that every character lands on every side of a chunk boundary somewhere, and a
/// 4.5 MB copy that crosses mapping windows. GNU counts each variant in pieces of less than
/// 64 KiB cut at line ends (lines, words and characters add up; the longest line is the
/// largest), which keeps clear of its bug at read boundaries (see docs/COMPATIBILITY.md).
#[test]
fn every_corpus_counts_as_gnu_in_every_kernel() {
    let dir = TempDir::new("wc-corpora");
    let fields = ["-l", "-w", "-m", "-c", "-L"];
    // Which of GNU's five counts each option set prints, in wc's order.
    let option_sets: [(&[&str], &[usize]); 6] = [
        (&["-l"], &[0]),
        (&["-w"], &[1]),
        (&["-m"], &[2]),
        (&["-L"], &[4]),
        (&[], &[0, 1, 3]),
        (&["-lwmcL"], &[0, 1, 2, 3, 4]),
    ];
    for (name, text) in corpora() {
        let variants: Vec<Vec<u8>> =
            vec![text.clone(), text[1..].to_vec(), text[63..].to_vec(), [&text[7..], &text[..], &text[..]].concat()];
        for locale in ["C.UTF-8", "en_US.UTF-8"] {
            // GNU's five counts for each variant, from pieces below 64 KiB.
            let mut expected = Vec::new();
            for (v, data) in variants.iter().enumerate() {
                let mut pieces = Vec::new();
                let mut rest = &data[..];
                while !rest.is_empty() {
                    let cut = if rest.len() <= 60_000 {
                        rest.len()
                    } else {
                        rest[..60_000].iter().rposition(|&b| b == b'\n').expect("a line end in 60 KB") + 1
                    };
                    pieces.push(dir.file(&format!("{name}-{v}-{}", pieces.len()), &rest[..cut]));
                    rest = &rest[cut..];
                }
                let [_, mut gnu] = pair(locale);
                gnu.args(fields).args(&pieces);
                let out = run_piped(gnu, None);
                assert_eq!(out.status, "exit 0", "{name}: {}", out.stderr_text());
                let total = numbers(&out).pop().unwrap();
                assert_eq!(total.len(), 5, "{name}: {}", out.stdout_text());
                expected.push(total);
                for p in pieces {
                    std::fs::remove_file(p).unwrap();
                }
            }
            let files: Vec<_> = variants.iter().enumerate().map(|(v, d)| dir.file(&format!("{name}{v}"), d)).collect();
            for (opts, picked) in option_sets {
                let want: Vec<Vec<u64>> =
                    expected.iter().map(|counts| picked.iter().map(|&i| counts[i]).collect()).collect();
                for kernel in kernels("wc_diff::every_corpus_counts_as_gnu_in_every_kernel") {
                    let label = format!("{name} {locale} {opts:?} {kernel}");
                    let [mut mine, _] = pair(locale);
                    mine.env("RAPIDUTILS_SIMD", kernel).args(opts).args(&files);
                    let out = run_piped(mine, None);
                    assert_eq!(out.status, "exit 0", "{label}: {}", out.stderr_text());
                    let got = numbers(&out);
                    assert_eq!(&got[..files.len()], &want[..], "{label}, files");
                    let [mut mine, _] = pair(locale);
                    mine.env("RAPIDUTILS_SIMD", kernel).args(opts);
                    let out = run_piped(mine, Some(&variants[1]));
                    assert_eq!(numbers(&out), [want[1].clone()], "{label}, pipe");
                }
            }
        }
    }
}
