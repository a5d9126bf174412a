//! `-L` alone: widths exact only where a line could pass the longest so far.

use super::Counter;
use super::windows::{Known, span};
use crate::platform::simd::{BY_COMPARES, BY_SELECTION, BY_TOP, Block64, BytePatterns, Masks};
use crate::platform::{self, Changing};
use crate::wc::classes::{ROW_MIXED, ROW_WIDTH_BITS, WIDTH_BITS};

/// Up to this many characters of mixed-width rows are looked up singly: a vector costs more then.
const FEW_CHARACTERS: u32 = 3;

/// -L's tight bound (`width_run`) is for chunks this large or more: smaller ones pay more to check its premise.
const TIGHT_BOUND_MIN: usize = 64 << 10;

impl Counter<'_> {
    /// -L alone (`Pass::Widths { alone: true }`) from `buf[from..]`, in 64-byte windows. A line grows by at most one
    /// column a byte, eight at a TAB, so the bytes since the last exact point need no measuring while that bound
    /// cannot pass the longest line: a window is skipped with two compares (more when only each line's part fits).
    /// Returns where exact measuring (by `line_block`) stopped: the caller measures the rest.
    #[inline(always)]
    pub(super) fn width_run<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, from: usize) -> usize {
        // The tight bound asks the C library about 3,840 characters once: for large inputs.
        if self.utf8 && buf.len() >= TIGHT_BOUND_MIN && self.classes.narrow_below_u1000() {
            self.width_run_bounded::<B, true>(m, buf, from)
        } else {
            self.width_run_bounded::<B, false>(m, buf, from)
        }
    }

    /// `width_run` with one byte's bound: its column (`TIGHT` false), or in UTF-8 (`TIGHT` true)
    /// none at a continuation byte and two at a character's first byte from U+1000 on (the only
    /// wide ones). A skipped window takes no branch but the one that decides to measure.
    #[inline(always)]
    pub(super) fn width_run_bounded<B: Block64, const TIGHT: bool>(
        &mut self,
        m: Masks<B>,
        buf: Changing<'_>,
        from: usize,
    ) -> usize {
        // `pos` is exact up to `start`; `[start, i)` is unmeasured and can add at most `grown`.
        let mut i = from;
        let mut start = from;
        let mut grown = 0u64;
        let mut pos = self.line_pos;
        let mut longest = self.counts.max_line_length;
        let mut lines = 0u64;
        while i + 64 <= buf.len() {
            platform::simd::prefetch_ahead(buf, i);
            let block = buf.array::<64>(i);
            let lf = m.eq(block, b'\n');
            let tab = m.eq(block, b'\t');
            let (one, two) = if TIGHT { (!m.continuation(block), m.ge(block, 0xe1)) } else { (u64::MAX, 0) };
            let bound = |part: u64| {
                u64::from((one & part).count_ones() + (two & part).count_ones() + 7 * (tab & part).count_ones())
            };
            let last = 64 - lf.leading_zeros();
            let after = u64::MAX.checked_shl(last).unwrap_or(0);
            // Even the whole window cannot make the running line the longest; or, closer, neither
            // the running line up to the first line end nor the bytes between the first and last
            // can. Lines of emoji and their joiners, whose bound is far above their width, need it.
            let fits = pos + grown + bound(u64::MAX) <= longest || {
                let before = !u64::MAX.checked_shl(lf.trailing_zeros()).unwrap_or(0);
                pos + grown + bound(before) <= longest && bound(!before & !after) <= longest
            };
            if fits {
                // The line running at the window's last line end (if any) starts the unmeasured
                // bytes anew; without a line end they grow by the whole window.
                let tail = bound(after);
                // All ones when the window has no line end: selects by masks, since a branch
                // on line ends mispredicts on every other window of ordinary text.
                let keep = u64::from(lf == 0).wrapping_neg();
                start = (start & keep as usize) | ((i + last as usize) & !keep as usize);
                pos &= keep;
                grown = (grown & keep) + tail;
                lines += u64::from(lf.count_ones());
                i += 64;
                continue;
            }
            match self.measure(m, buf, start, i + 64, pos) {
                Some(at) => {
                    i = at;
                    start = at;
                    grown = 0;
                    pos = self.line_pos;
                    longest = self.counts.max_line_length;
                }
                None => {
                    self.counts.lines += lines;
                    return start;
                }
            }
        }
        self.counts.lines += lines;
        if start == i {
            self.line_pos = pos;
            return i;
        }
        match self.measure(m, buf, start, i, pos) {
            Some(at) => at,
            None => start,
        }
    }

    /// -L with -w or -m in UTF-8 (`Pass::Widths { alone: false }`) from `buf[from..]`, with table look-ups:
    /// `width_block` measures each window and finds its characters, words come from masks and byte patterns. The
    /// general window would decode each non-ASCII character, far more costly (benches/RESULTS.md, "Figures behind
    /// code comments"). Returns where it stopped: before a window lacking three bytes after it, past a space's tail.
    #[inline(always)]
    pub(super) fn widths_run<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, from: usize) -> usize {
        if !self.width_lookups(m, buf.len()) || from + 67 > buf.len() {
            return from;
        }
        if !self.want.words {
            return self.widths_windows::<B, BY_COMPARES>(m, buf, from, None);
        }
        let Some(spaces) = self.classes.utf8_spaces() else {
            return from;
        };
        match m.patterns_how(spaces) {
            BY_TOP => self.widths_windows::<B, BY_TOP>(m, buf, from, Some(spaces)),
            BY_SELECTION => self.widths_windows::<B, BY_SELECTION>(m, buf, from, Some(spaces)),
            _ => self.widths_windows::<B, BY_COMPARES>(m, buf, from, Some(spaces)),
        }
    }

    /// [`Self::widths_run`] with multibyte spaces `spaces` (if words are counted) found `HOW` (`Masks::patterns_how`).
    #[inline(always)]
    fn widths_windows<B: Block64, const HOW: u8>(
        &mut self,
        m: Masks<B>,
        buf: Changing<'_>,
        from: usize,
        spaces: Option<&BytePatterns>,
    ) -> usize {
        // The bytes of a multibyte space that began in the last window and go on in this one.
        let mut carry = 0u64;
        let mut i = from;
        while i + 67 <= buf.len() {
            platform::simd::prefetch_ahead(buf, i);
            let starts = self.width_block(m, buf, i);
            self.counts.chars += u64::from(starts.count_ones());
            if let Some(spaces) = spaces {
                let window = buf.array::<66>(i);
                let block = window.array::<64>(0);
                let mut space = m.ascii_space(block, None) | carry;
                carry = 0;
                if m.high(block) != 0 {
                    let (multibyte, next) = m.pattern_bytes::<HOW>(window, spaces);
                    space |= multibyte;
                    carry = next;
                }
                // A word ends where a space follows a word byte (the carry is the byte before).
                let prev_nonspace = (!space << 1) | u64::from(self.in_word);
                self.counts.words += u64::from((space & prev_nonspace).count_ones());
                self.in_word = space >> 63 == 0;
            }
            i += 64;
        }
        // The tail of a space begun in the last window: no line end, no character, its width counted where it began.
        i + carry.count_ones() as usize
    }

    /// Whether `width_block` measures a `len`-byte chunk: UTF-8, look-ups, tables that pay (`WideClasses::tables_pay`).
    #[inline(always)]
    fn width_lookups<B: Block64>(&self, m: Masks<B>, len: usize) -> bool {
        self.utf8 && m.lookups_pay() && self.classes.wide.tables_pay(len)
    }

    /// Measures `buf[start..]` exactly through at least `to` with `line_block`, the line `pos` wide at `start`.
    /// Returns where it stopped, or None (`line_pos` set to `pos`) if a window there fails: the caller then does.
    #[inline(always)]
    pub(super) fn measure<B: Block64>(
        &mut self,
        m: Masks<B>,
        buf: Changing<'_>,
        start: usize,
        to: usize,
        pos: u64,
    ) -> Option<usize> {
        self.line_pos = pos;
        let lookups = self.width_lookups(m, buf.len());
        let mut at = start;
        while at < to {
            if at + 64 > buf.len() {
                return (at > start).then_some(at);
            }
            let used = if lookups && at + 67 <= buf.len() {
                self.width_block(m, buf, at);
                64
            } else {
                // (-L alone: no words.)
                self.line_block::<B, true>(
                    m,
                    buf,
                    at,
                    Known { utf8: self.utf8, multibyte: self.multibyte, words: false },
                )
            };
            if used == 0 {
                return (at > start).then_some(at);
            }
            at += used;
        }
        Some(at)
    }

    /// The widths of a UTF-8 window at `buf[at..]` (holding the three bytes after it), by table look-ups only. A
    /// valid character's width is in its row's table (the C library's, see `WideClasses`): one vector look-up a row,
    /// or a lead byte where the row has one width (most CJK, Hangul). Counting the bits of characters one column or
    /// more wide, and two, gives the lines' widths. Returns where characters begin (invalid bytes begin none).
    #[inline(always)]
    pub(super) fn width_block<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, at: usize) -> u64 {
        let w = buf.array::<67>(at);
        let (b0, b1, b2, b3) = (w.array::<64>(0), w.array::<64>(1), w.array::<64>(2), w.array::<64>(3));
        let control_or_high = m.control_or_high(b0);
        let high = m.high(b0);
        // Printable ASCII is one column; then each block's characters by look-up.
        let (mut w1, mut w2) = (!control_or_high, 0u64);
        let [two, three, four] = if high == 0 { [0; 3] } else { m.utf8_starts(w) };
        let wide = &self.classes.wide;
        let mut add = |(x1, x2): (u64, u64)| {
            w1 |= x1;
            w2 |= x2;
        };
        // Two-byte forms: a row of 64 code points per lead byte.
        add(self.row_widths(m, two, 0, b0, b1));
        // Groups take their first character's bit too: the loop ends though another writer changes a mapped byte.
        let mut todo = three;
        while todo != 0 {
            let p = todo.trailing_zeros() as usize;
            let lead = b0.byte(p);
            let same_lead = todo & (m.eq(b0, lead) | 1 << p);
            todo &= !same_lead;
            let [x1, x2, mixed] = m.lookup64(b1, wide.lead_rows(lead), [ROW_WIDTH_BITS, 0b010, ROW_MIXED]);
            let mixed = same_lead & mixed;
            add((same_lead & !mixed & x1, same_lead & !mixed & x2));
            add(self.row_widths(m, mixed, u32::from(lead & 0x0f) << 12, b1, b2));
        }
        let mut todo = four;
        while todo != 0 {
            let p = todo.trailing_zeros() as usize;
            let (lead, second) = (b0.byte(p), b1.byte(p));
            let same_region = todo & ((m.eq(b0, lead) & m.eq(b1, second)) | 1 << p);
            todo &= !same_region;
            let [x1, x2, mixed] = m.lookup64(b2, wide.region_rows(lead, second), [ROW_WIDTH_BITS, 0b010, ROW_MIXED]);
            let mixed = same_region & mixed;
            add((same_region & !mixed & x1, same_region & !mixed & x2));
            let prefix = (u32::from(lead & 0x07) << 18) | (u32::from(second & 0x3f) << 12);
            add(self.row_widths(m, mixed, prefix, b2, b3));
        }
        // Line ends, TABs and the other controls in order; the columns between them are counted.
        let width =
            |from: usize, to: usize| u64::from((w1 & span(from, to)).count_ones() + (w2 & span(from, to)).count_ones());
        let mut controls = control_or_high & !high;
        let (mut pos, mut longest, mut lines) = (self.line_pos, self.counts.max_line_length, 0u64);
        let mut last = 0;
        while controls != 0 {
            let e = controls.trailing_zeros() as usize;
            controls &= controls - 1;
            pos += width(last, e);
            last = e;
            match b0.byte(e) {
                byte @ (b'\n' | b'\r' | 0x0c) => {
                    lines += u64::from(byte == b'\n');
                    longest = longest.max(pos);
                    pos = 0;
                }
                b'\t' => pos += 8 - pos % 8,
                _ => {}
            }
        }
        pos += width(last, 64);
        self.line_pos = pos;
        self.counts.max_line_length = longest;
        self.counts.lines += lines;
        !high | two | three | four
    }

    /// The widths (one column or more, two) of the characters at the bits of `chars`, code points
    /// `prefix` plus `next`'s and `last`'s low six bits: a few one by one, more a row at a time.
    #[inline(always)]
    fn row_widths<B: Block64>(
        &self,
        m: Masks<B>,
        mut chars: u64,
        prefix: u32,
        next: Changing<'_, [u8; 64]>,
        last: Changing<'_, [u8; 64]>,
    ) -> (u64, u64) {
        let wide = &self.classes.wide;
        let (mut w1, mut w2) = (0, 0);
        let first = |next: u8| prefix | (u32::from(next & 0x3f) << 6);
        if chars.count_ones() <= FEW_CHARACTERS {
            while chars != 0 {
                let p = chars.trailing_zeros() as usize;
                chars &= chars - 1;
                let width = wide.get(first(next.byte(p)) | u32::from(last.byte(p) & 0x3f)) & WIDTH_BITS;
                w1 |= u64::from(width != 0) << p;
                w2 |= u64::from(width == 2) << p;
            }
        }
        while chars != 0 {
            // (The first character's bit too, as in `width_block`.)
            let p = chars.trailing_zeros() as usize;
            let byte = next.byte(p);
            let same = chars & (m.eq(next, byte) | 1 << p);
            let [x1, x2, _] = m.lookup64(last, wide.row64(first(byte)), [WIDTH_BITS, 0b10, 0]);
            w1 |= same & x1;
            w2 |= same & x2;
            chars &= !same;
        }
        (w1, w2)
    }
}
