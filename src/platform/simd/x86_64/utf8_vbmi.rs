//! The UTF-8 batch check (`Masks::utf8_continuation`) with AVX-512 VBMI's byte permute: the same Keiser-Lemire check
//! and tally in fewer instructions. `vpermb` looks up 64 entries by an index byte's low six bits, so a 16-entry table
//! repeated four times ignores the two bits above a nibble: no nibble needs its mask (the high ones are shifted down
//! in 16-bit lanes). A fourth look-up, by the high nibbles, gives each byte's count (1 for a continuation byte): one
//! instruction where a compare, its mask spread to bytes and a subtraction took three. The masks left out are what
//! pays: the same loop with `vpshufb` gained nothing (benches/RESULTS.md, "Figures behind code comments").

use super::load512;
use crate::platform::simd::prefetch;
use crate::platform::simd::utf8::utf8_tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH};
use std::arch::x86_64::*;

/// A 16-entry table repeated over 64 entries (a look-up by a nibble, for `vpermb`).
const fn repeated(table: &[u8; 16]) -> [u8; 64] {
    let mut wide = [0; 64];
    let mut i = 0;
    while i < 64 {
        wide[i] = table[i % 16];
        i += 1;
    }
    wide
}

static TABLES: [[u8; 64]; 4] =
    [repeated(&BYTE_1_HIGH), repeated(&BYTE_1_LOW), repeated(&BYTE_2_HIGH), repeated(&CONTINUATION)];

/// 1 for the high nibbles of continuation bytes (0x80..=0xBF).
const CONTINUATION: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0];

/// `Masks::utf8_continuation` (the continuation bytes of the whole blocks of `bytes[3..]`, each checked with the
/// three bytes before it, or None at an error); at most `UTF8_BLOCKS_MAX` blocks, a counter taking one a block.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub fn utf8_continuation(bytes: &[u8]) -> Option<u64> {
    debug_assert!(bytes.len() <= 64 * crate::platform::simd::utf8::UTF8_BLOCKS_MAX + 3);
    let [byte_1_high, byte_1_low, byte_2_high, continuation] = TABLES.each_ref().map(|t| load512(t));
    let third = _mm512_set1_epi8(0x1f);
    let fourth = _mm512_set1_epi8(0x0f);
    let below = _mm512_set1_epi8(0xfeu8 as i8);
    let mut errors = _mm512_setzero_si512();
    let mut tally = _mm512_setzero_si512();
    // Windows, not an index: no bound and no null pointer checked in the loop.
    for (block, window) in bytes.windows(67).step_by(64).enumerate() {
        prefetch(bytes, 64 * block);
        let window: &[u8; 67] = window.try_into().unwrap();
        let [prev3, prev2, prev1, input] = [0, 1, 2, 3].map(|k| load512(window[k..k + 64].try_into().unwrap()));
        let input_high = _mm512_srli_epi16::<4>(input);
        let special = _mm512_and_si512(
            _mm512_and_si512(
                _mm512_permutexvar_epi8(_mm512_srli_epi16::<4>(prev1), byte_1_high),
                _mm512_permutexvar_epi8(prev1, byte_1_low),
            ),
            _mm512_permutexvar_epi8(input_high, byte_2_high),
        );
        // A continuation byte is a must two places after a three- or four-byte lead and three
        // after a four-byte one: 1 or 0, as in `utf8_error_bytes` (utf8.rs).
        let must =
            _mm512_subs_epu8(_mm512_max_epu8(_mm512_adds_epu8(prev2, third), _mm512_adds_epu8(prev3, fourth)), below);
        errors = _mm512_or_si512(errors, _mm512_xor_si512(special, must));
        tally = _mm512_add_epi8(tally, _mm512_permutexvar_epi8(input_high, continuation));
    }
    let valid = _mm512_test_epi8_mask(errors, errors) == 0;
    valid.then(|| _mm512_reduce_add_epi64(_mm512_sad_epu8(tally, _mm512_setzero_si512())) as u64)
}
