//! AVX-512 (BW): block masks straight into 64-bit masks, and a byte counter.

use crate::platform::simd::generic::{self, Block64};
use crate::platform::simd::{BlockMasks, NibblePatterns, Utf8Ranges, WithMasks};
use std::arch::x86_64::*;

use super::{prefetch, sse2::count_byte_sse2_inner};

#[inline(always)]
pub fn with_avx512<W: WithMasks>(work: W) -> W::Output {
    let features = crate::platform::cpu::features();
    assert!(features.avx512bw && features.avx2 && features.bmi2 && features.popcnt);
    // SAFETY: the CPU has every feature `avx512_context` is compiled for (checked just
    // above; AVX-512BW implies AVX-512F, LZCNT and BMI1 come with BMI2).
    unsafe { avx512_context(work) }
}

#[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
fn avx512_context<W: WithMasks>(work: W) -> W::Output {
    work.run(Avx512Masks(()))
}

/// AVX-512 block masks (compares straight into 64-bit masks). Only `avx512_context` makes
/// one, after its caller checked that the CPU has AVX-512BW: holding one proves the
/// AVX-512 instructions below can run.
#[derive(Clone, Copy, Debug)]
pub struct Avx512Masks(());

#[inline(always)]
pub(super) fn load512(block: &[u8; 64]) -> __m512i {
    // SAFETY: `block` is 64 readable bytes; _mm512_loadu_si512 needs no alignment. Called
    // only from Avx512Masks methods and the VBMI2 kernel: the CPU has AVX-512.
    unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) }
}

impl BlockMasks for Avx512Masks {
    const TABLE_LOOKUPS: bool = true;
    type Tally = __m512i;

    #[inline(always)]
    fn utf8_errors(self, window: &[u8; 67]) -> bool {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { generic::utf8_errors::<Block>(window) }
    }

    #[inline(always)]
    fn lookup64(self, block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW; the table loads read
        // 16 of its 64 bytes each. Four 16-entry shuffles, chosen by the index's bits 4 and 5
        // (no VBMI needed).
        unsafe {
            let idx = _mm512_and_si512(load512(block), _mm512_set1_epi8(0x3f));
            let t = table.as_ptr().cast::<__m128i>();
            let r0 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t)), idx);
            let r1 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(1))), idx);
            let r2 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(2))), idx);
            let r3 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(3))), idx);
            let bit4 = _mm512_test_epi8_mask(idx, _mm512_set1_epi8(0x10));
            let bit5 = _mm512_test_epi8_mask(idx, _mm512_set1_epi8(0x20));
            let r = _mm512_mask_blend_epi8(
                bit5,
                _mm512_mask_blend_epi8(bit4, r0, r1),
                _mm512_mask_blend_epi8(bit4, r2, r3),
            );
            [
                _mm512_test_epi8_mask(r, _mm512_set1_epi8(select[0] as i8)),
                _mm512_test_epi8_mask(r, _mm512_set1_epi8(select[1] as i8)),
                _mm512_test_epi8_mask(r, _mm512_set1_epi8(select[2] as i8)),
            ]
        }
    }

    #[inline(always)]
    fn tally_new(self) -> __m512i {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { _mm512_setzero_si512() }
    }

    #[inline(always)]
    fn tally(self, tally: __m512i, block: &[u8; 64], byte: u8) -> __m512i {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe {
            let equal = _mm512_cmpeq_epi8_mask(load512(block), _mm512_set1_epi8(byte as i8));
            _mm512_mask_sub_epi8(tally, equal, tally, _mm512_set1_epi8(-1))
        }
    }

    #[inline(always)]
    fn tally_continuation(self, tally: __m512i, block: &[u8; 64]) -> __m512i {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe {
            let continuation = _mm512_cmplt_epi8_mask(load512(block), _mm512_set1_epi8(-64));
            _mm512_mask_sub_epi8(tally, continuation, tally, _mm512_set1_epi8(-1))
        }
    }

    #[inline(always)]
    fn tally_total(self, tally: __m512i) -> u64 {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { _mm512_reduce_add_epi64(_mm512_sad_epu8(tally, _mm512_setzero_si512())) as u64 }
    }

    #[inline(always)]
    fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { generic::pattern_starts::<Block>(window, patterns, select) }
    }

    #[inline(always)]
    fn may_start(self, block: &[u8; 64], patterns: &NibblePatterns) -> bool {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { generic::may_start::<Block>(block, patterns) }
    }

    #[inline(always)]
    fn pattern_starts_top(self, window: &[u8; 66], patterns: &NibblePatterns) -> [u64; 2] {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { generic::pattern_starts_top::<Block>(window, patterns) }
    }

    #[inline(always)]
    fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { _mm512_cmpeq_epi8_mask(load512(block), _mm512_set1_epi8(byte as i8)) }
    }

    #[inline(always)]
    fn high(self, block: &[u8; 64]) -> u64 {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { _mm512_movepi8_mask(load512(block)) }
    }

    #[inline(always)]
    fn ge(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { _mm512_cmpge_epu8_mask(load512(block), _mm512_set1_epi8(byte as i8)) }
    }

    #[inline(always)]
    fn continuation(self, block: &[u8; 64]) -> u64 {
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        // Signed, 0x80..=0xbf are -128..=-65: the bytes below -64.
        unsafe { _mm512_cmplt_epi8_mask(load512(block), _mm512_set1_epi8(-64)) }
    }

    #[inline(always)]
    fn control_or_high(self, block: &[u8; 64]) -> u64 {
        let v = load512(block);
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) | _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0x7f)) }
    }

    #[inline(always)]
    fn controls(self, block: &[u8; 64]) -> u64 {
        let v = load512(block);
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe { _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x7f)) }
    }

    #[inline(always)]
    fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
        let v = load512(block);
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe {
            // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE (and extra).
            let low = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(9)), _mm512_set1_epi8(4));
            let space = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b' ' as i8));
            let a0 = match extra {
                Some(byte) => _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8)),
                None => 0,
            };
            low | space | a0
        }
    }

    #[inline(always)]
    fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
        let v = load512(block);
        // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
        unsafe {
            let high = _mm512_movepi8_mask(v);
            Utf8Ranges {
                high,
                cont: high & !_mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xc0u8 as i8)),
                ge_c2: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xc2u8 as i8)),
                ge_e0: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xe0u8 as i8)),
                ge_f0: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xf0u8 as i8)),
                ge_f5: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xf5u8 as i8)),
            }
        }
    }

    #[inline(always)]
    fn ascii_blocks(self, buf: &[u8]) -> usize {
        let mut n = 0;
        for block in buf.chunks_exact(64) {
            if self.high(block.try_into().unwrap()) != 0 {
                break;
            }
            n += 64;
        }
        n
    }
}

pub fn count_byte_avx512(buf: &[u8], byte: u8) -> u64 {
    assert!(crate::platform::cpu::features().avx512bw);
    // SAFETY: the CPU has AVX-512BW (checked just above), which implies AVX-512F.
    unsafe { count_byte_avx512_inner(buf, byte) }
}

/// As the AVX2 count, 64 bytes at a time with two independent counters.
#[target_feature(enable = "avx512f,avx512bw")]
fn count_byte_avx512_inner(buf: &[u8], byte: u8) -> u64 {
    let needle = _mm512_set1_epi8(byte as i8);
    let zero = _mm512_setzero_si512();
    let mut total = _mm512_setzero_si512();
    let mut blocks = buf.chunks_exact(128);
    loop {
        let (mut a, mut b) = (zero, zero);
        let mut n = 0;
        for block in blocks.by_ref().take(255) {
            // A mapped file comes from memory: ask for it ahead (see `prefetch_ahead`).
            prefetch(block.as_ptr().wrapping_add(crate::platform::simd::PREFETCH_DISTANCE));
            prefetch(block.as_ptr().wrapping_add(crate::platform::simd::PREFETCH_DISTANCE + 64));
            // SAFETY: `block` is 128 readable bytes; _mm512_loadu_si512 needs no alignment.
            let (x, y) = unsafe {
                let p = block.as_ptr().cast::<__m512i>();
                (_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1)))
            };
            a = _mm512_sub_epi8(a, _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(x, needle)));
            b = _mm512_sub_epi8(b, _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(y, needle)));
            n += 1;
        }
        total = _mm512_add_epi64(total, _mm512_add_epi64(_mm512_sad_epu8(a, zero), _mm512_sad_epu8(b, zero)));
        if n < 255 {
            break;
        }
    }
    _mm512_reduce_add_epi64(total) as u64 + count_byte_sse2_inner(blocks.remainder(), byte)
}

/// 64 bytes in one AVX-512 register, for the algorithms of `generic.rs`.
#[derive(Clone, Copy)]
struct Block(__m512i);

// SAFETY (every method): the caller guarantees AVX-512BW (see `Block64`); loads read the 64
// bytes of a checked slice and need no alignment.
impl Block64 for Block {
    #[inline(always)]
    unsafe fn load(bytes: &[u8], at: usize) -> Block {
        let bytes = &bytes[at..at + 64];
        // SAFETY: see the impl.
        Block(unsafe { _mm512_loadu_si512(bytes.as_ptr().cast::<__m512i>()) })
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { _mm512_set1_epi8(byte as i8) })
    }
    #[inline(always)]
    unsafe fn and(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { _mm512_and_si512(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn or(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { _mm512_or_si512(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn xor(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { _mm512_xor_si512(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { _mm512_subs_epu8(self.0, other.0) })
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { _mm512_and_si512(self.0, _mm512_set1_epi8(0x0f)) })
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { _mm512_and_si512(_mm512_srli_epi16(self.0, 4), _mm512_set1_epi8(0x0f)) })
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Block {
        // SAFETY: see the impl; the table is 16 readable bytes.
        Block(unsafe { _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(table.as_ptr().cast())), self.0) })
    }
    #[inline(always)]
    unsafe fn test(self, bits: u8) -> u64 {
        // SAFETY: see the impl.
        unsafe { _mm512_test_epi8_mask(self.0, _mm512_set1_epi8(bits as i8)) }
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        // SAFETY: see the impl.
        unsafe { _mm512_test_epi8_mask(self.0, self.0) != 0 }
    }
}
