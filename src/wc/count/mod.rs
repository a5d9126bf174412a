//! The counting kernels of `wc`, fed chunk by chunk with their state carried across reads.
//!
//! * Lines only (with or without bytes): [`count_lines`], a SIMD byte count.
//! * Everything else: a [`Counter`], going through each chunk as its `Pass` says (`pass.rs`) with the block masks of
//!   the best instruction set ([`Masks`], through `platform::simd::with_masks`, so that the whole loop is compiled
//!   for it). `words.rs` counts words by masks and byte patterns, `chars.rs` -m in UTF-8, `width.rs` -L, `windows.rs`
//!   the general window and the loop over windows. GNU's loops (`gnu.rs`) take window tails, characters cut by a
//!   chunk end, and the locales the masks do not fit. Non-ASCII classes come from the C library (`iswspace`,
//!   `wcwidth`) as GNU's do, cached per 256-character page.
//!
//! Words are counted where they end, as GNU counts them, so the window and byte paths agree.

use super::classes::ByteClasses;
use crate::platform::simd::{Block64, Kernel, Masks, WithMasks};
use crate::platform::{self, Changing, Charset, MB_LEN_MAX, MbDecoder};
pub(super) use pass::{ClassShape, Pass, pass};
use words::LeadFilter;

mod chars;
mod gnu;
mod pass;
#[cfg(test)]
mod tests;
mod width;
mod windows;
mod words;

/// What to count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Want {
    pub lines: bool,
    pub words: bool,
    pub chars: bool,
    pub bytes: bool,
    pub max_line_length: bool,
}

/// The counts of one input (or the totals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub lines: u64,
    pub words: u64,
    pub chars: u64,
    pub bytes: u64,
    pub max_line_length: u64,
}

/// The state of one input's count.
#[derive(Clone)]
pub struct Counter<'a> {
    want: Want,
    classes: &'a ByteClasses,
    multibyte: bool,
    counts: Counts,
    in_word: bool,
    line_pos: u64,
    decoder: Option<MbDecoder>,
    /// UTF-8 is decoded here rather than by `mbrtowc` (same validity rules as GNU 9.12's).
    utf8: bool,
    /// The bytes of a character cut by the end of the last chunk.
    pending: [u8; MB_LEN_MAX],
    pending_len: usize,
    /// Whether `words_run` looks for the lead bytes of spaces before the table look-ups.
    lead_filter: LeadFilter,
    /// How each chunk is gone through (see [`pass()`]).
    pass: Pass,
    /// When `chars_run` tries its check of one- and three-byte characters.
    three: chars::ThreeTries,
}

impl<'a> Counter<'a> {
    /// A counter of `want` in a `charset` locale with `classes`, taking chunks as `pass` says.
    pub(in crate::wc) fn new(want: Want, classes: &'a ByteClasses, charset: Charset, pass: Pass) -> Counter<'a> {
        let multibyte = charset != Charset::Unibyte;
        Counter {
            want,
            classes,
            multibyte,
            counts: Counts::default(),
            in_word: false,
            line_pos: 0,
            decoder: (multibyte && charset != Charset::Utf8).then(MbDecoder::new),
            utf8: charset == Charset::Utf8,
            pending: [0; MB_LEN_MAX],
            pending_len: 0,
            lead_filter: LeadFilter::default(),
            pass,
            three: chars::ThreeTries::default(),
        }
    }

    /// Counts one chunk.
    pub fn feed(&mut self, buf: Changing<'_>) {
        self.feed_with(Kernel::best(), buf);
    }

    /// Counts one chunk with `kernel`'s block masks (or the best below it that this build and
    /// CPU have): `feed`, and the tests of each kernel.
    fn feed_with(&mut self, kernel: Kernel, buf: Changing<'_>) {
        struct Feed<'c, 'a, 'b>(&'c mut Counter<'a>, Changing<'b>);
        impl WithMasks for Feed<'_, '_, '_> {
            type Output = ();
            #[inline(always)]
            fn run<B: Block64>(self, masks: Masks<B>) {
                self.0.feed_chunk(masks, self.1);
            }
        }
        platform::simd::with_masks(kernel, Feed(self, buf));
    }

    #[inline(always)]
    fn feed_chunk<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>) {
        self.counts.bytes += buf.len() as u64;
        let i = if self.pending_len > 0 { self.finish_pending(buf) } else { 0 };
        if self.pending_len > 0 {
            // The chunk ended inside the character it began with: all of it is pending.
            return;
        }
        // The pass's run over the chunk, then its windows (one loop for every kind: a copy for
        // each would repeat the general window in the loop that runs them all).
        let i = match self.pass {
            Pass::Widths { alone: true } => self.width_run(m, buf, i),
            Pass::Widths { alone: false } => self.widths_run(m, buf, i),
            Pass::Unibyte { words: true } => self.unibyte_words_run(m, buf, i),
            Pass::Utf8Chars => self.chars_run(m, buf, i),
            Pass::Utf8Words => self.words_run(m, buf, i),
            Pass::Gnu | Pass::Unibyte { words: false } | Pass::Utf8Windows => i,
        };
        let i = match self.pass.window() {
            Some(kind) => self.windows(m, buf, i, kind),
            None => i,
        };
        if i < buf.len() {
            if self.multibyte {
                self.multibyte_run(buf, i, buf.len());
            } else {
                self.unibyte_run(buf, i, buf.len());
            }
        }
    }

    /// The counts, once the input has ended.
    pub fn finish(mut self) -> Counts {
        // A character cut by the end of the input: as GNU, its first byte is invalid (a word
        // byte, no character) and decoding goes on from the next byte (in GB18030 or EUC-JP
        // that can be a character, in UTF-8 it never is).
        let (pending, len) = (self.pending, self.pending_len);
        self.pending_len = 0;
        let mut j = 0;
        while j < len {
            self.word_char(true);
            j += 1;
            while j < len {
                match self.mb_step(Changing::of(&pending[j..len])) {
                    Some(n) => j += n,
                    None => break,
                }
            }
        }
        self.counts.words += u64::from(self.in_word);
        self.counts.max_line_length = self.counts.max_line_length.max(self.line_pos);
        if !self.multibyte {
            self.counts.chars = self.counts.bytes;
        }
        self.counts
    }
}

/// Lines only: the number of LF bytes, counted with SIMD compares.
pub fn count_lines(buf: Changing<'_>) -> u64 {
    platform::simd::count_byte(buf, b'\n')
}

/// Adds one chunk's lines and bytes to `counts` (`Count::Lines`, on either thread).
pub fn add_lines_and_bytes(counts: &mut Counts, chunk: Changing<'_>) {
    counts.bytes += chunk.len() as u64;
    counts.lines += count_lines(chunk);
}
