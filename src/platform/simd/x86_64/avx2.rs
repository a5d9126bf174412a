//! AVX2: a block is two 32-byte registers; the work runs in a function compiled for AVX2 (with
//! BMI1/2, POPCNT and LZCNT, so that what it inlines uses them too).

use crate::platform::simd::generic::{Block64, Mask, lanewise};
use crate::platform::simd::{Masks, WithMasks, prefetch_ahead};
use std::arch::x86_64::*;

/// Runs `work` with the AVX2 masks, compiled for AVX2.
///
/// # Safety
/// The CPU has AVX2, BMI1, BMI2, POPCNT and LZCNT.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
pub unsafe fn with_avx2<W: WithMasks>(work: W) -> W::Output {
    // SAFETY: the caller's guarantee; `work` is inlined here, compiled for AVX2.
    work.run(unsafe { Masks::<Avx2>::new(false) })
}

/// 64 bytes in two AVX2 registers.
#[derive(Clone, Copy)]
pub struct Avx2([__m256i; 2]);

/// A compare's result: 0xff in each byte where true (from `signs`: bit 7 alone counts).
#[derive(Clone, Copy)]
pub struct Avx2Mask([__m256i; 2]);

/// The 64-entry look-up of `idx` (each byte below 64) in the four 16-byte quarters `q` (each
/// in both halves): four shuffles chosen by the index's bits 4 and 5 moved up to bit 7
/// (blendv's selector; a 16-bit shift spills into the next byte's bit 0, which blendv ignores).
///
/// # Safety
/// The CPU has AVX2 (as for every function here: they inline into `with_avx2`; none is a
/// closure, which would not be compiled for AVX2).
#[inline(always)]
unsafe fn look64(q: &[__m256i; 4], idx: __m256i) -> __m256i {
    // SAFETY: the caller's guarantee.
    unsafe {
        let bit4 = _mm256_slli_epi16(idx, 3);
        let low = _mm256_blendv_epi8(_mm256_shuffle_epi8(q[0], idx), _mm256_shuffle_epi8(q[1], idx), bit4);
        let high = _mm256_blendv_epi8(_mm256_shuffle_epi8(q[2], idx), _mm256_shuffle_epi8(q[3], idx), bit4);
        _mm256_blendv_epi8(low, high, _mm256_slli_epi16(idx, 2))
    }
}

/// The shuffles of `notation_block`: each input byte is four slots, `M`, `-`, the `^` or `$`
/// slot and the character; for four bytes whose slots are used as the index's bits say (for
/// byte i, bit 2i: `M-`, bit 2i + 1: `^` or `$`; the character is always used), the byte
/// shuffle that packs their used slots together, and how many there are.
struct NotationShuffles {
    shuffles: [[u8; 16]; 256],
    lens: [u8; 256],
}

const fn notation_shuffles() -> NotationShuffles {
    let mut t = NotationShuffles { shuffles: [[0x80; 16]; 256], lens: [0; 256] };
    let mut index = 0;
    while index < 256 {
        let mut n = 0;
        let mut i = 0;
        while i < 4 {
            let (meta, prefix) = (index >> (2 * i) & 1 != 0, index >> (2 * i + 1) & 1 != 0);
            let mut slot = 4 * i;
            while slot < 4 * i + 4 {
                let used = match slot % 4 {
                    0 | 1 => meta,
                    2 => prefix,
                    _ => true,
                };
                if used {
                    t.shuffles[index][n] = slot as u8;
                    n += 1;
                }
                slot += 1;
            }
            i += 1;
        }
        t.lens[index] = n as u8;
        index += 1;
    }
    t
}

static NOTATION_SHUFFLES: NotationShuffles = notation_shuffles();

/// `byte` 32 times.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn splat8(byte: u8) -> __m256i {
    // SAFETY: the caller's guarantee.
    unsafe { _mm256_set1_epi8(byte as i8) }
}

/// `cat -v` notation of the 32 bytes `x` at `out[at..]` (see `Masks::notation_block`): each
/// byte's four slots are built in registers (`M`, `-`, `^` or `$` or nothing, the character
/// with bit 7 cleared and, after `^`, bit 6 flipped), and each four bytes' used slots are
/// packed by one shuffle from a table and stored, 16 bytes of which the used ones are kept.
/// Returns where the output ends.
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
        // Slots of bytes 0-3, 4-7, 8-11, 12-15 in the low lanes, of 16-19, ... in the high.
        let pairs = [_mm256_unpacklo_epi8(prefix, character), _mm256_unpackhi_epi8(prefix, character)];
        let m_dash = _mm256_set1_epi16(i16::from_le_bytes([b'M', b'-']));
        let slots = [
            _mm256_unpacklo_epi16(m_dash, pairs[0]),
            _mm256_unpackhi_epi16(m_dash, pairs[0]),
            _mm256_unpacklo_epi16(m_dash, pairs[1]),
            _mm256_unpackhi_epi16(m_dash, pairs[1]),
        ];
        // Each byte's two index bits, then four bytes' in one (bits 2i, 2i + 1 for byte i),
        // packed to a byte per four bytes: the indexes of bytes 0-15 in `low_lane`, 16-31 in
        // `high_lane`.
        let used = _mm256_or_si256(_mm256_and_si256(meta, byte(1)), _mm256_and_si256(prefixed, byte(2)));
        let pairs_of_bytes = _mm256_maddubs_epi16(used, _mm256_set1_epi16(0x0401));
        let fours = _mm256_madd_epi16(pairs_of_bytes, _mm256_set1_epi32(0x0010_0001));
        let packed = _mm256_packus_epi16(_mm256_packus_epi32(fours, fours), _mm256_setzero_si256());
        let low_lane = _mm256_extract_epi32::<0>(packed) as u32;
        let high_lane = _mm256_extract_epi32::<4>(packed) as u32;
        for (half, indexes) in [low_lane, high_lane].into_iter().enumerate() {
            for (g, &group) in slots.iter().enumerate() {
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

/// `Masks::utf8_continuation_three`: the continuation bytes of the whole blocks of `bytes[3..]`
/// where this finds every character of them of one or three bytes and valid, None where it
/// does not. Three-byte forms alone need no table look-ups: 13 instructions a half block where
/// Keiser and Lemire's check of every form takes 18. With a byte's two before it (`p1`, `p2`):
/// - (a) no `p1` is C0..=DF or F0..=FF (every byte from `bytes[2]` to the one before the last
///   block's last, which the next batch checks);
/// - (b) a byte is a continuation byte exactly where `p1` or `p2` is E0 or above;
/// - (c) after E0 comes A0..=BF, after ED 80..=9F;
/// - and `bytes[0]` and `bytes[1]` are below F0 (a four-byte lead there asks for a continuation
///   byte that (b) does not), and a lead at `bytes[1]` has a continuation byte after it (with
///   another lead there, (b) would take the byte after that for its first).
///
/// So each lead of `bytes[2..]` is E0..=EF with two continuation bytes in its range and no more,
/// and every continuation byte is one of those: the batch is valid (Keiser and Lemire's check
/// finds no error: the unit tests hold both to `utf8_tables::error_at`).
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn utf8_continuation_three(bytes: &[u8]) -> Option<u64> {
    let &[first, second, third, ..] = bytes else { return None };
    if first >= 0xf0 || second >= 0xf0 || (second >= 0xe0 && !(0x80..0xc0).contains(&third)) {
        return None;
    }
    // SAFETY: the caller's guarantee; each load reads 32 of a 35-byte window's bytes, from
    // offset 1, 2 or 3.
    unsafe {
        let zero = _mm256_setzero_si256();
        let (mut tally, mut errors, mut high) = (zero, zero, zero);
        // Half a block a turn: the constants stay in registers, where a whole block's turn
        // took them from memory every time, short of registers.
        for (k, half) in bytes[..bytes.len() - (bytes.len() - 3) % 64].windows(35).step_by(32).enumerate() {
            prefetch_ahead(bytes, 32 * k);
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

// SAFETY (every `unsafe` block of both impls): the caller guarantees AVX2 (see `Block64`), and
// these inline into `with_avx2`, which is compiled for it; loads read the 64 bytes of a
// checked slice and need no alignment.
impl Block64 for Avx2 {
    lanewise!(Avx2, Avx2Mask, [0, 1] of 32, tables: true, |a, b| {
        load(p): _mm256_loadu_si256(p.cast()), splat(x): _mm256_set1_epi8(x as i8),
        and: _mm256_and_si256(a, b), or: _mm256_or_si256(a, b), xor: _mm256_xor_si256(a, b),
        wrapping_sub: _mm256_sub_epi8(a, b), saturating_sub: _mm256_subs_epu8(a, b),
        saturating_add: _mm256_adds_epu8(a, b), max: _mm256_max_epu8(a, b),
        eq: _mm256_cmpeq_epi8(a, b), lt_signed: _mm256_cmpgt_epi8(b, a),
        // Unsigned `a >= b` exactly where `max(a, b) == a`; `a <= b` where `min(a, b) == a`.
        ge: _mm256_cmpeq_epi8(_mm256_max_epu8(a, b), a), le: _mm256_cmpeq_epi8(_mm256_min_epu8(a, b), a),
        // True bytes are -1: subtracting counts them.
        count: _mm256_sub_epi8(a, b),
    });

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Avx2 {
        // SAFETY: see the impl.
        unsafe { Avx2([_mm256_srli_epi16(self.0[0], 4), _mm256_srli_epi16(self.0[1], 4)]).and(Avx2::splat(0x0f)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Avx2 {
        // SAFETY: see the impl; the table is 16 readable bytes.
        unsafe {
            let t = _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr().cast()));
            Avx2([_mm256_shuffle_epi8(t, self.0[0]), _mm256_shuffle_epi8(t, self.0[1])])
        }
    }
    /// One shuffle of the bytes as they are (it gives 0 where bit 7 is set), without the low
    /// nibbles' mask: two instructions fewer a window (`wc -w` of 4 MB in the C locale: 2.74
    /// million instructions, 2.87 with the mask).
    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: &[u8; 16]) -> Avx2 {
        // SAFETY: see the impl.
        unsafe { self.lookup16(table) }
    }
    #[inline(always)]
    unsafe fn lookup64(self, table: &[u8; 64]) -> Avx2 {
        // SAFETY: see the impl; the table loads read 16 of its 64 bytes each.
        unsafe {
            let t = table.as_ptr().cast::<__m128i>();
            let q = [
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t)),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(1))),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(2))),
                _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(3))),
            ];
            let six = _mm256_set1_epi8(0x3f);
            Avx2([look64(&q, _mm256_and_si256(self.0[0], six)), look64(&q, _mm256_and_si256(self.0[1], six))])
        }
    }
    #[inline(always)]
    unsafe fn notation_block(block: &[u8; 64], tabs: bool, ends: bool, out: &mut [u8; 256]) -> Option<usize> {
        // SAFETY: see the impl; each half's output starts at most 128 bytes in, and a half
        // writes at most 128 bytes and 16 past its last kept (`notation32`): inside `out`.
        unsafe {
            let [a, b] = Avx2::load(block, 0).0;
            let at = notation32(a, tabs, ends, out.as_mut_ptr(), 0);
            Some(notation32(b, tabs, ends, out.as_mut_ptr(), at))
        }
    }
    #[inline(always)]
    unsafe fn utf8_continuation_three(bytes: &[u8]) -> Option<u64> {
        // SAFETY: see the impl.
        unsafe { utf8_continuation_three(bytes) }
    }
    #[inline(always)]
    unsafe fn signs(self) -> Avx2Mask {
        // `movemask` takes bit 7: the bytes themselves.
        Avx2Mask(self.0)
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        // SAFETY: see the impl.
        unsafe {
            let v = _mm256_or_si256(self.0[0], self.0[1]);
            _mm256_testz_si256(v, v) == 0
        }
    }
    #[inline(always)]
    unsafe fn or_into_first(self, other: Avx2) -> Avx2 {
        // SAFETY: see the impl.
        unsafe {
            let both = _mm256_or_si256(_mm256_or_si256(self.0[0], other.0[0]), other.0[1]);
            Avx2([both, _mm256_setzero_si256()])
        }
    }
    #[inline(always)]
    unsafe fn count_into_first(self, mask: Avx2Mask) -> Avx2 {
        // SAFETY: see the impl.
        unsafe {
            let first = _mm256_sub_epi8(_mm256_sub_epi8(self.0[0], mask.0[0]), mask.0[1]);
            Avx2([first, _mm256_setzero_si256()])
        }
    }
    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // SAFETY: see the impl.
        unsafe {
            let zero = _mm256_setzero_si256();
            let sums = _mm256_add_epi64(_mm256_sad_epu8(self.0[0], zero), _mm256_sad_epu8(self.0[1], zero));
            let pair = _mm_add_epi64(_mm256_extracti128_si256::<0>(sums), _mm256_extracti128_si256::<1>(sums));
            (_mm_cvtsi128_si64(pair) + _mm_cvtsi128_si64(_mm_srli_si128::<8>(pair))) as u64
        }
    }
}

impl Mask for Avx2Mask {
    lanewise!(mask Avx2Mask, [0, 1], |a, b| or: _mm256_or_si256(a, b));

    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        // SAFETY: see the impl of `Block64`.
        unsafe { _mm256_movemask_epi8(self.0[0]) as u32 as u64 | (_mm256_movemask_epi8(self.0[1]) as u32 as u64) << 32 }
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        // SAFETY: see the impl of `Block64`.
        unsafe { _mm256_movemask_epi8(_mm256_or_si256(self.0[0], self.0[1])) != 0 }
    }
}
