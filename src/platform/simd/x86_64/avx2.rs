//! AVX2: a block is two 32-byte registers; the work runs in a function compiled for AVX2 (with
//! BMI1/2, POPCNT and LZCNT, so that what it inlines uses them too).

use crate::platform::cpu::Features;
use crate::platform::simd::block::{Block64, Mask, lanewise};
use crate::platform::simd::{Kernel, Masks, WithMasks};
use std::arch::x86_64::*;

/// Runs `work` with the AVX2 masks, compiled for AVX2.
///
/// # Safety
/// The CPU has AVX2, BMI1, BMI2, POPCNT and LZCNT, and every feature in `features`.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
pub unsafe fn with_avx2<W: WithMasks>(work: W, features: Features) -> W::Output {
    // SAFETY: the caller's guarantee; `work` is inlined here, compiled for AVX2.
    work.run(unsafe { Masks::<Avx2>::new(features) })
}

/// 64 bytes in two AVX2 registers.
#[derive(Clone, Copy)]
pub struct Avx2(pub(super) [__m256i; 2]);

/// A compare's result: 0xff in each byte where true (from `signs`: bit 7 alone counts).
#[derive(Clone, Copy)]
pub struct Avx2Mask([__m256i; 2]);

/// The 64-entry look-up of `idx` (bytes below 64) in the 16-byte quarters `q`, in both halves:
/// four shuffles, chosen by bits 4 and 5 shifted up to blendv's bit 7 (spilling where it ignores).
///
/// # Safety
/// The CPU has AVX2, as for all functions here (inlined into `with_avx2`; a closure would not be compiled for it).
#[inline(always)]
unsafe fn look64(q: &[__m256i; 4], idx: __m256i) -> __m256i {
    // SAFETY: the caller's guarantee.
    unsafe {
        let bit4 = _mm256_slli_epi16(idx, 3);
        let low = _mm256_blendv_epi8(_mm256_shuffle_epi8(q[0], idx), _mm256_shuffle_epi8(q[1], idx), bit4);
        let high = _mm256_blendv_epi8(_mm256_shuffle_epi8(q[2], idx), _mm256_shuffle_epi8(q[3], idx), bit4);
        _mm256_blendv_epi8(low, high, _mm256_slli_epi16(idx, 2))
    }
}

// SAFETY (every `unsafe` block of both impls): the caller guarantees AVX2 (see `Block64`), and
// these inline into `with_avx2`, compiled for it; loads read a checked slice's 64 bytes, unaligned.
impl Block64 for Avx2 {
    lanewise!(Avx2, Avx2Mask, [0, 1] of 32, kernel: Kernel::Avx2, |a, b| {
        load(p): _mm256_loadu_si256(p.cast()), splat(x): _mm256_set1_epi8(x as i8),
        and: _mm256_and_si256(a, b), or: _mm256_or_si256(a, b), xor: _mm256_xor_si256(a, b),
        wrapping_sub: _mm256_sub_epi8(a, b), saturating_sub: _mm256_subs_epu8(a, b),
        saturating_add: _mm256_adds_epu8(a, b), max: _mm256_max_epu8(a, b),
        eq: _mm256_cmpeq_epi8(a, b), lt_signed: _mm256_cmpgt_epi8(b, a),
        // Unsigned `a >= b` exactly where `max(a, b) == a`; `a <= b` where `min(a, b) == a`.
        ge: _mm256_cmpeq_epi8(_mm256_max_epu8(a, b), a), le: _mm256_cmpeq_epi8(_mm256_min_epu8(a, b), a),
        // True bytes are -1: subtracting counts them.
        count: _mm256_sub_epi8(a, b),
    });

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Avx2 {
        // SAFETY: see the impl.
        unsafe { Avx2([_mm256_srli_epi16(self.0[0], 4), _mm256_srli_epi16(self.0[1], 4)]).and(Avx2::splat(0x0f)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Avx2 {
        // SAFETY: see the impl; the table is 16 readable bytes.
        unsafe {
            let t = _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr().cast()));
            Avx2([_mm256_shuffle_epi8(t, self.0[0]), _mm256_shuffle_epi8(t, self.0[1])])
        }
    }
    /// One shuffle of the bytes as they are (0 where bit 7 is set), saving the low nibbles' mask
    /// (benches/RESULTS.md, "Figures behind code comments").
    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: &[u8; 16]) -> Avx2 {
        // SAFETY: see the impl.
        unsafe { self.lookup16(table) }
    }
    #[inline(always)]
    unsafe fn lookup64(self, table: &[u8; 64]) -> Avx2 {
        // SAFETY: see the impl; the table loads read 16 of its 64 bytes each.
        unsafe {
            let t = table.as_ptr().cast::<__m128i>();
            let q = [
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t)),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(1))),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(2))),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(3))),
            ];
            let six = _mm256_set1_epi8(0x3f);
            Avx2([look64(&q, _mm256_and_si256(self.0[0], six)), look64(&q, _mm256_and_si256(self.0[1], six))])
        }
    }
    #[inline(always)]
    unsafe fn signs(self) -> Avx2Mask {
        // `movemask` takes bit 7: the bytes themselves.
        Avx2Mask(self.0)
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        // SAFETY: see the impl.
        unsafe {
            let v = _mm256_or_si256(self.0[0], self.0[1]);
            _mm256_testz_si256(v, v) == 0
        }
    }
    #[inline(always)]
    unsafe fn or_into_first(self, other: Avx2) -> Avx2 {
        // SAFETY: see the impl.
        unsafe {
            let both = _mm256_or_si256(_mm256_or_si256(self.0[0], other.0[0]), other.0[1]);
            Avx2([both, _mm256_setzero_si256()])
        }
    }
    #[inline(always)]
    unsafe fn count_into_first(self, mask: Avx2Mask) -> Avx2 {
        // SAFETY: see the impl.
        unsafe {
            let first = _mm256_sub_epi8(_mm256_sub_epi8(self.0[0], mask.0[0]), mask.0[1]);
            Avx2([first, _mm256_setzero_si256()])
        }
    }
    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // SAFETY: see the impl.
        unsafe {
            let zero = _mm256_setzero_si256();
            let sums = _mm256_add_epi64(_mm256_sad_epu8(self.0[0], zero), _mm256_sad_epu8(self.0[1], zero));
            let pair = _mm_add_epi64(_mm256_extracti128_si256::<0>(sums), _mm256_extracti128_si256::<1>(sums));
            (_mm_cvtsi128_si64(pair) + _mm_cvtsi128_si64(_mm_srli_si128::<8>(pair))) as u64
        }
    }
}

impl Mask for Avx2Mask {
    lanewise!(mask Avx2Mask, [0, 1], |a, b| or: _mm256_or_si256(a, b));

    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        // SAFETY: see the impl of `Block64`.
        unsafe { _mm256_movemask_epi8(self.0[0]) as u32 as u64 | (_mm256_movemask_epi8(self.0[1]) as u32 as u64) << 32 }
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        // SAFETY: see the impl of `Block64`.
        unsafe { _mm256_movemask_epi8(_mm256_or_si256(self.0[0], self.0[1])) != 0 }
    }
}
