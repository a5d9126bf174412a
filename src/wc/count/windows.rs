//! The window paths of the counter: words (and the default count) by byte patterns, `-m` on
//! valid UTF-8 by masks, and the general window that visits only the bytes that matter.

use super::*;
use crate::platform::simd::{NibblePatterns, TALLY_MAX, Tally};

impl Counter<'_> {
    /// UTF-8 words (with lines and bytes), without -m or -L: each window's white space is its
    /// ASCII white space plus the bytes of the multibyte spaces that begin in it (byte patterns,
    /// see [`Utf8Spaces`]), and words end where white space
    /// follows a word byte, whatever the script: nothing is decoded. Stops two bytes before the
    /// chunk's end (a space's last bytes must be there to be seen), never inside a multibyte
    /// space; the bytes of any other character it stops inside are word bytes either way.
    /// Returns where it stopped.
    ///
    /// The windows go in batches of one kind (see `LeadFilter` and [`WordWindows`]), line ends
    /// into a tally.
    #[inline(always)]
    pub(super) fn words_run<B: Block64>(&mut self, m: Masks<B>, buf: &[u8], from: usize) -> usize {
        // (Not even the spaces' patterns for an input too short for a window: they cost a
        // few hundred look-ups in the C library's tables, a tenth of a tiny file's run.)
        if from + 66 > buf.len() {
            return from;
        }
        let Some(spaces) = self.classes.utf8_spaces() else {
            return from;
        };
        let mut run = WordWindows { carry: 0, in_word: self.in_word, words: 0 };
        // How a window's multibyte spaces are found, decided once (see `WordWindows::look_up`).
        let (how, nibbles) = match &spaces.nibbles {
            Some(nibbles @ (_, 0x80, _)) if B::TABLE_LOOKUPS => (BY_TOP, nibbles),
            Some(nibbles) if B::TABLE_LOOKUPS => (BY_SELECTION, nibbles),
            _ => (BY_COMPARES, &NO_NIBBLES),
        };
        let run_spaces = (spaces, nibbles);
        // With table look-ups, windows without the lead byte of a space may skip them (without,
        // `mask` itself starts with the leads).
        let filtered = B::TABLE_LOOKUPS;
        let mut i = from;
        // Windows begin where the 66 bytes they need are there.
        while buf.len() - i >= 66 {
            let batch = ((buf.len() - 2 - i) / 64).min(LeadFilter::BATCH);
            let windows = &buf[i..i + 64 * batch + 2];
            let filter = filtered && self.lead_filter.on();
            let (hits, lines) = match (how, filter) {
                (BY_TOP, true) => run.sparse::<B, BY_TOP>(m, run_spaces, windows),
                (BY_TOP, false) => run.dense::<B, BY_TOP>(m, run_spaces, windows),
                (BY_SELECTION, true) => run.sparse::<B, BY_SELECTION>(m, run_spaces, windows),
                (BY_SELECTION, false) => run.dense::<B, BY_SELECTION>(m, run_spaces, windows),
                _ => run.dense::<B, BY_COMPARES>(m, run_spaces, windows),
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

    /// Words (with lines and bytes) in a single-byte locale whose ASCII white space is the
    /// usual one, without -L: each window's white space is its ASCII white space and the
    /// locale's one white-space byte above 0x7f, if any; line ends go into a tally, a batch of
    /// windows at a time. Returns where it stopped (at a window boundary).
    #[inline(always)]
    pub(super) fn unibyte_words_run<B: Block64>(&mut self, m: Masks<B>, buf: &[u8], from: usize) -> usize {
        // A loop for each kind of locale, with a white-space byte above 0x7f and without, so that
        // no window tests which (the compiler does not always take the test out of the loop).
        match self.classes.space_high {
            Some(byte) => self.unibyte_words(m, buf, from, Some(byte)),
            None => self.unibyte_words(m, buf, from, None),
        }
    }

    /// [`Self::unibyte_words_run`] with the white-space byte above 0x7f, `extra`.
    #[inline(always)]
    fn unibyte_words<B: Block64>(&mut self, m: Masks<B>, buf: &[u8], from: usize, extra: Option<u8>) -> usize {
        let mut run = WordWindows { carry: 0, in_word: self.in_word, words: 0 };
        let mut i = from;
        while buf.len() - i >= 64 {
            let end = i + 64 * ((buf.len() - i) / 64).min(TALLY_MAX);
            let mut lines = m.tally_new();
            while i < end {
                platform::simd::prefetch_ahead(buf, i);
                let block: &[u8; 64] = buf[i..i + 64].try_into().unwrap();
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

    /// UTF-8 characters (with lines and bytes), without -w or -L, from `buf[from..]`. Each
    /// window is checked by the Keiser-Lemire validator (three table look-ups): where it and the
    /// next window's check find no error, its characters are its bytes that are not
    /// continuation bytes, tallied in registers over a batch of windows (64 characters each,
    /// less the tally). Where a check finds an error, that window and the one before it (whose
    /// last character may be the broken one; the tally's count of it is taken back) are
    /// counted exactly by `exact_chars`, which needs no decoding either. Windows need the three
    /// bytes after them; it stops at a window boundary, maybe inside a character it counted
    /// (its last bytes are no character to what follows, either way). Line ends are counted in
    /// one pass at the end.
    #[inline(always)]
    pub(super) fn chars_run<B: Block64>(&mut self, m: Masks<B>, buf: &[u8], from: usize) -> usize {
        if !B::TABLE_LOOKUPS {
            return self.chars_run_by_masks(m, buf, from);
        }
        if from + 67 > buf.len() {
            return from;
        }
        let mut run =
            CharWindows { tally: m.tally_new(), tallied: 0, continuation: 0, exact: 0, taken_back: 0, pending: false };
        // The three bytes before the first window: before the run's start, which is a character
        // boundary, ASCII stands for them.
        let mut first = [0u8; 67];
        first[3..].copy_from_slice(&buf[from..from + 64]);
        run.window(m, buf, from, &first);
        let mut i = from + 64;
        let mut batch = from;
        while batch + 67 <= buf.len() {
            // Batches of as many windows as a tally holds (the first one's first done above).
            let end = (batch + 64 * TALLY_MAX).min(buf.len() - 3);
            while i + 64 <= end {
                platform::simd::prefetch_ahead(buf, i);
                run.window(m, buf, i, buf[i - 3..i + 64].try_into().unwrap());
                i += 64;
            }
            run.continuation += m.tally_total(run.tally);
            run.tally = m.tally_new();
            batch = i;
        }
        if run.pending {
            // The last window's characters that reach past it were checked by no next window.
            run.take_back(m, buf, i - 64);
        }
        self.counts.chars += 64 * run.tallied - run.continuation - run.taken_back + run.exact;
        if self.want.lines {
            self.counts.lines += count_lines(&buf[from..i]);
        }
        i
    }

    /// [`Self::chars_run`] for instruction sets without table look-ups (SSE2, SWAR): blocks of
    /// ASCII are skipped 64 bytes at a time, the others counted by [`Self::valid_utf8_block`]
    /// or else by [`Self::line_block`]; line ends are counted in one pass at the end. Returns
    /// where it stopped (the rest goes to the character loop).
    #[inline(always)]
    pub(super) fn chars_run_by_masks<B: Block64>(&mut self, m: Masks<B>, buf: &[u8], from: usize) -> usize {
        let mut i = from;
        self.bulk_lines = true;
        while i + 64 <= buf.len() {
            let ascii = m.ascii_blocks(&buf[i..]);
            self.counts.chars += ascii as u64;
            i += ascii;
            if i + 64 > buf.len() {
                break;
            }
            let used = match self.valid_utf8_block(m, buf[i..i + 64].try_into().unwrap()) {
                0 => self.line_block::<B, false>(m, buf, i),
                used => used,
            };
            if used == 0 {
                break;
            }
            i += used;
        }
        self.bulk_lines = false;
        if self.want.lines {
            self.counts.lines += count_lines(&buf[from..i]);
        }
        i
    }

    /// UTF-8 without -w or -L: a window whose characters are all valid is counted from masks
    /// alone (characters are the bytes that are not continuation bytes), checking the
    /// structure as a whole: no byte that never occurs in UTF-8, continuation bytes exactly
    /// where the lead bytes want them, and the second-byte limits of the leads E0, ED, F0, F4
    /// (no overlong form, no surrogate, nothing past U+10FFFF). The window ends before a
    /// character that would cross its end. Returns the bytes used, or 0 when anything is off
    /// (the character loop then decides, byte by byte).
    #[inline(always)]
    pub(super) fn valid_utf8_block<B: Block64>(&mut self, m: Masks<B>, block: &[u8; 64]) -> usize {
        let r = m.utf8_ranges(block);
        // C0, C1 and F5..FF never occur; nor a high byte that is neither lead nor continuation.
        if r.ge_f5 != 0 || r.high & !r.cont & !r.ge_c2 != 0 {
            return 0;
        }
        let crossing = r.crossing_leads();
        let end = if crossing == 0 { 64 } else { crossing.trailing_zeros() as usize };
        if end == 0 {
            return 0;
        }
        let valid = u64::MAX >> (64 - end);
        let [lead2, lead3, lead4] = r.leads().map(|lead| lead & valid);
        let expected = ((lead2 | lead3 | lead4) << 1) | ((lead3 | lead4) << 2) | (lead4 << 3);
        if expected != r.cont & valid {
            return 0;
        }
        // Only the leads E0, ED, F0 and F4 limit their second byte (rare in most text).
        let mut long = (m.eq(block, 0xe0) | m.eq(block, 0xed) | m.eq(block, 0xf0) | m.eq(block, 0xf4)) & valid;
        while long != 0 {
            let p = long.trailing_zeros() as usize;
            long &= long - 1;
            let ok = match block[p] {
                0xe0 => block[p + 1] >= 0xa0,
                0xed => block[p + 1] < 0xa0,
                0xf0 => block[p + 1] >= 0x90,
                _ => block[p + 1] < 0x90,
            };
            if !ok {
                return 0;
            }
        }
        if !self.bulk_lines {
            self.counts.lines += u64::from((m.eq(block, b'\n') & valid).count_ones());
        }
        self.counts.chars += u64::from((!r.cont & valid).count_ones());
        end
    }

    /// A 64-byte window at `buf[at..]`, for -L (`WIDTH`) in a single-byte or UTF-8 locale, and
    /// without -L for UTF-8 windows that hold non-ASCII bytes. Lines, white space and characters
    /// come from SIMD masks; only the "events" are visited one by one: with `WIDTH` the controls
    /// (line ends, TAB, ...), and the bytes that may begin a UTF-8 character (a lead byte with
    /// the continuation bytes it wants; in a single-byte locale every byte above 0x7f unless none
    /// is printable). Any other byte above 0x7f is an invalid byte or a continuation byte a lead
    /// takes with it: invalid ones are word bytes, no character, width 0, so they need no visit
    /// (a run between events is as wide as its bytes below 0x80). A UTF-8 character is decoded
    /// (which also checks the E0/ED/F0/F4 limits) and classified from the cached C-library
    /// classes (its bytes join the space mask if it is white space). The window ends before a
    /// character that would cross its end. Returns the bytes used (0: leave this window to the
    /// character loop).
    #[inline(always)]
    pub(super) fn line_block<B: Block64, const WIDTH: bool>(&mut self, m: Masks<B>, buf: &[u8], at: usize) -> usize {
        let block: &[u8; 64] = buf[at..at + 64].try_into().unwrap();
        let mut space = if self.want.words { m.ascii_space(block, self.classes.space_high) } else { 0 };
        let high = m.high(block);
        let controls = if WIDTH { m.controls(block) } else { 0 };
        // `high`: the bytes above 0x7f, counted out of characters; `hidden`: those that are not
        // events, counted out of a run's width.
        let (high, hidden, mut events) = if self.utf8 && high == 0 {
            (0, 0, controls)
        } else if self.utf8 {
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
        // -L without -w or -m: a line's width grows by at most one column per byte, except at a
        // TAB (up to eight): every character is at most as wide as its encoding is long, other
        // controls have no width, CR and FF only end lines. So when the window has a line end
        // and even the line running into it plus the whole window (TABs at their widest) cannot
        // pass the longest line so far, nothing before its last line end can change the answer:
        // only what follows that line end is measured.
        let lf = m.eq(block, b'\n');
        if WIDTH && lf != 0 && self.width_alone() {
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
            let c = block[p];
            let mut n = 1;
            // Most frequent first: line ends, then non-ASCII, TABs, the rest.
            if c == b'\n' {
                longest = longest.max(pos);
                pos = 0;
            } else if c >= 0x80 {
                if self.utf8 {
                    match utf8_char(&buf[at + p..]) {
                        Utf8::Char(wc, len) if p + len <= 64 => {
                            if WIDTH || self.want.words {
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
        if !self.bulk_lines {
            self.counts.lines += u64::from((lf & valid).count_ones());
        }
        if self.want.words {
            let space = space & valid;
            let prev_nonspace = (!space << 1) | u64::from(self.in_word);
            self.counts.words += u64::from((space & prev_nonspace & valid).count_ones());
            self.in_word = space >> (end - 1) & 1 == 0;
        }
        if self.multibyte {
            self.counts.chars += u64::from((!high & valid).count_ones()) + wide_chars;
        }
        end
    }
}

/// The valid UTF-8 characters that begin in the window at `buf[at..]` (which must hold the
/// three bytes after it): ASCII bytes, and the positions where a valid form begins (nibble
/// look-ups of each position's first three bytes, a continuation byte fourth for four-byte
/// forms). Exact whatever the bytes: an invalid byte begins no character, as in GNU.
#[inline(always)]
fn exact_chars<B: Block64>(m: Masks<B>, buf: &[u8], at: usize) -> u64 {
    let block: &[u8; 64] = buf[at..at + 64].try_into().unwrap();
    let window: &[u8; 66] = buf[at..at + 66].try_into().unwrap();
    let four_byte = platform::simd::UTF8_FOUR_BYTE;
    let [short, long, _] = m.pattern_starts(window, platform::simd::utf8_start_patterns(), [!four_byte, four_byte, 0]);
    let cont3 = m.continuation(buf[at + 3..at + 67].try_into().unwrap());
    u64::from((!m.high(block) | short | (long & cont3)).count_ones())
}

/// How [`WordWindows`] finds multibyte spaces: table look-ups with glibc's layout (the one
/// two-byte pattern in bit 7), table look-ups with selection masks, or compares.
const BY_TOP: u8 = 0;
const BY_SELECTION: u8 = 1;
const BY_COMPARES: u8 = 2;

/// The nibble patterns given where spaces are found by compares (never looked at).
static NO_NIBBLES: (NibblePatterns, u8, u8) = (NibblePatterns { lo: [[0; 16]; 3], hi: [[0; 16]; 3] }, 0, 0);

/// The spaces, and their nibble patterns (or [`NO_NIBBLES`]).
type RunSpaces<'a> = (&'a Utf8Spaces, &'a (NibblePatterns, u8, u8));

/// The state of [`Counter::words_run`] from one window to the next.
struct WordWindows {
    /// The bytes of a multibyte space that began in the last window and go on in this one.
    carry: u64,
    /// The byte before the window is a word byte.
    in_word: bool,
    words: u64,
}

impl WordWindows {
    /// The words that end in the windows of `windows` (64 bytes each, and the two bytes after
    /// the last; at most [`LeadFilter::BATCH`] windows), multibyte spaces found `HOW` in the
    /// windows that hold a byte above 0x7f. Returns 0 (no lead bytes looked for) and the line
    /// ends.
    #[inline(always)]
    fn dense<B: Block64, const HOW: u8>(&mut self, m: Masks<B>, spaces: RunSpaces<'_>, windows: &[u8]) -> (u32, u64) {
        let mut lines = m.tally_new();
        let mut at = 0;
        while let Some(window) = windows.get(at..at + 66) {
            platform::simd::prefetch_ahead(windows, at);
            let window: &[u8; 66] = window.try_into().unwrap();
            let (block, _) = window.split_first_chunk::<64>().unwrap();
            let mut space = m.ascii_space(block, None) | self.carry;
            self.carry = 0;
            if m.high(block) != 0 {
                let (mb, next) = Self::look_up::<B, HOW>(m, spaces, window);
                space |= mb;
                self.carry = next;
            }
            self.words(space);
            lines = m.tally(lines, block, b'\n');
            at += 64;
        }
        (0, m.tally_total(lines))
    }

    /// [`Self::dense`] for windows most of which hold no lead byte of a multibyte space
    /// (table look-ups only): the others are not looked up. Returns how many windows held a
    /// lead byte, and the line ends.
    ///
    /// In three passes, so that a window the look-up skips costs no branch: the first takes
    /// each window's ASCII white space, line ends, and whether it holds a lead byte; the
    /// second looks up those that do, one after the other (a loop over a bit mask, whose only
    /// hard-to-guess branch is its end); the third counts the words.
    #[inline(always)]
    fn sparse<B: Block64, const HOW: u8>(&mut self, m: Masks<B>, spaces: RunSpaces<'_>, windows: &[u8]) -> (u32, u64) {
        let n = (windows.len() - 2) / 64;
        // Each window's ASCII white space, the bytes of the multibyte spaces that begin in it,
        // and those that go on from the window before (the last slot: past the batch). Only
        // stores, no read-modify-write: a wide store read back in part by the next window's
        // would stall.
        let mut ascii = [0u64; LeadFilter::BATCH];
        let mut multi = [0u64; LeadFilter::BATCH];
        let mut carried = [0u64; LeadFilter::BATCH + 1];
        carried[0] = self.carry;
        let mut look = 0u64;
        let mut lines = m.tally_new();
        for (k, slot) in ascii[..n].iter_mut().enumerate() {
            let at = 64 * k;
            platform::simd::prefetch_ahead(windows, at);
            let block: &[u8; 64] = windows[at..at + 64].try_into().unwrap();
            *slot = m.ascii_space(block, None);
            look |= u64::from(m.may_start(block, &spaces.1.0)) << k;
            lines = m.tally(lines, block, b'\n');
        }
        let mut todo = look;
        while todo != 0 {
            let k = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let window: &[u8; 66] = windows[64 * k..64 * k + 66].try_into().unwrap();
            (multi[k], carried[k + 1]) = Self::look_up::<B, HOW>(m, spaces, window);
        }
        for k in 0..n {
            self.words(ascii[k] | multi[k] | carried[k]);
        }
        self.carry = carried[n];
        (look.count_ones(), m.tally_total(lines))
    }

    /// The bytes of the multibyte spaces that begin in `window[..64]`, and those past it.
    #[inline(always)]
    fn look_up<B: Block64, const HOW: u8>(
        m: Masks<B>,
        (spaces, nibbles): RunSpaces<'_>,
        window: &[u8; 66],
    ) -> (u64, u64) {
        match HOW {
            BY_TOP => Utf8Spaces::spread(m.pattern_starts_top(window, &nibbles.0)),
            BY_SELECTION => Utf8Spaces::mask_by_tables(m, nibbles, window),
            _ => {
                let (block, after) = window.split_first_chunk::<64>().unwrap();
                spaces.mask(m, block, after.try_into().unwrap())
            }
        }
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

/// The state of [`Counter::chars_run`]: windows found valid are counted from a tally of their
/// continuation bytes (64 characters less those), the others exactly.
struct CharWindows<B> {
    tally: Tally<B>,
    /// Windows in the tallies.
    tallied: u64,
    /// The continuation bytes of the tallies so far.
    continuation: u64,
    /// The characters of the windows counted exactly.
    exact: u64,
    /// What tallied windows counted that a later check took back.
    taken_back: u64,
    /// The last window was tallied, and the next window's check must confirm it (its last
    /// character may be cut by a byte that follows).
    pending: bool,
}

impl<B: Block64> CharWindows<B> {
    /// The window at `buf[at..]`, whose three bytes before it and 64 bytes are `window`.
    #[inline(always)]
    fn window(&mut self, m: Masks<B>, buf: &[u8], at: usize, window: &[u8; 67]) {
        if !m.utf8_errors(window) {
            self.tally = m.tally_continuation(self.tally, window[3..].try_into().unwrap());
            self.tallied += 1;
            self.pending = true;
        } else {
            if self.pending {
                self.take_back(m, buf, at - 64);
            }
            self.exact += exact_chars(m, buf, at);
        }
    }

    /// The tallied window at `buf[at..]` counted exactly instead.
    #[inline(always)]
    fn take_back(&mut self, m: Masks<B>, buf: &[u8], at: usize) {
        let (taken_back, exact) = recount(m, buf, at);
        self.taken_back += taken_back;
        self.exact += exact;
        self.pending = false;
    }
}

/// What a tally counted of the window at `buf[at..]`, and its exact count. (Inline: a function
/// of its own would not be compiled for the caller's instruction set, and every vector
/// operation in it would become a call: `wc -m` of text with 1 % invalid bytes 5x slower.)
#[inline(always)]
fn recount<B: Block64>(m: Masks<B>, buf: &[u8], at: usize) -> (u64, u64) {
    let block: &[u8; 64] = buf[at..at + 64].try_into().unwrap();
    (u64::from(64 - m.continuation(block).count_ones()), exact_chars(m, buf, at))
}
