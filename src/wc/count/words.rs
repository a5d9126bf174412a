//! Words (and the default count) without `-m` or `-L`: each window's white space by masks, the
//! multibyte spaces of UTF-8 by byte patterns; words end where white space follows a word byte.

use super::Counter;
use crate::platform::simd::{BY_COMPARES, BY_SELECTION, BY_TOP, Block64, BytePatterns, Masks, TALLY_MAX};
use crate::platform::{self, Changing};

/// When to look for the leads of multibyte spaces before looking spaces up by table (`WordWindows::sparse`). The
/// look-up costs more than the rest of a window's count, and most windows of most scripts hold no such lead (Arabic,
/// Devanagari, Hangul: all; Chinese: half). Where nearly every window holds one (kana share U+3000's lead), looking
/// first only adds: the filter stands aside a while when over three windows in four of a sampled batch hold one.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LeadFilter {
    pub(super) off: bool,
    /// Batches since it stood aside.
    rested: u32,
}

// A batch's line ends are one tally.
const _: () = assert!(LeadFilter::BATCH <= platform::simd::TALLY_MAX);

impl LeadFilter {
    /// Windows per batch (and per sample while on; at most a tally's).
    pub(super) const BATCH: usize = 64;

    /// Batches before it samples again after standing aside.
    pub(super) const REST: u32 = 64;

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

impl Counter<'_> {
    /// UTF-8 words (with lines and bytes), without -m or -L. A window's white space is its ASCII white space plus the
    /// bytes of the multibyte spaces that begin in it (`utf8::utf8_spaces`); words end where white space follows a
    /// word byte. Stops two bytes before the chunk's end, never inside a multibyte space (any other character it cuts
    /// is word bytes anyway), and returns where. Windows go in batches of one kind (`LeadFilter`, [`WordWindows`]).
    #[inline(always)]
    pub(super) fn words_run<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, from: usize) -> usize {
        // No spaces' patterns for an input too short for a window: they cost a few hundred
        // look-ups in the C library's tables (benches/RESULTS.md, "Figures behind code comments").
        if from + 66 > buf.len() {
            return from;
        }
        let Some(spaces) = self.classes.utf8_spaces() else {
            return from;
        };
        let mut run = WordWindows { carry: 0, in_word: self.in_word, words: 0 };
        // How a window's multibyte spaces are found is decided once: whatever costs the kernel
        // least. Where it is a table look-up, windows without the lead byte of a space may skip it.
        let how = m.patterns_how(spaces);
        let filtered = how != BY_COMPARES;
        let mut i = from;
        while buf.len() - i >= 66 {
            let batch = ((buf.len() - 2 - i) / 64).min(LeadFilter::BATCH);
            let windows = buf.range(i..i + 64 * batch + 2);
            let filter = filtered && self.lead_filter.on();
            let (hits, lines) = match (how, filter) {
                (BY_TOP, true) => run.sparse::<B, BY_TOP>(m, spaces, windows),
                (BY_TOP, false) => run.dense::<B, BY_TOP>(m, spaces, windows),
                (BY_SELECTION, true) => run.sparse::<B, BY_SELECTION>(m, spaces, windows),
                (BY_SELECTION, false) => run.dense::<B, BY_SELECTION>(m, spaces, windows),
                _ => run.dense::<B, BY_COMPARES>(m, spaces, windows),
            };
            match filter {
                true => self.lead_filter.sampled(hits),
                false => self.lead_filter.rested(),
            }
            self.counts.lines += lines;
            i += 64 * batch;
        }
        // The last bytes of a space that began in the last window: spaces, no line end.
        i += run.carry.count_ones() as usize;
        self.counts.words += run.words;
        self.in_word = run.in_word;
        i
    }

    /// Words (with lines and bytes) without -L in a single-byte locale with the usual ASCII white space, plus the
    /// locale's one such byte above 0x7f, if any; line ends go into a tally. Returns where it stopped.
    #[inline(always)]
    pub(super) fn unibyte_words_run<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, from: usize) -> usize {
        // A loop for each kind of locale, with a white-space byte above 0x7f and without, so that
        // no window tests which (the compiler does not always take the test out of the loop).
        match self.classes.space_high {
            Some(byte) => self.unibyte_words(m, buf, from, Some(byte)),
            None => self.unibyte_words(m, buf, from, None),
        }
    }

    /// [`Self::unibyte_words_run`] with the white-space byte above 0x7f, `extra`.
    #[inline(always)]
    fn unibyte_words<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, from: usize, extra: Option<u8>) -> usize {
        let mut run = WordWindows { carry: 0, in_word: self.in_word, words: 0 };
        let mut i = from;
        while buf.len() - i >= 64 {
            let end = i + 64 * ((buf.len() - i) / 64).min(TALLY_MAX);
            let mut lines = m.tally_new();
            while i < end {
                platform::simd::prefetch_ahead(buf, i);
                let block = buf.array::<64>(i);
                run.words(m.ascii_space(block, extra));
                lines = m.tally(lines, block, b'\n');
                i += 64;
            }
            self.counts.lines += m.tally_total(lines);
        }
        self.counts.words += run.words;
        self.in_word = run.in_word;
        i
    }
}

/// The state of [`Counter::words_run`] from one window to the next.
struct WordWindows {
    /// The bytes of a multibyte space that began in the last window and go on in this one.
    carry: u64,
    /// The byte before the window is a word byte.
    in_word: bool,
    words: u64,
}

impl WordWindows {
    /// The words that end in `windows` (up to [`LeadFilter::BATCH`] of 64 bytes, then two more),
    /// spaces found `HOW` where a byte is above 0x7f. Returns 0 (no leads looked for) and lines.
    #[inline(always)]
    fn dense<B: Block64, const HOW: u8>(
        &mut self,
        m: Masks<B>,
        spaces: &BytePatterns,
        windows: Changing<'_>,
    ) -> (u32, u64) {
        let mut lines = m.tally_new();
        let mut at = 0;
        while at + 66 <= windows.len() {
            platform::simd::prefetch_ahead(windows, at);
            let window = windows.array::<66>(at);
            let block = window.array::<64>(0);
            let mut space = m.ascii_space(block, None) | self.carry;
            self.carry = 0;
            if m.high(block) != 0 {
                let (mb, next) = m.pattern_bytes::<HOW>(window, spaces);
                space |= mb;
                self.carry = next;
            }
            self.words(space);
            lines = m.tally(lines, block, b'\n');
            at += 64;
        }
        (0, m.tally_total(lines))
    }

    /// [`Self::dense`] for windows most of which hold no lead byte of a multibyte space (table
    /// look-ups only): the others are not looked up. Returns how many held one, and the line ends.
    /// In three passes, so that a window the look-up skips costs no branch: each window's ASCII
    /// white space, line ends and whether it holds a lead; then the look-ups of those that do, a
    /// loop over a bit mask whose only hard-to-guess branch is its end; then the words.
    #[inline(always)]
    fn sparse<B: Block64, const HOW: u8>(
        &mut self,
        m: Masks<B>,
        spaces: &BytePatterns,
        windows: Changing<'_>,
    ) -> (u32, u64) {
        let n = (windows.len() - 2) / 64;
        // Each window's ASCII white space, the bytes of the multibyte spaces that begin in it, and
        // those that go on from the window before (the last entry: past the batch). Only stores:
        // a wide store read back in part by the next window's read-modify-write would stall.
        let mut ascii = [0u64; LeadFilter::BATCH];
        let mut multi = [0u64; LeadFilter::BATCH];
        let mut carried = [0u64; LeadFilter::BATCH + 1];
        carried[0] = self.carry;
        let mut look = 0u64;
        let mut lines = m.tally_new();
        for (k, slot) in ascii[..n].iter_mut().enumerate() {
            let at = 64 * k;
            platform::simd::prefetch_ahead(windows, at);
            let block = windows.array::<64>(at);
            *slot = m.ascii_space(block, None);
            look |= u64::from(m.may_begin(block, spaces)) << k;
            lines = m.tally(lines, block, b'\n');
        }
        let mut todo = look;
        while todo != 0 {
            let k = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let window = windows.array::<66>(64 * k);
            (multi[k], carried[k + 1]) = m.pattern_bytes::<HOW>(window, spaces);
        }
        for k in 0..n {
            self.words(ascii[k] | multi[k] | carried[k]);
        }
        self.carry = carried[n];
        (look.count_ones(), m.tally_total(lines))
    }

    /// The words that end in a window whose white space is `space`.
    #[inline(always)]
    fn words(&mut self, space: u64) {
        // A word ends where a space follows a word byte (the carry is the previous byte).
        let prev_nonspace = (!space << 1) | u64::from(self.in_word);
        self.words += u64::from((space & prev_nonspace).count_ones());
        self.in_word = space >> 63 == 0;
    }
}
