//! `cat -v`'s notation of whole blocks with AVX-512 VBMI2's byte permutes and compresses
//! ([`super::super::Notation::Permutes`]). Compiled for VBMI2 and called a chunk at a time, so
//! that the AVX-512 loops around it need only AVX-512BW (Skylake-X and Cascade Lake lack VBMI2).

use super::load512;
use std::arch::x86_64::*;

/// `Masks::notation` of the whole blocks of `input`. Each byte becomes four fields (`M`, `-`, `^` or `$`, the
/// character), from two planes a block: the character (bit 7 kept: set where `M-` is needed) and the `^`/`$` field (0
/// when unused). A two-source permute spreads each 16 bytes to their fields, fields 0 and 1 from the character too,
/// for its bit 7. One test finds the used fields (bit 7 in fields 0 and 1, non-zero in field 2, field 3 always). One
/// ternary-logic op writes `M-` into fields 0 and 1 and clears bit 7 elsewhere. The used fields are compressed and
/// stored, 64 bytes of which the used are kept. A block that needs no notation is copied.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
pub fn notation_blocks(input: &[u8], show_tabs: bool, show_ends: bool, out: &mut [u8]) -> (usize, usize) {
    let byte = |b: u8| _mm512_set1_epi8(b as i8);
    // Field p of input byte 16g + j is byte 4j + p of group g's vector: the character plane
    // (second source, indexes 64 and up) for fields 0, 1 and 3, the `^`/`$` plane for field 2.
    let spread: [[u8; 64]; 4] =
        std::array::from_fn(|g| std::array::from_fn(|i| (16 * g + i / 4 + if i % 4 == 2 { 0 } else { 64 }) as u8));
    let spread = spread.map(|s| load512(&s));
    let field = |values: [u8; 4]| load512(&std::array::from_fn(|i| values[i % 4]));
    // What makes a field used; final fields from spread ones (`M`, `-`, low seven bits): out = m_dash | (v & low7).
    let used_bits = field([0x80, 0x80, 0x7f, 0xff]);
    let m_dash = field([b'M', b'-', 0, 0]);
    let low7 = field([0, 0, 0x7f, 0x7f]);
    // A block writes below at + 4 * 64, `at` its first output byte (each store of its at most
    // 4 * 64 bytes starts at most 3 * 64 past at): so many blocks fit in `out`.
    let mut at = 0;
    let blocks = (input.len() / 64).min(out.len() / 256);
    let to = out.as_mut_ptr();
    let store = |at: usize, v: __m512i| {
        // SAFETY: every store is at most 256 - 64 bytes past its block's first output byte,
        // and that is at most 256 * b past the start of `out` for block b < `blocks`: the 64
        // bytes are inside `out` (see `blocks`). No alignment is needed.
        unsafe { _mm512_storeu_si512(to.add(at).cast(), v) }
    };
    for (i, block) in input.chunks_exact(64).take(blocks).enumerate() {
        crate::platform::simd::prefetch(input, i * 64);
        let x = load512(block.try_into().unwrap());
        let x1 = _mm512_add_epi8(x, byte(1));
        // Below 0x20 or 0x7f, as signed bytes also 0x80 and above: x + 1 below 0x21 signed.
        let special = _mm512_cmplt_epi8_mask(x1, byte(0x21));
        if special == 0 {
            store(at, x);
            at += 64;
            continue;
        }
        // Low seven bits below 0x20 or 0x7f: (x + 1) & 0x7f below 0x21.
        let control = _mm512_cmplt_epu8_mask(_mm512_and_si512(x1, byte(0x7f)), byte(0x21));
        let lf = _mm512_cmpeq_epi8_mask(x, byte(b'\n'));
        let tab = if show_tabs { 0 } else { _mm512_cmpeq_epi8_mask(x, byte(b'\t')) };
        let caret = control & !lf & !tab;
        // `^X` shows X ^ 0x40 (DEL: `?`); bit 7 stays.
        let ch = _mm512_xor_si512(x, _mm512_maskz_mov_epi8(caret, byte(0x40)));
        let s2 = _mm512_maskz_mov_epi8(caret, byte(b'^'));
        let s2 = if show_ends { _mm512_mask_mov_epi8(s2, lf, byte(b'$')) } else { s2 };
        for index in spread {
            let v = _mm512_permutex2var_epi8(s2, index, ch);
            let used = _mm512_test_epi8_mask(v, used_bits);
            let v = _mm512_ternarylogic_epi32::<0xf8>(m_dash, v, low7);
            store(at, _mm512_maskz_compress_epi8(used, v));
            at += used.count_ones() as usize;
        }
    }
    (blocks * 64, at)
}
