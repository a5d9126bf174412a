//! The counting kernels of `wc`, fed chunk by chunk with their state carried across reads.
//!
//! * Lines only (with or without bytes): [`count_lines`], a SIMD byte count.
//! * Everything else: 64-byte windows from the block masks of the best instruction set
//!   ([`Masks`], run through `platform::simd::with_best_masks` so the whole loop is
//!   compiled for it): ASCII windows by masks alone (`Counter::block`), -m alone on valid
//!   UTF-8 by masks alone (`Counter::valid_utf8_block`), -L alone by skipping what cannot
//!   pass the longest line (`Counter::width_run`), the rest visiting only the bytes that
//!   matter (`Counter::line_block`). GNU's loop (byte by byte in a single-byte locale,
//!   character by character in a multibyte one) takes window tails, characters cut by a chunk
//!   end, and locales whose ASCII classes are not the usual ones or whose encoding is not UTF-8
//!   (`mbrtowc`). Non-ASCII classes come from the C library (`iswspace`, `iswprint`, `wcwidth`),
//!   cached per 256-character page, so the answers are the C library's, as GNU's are.
//!
//! Words are counted where they end, as GNU counts them, so the window and byte paths agree.

use super::classes::{BLOCK_MIXED, BLOCK_WIDTH_BITS, ByteClasses, SPACE_BIT, WIDTH_BITS};
use super::utf8::{Utf8, Utf8Spaces, utf8_char};
use crate::platform::simd::{Block64, Kernel, Masks, WithMasks};
use crate::platform::{self, Charset, MbDecoder, MbStep};

#[cfg(test)]
mod tests;
mod width;
mod windows;

/// In `width_block`, this many characters of blocks of mixed widths or fewer are looked up one
/// by one (a vector look-up per block costs more for them).
const FEW_CHARACTERS: u32 = 3;

/// The bits of [`platform::simd::utf8_start_patterns`] of two- and three-byte forms.
const UTF8_TWO_BYTE: u8 = 0b0000_0011;
const UTF8_THREE_BYTE: u8 = 0b0001_1100;

/// -L's tight bound (see `width_run`) is used for chunks at least this large: below, checking
/// its premise with the C library would cost more than it saves.
const TIGHT_BOUND_MIN: usize = 64 << 10;

/// The longest character in any encoding (MB_LEN_MAX).
const MAX_CHAR_LEN: usize = 16;

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
    pending: [u8; MAX_CHAR_LEN],
    pending_len: usize,
    /// Line ends are being counted over a whole run, not per window.
    bulk_lines: bool,
    /// Whether `words_run` looks for the lead bytes of spaces before the table look-ups.
    lead_filter: LeadFilter,
}

/// When to look for the lead bytes of multibyte spaces before looking the spaces up (with
/// table look-ups; see `WordWindows::sparse`): the look-up costs more than the rest of a
/// window's count, and most windows of most scripts (Arabic, Devanagari, Hangul: all of them;
/// Chinese: half) hold no lead byte of a space. Looking for one costs a third of a look-up, so
/// where nearly every window holds one (kana share U+3000's lead byte) it only adds. The filter
/// samples how often it finds a lead, a batch of windows at a time, stands aside where that is
/// more than three windows in four, and looks again after a while.
#[derive(Clone, Copy, Debug, Default)]
struct LeadFilter {
    off: bool,
    /// Batches since it stood aside.
    rested: u32,
}

// A batch's line ends are one tally.
const _: () = assert!(LeadFilter::BATCH <= platform::simd::TALLY_MAX);

impl LeadFilter {
    /// Windows per batch (and per sample while on; at most a tally's).
    const BATCH: usize = 64;
    /// Batches before it samples again after standing aside.
    const REST: u32 = 64;

    /// Whether the next batch looks for lead bytes.
    #[inline(always)]
    fn on(&self) -> bool {
        !self.off
    }

    /// A batch looked for lead bytes and found them in `hits` windows.
    #[inline(always)]
    fn sampled(&mut self, hits: u32) {
        *self = LeadFilter { off: hits * 4 > 3 * Self::BATCH as u32, rested: 0 };
    }

    /// A batch did not look for lead bytes.
    #[inline(always)]
    fn rested(&mut self) {
        self.rested += 1;
        if self.rested == Self::REST {
            *self = LeadFilter::default();
        }
    }
}

impl<'a> Counter<'a> {
    pub fn new(want: Want, classes: &'a ByteClasses, charset: Charset) -> Counter<'a> {
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
            pending: [0; MAX_CHAR_LEN],
            pending_len: 0,
            bulk_lines: false,
            lead_filter: LeadFilter::default(),
        }
    }

    /// Counts one chunk.
    pub fn feed(&mut self, buf: &[u8]) {
        self.feed_with(Kernel::best(), buf);
    }

    /// Counts one chunk with `kernel`'s block masks (or the best below it that this build and
    /// CPU have): `feed`, and the tests of each kernel.
    fn feed_with(&mut self, kernel: Kernel, buf: &[u8]) {
        struct Feed<'c, 'a, 'b>(&'c mut Counter<'a>, &'b [u8]);
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
    fn feed_chunk<B: Block64>(&mut self, m: Masks<B>, buf: &[u8]) {
        self.counts.bytes += buf.len() as u64;
        let mut i = if self.pending_len > 0 { self.finish_pending(buf) } else { 0 };
        // The block paths need the C library's ASCII classes to be the usual ones, and UTF-8 or
        // a single-byte locale (other multibyte encodings go through mbrtowc).
        let blocks = self.classes.standard_spaces && (self.utf8 || !self.multibyte);
        let width_path = blocks && self.want.max_line_length && self.classes.standard_print;
        let block_path = blocks && !self.want.max_line_length;
        if block_path && self.utf8 && !self.want.words && self.pending_len == 0 {
            i = self.chars_run(m, buf, i);
        }
        if block_path && self.utf8 && self.want.words && !self.want.chars && self.pending_len == 0 {
            i = self.words_run(m, buf, i);
        }
        if block_path && !self.multibyte && self.want.words {
            i = self.unibyte_words_run(m, buf, i);
        }
        if width_path && self.width_alone() && self.pending_len == 0 {
            i = self.width_run(m, buf, i);
        }
        while i + 64 <= buf.len() && (width_path || block_path) && self.pending_len == 0 {
            let used = if width_path {
                self.line_block::<B, true>(m, buf, i)
            } else {
                let block: &[u8; 64] = buf[i..i + 64].try_into().unwrap();
                if !self.multibyte || m.high(block) == 0 {
                    self.block(m, block);
                    64
                } else {
                    match self.want.words {
                        false => match self.valid_utf8_block(m, block) {
                            0 => self.line_block::<B, false>(m, buf, i),
                            used => used,
                        },
                        true => self.line_block::<B, false>(m, buf, i),
                    }
                }
            };
            if used == 0 {
                // A character that crosses the end of the chunk: the character loop keeps it.
                break;
            }
            i += used;
        }
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
                match self.mb_step(&pending[j..len]) {
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

    /// 64 bytes of ASCII (or of a single-byte locale) without -L.
    #[inline(always)]
    fn block<B: Block64>(&mut self, m: Masks<B>, block: &[u8; 64]) {
        let lf = m.eq(block, b'\n');
        self.counts.lines += u64::from(lf.count_ones());
        if self.want.words {
            let space = m.ascii_space(block, self.classes.space_high);
            // A word ends where a space follows a non-space (the carry is the previous byte).
            let prev_nonspace = (!space << 1) | u64::from(self.in_word);
            self.counts.words += u64::from((space & prev_nonspace).count_ones());
            self.in_word = space >> 63 == 0;
        }
        if self.multibyte {
            self.counts.chars += 64;
        }
    }

    /// GNU's single-byte loop over `buf[from..to]`; returns `to`.
    fn unibyte_run(&mut self, buf: &[u8], from: usize, to: usize) -> usize {
        for &c in &buf[from..to] {
            self.byte(c);
        }
        to
    }

    /// One byte (or ASCII character), GNU's switch.
    #[inline]
    fn byte(&mut self, c: u8) {
        match c {
            b'\n' | b'\r' | 0x0c => {
                if c == b'\n' {
                    self.counts.lines += 1;
                }
                self.end_line();
                self.separator();
            }
            b'\t' => {
                self.line_pos += 8 - self.line_pos % 8;
                self.separator();
            }
            b' ' => {
                self.line_pos += 1;
                self.separator();
            }
            0x0b => self.separator(),
            _ => {
                self.line_pos += u64::from(self.classes.print[c as usize]);
                self.word_char(!self.classes.space[c as usize]);
            }
        }
    }

    #[inline]
    fn end_line(&mut self) {
        self.counts.max_line_length = self.counts.max_line_length.max(self.line_pos);
        self.line_pos = 0;
    }

    #[inline]
    fn separator(&mut self) {
        self.counts.words += u64::from(self.in_word);
        self.in_word = false;
    }

    #[inline]
    fn word_char(&mut self, in_word: bool) {
        self.counts.words += u64::from(self.in_word & !in_word);
        self.in_word = in_word;
    }

    /// GNU's multibyte loop over `buf[from..to]`: ASCII by table, the rest by our UTF-8
    /// decoder or the C library's `mbrtowc`. A character cut by the end of the chunk is kept in
    /// `pending`. Returns where it stopped (`to`, or the end of the chunk).
    fn multibyte_run(&mut self, buf: &[u8], from: usize, to: usize) -> usize {
        let mut i = from;
        while i < to {
            let c = buf[i];
            if c < 0x80 {
                self.counts.chars += 1;
                self.byte(c);
                i += 1;
                continue;
            }
            match self.mb_step(&buf[i..]) {
                Some(n) => i += n,
                None => {
                    let rest = &buf[i..];
                    self.pending[..rest.len()].copy_from_slice(rest);
                    self.pending_len = rest.len();
                    return buf.len();
                }
            }
        }
        i
    }

    /// Counts the character at the start of `bytes`; returns the bytes it took, or None when
    /// `bytes` ends inside it (nothing counted). An invalid byte is one word byte, no character.
    fn mb_step(&mut self, bytes: &[u8]) -> Option<usize> {
        if self.utf8 {
            return self.utf8_step(bytes);
        }
        if bytes[0] < 0x80 {
            self.counts.chars += 1;
            self.byte(bytes[0]);
            return Some(1);
        }
        let decoder = self.decoder.as_mut().expect("multibyte counter has a decoder");
        match decoder.decode(bytes) {
            MbStep::Incomplete => {
                // The bytes stay ours (in `pending`), not the decoder's.
                decoder.reset();
                None
            }
            // glibc's mbrtowc decodes UTF-8 forms beyond U+10FFFF (5 and 6 bytes, F4 90..);
            // GNU 9.12's mbrtoc32 rejects them: invalid, one byte at a time.
            MbStep::Char(wc, _) if wc > 0x10_ffff => {
                decoder.reset();
                self.word_char(true);
                Some(1)
            }
            MbStep::Invalid => {
                self.word_char(true);
                Some(1)
            }
            MbStep::Char(wc, n) => {
                self.counts.chars += 1;
                self.wide_char(wc);
                Some(n.max(1))
            }
        }
    }

    /// Counts the UTF-8 character at the start of `bytes` (an invalid byte counts as a word byte
    /// and no character, as in GNU); returns the bytes it took, or None when `bytes` ends
    /// inside it.
    fn utf8_step(&mut self, bytes: &[u8]) -> Option<usize> {
        match utf8_char(bytes) {
            Utf8::Char(wc, n) => {
                self.counts.chars += 1;
                self.wide_char(wc);
                Some(n)
            }
            Utf8::Invalid => {
                self.word_char(true);
                Some(1)
            }
            Utf8::Incomplete => None,
        }
    }

    /// Completes a character begun at the end of the last chunk with the first bytes of
    /// `buf`; returns how many bytes of `buf` it took.
    fn finish_pending(&mut self, buf: &[u8]) -> usize {
        let mut tmp = [0u8; 2 * MAX_CHAR_LEN];
        let held = self.pending_len;
        tmp[..held].copy_from_slice(&self.pending[..held]);
        let take = buf.len().min(MAX_CHAR_LEN);
        tmp[held..held + take].copy_from_slice(&buf[..take]);
        let avail = held + take;
        self.pending_len = 0;
        let mut j = 0;
        while j < held {
            match self.mb_step(&tmp[j..avail]) {
                Some(n) => j += n,
                None => {
                    // Still incomplete: the whole (short) chunk joins the pending bytes.
                    self.pending[..avail - j].copy_from_slice(&tmp[j..avail]);
                    self.pending_len = avail - j;
                    return buf.len();
                }
            }
        }
        j - held
    }

    /// One decoded character that came through `mbrtowc`.
    fn wide_char(&mut self, wc: u32) {
        if wc < 0x80 {
            self.byte(wc as u8);
            return;
        }
        let class = self.classes.wide.get(wc);
        self.line_pos += u64::from(class & WIDTH_BITS);
        self.word_char(class & SPACE_BIT == 0);
    }
}
/// The bits `from..to` of a 64-bit mask (`from <= to <= 64`).
#[inline]
fn span(from: usize, to: usize) -> u64 {
    (u64::MAX.checked_shl(from as u32).unwrap_or(0)) & !(u64::MAX.checked_shl(to as u32).unwrap_or(0))
}

/// Lines only: the number of LF bytes, counted with SIMD compares.
pub fn count_lines(buf: &[u8]) -> u64 {
    platform::simd::count_byte(buf, b'\n')
}
