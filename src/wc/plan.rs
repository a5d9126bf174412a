//! Which path counts an input: one pure function of what is wanted, the locale's encoding and
//! what `fstat` said of the input, so that every choice is tested without files or a clock.
//!
//! | wanted (after the locale)                     | path      | how                                          |
//! |-----------------------------------------------|-----------|----------------------------------------------|
//! | bytes alone (`-c`; `-m` in a single-byte locale, where a character is a byte) | `Bytes` | a regular file's size (no read), a pipe spliced to /dev/null, else reads |
//! | lines, with or without bytes                   | `Lines`   | a SIMD count of LF bytes                      |
//! | words, widths, or characters in a multibyte locale | `Counter(pass)` | the full counter (`count::Counter`), going through each chunk as the locale's classes let it (`count::pass`) |
//!
//! `Lines` and `Counter` run on one thread, or on two ([`Path::TwoThreads`]) for a file wc
//! opened itself of at least [`PARALLEL_MIN`] where the process may use two CPUs, the second
//! taking chunks from the end. The one choice left to run time is how a regular file is taken
//! in, mapped or read: whichever is cheaper on this machine now, measured on the input's
//! first windows (`common::regular_file`).

use super::count::{ClassShape, Pass, Want, pass};
use crate::platform::{Charset, FileInfo, FileKind};

/// Named regular files at least this large are counted on two threads, when the process may
/// run on two CPUs or more (not when pinned to one).
pub(super) const PARALLEL_MIN: u64 = 64 << 20;

/// What one thread counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Count {
    /// Lines, and bytes if wanted.
    Lines,
    /// The full counter, going through each chunk as the pass says.
    Counter(Pass),
}

/// Whether the counts wanted are bytes alone ([`Path::Bytes`]): no lines, words or widths,
/// and characters only where they are bytes.
pub(super) fn bytes_only(want: Want, charset: Charset) -> bool {
    chars_are_bytes(want, charset) && !want.words && !want.max_line_length && !want.lines
}

/// The whole path of one input: `count_fd` and the counter only carry it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Path {
    /// Bytes alone.
    Bytes,
    /// Counted on this thread.
    OneThread(Count),
    /// Counted on this thread from the front and on a second from the end.
    TwoThreads(Count),
}

/// Whether the characters are the bytes (and are not counted apart).
pub(super) fn chars_are_bytes(want: Want, charset: Charset) -> bool {
    !(charset != Charset::Unibyte && want.chars)
}

/// The path for an input of which `fstat` said `input` (None: it failed); `named`: a file wc
/// opened itself (at offset 0; its offset does not matter afterwards); `shape`: that of the
/// locale's classes, loaded where words, characters or widths are wanted;
/// `two_cpus`: whether the process may run on two CPUs, asked only of a large named file
/// (the question costs system calls).
pub(super) fn plan(
    want: Want,
    charset: Charset,
    shape: Option<ClassShape>,
    input: Option<&FileInfo>,
    named: bool,
    two_cpus: impl FnOnce() -> bool,
) -> Path {
    if bytes_only(want, charset) {
        return Path::Bytes;
    }
    let count = if !chars_are_bytes(want, charset) || want.words || want.max_line_length {
        let shape = shape.expect("words, characters or widths load the classes");
        Count::Counter(pass(want, charset, shape))
    } else {
        Count::Lines
    };
    let large_file = input.is_some_and(|info| info.kind == FileKind::Regular && info.size >= PARALLEL_MIN);
    match named && large_file && two_cpus() {
        true => Path::TwoThreads(count),
        false => Path::OneThread(count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(kind: FileKind, size: u64) -> FileInfo {
        FileInfo { kind, size, dev: 0, ino: 0, blksize: 4096 }
    }

    /// Every set of options (2^5), in each kind of locale and shape of its classes, for each
    /// kind of input and size, named or not, on one CPU or two, against the rules written
    /// out one by one.
    #[test]
    fn every_option_set_locale_and_input_takes_its_path() {
        let kinds = [FileKind::Regular, FileKind::Pipe, FileKind::CharDevice, FileKind::Directory, FileKind::Other];
        let shapes = [(false, false), (false, true), (true, false), (true, true)]
            .map(|(standard_spaces, standard_print)| ClassShape { standard_spaces, standard_print });
        for bits in 0u8..32 {
            let want = Want {
                lines: bits & 1 != 0,
                words: bits & 2 != 0,
                chars: bits & 4 != 0,
                bytes: bits & 8 != 0,
                max_line_length: bits & 16 != 0,
            };
            for charset in [Charset::Unibyte, Charset::Utf8, Charset::Multibyte] {
                for shape in shapes {
                    let multibyte = charset != Charset::Unibyte;
                    let expected = if want.words || want.max_line_length || (multibyte && want.chars) {
                        Some(Count::Counter(pass(want, charset, shape)))
                    } else if want.lines {
                        Some(Count::Lines)
                    } else {
                        None
                    };
                    let needs_locale = want.words || want.chars || want.max_line_length;
                    let inputs = kinds
                        .iter()
                        .flat_map(|&k| [0, PARALLEL_MIN - 1, PARALLEL_MIN, 1 << 40].map(|size| Some(info(k, size))))
                        .chain([None]);
                    for input in inputs {
                        for (named, cpus) in [(false, false), (false, true), (true, false), (true, true)] {
                            let mut asked = false;
                            let two_cpus = || {
                                asked = true;
                                cpus
                            };
                            let got =
                                plan(want, charset, needs_locale.then_some(shape), input.as_ref(), named, two_cpus);
                            let big_regular =
                                input.is_some_and(|i| i.kind == FileKind::Regular && i.size >= PARALLEL_MIN);
                            let want_path = match expected {
                                None => Path::Bytes,
                                Some(count) if named && big_regular && cpus => Path::TwoThreads(count),
                                Some(count) => Path::OneThread(count),
                            };
                            let case = format!("{want:?} {charset:?} {shape:?} {input:?} named {named} cpus {cpus}");
                            assert_eq!(got, want_path, "{case}");
                            assert_eq!(asked, expected.is_some() && named && big_regular, "asked: {case}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn characters_are_bytes_unless_counted_in_a_multibyte_locale() {
        let chars = Want { chars: true, ..Want::default() };
        assert!(chars_are_bytes(chars, Charset::Unibyte));
        assert!(!chars_are_bytes(chars, Charset::Utf8));
        assert!(!chars_are_bytes(chars, Charset::Multibyte));
        assert!(chars_are_bytes(Want { bytes: true, ..Want::default() }, Charset::Utf8));
    }
}
