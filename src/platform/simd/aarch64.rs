//! aarch64 with NEON enabled at compile time (the aarch64 Linux and macOS targets enable it: it
//! is part of their baseline), so the baseline block masks and a byte counter use it without
//! run-time detection.

use super::generic::{self, Block64};
use core::arch::aarch64::*;

pub use super::absent::x86::*;

pub const HAS_NEON: bool = true;

/// [`super::BlockMasks::utf8_errors`] with NEON's table look-ups (see `generic.rs`).
#[inline(always)]
pub fn utf8_errors(window: &[u8; 67]) -> bool {
    // SAFETY: the aarch64 targets this module is built for have NEON (target_feature).
    unsafe { generic::utf8_errors::<Block>(window) }
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

/// [`super::BlockMasks::pattern_starts`] with NEON's 16-byte table look-up, `tbl` (see
/// `generic.rs`).
#[inline(always)]
pub fn pattern_starts(window: &[u8; 66], patterns: &super::NibblePatterns, select: [u8; 3]) -> [u64; 3] {
    // SAFETY: the aarch64 targets this module is built for have NEON (target_feature).
    unsafe { generic::pattern_starts::<Block>(window, patterns, select) }
}

/// [`super::BlockMasks::pattern_starts_top`] with NEON's `tbl` (see `generic.rs`).
#[inline(always)]
pub fn pattern_starts_top(window: &[u8; 66], patterns: &super::NibblePatterns) -> [u64; 2] {
    // SAFETY: the aarch64 targets this module is built for have NEON (target_feature).
    unsafe { generic::pattern_starts_top::<Block>(window, patterns) }
}

/// [`super::BlockMasks::may_start`] with NEON's `tbl` (see `generic.rs`).
#[inline(always)]
pub fn may_start(block: &[u8; 64], patterns: &super::NibblePatterns) -> bool {
    // SAFETY: the aarch64 targets this module is built for have NEON (target_feature).
    unsafe { generic::may_start::<Block>(block, patterns) }
}

/// The baseline's [`super::BlockMasks::Tally`]: per-lane counts of a block's four 16-byte
/// quarters.
#[derive(Clone, Copy)]
pub struct Tally([uint8x16_t; 4]);

// SAFETY (each use below): the aarch64 targets this module is built for have NEON.

#[inline(always)]
pub fn tally_new() -> Tally {
    // SAFETY: see above.
    Tally([unsafe { vdupq_n_u8(0) }; 4])
}

#[inline(always)]
pub fn tally(tally: Tally, block: &[u8; 64], byte: u8) -> Tally {
    // SAFETY: see above. Equal bytes are 0xff (-1): subtracting counts them, per lane.
    unsafe {
        let (v, n) = (load(block), vdupq_n_u8(byte));
        Tally(std::array::from_fn(|q| vsubq_u8(tally.0[q], vceqq_u8(v[q], n))))
    }
}

#[inline(always)]
pub fn tally_continuation(tally: Tally, block: &[u8; 64]) -> Tally {
    // SAFETY: see above. Signed, 0x80..=0xbf are -128..=-65: the bytes below -64.
    unsafe {
        let (v, limit) = (load(block), vdupq_n_s8(-64));
        Tally(std::array::from_fn(|q| vsubq_u8(tally.0[q], vcltq_s8(vreinterpretq_s8_u8(v[q]), limit))))
    }
}

#[inline(always)]
pub fn tally_total(tally: Tally) -> u64 {
    // SAFETY: see above.
    unsafe { tally.0.iter().map(|&t| u64::from(vaddlvq_u8(t))).sum() }
}

/// 64 bytes in four NEON registers, for the algorithms of `generic.rs`.
#[derive(Clone, Copy)]
struct Block([uint8x16_t; 4]);

// SAFETY (every method): NEON is part of these targets' baseline (enabled at compile time):
// its instructions run on every CPU the build runs on, and closures compile to them too.
impl Block64 for Block {
    #[inline(always)]
    unsafe fn load(bytes: &[u8], at: usize) -> Block {
        let bytes: &[u8; 64] = bytes[at..at + 64].try_into().unwrap();
        // SAFETY: see the impl.
        Block(unsafe { load(bytes) })
    }
    #[inline(always)]
    unsafe fn splat(byte: u8) -> Block {
        // SAFETY: see the impl.
        Block([unsafe { vdupq_n_u8(byte) }; 4])
    }
    #[inline(always)]
    unsafe fn and(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(std::array::from_fn(|q| unsafe { vandq_u8(self.0[q], other.0[q]) }))
    }
    #[inline(always)]
    unsafe fn or(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(std::array::from_fn(|q| unsafe { vorrq_u8(self.0[q], other.0[q]) }))
    }
    #[inline(always)]
    unsafe fn xor(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(std::array::from_fn(|q| unsafe { veorq_u8(self.0[q], other.0[q]) }))
    }
    #[inline(always)]
    unsafe fn saturating_sub(self, other: Block) -> Block {
        // SAFETY: see the impl.
        Block(std::array::from_fn(|q| unsafe { vqsubq_u8(self.0[q], other.0[q]) }))
    }
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Block {
        // SAFETY: see the impl.
        Block(self.0.map(|v| unsafe { vandq_u8(v, vdupq_n_u8(0x0f)) }))
    }
    #[inline(always)]
    unsafe fn high_nibbles(self) -> Block {
        // SAFETY: see the impl.
        Block(self.0.map(|v| unsafe { vshrq_n_u8::<4>(v) }))
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Block {
        // SAFETY: see the impl; the table is 16 readable bytes.
        let t = unsafe { vld1q_u8(table.as_ptr()) };
        // SAFETY: see the impl.
        Block(self.0.map(|v| unsafe { vqtbl1q_u8(t, v) }))
    }
    #[inline(always)]
    unsafe fn test(self, bits: u8) -> u64 {
        // SAFETY: see the impl.
        unsafe {
            let bits = vdupq_n_u8(bits);
            self::bits(self.0.map(|v| vtstq_u8(v, bits)))
        }
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        let [a, b, c, d] = self.0;
        // SAFETY: see the impl.
        unsafe { vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) != 0 }
    }
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
///
/// The additions are written out: LLVM turns `vpaddq_u8` of these disjoint bits into `uzp1`,
/// `uzp2` and `orr`, three instructions for each `addp`, which doubled the cost of every mask
/// (18 instructions instead of 9).
#[target_feature(enable = "neon")]
#[inline]
fn bits(v: [uint8x16_t; 4]) -> u64 {
    const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
    // SAFETY: WEIGHTS is 16 readable bytes.
    let w = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
    let [a, b, c, d] = v.map(|x| vandq_u8(x, w));
    let out: u64;
    // SAFETY: register arithmetic only (NEON, which these targets have), no memory, no flags.
    unsafe {
        core::arch::asm!(
            "addp {a:v}.16b, {a:v}.16b, {b:v}.16b",
            "addp {c:v}.16b, {c:v}.16b, {d:v}.16b",
            "addp {a:v}.16b, {a:v}.16b, {c:v}.16b",
            "addp {a:v}.16b, {a:v}.16b, {a:v}.16b",
            "fmov {out}, {a:d}",
            a = inout(vreg) a => _,
            b = in(vreg) b,
            c = inout(vreg) c => _,
            d = in(vreg) d,
            out = out(reg) out,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
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
