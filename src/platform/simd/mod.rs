//! SIMD building blocks with one portable signature each: an SSE2 version on x86-64 and a NEON
//! version on aarch64 (each part of its architecture's baseline, so no run-time detection is
//! needed), and a SWAR version everywhere else and with the `portable` feature. The byte counter behind `wc -l` also has
//! AVX2 and AVX-512 versions, and the 64-byte block masks of wc's and cat's loops
//! ([`BlockMasks`]) AVX2 and AVX-512 ones, whose loops are compiled for that instruction set
//! ([`with_masks`]); which is chosen at run time by what the CPU has ([`Kernel::best`]).

//!
//! One file per instruction set: `x86_64/` (`sse2.rs`, the baseline; `avx2.rs`; `avx512.rs`;
//! `notation.rs`, cat's VBMI2 kernel), `aarch64.rs` (NEON, the baseline there) and `swar.rs`
//! (everything else, and the `portable` build). Exactly one of them is `imp`, the baseline this
//! build compiles in; `absent.rs` stands in for the kernels a build lacks. The run-time choice
//! among them is [`Kernel::best`], from the one feature source, [`super::cpu::features`].

use std::sync::OnceLock;

mod absent;
#[cfg(any(
    all(target_arch = "x86_64", not(feature = "portable")),
    all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))
))]
mod generic;
#[cfg(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable")))]
#[path = "aarch64.rs"]
mod imp;
#[cfg(not(any(
    all(target_arch = "x86_64", not(feature = "portable")),
    all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))
)))]
#[path = "swar.rs"]
mod imp;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
#[path = "x86_64/mod.rs"]
mod imp;
#[cfg(test)]
mod tests;

/// An instruction set a kernel is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust, 8 bytes at a time (SWAR): every machine.
    Portable,
    /// aarch64's baseline.
    Neon,
    Sse2,
    Avx2,
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first.
    pub const ALL: [Kernel; 5] = [Kernel::Portable, Kernel::Neon, Kernel::Sse2, Kernel::Avx2, Kernel::Avx512];

    /// The name `wc --debug` prints (GNU's names for the same instruction sets).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Neon => "neon",
            Kernel::Sse2 => "sse2",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this build has the kernel (whether or not this CPU can run it).
    pub fn in_build(self) -> bool {
        match self {
            Kernel::Portable => true,
            Kernel::Neon => imp::HAS_NEON,
            Kernel::Sse2 | Kernel::Avx2 | Kernel::Avx512 => imp::HAS_X86_KERNELS,
        }
    }

    /// Whether this build has the kernel and this CPU can run it.
    pub fn is_available(self) -> bool {
        let features = super::cpu::features();
        match self {
            Kernel::Portable => true,
            // NEON is aarch64's baseline (the masks use it regardless), but the line counter
            // is the kernel `GLIBC_TUNABLES=glibc.cpu.hwcaps=-ASIMD` turns off, as GNU's does.
            Kernel::Neon => imp::HAS_NEON && features.neon,
            Kernel::Sse2 => imp::HAS_X86_KERNELS && features.sse2,
            // The AVX2 and AVX-512 contexts are also compiled for BMI2 and POPCNT (which every
            // CPU with AVX2 known to us has; a CPU without them gets the SSE2 kernel).
            Kernel::Avx2 => Self::avx2_context(features) && !features.avx2_disabled,
            // Compiled for AVX2 too: the CPU must have it, even where GLIBC_TUNABLES turned the
            // AVX2 kernel off (GNU's wc then still uses AVX-512, and so do we).
            Kernel::Avx512 => Self::avx2_context(features) && features.avx512bw && !features.avx512_disabled,
        }
    }

    fn avx2_context(features: super::cpu::Features) -> bool {
        imp::HAS_X86_KERNELS && features.avx2 && features.bmi2 && features.popcnt
    }

    /// What GNU 9.12's `wc --debug` says it checked for line counting, as (feature, used):
    /// on x86-64 AVX-512, then (when not used) AVX2; on aarch64 NEON; elsewhere nothing. Said
    /// of the kernel in use, so `GLIBC_TUNABLES` and `RAPIDUTILS_SIMD` are reflected.
    pub fn gnu_debug_report(self) -> &'static [(&'static str, bool)] {
        if cfg!(target_arch = "x86_64") {
            match self {
                Kernel::Avx512 => &[("avx512", true)],
                Kernel::Avx2 => &[("avx512", false), ("avx2", true)],
                _ => &[("avx512", false), ("avx2", false)],
            }
        } else if cfg!(target_arch = "aarch64") {
            if self == Kernel::Neon { &[("neon", true)] } else { &[("neon", false)] }
        } else {
            &[]
        }
    }

    /// The fastest kernel this CPU runs, decided once. `RAPIDUTILS_SIMD=portable|neon|sse2|avx2|avx512`
    /// picks a slower one instead (for tests and comparisons; a kernel the CPU lacks is ignored).
    pub fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            let fastest = *Kernel::ALL.iter().rev().find(|k| k.is_available()).unwrap_or(&Kernel::Portable);
            let wanted = std::env::var_os("RAPIDUTILS_SIMD");
            match Kernel::ALL.iter().find(|k| wanted.as_deref() == Some(std::ffi::OsStr::new(k.name()))) {
                Some(&k) if k.is_available() => k,
                _ => fastest,
            }
        })
    }
}

/// Bit i of the result is set when `block[i] == byte`.
#[inline]
pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
    imp::eq_mask64(block, byte)
}

/// Bit i of the result is set when `block[i]` is below 0x20, 0x7f, or above: the bytes
/// `cat -v` shows in `^` or `M-` notation (and TAB and LF).
#[inline]
pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
    imp::control_or_high_mask64(block)
}

/// Bit i of the result is set when `block[i]` is ASCII white space (TAB, LF, VT, FF, CR, SPACE),
/// or `extra` (a single-byte locale's no-break space: 0xA0 in Latin-1, 0x9A in KOI8-R).
#[inline]
pub fn ascii_space_mask64(block: &[u8; 64], extra: Option<u8>) -> u64 {
    let mask = imp::ascii_space_mask64(block);
    match extra {
        Some(byte) => mask | eq_mask64(block, byte),
        None => mask,
    }
}

/// The bytes of a 64-byte block by their part in UTF-8: bit i of each mask is set when
/// `block[i]` is in that range. All ranges but `high` lie above 0x7f.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utf8Ranges {
    /// 0x80 and above.
    pub high: u64,
    /// 0x80..=0xbf, continuation bytes.
    pub cont: u64,
    /// 0xc2 and above (lead bytes and invalid bytes).
    pub ge_c2: u64,
    /// 0xe0 and above.
    pub ge_e0: u64,
    /// 0xf0 and above.
    pub ge_f0: u64,
    /// 0xf5 and above (never in UTF-8).
    pub ge_f5: u64,
}

/// The length of the longest prefix of `buf` made of whole 64-byte blocks of ASCII.
#[inline]
pub fn ascii_blocks(buf: &[u8]) -> usize {
    imp::ascii_blocks(buf)
}

impl Utf8Ranges {
    /// The lead bytes of two-, three- and four-byte characters (C2..=DF, E0..=EF, F0..=F4).
    #[inline(always)]
    pub fn leads(&self) -> [u64; 3] {
        [self.ge_c2 & !self.ge_e0, self.ge_e0 & !self.ge_f0, self.ge_f0 & !self.ge_f5]
    }

    /// The leads whose characters would reach past the block's end.
    #[inline(always)]
    pub fn crossing_leads(&self) -> u64 {
        let [lead2, lead3, lead4] = self.leads();
        (lead2 & 1 << 63) | (lead3 & 3 << 62) | (lead4 & 7 << 61)
    }
}

/// [`Utf8Ranges`] of a block.
#[inline]
pub fn utf8_ranges64(block: &[u8; 64]) -> Utf8Ranges {
    imp::utf8_ranges64(block)
}

/// The masks of a 64-byte block that the wc block paths use, in one instruction set: bit i of
/// each result stands for `block[i]`.
pub trait BlockMasks: Copy {
    /// `block[i] == byte`.
    fn eq(self, block: &[u8; 64], byte: u8) -> u64;
    /// `block[i] >= 0x80`.
    fn high(self, block: &[u8; 64]) -> u64;
    /// `block[i] >= byte` (unsigned).
    #[inline(always)]
    fn ge(self, block: &[u8; 64], byte: u8) -> u64 {
        imp::ge_mask64(block, byte)
    }
    /// UTF-8 continuation bytes: `0x80 <= block[i] <= 0xbf`.
    #[inline(always)]
    fn continuation(self, block: &[u8; 64]) -> u64 {
        self.utf8_ranges(block).cont
    }
    /// Below 0x20, 0x7f, or above (see [`control_or_high_mask64`]).
    fn control_or_high(self, block: &[u8; 64]) -> u64;
    /// ASCII controls: below 0x20, and 0x7f.
    fn controls(self, block: &[u8; 64]) -> u64 {
        self.control_or_high(block) & !self.high(block)
    }
    /// ASCII white space, and `extra` (see [`ascii_space_mask64`]).
    fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64;
    /// [`Utf8Ranges`] of the block.
    fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges;
    /// See [`ascii_blocks`].
    fn ascii_blocks(self, buf: &[u8]) -> usize;
    /// A running count of the bytes equal to one value over up to [`TALLY_MAX`] blocks, kept
    /// in vector registers where the set has them: see [`Self::tally`].
    type Tally: Copy;
    /// A count at zero.
    fn tally_new(self) -> Self::Tally;
    /// `tally` plus the bytes of `block` equal to `byte` (the same byte each time).
    fn tally(self, tally: Self::Tally, block: &[u8; 64], byte: u8) -> Self::Tally;
    /// `tally` plus the continuation bytes of `block` (0x80..=0xbf; not with [`Self::tally`]
    /// in the same count).
    fn tally_continuation(self, tally: Self::Tally, block: &[u8; 64]) -> Self::Tally;
    /// The count.
    fn tally_total(self, tally: Self::Tally) -> u64;
    /// Whether the UTF-8 validator of Keiser and Lemire (the "lookup" algorithm of simdjson
    /// and simdutf) finds an error in the 64-byte block at `window[3..]`, given the three bytes
    /// before it in `window[..3]`: a byte that cannot follow the byte before it (a missing or
    /// stray continuation byte, an overlong form, a surrogate, past U+10FFFF) or a continuation
    /// byte missing two or three places after a lead. A character that begins in the block and
    /// is cut off by its end is caught by the next block's check. Instruction sets without
    /// table look-ups say `true` (unknown).
    #[inline(always)]
    fn utf8_errors(self, window: &[u8; 67]) -> bool {
        let _ = window;
        true
    }
    /// A 64-entry table look-up of each byte's low six bits: bit i of result `r` is set when
    /// `table[block[i] & 63] & select[r] != 0`.
    #[inline(always)]
    fn lookup64(self, block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
        imp::lookup64(block, table, select)
    }
    /// Whether [`Self::pattern_starts`] runs on vector table look-ups (AVX2, AVX-512, NEON);
    /// without them a caller may do better with a few compares of its own.
    const TABLE_LOOKUPS: bool = false;
    /// Where byte patterns begin in a 64-byte block: bit i of result `r` is set when a pattern
    /// among `select[r]` matches at `window[i..]` (`window` holds the block and its next two
    /// bytes). See [`NibblePatterns`].
    #[inline(always)]
    fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        scalar_pattern_starts(window, patterns, select)
    }
    /// Whether a byte of `block` may begin one of the patterns (its first byte is allowed:
    /// the one position's look-ups of [`Self::pattern_starts`]).
    #[inline(always)]
    fn may_start(self, block: &[u8; 64], patterns: &NibblePatterns) -> bool {
        scalar_may_start(block, patterns)
    }
    /// Where any pattern begins, and where pattern bit 7 does: [`Self::pattern_starts`] with
    /// the selections 0xff and 0x80, which vector sets answer without a selection mask.
    #[inline(always)]
    fn pattern_starts_top(self, window: &[u8; 66], patterns: &NibblePatterns) -> [u64; 2] {
        let [any, top, _] = self.pattern_starts(window, patterns, [0xff, 0x80, 0]);
        [any, top]
    }
}

/// Up to eight byte patterns of up to three bytes, as nibble look-up tables (the shuffle-based
/// classification of simdjson and simdutf): pattern k matches at i when, for each position j,
/// bit k is set in both `lo[j][b[i + j] & 15]` and `hi[j][b[i + j] >> 4]`. So the bytes a
/// pattern allows at a position are a set of high nibbles times a set of low nibbles (a set of
/// another shape takes several patterns), and a position past its length allows every byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NibblePatterns {
    pub lo: [[u8; 16]; 3],
    pub hi: [[u8; 16]; 3],
}

impl NibblePatterns {
    /// The patterns (bits) that match at the start of `bytes` (three bytes or more).
    #[inline(always)]
    pub fn at(&self, bytes: &[u8]) -> u8 {
        (0..3)
            .fold(0xff, |acc, j| acc & self.lo[j][usize::from(bytes[j] & 15)] & self.hi[j][usize::from(bytes[j] >> 4)])
    }

    /// Lets pattern `bit` (a single bit) take the bytes `highs` x `lows` (nibble sets as bit
    /// masks) at position `j`.
    pub fn allow(&mut self, bit: u8, j: usize, highs: u16, lows: u16) {
        for n in 0..16 {
            if highs >> n & 1 != 0 {
                self.hi[j][n] |= bit;
            }
            if lows >> n & 1 != 0 {
                self.lo[j][n] |= bit;
            }
        }
    }
}

/// The three 16-entry tables of the Keiser-Lemire UTF-8 validator (see
/// [`BlockMasks::utf8_errors`]): by the previous byte's high nibble, its low nibble, and the
/// byte's own high nibble; a byte pair is an error where all three share a bit (and that bit is
/// not bit 7, the "two continuations" bit, where a continuation byte is expected).
pub mod utf8_tables {
    const TOO_SHORT: u8 = 1 << 0;
    const TOO_LONG: u8 = 1 << 1;
    const OVERLONG_3: u8 = 1 << 2;
    const TOO_LARGE: u8 = 1 << 3;
    const SURROGATE: u8 = 1 << 4;
    const OVERLONG_2: u8 = 1 << 5;
    const TOO_LARGE_1000: u8 = 1 << 6;
    const OVERLONG_4: u8 = 1 << 6;
    const TWO_CONTS: u8 = 1 << 7;
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;
    pub const BYTE_1_HIGH: [u8; 16] = [
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ];
    pub const BYTE_1_LOW: [u8; 16] = [
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY,
        CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ];
    pub const BYTE_2_HIGH: [u8; 16] = [
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ];

    /// The validator one byte at a time: whether `byte` after `prev3`, `prev2`, `prev1` is
    /// an error (the reference of the vector versions).
    pub fn error_at(prev3: u8, prev2: u8, prev1: u8, byte: u8) -> bool {
        let special = BYTE_1_HIGH[usize::from(prev1 >> 4)]
            & BYTE_1_LOW[usize::from(prev1 & 15)]
            & BYTE_2_HIGH[usize::from(byte >> 4)];
        let must = if prev2 >= 0xe0 || prev3 >= 0xf0 { 0x80 } else { 0 };
        special ^ must != 0
    }
}

/// The starts of valid UTF-8 characters of two to four bytes as [`NibblePatterns`] (by the
/// Unicode rules GNU 9.12 decodes by: no overlong form, no surrogate, nothing past U+10FFFF),
/// the first three bytes of each form; the patterns in [`UTF8_FOUR_BYTE`] also need a
/// continuation byte in fourth place. ASCII is not among them.
pub fn utf8_start_patterns() -> &'static NibblePatterns {
    static PATTERNS: std::sync::OnceLock<NibblePatterns> = std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        const ALL: u16 = 0xffff;
        const CONT: u16 = 0x0f00; // high nibbles 8..=B
        let mut p = NibblePatterns::default();
        // (bit, lead: high nibbles x low nibbles, second byte's high nibbles, third byte's)
        let forms: [(u8, u16, u16, u16, u16); 8] = [
            (1 << 0, 1 << 0xc, 0xfffc, CONT, ALL),      // C2..=CF, any continuation
            (1 << 1, 1 << 0xd, ALL, CONT, ALL),         // D0..=DF
            (1 << 2, 1 << 0xe, 1 << 0, 0x0c00, CONT),   // E0, A0..=BF
            (1 << 3, 1 << 0xe, 0xdffe, CONT, CONT),     // E1..=EC, EE, EF
            (1 << 4, 1 << 0xe, 1 << 0xd, 0x0300, CONT), // ED, 80..=9F
            (1 << 5, 1 << 0xf, 1 << 0, 0x0e00, CONT),   // F0, 90..=BF
            (1 << 6, 1 << 0xf, 0x000e, CONT, CONT),     // F1..=F3
            (1 << 7, 1 << 0xf, 1 << 4, 0x0100, CONT),   // F4, 80..=8F
        ];
        for (bit, lead_hi, lead_lo, second_hi, third_hi) in forms {
            p.allow(bit, 0, lead_hi, lead_lo);
            p.allow(bit, 1, second_hi, ALL);
            p.allow(bit, 2, third_hi, ALL);
        }
        p
    })
}

/// The bits of [`utf8_start_patterns`] that are four-byte forms.
pub const UTF8_FOUR_BYTE: u8 = 0b1110_0000;

/// [`BlockMasks::lookup64`] one byte at a time (instruction sets without table look-ups, and
/// the reference of the vector versions).
#[inline(always)]
pub fn scalar_lookup64(block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
    let mut out = [0u64; 3];
    for (i, &b) in block.iter().enumerate() {
        let v = table[usize::from(b & 63)];
        for (r, bits) in select.iter().enumerate() {
            out[r] |= u64::from(v & bits != 0) << i;
        }
    }
    out
}

/// [`BlockMasks::pattern_starts`] one position at a time (instruction sets without table
/// look-ups, and the reference of the vector versions).
#[inline(always)]
pub fn scalar_pattern_starts(window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
    let mut out = [0u64; 3];
    for i in 0..64 {
        let hit = patterns.at(&window[i..]);
        for (r, bits) in select.iter().enumerate() {
            out[r] |= u64::from(hit & bits != 0) << i;
        }
    }
    out
}

/// [`BlockMasks::may_start`] one byte at a time.
#[inline(always)]
pub fn scalar_may_start(block: &[u8; 64], patterns: &NibblePatterns) -> bool {
    block.iter().any(|&b| patterns.lo[0][usize::from(b & 15)] & patterns.hi[0][usize::from(b >> 4)] != 0)
}

/// The block masks every build has: SSE2 on x86-64, NEON on aarch64, SWAR elsewhere and with
/// `portable`.
#[derive(Clone, Copy, Debug)]
pub struct Baseline;

impl BlockMasks for Baseline {
    const TABLE_LOOKUPS: bool = imp::HAS_NEON;
    #[inline(always)]
    fn utf8_errors(self, window: &[u8; 67]) -> bool {
        imp::utf8_errors(window)
    }
    #[inline(always)]
    fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        imp::pattern_starts(window, patterns, select)
    }
    #[inline(always)]
    fn pattern_starts_top(self, window: &[u8; 66], patterns: &NibblePatterns) -> [u64; 2] {
        imp::pattern_starts_top(window, patterns)
    }
    #[inline(always)]
    fn may_start(self, block: &[u8; 64], patterns: &NibblePatterns) -> bool {
        imp::may_start(block, patterns)
    }
    #[inline(always)]
    fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
        eq_mask64(block, byte)
    }
    #[inline(always)]
    fn high(self, block: &[u8; 64]) -> u64 {
        high_bit_mask64(block)
    }
    #[inline(always)]
    fn control_or_high(self, block: &[u8; 64]) -> u64 {
        control_or_high_mask64(block)
    }
    #[inline(always)]
    fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
        ascii_space_mask64(block, extra)
    }
    #[inline(always)]
    fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
        utf8_ranges64(block)
    }
    #[inline(always)]
    fn ascii_blocks(self, buf: &[u8]) -> usize {
        ascii_blocks(buf)
    }
    type Tally = imp::Tally;
    #[inline(always)]
    fn tally_new(self) -> imp::Tally {
        imp::tally_new()
    }
    #[inline(always)]
    fn tally(self, tally: imp::Tally, block: &[u8; 64], byte: u8) -> imp::Tally {
        imp::tally(tally, block, byte)
    }
    #[inline(always)]
    fn tally_continuation(self, tally: imp::Tally, block: &[u8; 64]) -> imp::Tally {
        imp::tally_continuation(tally, block)
    }
    #[inline(always)]
    fn tally_total(self, tally: imp::Tally) -> u64 {
        imp::tally_total(tally)
    }
}

/// The most blocks one [`BlockMasks::Tally`] may count (a byte counter per lane).
pub const TALLY_MAX: usize = 255;

/// Code to run with the block masks of the best instruction set (see [`with_best_masks`]).
pub trait WithMasks {
    type Output;
    /// Implementations mark this `#[inline(always)]` and inline their work into it: only code
    /// inlined into the caller is compiled for the caller's instruction set.
    fn run<M: BlockMasks>(self, masks: M) -> Self::Output;
}

/// Runs `work` with the block masks of `kernel` (or the best one below it this build and CPU
/// have), from a function compiled for that instruction set: for AVX2 and AVX-512 also BMI1/2,
/// POPCNT and LZCNT, so what `work` inlines uses `popcnt`, `tzcnt` and VEX/EVEX encodings too.
/// The portable and SSE2 kernels both run with the [`Baseline`] masks.
#[inline(always)]
pub fn with_masks<W: WithMasks>(kernel: Kernel, work: W) -> W::Output {
    if imp::HAS_X86_KERNELS {
        if kernel == Kernel::Avx512 && kernel.is_available() {
            return imp::with_avx512(work);
        }
        if matches!(kernel, Kernel::Avx2 | Kernel::Avx512) && Kernel::Avx2.is_available() {
            return imp::with_avx2(work);
        }
    }
    work.run(Baseline)
}

/// [`with_masks`] with the best kernel.
#[inline(always)]
pub fn with_best_masks<W: WithMasks>(work: W) -> W::Output {
    with_masks(Kernel::best(), work)
}

/// How many bytes of `buf` equal `byte`, with the best kernel.
pub fn count_byte(buf: &[u8], byte: u8) -> u64 {
    count_byte_with(Kernel::best(), buf, byte)
}

/// How many bytes of `buf` equal `byte`, with `kernel` (the portable one if it is not available).
pub fn count_byte_with(kernel: Kernel, buf: &[u8], byte: u8) -> u64 {
    if !kernel.is_available() {
        return swar_count_byte(buf, byte);
    }
    match kernel {
        Kernel::Portable => swar_count_byte(buf, byte),
        Kernel::Neon => imp::count_byte_neon(buf, byte),
        Kernel::Sse2 => imp::count_byte_sse2(buf, byte),
        Kernel::Avx2 => imp::count_byte_avx2(buf, byte),
        Kernel::Avx512 => imp::count_byte_avx512(buf, byte),
    }
}

/// `cat -v` notation of the whole 64-byte blocks of `input` (TAB as `^I` with `show_tabs`, LF as
/// `$` LF with `show_ends`, else both as they are), written at `out[at..]` while `out` has room
/// for a block's worst case; returns the input bytes done and where the output ends. None when
/// the AVX-512 kernel is not in use or the CPU lacks VBMI/VBMI2 (the caller maps bytes itself).
pub fn notation_blocks(
    input: &[u8],
    show_tabs: bool,
    show_ends: bool,
    out: &mut [u8],
    at: usize,
) -> Option<(usize, usize)> {
    if Kernel::best() == Kernel::Avx512 { imp::notation_blocks(input, show_tabs, show_ends, out, at) } else { None }
}

/// How far ahead of the byte being formatted `prefetch_ahead` asks for the input: far enough to
/// cover a memory access, and past a page boundary (where the hardware prefetchers stop) before
/// the loop gets there. Matters when the input is a mapping of the page cache rather than a
/// read buffer that the kernel's copy just left in the cache (cat -A of a mapped 200 MB file:
/// 59.5 -> 56.3 ms at 2 KiB; 512 bytes 58.2, 4 KiB 57.1).
const PREFETCH_DISTANCE: usize = 2048;

/// Asks the CPU to bring `input[at + PREFETCH_DISTANCE]`'s cache line in (nothing where the
/// target has no prefetch instruction). Never faults, also past the end of `input`.
#[inline(always)]
pub fn prefetch_ahead(input: &[u8], at: usize) {
    imp::prefetch(input.as_ptr().wrapping_add(at.wrapping_add(PREFETCH_DISTANCE)));
}

/// The portable byte count: 8 bytes at a time, matches found by an exact zero-byte test and
/// summed in byte lanes (at most 255 words between flushes, so a lane cannot wrap).
fn swar_count_byte(buf: &[u8], byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let spread = u64::from(byte) * ONES;
    let mut words = buf.chunks_exact(8);
    let mut total = 0u64;
    loop {
        let mut lanes = 0u64;
        let mut n = 0;
        for word in words.by_ref().take(255) {
            let t = u64::from_le_bytes(word.try_into().unwrap()) ^ spread;
            // 0x80 in each byte of t that is zero, exactly (no borrow between bytes).
            let zero = !(((t & LOW7) + LOW7) | t | LOW7);
            lanes += zero >> 7;
            n += 1;
        }
        // Sum the 8 byte lanes (each at most 255).
        total += (lanes & 0x00ff_00ff_00ff_00ff)
            .wrapping_add((lanes >> 8) & 0x00ff_00ff_00ff_00ff)
            .wrapping_mul(0x0001_0001_0001_0001)
            >> 48;
        if n < 255 {
            break;
        }
    }
    total + words.remainder().iter().filter(|&&b| b == byte).count() as u64
}

/// Bit i of the result is set when `block[i]` is 0x80 or above (not ASCII).
#[inline]
pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
    imp::high_bit_mask64(block)
}
