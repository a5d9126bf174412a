//! `-m` in UTF-8 without `-w` or `-L`: characters from masks, whole windows at a time, valid
//! windows found by the Keiser-Lemire validator (or, in text of one- and three-byte characters,
//! by a cheaper check of those alone).

use super::{Counter, count_lines};
use crate::platform;
use crate::platform::simd::{Block64, Masks, Tally, UTF8_BLOCKS_MAX, UTF8_SPARSE_BLOCKS_MAX};

/// The windows [`Counter::chars_run`] checks together: 4 KiB, so that a batch with an error,
/// counted again window by window, costs little (at most a tally's worth).
const BATCH: usize = 64;
const _: () = assert!(BATCH <= UTF8_BLOCKS_MAX && BATCH <= UTF8_SPARSE_BLOCKS_MAX);

impl Counter<'_> {
    /// UTF-8 characters (with lines and bytes), without -w or -L, from `buf[from..]`. Each
    /// window is checked by the Keiser-Lemire validator (three table look-ups): where it and the
    /// next window's check find no error, its characters are its bytes that are not
    /// continuation bytes, tallied in registers. Windows go in batches of [`BATCH`] checked
    /// together (`Masks::utf8_continuation`: one look at the or of their errors; in text with
    /// few non-ASCII bytes only the windows that hold one, `Masks::utf8_continuation_sparse`,
    /// as ASCII cannot be in error but for a character cut before it; in other text first by a
    /// check of one- and three-byte characters alone where [`ThreeTries`] says); a batch that
    /// fails, and the batch after one that failed, go window by window: where a check finds an
    /// error, that window and the one before it (whose last character may be the broken one;
    /// the tally's count of it is taken back) are counted exactly by `exact_chars`, which
    /// needs no decoding either. Windows need the three bytes after them; it stops at a window
    /// boundary, maybe inside a character it counted (its last bytes are no character to what
    /// follows, either way). Line ends are counted in one pass at the end.
    #[inline(always)]
    pub(super) fn chars_run<B: Block64>(&mut self, m: Masks<B>, buf: &[u8], from: usize) -> usize {
        if from + 67 > buf.len() {
            return from;
        }
        let mut run = CharWindows {
            tally: m.tally_new(),
            tallied: 0,
            continuation: 0,
            exact: 0,
            taken_back: 0,
            pending: false,
            failed: false,
        };
        // The three bytes before the first window: before the run's start, which is a character
        // boundary, ASCII stands for them.
        let mut first = [0u8; 67];
        first[3..].copy_from_slice(&buf[from..from + 64]);
        run.window(m, buf, from, &first);
        run.continuation += m.tally_total(run.tally);
        let mut i = from + 64;
        // Whether the last batch was found valid: the next one is checked as a whole.
        let mut valid = !run.failed;
        // Whether the last batch had an eighth of its bytes or more continuation bytes: nearly
        // every window of such text holds one, so the next batch is checked whole, without
        // first looking for windows of ASCII (see `Masks::utf8_continuation_sparse`).
        let mut dense = false;
        // The batch at `i` (at most `buf.len() - 3`), with the three bytes before it: no window
        // past the last that the three bytes after it follow.
        let batch_at = |i: usize| -> &[u8] {
            let windows = ((i + 64 * BATCH).min(buf.len() - 3) - i) / 64;
            &buf[i - 3..i + 64 * windows]
        };
        // The `Masks::high_blocks` of the batch at `i`, where the last sparse check found them.
        let mut next_high = None;
        // Whether the last batch checked for windows of ASCII held nothing else: the next one
        // is first looked at as a whole (`Masks::any_high`), which costs ASCII text what
        // `wc -l` costs, and only where that finds a byte above 0x7f, window by window.
        let mut ascii = false;
        while i + 67 <= buf.len() {
            let batch = batch_at(i);
            let windows = (batch.len() - 3) / 64;
            let high = next_high.take();
            let checked = match (valid, dense) {
                (false, _) => None,
                (true, true) => match self.three.check(m, batch) {
                    Some(continuation) => Some(continuation),
                    None => m.utf8_continuation(batch),
                },
                (true, false) => {
                    // (No closure: it would not be compiled for the caller's instruction set.)
                    let high = match high {
                        Some(high) => high,
                        None if ascii && !m.any_high(&batch[3..]) => 0,
                        None => m.high_blocks(batch),
                    };
                    // After a batch of ASCII the next is looked at whole, not window by window.
                    ascii = high == 0;
                    if ascii {
                        // (Here, not by the sparse check with no window to check: Debian's
                        // rustc 1.85 compiled that call ~70 instructions a batch dearer.)
                        (!platform::simd::utf8_cut_before(batch, 0)).then_some(0)
                    } else {
                        let (checked, high) = m.utf8_continuation_sparse(batch, high, batch_at(i + 64 * windows));
                        next_high = Some(high);
                        checked
                    }
                }
            };
            if let Some(continuation) = checked {
                dense = continuation * 8 >= 64 * windows as u64;
                run.continuation += continuation;
                run.tallied += windows as u64;
                run.pending = true;
                i += 64 * windows;
                continue;
            }
            run.tally = m.tally_new();
            run.failed = false;
            let end = i + 64 * windows;
            while i + 64 <= end {
                platform::simd::prefetch_ahead(buf, i);
                run.window(m, buf, i, buf[i - 3..i + 64].try_into().unwrap());
                i += 64;
            }
            run.continuation += m.tally_total(run.tally);
            valid = !run.failed;
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
}

/// When [`Counter::chars_run`] checks a dense batch for characters of one or three bytes alone
/// first (CJK, Indic, Thai: `Masks::utf8_continuation_three`, cheaper than the full check, which
/// follows where it cannot tell): after k such misses in a row, the next 2^k - 1 dense batches
/// (at most 255) go to the full check straight away, so text of other forms pays for few tries.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ThreeTries {
    misses: u8,
    /// Dense batches still to go to the full check straight away.
    wait: u8,
}

impl ThreeTries {
    /// `Masks::utf8_continuation_three` of the dense `batch` where it is tried, else None.
    #[inline(always)]
    fn check<B: Block64>(&mut self, m: Masks<B>, batch: &[u8]) -> Option<u64> {
        if self.wait > 0 {
            self.wait -= 1;
            return None;
        }
        let three = m.utf8_continuation_three(batch);
        self.misses = if three.is_some() { 0 } else { (self.misses + 1).min(8) };
        self.wait = ((1u32 << self.misses) - 1) as u8;
        three
    }
}

/// The valid UTF-8 characters that begin in the window at `buf[at..]` (which must hold the
/// three bytes after it): ASCII bytes, and the positions where a valid form begins. Exact
/// whatever the bytes: an invalid byte begins no character, as in GNU.
#[inline(always)]
fn exact_chars<B: Block64>(m: Masks<B>, buf: &[u8], at: usize) -> u64 {
    let [two, three, four] = m.utf8_starts(buf[at..at + 67].try_into().unwrap());
    u64::from((!m.high(buf[at..at + 64].try_into().unwrap()) | two | three | four).count_ones())
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
    /// A window's check found an error (since this was last cleared).
    failed: bool,
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
            self.failed = true;
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
