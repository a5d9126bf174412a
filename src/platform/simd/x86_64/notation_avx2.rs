//! `cat -v`'s notation of whole blocks with AVX2 ([`super::super::Notation::Shuffles`]): each byte's four fields
//! (`M`, `-`, `^` or `$`, the character) built by two levels of byte interleaves, and each four bytes' used fields
//! packed by one shuffle from a 256-entry table. A block costs the same however many bytes need notation, which pays
//! where most do (binary data, non-Latin text) and `cat`'s per-byte steps are costly. Also AVX-512's without VBMI2.

use super::splat8;
use crate::platform::simd::notation::shuffles::NOTATION_SHUFFLES;
use std::arch::x86_64::*;

/// `cat -v` notation of the 32 bytes `x` at `out[at..]` (see `Masks::notation`); returns where
/// it ends. The fields are `M`, `-`, `^` or `$` or nothing, and the character with bit 7 cleared
/// (and bit 6 flipped after `^`). Each four bytes' fields are stored as 16 bytes, the used kept.
///
/// # Safety
/// The CPU has AVX2; `out[at..]` has room for 128 bytes, and 16 more past the last kept.
#[inline(always)]
unsafe fn notation32(x: __m256i, tabs: bool, ends: bool, out: *mut u8, mut at: usize) -> usize {
    // SAFETY: the caller's guarantees; each store is of 16 bytes at most 16 past where the
    // output so far ends, and the output of 32 bytes is at most 128.
    unsafe {
        // (No closure: it would not be compiled for AVX2.)
        let byte = splat8;
        let meta = _mm256_cmpgt_epi8(_mm256_setzero_si256(), x);
        let low = _mm256_and_si256(x, byte(0x7f));
        // Low seven bits below 0x20 or 0x7f: (low + 1) & 0x7f below 0x21.
        let control = _mm256_cmpgt_epi8(byte(0x21), _mm256_and_si256(_mm256_add_epi8(low, byte(1)), byte(0x7f)));
        let lf = _mm256_cmpeq_epi8(x, byte(b'\n'));
        let mut caret = _mm256_andnot_si256(lf, control);
        if !tabs {
            caret = _mm256_andnot_si256(_mm256_cmpeq_epi8(x, byte(b'\t')), caret);
        }
        let dollar = if ends { lf } else { _mm256_setzero_si256() };
        let prefixed = _mm256_or_si256(caret, dollar);
        let prefix = _mm256_or_si256(_mm256_and_si256(caret, byte(b'^')), _mm256_and_si256(dollar, byte(b'$')));
        let character = _mm256_xor_si256(low, _mm256_and_si256(caret, byte(0x40)));
        // Fields of bytes 0-3, 4-7, 8-11, 12-15 in the low lanes, of 16-19, ... in the high.
        let pairs = [_mm256_unpacklo_epi8(prefix, character), _mm256_unpackhi_epi8(prefix, character)];
        let m_dash = _mm256_set1_epi16(i16::from_le_bytes([b'M', b'-']));
        let fields = [
            _mm256_unpacklo_epi16(m_dash, pairs[0]),
            _mm256_unpackhi_epi16(m_dash, pairs[0]),
            _mm256_unpacklo_epi16(m_dash, pairs[1]),
            _mm256_unpackhi_epi16(m_dash, pairs[1]),
        ];
        // Two index bits a byte, four bytes to an index byte: bytes 0-15's in `low_lane`, 16-31's in `high_lane`.
        let used = _mm256_or_si256(_mm256_and_si256(meta, byte(1)), _mm256_and_si256(prefixed, byte(2)));
        let pairs_of_bytes = _mm256_maddubs_epi16(used, _mm256_set1_epi16(0x0401));
        let fours = _mm256_madd_epi16(pairs_of_bytes, _mm256_set1_epi32(0x0010_0001));
        let packed = _mm256_packus_epi16(_mm256_packus_epi32(fours, fours), _mm256_setzero_si256());
        let low_lane = _mm256_extract_epi32::<0>(packed) as u32;
        let high_lane = _mm256_extract_epi32::<4>(packed) as u32;
        for (half, indexes) in [low_lane, high_lane].into_iter().enumerate() {
            for (g, &group) in fields.iter().enumerate() {
                let lane = if half == 0 { _mm256_castsi256_si128(group) } else { _mm256_extracti128_si256::<1>(group) };
                let index = usize::from((indexes >> (8 * g)) as u8);
                let shuffle = _mm_loadu_si128(NOTATION_SHUFFLES.shuffles[index].as_ptr().cast());
                _mm_storeu_si128(out.add(at).cast(), _mm_shuffle_epi8(lane, shuffle));
                at += usize::from(NOTATION_SHUFFLES.lens[index]);
            }
        }
        at
    }
}

/// `Masks::notation` of the whole blocks of `input` that `out` has 256 bytes of room for.
///
/// # Safety
/// The CPU has AVX2, and the caller is compiled for it (it inlines there).
#[inline(always)]
pub unsafe fn notation_blocks(input: &[u8], tabs: bool, ends: bool, out: &mut [u8]) -> (usize, usize) {
    let blocks = (input.len() / 64).min(out.len() / 256);
    let mut at = 0;
    for (k, block) in input.chunks_exact(64).take(blocks).enumerate() {
        // SAFETY: the caller's guarantee; `block` is 64 readable bytes. Block k's output starts
        // at most 256 * k in, and each half of it starts at most 128 bytes after that and
        // writes at most 128 bytes and 16 past its last kept (`notation32`): inside `out`.
        unsafe {
            let x = [_mm256_loadu_si256(block.as_ptr().cast()), _mm256_loadu_si256(block.as_ptr().add(32).cast())];
            debug_assert!(at <= 256 * k);
            at = notation32(x[0], tabs, ends, out.as_mut_ptr(), at);
            at = notation32(x[1], tabs, ends, out.as_mut_ptr(), at);
        }
    }
    (64 * blocks, at)
}
