//! `cat -v`'s notation of whole blocks with SSSE3 ([`super::super::Notation::Shuffles`]), as AVX2's on 16-byte
//! registers: each byte's four fields (`M`, `-`, `^` or `$`, the character) built by two levels of byte interleaves,
//! and each four bytes' used fields packed by one shuffle (PSHUFB) from the table of shuffles. A block costs the same
//! however many bytes need notation, which pays where most do (binary data, non-Latin text).

use crate::platform::simd::notation::shuffles::NOTATION_SHUFFLES;
use std::arch::x86_64::*;

/// `cat -v` notation of the 16 bytes `x` at `out[at..]` (see `Masks::notation`); returns where it ends. The fields
/// are `M`, `-`, `^` or `$` or nothing, and the character with bit 7 cleared (and bit 6 flipped after `^`). Each
/// four bytes' fields are stored as 16 bytes, the used kept.
///
/// # Safety
/// The CPU has SSSE3 and the caller is compiled for it; `out[at..]` has room for 64 bytes, and 16 more past the last
/// kept.
#[inline(always)]
unsafe fn notation16(x: __m128i, tabs: bool, ends: bool, out: *mut u8, mut at: usize) -> usize {
    // SAFETY: the caller's guarantees; each store is of 16 bytes at most 16 past where the output so far ends, and
    // the output of 16 bytes is at most 64.
    unsafe {
        let byte = |b: u8| _mm_set1_epi8(b as i8);
        let meta = _mm_cmplt_epi8(x, _mm_setzero_si128());
        let low = _mm_and_si128(x, byte(0x7f));
        // Low seven bits below 0x20 or 0x7f: (low + 1) & 0x7f below 0x21.
        let control = _mm_cmplt_epi8(_mm_and_si128(_mm_add_epi8(low, byte(1)), byte(0x7f)), byte(0x21));
        let lf = _mm_cmpeq_epi8(x, byte(b'\n'));
        let mut caret = _mm_andnot_si128(lf, control);
        if !tabs {
            caret = _mm_andnot_si128(_mm_cmpeq_epi8(x, byte(b'\t')), caret);
        }
        let dollar = if ends { lf } else { _mm_setzero_si128() };
        let prefixed = _mm_or_si128(caret, dollar);
        let prefix = _mm_or_si128(_mm_and_si128(caret, byte(b'^')), _mm_and_si128(dollar, byte(b'$')));
        let character = _mm_xor_si128(low, _mm_and_si128(caret, byte(0x40)));
        // Fields of bytes 0-3, 4-7, 8-11 and 12-15.
        let pairs = [_mm_unpacklo_epi8(prefix, character), _mm_unpackhi_epi8(prefix, character)];
        let m_dash = _mm_set1_epi16(i16::from_le_bytes([b'M', b'-']));
        let fields = [
            _mm_unpacklo_epi16(m_dash, pairs[0]),
            _mm_unpackhi_epi16(m_dash, pairs[0]),
            _mm_unpacklo_epi16(m_dash, pairs[1]),
            _mm_unpackhi_epi16(m_dash, pairs[1]),
        ];
        // Two index bits a byte, four bytes to an index in each 32-bit lane's low byte, the lanes' low bytes
        // gathered into one word: four table indexes.
        let used = _mm_or_si128(_mm_and_si128(meta, byte(1)), _mm_and_si128(prefixed, byte(2)));
        let pairs_of_bytes = _mm_maddubs_epi16(used, _mm_set1_epi16(0x0401));
        let fours = _mm_madd_epi16(pairs_of_bytes, _mm_set1_epi32(0x0010_0001));
        let gather = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
        let indexes = _mm_cvtsi128_si32(_mm_shuffle_epi8(fours, gather)) as u32;
        for (g, &group) in fields.iter().enumerate() {
            let index = usize::from((indexes >> (8 * g)) as u8);
            let shuffle = _mm_loadu_si128(NOTATION_SHUFFLES.shuffles[index].as_ptr().cast());
            _mm_storeu_si128(out.add(at).cast(), _mm_shuffle_epi8(group, shuffle));
            at += usize::from(NOTATION_SHUFFLES.lens[index]);
        }
        at
    }
}

/// `Masks::notation` of the whole blocks of `input` that `out` has 256 bytes of room for.
///
/// # Safety
/// The CPU has SSSE3, and the caller is compiled for it (it inlines there).
#[inline(always)]
pub unsafe fn notation_blocks(input: &[u8], tabs: bool, ends: bool, out: &mut [u8]) -> (usize, usize) {
    let blocks = (input.len() / 64).min(out.len() / 256);
    let mut at = 0;
    for (k, block) in input.chunks_exact(64).take(blocks).enumerate() {
        debug_assert!(at <= 256 * k);
        for quarter in block.chunks_exact(16) {
            // SAFETY: the caller's guarantee; `quarter` is 16 readable bytes. Block k's output starts at most 256 * k
            // in, each quarter of it at most 64 bytes after the last, and writes at most 64 bytes and 16 past its
            // last kept (`notation16`): inside `out`.
            unsafe {
                at = notation16(_mm_loadu_si128(quarter.as_ptr().cast()), tabs, ends, out.as_mut_ptr(), at);
            }
        }
    }
    (64 * blocks, at)
}
