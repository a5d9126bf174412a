//! The x86-64 baseline (SSE2): the block masks every x86-64 CPU runs, and its byte counter.

use crate::platform::simd::NibblePatterns;
use std::arch::x86_64::*;

/// SSE2 has no byte shuffle: the baseline does not validate by table look-ups.
#[inline(always)]
pub fn utf8_errors(_window: &[u8; 67]) -> bool {
    true
}

/// SSE2 has no byte shuffle: the baseline looks tables up one byte at a time.
#[inline(always)]
pub fn lookup64(block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
    crate::platform::simd::scalar_lookup64(block, table, select)
}

/// SSE2 has no byte shuffle: the baseline looks the patterns up one position at a time.
#[inline(always)]
pub fn pattern_starts(window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
    crate::platform::simd::scalar_pattern_starts(window, patterns, select)
}

/// [`crate::platform::simd::BlockMasks::pattern_starts_top`], one position at a time.
#[inline(always)]
pub fn pattern_starts_top(window: &[u8; 66], patterns: &NibblePatterns) -> [u64; 2] {
    let [any, top, _] = crate::platform::simd::scalar_pattern_starts(window, patterns, [0xff, 0x80, 0]);
    [any, top]
}

/// [`crate::platform::simd::BlockMasks::may_start`], one byte at a time.
#[inline(always)]
pub fn may_start(block: &[u8; 64], patterns: &crate::platform::simd::NibblePatterns) -> bool {
    crate::platform::simd::scalar_may_start(block, patterns)
}

/// The baseline's [`crate::platform::simd::BlockMasks::Tally`]: per-lane counts of a block's
/// four 16-byte quarters.
#[derive(Clone, Copy)]
pub struct Tally([V; 4]);

#[inline(always)]
pub fn tally_new() -> Tally {
    Tally([V::splat(0); 4])
}

/// `tally` less `test`'s byte mask (0xff, that is -1, where true) of each quarter of `block`.
#[inline(always)]
fn tally_by(tally: Tally, block: &[u8; 64], test: impl Fn(V) -> V) -> Tally {
    Tally(std::array::from_fn(|q| tally.0[q].sub(test(V::load(&block[16 * q..])))))
}

#[inline(always)]
pub fn tally(tally: Tally, block: &[u8; 64], byte: u8) -> Tally {
    let n = V::splat(byte);
    tally_by(tally, block, |v| v.eq(n))
}

#[inline(always)]
pub fn tally_continuation(tally: Tally, block: &[u8; 64]) -> Tally {
    // Signed, 0x80..=0xbf are -128..=-65: the bytes below -64.
    let limit = V::splat(-64i8 as u8);
    tally_by(tally, block, |v| v.lt_signed(limit))
}

#[inline(always)]
pub fn tally_total(tally: Tally) -> u64 {
    tally.0.iter().map(|t| t.sum()).sum()
}

pub fn count_byte_sse2(buf: &[u8], byte: u8) -> u64 {
    // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
    unsafe { count_byte_sse2_inner(buf, byte) }
}

/// The matching lanes (0xff, that is -1) are subtracted into byte counters, which are
/// summed into 64-bit lanes every 255 blocks.
#[target_feature(enable = "sse2")]
pub(super) fn count_byte_sse2_inner(buf: &[u8], byte: u8) -> u64 {
    let needle = _mm_set1_epi8(byte as i8);
    let mut total = _mm_setzero_si128();
    let mut blocks = buf.chunks_exact(16);
    loop {
        let mut counters = _mm_setzero_si128();
        let mut n = 0;
        for block in blocks.by_ref().take(255) {
            // SAFETY: `block` is 16 readable bytes; no alignment is required.
            let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
            counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(v, needle));
            n += 1;
        }
        total = _mm_add_epi64(total, _mm_sad_epu8(counters, _mm_setzero_si128()));
        if n < 255 {
            break;
        }
    }
    let sum = _mm_cvtsi128_si64(total) as u64 + _mm_cvtsi128_si64(_mm_srli_si128(total, 8)) as u64;
    sum + crate::platform::simd::swar_count_byte(blocks.remainder(), byte)
}

/// A 16-byte SSE2 vector. SSE2 is part of the x86-64 baseline, so its intrinsics need no
/// run-time check: each operation wraps one in the only `unsafe` the SSE2 masks need, and the
/// masks below are plain code over it.
#[derive(Clone, Copy)]
struct V(__m128i);

impl V {
    #[inline(always)]
    fn load(part: &[u8]) -> V {
        assert!(part.len() >= 16);
        // SAFETY: `part` has 16 readable bytes (asserted); _mm_loadu_si128 needs no alignment;
        // SSE2 is baseline.
        V(unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) })
    }
    #[inline(always)]
    fn splat(byte: u8) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_set1_epi8(byte as i8) })
    }
    /// 0xff where the bytes are equal.
    #[inline(always)]
    fn eq(self, other: V) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_cmpeq_epi8(self.0, other.0) })
    }
    /// 0xff where `self`'s byte is less than `other`'s, both signed.
    #[inline(always)]
    fn lt_signed(self, other: V) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_cmplt_epi8(self.0, other.0) })
    }
    /// 0xff where `self`'s byte is greater than `other`'s, both signed.
    #[inline(always)]
    fn gt_signed(self, other: V) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_cmpgt_epi8(self.0, other.0) })
    }
    #[inline(always)]
    fn min(self, other: V) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_min_epu8(self.0, other.0) })
    }
    #[inline(always)]
    fn max(self, other: V) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_max_epu8(self.0, other.0) })
    }
    #[inline(always)]
    fn or(self, other: V) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_or_si128(self.0, other.0) })
    }
    /// Byte-wise wrapping subtraction.
    #[inline(always)]
    fn sub(self, other: V) -> V {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        V(unsafe { _mm_sub_epi8(self.0, other.0) })
    }
    /// The sum of the 16 bytes, unsigned.
    #[inline(always)]
    fn sum(self) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe {
            let halves = _mm_sad_epu8(self.0, _mm_setzero_si128());
            (_mm_cvtsi128_si64(halves) + _mm_cvtsi128_si64(_mm_srli_si128::<8>(halves))) as u64
        }
    }
    /// Bit i set where byte i has its top bit set.
    #[inline(always)]
    fn movemask(self) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { _mm_movemask_epi8(self.0) as u32 as u64 }
    }
}

/// The 64-bit mask of a block from `test`'s byte mask on each of its four 16-byte quarters:
/// the one loop every SSE2 mask shares.
#[inline(always)]
fn mask64(block: &[u8; 64], test: impl Fn(V) -> V) -> u64 {
    let mut mask = 0u64;
    for (k, part) in block.chunks_exact(16).enumerate() {
        mask |= test(V::load(part)).movemask() << (16 * k);
    }
    mask
}

#[inline]
pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
    mask64(block, |v| v)
}

#[inline]
pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
    // As signed bytes, 0x80..=0xff are negative: one "less than 0x20" covers both ends.
    let (space, del) = (V::splat(0x20), V::splat(0x7f));
    mask64(block, |v| v.lt_signed(space).or(v.eq(del)))
}

#[inline]
pub fn ascii_space_mask64(block: &[u8; 64]) -> u64 {
    // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE.
    let (nine, four, space) = (V::splat(9), V::splat(4), V::splat(b' '));
    mask64(block, |v| {
        let x = v.sub(nine);
        x.min(four).eq(x).or(v.eq(space))
    })
}

#[inline]
pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
    let needle = V::splat(byte);
    mask64(block, |v| v.eq(needle))
}

#[inline]
pub fn ge_mask64(block: &[u8; 64], byte: u8) -> u64 {
    // v >= limit exactly where max(v, limit) == v.
    let limit = V::splat(byte);
    mask64(block, |v| v.max(limit).eq(v))
}

#[inline]
pub fn ascii_blocks(buf: &[u8]) -> usize {
    let mut n = 0;
    for block in buf.chunks_exact(64) {
        let q = |k: usize| V::load(&block[16 * k..]);
        if q(0).or(q(1)).or(q(2).or(q(3))).movemask() != 0 {
            break;
        }
        n += 64;
    }
    n
}

/// As signed bytes, 0x80..=0xff are -128..=-1: each range is one signed comparison
/// (and-ed with the high bit, since ASCII is positive).
#[inline]
pub fn utf8_ranges64(block: &[u8; 64]) -> crate::platform::simd::Utf8Ranges {
    let high = high_bit_mask64(block);
    let above = |byte: u8| {
        let limit = V::splat(byte);
        mask64(block, |v| v.gt_signed(limit)) & high
    };
    let c0 = V::splat(0xc0);
    crate::platform::simd::Utf8Ranges {
        high,
        cont: mask64(block, |v| v.lt_signed(c0)),
        ge_c2: above(0xc1),
        ge_e0: above(0xdf),
        ge_f0: above(0xef),
        ge_f5: above(0xf4),
    }
}
