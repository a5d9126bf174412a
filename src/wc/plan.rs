//! Which path counts an input, decided in one place: what to count once per run ([`count`]: the options, the locale's
//! encoding, the shape of its classes), then for each input how to take it in ([`path`]: what `fstat` said of it).
//! Both are pure functions, so every choice is tested without files or a clock; `input` carries the path out.
//!
//! | counted ([`Count`])                           | input                | path ([`Path`])                              |
//! |-----------------------------------------------|----------------------|----------------------------------------------|
//! | `Bytes`: `-c`, or `-m` in a single-byte locale (a character is a byte) | regular file | `Size`: its size, no read |
//! | `Bytes`                                       | pipe (Linux)         | `Splice`: its pages moved to /dev/null        |
//! | `Lines`: lines, with or without bytes: a SIMD count of LF bytes | regular file | `File`, or `TwoThreads` for a file wc opened of at least [`PARALLEL_MIN`] where the process may use two CPUs |
//! | `Counter(pass)`: words, widths, or characters in a multibyte locale, by the full counter (`count::Counter`) going through each chunk as the pass says | regular file | as `Lines` |
//! | any                                           | anything else        | `Read`                                       |
//!
//! The one choice left to run time: whether a regular file is mapped or read, the cheaper here and now (`input`).

use super::count::{ClassShape, Pass, Want, pass};
use crate::platform::{self, Charset, FileInfo, FileKind};

/// Named regular files at least this large are counted on two threads if the process may use two CPUs (not pinned).
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

/// What is counted for `want` in a `charset` locale whose classes have `shape` (loaded for -w, -m, -L).
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
    /// A regular file on this thread from its start, and on a second thread from its end.
    TwoThreads(Count, FileInfo),
    /// Read to its end on this thread.
    Read(Count),
}

/// The path for an input (`input`: its `fstat`, or None). `named`: wc opened it, so its offset does not matter after.
/// `two_cpus`: whether the process may use two CPUs, asked only of a large named file (it costs syscalls).
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

    /// The classes are loaded only where words, characters or widths are wanted (`Counting::new`):
    /// no count that needs them is planned without them, nor the counter for lines and bytes.
    #[test]
    fn a_count_needs_the_classes_only_where_they_are_loaded() {
        let shape = ClassShape { standard_spaces: true, standard_print: true };
        for bits in 0u8..32 {
            let want = Want {
                lines: bits & 1 != 0,
                words: bits & 2 != 0,
                chars: bits & 4 != 0,
                bytes: bits & 8 != 0,
                max_line_length: bits & 16 != 0,
            };
            for charset in [Charset::Unibyte, Charset::Utf8, Charset::Multibyte] {
                let loaded = want.words || want.chars || want.max_line_length;
                let got = count(want, charset, loaded.then_some(shape));
                let case = format!("{want:?} {charset:?}: {got:?}");
                let counter = matches!(got, Count::Counter(_));
                assert!(loaded || !counter, "{case}");
                assert_eq!(counter, want.words || want.max_line_length || charset != Charset::Unibyte && want.chars);
                assert!(got != Count::Lines || want.lines, "{case}");
                assert!(got != Count::Bytes || !want.lines, "{case}");
            }
        }
    }

    /// Asking whether two CPUs may be used costs syscalls: only a count that reads a large
    /// regular file wc opened itself asks, and only such a file is split between two threads
    /// (tests/wc_shape.rs checks each path's syscalls).
    #[test]
    fn only_a_large_named_regular_file_asks_for_two_cpus() {
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
                    let big = input.is_some_and(|i| i.kind == FileKind::Regular && i.size >= PARALLEL_MIN);
                    let case = format!("{c:?} {input:?} named {named} cpus {cpus}");
                    assert_eq!(asked, c != Count::Bytes && named && big, "asked: {case}");
                    assert_eq!(matches!(got, Path::TwoThreads(..)), asked && cpus, "{case}");
                }
            }
        }
    }
}
