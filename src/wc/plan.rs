//! Which path counts an input, decided in one place: what to count once per run ([`count`]:
//! the options, the locale's encoding, the shape of its classes), then for each input how
//! to take it in ([`path`]: what `fstat` said of it). Both are pure functions, so every choice
//! is tested without files or a clock; `input` carries the path out.
//!
//! | counted ([`Count`])                           | input                | path ([`Path`])                              |
//! |-----------------------------------------------|----------------------|----------------------------------------------|
//! | `Bytes`: `-c`, or `-m` in a single-byte locale (a character is a byte) | regular file | `Size`: its size, no read |
//! | `Bytes`                                       | pipe (Linux)         | `Splice`: its pages moved to /dev/null        |
//! | `Lines`: lines, with or without bytes: a SIMD count of LF bytes | regular file | `File`, or `TwoThreads` for a file wc opened of at least [`PARALLEL_MIN`] where the process may use two CPUs |
//! | `Counter(pass)`: words, widths, or characters in a multibyte locale, by the full counter (`count::Counter`) going through each chunk as the pass says | regular file | as `Lines` |
//! | any                                           | anything else        | `Read`                                       |
//!
//! The one choice left to run time is how a regular file is taken in, mapped or read:
//! whichever is cheaper on this machine now, measured on the input's first stretches
//! (`input`).

use super::count::{ClassShape, Pass, Want, pass};
use crate::platform::{self, Charset, FileInfo, FileKind};

/// Named regular files at least this large are counted on two threads, when the process may
/// run on two CPUs or more (not when pinned to one).
pub(super) const PARALLEL_MIN: u64 = 64 << 20;

/// What is counted, the same for every input of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Count {
    /// Bytes alone (characters too where they are bytes).
    Bytes,
    /// Lines, and bytes if wanted.
    Lines,
    /// The full counter, going through each chunk as the pass says.
    Counter(Pass),
}

/// What is counted for `want` in a locale of `charset` whose classes have `shape` (loaded
/// where words, characters or widths are wanted).
pub(super) fn count(want: Want, charset: Charset, shape: Option<ClassShape>) -> Count {
    let chars_are_bytes = charset == Charset::Unibyte || !want.chars;
    if !chars_are_bytes || want.words || want.max_line_length {
        let shape = shape.expect("words, characters or widths load the classes");
        Count::Counter(pass(want, charset, shape))
    } else if want.lines {
        Count::Lines
    } else {
        Count::Bytes
    }
}

/// How one input is taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Path {
    /// Bytes alone of a regular file, from its size (what the size leaves unsaid is read).
    Size(FileInfo),
    /// Bytes alone of a pipe, its pages moved to /dev/null (read where that is not supported).
    Splice,
    /// A regular file, mapped or read, on this thread.
    File(Count, FileInfo),
    /// A regular file on this thread from the front and on a second from the end.
    TwoThreads(Count, FileInfo),
    /// Read to its end on this thread.
    Read(Count),
}

/// The path for an input of which `fstat` said `input` (None: it failed); `named`: a file wc
/// opened itself (at offset 0; its offset does not matter afterwards); `two_cpus`: whether the
/// process may run on two CPUs, asked only of a large named file (the question costs system
/// calls).
pub(super) fn path(count: Count, input: Option<FileInfo>, named: bool, two_cpus: impl FnOnce() -> bool) -> Path {
    let Some(info) = input else { return Path::Read(count) };
    match (count, info.kind) {
        (Count::Bytes, FileKind::Regular) => Path::Size(info),
        (Count::Bytes, FileKind::Pipe) if platform::ZERO_COPY => Path::Splice,
        (Count::Bytes, _) => Path::Read(count),
        (_, FileKind::Regular) if named && info.size >= PARALLEL_MIN && two_cpus() => Path::TwoThreads(count, info),
        (_, FileKind::Regular) => Path::File(count, info),
        _ => Path::Read(count),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(kind: FileKind, size: u64) -> FileInfo {
        FileInfo { kind, size, dev: 0, ino: 0, blksize: 4096 }
    }

    /// Every set of options (2^5), in each kind of locale and shape of its classes, against
    /// the rules written out one by one.
    #[test]
    fn every_option_set_and_locale_counts_its_way() {
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
                        Count::Counter(pass(want, charset, shape))
                    } else if want.lines {
                        Count::Lines
                    } else {
                        Count::Bytes
                    };
                    let needs_locale = want.words || want.chars || want.max_line_length;
                    let got = count(want, charset, needs_locale.then_some(shape));
                    assert_eq!(got, expected, "{want:?} {charset:?} {shape:?}");
                }
            }
        }
    }

    /// Each count, for each kind of input and size, named or not, on one CPU or two.
    #[test]
    fn every_input_takes_its_path() {
        let kinds = [FileKind::Regular, FileKind::Pipe, FileKind::CharDevice, FileKind::Directory, FileKind::Other];
        let inputs = kinds
            .iter()
            .flat_map(|&k| [0, PARALLEL_MIN - 1, PARALLEL_MIN, 1 << 40].map(|size| Some(info(k, size))))
            .chain([None]);
        let pass = pass(
            Want { words: true, ..Want::default() },
            Charset::Utf8,
            ClassShape { standard_spaces: true, standard_print: true },
        );
        for input in inputs {
            for c in [Count::Bytes, Count::Lines, Count::Counter(pass)] {
                for (named, cpus) in [(false, false), (false, true), (true, false), (true, true)] {
                    let mut asked = false;
                    let two_cpus = || {
                        asked = true;
                        cpus
                    };
                    let got = path(c, input, named, two_cpus);
                    let regular = input.filter(|i| i.kind == FileKind::Regular);
                    let big = regular.is_some_and(|i| i.size >= PARALLEL_MIN);
                    let expected = match (c, input.map(|i| i.kind), regular) {
                        (Count::Bytes, _, Some(info)) => Path::Size(info),
                        (Count::Bytes, Some(FileKind::Pipe), _) if platform::ZERO_COPY => Path::Splice,
                        (Count::Bytes, _, _) => Path::Read(c),
                        (_, _, Some(info)) if named && big && cpus => Path::TwoThreads(c, info),
                        (_, _, Some(info)) => Path::File(c, info),
                        _ => Path::Read(c),
                    };
                    let case = format!("{c:?} {input:?} named {named} cpus {cpus}");
                    assert_eq!(got, expected, "{case}");
                    assert_eq!(asked, c != Count::Bytes && named && big, "asked: {case}");
                }
            }
        }
    }
}
