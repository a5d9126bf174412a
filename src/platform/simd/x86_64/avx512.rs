//! AVX-512 (BW): a block is one register, and a compare a 64-bit mask register with no bytes to gather. The work runs
//! in a function compiled for AVX-512, AVX2, BMI1/2, POPCNT and LZCNT, so the families' AVX2 kernels run there too.

use crate::platform::cpu::Features;
use crate::platform::simd::block::{Block64, Mask, lanewise};
use crate::platform::simd::{Kernel, Masks, WithMasks};
use std::arch::x86_64::*;

/// Runs `work` with the AVX-512 masks, compiled for AVX-512.
///
/// # Safety
/// The CPU has AVX-512F and BW, AVX2, BMI1, BMI2, POPCNT and LZCNT, and every feature in `features`.
#[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
pub unsafe fn with_avx512<W: WithMasks>(work: W, features: Features) -> W::Output {
    // SAFETY: the caller's guarantee; `work` is inlined here, compiled for AVX-512.
    work.run(unsafe { Masks::<Avx512>::new(features) })
}

/// 64 bytes in one AVX-512 register.
#[derive(Clone, Copy)]
pub struct Avx512([__m512i; 1]);

/// A compare's result: one mask register, bit i for byte i.
#[derive(Clone, Copy)]
pub struct Avx512Mask([u64; 1]);

// SAFETY (every `unsafe` block): the caller guarantees AVX-512BW and F (see `Block64`), and these
// inline into `with_avx512`, compiled for it; loads read a checked slice's 64 bytes, unaligned.
impl Block64 for Avx512 {
    lanewise!(Avx512, Avx512Mask, [0] of 64, kernel: Kernel::Avx512, |a, b| {
        load(p): _mm512_loadu_si512(p.cast()), splat(x): _mm512_set1_epi8(x as i8),
        and: _mm512_and_si512(a, b), or: _mm512_or_si512(a, b), xor: _mm512_xor_si512(a, b),
        wrapping_sub: _mm512_sub_epi8(a, b), saturating_sub: _mm512_subs_epu8(a, b),
        saturating_add: _mm512_adds_epu8(a, b), max: _mm512_max_epu8(a, b),
        // Compares straight into mask registers; unsigned ones too in one instruction.
        eq: _mm512_cmpeq_epi8_mask(a, b), lt_signed: _mm512_cmplt_epi8_mask(a, b),
        ge: _mm512_cmpge_epu8_mask(a, b), le: _mm512_cmple_epu8_mask(a, b),
        // Minus -1 where the mask is set.
        count: _mm512_mask_sub_epi8(a, b, a, _mm512_set1_epi8(-1)),
    });

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Avx512 {
        // SAFETY: see the impl.
        unsafe { Avx512([_mm512_srli_epi16(self.0[0], 4)]).and(Avx512::splat(0x0f)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Avx512 {
        // SAFETY: see the impl; the table is 16 readable bytes.
        Avx512([unsafe {
            _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(table.as_ptr().cast())), self.0[0])
        }])
    }
    #[inline(always)]
    unsafe fn lookup64(self, table: &[u8; 64]) -> Avx512 {
        // SAFETY: see the impl; the table loads read 16 of its 64 bytes each. Four 16-entry
        // shuffles, chosen by the index's bits 4 and 5 (no VBMI needed).
        unsafe {
            let idx = _mm512_and_si512(self.0[0], _mm512_set1_epi8(0x3f));
            let t = table.as_ptr().cast::<__m128i>();
            let r0 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t)), idx);
            let r1 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(1))), idx);
            let r2 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(2))), idx);
            let r3 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(3))), idx);
            let bit4 = _mm512_test_epi8_mask(idx, _mm512_set1_epi8(0x10));
            let bit5 = _mm512_test_epi8_mask(idx, _mm512_set1_epi8(0x20));
            Avx512([_mm512_mask_blend_epi8(
                bit5,
                _mm512_mask_blend_epi8(bit4, r0, r1),
                _mm512_mask_blend_epi8(bit4, r2, r3),
            )])
        }
    }
    #[inline(always)]
    unsafe fn signs(self) -> Avx512Mask {
        // SAFETY: see the impl.
        Avx512Mask([unsafe { _mm512_movepi8_mask(self.0[0]) }])
    }
    /// One `vptestmb`, where the default takes an and, a compare and a not.
    #[inline(always)]
    unsafe fn test(self, bits: u8) -> u64 {
        // SAFETY: see the impl.
        unsafe { _mm512_test_epi8_mask(self.0[0], _mm512_set1_epi8(bits as i8)) }
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        // SAFETY: see the impl.
        unsafe { _mm512_test_epi8_mask(self.0[0], self.0[0]) != 0 }
    }
    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // SAFETY: see the impl.
        unsafe { _mm512_reduce_add_epi64(_mm512_sad_epu8(self.0[0], _mm512_setzero_si512())) as u64 }
    }
    /// One shuffle of the bytes as they are, without the low nibbles' mask (as AVX2's).
    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: &[u8; 16]) -> Avx512 {
        // SAFETY: see the impl.
        unsafe { self.lookup16(table) }
    }
}

impl Mask for Avx512Mask {
    lanewise!(mask Avx512Mask, [0], |a, b| or: a | b);

    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        self.0[0]
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        self.0[0] != 0
    }
}
