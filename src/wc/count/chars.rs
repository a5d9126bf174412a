//! `-m` in UTF-8 without `-w` or `-L`: characters from masks, whole windows at a time, valid windows found by the
//! Keiser-Lemire validator (or, in text of one- and three-byte characters, by a cheaper check of those alone).

use super::{Counter, count_lines};
use crate::platform::simd::{Block64, Masks, Tally, UTF8_BLOCKS_MAX, UTF8_SPARSE_BLOCKS_MAX};
use crate::platform::{self, Changing};

/// The windows [`Counter::chars_run`] checks together: 4 KiB, so a batch with an error, recounted, costs little.
const BATCH: usize = 64;
const _: () = assert!(BATCH <= UTF8_BLOCKS_MAX && BATCH <= UTF8_SPARSE_BLOCKS_MAX);

impl Counter<'_> {
    /// Counts UTF-8 characters (with lines and bytes) in `buf[from..]`, without -w or -L. A window that the
    /// Keiser-Lemire validator and the next window's check find valid counts its bytes that are not continuation
    /// bytes, tallied in registers. Windows are checked in batches of [`BATCH`] ([`Batches::next_check`]); a failed
    /// batch and the next go window by window, errors counted by `exact_chars`. Stops at a window boundary with three
    /// bytes after it, maybe inside a character it counted (its last bytes are no character to what follows).
    #[inline(always)]
    pub(super) fn chars_run<B: Block64>(&mut self, m: Masks<B>, buf: Changing<'_>, from: usize) -> usize {
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
        // The three bytes before the first window: the run starts at a character boundary, so ASCII stands for them.
        let mut first = [0u8; 67];
        buf.range(from..from + 64).copy_to(&mut first[3..]);
        run.window(m, buf, from, Changing::of(&first));
        run.continuation += m.tally_total(run.tally);
        let mut i = from + 64;
        let mut batches = Batches { valid: !run.failed, ..Batches::default() };
        // Batch at `i` (up to `buf.len() - 3`) and the three bytes before; no window past the last with three after.
        let batch_at = |i: usize| -> Changing<'_> {
            let windows = ((i + 64 * BATCH).min(buf.len() - 3) - i) / 64;
            buf.range(i - 3..i + 64 * windows)
        };
        while i + 67 <= buf.len() {
            let batch = batch_at(i);
            let windows = (batch.len() - 3) / 64;
            // No closures in the arms: they would not be compiled for the caller's instruction set.
            let checked = match batches.next_check(self.three.due()) {
                Check::Windows => None,
                Check::Whole { three: false } => {
                    self.three = self.three.after(None);
                    m.utf8_continuation(batch)
                }
                Check::Whole { three: true } => {
                    let three = m.utf8_continuation_three(batch);
                    self.three = self.three.after(Some(three.is_some()));
                    three.or_else(|| m.utf8_continuation(batch))
                }
                Check::Sparse { high } => {
                    let high = match high {
                        Some(high) => {
                            // The last batch's find; the unit tests (unchanging bytes) hold it to a fresh look.
                            if cfg!(test) {
                                assert_eq!(high, m.high_blocks(batch), "carried mask of the batch at {i}");
                            }
                            high
                        }
                        None => m.high_blocks(batch),
                    };
                    Self::sparse(m, &mut batches, batch, high, batch_at(i + 64 * windows))
                }
                Check::AsciiFirst if !m.any_high(batch.range(3..)) => {
                    Self::sparse(m, &mut batches, batch, 0, Changing::of(&[]))
                }
                Check::AsciiFirst => {
                    Self::sparse(m, &mut batches, batch, m.high_blocks(batch), batch_at(i + 64 * windows))
                }
            };
            if let Some(continuation) = checked {
                batches.dense = continuation * 8 >= 64 * windows as u64;
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
                run.window(m, buf, i, buf.array(i - 3));
                i += 64;
            }
            run.continuation += m.tally_total(run.tally);
            batches.valid = !run.failed;
        }
        if run.pending {
            // The last window's characters that reach past it were checked by no next window.
            run.take_back(m, buf, i - 64);
        }
        self.counts.chars += 64 * run.tallied - run.continuation - run.taken_back + run.exact;
        if self.want.lines {
            self.counts.lines += count_lines(buf.range(from..i));
        }
        i
    }
}

impl Counter<'_> {
    /// The sparse check of `batch` (`Masks::utf8_continuation_sparse`), whose blocks above 0x7f
    /// are `high`, finding `next`'s meanwhile. A batch of ASCII needs only its first bytes checked.
    #[inline(always)]
    fn sparse<B: Block64>(
        m: Masks<B>,
        batches: &mut Batches,
        batch: Changing<'_>,
        high: u64,
        next: Changing<'_>,
    ) -> Option<u64> {
        batches.ascii = high == 0;
        if batches.ascii {
            // Here, not by the sparse check with no block to check, which Debian's rustc 1.85 compiled to cost more.
            return (!platform::simd::utf8_cut_before(batch, 0)).then_some(0);
        }
        let (checked, next_high) = m.utf8_continuation_sparse(batch, high, next);
        batches.next_high = Some(next_high);
        checked
    }
}

/// What [`Counter::chars_run`] knows of the last batch, to choose how the next is checked.
#[derive(Clone, Copy, Debug, Default)]
struct Batches {
    /// It was found valid: the next is checked as a whole.
    valid: bool,
    /// An eighth of its bytes or more were continuation bytes: nearly every block of such text
    /// holds one, so the next is checked whole, not first looked at for blocks of ASCII.
    dense: bool,
    /// Checked sparse with no byte above 0x7f: the next is first seen whole (`Masks::any_high`), as cheap as `wc -l`.
    ascii: bool,
    /// The blocks above 0x7f of the next batch, where the last sparse check found them.
    next_high: Option<u64>,
}

/// How [`Counter::chars_run`] checks a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// Window by window (the last batch had an error).
    Windows,
    /// Whole (`Masks::utf8_continuation`), first trying the one- and three-byte check if `three`.
    Whole { three: bool },
    /// Only its blocks above 0x7f (`Masks::utf8_continuation_sparse`), given where known.
    Sparse { high: Option<u64> },
    /// First looked at whole for a byte above 0x7f, then as `Sparse`.
    AsciiFirst,
}

impl Batches {
    /// How the next batch is checked (`three_due`: [`ThreeTries::due`]); takes the carried mask.
    #[inline(always)]
    fn next_check(&mut self, three_due: bool) -> Check {
        let high = self.next_high.take();
        match (self.valid, self.dense) {
            (false, _) => Check::Windows,
            (true, true) => Check::Whole { three: three_due },
            (true, false) if high.is_none() && self.ascii => Check::AsciiFirst,
            (true, false) => Check::Sparse { high },
        }
    }
}

/// When [`Counter::chars_run`] first tries the check of one- and three-byte forms alone on a
/// dense batch (CJK, Indic, Thai: `Masks::utf8_continuation_three`). It is cheaper than the full
/// check, which follows where it cannot tell. After k straight misses, the next 2^k - 1 dense
/// batches (at most 255) go to the full check at once, so text of other forms pays for few tries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct ThreeTries {
    misses: u8,
    /// Dense batches still to go to the full check straight away.
    wait: u8,
}

impl ThreeTries {
    /// Whether the next dense batch tries it.
    #[inline(always)]
    fn due(self) -> bool {
        self.wait == 0
    }

    /// After a dense batch that tried it (`Some`: whether it answered) or did not (`None`).
    #[inline(always)]
    fn after(self, tried: Option<bool>) -> ThreeTries {
        match tried {
            None => ThreeTries { wait: self.wait.saturating_sub(1), ..self },
            Some(answered) => {
                let misses = if answered { 0 } else { (self.misses + 1).min(8) };
                ThreeTries { misses, wait: ((1u32 << misses) - 1) as u8 }
            }
        }
    }
}

/// The valid UTF-8 characters that begin in the window at `buf[at..]` (which must hold the three
/// bytes after it), exact whatever the bytes: an invalid byte begins no character, as in GNU.
#[inline(always)]
fn exact_chars<B: Block64>(m: Masks<B>, buf: Changing<'_>, at: usize) -> u64 {
    let [two, three, four] = m.utf8_starts(buf.array(at));
    u64::from((!m.high(buf.array(at)) | two | three | four).count_ones())
}

/// [`Counter::chars_run`]'s state: valid windows count as 64 less their tallied continuation bytes, others exactly.
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
    /// The last window was tallied; the next one's check must confirm it (a byte after may cut its last character).
    pending: bool,
    /// A window's check found an error (since this was last cleared).
    failed: bool,
}

impl<B: Block64> CharWindows<B> {
    /// The window at `buf[at..]`, whose three bytes before it and 64 bytes are `window`.
    #[inline(always)]
    fn window(&mut self, m: Masks<B>, buf: Changing<'_>, at: usize, window: Changing<'_, [u8; 67]>) {
        if !m.utf8_errors(window) {
            self.tally = m.tally_continuation(self.tally, window.array(3));
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
    fn take_back(&mut self, m: Masks<B>, buf: Changing<'_>, at: usize) {
        let (taken_back, exact) = recount(m, buf, at);
        self.taken_back += taken_back;
        self.exact += exact;
        self.pending = false;
    }
}

/// What a tally counted of the window at `buf[at..]`, and its exact count. Inline: a function of
/// its own would not be compiled for the caller's instruction set, and every vector operation
/// in it would go out of line, far costlier (benches/RESULTS.md, "Figures behind code comments").
#[inline(always)]
fn recount<B: Block64>(m: Masks<B>, buf: Changing<'_>, at: usize) -> (u64, u64) {
    (u64::from(64 - m.continuation(buf.array(at)).count_ones()), exact_chars(m, buf, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_batch_is_checked_as_the_last_says() {
        let batches = |valid, dense, ascii, next_high| Batches { valid, dense, ascii, next_high };
        // (the last batch, the try due) -> the check
        let table = [
            // An error in the last: window by window, whatever else.
            (batches(false, true, false, None), true, Check::Windows),
            (batches(false, false, true, Some(3)), false, Check::Windows),
            // Dense text: whole, with the try where due.
            (batches(true, true, false, None), true, Check::Whole { three: true }),
            (batches(true, true, false, None), false, Check::Whole { three: false }),
            (batches(true, true, true, Some(1)), true, Check::Whole { three: true }),
            // Sparse text: the blocks above 0x7f, as carried or found now.
            (batches(true, false, false, Some(5)), true, Check::Sparse { high: Some(5) }),
            (batches(true, false, true, Some(0)), true, Check::Sparse { high: Some(0) }),
            (batches(true, false, false, None), false, Check::Sparse { high: None }),
            // After a batch of ASCII, with nothing carried: a look at the whole first.
            (batches(true, false, true, None), false, Check::AsciiFirst),
        ];
        for (mut last, due, want) in table {
            let before = last;
            assert_eq!(last.next_check(due), want, "{before:?} due {due}");
            assert_eq!(last.next_high, None, "the carried mask is taken");
        }
    }

    #[test]
    fn the_try_of_three_byte_forms_backs_off_after_each_miss() {
        let mut tries = ThreeTries::default();
        for misses in 1..=10u32 {
            assert!(tries.due());
            tries = tries.after(Some(false));
            // 2^k - 1 dense batches without the try, at most 255.
            for _ in 0..(1u32 << misses.min(8)) - 1 {
                assert!(!tries.due(), "after {misses} misses");
                tries = tries.after(None);
            }
        }
        assert!(tries.due());
        tries = tries.after(Some(true));
        assert!(tries.due(), "an answer makes the next due");
        assert_eq!(tries, ThreeTries::default());
    }
}
