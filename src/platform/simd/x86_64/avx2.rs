//! AVX2: block masks on two 32-byte halves, and a byte counter.

use crate::platform::simd::generic::{self, Block64};
use crate::platform::simd::{BlockMasks, NibblePatterns, Utf8Ranges, WithMasks};
use std::arch::x86_64::*;

use super::{prefetch, sse2::count_byte_sse2_inner};

#[inline(always)]
pub fn with_avx2<W: WithMasks>(work: W) -> W::Output {
    let features = crate::platform::cpu::features();
    assert!(features.avx2 && features.bmi2 && features.popcnt);
    // SAFETY: the CPU has every feature `avx2_context` is compiled for (checked just above;
    // LZCNT and BMI1 come with BMI2 on every CPU that has AVX2).
    unsafe { avx2_context(work) }
}

#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[inline(never)]
fn avx2_context<W: WithMasks>(work: W) -> W::Output {
    work.run(Avx2Masks(()))
}
/// The 64-entry look-up of `idx` (each byte below 64) in the four 16-byte quarters `q` (each
/// in both lanes). Only from Avx2Masks methods (no closure there: a closure would not
/// inherit the caller's target features).
#[inline(always)]
fn look64(q: &[__m256i; 4], idx: __m256i) -> __m256i {
    // SAFETY: called only from Avx2Masks methods: the CPU has AVX2.
    unsafe {
        let bit4 = _mm256_slli_epi16(idx, 3);
        let low = _mm256_blendv_epi8(_mm256_shuffle_epi8(q[0], idx), _mm256_shuffle_epi8(q[1], idx), bit4);
        let high = _mm256_blendv_epi8(_mm256_shuffle_epi8(q[2], idx), _mm256_shuffle_epi8(q[3], idx), bit4);
        _mm256_blendv_epi8(low, high, _mm256_slli_epi16(idx, 2))
    }
}

/// For each low nibble, the ASCII white-space byte that has it (SPACE, TAB, LF, VT, FF, CR),
/// or 0xff where none has.
const ASCII_SPACE_BY_LOW_NIBBLE: [u8; 16] =
    [b' ', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, b'\t', b'\n', 0x0b, 0x0c, b'\r', 0xff, 0xff];

/// AVX2 block masks. Only `avx2_context` makes one, after its caller checked that the CPU
/// has AVX2: holding one proves the AVX2 instructions below can run.
#[derive(Clone, Copy, Debug)]
pub struct Avx2Masks(());

/// The two 32-byte halves of a block.
#[inline(always)]
fn halves(block: &[u8; 64]) -> (__m256i, __m256i) {
    let p = block.as_ptr().cast::<__m256i>();
    // SAFETY: `block` is 64 readable bytes; _mm256_loadu_si256 needs no alignment. Called only
    // from Avx2Masks methods: the CPU has AVX2.
    unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) }
}

/// `mask`, as a value the compiler cannot see into. Masks of one vector's sign bits and of its
/// zero bytes, combined, lead LLVM to redo the work as byte vectors it then takes apart one
/// byte at a time (hundreds of instructions for a few); an empty `asm` keeps it from that.
#[inline(always)]
fn opaque(mut mask: u64) -> u64 {
    // SAFETY: the assembly is empty: it reads and writes nothing, the register keeps its value.
    unsafe { std::arch::asm!("/* {0} */", inout(reg) mask, options(pure, nomem, nostack, preserves_flags)) };
    mask
}

/// One 64-bit mask from the byte masks of the two halves.
#[inline(always)]
fn join(lo: __m256i, hi: __m256i) -> u64 {
    // SAFETY: called only from Avx2Masks methods: the CPU has AVX2.
    unsafe { _mm256_movemask_epi8(lo) as u32 as u64 | (_mm256_movemask_epi8(hi) as u32 as u64) << 32 }
}

/// Per-lane counts of the two halves (see [`BlockMasks::tally`]).
#[derive(Clone, Copy)]
pub struct Tally2(__m256i, __m256i);

impl BlockMasks for Avx2Masks {
    const TABLE_LOOKUPS: bool = true;
    type Tally = Tally2;

    #[inline(always)]
    fn utf8_errors(self, window: &[u8; 67]) -> bool {
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe { generic::utf8_errors::<Block>(window) }
    }

    #[inline(always)]
    fn lookup64(self, block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2; the table loads read 16 of
        // its 64 bytes each. Four 16-entry shuffles, chosen by the index's bits 4 and 5 moved
        // up to bit 7 (blendv's selector; a 16-bit shift spills into the next byte's bit 0,
        // which blendv ignores).
        unsafe {
            let t = table.as_ptr().cast::<__m128i>();
            let q0 = _mm256_broadcastsi128_si256(_mm_loadu_si128(t));
            let q1 = _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(1)));
            let q2 = _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(2)));
            let q3 = _mm256_broadcastsi128_si256(_mm_loadu_si128(t.add(3)));
            let six = _mm256_set1_epi8(0x3f);
            let (ia, ib) = (_mm256_and_si256(a, six), _mm256_and_si256(b, six));
            let (ra, rb) = (look64(&[q0, q1, q2, q3], ia), look64(&[q0, q1, q2, q3], ib));
            let zero = _mm256_setzero_si256();
            let (s0, s1, s2) = (
                _mm256_set1_epi8(select[0] as i8),
                _mm256_set1_epi8(select[1] as i8),
                _mm256_set1_epi8(select[2] as i8),
            );
            [
                !join(
                    _mm256_cmpeq_epi8(_mm256_and_si256(ra, s0), zero),
                    _mm256_cmpeq_epi8(_mm256_and_si256(rb, s0), zero),
                ),
                !join(
                    _mm256_cmpeq_epi8(_mm256_and_si256(ra, s1), zero),
                    _mm256_cmpeq_epi8(_mm256_and_si256(rb, s1), zero),
                ),
                !join(
                    _mm256_cmpeq_epi8(_mm256_and_si256(ra, s2), zero),
                    _mm256_cmpeq_epi8(_mm256_and_si256(rb, s2), zero),
                ),
            ]
        }
    }

    #[inline(always)]
    fn tally_new(self) -> Tally2 {
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe { Tally2(_mm256_setzero_si256(), _mm256_setzero_si256()) }
    }

    #[inline(always)]
    fn tally(self, tally: Tally2, block: &[u8; 64], byte: u8) -> Tally2 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            // Equal bytes are -1: subtracting counts them, per lane.
            let n = _mm256_set1_epi8(byte as i8);
            Tally2(_mm256_sub_epi8(tally.0, _mm256_cmpeq_epi8(a, n)), _mm256_sub_epi8(tally.1, _mm256_cmpeq_epi8(b, n)))
        }
    }

    #[inline(always)]
    fn tally_continuation(self, tally: Tally2, block: &[u8; 64]) -> Tally2 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            // Signed, 0x80..=0xbf are -128..=-65: the bytes below -64 (-1 where true).
            let limit = _mm256_set1_epi8(-64);
            Tally2(
                _mm256_sub_epi8(tally.0, _mm256_cmpgt_epi8(limit, a)),
                _mm256_sub_epi8(tally.1, _mm256_cmpgt_epi8(limit, b)),
            )
        }
    }

    #[inline(always)]
    fn tally_total(self, tally: Tally2) -> u64 {
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            let zero = _mm256_setzero_si256();
            let sums = _mm256_add_epi64(_mm256_sad_epu8(tally.0, zero), _mm256_sad_epu8(tally.1, zero));
            let pair = _mm_add_epi64(_mm256_extracti128_si256::<0>(sums), _mm256_extracti128_si256::<1>(sums));
            (_mm_cvtsi128_si64(pair) + _mm_cvtsi128_si64(_mm_srli_si128::<8>(pair))) as u64
        }
    }

    #[inline(always)]
    fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe { generic::pattern_starts::<Block>(window, patterns, select) }
    }

    #[inline(always)]
    fn may_start(self, block: &[u8; 64], patterns: &NibblePatterns) -> bool {
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe { generic::may_start::<Block>(block, patterns) }
    }

    #[inline(always)]
    fn pattern_starts_top(self, window: &[u8; 66], patterns: &NibblePatterns) -> [u64; 2] {
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe { generic::pattern_starts_top::<Block>(window, patterns) }
    }

    #[inline(always)]
    fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            let n = _mm256_set1_epi8(byte as i8);
            join(_mm256_cmpeq_epi8(a, n), _mm256_cmpeq_epi8(b, n))
        }
    }

    #[inline(always)]
    fn high(self, block: &[u8; 64]) -> u64 {
        let (a, b) = halves(block);
        join(a, b)
    }

    #[inline(always)]
    fn ge(self, block: &[u8; 64], byte: u8) -> u64 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            // v >= limit exactly where max(v, limit) == v.
            let limit = _mm256_set1_epi8(byte as i8);
            join(_mm256_cmpeq_epi8(_mm256_max_epu8(a, limit), a), _mm256_cmpeq_epi8(_mm256_max_epu8(b, limit), b))
        }
    }

    #[inline(always)]
    fn continuation(self, block: &[u8; 64]) -> u64 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            // Signed, 0x80..=0xbf are -128..=-65: the bytes below -64.
            let limit = _mm256_set1_epi8(-64);
            join(_mm256_cmpgt_epi8(limit, a), _mm256_cmpgt_epi8(limit, b))
        }
    }

    #[inline(always)]
    fn control_or_high(self, block: &[u8; 64]) -> u64 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            // Signed: 0x80..=0xff are negative, so "below 0x20" covers both ends.
            let (space, del) = (_mm256_set1_epi8(0x20), _mm256_set1_epi8(0x7f));
            join(
                _mm256_or_si256(_mm256_cmpgt_epi8(space, a), _mm256_cmpeq_epi8(a, del)),
                _mm256_or_si256(_mm256_cmpgt_epi8(space, b), _mm256_cmpeq_epi8(b, del)),
            )
        }
    }

    #[inline(always)]
    fn controls(self, block: &[u8; 64]) -> u64 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            // Signed "below 0x20" holds for 0x80..=0xff too: the andnot with the byte itself
            // clears the sign bit of those lanes.
            let (space, del) = (_mm256_set1_epi8(0x20), _mm256_set1_epi8(0x7f));
            join(
                _mm256_or_si256(_mm256_andnot_si256(a, _mm256_cmpgt_epi8(space, a)), _mm256_cmpeq_epi8(a, del)),
                _mm256_or_si256(_mm256_andnot_si256(b, _mm256_cmpgt_epi8(space, b)), _mm256_cmpeq_epi8(b, del)),
            )
        }
    }

    #[inline(always)]
    fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            // One shuffle: each byte below 0x80 picks the one white-space byte with its low
            // nibble (or 0xff, never equal), a byte above gets 0: equal where it is space.
            let t = _mm256_broadcastsi128_si256(_mm_loadu_si128(ASCII_SPACE_BY_LOW_NIBBLE.as_ptr().cast()));
            let (sa, sb) =
                (_mm256_cmpeq_epi8(_mm256_shuffle_epi8(t, a), a), _mm256_cmpeq_epi8(_mm256_shuffle_epi8(t, b), b));
            match extra {
                None => join(sa, sb),
                Some(x) => {
                    let x = _mm256_set1_epi8(x as i8);
                    join(_mm256_or_si256(sa, _mm256_cmpeq_epi8(a, x)), _mm256_or_si256(sb, _mm256_cmpeq_epi8(b, x)))
                }
            }
        }
    }

    #[inline(always)]
    fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
        let (a, b) = halves(block);
        // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
        unsafe {
            let (c1, df, ef, f4) = (
                _mm256_set1_epi8(0xc1u8 as i8),
                _mm256_set1_epi8(0xdfu8 as i8),
                _mm256_set1_epi8(0xefu8 as i8),
                _mm256_set1_epi8(0xf4u8 as i8),
            );
            let high = join(a, b);
            let c0 = _mm256_set1_epi8(0xc0u8 as i8);
            Utf8Ranges {
                high,
                cont: join(_mm256_cmpgt_epi8(c0, a), _mm256_cmpgt_epi8(c0, b)),
                ge_c2: join(_mm256_cmpgt_epi8(a, c1), _mm256_cmpgt_epi8(b, c1)) & high,
                ge_e0: join(_mm256_cmpgt_epi8(a, df), _mm256_cmpgt_epi8(b, df)) & high,
                ge_f0: join(_mm256_cmpgt_epi8(a, ef), _mm256_cmpgt_epi8(b, ef)) & high,
                ge_f5: join(_mm256_cmpgt_epi8(a, f4), _mm256_cmpgt_epi8(b, f4)) & high,
            }
        }
    }

    #[inline(always)]
    fn ascii_blocks(self, buf: &[u8]) -> usize {
        let mut n = 0;
        for block in buf.chunks_exact(64) {
            let (a, b) = halves(block.try_into().unwrap());
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
            if unsafe { _mm256_movemask_epi8(_mm256_or_si256(a, b)) } != 0 {
                break;
            }
            n += 64;
        }
        n
    }
}

pub fn count_byte_avx2(buf: &[u8], byte: u8) -> u64 {
    assert!(crate::platform::cpu::features().avx2);
    // SAFETY: the CPU has AVX2 (checked just above).
    unsafe { count_byte_avx2_inner(buf, byte) }
}

/// As the SSE2 count, 32 bytes at a time with two independent counters.
#[target_feature(enable = "avx2")]
fn count_byte_avx2_inner(buf: &[u8], byte: u8) -> u64 {
    let needle = _mm256_set1_epi8(byte as i8);
    let zero = _mm256_setzero_si256();
    let mut total = _mm256_setzero_si256();
    let mut blocks = buf.chunks_exact(64);
    loop {
        let (mut a, mut b) = (zero, zero);
        let mut n = 0;
        for block in blocks.by_ref().take(255) {
            // A mapped file comes from memory: ask for it ahead (see `prefetch_ahead`).
            prefetch(block.as_ptr().wrapping_add(crate::platform::simd::PREFETCH_DISTANCE));
            // SAFETY: `block` is 64 readable bytes; _mm256_loadu_si256 needs no alignment.
            let (x, y) = unsafe {
                let p = block.as_ptr().cast::<__m256i>();
                (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)))
            };
            a = _mm256_sub_epi8(a, _mm256_cmpeq_epi8(x, needle));
            b = _mm256_sub_epi8(b, _mm256_cmpeq_epi8(y, needle));
            n += 1;
        }
        total = _mm256_add_epi64(total, _mm256_add_epi64(_mm256_sad_epu8(a, zero), _mm256_sad_epu8(b, zero)));
        if n < 255 {
            break;
        }
    }
    let halves = _mm_add_epi64(_mm256_extracti128_si256::<0>(total), _mm256_extracti128_si256::<1>(total));
    let sum = _mm_cvtsi128_si64(halves) as u64 + _mm_cvtsi128_si64(_mm_srli_si128(halves, 8)) as u64;
    sum + count_byte_sse2_inner(blocks.remainder(), byte)
}

/// 64 bytes in two AVX2 registers, for the algorithms of `generic.rs`.
#[derive(Clone, Copy)]
struct Block([__m256i; 2]);

// SAFETY (every method): the caller guarantees AVX2 (see `Block64`); loads read the 64 bytes
// of a checked slice and need no alignment.
impl Block64 for Block {
    #[inline(always)]
    unsafe fn load(bytes: &[u8], at: usize) -> Block {
        let bytes = &bytes[at..at + 64];
        let p = bytes.as_ptr().cast::<__m256i>();
        // SAFETY: see the impl.
        Block(unsafe { [_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))] })
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Block {
        // SAFETY: see the impl.
        let v = unsafe { _mm256_set1_epi8(byte as i8) };
        Block([v, v])
    }
    #[inline(always)]
    unsafe fn and(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { [_mm256_and_si256(self.0[0], other.0[0]), _mm256_and_si256(self.0[1], other.0[1])] })
    }
    #[inline(always)]
    unsafe fn or(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { [_mm256_or_si256(self.0[0], other.0[0]), _mm256_or_si256(self.0[1], other.0[1])] })
    }
    #[inline(always)]
    unsafe fn xor(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { [_mm256_xor_si256(self.0[0], other.0[0]), _mm256_xor_si256(self.0[1], other.0[1])] })
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(unsafe { [_mm256_subs_epu8(self.0[0], other.0[0]), _mm256_subs_epu8(self.0[1], other.0[1])] })
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Block {
        // SAFETY: see the impl.
        unsafe { self.and(Block::splat(0x0f)) }
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Block {
        // SAFETY: see the impl.
        unsafe { Block([_mm256_srli_epi16(self.0[0], 4), _mm256_srli_epi16(self.0[1], 4)]).and(Block::splat(0x0f)) }
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Block {
        // SAFETY: see the impl; the table is 16 readable bytes.
        unsafe {
            let t = _mm256_broadcastsi128_si256(_mm_loadu_si128(table.as_ptr().cast()));
            Block([_mm256_shuffle_epi8(t, self.0[0]), _mm256_shuffle_epi8(t, self.0[1])])
        }
    }
    #[inline(always)]
    unsafe fn test(self, bits: u8) -> u64 {
        // SAFETY: see the impl.
        unsafe {
            let (zero, bits) = (_mm256_setzero_si256(), _mm256_set1_epi8(bits as i8));
            !join(
                _mm256_cmpeq_epi8(_mm256_and_si256(self.0[0], bits), zero),
                _mm256_cmpeq_epi8(_mm256_and_si256(self.0[1], bits), zero),
            )
        }
    }
    #[inline(always)]
    unsafe fn nonzero(self) -> u64 {
        // SAFETY: see the impl.
        unsafe {
            let zero = _mm256_setzero_si256();
            opaque(!join(_mm256_cmpeq_epi8(self.0[0], zero), _mm256_cmpeq_epi8(self.0[1], zero)))
        }
    }
    #[inline(always)]
    unsafe fn signs(self) -> u64 {
        opaque(join(self.0[0], self.0[1]))
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        // SAFETY: see the impl.
        unsafe {
            let v = _mm256_or_si256(self.0[0], self.0[1]);
            _mm256_testz_si256(v, v) == 0
        }
    }
}
