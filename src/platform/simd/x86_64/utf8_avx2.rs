//! AVX2's check of one- and three-byte characters ([`super::super::Utf8Check::LookupsAndThree`]): no look-ups.

use super::avx2::Avx2;
use super::splat8;
use crate::platform::simd::{Block64, prefetch};
use std::arch::x86_64::*;

/// `Masks::utf8_continuation_three`: the continuation bytes of whole blocks of `bytes[3..]` where all characters are
/// valid, of one or three bytes, else None. Three-byte forms alone need no look-ups: cheaper than Keiser and Lemire's
/// check of all forms (benches/RESULTS.md, "Figures behind code comments"). With a byte's two before (`p1`, `p2`):
/// - (a) no `p1` is C0..=DF or F0..=FF (every byte from `bytes[2]` to the one before the last
///   block's last, which the next batch checks);
/// - (b) a byte is a continuation byte exactly where `p1` or `p2` is E0 or above;
/// - (c) after E0 comes A0..=BF, after ED 80..=9F;
/// - and `bytes[0]` and `bytes[1]` are below F0 (a four-byte lead there asks for a continuation
///   byte that (b) does not), and a lead at `bytes[1]` has a continuation byte after it (with
///   another lead there, (b) would take the byte after that for its first).
///
/// So each lead of `bytes[2..]` is E0..=EF with two continuation bytes in its range and no more, and every
/// continuation byte is one of those: the batch is valid (the unit tests check this against `utf8_tables::error_at`).
///
/// # Safety
/// The CPU has AVX2, and the caller is compiled for it (it inlines there).
#[inline(always)]
pub unsafe fn utf8_continuation_three(bytes: &[u8]) -> Option<u64> {
    let &[first, second, third, ..] = bytes else { return None };
    if first >= 0xf0 || second >= 0xf0 || (second >= 0xe0 && !(0x80..0xc0).contains(&third)) {
        return None;
    }
    // SAFETY: the caller's guarantee; each load reads 32 of a 35-byte window's bytes, from offset 1, 2 or 3.
    unsafe {
        let zero = _mm256_setzero_si256();
        let (mut tally, mut errors, mut high) = (zero, zero, zero);
        // Half a block a turn, so the constants stay in registers (a whole block ran short).
        for (k, half) in bytes[..bytes.len() - (bytes.len() - 3) % 64].windows(35).step_by(32).enumerate() {
            prefetch(bytes, 32 * k);
            let at = half.as_ptr();
            let p2 = _mm256_loadu_si256(at.add(1).cast());
            let p1 = _mm256_loadu_si256(at.add(2).cast());
            let x = _mm256_loadu_si256(at.add(3).cast());
            // 0x80..=0xbf: the signed bytes below 0xc0.
            let continuation = _mm256_cmpgt_epi8(splat8(0xc0), x);
            tally = _mm256_sub_epi8(tally, continuation);
            // (b): bit 7 of the larger of `p1` and `p2` less 0x60 is set from E0 up.
            let after_lead = _mm256_subs_epu8(_mm256_max_epu8(p1, p2), splat8(0x60));
            errors = _mm256_or_si256(errors, _mm256_xor_si256(after_lead, continuation));
            // (a): with bit 5 flipped, C0..=DF and F0..=FF are D0 and above, the rest below.
            high = _mm256_max_epu8(high, _mm256_xor_si256(p1, splat8(0x20)));
            // (c): E0 before 0x80..=0x9f, and ED before anything else, become ED.
            let below_a0 = _mm256_cmpgt_epi8(splat8(0xa0), x);
            let limited = _mm256_xor_si256(p1, _mm256_and_si256(below_a0, splat8(0x0d)));
            errors = _mm256_or_si256(errors, _mm256_cmpeq_epi8(limited, splat8(0xed)));
        }
        errors = _mm256_or_si256(errors, _mm256_subs_epu8(high, splat8(0x50)));
        let continuation = Avx2([tally, zero]).sum();
        (_mm256_movemask_epi8(errors) == 0).then_some(continuation)
    }
}
