//! The primitives of a 64-byte block, [`Block64`], like `memchr`'s `Vector`. A compare gives the set's own [`Mask`],
//! a 64-bit mask only at the end. A set's file overrides defaults where better, saying why. No algorithm lives here.

use super::Kernel;

/// 64 bytes in the registers of one instruction set, and its primitive operations.
///
/// # Safety
/// Every method runs instructions of the type's set: call it only on a CPU that has it (holding a [`super::Masks`] of
/// the type proves it), from code compiled for it (what [`super::with_masks`] runs), so that it inlines there.
#[expect(clippy::missing_safety_doc, reason = "one contract for every method: the trait's")]
pub trait Block64: Copy {
    /// What a compare gives: one bit (or byte) per byte of the block.
    type Mask: Mask;
    /// The kernel this set is, by which the families choose theirs ([`super::Families`]).
    const KERNEL: Kernel;

    /// The 64 bytes at `bytes[at..at + 64]` (panics when they are not all there).
    unsafe fn load(bytes: &[u8], at: usize) -> Self;
    /// `byte` 64 times.
    unsafe fn splat(byte: u8) -> Self;
    unsafe fn and(self, other: Self) -> Self;
    unsafe fn or(self, other: Self) -> Self;
    unsafe fn xor(self, other: Self) -> Self;
    /// Byte-wise `self - other`, wrapping.
    unsafe fn wrapping_sub(self, other: Self) -> Self;
    /// Byte-wise `self - other`, at least 0.
    unsafe fn saturating_sub(self, other: Self) -> Self;
    /// Byte-wise `self + other`, at most 255.
    unsafe fn saturating_add(self, other: Self) -> Self;
    /// Byte-wise the larger, unsigned.
    unsafe fn max(self, other: Self) -> Self;
    /// Each byte's high four bits, shifted down.
    unsafe fn high_nibbles(self) -> Self;
    /// `table[byte]` for each byte, all below 16.
    unsafe fn lookup16(self, table: &[u8; 16]) -> Self;
    /// `table[byte & 63]` for each byte.
    unsafe fn lookup64(self, table: &[u8; 64]) -> Self;
    /// `self[i] == other[i]`.
    unsafe fn eq(self, other: Self) -> Self::Mask;
    /// `self[i] < other[i]`, both signed.
    unsafe fn lt_signed(self, other: Self) -> Self::Mask;
    /// `self[i] >= other[i]`, both unsigned.
    unsafe fn ge(self, other: Self) -> Self::Mask;
    /// `self[i] <= other[i]`, both unsigned.
    unsafe fn le(self, other: Self) -> Self::Mask;
    /// Bit 7 of each byte: not a compare's full bytes, so not for [`Self::count`].
    unsafe fn signs(self) -> Self::Mask;
    /// Whether any byte is not zero.
    unsafe fn any(self) -> bool;
    /// Each byte, a counter, plus one where `mask` (a compare's) is set.
    unsafe fn count(self, mask: Self::Mask) -> Self;
    /// The sum of the 64 bytes, unsigned.
    unsafe fn sum(self) -> u64;
    /// `self.or(other)`, for an accumulator only tested with [`Self::any`]. Where a block is two
    /// registers, both halves may go into the first, so a loop frees one register for constants.
    #[inline(always)]
    unsafe fn or_into_first(self, other: Self) -> Self {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.or(other) }
    }
    /// `self.count(mask)`, for a tally only read with [`Self::sum`]: as [`Self::or_into_first`],
    /// both halves may count in the first register, whose counters then take up to two a block.
    #[inline(always)]
    unsafe fn count_into_first(self, mask: Self::Mask) -> Self {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.count(mask) }
    }

    /// Bit i set where `self[i] & bits != 0`.
    #[inline(always)]
    unsafe fn test(self, bits: u8) -> u64 {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { !self.and(Self::splat(bits)).eq(Self::splat(0)).bits() }
    }
    /// Each byte's low four bits.
    #[inline(always)]
    unsafe fn low_nibbles(self) -> Self {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.and(Self::splat(0x0f)) }
    }
    /// `table[byte & 15]` below 0x80, that or 0 above (x86 gives 0): only to compare with the byte.
    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: &[u8; 16]) -> Self {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.low_nibbles().lookup16(table) }
    }
}

/// The result of a compare of a [`Block64`].
///
/// # Safety
/// As [`Block64`]'s: the methods run the set's instructions.
#[expect(clippy::missing_safety_doc, reason = "one contract for every method: the trait's")]
pub trait Mask: Copy {
    unsafe fn or(self, other: Self) -> Self;
    /// Bit i for byte i.
    unsafe fn bits(self) -> u64;
    /// Whether any bit is set.
    unsafe fn any(self) -> bool;
}

/// Implements the lane-wise part of [`Block64`], and its mask's `or`, for a block of registers (or words) `[lanes] of
/// width` bytes. Each primitive is one expression, on every register: `load` of `p`, a pointer to its bytes; `splat`
/// of the byte `x`; the others of `a` from `self` and `b` from `other` (a block, or for `count` a mask).
macro_rules! lanewise {
    ($block:ident, $mask:ident, [$($i:tt),*] of $width:literal, kernel: $kernel:expr, |$a:ident, $b:ident| {
        load($p:ident): $load:expr, splat($x:ident): $splat:expr,
        and: $and:expr, or: $or:expr, xor: $xor:expr, wrapping_sub: $wsub:expr, saturating_sub: $ssub:expr,
        saturating_add: $sadd:expr, max: $max:expr, eq: $eq:expr, lt_signed: $lt:expr, ge: $ge:expr, le: $le:expr, count: $count:expr $(,)?
    }) => {
        type Mask = $mask;
        const KERNEL: $crate::platform::simd::Kernel = $kernel;

        #[inline(always)]
        #[allow(unused_unsafe, reason = "SWAR's operations are plain Rust")]
        unsafe fn load(bytes: &[u8], at: usize) -> $block {
            let block = bytes[at..at + 64].as_ptr();
            $block([$({
                let $p = block.wrapping_add($i * $width);
                // SAFETY: the caller's guarantee (`Block64`); `p` points to `width` of 64 readable bytes, unaligned.
                unsafe { $load }
            }),*])
        }
        #[inline(always)]
        #[allow(unused_unsafe, reason = "SWAR's operations are plain Rust")]
        unsafe fn splat(byte: u8) -> $block {
            let $x = byte;
            // SAFETY: the caller's guarantee (see `Block64`).
            let register = unsafe { $splat };
            $block([register; [$($i),*].len()])
        }
        lanewise!(@op and, $block, $block, [$($i),*], $a, $b, $and);
        lanewise!(@op or, $block, $block, [$($i),*], $a, $b, $or);
        lanewise!(@op xor, $block, $block, [$($i),*], $a, $b, $xor);
        lanewise!(@op wrapping_sub, $block, $block, [$($i),*], $a, $b, $wsub);
        lanewise!(@op saturating_sub, $block, $block, [$($i),*], $a, $b, $ssub);
        lanewise!(@op saturating_add, $block, $block, [$($i),*], $a, $b, $sadd);
        lanewise!(@op max, $block, $block, [$($i),*], $a, $b, $max);
        lanewise!(@op eq, $block, $mask, [$($i),*], $a, $b, $eq);
        lanewise!(@op lt_signed, $block, $mask, [$($i),*], $a, $b, $lt);
        lanewise!(@op ge, $block, $mask, [$($i),*], $a, $b, $ge);
        lanewise!(@op le, $block, $mask, [$($i),*], $a, $b, $le);
        lanewise!(@op count, $mask, $block, [$($i),*], $a, $b, $count);
    };
    (mask $mask:ident, $lanes:tt, |$a:ident, $b:ident| or: $or:expr) => {
        lanewise!(@op or, $mask, $mask, $lanes, $a, $b, $or);
    };
    (@op $name:ident, $other:ident, $out:ident, [$($i:tt),*], $a:ident, $b:ident, $e:expr) => {
        #[inline(always)]
        #[allow(unused_unsafe, reason = "SWAR's operations are plain Rust")]
        unsafe fn $name(self, other: $other) -> $out {
            $out([$({
                let ($a, $b) = (self.0[$i], other.0[$i]);
                // SAFETY: the caller's guarantee (see `Block64`).
                unsafe { $e }
            }),*])
        }
    };
}
pub(super) use lanewise;
