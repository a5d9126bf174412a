//! How the counter goes through a chunk: one pure function of what is wanted, the locale's encoding and the shape of
//! its byte classes, chosen once per run, so that every choice is tested without a file or a C library.
//!
//! | wanted (after the locale) | pass | how |
//! |---|---|---|
//! | classes or encoding the masks do not fit (other multibyte encodings, unusual ASCII white space; `-L` with unusual printable ASCII) | `Gnu` | GNU's loop, byte by byte or character by character |
//! | `-L` | `Widths` | alone (no `-w`, no `-m` in UTF-8): windows skipped while no line can pass the longest (`width_run`); with `-w` or `-m` in UTF-8, each window measured by table look-ups, its characters from the starts of valid forms and its words by masks and byte patterns (`widths_run`); then windows measured exactly |
//! | single-byte locale | `Unibyte` | words by masks and line ends in a tally (`unibyte_words_run`); then windows by masks |
//! | UTF-8, no `-w` | `Utf8Chars` | valid windows' characters from masks (`chars_run`); then windows, valid ones by masks |
//! | UTF-8, `-w` without `-m` | `Utf8Words` | white space by masks and byte patterns, batches of windows (`words_run`); then windows |
//! | UTF-8, `-w` and `-m` | `Utf8Windows` | windows, visiting only the bytes that may begin a character |
//!
//! Whatever the pass, GNU's loop takes window tails and characters cut by a chunk's end.

use super::Want;
use crate::platform::Charset;
use crate::wc::classes::ByteClasses;

/// How a counter goes through each chunk (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::wc) enum Pass {
    Gnu,
    Widths { alone: bool },
    Unibyte { words: bool },
    Utf8Chars,
    Utf8Words,
    Utf8Windows,
}

/// What the mask paths need to know of the locale's byte classes (see `ByteClasses`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::wc) struct ClassShape {
    /// White space is exactly TAB, LF, VT, FF, CR and SPACE, and in a single-byte locale at most one byte above 0x7f.
    pub standard_spaces: bool,
    /// The printable ASCII bytes are exactly 0x20..=0x7e.
    pub standard_print: bool,
}

impl ClassShape {
    pub fn of(classes: &ByteClasses) -> ClassShape {
        ClassShape { standard_spaces: classes.standard_spaces, standard_print: classes.standard_print }
    }
}

/// The pass that counts `want` in a locale of `charset` whose byte classes have `shape`.
pub(in crate::wc) fn pass(want: Want, charset: Charset, shape: ClassShape) -> Pass {
    // The masks stand for the C library's classes only where its ASCII white space is the usual
    // one, in UTF-8 or a single-byte locale (other multibyte encodings go through mbrtowc).
    if !shape.standard_spaces || charset == Charset::Multibyte {
        return Pass::Gnu;
    }
    if want.max_line_length {
        // Widths by masks take printable ASCII as one column.
        return match shape.standard_print {
            true => Pass::Widths { alone: !(want.words || (charset == Charset::Utf8 && want.chars)) },
            false => Pass::Gnu,
        };
    }
    match (charset, want.words, want.chars) {
        (Charset::Unibyte, words, _) => Pass::Unibyte { words },
        (_, false, _) => Pass::Utf8Chars,
        (_, true, false) => Pass::Utf8Words,
        (_, true, true) => Pass::Utf8Windows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wc::count::tests::want_from_bits;

    /// The mask passes assume what they do not check (the usual ASCII white space, for widths the
    /// usual printable ASCII, UTF-8 or a single-byte locale), and some skip a count. Every set of
    /// options, locale and class shape gets a pass whose assumptions hold and that counts all that
    /// is wanted, and a mask pass wherever one fits (no differential test's locale breaks them).
    #[test]
    fn every_pass_holds_its_assumptions_and_counts_what_is_wanted() {
        for want in (0u8..32).map(want_from_bits) {
            for charset in [Charset::Unibyte, Charset::Utf8, Charset::Multibyte] {
                for (standard_spaces, standard_print) in [(false, false), (false, true), (true, false), (true, true)] {
                    let shape = ClassShape { standard_spaces, standard_print };
                    let got = pass(want, charset, shape);
                    let masks = standard_spaces && charset != Charset::Multibyte;
                    let (utf8, lines_only) = (charset == Charset::Utf8, !want.max_line_length);
                    let ok = match got {
                        Pass::Gnu => !masks || (want.max_line_length && !standard_print),
                        Pass::Widths { alone } => {
                            masks
                                && want.max_line_length
                                && standard_print
                                && alone != (want.words || utf8 && want.chars)
                        }
                        Pass::Unibyte { words } => masks && lines_only && !utf8 && words == want.words,
                        Pass::Utf8Chars => masks && lines_only && utf8 && !want.words,
                        Pass::Utf8Words => masks && lines_only && utf8 && !want.chars,
                        Pass::Utf8Windows => masks && lines_only && utf8,
                    };
                    assert!(ok, "{want:?} {charset:?} {shape:?}: {got:?}");
                }
            }
        }
    }
}
