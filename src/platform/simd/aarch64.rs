//! aarch64 with NEON enabled at compile time (the aarch64 Linux and macOS targets enable it: it
//! is part of their baseline), so the baseline block masks and a byte counter use it without
//! run-time detection.

use core::arch::aarch64::*;

pub use super::absent::x86::*;

pub const HAS_NEON: bool = true;

/// [`super::BlockMasks::utf8_errors`] with NEON's table look-ups.
#[inline(always)]
pub fn utf8_errors(window: &[u8; 67]) -> bool {
    // SAFETY: the aarch64 targets this module is built for have NEON (target_feature).
    unsafe { utf8_errors_neon(window) }
}

#[target_feature(enable = "neon")]
fn utf8_errors_neon(window: &[u8; 67]) -> bool {
    use super::utf8_tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH};
    // SAFETY: the tables are 16 readable bytes each.
    let (t1h, t1l, t2h) =
        unsafe { (vld1q_u8(BYTE_1_HIGH.as_ptr()), vld1q_u8(BYTE_1_LOW.as_ptr()), vld1q_u8(BYTE_2_HIGH.as_ptr())) };
    let low = vdupq_n_u8(0x0f);
    let (sub3, sub4, top) = (vdupq_n_u8(0xe0 - 0x80), vdupq_n_u8(0xf0 - 0x80), vdupq_n_u8(0x80));
    let mut errors = vdupq_n_u8(0);
    for q in 0..4 {
        // SAFETY: 16 bytes at offsets 16 q ..= 16 q + 3 of the 67-byte window.
        let (input, prev1, prev2, prev3) = unsafe {
            let p = window.as_ptr().add(16 * q);
            (vld1q_u8(p.add(3)), vld1q_u8(p.add(2)), vld1q_u8(p.add(1)), vld1q_u8(p))
        };
        let special = vandq_u8(
            vandq_u8(vqtbl1q_u8(t1h, vshrq_n_u8::<4>(prev1)), vqtbl1q_u8(t1l, vandq_u8(prev1, low))),
            vqtbl1q_u8(t2h, vshrq_n_u8::<4>(input)),
        );
        let must = vandq_u8(vorrq_u8(vqsubq_u8(prev2, sub3), vqsubq_u8(prev3, sub4)), top);
        errors = vorrq_u8(errors, veorq_u8(special, must));
    }
    vmaxvq_u8(errors) != 0
}

/// [`super::BlockMasks::lookup64`] with NEON's 64-byte table look-up (`tbl` of four).
#[inline(always)]
pub fn lookup64(block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
    // SAFETY: the aarch64 targets this module is built for have NEON (target_feature).
    unsafe { lookup64_neon(block, table, select) }
}

#[target_feature(enable = "neon")]
fn lookup64_neon(block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
    let t = table.as_ptr();
    // SAFETY: 64 readable bytes of the table, 16 at a time.
    let tables = unsafe { uint8x16x4_t(vld1q_u8(t), vld1q_u8(t.add(16)), vld1q_u8(t.add(32)), vld1q_u8(t.add(48))) };
    let six = vdupq_n_u8(0x3f);
    let v = load(block);
    let r = [
        vqtbl4q_u8(tables, vandq_u8(v[0], six)),
        vqtbl4q_u8(tables, vandq_u8(v[1], six)),
        vqtbl4q_u8(tables, vandq_u8(v[2], six)),
        vqtbl4q_u8(tables, vandq_u8(v[3], six)),
    ];
    let (s0, s1, s2) = (vdupq_n_u8(select[0]), vdupq_n_u8(select[1]), vdupq_n_u8(select[2]));
    [
        bits([vtstq_u8(r[0], s0), vtstq_u8(r[1], s0), vtstq_u8(r[2], s0), vtstq_u8(r[3], s0)]),
        bits([vtstq_u8(r[0], s1), vtstq_u8(r[1], s1), vtstq_u8(r[2], s1), vtstq_u8(r[3], s1)]),
        bits([vtstq_u8(r[0], s2), vtstq_u8(r[1], s2), vtstq_u8(r[2], s2), vtstq_u8(r[3], s2)]),
    ]
}

/// [`super::BlockMasks::pattern_starts`] with NEON's 16-byte table look-up (`tbl`).
#[inline(always)]
pub fn pattern_starts(window: &[u8; 66], patterns: &super::NibblePatterns, select: [u8; 3]) -> [u64; 3] {
    // SAFETY: the aarch64 targets this module is built for have NEON (target_feature).
    unsafe { pattern_starts_neon(window, patterns, select) }
}

#[target_feature(enable = "neon")]
fn pattern_starts_neon(window: &[u8; 66], patterns: &super::NibblePatterns, select: [u8; 3]) -> [u64; 3] {
    let low = vdupq_n_u8(0x0f);
    let mut hits = [vdupq_n_u8(0xff); 4];
    for j in 0..3 {
        // SAFETY: the tables are 16 readable bytes each.
        let (lo_table, hi_table) = unsafe { (vld1q_u8(patterns.lo[j].as_ptr()), vld1q_u8(patterns.hi[j].as_ptr())) };
        for (q, hit) in hits.iter_mut().enumerate() {
            // SAFETY: 16 bytes at offset j + 16 q <= 50 of the 66-byte window.
            let v = unsafe { vld1q_u8(window.as_ptr().add(j + 16 * q)) };
            let lo = vqtbl1q_u8(lo_table, vandq_u8(v, low));
            let hi = vqtbl1q_u8(hi_table, vshrq_n_u8::<4>(v));
            *hit = vandq_u8(*hit, vandq_u8(lo, hi));
        }
    }
    // (No closures here: they would not inherit the target features.)
    let (sel0, sel1, sel2) = (vdupq_n_u8(select[0]), vdupq_n_u8(select[1]), vdupq_n_u8(select[2]));
    [
        self::bits([
            vtstq_u8(hits[0], sel0),
            vtstq_u8(hits[1], sel0),
            vtstq_u8(hits[2], sel0),
            vtstq_u8(hits[3], sel0),
        ]),
        self::bits([
            vtstq_u8(hits[0], sel1),
            vtstq_u8(hits[1], sel1),
            vtstq_u8(hits[2], sel1),
            vtstq_u8(hits[3], sel1),
        ]),
        self::bits([
            vtstq_u8(hits[0], sel2),
            vtstq_u8(hits[1], sel2),
            vtstq_u8(hits[2], sel2),
            vtstq_u8(hits[3], sel2),
        ]),
    ]
}

/// The four 16-byte vectors of a block.
#[target_feature(enable = "neon")]
#[inline]
fn load(block: &[u8; 64]) -> [uint8x16_t; 4] {
    let p = block.as_ptr();
    // SAFETY: `block` is 64 readable bytes, and vld1q_u8 has no alignment requirement.
    unsafe { [vld1q_u8(p), vld1q_u8(p.add(16)), vld1q_u8(p.add(32)), vld1q_u8(p.add(48))] }
}

/// Bit i of the result for byte i of four compare results (lanes of 0xff or 0): each lane
/// keeps its bit of a byte, and three rounds of pairwise additions gather them.
#[target_feature(enable = "neon")]
#[inline]
fn bits(v: [uint8x16_t; 4]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: WEIGHTS is 16 readable bytes.
    let w = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
    let s0 = vpaddq_u8(vandq_u8(v[0], w), vandq_u8(v[1], w));
    let s1 = vpaddq_u8(vandq_u8(v[2], w), vandq_u8(v[3], w));
    let s = vpaddq_u8(s0, s1);
    vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(s, s)))
}

/// The mask of a block's bytes for which `test` (a compare of one 16-byte vector, all ones
/// where true) holds.
#[target_feature(enable = "neon")]
#[inline]
fn mask(block: &[u8; 64], test: impl Fn(uint8x16_t) -> uint8x16_t) -> u64 {
    bits(load(block).map(test))
}

/// The mask of the bytes that are at least `byte`.
#[target_feature(enable = "neon")]
#[inline]
fn ge(block: &[u8; 64], byte: u8) -> u64 {
    let x = vdupq_n_u8(byte);
    mask(block, |v| vcgeq_u8(v, x))
}

#[target_feature(enable = "neon")]
#[inline]
fn eq_mask64_neon(block: &[u8; 64], byte: u8) -> u64 {
    let x = vdupq_n_u8(byte);
    mask(block, |v| vceqq_u8(v, x))
}

#[target_feature(enable = "neon")]
#[inline]
fn control_or_high_mask64_neon(block: &[u8; 64]) -> u64 {
    let (space, del) = (vdupq_n_u8(0x20), vdupq_n_u8(0x7f));
    mask(block, |v| vorrq_u8(vcltq_u8(v, space), vcgeq_u8(v, del)))
}

#[target_feature(enable = "neon")]
#[inline]
fn ascii_space_mask64_neon(block: &[u8; 64]) -> u64 {
    // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE.
    let v = load(block);
    let (nine, four, space) = (vdupq_n_u8(9), vdupq_n_u8(4), vdupq_n_u8(b' '));
    let f = |v| vorrq_u8(vcleq_u8(vsubq_u8(v, nine), four), vceqq_u8(v, space));
    bits([f(v[0]), f(v[1]), f(v[2]), f(v[3])])
}

#[target_feature(enable = "neon")]
#[inline]
fn utf8_ranges64_neon(block: &[u8; 64]) -> super::Utf8Ranges {
    let high = ge(block, 0x80);
    super::Utf8Ranges {
        high,
        cont: high & !ge(block, 0xc0),
        ge_c2: ge(block, 0xc2),
        ge_e0: ge(block, 0xe0),
        ge_f0: ge(block, 0xf0),
        ge_f5: ge(block, 0xf5),
    }
}

#[target_feature(enable = "neon")]
fn ascii_blocks_neon(buf: &[u8]) -> usize {
    let mut n = 0;
    for block in buf.chunks_exact(64) {
        let [a, b, c, d] = load(block.try_into().unwrap());
        if vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) >= 0x80 {
            break;
        }
        n += 64;
    }
    n
}

/// Matches are subtracted (0xff = -1) into the byte lanes of four accumulators, which are
/// summed before any lane could wrap (at most 255 blocks).
#[target_feature(enable = "neon")]
fn count_byte_neon_impl(buf: &[u8], byte: u8) -> u64 {
    let needle = vdupq_n_u8(byte);
    let mut blocks = buf.chunks_exact(64);
    let mut total = 0u64;
    loop {
        let mut acc = [vdupq_n_u8(0); 4];
        let mut n = 0;
        for block in blocks.by_ref().take(255) {
            let v = load(block.try_into().unwrap());
            for k in 0..4 {
                acc[k] = vsubq_u8(acc[k], vceqq_u8(v[k], needle));
            }
            n += 1;
        }
        total += acc.iter().map(|&a| u64::from(vaddlvq_u8(a))).sum::<u64>();
        if n < 255 {
            break;
        }
    }
    total + blocks.remainder().iter().filter(|&&b| b == byte).count() as u64
}

// The entry points. SAFETY (each): this module is compiled only with the `neon` target
// feature enabled for the whole build, so every CPU the build runs on has it.

#[inline]
pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
    // SAFETY: see above.
    unsafe { eq_mask64_neon(block, byte) }
}

#[inline]
pub fn ge_mask64(block: &[u8; 64], byte: u8) -> u64 {
    // SAFETY: see above.
    unsafe { ge(block, byte) }
}

#[inline]
pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
    // SAFETY: see above.
    unsafe { ge(block, 0x80) }
}

#[inline]
pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
    // SAFETY: see above.
    unsafe { control_or_high_mask64_neon(block) }
}

#[inline]
pub fn ascii_space_mask64(block: &[u8; 64]) -> u64 {
    // SAFETY: see above.
    unsafe { ascii_space_mask64_neon(block) }
}

#[inline]
pub fn utf8_ranges64(block: &[u8; 64]) -> super::Utf8Ranges {
    // SAFETY: see above.
    unsafe { utf8_ranges64_neon(block) }
}

pub fn ascii_blocks(buf: &[u8]) -> usize {
    // SAFETY: see above.
    unsafe { ascii_blocks_neon(buf) }
}

pub fn count_byte_neon(buf: &[u8], byte: u8) -> u64 {
    // SAFETY: see above.
    unsafe { count_byte_neon_impl(buf, byte) }
}
