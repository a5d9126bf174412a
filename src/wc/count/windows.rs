//! The general window: 64 bytes whose lines, white space and characters come from masks, where
//! only the bytes that matter ("events") are visited one by one; and the loop over windows.

use super::{Counter, Pass};
use crate::platform::Changing;
use crate::platform::simd::{Block64, Masks};
use crate::wc::classes::{SPACE_BIT, WIDTH_BITS};
use crate::wc::utf8::{Utf8, utf8_char};

/// How [`Counter::windows`] takes a window (see each [`Pass`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Window {
    /// A single-byte locale's: by masks alone (`block`).
    Unibyte,
    /// UTF-8: ASCII by masks alone, the rest visiting its events (`line_block`).
    Utf8,
    /// UTF-8 without words: ASCII by masks alone, the rest visiting its events.
    Utf8Chars,
    /// -L: every window measured, visiting its events.
    Widths,
}

/// What a window's caller knows (UTF-8, multibyte, words counted), as constants: compiled for its case alone, the
/// window spills no registers for other cases' code (benches/RESULTS.md, "Figures behind code comments").
#[derive(Clone, Copy)]
pub(super) struct Known {
    pub utf8: bool,
    pub multibyte: bool,
    pub words: bool,
}

impl Pass {
    /// How the windows the pass leaves are taken (None: by GNU's loop).
    #[inline(always)]
    pub(super) fn window(self) -> Option<Window> {
        match self {
            Pass::Gnu => None,
            Pass::Widths { .. } => Some(Window::Widths),
            Pass::Unibyte { .. } => Some(Window::Unibyte),
            Pass::Utf8Chars => Some(Window::Utf8Chars),
            Pass::Utf8Words | Pass::Utf8Windows => Some(Window::Utf8),
        }
    }
}

impl Counter<'_> {
    /// The windows of `buf` from `from`, taken as `kind` says, while 64 bytes are left and no
    /// character crosses the chunk's end (left to the character loop); returns where it stopped.
    #[inline(always)]
    pub(super) fn windows<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, from: usize, kind: Window) -> usize {
        let known = match kind {
            Window::Unibyte => Known { utf8: false, multibyte: false, words: self.want.words },
            Window::Utf8 => Known { utf8: true, multibyte: true, words: true },
            Window::Utf8Chars => Known { utf8: true, multibyte: true, words: false },
            Window::Widths => Known { utf8: self.utf8, multibyte: self.multibyte, words: self.want.words },
        };
        let mut i = from;
        while i + 64 <= buf.len() {
            let used = if kind == Window::Widths {
                self.line_block::<B, true>(m, buf, i, known)
            } else {
                let block = buf.array::<64>(i);
                if kind == Window::Unibyte || m.high(block) == 0 {
                    self.block(m, block, known);
                    64
                } else {
                    self.line_block::<B, false>(m, buf, i, known)
                }
            };
            if used == 0 {
                break;
            }
            i += used;
        }
        i
    }

    /// 64 bytes of ASCII (or of a single-byte locale) without -L.
    #[inline(always)]
    fn block<B: Block64>(&mut self, m: Masks<B>, block: Changing<'_, [u8; 64]>, known: Known) {
        let lf = m.eq(block, b'\n');
        self.counts.lines += u64::from(lf.count_ones());
        if known.words {
            let space = m.ascii_space(block, self.classes.space_high);
            // A word ends where a space follows a non-space (the carry is the previous byte).
            let prev_nonspace = (!space << 1) | u64::from(self.in_word);
            self.counts.words += u64::from((space & prev_nonspace).count_ones());
            self.in_word = space >> 63 == 0;
        }
        if known.multibyte {
            self.counts.chars += 64;
        }
    }

    /// A 64-byte window at `buf[at..]`: for -L (`WIDTH`) in a single-byte or UTF-8 locale, else for UTF-8 windows
    /// with non-ASCII bytes. Lines, white space and characters come from masks; only the "events" are visited: with
    /// `WIDTH` the controls, and bytes that may start a character (UTF-8 leads; in a single-byte locale every byte
    /// above 0x7f, unless none is printable). Other high bytes are invalid (word bytes, no character, no width) or a
    /// lead's. Returns the bytes used, before any character crossing the window's end (0: for the character loop).
    #[inline(always)]
    pub(super) fn line_block<B: Block64, const WIDTH: bool>(
        &mut self,
        m: Masks<B>,
        buf: Changing<'_>,
        at: usize,
        known: Known,
    ) -> usize {
        let block = buf.array::<64>(at);
        let mut space = if known.words { m.ascii_space(block, self.classes.space_high) } else { 0 };
        let high = m.high(block);
        let controls = if WIDTH { m.controls(block) } else { 0 };
        // `high` (bytes above 0x7f) is taken off the characters, `hidden` (those not events) off a run's width.
        let (high, hidden, mut events) = if known.utf8 && high == 0 {
            (0, 0, controls)
        } else if known.utf8 {
            let r = m.utf8_ranges(block);
            let [lead2, lead3, lead4] = r.leads();
            let (c1, c2, c3) = (r.cont >> 1, r.cont >> 2, r.cont >> 3);
            let starts = (lead2 & c1) | (lead3 & c1 & c2) | (lead4 & c1 & c2 & c3);
            // Leads whose characters would reach past the window: decoding decides.
            (r.high, r.high, controls | starts | r.crossing_leads())
        } else if self.classes.high_unprintable {
            // A single-byte locale whose bytes above 0x7f are all unprintable (C, POSIX).
            (0, high, controls)
        } else {
            (0, 0, m.control_or_high(block))
        };
        let mut end = 64;
        let mut last = 0;
        let mut pos = self.line_pos;
        let mut longest = self.counts.max_line_length;
        let mut wide_chars = 0u64;
        // -L alone: a line grows at most one column a byte, eight at a TAB (a character is no wider than its encoding
        // is long, other controls have no width, CR and FF end lines). Where the window has a line end and the
        // running line plus the window cannot pass the longest, only what follows its last line end is measured.
        let lf = m.eq(block, b'\n');
        if WIDTH && lf != 0 && self.pass == (Pass::Widths { alone: true }) {
            let tabs = if controls & !lf != 0 { m.eq(block, b'\t').count_ones() } else { 0 };
            if pos + 64 + 7 * u64::from(tabs) <= longest {
                last = 64 - lf.leading_zeros() as usize;
                events &= span(last, 64);
                pos = 0;
            }
        }
        while events != 0 {
            let p = events.trailing_zeros() as usize;
            if WIDTH {
                pos += (p - last) as u64;
                if hidden != 0 {
                    pos -= u64::from((hidden & span(last, p)).count_ones());
                }
            }
            let c = block.byte(p);
            let mut n = 1;
            // Most frequent first: line ends, then non-ASCII, TABs, the rest.
            if c == b'\n' {
                longest = longest.max(pos);
                pos = 0;
            } else if c >= 0x80 {
                if known.utf8 {
                    match utf8_char(buf.range(at + p..)) {
                        Utf8::Char(wc, len) if p + len <= 64 => {
                            if WIDTH || known.words {
                                let class = self.classes.wide.get(wc);
                                pos += u64::from(class & WIDTH_BITS);
                                if class & SPACE_BIT != 0 {
                                    space |= ((1u64 << len) - 1) << p;
                                }
                            }
                            wide_chars += 1;
                            n = len;
                        }
                        Utf8::Invalid => {}
                        Utf8::Char(..) | Utf8::Incomplete => {
                            last = p;
                            end = p;
                            break;
                        }
                    }
                } else {
                    pos += u64::from(self.classes.print[c as usize]);
                }
            } else if c == b'\t' {
                pos += 8 - pos % 8;
            } else if c == b'\r' || c == 0x0c {
                longest = longest.max(pos);
                pos = 0;
            }
            last = p + n;
            events &= span(last, 64);
        }
        if end == 0 {
            return 0;
        }
        if WIDTH {
            pos += (end - last) as u64 - u64::from((hidden & span(last, end)).count_ones());
            self.line_pos = pos;
            self.counts.max_line_length = longest;
        }
        let valid = u64::MAX >> (64 - end);
        self.counts.lines += u64::from((lf & valid).count_ones());
        if known.words {
            let space = space & valid;
            let prev_nonspace = (!space << 1) | u64::from(self.in_word);
            self.counts.words += u64::from((space & prev_nonspace & valid).count_ones());
            self.in_word = space >> (end - 1) & 1 == 0;
        }
        if known.multibyte {
            self.counts.chars += u64::from((!high & valid).count_ones()) + wide_chars;
        }
        end
    }
}

/// The bits `from..to` of a 64-bit mask (`from <= to <= 64`).
#[inline]
pub(super) fn span(from: usize, to: usize) -> u64 {
    (u64::MAX.checked_shl(from as u32).unwrap_or(0)) & !(u64::MAX.checked_shl(to as u32).unwrap_or(0))
}
