//! Which path counts an input: one pure function of what is wanted, the locale's encoding and
//! what `fstat` said of the input, so that every choice is tested without files or a clock.
//!
//! | wanted (after the locale)                     | method    | how                                          |
//! |-----------------------------------------------|-----------|----------------------------------------------|
//! | bytes alone (`-c`; `-m` in a single-byte locale, where a character is a byte) | `Bytes` | a regular file's size (no read), a pipe spliced to /dev/null, else reads |
//! | lines, with or without bytes                   | `Lines`   | a SIMD count of LF bytes                      |
//! | words, widths, or characters in a multibyte locale | `Counter` | the full counter (`count::Counter`)      |
//!
//! `Lines` and `Counter` take in a regular file by the cheaper of mapping and reading here
//! (`common::regular_file`), and a file wc opened itself of at least [`PARALLEL_MIN`] is
//! counted on two threads where the process may use two CPUs (asked only then: the question
//! costs system calls), the second taking chunks from the end.

use super::count::Want;
use crate::platform::{Charset, FileInfo, FileKind};

/// Named regular files at least this large are counted on two threads, when the process may
/// run on two CPUs or more (not when pinned to one).
pub(super) const PARALLEL_MIN: u64 = 64 << 20;

/// How an input's counts are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Method {
    /// Bytes alone.
    Bytes,
    /// Lines, and bytes if wanted.
    Lines,
    /// The full counter.
    Counter,
}

/// The path for one input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub method: Method,
    /// Counted on two threads, if the process may use two CPUs.
    pub two_threads: bool,
}

impl Plan {
    /// Whether the characters are the bytes (and are not counted apart).
    pub fn chars_are_bytes(want: Want, charset: Charset) -> bool {
        !(charset != Charset::Unibyte && want.chars)
    }
}

/// The path for an input of which `fstat` said `input` (None: it failed); `named`: a file wc
/// opened itself (at offset 0; its offset does not matter afterwards).
pub(super) fn plan(want: Want, charset: Charset, input: Option<&FileInfo>, named: bool) -> Plan {
    let chars_apart = !Plan::chars_are_bytes(want, charset);
    let method = if chars_apart || want.words || want.max_line_length {
        Method::Counter
    } else if want.lines {
        Method::Lines
    } else {
        Method::Bytes
    };
    let large_file = input.is_some_and(|info| info.kind == FileKind::Regular && info.size >= PARALLEL_MIN);
    Plan { method, two_threads: method != Method::Bytes && named && large_file }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(kind: FileKind, size: u64) -> FileInfo {
        FileInfo { kind, size, dev: 0, ino: 0, blksize: 4096 }
    }

    /// Every set of options (2^5), in each kind of locale, for each kind of input and size,
    /// named or not, against the rules written out one by one.
    #[test]
    fn every_option_set_locale_and_input_takes_its_path() {
        let kinds = [FileKind::Regular, FileKind::Pipe, FileKind::CharDevice, FileKind::Directory, FileKind::Other];
        for bits in 0u8..32 {
            let want = Want {
                lines: bits & 1 != 0,
                words: bits & 2 != 0,
                chars: bits & 4 != 0,
                bytes: bits & 8 != 0,
                max_line_length: bits & 16 != 0,
            };
            for charset in [Charset::Unibyte, Charset::Utf8, Charset::Multibyte] {
                let multibyte = charset != Charset::Unibyte;
                let expected = if want.words || want.max_line_length || (multibyte && want.chars) {
                    Method::Counter
                } else if want.lines {
                    Method::Lines
                } else {
                    Method::Bytes
                };
                let inputs = kinds
                    .iter()
                    .flat_map(|&k| [0, PARALLEL_MIN - 1, PARALLEL_MIN, 1 << 40].map(|size| Some(info(k, size))))
                    .chain([None]);
                for input in inputs {
                    for named in [false, true] {
                        let got = plan(want, charset, input.as_ref(), named);
                        let big_regular = input.is_some_and(|i| i.kind == FileKind::Regular && i.size >= PARALLEL_MIN);
                        let two_threads = expected != Method::Bytes && named && big_regular;
                        let want_plan = Plan { method: expected, two_threads };
                        assert_eq!(got, want_plan, "{want:?} {charset:?} {input:?} {named}");
                    }
                }
            }
        }
    }

    #[test]
    fn characters_are_bytes_unless_counted_in_a_multibyte_locale() {
        let chars = Want { chars: true, ..Want::default() };
        assert!(Plan::chars_are_bytes(chars, Charset::Unibyte));
        assert!(!Plan::chars_are_bytes(chars, Charset::Utf8));
        assert!(!Plan::chars_are_bytes(chars, Charset::Multibyte));
        assert!(Plan::chars_are_bytes(Want { bytes: true, ..Want::default() }, Charset::Utf8));
    }
}
