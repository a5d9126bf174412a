//! `cat -v`'s notation of whole blocks with NEON ([`super::super::Notation::Shuffles`]), as AVX2's: each byte's four
//! fields (`M`, `-`, `^` or `$`, the character) built by two levels of `zip`, and each four bytes' used fields packed
//! by one `tbl` from the table of shuffles. A block costs the same however many bytes need notation, which pays where
//! most do (binary data, non-Latin text) and `cat`'s per-byte steps are costly.

use crate::platform::simd::notation::shuffles::NOTATION_SHUFFLES;
use core::arch::aarch64::*;

/// `cat -v` notation of the 16 bytes `x` at `out[at..]` (see `Masks::notation`); returns where it ends. The fields
/// are `M`, `-`, `^` or `$` or nothing, and the character with bit 7 cleared (and bit 6 flipped after `^`). Each
/// four bytes' fields are stored as 16 bytes, the used kept.
///
/// # Safety
/// `out[at..]` has room for 64 bytes, and 16 more past the last kept.
#[inline(always)]
unsafe fn notation16(x: uint8x16_t, tabs: bool, ends: bool, out: *mut u8, mut at: usize) -> usize {
    // SAFETY: NEON is the target's baseline; each store is of 16 bytes at most 16 past where the
    // output so far ends, and the output of 16 bytes is at most 64 (the caller's guarantee).
    unsafe {
        let byte = |b: u8| vdupq_n_u8(b);
        let meta = vcltzq_s8(vreinterpretq_s8_u8(x));
        let low = vandq_u8(x, byte(0x7f));
        // Low seven bits below 0x20 or 0x7f: (low + 1) & 0x7f below 0x21.
        let control = vcltq_u8(vandq_u8(vaddq_u8(low, byte(1)), byte(0x7f)), byte(0x21));
        let lf = vceqq_u8(x, byte(b'\n'));
        let mut caret = vbicq_u8(control, lf);
        if !tabs {
            caret = vbicq_u8(caret, vceqq_u8(x, byte(b'\t')));
        }
        let dollar = if ends { lf } else { byte(0) };
        let prefixed = vorrq_u8(caret, dollar);
        let prefix = vorrq_u8(vandq_u8(caret, byte(b'^')), vandq_u8(dollar, byte(b'$')));
        let character = veorq_u8(low, vandq_u8(caret, byte(0x40)));
        // Fields of bytes 0-3, 4-7, 8-11 and 12-15.
        let pairs =
            [vreinterpretq_u16_u8(vzip1q_u8(prefix, character)), vreinterpretq_u16_u8(vzip2q_u8(prefix, character))];
        let m_dash = vdupq_n_u16(u16::from_le_bytes([b'M', b'-']));
        let fields = [
            vzip1q_u16(m_dash, pairs[0]),
            vzip2q_u16(m_dash, pairs[0]),
            vzip1q_u16(m_dash, pairs[1]),
            vzip2q_u16(m_dash, pairs[1]),
        ];
        // Two index bits a byte; in each 32-bit lane, bytes 1 to 3's moved down next to byte 0's by two shifts that
        // add, then the lanes' low bytes narrowed into one word: four table indexes.
        let used = vreinterpretq_u32_u8(vorrq_u8(vandq_u8(meta, byte(1)), vandq_u8(prefixed, byte(2))));
        let used = vsraq_n_u32::<6>(used, used);
        let used = vsraq_n_u32::<12>(used, used);
        let indexes = vget_lane_u32::<0>(vreinterpret_u32_u8(vmovn_u16(vcombine_u16(vmovn_u32(used), vdup_n_u16(0)))));
        for (g, &group) in fields.iter().enumerate() {
            let index = usize::from((indexes >> (8 * g)) as u8);
            let shuffle = vld1q_u8(NOTATION_SHUFFLES.shuffles[index].as_ptr());
            vst1q_u8(out.add(at), vqtbl1q_u8(vreinterpretq_u8_u16(group), shuffle));
            at += usize::from(NOTATION_SHUFFLES.lens[index]);
        }
        at
    }
}

/// `Masks::notation` of the whole blocks of `input` that `out` has 256 bytes of room for.
#[inline(always)]
pub fn notation_blocks(input: &[u8], tabs: bool, ends: bool, out: &mut [u8]) -> (usize, usize) {
    let blocks = (input.len() / 64).min(out.len() / 256);
    let mut at = 0;
    for (k, block) in input.chunks_exact(64).take(blocks).enumerate() {
        debug_assert!(at <= 256 * k);
        for quarter in block.chunks_exact(16) {
            // SAFETY: NEON is the target's baseline; `quarter` is 16 readable bytes. Block k's output starts at most
            // 256 * k in, each quarter of it at most 64 bytes after the last, and writes at most 64 bytes and 16 past
            // its last kept (`notation16`): inside `out`.
            unsafe {
                at = notation16(vld1q_u8(quarter.as_ptr()), tabs, ends, out.as_mut_ptr(), at);
            }
        }
    }
    (64 * blocks, at)
}
