//! NEON's block: four 16-byte registers; a mask's bits are gathered by pairwise additions.

use crate::platform::simd::Kernel;
use crate::platform::simd::block::{Block64, Mask, lanewise};
use core::arch::aarch64::*;

/// 64 bytes in four NEON registers.
#[derive(Clone, Copy)]
pub struct Neon([uint8x16_t; 4]);

/// A compare's result: 0xff in each byte where true.
#[derive(Clone, Copy)]
pub struct NeonMask([uint8x16_t; 4]);

// SAFETY (every `unsafe` block of both impls): NEON is these targets' baseline, so every CPU of
// the build runs it, closures too; loads read a checked slice's 64 bytes, which need no alignment.
impl Block64 for Neon {
    lanewise!(Neon, NeonMask, [0, 1, 2, 3] of 16, kernel: Kernel::Neon, |a, b| {
        load(p): vld1q_u8(p), splat(x): vdupq_n_u8(x),
        and: vandq_u8(a, b), or: vorrq_u8(a, b), xor: veorq_u8(a, b),
        wrapping_sub: vsubq_u8(a, b), saturating_sub: vqsubq_u8(a, b),
        saturating_add: vqaddq_u8(a, b), max: vmaxq_u8(a, b),
        eq: vceqq_u8(a, b), lt_signed: vcltq_s8(vreinterpretq_s8_u8(a), vreinterpretq_s8_u8(b)),
        // One instruction each (two on SSE2 and AVX2, which have no unsigned compare).
        ge: vcgeq_u8(a, b), le: vcleq_u8(a, b),
        // True bytes are 0xff (-1): subtracting counts them.
        count: vsubq_u8(a, b),
    });

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Neon {
        // SAFETY: see the impl.
        Neon(self.0.map(|v| unsafe { vshrq_n_u8::<4>(v) }))
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Neon {
        // SAFETY: see the impl; the table is 16 readable bytes.
        let t = unsafe { vld1q_u8(table.as_ptr()) };
        // SAFETY: see the impl.
        Neon(self.0.map(|v| unsafe { vqtbl1q_u8(t, v) }))
    }
    /// One `tbl` of four registers.
    #[inline(always)]
    unsafe fn lookup64(self, table: &[u8; 64]) -> Neon {
        let t = table.as_ptr();
        // SAFETY: see the impl; 64 readable bytes of the table, 16 at a time.
        unsafe {
            let tables = uint8x16x4_t(vld1q_u8(t), vld1q_u8(t.add(16)), vld1q_u8(t.add(32)), vld1q_u8(t.add(48)));
            let six = vdupq_n_u8(0x3f);
            Neon(self.0.map(|v| vqtbl4q_u8(tables, vandq_u8(v, six))))
        }
    }
    #[inline(always)]
    unsafe fn signs(self) -> NeonMask {
        // SAFETY: see the impl.
        NeonMask(self.0.map(|v| unsafe { vcltzq_s8(vreinterpretq_s8_u8(v)) }))
    }
    /// One `cmtst` a register, where the default takes an and and a compare.
    #[inline(always)]
    unsafe fn test(self, bits: u8) -> u64 {
        // SAFETY: see the impl.
        unsafe {
            let bits = vdupq_n_u8(bits);
            NeonMask(self.0.map(|v| vtstq_u8(v, bits))).bits()
        }
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        let [a, b, c, d] = self.0;
        // SAFETY: see the impl.
        unsafe { vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) != 0 }
    }
    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // SAFETY: see the impl.
        self.0.iter().map(|&v| u64::from(unsafe { vaddlvq_u8(v) })).sum()
    }
}

impl Mask for NeonMask {
    lanewise!(mask NeonMask, [0, 1, 2, 3], |a, b| or: vorrq_u8(a, b));

    /// Each lane keeps its bit of a byte, and three levels of pairwise additions gather them.
    /// Written out: LLVM turns `vpaddq_u8` of these disjoint bits into `uzp1`, `uzp2` and `orr`
    /// for each `addp`, a costlier mask (benches/RESULTS.md, "Figures behind code comments").
    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        // SAFETY: see the impl of `Block64`; WEIGHTS is 16 readable bytes.
        let w = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
        // SAFETY: see the impl of `Block64`.
        let [a, b, c, d] = self.0.map(|x| unsafe { vandq_u8(x, w) });
        let out: u64;
        // SAFETY: register arithmetic only (NEON, which these targets have), no memory, no flags.
        unsafe {
            core::arch::asm!(
                "addp {a:v}.16b, {a:v}.16b, {b:v}.16b",
                "addp {c:v}.16b, {c:v}.16b, {d:v}.16b",
                "addp {a:v}.16b, {a:v}.16b, {c:v}.16b",
                "addp {a:v}.16b, {a:v}.16b, {a:v}.16b",
                "fmov {out}, {a:d}",
                a = inout(vreg) a => _,
                b = in(vreg) b,
                c = inout(vreg) c => _,
                d = in(vreg) d,
                out = out(reg) out,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        out
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        let [a, b, c, d] = self.0;
        // SAFETY: see the impl of `Block64`.
        unsafe { vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) != 0 }
    }
}
