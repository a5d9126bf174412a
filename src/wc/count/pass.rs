//! How the counter goes through a chunk: one pure function of what is wanted, the locale's
//! encoding and the shape of its byte classes, chosen once per run, so that every choice is
//! tested without a file or a C library.
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
//! Whatever the pass, GNU's loop takes what it leaves: window tails and characters cut by a
//! chunk's end.

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
    /// White space is exactly TAB, LF, VT, FF, CR and SPACE, and in a single-byte locale at most
    /// one byte above 0x7f.
    pub standard_spaces: bool,
    /// The printable ASCII bytes are exactly 0x20..=0x7e.
    pub standard_print: bool,
}

impl ClassShape {
    /// The shape of `classes`.
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

    /// Every set of options (2^5), in each kind of locale, for each shape of its classes,
    /// against the rules the counter followed before its passes had names, written out one by
    /// one: which runs it made and how it took a window.
    #[test]
    fn every_option_set_locale_and_class_shape_takes_its_pass() {
        for want in (0u8..32).map(want_from_bits) {
            for charset in [Charset::Unibyte, Charset::Utf8, Charset::Multibyte] {
                for (standard_spaces, standard_print) in [(false, false), (false, true), (true, false), (true, true)] {
                    let (utf8, multibyte) = (charset == Charset::Utf8, charset != Charset::Unibyte);
                    let blocks = standard_spaces && (utf8 || !multibyte);
                    let width_path = blocks && want.max_line_length && standard_print;
                    let block_path = blocks && !want.max_line_length;
                    let width_alone = want.max_line_length && !want.words && !(multibyte && want.chars);
                    let expected = if width_path {
                        Pass::Widths { alone: width_alone }
                    } else if !block_path {
                        Pass::Gnu
                    } else if !multibyte {
                        Pass::Unibyte { words: want.words }
                    } else if !want.words {
                        Pass::Utf8Chars
                    } else if !want.chars {
                        Pass::Utf8Words
                    } else {
                        Pass::Utf8Windows
                    };
                    let shape = ClassShape { standard_spaces, standard_print };
                    assert_eq!(pass(want, charset, shape), expected, "{want:?} {charset:?} {shape:?}");
                }
            }
        }
    }
}
