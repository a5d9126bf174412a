//! Every block algorithm, written once over [`Block64`]: 64 bytes in whatever registers an
//! instruction set has (four SSE2 or NEON registers, two AVX2 ones, one AVX-512 register, eight
//! 64-bit words for SWAR), as BurntSushi's `memchr` writes its searches once over its `Vector`
//! trait. A compare gives the set's own [`Mask`] type (byte vectors on SSE2, AVX2 and NEON, a mask
//! register on AVX-512, high bits of words on SWAR), which becomes a 64-bit mask only at the end.
//! An instruction-set file implements the primitives, each in its set's best form (an unsigned
//! compare is one instruction on AVX-512 and NEON, two on SSE2 and AVX2); where a set does better
//! than a primitive's default, it overrides it, with the measurement that shows it pays.

use super::utf8_tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH};
use super::{NibblePatterns, Utf8Ranges, prefetch_ahead};
use std::marker::PhantomData;

/// 64 bytes in the registers of one instruction set, and its primitive operations.
///
/// # Safety
/// Every method runs instructions of the implementing type's set: it may be called only on a CPU
/// that has it (holding a [`Masks`] of the type proves it), from code compiled for it (what
/// [`super::with_masks`] runs), so that it inlines there.
#[expect(clippy::missing_safety_doc, reason = "one contract for every method: the trait's")]
pub trait Block64: Copy {
    /// What a compare gives: one bit (or byte) per byte of the block.
    type Mask: Mask;
    /// Whether [`Self::lookup16`] and [`Self::lookup64`] are vector instructions (byte shuffles):
    /// without them a caller may do better by compares.
    const TABLE_LOOKUPS: bool;

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
    /// Bit 7 of each byte. Only to combine with other masks and to take as bits: not a compare's
    /// full bytes, so not for [`Self::count`].
    unsafe fn signs(self) -> Self::Mask;
    /// Whether any byte is not zero.
    unsafe fn any(self) -> bool;
    /// Each byte, a counter, plus one where `mask` (a compare's) is set.
    unsafe fn count(self, mask: Self::Mask) -> Self;
    /// The sum of the 64 bytes, unsigned.
    unsafe fn sum(self) -> u64;
    /// `self.or(other)`, for an accumulator that is only tested with [`Self::any`]: where a
    /// block is two registers, the set may or both halves into the first and keep the second
    /// zero, so that a loop holds one register for it (and one more for its constants).
    #[inline(always)]
    unsafe fn or_into_first(self, other: Self) -> Self {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.or(other) }
    }
    /// `self.count(mask)`, for a tally that is only read with [`Self::sum`]: as with
    /// [`Self::or_into_first`], the set may count both halves of `mask` in the first register,
    /// whose byte counters then take up to two a block.
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
    /// `table[byte & 15]` for each byte below 0x80; a byte from 0x80 gets that or 0 (x86's
    /// shuffles give 0 there, without the mask), so only for a look-up compared with the byte
    /// itself.
    #[inline(always)]
    unsafe fn lookup_low_nibble(self, table: &[u8; 16]) -> Self {
        // SAFETY: the caller's guarantee (see the trait).
        unsafe { self.low_nibbles().lookup16(table) }
    }
    /// `cat -v` notation of the whole 64-byte blocks of `input` into `out` (see
    /// [`Masks::notation_blocks`]), where the set has a kernel for it.
    ///
    /// # Safety
    /// Beyond the trait's: the CPU has AVX-512 VBMI and VBMI2 (see [`Masks`]).
    #[inline(always)]
    unsafe fn notation_blocks(input: &[u8], tabs: bool, ends: bool, out: &mut [u8]) -> Option<(usize, usize)> {
        let _ = (input, tabs, ends, out);
        None
    }
    /// `cat -v` notation of one 64-byte block at the start of `out` (see
    /// [`Masks::notation_block`]), where the set has a kernel for it that needs no extension.
    #[inline(always)]
    unsafe fn notation_block(block: &[u8; 64], tabs: bool, ends: bool, out: &mut [u8; 256]) -> Option<usize> {
        let _ = (block, tabs, ends, out);
        None
    }
    /// [`Masks::utf8_continuation`] by a kernel of the set's own with byte permutes, where it
    /// has one; None where it has not.
    ///
    /// # Safety
    /// Beyond the trait's: the CPU has AVX-512 VBMI and VBMI2 (see [`Masks`]).
    #[inline(always)]
    unsafe fn utf8_continuation_vbmi(bytes: &[u8]) -> Option<Option<u64>> {
        let _ = bytes;
        None
    }
    /// [`Masks::utf8_continuation_three`] by a kernel of the set's own, where it has one; None
    /// where it has not.
    #[inline(always)]
    unsafe fn utf8_continuation_three(bytes: &[u8]) -> Option<u64> {
        let _ = bytes;
        None
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

/// Implements the lane-wise part of [`Block64`] for a block that is an array of registers (or
/// words) `[lanes] of width` bytes each, and `or` of its mask: each primitive is one expression
/// of a register, applied to every one (`load` of `p`, a pointer to the register's bytes;
/// `splat` of the byte `x`; the others of a pair of registers, `a` of `self` and `b` of `other`,
/// a block or for `count` a mask).
macro_rules! lanewise {
    ($block:ident, $mask:ident, [$($i:tt),*] of $width:literal, tables: $tables:literal, |$a:ident, $b:ident| {
        load($p:ident): $load:expr, splat($x:ident): $splat:expr,
        and: $and:expr, or: $or:expr, xor: $xor:expr, wrapping_sub: $wsub:expr, saturating_sub: $ssub:expr,
        saturating_add: $sadd:expr, max: $max:expr, eq: $eq:expr, lt_signed: $lt:expr, ge: $ge:expr, le: $le:expr, count: $count:expr $(,)?
    }) => {
        type Mask = $mask;
        const TABLE_LOOKUPS: bool = $tables;

        #[inline(always)]
        #[allow(unused_unsafe, reason = "SWAR's operations are plain Rust")]
        unsafe fn load(bytes: &[u8], at: usize) -> $block {
            let block = bytes[at..at + 64].as_ptr();
            $block([$({
                let $p = block.wrapping_add($i * $width);
                // SAFETY: the caller's guarantee (see `Block64`); `p` points to `width` of the 64
                // readable bytes (unaligned).
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

/// The most blocks one [`Tally`] may count (a byte counter per lane).
pub const TALLY_MAX: usize = 255;

/// The most blocks one [`Masks::utf8_continuation`] may check: half a tally's, as its tally
/// counts up to two a block in a byte counter ([`Block64::count_into_first`]).
pub const UTF8_BLOCKS_MAX: usize = TALLY_MAX / 2;

/// The most blocks one [`Masks::utf8_continuation_sparse`] may check: a bit each in a word.
pub const UTF8_SPARSE_BLOCKS_MAX: usize = 64;

/// For each low nibble, the ASCII white-space byte that has it (SPACE, TAB, LF, VT, FF, CR),
/// or a byte with another low nibble (which no byte with this nibble equals).
const SPACE_BY_LOW_NIBBLE: [u8; 16] =
    [b' ', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, b'\t', b'\n', 0x0b, 0x0c, b'\r', 0xff, 0];

/// The masks of 64-byte blocks that `wc`'s and `cat`'s loops use, in the instruction set of
/// `B`: bit i of each result stands for `block[i]`. Only [`super::with_masks`] makes one, after
/// it checked that the CPU has the set: holding one proves that `B`'s instructions can run.
#[derive(Clone, Copy)]
pub struct Masks<B> {
    /// The CPU has AVX-512 VBMI and VBMI2 (byte permutes and compresses): `B`'s kernels that
    /// need them may run ([`Block64::notation_blocks`], [`Block64::utf8_continuation_vbmi`]).
    vbmi: bool,
    block: PhantomData<B>,
}

/// A running count of the bytes of up to [`TALLY_MAX`] blocks that a compare found, kept in
/// vector registers (see [`Masks::tally`]).
#[derive(Clone, Copy)]
pub struct Tally<B>(B);

impl<B: Block64> Masks<B> {
    /// # Safety
    /// The CPU has `B`'s instruction set and, with `vbmi`, AVX-512 VBMI and VBMI2; what uses
    /// the masks is compiled for `B`'s set.
    #[inline(always)]
    pub(super) unsafe fn new(vbmi: bool) -> Masks<B> {
        Masks { vbmi, block: PhantomData }
    }

    /// Whether `B`'s kernels that need AVX-512 VBMI and VBMI2 may run (see [`Self::new`]).
    #[cfg(test)]
    pub(super) fn vbmi(self) -> bool {
        self.vbmi
    }

    /// `block[i] == byte`.
    #[inline(always)]
    pub fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: holding a `Masks<B>` proves the CPU has B's instruction set (see `Masks`),
        // and the methods below say so by "see `eq`".
        unsafe { B::load(block, 0).eq(B::splat(byte)).bits() }
    }

    /// `block[i]` is one of `bytes` (one bit mask of all the compares).
    #[inline(always)]
    pub fn eq_any<const N: usize>(self, block: &[u8; 64], bytes: [u8; N]) -> u64 {
        // SAFETY: see `eq`.
        unsafe {
            let v = B::load(block, 0);
            let mut mask = v.eq(B::splat(bytes[0]));
            for &byte in &bytes[1..] {
                mask = mask.or(v.eq(B::splat(byte)));
            }
            mask.bits()
        }
    }

    /// `block[i] >= 0x80`.
    #[inline(always)]
    pub fn high(self, block: &[u8; 64]) -> u64 {
        // SAFETY: see `eq`.
        unsafe { B::load(block, 0).signs().bits() }
    }

    /// `block[i] >= byte` (unsigned).
    #[inline(always)]
    pub fn ge(self, block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: see `eq`.
        unsafe { B::load(block, 0).ge(B::splat(byte)).bits() }
    }

    /// UTF-8 continuation bytes: `0x80 <= block[i] <= 0xbf`.
    #[inline(always)]
    pub fn continuation(self, block: &[u8; 64]) -> u64 {
        // SAFETY: see `eq`. Signed, 0x80..=0xbf are -128..=-65: the bytes below 0xc0 (-64).
        unsafe { B::load(block, 0).lt_signed(B::splat(0xc0)).bits() }
    }

    /// Below 0x20, 0x7f, or above: the bytes `cat -v` shows in `^` or `M-` notation (and TAB
    /// and LF).
    #[inline(always)]
    pub fn control_or_high(self, block: &[u8; 64]) -> u64 {
        // SAFETY: see `eq`. Signed, 0x80..=0xff are negative: "below 0x20" takes both ends.
        unsafe {
            let v = B::load(block, 0);
            v.lt_signed(B::splat(0x20)).or(v.eq(B::splat(0x7f))).bits()
        }
    }

    /// ASCII controls: below 0x20, and 0x7f.
    #[inline(always)]
    pub fn controls(self, block: &[u8; 64]) -> u64 {
        // SAFETY: see `eq`.
        unsafe {
            let v = B::load(block, 0);
            v.le(B::splat(0x1f)).or(v.eq(B::splat(0x7f))).bits()
        }
    }

    /// ASCII white space (TAB, LF, VT, FF, CR, SPACE), or `extra` (a single-byte locale's
    /// no-break space: 0xA0 in Latin-1, 0x9A in KOI8-R).
    #[inline(always)]
    pub fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
        // SAFETY: see `eq`.
        unsafe {
            let v = B::load(block, 0);
            let space = if B::TABLE_LOOKUPS {
                // One look-up: each byte gets the one white-space byte with its low nibble.
                v.lookup_low_nibble(&SPACE_BY_LOW_NIBBLE).eq(v)
            } else {
                // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE.
                v.wrapping_sub(B::splat(9)).le(B::splat(4)).or(v.eq(B::splat(b' ')))
            };
            match extra {
                Some(byte) => space.or(v.eq(B::splat(byte))),
                None => space,
            }
            .bits()
        }
    }

    /// [`Utf8Ranges`] of the block. As signed bytes, 0x80..=0xff keep their order: each limit
    /// from 0x80 on is one signed compare, and-ed with the high bits (ASCII is positive).
    #[inline(always)]
    pub fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
        // SAFETY: see `eq`.
        unsafe {
            let v = B::load(block, 0);
            let high = v.signs().bits();
            Utf8Ranges {
                high,
                cont: v.lt_signed(B::splat(0xc0)).bits(),
                ge_c2: B::splat(0xc1).lt_signed(v).bits() & high,
                ge_e0: B::splat(0xdf).lt_signed(v).bits() & high,
                ge_f0: B::splat(0xef).lt_signed(v).bits() & high,
                ge_f5: B::splat(0xf4).lt_signed(v).bits() & high,
            }
        }
    }

    /// The length of the longest prefix of `buf` made of whole 64-byte blocks of ASCII.
    #[inline(always)]
    pub fn ascii_blocks(self, buf: &[u8]) -> usize {
        let mut n = 0;
        for block in buf.chunks_exact(64) {
            // SAFETY: see `eq`.
            if unsafe { B::load(block, 0).signs().any() } {
                break;
            }
            n += 64;
        }
        n
    }

    /// A count at zero.
    #[inline(always)]
    pub fn tally_new(self) -> Tally<B> {
        // SAFETY: see `eq`.
        Tally(unsafe { B::splat(0) })
    }

    /// `tally` plus the bytes of `block` equal to `byte` (the same byte each time).
    #[inline(always)]
    pub fn tally(self, tally: Tally<B>, block: &[u8; 64], byte: u8) -> Tally<B> {
        // SAFETY: see `eq`.
        Tally(unsafe { tally.0.count(B::load(block, 0).eq(B::splat(byte))) })
    }

    /// `tally` plus the continuation bytes of `block` (0x80..=0xbf; not with [`Self::tally`] in
    /// the same count).
    #[inline(always)]
    pub fn tally_continuation(self, tally: Tally<B>, block: &[u8; 64]) -> Tally<B> {
        // SAFETY: see `eq` and `continuation`.
        Tally(unsafe { tally.0.count(B::load(block, 0).lt_signed(B::splat(0xc0))) })
    }

    /// The count.
    #[inline(always)]
    pub fn tally_total(self, tally: Tally<B>) -> u64 {
        // SAFETY: see `eq`.
        unsafe { tally.0.sum() }
    }

    /// How many bytes of `buf` equal `byte`.
    #[inline(always)]
    pub fn count_byte(self, buf: &[u8], byte: u8) -> u64 {
        // SAFETY: see `eq`.
        unsafe { count_byte::<B>(buf, byte) }
    }

    /// Whether [`Self::lookup64`] of a whole block costs less than handling its bytes one by
    /// one: a vector look-up here; else a loop over 64 bytes, which pays only where the block
    /// holds many bytes that need one.
    #[inline(always)]
    pub fn lookups_pay(self) -> bool {
        B::TABLE_LOOKUPS
    }

    /// A 64-entry table look-up of each byte's low six bits: bit i of result `r` is set when
    /// `table[block[i] & 63] & select[r] != 0`.
    #[inline(always)]
    pub fn lookup64(self, block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
        // SAFETY: see `eq`.
        unsafe {
            let r = B::load(block, 0).lookup64(table);
            [r.test(select[0]), r.test(select[1]), r.test(select[2])]
        }
    }

    /// Where byte patterns begin in a 64-byte block: bit i of result `r` is set when a pattern
    /// among `select[r]` matches at `window[i..]` (`window` holds the block and its next two
    /// bytes). See [`NibblePatterns`].
    #[inline(always)]
    pub fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        // SAFETY: see `eq`.
        unsafe {
            let hits = pattern_hits::<B>(window, patterns);
            // (No closure: it would not inherit the caller's target features.)
            [hits.test(select[0]), hits.test(select[1]), hits.test(select[2])]
        }
    }

    /// Where any pattern begins, and where pattern bit 7 does: [`Self::pattern_starts`] with
    /// the selections 0xff and 0x80, which need no selection mask (the bytes not zero and their
    /// sign bits).
    #[inline(always)]
    pub fn pattern_starts_top(self, window: &[u8; 66], patterns: &NibblePatterns) -> [u64; 2] {
        // SAFETY: see `eq`.
        unsafe {
            let hits = pattern_hits::<B>(window, patterns);
            [hits.test(0xff), hits.signs().bits()]
        }
    }

    /// Whether a byte of `block` may begin one of the patterns (its first byte is allowed: the
    /// one position's look-ups of [`Self::pattern_starts`]).
    #[inline(always)]
    pub fn may_start(self, block: &[u8; 64], patterns: &NibblePatterns) -> bool {
        // SAFETY: see `eq`.
        unsafe {
            let v = B::load(block, 0);
            v.low_nibbles().lookup16(&patterns.lo[0]).and(v.high_nibbles().lookup16(&patterns.hi[0])).any()
        }
    }

    /// Whether the UTF-8 validator of Keiser and Lemire (the "lookup" algorithm of simdjson and
    /// simdutf) finds an error in the 64-byte block at `window[3..]`, given the three bytes
    /// before it in `window[..3]`: a byte that cannot follow the byte before it (a missing or
    /// stray continuation byte, an overlong form, a surrogate, past U+10FFFF) or a continuation
    /// byte missing two or three places after a lead. A character that begins in the block and
    /// is cut off by its end is caught by the next block's check.
    #[inline(always)]
    pub fn utf8_errors(self, window: &[u8; 67]) -> bool {
        if !B::TABLE_LOOKUPS {
            return self.utf8_error_mask(window) != 0;
        }
        // SAFETY: see `eq`.
        unsafe { utf8_error_bytes::<B>(window).any() }
    }

    /// Where valid UTF-8 characters of two, three and four bytes begin in `window[..64]` (its
    /// next three bytes follow it), by the Unicode rules GNU 9.12 decodes by: a lead with the
    /// continuation bytes it wants, no overlong form, no surrogate, nothing past U+10FFFF. By
    /// nibble look-ups ([`super::utf8_start_patterns`]) where the set has vector look-ups, by
    /// compares of each range otherwise.
    #[inline(always)]
    pub fn utf8_starts(self, window: &[u8; 67]) -> [u64; 3] {
        let at = |k: usize| -> &[u8; 64] { window[k..k + 64].try_into().unwrap() };
        let c3 = self.continuation(at(3));
        if B::TABLE_LOOKUPS {
            let (patterns, four) = (super::utf8_start_patterns(), super::UTF8_FOUR_BYTE);
            let [two, three, four] =
                self.pattern_starts(window[..66].try_into().unwrap(), patterns, [0b0000_0011, 0b0001_1100, four]);
            return [two, three, four & c3];
        }
        // The continuation bytes one, two and three places on: the block's own, shifted, and
        // the three bytes after it.
        let r = self.utf8_ranges(at(0));
        let after: u64 = (0..3).map(|k| u64::from((0x80..0xc0).contains(&window[64 + k])) << k).sum();
        let cont = |n: u32| (r.cont >> n) | (after << (64 - n));
        let [lead2, lead3, lead4] = r.leads();
        let (c1, c2) = (cont(1), cont(2));
        let (three, four) = (lead3 & c1 & c2, lead4 & c1 & c2 & cont(3));
        let limited = self.eq_any(at(0), LIMITED_LEADS) & (three | four);
        let broken = if limited != 0 { second_byte_errors(window, 0, limited) } else { 0 };
        [lead2 & c1, three & !broken, four & !broken]
    }

    /// The bytes of `window[3..]` that [`Self::utf8_errors`] finds in error, found by compares
    /// (for a set whose table look-ups go a byte at a time): the same errors as the look-ups'
    /// (`utf8_tables::error_at`), term by term. After a lead (C0 and up) a byte that is not a
    /// continuation byte; after ASCII a continuation byte; a continuation byte after one unless
    /// it is two places after E0.. or three after F0.. (and none there); after C0 or C1, or
    /// F5 and up, any continuation byte; the second-byte limits of E0, ED, F0 and F4.
    #[inline(always)]
    fn utf8_error_mask(self, window: &[u8; 67]) -> u64 {
        // The ranges of the bytes before each byte (`window[2 + i]` before `window[3 + i]`):
        // those of the bytes themselves, and of the bytes two and three places before, are
        // these shifted.
        let p1 = self.utf8_ranges(window[2..66].try_into().unwrap());
        let cont = (p1.cont >> 1) | u64::from((0x80..0xc0).contains(&window[66])) << 63;
        let lead = p1.high & !p1.cont;
        let must = (p1.ge_e0 << 1 | u64::from(window[1] >= 0xe0))
            | (p1.ge_f0 << 2 | u64::from(window[0] >= 0xf0) | u64::from(window[1] >= 0xf0) << 1);
        let errors = (lead & !cont)
            | (!p1.high & cont)
            | ((p1.cont & cont) ^ must)
            | (lead & !p1.ge_c2 & cont)
            | (p1.ge_f5 & cont);
        let limited = self.eq_any(window[2..66].try_into().unwrap(), LIMITED_LEADS) & cont;
        if limited != 0 {
            return errors | second_byte_errors(window, 2, limited);
        }
        errors
    }

    /// The continuation bytes of the whole 64-byte blocks of `bytes[3..]` (at most
    /// [`UTF8_BLOCKS_MAX`] of them), or None when [`Self::utf8_errors`] finds an error in any
    /// of them (each checked with the three bytes before it). The blocks' errors are or-ed into
    /// one register and looked at once, after the last: no branch a block, and nothing in the
    /// loop but the checks and the tally, which stays in registers (checked block by block,
    /// AVX2 spilled the tally to the stack and reloaded it every block, measured slower). The
    /// errors and the tally each take one register where a block is two (AVX2): the two freed
    /// registers keep the constants that the loop otherwise loaded and broadcast again every
    /// block, measured faster on every input tried (benches/RESULTS.md, "Figures behind code
    /// comments"). Where the CPU has AVX-512 VBMI, the AVX-512 kernel has a loop of its own
    /// with fewer instructions (`x86_64/utf8.rs`).
    #[inline(always)]
    pub fn utf8_continuation(self, bytes: &[u8]) -> Option<u64> {
        debug_assert!(bytes.len() <= 64 * UTF8_BLOCKS_MAX + 3);
        if self.vbmi {
            // SAFETY: see `eq`; `vbmi` says the CPU has VBMI and VBMI2 (see `new`).
            if let Some(answer) = unsafe { B::utf8_continuation_vbmi(bytes) } {
                return answer;
            }
        }
        if !B::TABLE_LOOKUPS {
            let (mut errors, mut tally) = (0, self.tally_new());
            for at in (0..bytes.len().saturating_sub(66)).step_by(64) {
                errors |= self.utf8_error_mask(bytes[at..at + 67].try_into().unwrap());
                tally = self.tally_continuation(tally, bytes[at + 3..at + 67].try_into().unwrap());
            }
            return (errors == 0).then(|| self.tally_total(tally));
        }
        // SAFETY: see `eq`; each block's loads are of its 67-byte window.
        unsafe {
            let mut errors = B::splat(0);
            let mut tally = B::splat(0);
            // Windows, not an index: no bound is checked in the loop (an index was checked
            // every block, and three loads each from `bytes` were checked before that).
            for (k, window) in bytes.windows(67).step_by(64).enumerate() {
                prefetch_ahead(bytes, 64 * k);
                let window: &[u8; 67] = window.try_into().unwrap();
                errors = errors.or_into_first(utf8_error_bytes::<B>(window));
                tally = tally.count_into_first(B::load(window, 3).lt_signed(B::splat(0xc0)));
            }
            (!errors.any()).then(|| tally.sum())
        }
    }

    /// [`Self::utf8_continuation`] of text whose characters are all of one or three bytes
    /// (Chinese, Japanese, Korean, Indic scripts, Thai), by a check of those forms alone with
    /// no table look-ups: Some (the same answer) where it finds them valid, None where it
    /// cannot tell (a form of two or four bytes, an error) or the set has no such check (only
    /// AVX2 has one; AVX-512 VBMI's full check costs less).
    #[inline(always)]
    pub fn utf8_continuation_three(self, bytes: &[u8]) -> Option<u64> {
        debug_assert!(bytes.len() <= 64 * UTF8_BLOCKS_MAX + 3);
        // SAFETY: see `eq`.
        unsafe { B::utf8_continuation_three(bytes) }
    }

    /// Whether a byte of the whole 64-byte blocks of `bytes` is above 0x7f: the blocks or-ed
    /// into one register, looked at once, two instructions a block (a bit for each block,
    /// [`Self::high_blocks`], costs three more).
    #[inline(always)]
    pub fn any_high(self, bytes: &[u8]) -> bool {
        // SAFETY: see `eq`; each load is of its 64-byte block.
        unsafe {
            let mut high = B::splat(0);
            for (k, block) in bytes.chunks_exact(64).enumerate() {
                prefetch_ahead(bytes, 64 * k);
                high = high.or_into_first(B::load(block, 0));
            }
            high.signs().any()
        }
    }

    /// Bit k set where block k of `bytes[3..]` (whole blocks, at most [`UTF8_SPARSE_BLOCKS_MAX`])
    /// holds a byte above 0x7f: what [`Self::utf8_continuation_sparse`] checks.
    #[inline(always)]
    pub fn high_blocks(self, bytes: &[u8]) -> u64 {
        let blocks = bytes.len().saturating_sub(3) / 64;
        assert!(blocks <= UTF8_SPARSE_BLOCKS_MAX);
        // Shifted in from the bottom, then reversed: one instruction fewer a block than `<< k`.
        let mut high = 0u64;
        for (k, block) in bytes[3.min(bytes.len())..].chunks_exact(64).enumerate() {
            prefetch_ahead(bytes, 64 * k);
            // SAFETY: see `eq`.
            high = high << 1 | u64::from(unsafe { B::load(block, 0).signs().any() });
        }
        high.reverse_bits().checked_shr(64 - blocks as u32).unwrap_or(0)
    }

    /// [`Self::utf8_continuation`] of at most [`UTF8_SPARSE_BLOCKS_MAX`] blocks, for text whose
    /// bytes above 0x7f are few: only the blocks that hold one (`high`, their
    /// [`Self::high_blocks`]) are checked. A block of ASCII can be in error only at its first
    /// three bytes, where a character begun before it is cut: the three bytes before it tell (a
    /// lead at the last, a three- or four-byte lead at the one before, a four-byte lead two
    /// before), so they are looked at where they are not ASCII. The same answer as
    /// [`Self::utf8_continuation`], byte for byte. Also returns the `high_blocks` of `next`
    /// (the next batch, the same way cut), found between the checks: so the next batch comes
    /// from memory while this one is checked (found before them, the loads came in bursts and
    /// the checks left memory idle: `wc -m` of a mapped file measured much slower;
    /// benches/RESULTS.md, "Figures behind code comments"). ASCII costs one test a block, and
    /// the loops over the blocks checked leave once a batch (a branch a block would mispredict
    /// where ASCII and other blocks take turns at random).
    #[inline(always)]
    pub fn utf8_continuation_sparse(self, bytes: &[u8], high: u64, next: &[u8]) -> (Option<u64>, u64) {
        let blocks = bytes.len().saturating_sub(3) / 64;
        assert!(blocks <= UTF8_SPARSE_BLOCKS_MAX);
        let next_blocks = next.len().saturating_sub(3) / 64;
        assert!(next_blocks <= UTF8_SPARSE_BLOCKS_MAX);
        if blocks == 0 {
            return (Some(0), self.high_blocks(next));
        }
        // The blocks of ASCII after one that is not (or first in the batch).
        let mut edges = !high & (high << 1 | 1) & (u64::MAX >> (64 - blocks));
        let mut cut = false;
        while edges != 0 {
            let at = 64 * edges.trailing_zeros() as usize;
            edges &= edges - 1;
            cut |= utf8_cut_before(bytes, at);
        }
        let mut checks = SparseChecks::<B>::new();
        let mut todo = high;
        let mut next_high = 0u64;
        let mut next_blocks_left = next[3.min(next.len())..].chunks_exact(64).enumerate();
        let paired = (high.count_ones() as usize).min(next_blocks);
        for (k, block) in next_blocks_left.by_ref().take(paired) {
            prefetch_ahead(next, 64 * k + 2048);
            // SAFETY: see `eq`.
            next_high = next_high << 1 | u64::from(unsafe { B::load(block, 0).signs().any() });
            let at = 64 * todo.trailing_zeros() as usize;
            todo &= todo - 1;
            checks.check(self, bytes[at..at + 67].try_into().unwrap());
        }
        for (k, block) in next_blocks_left {
            prefetch_ahead(next, 64 * k + 2048);
            // SAFETY: see `eq`.
            next_high = next_high << 1 | u64::from(unsafe { B::load(block, 0).signs().any() });
        }
        while todo != 0 {
            let at = 64 * todo.trailing_zeros() as usize;
            todo &= todo - 1;
            checks.check(self, bytes[at..at + 67].try_into().unwrap());
        }
        let next_high = next_high.reverse_bits().checked_shr(64 - next_blocks as u32).unwrap_or(0);
        (checks.continuation(cut), next_high)
    }

    /// `cat -v` notation of one 64-byte block (TAB as `^I` with `tabs`, LF as `$` LF with
    /// `ends`, else both as they are) at the start of `out`; returns the bytes written (at most
    /// 256; bytes past them may be overwritten). Every byte costs the same, however many need
    /// notation: for blocks where most do (binary data, text in a script other than Latin),
    /// which a loop per byte to notate takes dear. None where the set has no such kernel: the
    /// caller maps bytes itself.
    #[inline(always)]
    pub fn notation_block(self, block: &[u8; 64], tabs: bool, ends: bool, out: &mut [u8; 256]) -> Option<usize> {
        // SAFETY: see `eq`.
        unsafe { B::notation_block(block, tabs, ends, out) }
    }

    /// `cat -v` notation of the whole 64-byte blocks of `input` (TAB as `^I` with `tabs`, LF as
    /// `$` LF with `ends`, else both as they are), written from the start of `out` while it has
    /// room for a block's worst case; returns the input bytes done and the output bytes
    /// written. None where the instruction set has no such kernel or the CPU lacks its
    /// extensions (AVX-512 VBMI2): the caller maps bytes itself.
    #[inline(always)]
    pub fn notation_blocks(self, input: &[u8], tabs: bool, ends: bool, out: &mut [u8]) -> Option<(usize, usize)> {
        if !self.vbmi {
            return None;
        }
        // SAFETY: see `eq`; `vbmi` says the CPU has the kernel's extensions (see `new`).
        unsafe { B::notation_blocks(input, tabs, ends, out) }
    }
}

/// Whether ASCII at `bytes[at + 3]` cuts a character begun in the three bytes before it (a
/// lead at the last, a three- or four-byte lead at the one before, a four-byte lead two
/// before): the one error a block of ASCII can hold.
#[inline(always)]
pub fn utf8_cut_before(bytes: &[u8], at: usize) -> bool {
    (bytes[at + 2] >= 0xc0) | (bytes[at + 1] >= 0xe0) | (bytes[at] >= 0xf0)
}

/// The errors and continuation bytes of the blocks [`Masks::utf8_continuation_sparse`] checks,
/// in registers (errors from table look-ups, or as masks where the set has none).
struct SparseChecks<B> {
    errors: B,
    error_mask: u64,
    tally: B,
}

impl<B: Block64> SparseChecks<B> {
    #[inline(always)]
    fn new() -> SparseChecks<B> {
        // SAFETY: the caller holds a `Masks<B>` (see `Masks::eq`).
        unsafe { SparseChecks { errors: B::splat(0), error_mask: 0, tally: B::splat(0) } }
    }

    /// Checks the block at `window[3..]`, with the three bytes before it, and tallies its
    /// continuation bytes (two a block at most in a byte counter: 64 blocks fit).
    #[inline(always)]
    fn check(&mut self, m: Masks<B>, window: &[u8; 67]) {
        // SAFETY: see `Masks::eq`; the loads are of the window's bytes.
        unsafe {
            if B::TABLE_LOOKUPS {
                self.errors = self.errors.or_into_first(utf8_error_bytes::<B>(window));
            } else {
                self.error_mask |= m.utf8_error_mask(window);
            }
            self.tally = self.tally.count_into_first(B::load(window, 3).lt_signed(B::splat(0xc0)));
        }
    }

    /// The continuation bytes tallied, or None where a check (or `cut`) found an error.
    #[inline(always)]
    fn continuation(self, cut: bool) -> Option<u64> {
        // SAFETY: see `Masks::eq`.
        unsafe { (!cut && self.error_mask == 0 && !self.errors.any()).then(|| self.tally.sum()) }
    }
}

/// Keiser and Lemire's check of the 64-byte block at `window[3..]`, with the three bytes
/// before it: not zero where a byte is in error (see [`Masks::utf8_errors`]).
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
unsafe fn utf8_error_bytes<B: Block64>(window: &[u8; 67]) -> B {
    // SAFETY: the caller's guarantee; the loads are of the window's bytes (offsets 0..=3), which
    // `load` checks (at compile time: the window's length is known).
    unsafe {
        let input = B::load(window, 3);
        let prev1 = B::load(window, 2);
        let special = prev1
            .high_nibbles()
            .lookup16(&BYTE_1_HIGH)
            .and(prev1.low_nibbles().lookup16(&BYTE_1_LOW))
            .and(input.high_nibbles().lookup16(&BYTE_2_HIGH));
        // A continuation byte is a must two places after a three- or four-byte lead (E0 and
        // up), and three places after a four-byte one (F0 and up): there the byte plus 0x1f, or
        // plus 0x0f, saturates to 0xff, elsewhere it stays below, so the larger less 0xfe is 1
        // (the "two continuations" bit) or 0. (Adds where subtractions stood: an add takes its
        // byte straight from memory, so the bytes two and three before need no load of their
        // own; four instructions where there were six.)
        let third = B::load(window, 1).saturating_add(B::splat(0x1f));
        let fourth = B::load(window, 0).saturating_add(B::splat(0x0f));
        let must = third.max(fourth).saturating_sub(B::splat(0xfe));
        special.xor(must)
    }
}

/// The UTF-8 leads that limit their second byte more than to a continuation byte.
const LIMITED_LEADS: [u8; 4] = [0xe0, 0xed, 0xf0, 0xf4];

/// Of `leads` (bit i: `window[from + i]` is one of [`LIMITED_LEADS`], a continuation byte
/// after it), those whose second byte breaks the lead's limit: an overlong form (E0, F0), a
/// surrogate (ED), past U+10FFFF (F4). One at a time, out of the callers' loops: such leads are
/// rare in most text, and inlined, this loop cost SSE2 `wc -m` of Chinese 10 % more
/// instructions.
#[inline(never)]
fn second_byte_errors(window: &[u8; 67], from: usize, mut leads: u64) -> u64 {
    let mut errors = 0;
    while leads != 0 {
        let i = leads.trailing_zeros() as usize;
        leads &= leads - 1;
        let ok = match (window[from + i], window[from + i + 1]) {
            (0xe0, byte) => byte >= 0xa0,
            (0xed, byte) => byte < 0xa0,
            (0xf0, byte) => byte >= 0x90,
            (_, byte) => byte < 0x90,
        };
        errors |= u64::from(!ok) << i;
    }
    errors
}

/// The patterns that begin at each byte: the three positions' nibble look-ups and-ed together
/// (a pattern's bit survives where all three bytes allow it).
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
unsafe fn pattern_hits<B: Block64>(window: &[u8; 66], patterns: &NibblePatterns) -> B {
    // SAFETY: the caller's guarantee; the loads are of bytes 0..=65 of the window (offsets
    // 0..=2, 64 bytes each).
    unsafe {
        let mut hits = B::splat(0xff);
        for j in 0..3 {
            let v = B::load(window, j);
            let lo = v.low_nibbles().lookup16(&patterns.lo[j]);
            let hi = v.high_nibbles().lookup16(&patterns.hi[j]);
            hits = hits.and(lo).and(hi);
        }
        hits
    }
}

/// The bytes of `buf` equal to `byte`: the compares of each pair of blocks counted in byte
/// lanes, summed before any lane could wrap (two a pair, 127 pairs).
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
unsafe fn count_byte<B: Block64>(buf: &[u8], byte: u8) -> u64 {
    // SAFETY: the caller's guarantee; each load is of 64 bytes inside its pair or block.
    unsafe {
        let needle = B::splat(byte);
        let mut pairs = buf.chunks_exact(128);
        let mut total = 0;
        loop {
            let mut lanes = B::splat(0);
            let mut n = 0;
            for pair in pairs.by_ref().take(127) {
                // A mapped file comes from memory: ask for it ahead (see `prefetch_ahead`).
                prefetch_ahead(pair, 0);
                prefetch_ahead(pair, 64);
                lanes = lanes.count(B::load(pair, 0).eq(needle)).count(B::load(pair, 64).eq(needle));
                n += 1;
            }
            total += lanes.sum();
            if n < 127 {
                break;
            }
        }
        let mut rest = pairs.remainder();
        if rest.len() >= 64 {
            total += B::splat(0).count(B::load(rest, 0).eq(needle)).sum();
            rest = &rest[64..];
        }
        total + rest.iter().filter(|&&b| b == byte).count() as u64
    }
}
