//! The table look-up algorithms, written once over [`Block64`]: 64 bytes in whatever registers
//! an instruction set has (one AVX-512 register, two AVX2 ones, four NEON ones), as BurntSushi's
//! `memchr` writes its searches once over its `Vector` trait. Each instruction set's
//! [`super::BlockMasks`] calls these with its own block type.
//!
//! What is not here, and why: `lookup64` (a 64-entry table) is one `tbl` of four on NEON, four
//! shuffles and blends on AVX2, masked blends on AVX-512; the simple masks (`eq`, `ge`,
//! `utf8_ranges`, ...) are one or two instructions each, whose best form differs per set (mask
//! registers on AVX-512, `movemask` on x86, pairwise additions on NEON).

use super::NibblePatterns;
use super::utf8_tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH};

/// 64 bytes in vector registers.
///
/// # Safety
/// Every method runs instructions of the implementing type's set: they may be called only on a
/// CPU that has it (the caller holds that set's `BlockMasks`, which proves it), from code
/// compiled for it, so that they inline into it.
pub(super) trait Block64: Copy {
    /// The 64 bytes at `bytes[at..at + 64]` (panics when they are not all there).
    unsafe fn load(bytes: &[u8], at: usize) -> Self;
    /// `byte` 64 times.
    unsafe fn splat(byte: u8) -> Self;
    unsafe fn and(self, other: Self) -> Self;
    unsafe fn or(self, other: Self) -> Self;
    unsafe fn xor(self, other: Self) -> Self;
    /// Byte-wise `self - other`, at least 0.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// Each byte's low four bits.
    unsafe fn low_nibbles(self) -> Self;
    /// Each byte's high four bits, shifted down.
    unsafe fn high_nibbles(self) -> Self;
    /// `table[byte]` for each byte, all below 16.
    unsafe fn lookup16(self, table: &[u8; 16]) -> Self;
    /// Bit i set where `byte i & bits != 0`.
    unsafe fn test(self, bits: u8) -> u64;
    /// Whether any byte is not zero.
    unsafe fn any(self) -> bool;
    /// Bit i set where byte i is not zero.
    #[inline(always)]
    unsafe fn nonzero(self) -> u64 {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.test(0xff) }
    }
    /// Bit i set where byte i has bit 7 set.
    #[inline(always)]
    unsafe fn signs(self) -> u64 {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.test(0x80) }
    }
}

/// The patterns that begin at each byte: the three positions' nibble look-ups and-ed together
/// (a pattern's bit survives where all three bytes allow it).
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
unsafe fn pattern_hits<B: Block64>(window: &[u8; 66], patterns: &NibblePatterns) -> B {
    // SAFETY: the caller guarantees the CPU has B's instruction set; the loads are of bytes
    // 0..=65 of the window (offsets 0..=2, 64 bytes each).
    unsafe {
        let mut hits = B::splat(0xff);
        for j in 0..3 {
            let v = B::load(window, j);
            let lo = v.low_nibbles().lookup16(&patterns.lo[j]);
            let hi = v.high_nibbles().lookup16(&patterns.hi[j]);
            hits = hits.and(lo).and(hi);
        }
        hits
    }
}

/// [`super::BlockMasks::may_start`]: the first position's nibble look-ups.
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
pub(super) unsafe fn may_start<B: Block64>(block: &[u8; 64], patterns: &NibblePatterns) -> bool {
    // SAFETY: the caller guarantees the CPU has B's instruction set; the load is of the block.
    unsafe {
        let v = B::load(block, 0);
        v.low_nibbles().lookup16(&patterns.lo[0]).and(v.high_nibbles().lookup16(&patterns.hi[0])).any()
    }
}

/// [`super::BlockMasks::pattern_starts`]: [`pattern_hits`], then one test per selection.
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
pub(super) unsafe fn pattern_starts<B: Block64>(
    window: &[u8; 66],
    patterns: &NibblePatterns,
    select: [u8; 3],
) -> [u64; 3] {
    // SAFETY: the caller guarantees the CPU has B's instruction set.
    unsafe {
        let hits = pattern_hits::<B>(window, patterns);
        // (No closure: it would not inherit the caller's target features.)
        [hits.test(select[0]), hits.test(select[1]), hits.test(select[2])]
    }
}

/// [`super::BlockMasks::pattern_starts_top`]: [`pattern_hits`], then the bytes not zero and
/// their sign bits, which need no selection mask.
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
pub(super) unsafe fn pattern_starts_top<B: Block64>(window: &[u8; 66], patterns: &NibblePatterns) -> [u64; 2] {
    // SAFETY: the caller guarantees the CPU has B's instruction set.
    unsafe {
        let hits = pattern_hits::<B>(window, patterns);
        [hits.nonzero(), hits.signs()]
    }
}

/// [`super::BlockMasks::utf8_errors`]: the Keiser-Lemire validator on the 64 bytes at
/// `window[3..]`, the three before them giving the context.
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
pub(super) unsafe fn utf8_errors<B: Block64>(window: &[u8; 67]) -> bool {
    // SAFETY: the caller guarantees the CPU has B's instruction set; the loads are of bytes
    // 0..=66 of the window (offsets 0..=3, 64 bytes each).
    unsafe {
        let input = B::load(window, 3);
        let prev1 = B::load(window, 2);
        let prev2 = B::load(window, 1);
        let prev3 = B::load(window, 0);
        let special = prev1
            .high_nibbles()
            .lookup16(&BYTE_1_HIGH)
            .and(prev1.low_nibbles().lookup16(&BYTE_1_LOW))
            .and(input.high_nibbles().lookup16(&BYTE_2_HIGH));
        // A continuation byte is a must two places after a three- or four-byte lead (E0 and
        // up), and three places after a four-byte one (F0 and up): bit 7 of the saturated
        // differences.
        let third = prev2.saturating_sub(B::splat(0xe0 - 0x80));
        let fourth = prev3.saturating_sub(B::splat(0xf0 - 0x80));
        let must = third.or(fourth).and(B::splat(0x80));
        special.xor(must).any()
    }
}
