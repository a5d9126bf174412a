//! SSE2, part of every x86-64 CPU: a block is four 16-byte registers. SSE2 has no byte shuffle, so its table look-ups
//! go one byte at a time (its callers find bytes by compares instead: `Kernel::table_lookups` is false).

use crate::platform::simd::Kernel;
use crate::platform::simd::block::{Block64, Mask, lanewise};
use std::arch::x86_64::*;

/// 64 bytes in four SSE2 registers.
#[derive(Clone, Copy)]
pub struct Sse2([__m128i; 4]);

/// A compare's result: 0xff in each byte where true (from `signs`: bit 7 alone counts).
#[derive(Clone, Copy)]
pub struct Sse2Mask([__m128i; 4]);

impl Sse2 {
    /// The 64 bytes, to look up one at a time.
    #[inline(always)]
    fn bytes(self) -> [u8; 64] {
        // SAFETY: four `__m128i` are 64 plain bytes.
        unsafe { std::mem::transmute::<[__m128i; 4], [u8; 64]>(self.0) }
    }

    #[inline(always)]
    fn from_bytes(bytes: [u8; 64]) -> Sse2 {
        // SAFETY: any 64 bytes are four `__m128i`.
        Sse2(unsafe { std::mem::transmute::<[u8; 64], [__m128i; 4]>(bytes) })
    }
}

// SAFETY (every `unsafe` block of both impls): SSE2 is part of x86-64, so every CPU this code
// runs on has it; loads read the 64 bytes of a checked slice and need no alignment.
impl Block64 for Sse2 {
    lanewise!(Sse2, Sse2Mask, [0, 1, 2, 3] of 16, kernel: Kernel::Sse2, |a, b| {
        load(p): _mm_loadu_si128(p.cast()), splat(x): _mm_set1_epi8(x as i8), and: _mm_and_si128(a, b),
        or: _mm_or_si128(a, b), xor: _mm_xor_si128(a, b), wrapping_sub: _mm_sub_epi8(a, b),
        saturating_sub: _mm_subs_epu8(a, b), saturating_add: _mm_adds_epu8(a, b), max: _mm_max_epu8(a, b),
        eq: _mm_cmpeq_epi8(a, b), lt_signed: _mm_cmplt_epi8(a, b),
        // Unsigned `a >= b` where `max(a, b) == a`, `a <= b` where `min(a, b) == a`; true bytes are -1: minus counts.
        ge: _mm_cmpeq_epi8(_mm_max_epu8(a, b), a), le: _mm_cmpeq_epi8(_mm_min_epu8(a, b), a), count: _mm_sub_epi8(a, b),
    });

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Sse2 {
        // SAFETY: see the impl.
        unsafe { Sse2(self.0.map(|v| _mm_srli_epi16::<4>(v))).and(Sse2::splat(0x0f)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Sse2 {
        Sse2::from_bytes(self.bytes().map(|b| table[usize::from(b & 15)]))
    }
    #[inline(always)]
    unsafe fn lookup64(self, table: &[u8; 64]) -> Sse2 {
        Sse2::from_bytes(self.bytes().map(|b| table[usize::from(b & 63)]))
    }
    #[inline(always)]
    unsafe fn signs(self) -> Sse2Mask {
        // `movemask` takes bit 7: the bytes themselves.
        Sse2Mask(self.0)
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        let [a, b, c, d] = self.0;
        // SAFETY: see the impl.
        unsafe {
            let v = _mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d));
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) != 0xffff
        }
    }
    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // SAFETY: see the impl.
        unsafe {
            let [a, b, c, d] = self.0.map(|v| _mm_sad_epu8(v, _mm_setzero_si128()));
            let s = _mm_add_epi64(_mm_add_epi64(a, b), _mm_add_epi64(c, d));
            (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_srli_si128::<8>(s))) as u64
        }
    }
}

impl Mask for Sse2Mask {
    lanewise!(mask Sse2Mask, [0, 1, 2, 3], |a, b| or: _mm_or_si128(a, b));

    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        // SAFETY: see the impl of `Block64`.
        let [a, b, c, d] = self.0.map(|v| u64::from(unsafe { _mm_movemask_epi8(v) } as u32));
        a | b << 16 | c << 32 | d << 48
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        let [a, b, c, d] = self.0;
        // SAFETY: see the impl of `Block64`.
        unsafe { _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d))) != 0 }
    }
}
