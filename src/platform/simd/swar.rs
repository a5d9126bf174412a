//! SWAR (8 bytes at a time in plain Rust): the block masks of every other target, and of the
//! `portable` build.

pub use super::absent::{neon::*, x86::*};

#[inline(always)]
pub fn pattern_starts(window: &[u8; 66], patterns: &super::NibblePatterns, select: [u8; 3]) -> [u64; 3] {
    super::scalar_pattern_starts(window, patterns, select)
}

/// [`super::BlockMasks::pattern_starts_top`], one position at a time.
#[inline(always)]
pub fn pattern_starts_top(window: &[u8; 66], patterns: &super::NibblePatterns) -> [u64; 2] {
    let [any, top, _] = super::scalar_pattern_starts(window, patterns, [0xff, 0x80, 0]);
    [any, top]
}

/// [`super::BlockMasks::may_start`], one byte at a time.
#[inline(always)]
pub fn may_start(block: &[u8; 64], patterns: &super::NibblePatterns) -> bool {
    super::scalar_may_start(block, patterns)
}

#[inline(always)]
pub fn lookup64(block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
    super::scalar_lookup64(block, table, select)
}

#[inline(always)]
pub fn utf8_errors(_window: &[u8; 67]) -> bool {
    true
}

pub fn ascii_blocks(buf: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut n = 0;
    for block in buf.chunks_exact(64) {
        let any = block.chunks_exact(8).fold(0, |acc, w| acc | u64::from_le_bytes(w.try_into().unwrap()));
        if any & HIGH != 0 {
            break;
        }
        n += 64;
    }
    n
}

pub fn utf8_ranges64(block: &[u8; 64]) -> super::Utf8Ranges {
    let mut r = super::Utf8Ranges::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = |yes: bool| u64::from(yes) << i;
        r.high |= bit(b >= 0x80);
        r.cont |= bit((0x80..0xc0).contains(&b));
        r.ge_c2 |= bit(b >= 0xc2);
        r.ge_e0 |= bit(b >= 0xe0);
        r.ge_f0 |= bit(b >= 0xf0);
        r.ge_f5 |= bit(b >= 0xf5);
    }
    r
}

#[inline]
pub fn ascii_space_mask64(block: &[u8; 64]) -> u64 {
    let mut mask = eq_mask64(block, b' ');
    for byte in 9..=13 {
        mask |= eq_mask64(block, byte);
    }
    mask
}

#[inline]
pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
    block.iter().enumerate().fold(0, |mask, (i, &b)| mask | (u64::from(b >> 7) << i))
}

#[inline]
pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
    let mut mask = 0u64;
    for (i, &b) in block.iter().enumerate() {
        mask |= u64::from(!(0x20..0x7f).contains(&b)) << i;
    }
    mask
}

#[inline]
pub fn ge_mask64(block: &[u8; 64], byte: u8) -> u64 {
    block.iter().enumerate().fold(0, |mask, (i, &b)| mask | u64::from(b >= byte) << i)
}

#[inline]
pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let spread = u64::from(byte) * 0x0101_0101_0101_0101;
    let mut mask = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        // An exact zero-byte test of word ^ byte, high bits gathered into one byte.
        let t = u64::from_le_bytes(word.try_into().unwrap()) ^ spread;
        let zero_high_bits = !(((t & LOW7) + LOW7) | t | LOW7);
        mask |= ((zero_high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    mask
}

/// The baseline's [`super::BlockMasks::Tally`]: a plain count.
pub type Tally = u64;

#[inline(always)]
pub fn tally_new() -> u64 {
    0
}

#[inline(always)]
pub fn tally(tally: u64, block: &[u8; 64], byte: u8) -> u64 {
    tally + u64::from(eq_mask64(block, byte).count_ones())
}

#[inline(always)]
pub fn tally_continuation(tally: u64, block: &[u8; 64]) -> u64 {
    tally + u64::from(utf8_ranges64(block).cont.count_ones())
}

#[inline(always)]
pub fn tally_total(tally: u64) -> u64 {
    tally
}
