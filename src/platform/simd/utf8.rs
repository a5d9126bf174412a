//! The UTF-8 checks of `wc -m` and `-L`: the Keiser-Lemire validator over a window or a batch,
//! a check of text of one- and three-byte characters alone, a sparse check of text with few
//! bytes above 0x7f, and the starts of valid characters. [`choose`] picks a set's own kernels.

use super::patterns::NibblePatterns;
use super::{Block64, Kernel, Mask, Masks, TALLY_MAX, prefetch};
use crate::platform::Changing;
use crate::platform::cpu::Features;
use utf8_tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH};

/// The most blocks one [`Masks::utf8_continuation`] may check: half a tally's, as it counts up
/// to two a block in a byte counter ([`Block64::count_into_first`]).
pub const UTF8_BLOCKS_MAX: usize = TALLY_MAX / 2;

/// The most blocks one [`Masks::utf8_continuation_sparse`] may check: a bit each in a word.
pub const UTF8_SPARSE_BLOCKS_MAX: usize = 64;

/// How a kernel checks batches of UTF-8 (see `choose`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Utf8Check {
    /// AVX-512 VBMI's byte permutes (`x86_64/utf8_vbmi.rs`).
    Permutes,
    /// Look-ups by shuffles; on text of one- and three-byte characters, first the check of those (`utf8_three`).
    LookupsAndThree,
    /// Nibble look-ups by byte shuffles.
    Lookups,
    /// Compares (no byte shuffle); on text of one- and three-byte characters, first the check of those.
    ComparesAndThree,
    /// Compares (no byte shuffle).
    Compares,
}

impl Utf8Check {
    /// Whether text of one- and three-byte characters is first checked for those forms alone (`utf8_three`).
    pub fn has_three(self) -> bool {
        matches!(self, Utf8Check::LookupsAndThree | Utf8Check::ComparesAndThree)
    }
}

/// What [`Utf8Check::Permutes`] needs beyond the AVX-512 kernel's features.
#[cfg(test)]
pub const PERMUTES_FEATURES: [&str; 1] = ["avx512vbmi"];

/// The UTF-8 check of `kernel` with `features`. AVX-512 without VBMI could run AVX2's check of one- and three-byte
/// forms, but its own by shuffles (one register a block) costs less (benches/RESULTS.md, "AVX-512 without VBMI").
/// SSE2's and SSSE3's registers run the check of those forms too: it costs fewer instructions than their full
/// checks (benches/RESULTS.md, "The check of one- and three-byte forms on SSE").
#[inline(always)]
pub fn choose(kernel: Kernel, features: Features) -> Utf8Check {
    match kernel {
        // (PERMUTES_FEATURES, which a test holds to this.)
        Kernel::Avx512 if features.avx512vbmi => Utf8Check::Permutes,
        Kernel::Avx2 | Kernel::Ssse3 => Utf8Check::LookupsAndThree,
        Kernel::Avx512 | Kernel::Neon => Utf8Check::Lookups,
        Kernel::Sse2 => Utf8Check::ComparesAndThree,
        Kernel::Portable => Utf8Check::Compares,
    }
}

/// The bytes of a block by their part in UTF-8, bit i for `block[i]`; all but `high` above 0x7f.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utf8Ranges {
    /// 0x80 and above.
    pub high: u64,
    /// 0x80..=0xbf, continuation bytes.
    pub cont: u64,
    /// 0xc2 and above (lead bytes and invalid bytes).
    pub ge_c2: u64,
    pub ge_e0: u64,
    pub ge_f0: u64,
    /// 0xf5 and above (never in UTF-8).
    pub ge_f5: u64,
}

impl Utf8Ranges {
    /// The lead bytes of two-, three- and four-byte characters (C2..=DF, E0..=EF, F0..=F4).
    #[inline(always)]
    pub fn leads(&self) -> [u64; 3] {
        [self.ge_c2 & !self.ge_e0, self.ge_e0 & !self.ge_f0, self.ge_f0 & !self.ge_f5]
    }

    /// The leads whose characters would reach past the block's end.
    #[inline(always)]
    pub fn crossing_leads(&self) -> u64 {
        let [lead2, lead3, lead4] = self.leads();
        (lead2 & 1 << 63) | (lead3 & 3 << 62) | (lead4 & 7 << 61)
    }
}

impl<B: Block64> Masks<B> {
    /// [`Utf8Ranges`] of the block: signed, 0x80..=0xff keep their order; each limit is a compare and-ed with bit 7.
    #[inline(always)]
    pub fn utf8_ranges(self, block: Changing<'_, [u8; 64]>) -> Utf8Ranges {
        let block = block.read_each_once();
        // SAFETY: see `Masks::eq`.
        unsafe {
            let v = B::load(block, 0);
            let high = v.signs().bits();
            Utf8Ranges {
                high,
                cont: v.lt_signed(B::splat(0xc0)).bits(),
                ge_c2: B::splat(0xc1).lt_signed(v).bits() & high,
                ge_e0: B::splat(0xdf).lt_signed(v).bits() & high,
                ge_f0: B::splat(0xef).lt_signed(v).bits() & high,
                ge_f5: B::splat(0xf4).lt_signed(v).bits() & high,
            }
        }
    }

    /// Whether Keiser and Lemire's UTF-8 validator (simdjson's "lookup" algorithm) finds an error in the block at
    /// `window[3..]`, after `window[..3]`. An error is a byte that cannot follow the one before it (a stray or
    /// missing continuation byte, an overlong form, a surrogate, past U+10FFFF), or a continuation byte missing two
    /// or three places after a lead. A character cut off by the block's end is caught by the next block's check.
    #[inline(always)]
    pub fn utf8_errors(self, window: Changing<'_, [u8; 67]>) -> bool {
        let window = window.read_each_once();
        if !B::KERNEL.table_lookups() {
            return self.utf8_error_mask(window) != 0;
        }
        // SAFETY: see `Masks::eq`.
        unsafe { utf8_error_bytes::<B>(window).any() }
    }

    /// Where valid characters of two to four bytes begin in `window[..64]`, by the Unicode rules GNU 9.12 decodes by:
    /// a lead with the continuation bytes it wants, no overlong form or surrogate, nothing past U+10FFFF.
    #[inline(always)]
    pub fn utf8_starts(self, window: Changing<'_, [u8; 67]>) -> [u64; 3] {
        let window = window.read_each_once();
        let at = |k: usize| -> &[u8; 64] { window[k..k + 64].try_into().unwrap() };
        let c3 = self.continuation(Changing::of(at(3)));
        if B::KERNEL.table_lookups() {
            let (patterns, four) = (utf8_start_patterns(), UTF8_FOUR_BYTE);
            let [two, three, four] = self.pattern_starts(
                Changing::of(window[..66].try_into().unwrap()),
                patterns,
                [0b0000_0011, 0b0001_1100, four],
            );
            return [two, three, four & c3];
        }
        // The continuation bytes one, two and three places on, from the block and the three after.
        let r = self.utf8_ranges(Changing::of(at(0)));
        let after: u64 = (0..3).map(|k| u64::from((0x80..0xc0).contains(&window[64 + k])) << k).sum();
        let cont = |n: u32| (r.cont >> n) | (after << (64 - n));
        let [lead2, lead3, lead4] = r.leads();
        let (c1, c2) = (cont(1), cont(2));
        let (three, four) = (lead3 & c1 & c2, lead4 & c1 & c2 & cont(3));
        let limited = self.eq_any(Changing::of(at(0)), LIMITED_LEADS) & (three | four);
        let broken = if limited != 0 { second_byte_errors(window, 0, limited) } else { 0 };
        [lead2 & c1, three & !broken, four & !broken]
    }

    /// The bytes [`Self::utf8_errors`] finds in error in `window[3..]`, by compares for sets without look-ups; the
    /// look-ups' errors term by term (`utf8_tables::error_at`). After a lead (C0..) a byte that is not a continuation
    /// byte; after ASCII a continuation byte; a continuation byte after one unless two places after E0.. or three
    /// after F0.. (and none there); after C0, C1 or F5 and up, any continuation byte; E0, ED, F0, F4's limits.
    #[inline(always)]
    fn utf8_error_mask(self, window: &[u8; 67]) -> u64 {
        // The ranges of the bytes before each byte (`window[2 + i]` before `window[3 + i]`);
        // shifted, those of the bytes themselves and of the bytes two and three places before.
        let p1 = self.utf8_ranges(Changing::of(window[2..66].try_into().unwrap()));
        let cont = (p1.cont >> 1) | u64::from((0x80..0xc0).contains(&window[66])) << 63;
        let lead = p1.high & !p1.cont;
        let must = (p1.ge_e0 << 1 | u64::from(window[1] >= 0xe0))
            | (p1.ge_f0 << 2 | u64::from(window[0] >= 0xf0) | u64::from(window[1] >= 0xf0) << 1);
        let errors = (lead & !cont)
            | (!p1.high & cont)
            | ((p1.cont & cont) ^ must)
            | (lead & !p1.ge_c2 & cont)
            | (p1.ge_f5 & cont);
        let limited = self.eq_any(Changing::of(window[2..66].try_into().unwrap()), LIMITED_LEADS) & cont;
        if limited != 0 {
            return errors | second_byte_errors(window, 2, limited);
        }
        errors
    }

    /// The continuation bytes of the whole blocks of `bytes[3..]` (at most [`UTF8_BLOCKS_MAX`]), or None on an error
    /// ([`Self::utf8_errors`]). The errors are or-ed into one register, looked at once: no branch a block, and the
    /// tally stays in registers. Where a block is two registers (AVX2), errors and tally take one each, so the loop's
    /// constants fit in the two freed (benches/RESULTS.md, "Figures behind code comments").
    #[inline(always)]
    pub fn utf8_continuation(self, bytes: Changing<'_>) -> Option<u64> {
        let bytes = bytes.read_each_once();
        debug_assert!(bytes.len() <= 64 * UTF8_BLOCKS_MAX + 3);
        #[cfg(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512))]
        if B::KERNEL == Kernel::Avx512 && self.families().utf8 == Utf8Check::Permutes {
            // SAFETY: `Permutes` says the CPU has AVX-512BW and VBMI (see `Masks::new`).
            return unsafe { super::x86_64::utf8_vbmi::utf8_continuation(bytes) };
        }
        if !B::KERNEL.table_lookups() {
            let (mut errors, mut tally) = (0, self.tally_new());
            for at in (0..bytes.len().saturating_sub(66)).step_by(64) {
                errors |= self.utf8_error_mask(bytes[at..at + 67].try_into().unwrap());
                tally = self.tally_continuation(tally, Changing::of(bytes[at + 3..at + 67].try_into().unwrap()));
            }
            return (errors == 0).then(|| self.tally_total(tally));
        }
        // SAFETY: see `Masks::eq`; each block's loads are of its 67-byte window.
        unsafe {
            let mut errors = B::splat(0);
            let mut tally = B::splat(0);
            // Windows, not an index: no bound is checked in the loop.
            for (k, window) in bytes.windows(67).step_by(64).enumerate() {
                prefetch(bytes, 64 * k);
                let window: &[u8; 67] = window.try_into().unwrap();
                errors = errors.or_into_first(utf8_error_bytes::<B>(window));
                tally = tally.count_into_first(B::load(window, 3).lt_signed(B::splat(0xc0)));
            }
            (!errors.any()).then(|| tally.sum())
        }
    }

    /// [`Self::utf8_continuation`] of text of one- and three-byte characters (Chinese, Japanese, Korean, Indic
    /// scripts, Thai), by a check of those forms alone, without look-ups. None where it cannot tell (a two- or
    /// four-byte form, an error), or without the check (kernels whose family lacks it, [`Utf8Check::has_three`]).
    #[inline(always)]
    pub fn utf8_continuation_three(self, bytes: Changing<'_>) -> Option<u64> {
        let bytes = bytes.read_each_once();
        debug_assert!(bytes.len() <= 64 * UTF8_BLOCKS_MAX + 3);
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        if self.families().utf8.has_three() {
            use super::x86_64::utf8_three::utf8_continuation_three as three;
            use std::arch::x86_64::{__m128i, __m256i};
            // SAFETY: `B`'s set has AVX2 (`Kernel::has_avx2`), or SSE2 (every x86-64 CPU's); a `Masks<B>` proves the
            // CPU runs it (see `Masks::new`), and this code inlines into the set's.
            return unsafe { if B::KERNEL.has_avx2() { three::<__m256i>(bytes) } else { three::<__m128i>(bytes) } };
        }
        None
    }

    /// Whether a byte of the whole blocks of `bytes` is above 0x7f: the blocks are or-ed into one register and looked
    /// at once, cheaper than [`Self::high_blocks`]' bit each (benches/RESULTS.md, "Figures behind code comments").
    #[inline(always)]
    pub fn any_high(self, bytes: Changing<'_>) -> bool {
        let bytes = bytes.read_each_once();
        // SAFETY: see `Masks::eq`; each load is of its 64-byte block.
        unsafe {
            let mut high = B::splat(0);
            for (k, block) in bytes.chunks_exact(64).enumerate() {
                prefetch(bytes, 64 * k);
                high = high.or_into_first(B::load(block, 0));
            }
            high.signs().any()
        }
    }

    /// Bit k set where block k of `bytes[3..]` holds a byte above 0x7f (at most 64 blocks).
    #[inline(always)]
    pub fn high_blocks(self, bytes: Changing<'_>) -> u64 {
        let bytes = bytes.read_each_once();
        let blocks = bytes.len().saturating_sub(3) / 64;
        assert!(blocks <= UTF8_SPARSE_BLOCKS_MAX);
        // Shift in at bit 0, then reverse: cheaper than `<< k` (benches/RESULTS.md, "Figures behind code comments").
        let mut high = 0u64;
        for (k, block) in bytes[3.min(bytes.len())..].chunks_exact(64).enumerate() {
            prefetch(bytes, 64 * k);
            // SAFETY: see `Masks::eq`.
            high = high << 1 | u64::from(unsafe { B::load(block, 0).signs().any() });
        }
        high.reverse_bits().checked_shr(64 - blocks as u32).unwrap_or(0)
    }

    /// [`Self::utf8_continuation`] of at most 64 blocks, checking only those with a byte above 0x7f (`high`): a block
    /// of ASCII errs only where it cuts a character ([`utf8_cut_before`]). Also returns the next batch's `high`,
    /// found between the checks to keep memory busy (benches/RESULTS.md, "Figures behind code comments"). The loops
    /// leave once a batch: a branch a block would mispredict where ASCII blocks and others alternate.
    #[inline(always)]
    pub fn utf8_continuation_sparse(self, bytes: Changing<'_>, high: u64, next: Changing<'_>) -> (Option<u64>, u64) {
        let bytes = bytes.read_each_once();
        let next = next.read_each_once();
        let blocks = bytes.len().saturating_sub(3) / 64;
        assert!(blocks <= UTF8_SPARSE_BLOCKS_MAX);
        let next_blocks = next.len().saturating_sub(3) / 64;
        assert!(next_blocks <= UTF8_SPARSE_BLOCKS_MAX);
        if blocks == 0 {
            return (Some(0), self.high_blocks(Changing::of(next)));
        }
        // The blocks of ASCII after one that is not (or first in the batch).
        let mut edges = !high & (high << 1 | 1) & (u64::MAX >> (64 - blocks));
        let mut cut = false;
        while edges != 0 {
            let at = 64 * edges.trailing_zeros() as usize;
            edges &= edges - 1;
            cut |= utf8_cut_before(Changing::of(bytes), at);
        }
        let mut checks = SparseChecks::<B>::new();
        let mut todo = high;
        let mut next_high = 0u64;
        let mut next_blocks_left = next[3.min(next.len())..].chunks_exact(64).enumerate();
        let paired = (high.count_ones() as usize).min(next_blocks);
        for (k, block) in next_blocks_left.by_ref().take(paired) {
            prefetch(next, 64 * k + 2048);
            // SAFETY: see `Masks::eq`.
            next_high = next_high << 1 | u64::from(unsafe { B::load(block, 0).signs().any() });
            let at = 64 * todo.trailing_zeros() as usize;
            todo &= todo - 1;
            checks.check(self, bytes[at..at + 67].try_into().unwrap());
        }
        for (k, block) in next_blocks_left {
            prefetch(next, 64 * k + 2048);
            // SAFETY: see `Masks::eq`.
            next_high = next_high << 1 | u64::from(unsafe { B::load(block, 0).signs().any() });
        }
        while todo != 0 {
            let at = 64 * todo.trailing_zeros() as usize;
            todo &= todo - 1;
            checks.check(self, bytes[at..at + 67].try_into().unwrap());
        }
        let next_high = next_high.reverse_bits().checked_shr(64 - next_blocks as u32).unwrap_or(0);
        (checks.continuation(cut), next_high)
    }
}

/// Whether ASCII at `bytes[at + 3]` cuts a character begun just before it: the one error a block of ASCII can hold.
#[inline(always)]
pub fn utf8_cut_before(bytes: Changing<'_>, at: usize) -> bool {
    let bytes = bytes.read_each_once();
    (bytes[at + 2] >= 0xc0) | (bytes[at + 1] >= 0xe0) | (bytes[at] >= 0xf0)
}

/// The errors and continuation bytes of the blocks [`Masks::utf8_continuation_sparse`] checks.
struct SparseChecks<B> {
    errors: B,
    error_mask: u64,
    tally: B,
}

impl<B: Block64> SparseChecks<B> {
    #[inline(always)]
    fn new() -> SparseChecks<B> {
        // SAFETY: the caller holds a `Masks<B>` (see `Masks::eq`).
        unsafe { SparseChecks { errors: B::splat(0), error_mask: 0, tally: B::splat(0) } }
    }

    /// Checks the block at `window[3..]` and tallies its continuation bytes (64 blocks fit).
    #[inline(always)]
    fn check(&mut self, m: Masks<B>, window: &[u8; 67]) {
        // SAFETY: see `Masks::eq`; the loads are of the window's bytes.
        unsafe {
            if B::KERNEL.table_lookups() {
                self.errors = self.errors.or_into_first(utf8_error_bytes::<B>(window));
            } else {
                self.error_mask |= m.utf8_error_mask(window);
            }
            self.tally = self.tally.count_into_first(B::load(window, 3).lt_signed(B::splat(0xc0)));
        }
    }

    /// The continuation bytes tallied, or None where a check (or `cut`) found an error.
    #[inline(always)]
    fn continuation(self, cut: bool) -> Option<u64> {
        // SAFETY: see `Masks::eq`.
        unsafe { (!cut && self.error_mask == 0 && !self.errors.any()).then(|| self.tally.sum()) }
    }
}

/// Keiser and Lemire's check of the block at `window[3..]`: not zero where a byte is in error.
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
unsafe fn utf8_error_bytes<B: Block64>(window: &[u8; 67]) -> B {
    // SAFETY: the caller's guarantee; the loads are of the window's bytes (offsets 0..=3), which
    // `load` checks (at compile time: the window's length is known).
    unsafe {
        let input = B::load(window, 3);
        let prev1 = B::load(window, 2);
        let special = prev1
            .high_nibbles()
            .lookup16(&BYTE_1_HIGH)
            .and(prev1.low_nibbles().lookup16(&BYTE_1_LOW))
            .and(input.high_nibbles().lookup16(&BYTE_2_HIGH));
        // A continuation byte must come two places after a lead from E0 up, three after F0 up. There byte + 0x1f,
        // or + 0x0f, saturates to 0xff: the larger less 0xfe is 1 (the "two continuations" bit) or 0. Adds take their
        // byte straight from memory (no load of their own; benches/RESULTS.md, "Figures behind code comments").
        let third = B::load(window, 1).saturating_add(B::splat(0x1f));
        let fourth = B::load(window, 0).saturating_add(B::splat(0x0f));
        let must = third.max(fourth).saturating_sub(B::splat(0xfe));
        special.xor(must)
    }
}

/// The UTF-8 leads that limit their second byte more than to a continuation byte.
const LIMITED_LEADS: [u8; 4] = [0xe0, 0xed, 0xf0, 0xf4];

/// Of `leads` (bit i: `window[from + i]` is one of [`LIMITED_LEADS`], a continuation byte after it), those whose
/// second byte breaks the lead's limit: overlong (E0, F0), a surrogate (ED), past U+10FFFF (F4). Not inlined: such
/// leads are rare, and inlined it cost the common case more (benches/RESULTS.md, "Figures behind code comments").
#[inline(never)]
fn second_byte_errors(window: &[u8; 67], from: usize, mut leads: u64) -> u64 {
    let mut errors = 0;
    while leads != 0 {
        let i = leads.trailing_zeros() as usize;
        leads &= leads - 1;
        let ok = match (window[from + i], window[from + i + 1]) {
            (0xe0, byte) => byte >= 0xa0,
            (0xed, byte) => byte < 0xa0,
            (0xf0, byte) => byte >= 0x90,
            (_, byte) => byte < 0x90,
        };
        errors |= u64::from(!ok) << i;
    }
    errors
}

/// The three 16-entry tables of the Keiser-Lemire validator ([`Masks::utf8_errors`]), by the previous byte's nibbles
/// and the byte's high nibble. A byte pair is an error where all three share a bit, but bit 0 ("two continuations")
/// where one is expected: bit 0, not Keiser and Lemire's 7, so saturating adds give it (`utf8_error_bytes`).
pub mod utf8_tables {
    const TOO_SHORT: u8 = 1 << 7;
    const TOO_LONG: u8 = 1 << 1;
    const OVERLONG_3: u8 = 1 << 2;
    const TOO_LARGE: u8 = 1 << 3;
    const SURROGATE: u8 = 1 << 4;
    const OVERLONG_2: u8 = 1 << 5;
    const TOO_LARGE_1000: u8 = 1 << 6;
    const OVERLONG_4: u8 = 1 << 6;
    const TWO_CONTS: u8 = 1 << 0;
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;
    pub const BYTE_1_HIGH: [u8; 16] = [
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ];
    pub const BYTE_1_LOW: [u8; 16] = [
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY,
        CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ];
    pub const BYTE_2_HIGH: [u8; 16] = [
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ];

    /// The vector versions' reference, a byte at a time: whether `byte` after `prev3`, `prev2`, `prev1` is an error.
    pub fn error_at(prev3: u8, prev2: u8, prev1: u8, byte: u8) -> bool {
        let special = BYTE_1_HIGH[usize::from(prev1 >> 4)]
            & BYTE_1_LOW[usize::from(prev1 & 15)]
            & BYTE_2_HIGH[usize::from(byte >> 4)];
        let must = if prev2 >= 0xe0 || prev3 >= 0xf0 { 1 } else { 0 };
        special ^ must != 0
    }
}

/// The first three bytes of valid characters of two to four bytes as [`NibblePatterns`], by the
/// Unicode rules GNU 9.12 decodes by (no overlong form, no surrogate, nothing past U+10FFFF).
/// The patterns in [`UTF8_FOUR_BYTE`] also need a continuation byte in fourth place.
pub fn utf8_start_patterns() -> &'static NibblePatterns {
    static PATTERNS: std::sync::OnceLock<NibblePatterns> = std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        const ALL: u16 = 0xffff;
        const CONT: u16 = 0x0f00; // high nibbles 8..=B
        let mut p = NibblePatterns::default();
        // (bit, lead: high nibbles x low nibbles, second byte's high nibbles, third byte's)
        let forms: [(u8, u16, u16, u16, u16); 8] = [
            (1 << 0, 1 << 0xc, 0xfffc, CONT, ALL),      // C2..=CF, any continuation
            (1 << 1, 1 << 0xd, ALL, CONT, ALL),         // D0..=DF
            (1 << 2, 1 << 0xe, 1 << 0, 0x0c00, CONT),   // E0, A0..=BF
            (1 << 3, 1 << 0xe, 0xdffe, CONT, CONT),     // E1..=EC, EE, EF
            (1 << 4, 1 << 0xe, 1 << 0xd, 0x0300, CONT), // ED, 80..=9F
            (1 << 5, 1 << 0xf, 1 << 0, 0x0e00, CONT),   // F0, 90..=BF
            (1 << 6, 1 << 0xf, 0x000e, CONT, CONT),     // F1..=F3
            (1 << 7, 1 << 0xf, 1 << 4, 0x0100, CONT),   // F4, 80..=8F
        ];
        for (bit, lead_hi, lead_lo, second_hi, third_hi) in forms {
            p.allow(bit, 0, lead_hi, lead_lo);
            p.allow(bit, 1, second_hi, ALL);
            p.allow(bit, 2, third_hi, ALL);
        }
        p
    })
}

/// The bits of [`utf8_start_patterns`] that are four-byte forms.
pub const UTF8_FOUR_BYTE: u8 = 0b1110_0000;
