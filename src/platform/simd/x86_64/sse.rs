//! SSE2, part of every x86-64 CPU, and SSSE3: a block is four 16-byte registers. The two sets' blocks differ only in
//! their table look-ups: SSSE3 has a byte shuffle (PSHUFB); SSE2 has none, so its look-ups go one byte at a time (its
//! callers find bytes by compares instead: `Kernel::table_lookups` is false).

use crate::platform::cpu::Features;
use crate::platform::simd::block::{Block64, Mask, lanewise};
use crate::platform::simd::{Kernel, Masks, WithMasks};
use std::arch::x86_64::*;

/// Runs `work` with the SSSE3 masks, compiled for SSSE3 (and POPCNT, so that what it inlines counts bits with it).
///
/// # Safety
/// The CPU has SSSE3 and POPCNT, and every feature in `features`.
#[target_feature(enable = "ssse3,popcnt")]
#[inline(never)]
pub unsafe fn with_ssse3<W: WithMasks>(work: W, features: Features) -> W::Output {
    // SAFETY: the caller's guarantee; `work` is inlined here, compiled for SSSE3.
    work.run(unsafe { Masks::<Ssse3>::new(features) })
}

/// 64 bytes in four 16-byte registers; look-ups by PSHUFB where `PSHUFB` (SSSE3), else a byte at a time (SSE2).
#[derive(Clone, Copy)]
pub struct Sse<const PSHUFB: bool>([__m128i; 4]);

/// SSE2's block, every x86-64 CPU's.
pub type Sse2 = Sse<false>;

/// SSSE3's block: SSE2's with byte shuffles.
pub type Ssse3 = Sse<true>;

/// A compare's result: 0xff in each byte where true (from `signs`: bit 7 alone counts).
#[derive(Clone, Copy)]
pub struct SseMask([__m128i; 4]);

impl<const PSHUFB: bool> Sse<PSHUFB> {
    /// The 64 bytes, to look up one at a time.
    #[inline(always)]
    fn bytes(self) -> [u8; 64] {
        // SAFETY: four `__m128i` are 64 plain bytes.
        unsafe { std::mem::transmute::<[__m128i; 4], [u8; 64]>(self.0) }
    }

    #[inline(always)]
    fn from_bytes(bytes: [u8; 64]) -> Self {
        // SAFETY: any 64 bytes are four `__m128i`.
        Sse(unsafe { std::mem::transmute::<[u8; 64], [__m128i; 4]>(bytes) })
    }

    /// Each register's bytes shuffled by `table`: `table[byte & 15]`, 0 where bit 7 is set.
    ///
    /// # Safety
    /// The CPU has SSSE3 and the caller is compiled for it (`with_ssse3`).
    #[inline(always)]
    unsafe fn shuffled(self, table: __m128i) -> Self {
        // SAFETY: the caller's guarantee.
        Sse(self.0.map(|v| unsafe { _mm_shuffle_epi8(table, v) }))
    }
}

/// `table`'s 16 bytes in a register.
#[inline(always)]
fn load16(table: &[u8; 16]) -> __m128i {
    // SAFETY: SSE2 is part of x86-64; `table` is 16 readable bytes, unaligned.
    unsafe { _mm_loadu_si128(table.as_ptr().cast()) }
}

// SAFETY (every `unsafe` block of both impls): SSE2 is part of x86-64, so every CPU this code runs on has it; SSSE3's
// shuffles run only in `Sse<true>`, whose masks exist only where the CPU has SSSE3 (`with_ssse3`), and inline into
// `with_ssse3`, compiled for it; loads read the 64 bytes of a checked slice and need no alignment.
impl<const PSHUFB: bool> Block64 for Sse<PSHUFB> {
    lanewise!(Self, SseMask, [0, 1, 2, 3] of 16, kernel: if PSHUFB { Kernel::Ssse3 } else { Kernel::Sse2 }, |a, b| {
        load(p): _mm_loadu_si128(p.cast()), splat(x): _mm_set1_epi8(x as i8), and: _mm_and_si128(a, b),
        or: _mm_or_si128(a, b), xor: _mm_xor_si128(a, b), wrapping_sub: _mm_sub_epi8(a, b),
        saturating_sub: _mm_subs_epu8(a, b), saturating_add: _mm_adds_epu8(a, b), max: _mm_max_epu8(a, b),
        eq: _mm_cmpeq_epi8(a, b), lt_signed: _mm_cmplt_epi8(a, b),
        // Unsigned `a >= b` where `max(a, b) == a`, `a <= b` where `min(a, b) == a`; true bytes are -1: minus counts.
        ge: _mm_cmpeq_epi8(_mm_max_epu8(a, b), a), le: _mm_cmpeq_epi8(_mm_min_epu8(a, b), a), count: _mm_sub_epi8(a, b),
    });

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Self {
        // SAFETY: see the impl.
        unsafe { Sse(self.0.map(|v| _mm_srli_epi16::<4>(v))).and(Self::splat(0x0f)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Self {
        if PSHUFB {
            // SAFETY: see the impl.
            return unsafe { self.shuffled(load16(table)) };
        }
        Self::from_bytes(self.bytes().map(|b| table[usize::from(b & 15)]))
    }
    /// One shuffle of the bytes as they are (0 where bit 7 is set), as AVX2's.
    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: &[u8; 16]) -> Self {
        // SAFETY: see the impl.
        unsafe { if PSHUFB { self.shuffled(load16(table)) } else { self.low_nibbles().lookup16(table) } }
    }
    /// With shuffles: each quarter of the table shuffled by the low nibbles, kept where bits 4 and 5 name it.
    #[inline(always)]
    unsafe fn lookup64(self, table: &[u8; 64]) -> Self {
        if !PSHUFB {
            return Self::from_bytes(self.bytes().map(|b| table[usize::from(b & 63)]));
        }
        // SAFETY: see the impl.
        unsafe {
            let (low, quarter) = (self.low_nibbles(), self.and(Self::splat(0x30)));
            let mut out = Self::splat(0);
            for (k, sixteen) in table.chunks_exact(16).enumerate() {
                let picked = low.shuffled(load16(sixteen.try_into().unwrap()));
                let here = quarter.eq(Self::splat(16 * k as u8));
                out = out.or(Sse(std::array::from_fn(|i| _mm_and_si128(picked.0[i], here.0[i]))));
            }
            out
        }
    }
    #[inline(always)]
    unsafe fn signs(self) -> SseMask {
        // `movemask` takes bit 7: the bytes themselves.
        SseMask(self.0)
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

impl Mask for SseMask {
    lanewise!(mask SseMask, [0, 1, 2, 3], |a, b| or: _mm_or_si128(a, b));

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
