//! The check of one- and three-byte characters (`Utf8Check::has_three`) on AVX2's 32-byte registers and SSE2's
//! 16-byte ones, one algorithm over [`Lane`]: compares, no look-ups.

use super::super::prefetch;
use std::arch::x86_64::*;

/// One register of bytes and the operations the check uses.
///
/// # Safety
/// Every method runs the register's instructions (AVX2's or SSE2's): call it only on a CPU that has them, from code
/// compiled for them, so that it inlines there.
pub trait Lane: Copy {
    /// Bytes in a register.
    const BYTES: usize;
    /// The register at `bytes[at..]` (panics when it is not all there).
    unsafe fn load(bytes: &[u8], at: usize) -> Self;
    unsafe fn splat(byte: u8) -> Self;
    /// Whether bit 7 of some byte is set.
    unsafe fn any_sign(self) -> bool;
    /// The sum of the bytes, unsigned.
    unsafe fn sum(self) -> u64;
    /// 0xff where `self > other`, both signed, else 0.
    unsafe fn gt_signed(self, other: Self) -> Self;
    /// 0xff where equal, else 0.
    unsafe fn eq(self, other: Self) -> Self;
    unsafe fn wrapping_sub(self, other: Self) -> Self;
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// The larger, unsigned.
    unsafe fn max(self, other: Self) -> Self;
    unsafe fn and(self, other: Self) -> Self;
    unsafe fn or(self, other: Self) -> Self;
    unsafe fn xor(self, other: Self) -> Self;
}

/// Implements [`Lane`] for a register type: its load, splat, sign test and sum, then each operation on two registers
/// by its intrinsic.
macro_rules! lane {
    ($t:ty, $bytes:literal, $load:ident, $set1:ident, $movemask:ident, |$s:ident| $sum:expr,
     $($op:ident: $intrinsic:ident),* $(,)?) => {
        impl Lane for $t {
            const BYTES: usize = $bytes;
            #[inline(always)]
            unsafe fn load(bytes: &[u8], at: usize) -> Self {
                let register: &[u8; $bytes] = bytes[at..at + $bytes].try_into().unwrap();
                // SAFETY: the trait's contract; `register` is that many readable bytes, loaded unaligned.
                unsafe { $load(register.as_ptr().cast()) }
            }
            #[inline(always)]
            unsafe fn splat(byte: u8) -> Self {
                // SAFETY: the trait's contract.
                unsafe { $set1(byte as i8) }
            }
            #[inline(always)]
            unsafe fn any_sign(self) -> bool {
                // SAFETY: the trait's contract.
                unsafe { $movemask(self) != 0 }
            }
            #[inline(always)]
            unsafe fn sum(self) -> u64 {
                let $s = self;
                // SAFETY: the trait's contract.
                unsafe { $sum }
            }
            $(
                #[inline(always)]
                unsafe fn $op(self, other: Self) -> Self {
                    // SAFETY: the trait's contract.
                    unsafe { $intrinsic(self, other) }
                }
            )*
        }
    };
}

lane!(__m256i, 32, _mm256_loadu_si256, _mm256_set1_epi8, _mm256_movemask_epi8, |v| {
        let s = _mm256_sad_epu8(v, _mm256_setzero_si256());
        let s = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256::<1>(s));
        (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_srli_si128::<8>(s))) as u64
    },
    gt_signed: _mm256_cmpgt_epi8, eq: _mm256_cmpeq_epi8, wrapping_sub: _mm256_sub_epi8,
    saturating_sub: _mm256_subs_epu8, max: _mm256_max_epu8, and: _mm256_and_si256, or: _mm256_or_si256,
    xor: _mm256_xor_si256);

lane!(__m128i, 16, _mm_loadu_si128, _mm_set1_epi8, _mm_movemask_epi8, |v| {
        let s = _mm_sad_epu8(v, _mm_setzero_si128());
        (_mm_cvtsi128_si64(s) + _mm_cvtsi128_si64(_mm_srli_si128::<8>(s))) as u64
    },
    gt_signed: _mm_cmpgt_epi8, eq: _mm_cmpeq_epi8, wrapping_sub: _mm_sub_epi8, saturating_sub: _mm_subs_epu8,
    max: _mm_max_epu8, and: _mm_and_si128, or: _mm_or_si128, xor: _mm_xor_si128);

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
/// As [`Lane`]'s: the CPU has `L`'s instructions, and the caller is compiled for them (it inlines there).
#[inline(always)]
pub unsafe fn utf8_continuation_three<L: Lane>(bytes: &[u8]) -> Option<u64> {
    let &[first, second, third, ..] = bytes else { return None };
    if first >= 0xf0 || second >= 0xf0 || (second >= 0xe0 && !(0x80..0xc0).contains(&third)) {
        return None;
    }
    // SAFETY: the caller's guarantee (each load is of the turn's 35-byte window).
    unsafe {
        let (mut errors, mut high) = (L::splat(0), L::splat(0));
        // A tally a register of the turn (AVX2's one, SSE2's two): each byte counts up to 254 turns, a batch's most.
        let mut tallies = [L::splat(0); 2];
        // Half a block a turn, so the constants stay in registers (a whole block ran short with AVX2).
        for (k, turn) in bytes[..bytes.len() - (bytes.len() - 3) % 64].windows(35).step_by(32).enumerate() {
            prefetch(bytes, 32 * k);
            let turn: &[u8; 35] = turn.try_into().unwrap();
            check_register(turn, 0, &mut tallies[0], &mut errors, &mut high);
            if L::BYTES == 16 {
                check_register(turn, 16, &mut tallies[1], &mut errors, &mut high);
            }
        }
        let continuation = tallies[0].sum() + if L::BYTES == 16 { tallies[1].sum() } else { 0 };
        errors = errors.or(high.saturating_sub(L::splat(0x50)));
        (!errors.any_sign()).then_some(continuation)
    }
}

/// The check of the register at `turn[at + 3..]`, after the two bytes before each byte: its continuation bytes
/// counted in `tally`, its errors or-ed into `errors`, the bytes (a) looks at into `high`.
///
/// # Safety
/// As [`Lane`]'s.
#[inline(always)]
unsafe fn check_register<L: Lane>(turn: &[u8; 35], at: usize, tally: &mut L, errors: &mut L, high: &mut L) {
    // SAFETY: the caller's guarantee; each load reads `L::BYTES` of the turn's bytes, from `at` + 1, 2 or 3.
    unsafe {
        let (p2, p1, x) = (L::load(turn, at + 1), L::load(turn, at + 2), L::load(turn, at + 3));
        // 0x80..=0xbf: the signed bytes below 0xc0.
        let is_continuation = L::splat(0xc0).gt_signed(x);
        *tally = tally.wrapping_sub(is_continuation);
        // (b): bit 7 of the larger of `p1` and `p2` less 0x60 is set from E0 up.
        let after_lead = p1.max(p2).saturating_sub(L::splat(0x60));
        *errors = errors.or(after_lead.xor(is_continuation));
        // (a): with bit 5 flipped, C0..=DF and F0..=FF are D0 and above, the rest below.
        *high = high.max(p1.xor(L::splat(0x20)));
        // (c): E0 before 0x80..=0x9f, and ED before anything else, become ED.
        let below_a0 = L::splat(0xa0).gt_signed(x);
        let limited = p1.xor(below_a0.and(L::splat(0x0d)));
        *errors = errors.or(limited.eq(L::splat(0xed)));
    }
}
