//! [`Masks`], the block masks of `wc`'s and `cat`'s loops, written once over [`Block64`]'s primitives: bytes equal to
//! one, above one or in a class (controls, ASCII white space), tallies of them, and 64-entry table look-ups.

use super::{Block64, Families, Mask, prefetch};
use crate::platform::Changing;
use crate::platform::cpu::Features;
use std::marker::PhantomData;

/// The most blocks one [`Tally`] may count (a byte counter per lane).
pub const TALLY_MAX: usize = 255;

/// For each low nibble, the ASCII white-space byte that has it, or a byte with another nibble.
const SPACE_BY_LOW_NIBBLE: [u8; 16] =
    [b' ', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, b'\t', b'\n', 0x0b, 0x0c, b'\r', 0xff, 0];

/// The block masks in `B`'s instruction set, bit i for `block[i]`. Only [`super::with_masks`]
/// makes one, once it has checked the CPU: holding one proves that `B`'s instructions run.
#[derive(Clone, Copy)]
pub struct Masks<B> {
    /// The CPU's features, which choose the families' kernels ([`Self::families`]).
    features: Features,
    block: PhantomData<B>,
}

/// A count of the bytes a compare found in up to [`TALLY_MAX`] blocks, in vector registers.
#[derive(Clone, Copy)]
pub struct Tally<B>(B);

impl<B: Block64> Masks<B> {
    /// # Safety
    /// The CPU has `B`'s set and every feature in `features`; what uses the masks is compiled for `B`'s set.
    #[inline(always)]
    pub(super) unsafe fn new(features: Features) -> Masks<B> {
        Masks { features, block: PhantomData }
    }

    /// Each family's kernel with these masks, known at compile time where `B` alone decides.
    #[inline(always)]
    pub fn families(self) -> Families {
        Families::of(B::KERNEL, self.features)
    }

    /// `block[i] == byte`.
    #[inline(always)]
    pub fn eq(self, block: Changing<'_, [u8; 64]>, byte: u8) -> u64 {
        let block = block.read_each_once();
        // SAFETY: a `Masks<B>` proves the CPU has B's set (see `Masks`); the methods below say so by "see `eq`".
        unsafe { B::load(block, 0).eq(B::splat(byte)).bits() }
    }

    /// `block[i]` is one of `bytes` (one bit mask of all the compares).
    #[inline(always)]
    pub fn eq_any<const N: usize>(self, block: Changing<'_, [u8; 64]>, bytes: [u8; N]) -> u64 {
        let block = block.read_each_once();
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
    pub fn high(self, block: Changing<'_, [u8; 64]>) -> u64 {
        let block = block.read_each_once();
        // SAFETY: see `eq`.
        unsafe { B::load(block, 0).signs().bits() }
    }

    /// `block[i] >= byte` (unsigned).
    #[inline(always)]
    pub fn ge(self, block: Changing<'_, [u8; 64]>, byte: u8) -> u64 {
        let block = block.read_each_once();
        // SAFETY: see `eq`.
        unsafe { B::load(block, 0).ge(B::splat(byte)).bits() }
    }

    /// UTF-8 continuation bytes: `0x80 <= block[i] <= 0xbf`.
    #[inline(always)]
    pub fn continuation(self, block: Changing<'_, [u8; 64]>) -> u64 {
        let block = block.read_each_once();
        // SAFETY: see `eq`. Signed, 0x80..=0xbf are -128..=-65: the bytes below 0xc0 (-64).
        unsafe { B::load(block, 0).lt_signed(B::splat(0xc0)).bits() }
    }

    /// Below 0x20, 0x7f and above: the bytes `cat -v` shows as `^` or `M-` (and TAB and LF).
    #[inline(always)]
    pub fn control_or_high(self, block: Changing<'_, [u8; 64]>) -> u64 {
        let block = block.read_each_once();
        // SAFETY: see `eq`. Signed, 0x80..=0xff are negative: "below 0x20" takes both ends.
        unsafe {
            let v = B::load(block, 0);
            v.lt_signed(B::splat(0x20)).or(v.eq(B::splat(0x7f))).bits()
        }
    }

    /// ASCII controls: below 0x20, and 0x7f.
    #[inline(always)]
    pub fn controls(self, block: Changing<'_, [u8; 64]>) -> u64 {
        let block = block.read_each_once();
        // SAFETY: see `eq`.
        unsafe {
            let v = B::load(block, 0);
            v.le(B::splat(0x1f)).or(v.eq(B::splat(0x7f))).bits()
        }
    }

    /// ASCII white space (TAB, LF, VT, FF, CR, SPACE) or `extra`, a single-byte locale's no-break space (as 0xA0).
    #[inline(always)]
    pub fn ascii_space(self, block: Changing<'_, [u8; 64]>, extra: Option<u8>) -> u64 {
        let block = block.read_each_once();
        // SAFETY: see `eq`.
        unsafe {
            let v = B::load(block, 0);
            let space = if B::KERNEL.table_lookups() {
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

    /// The length of the longest prefix of `buf` made of whole 64-byte blocks of ASCII.
    #[inline(always)]
    pub fn ascii_blocks(self, buf: Changing<'_>) -> usize {
        let buf = buf.read_each_once();
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

    #[inline(always)]
    pub fn tally_new(self) -> Tally<B> {
        // SAFETY: see `eq`.
        Tally(unsafe { B::splat(0) })
    }

    /// `tally` plus the bytes of `block` equal to `byte` (the same byte each time).
    #[inline(always)]
    pub fn tally(self, tally: Tally<B>, block: Changing<'_, [u8; 64]>, byte: u8) -> Tally<B> {
        let block = block.read_each_once();
        // SAFETY: see `eq`.
        Tally(unsafe { tally.0.count(B::load(block, 0).eq(B::splat(byte))) })
    }

    /// `tally` plus the continuation bytes of `block` (not mixed with [`Self::tally`] in a count).
    #[inline(always)]
    pub fn tally_continuation(self, tally: Tally<B>, block: Changing<'_, [u8; 64]>) -> Tally<B> {
        let block = block.read_each_once();
        // SAFETY: see `eq` and `continuation`.
        Tally(unsafe { tally.0.count(B::load(block, 0).lt_signed(B::splat(0xc0))) })
    }

    #[inline(always)]
    pub fn tally_total(self, tally: Tally<B>) -> u64 {
        // SAFETY: see `eq`.
        unsafe { tally.0.sum() }
    }

    #[inline(always)]
    pub fn count_byte(self, buf: Changing<'_>, byte: u8) -> u64 {
        let buf = buf.read_each_once();
        // SAFETY: see `eq`.
        unsafe { count_byte::<B>(buf, byte) }
    }

    /// Whether [`Self::lookup64`] of a block costs less than its bytes one by one: where it is a
    /// vector look-up. A loop over 64 bytes pays only where many of them need a look-up.
    #[inline(always)]
    pub fn lookups_pay(self) -> bool {
        B::KERNEL.table_lookups()
    }

    /// Bit i of result `r` is `table[block[i] & 63] & select[r] != 0`: a look-up of each byte's low six bits.
    #[inline(always)]
    pub fn lookup64(self, block: Changing<'_, [u8; 64]>, table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
        let block = block.read_each_once();
        // SAFETY: see `eq`.
        unsafe {
            let r = B::load(block, 0).lookup64(table);
            [r.test(select[0]), r.test(select[1]), r.test(select[2])]
        }
    }
}

/// How many bytes of `buf` are `byte`: byte lanes count a pair of blocks at a time, summed before one could wrap.
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
                prefetch(pair, 0);
                prefetch(pair, 64);
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
