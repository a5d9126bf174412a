//! GNU's loops: byte by byte in a single-byte locale, character by character in a multibyte one (UTF-8 by our
//! decoder, other encodings by the C library's `mbrtowc`). They take what the window paths leave (window tails,
//! characters cut by a chunk end), and every locale whose classes or encoding the masks do not fit.

use super::Counter;
use crate::platform::MB_LEN_MAX;
use crate::platform::{Changing, MbStep};
use crate::wc::classes::{SPACE_BIT, WIDTH_BITS};
use crate::wc::utf8::{Utf8, utf8_char};

impl Counter<'_> {
    /// GNU's single-byte loop over `buf[from..to]`; returns `to`.
    pub(super) fn unibyte_run(&mut self, buf: Changing<'_>, from: usize, to: usize) -> usize {
        for c in buf.range(from..to).bytes() {
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
    pub(super) fn word_char(&mut self, in_word: bool) {
        self.counts.words += u64::from(self.in_word & !in_word);
        self.in_word = in_word;
    }

    /// GNU's multibyte loop over `buf[from..to]`: ASCII by table, the rest by our UTF-8 decoder or
    /// `mbrtowc`. A character cut by the chunk's end goes to `pending`; returns where it stopped.
    pub(super) fn multibyte_run(&mut self, buf: Changing<'_>, from: usize, to: usize) -> usize {
        let mut i = from;
        while i < to {
            let c = buf.byte(i);
            if c < 0x80 {
                self.counts.chars += 1;
                self.byte(c);
                i += 1;
                continue;
            }
            match self.mb_step(buf.range(i..)) {
                Some(n) => i += n,
                None => {
                    let rest = buf.range(i..);
                    rest.copy_to(&mut self.pending[..rest.len()]);
                    self.pending_len = rest.len();
                    return buf.len();
                }
            }
        }
        i
    }

    /// Counts the character at the start of `bytes`; returns the bytes it took, or None when
    /// `bytes` ends inside it (nothing counted). An invalid byte is one word byte, no character.
    pub(super) fn mb_step(&mut self, bytes: Changing<'_>) -> Option<usize> {
        if self.utf8 {
            return self.utf8_step(bytes);
        }
        let first = bytes.byte(0);
        if first < 0x80 {
            self.counts.chars += 1;
            self.byte(first);
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

    /// [`Self::mb_step`] for UTF-8: counts `bytes`' first character; the bytes it took, or None if cut by `bytes`' end.
    fn utf8_step(&mut self, bytes: Changing<'_>) -> Option<usize> {
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

    /// Completes a character begun at the last chunk's end with `buf`'s first bytes; returns how many it took.
    pub(super) fn finish_pending(&mut self, buf: Changing<'_>) -> usize {
        let mut tmp = [0u8; 2 * MB_LEN_MAX];
        let held = self.pending_len;
        tmp[..held].copy_from_slice(&self.pending[..held]);
        let take = buf.len().min(MB_LEN_MAX);
        buf.range(..take).copy_to(&mut tmp[held..held + take]);
        let avail = held + take;
        self.pending_len = 0;
        let mut j = 0;
        while j < held {
            match self.mb_step(Changing::of(&tmp[j..avail])) {
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
        // Without words or widths the class matters to nothing counted, and asking for it fills a
        // 256-class page from the C library (benches/RESULTS.md, "Figures behind code comments").
        if !self.want.words && !self.want.max_line_length {
            return;
        }
        let class = self.classes.wide.get(wc);
        self.line_pos += u64::from(class & WIDTH_BITS);
        self.word_char(class & SPACE_BIT == 0);
    }
}
