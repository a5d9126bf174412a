//! SWAR ("SIMD within a register"): a block as eight 64-bit words, the portable kernel's and where no vector set is
//! built. Byte i is bits `8 * (i % 8)..` of word `i / 8` in any byte order; no carry or borrow crosses bytes.

use super::Kernel;
use super::block::{Block64, Mask, lanewise};

const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;
const ONES: u64 = 0x0101_0101_0101_0101;

/// 64 bytes as eight words.
#[derive(Clone, Copy)]
pub struct Swar([u64; 8]);

/// A compare's result: 0x80 in each byte where true, 0 elsewhere.
#[derive(Clone, Copy)]
pub struct SwarMask([u64; 8]);

/// 0x80 in each byte of `t` that is zero, exactly.
#[inline(always)]
fn zero_bytes(t: u64) -> u64 {
    !(((t & LOW7) + LOW7) | t | LOW7)
}

/// 0x80 in each byte where `x >= y` unsigned: low seven bits by a subtraction whose bit 7 cannot borrow, then bit 7.
#[inline(always)]
fn ge_bytes(x: u64, y: u64) -> u64 {
    let low_ge = ((x | HIGH) - (y & LOW7)) & HIGH;
    ((x & !y) | (!(x ^ y) & low_ge)) & HIGH
}

/// Byte-wise `x - y`, wrapping: the low seven bits as in `ge_bytes`, bit 7 fixed up.
#[inline(always)]
fn sub_bytes(x: u64, y: u64) -> u64 {
    ((x | HIGH) - (y & LOW7)) ^ ((x ^ !y) & HIGH)
}

/// Byte-wise `x - y`, at least 0.
#[inline(always)]
fn saturating_sub_bytes(x: u64, y: u64) -> u64 {
    sub_bytes(x, y) & ((ge_bytes(x, y) >> 7) * 0xff)
}

impl Swar {
    #[inline(always)]
    fn bytes(self) -> [u8; 64] {
        std::array::from_fn(|i| (self.0[i / 8] >> (8 * (i % 8))) as u8)
    }

    #[inline(always)]
    fn from_bytes(bytes: &[u8; 64]) -> Swar {
        Swar(std::array::from_fn(|k| u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().unwrap())))
    }

    #[inline(always)]
    fn mask(self, f: impl Fn(u64) -> u64) -> SwarMask {
        SwarMask(self.0.map(f))
    }
}

// Plain Rust: every method is safe whatever the CPU.
impl Block64 for Swar {
    lanewise!(Swar, SwarMask, [0, 1, 2, 3, 4, 5, 6, 7] of 8, kernel: Kernel::Portable, |a, b| {
        load(p): u64::from_le(p.cast::<u64>().read_unaligned()), splat(x): u64::from(x) * ONES,
        and: a & b, or: a | b, xor: a ^ b, wrapping_sub: sub_bytes(a, b), saturating_sub: saturating_sub_bytes(a, b),
        // 255 less (255 less a, less b), and a plus what b has more (no byte carries).
        saturating_add: !saturating_sub_bytes(!a, b), max: a + saturating_sub_bytes(b, a),
        // With bit 7 flipped, signed order is unsigned order.
        eq: zero_bytes(a ^ b), lt_signed: !ge_bytes(a ^ HIGH, b ^ HIGH) & HIGH, ge: ge_bytes(a, b), le: ge_bytes(b, a),
        // A counter is at most 255 (its users' rule): no carry into the next byte.
        count: a + (b >> 7),
    });

    #[inline(always)]
    unsafe fn high_nibbles(self) -> Swar {
        Swar(self.0.map(|w| (w >> 4) & 0x0f0f_0f0f_0f0f_0f0f))
    }
    #[inline(always)]
    unsafe fn lookup16(self, table: &[u8; 16]) -> Swar {
        Swar::from_bytes(&self.bytes().map(|b| table[usize::from(b & 15)]))
    }
    #[inline(always)]
    unsafe fn lookup64(self, table: &[u8; 64]) -> Swar {
        Swar::from_bytes(&self.bytes().map(|b| table[usize::from(b & 63)]))
    }
    #[inline(always)]
    unsafe fn signs(self) -> SwarMask {
        self.mask(|w| w & HIGH)
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        self.0.iter().fold(0, |a, w| a | w) != 0
    }
    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // Byte pairs into 16-bit lanes (at most 8 * 510 over the words), then the four lanes.
        let pairs =
            self.0.iter().fold(0u64, |a, w| a + (w & 0x00ff_00ff_00ff_00ff) + ((w >> 8) & 0x00ff_00ff_00ff_00ff));
        pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48
    }
}

impl Mask for SwarMask {
    lanewise!(mask SwarMask, [0, 1, 2, 3, 4, 5, 6, 7], |a, b| or: a | b);

    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        // Each word's eight high bits gathered into its top byte by one multiply.
        self.0
            .iter()
            .enumerate()
            .fold(0, |a, (k, &w)| a | ((w >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k))
    }
    #[inline(always)]
    unsafe fn any(self) -> bool {
        self.0.iter().fold(0, |a, w| a | w) != 0
    }
}
