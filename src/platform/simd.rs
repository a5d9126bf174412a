//! SIMD building blocks with one portable signature each: an SSE2 version on x86-64 and a NEON
//! version on aarch64 (each part of its architecture's baseline, so no run-time detection is
//! needed), and a SWAR version everywhere else and with the `portable` feature. The byte counter behind `wc -l` also has
//! AVX2 and AVX-512 versions, and the 64-byte block masks of wc's and cat's loops
//! ([`BlockMasks`]) AVX2 and AVX-512 ones, whose loops are compiled for that instruction set
//! ([`with_masks`]); which is chosen at run time by what the CPU has ([`Kernel::best`]).

use std::sync::OnceLock;

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

    /// Whether this build has the kernel and this CPU can run it.
    pub fn is_available(self) -> bool {
        let features = super::cpu::features();
        match self {
            Kernel::Portable => true,
            Kernel::Neon => imp::HAS_NEON,
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
    /// Whether any byte of the block is one of `bytes`.
    #[inline(always)]
    fn any_of(self, block: &[u8; 64], bytes: [u8; 4]) -> bool {
        bytes.iter().fold(0, |acc, &b| acc | self.eq(block, b)) != 0
    }
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
    /// Whether a block fits one register, so that [`Self::pattern_starts`] costs no more than a
    /// few compares (AVX-512): no filter before it pays.
    const ONE_REGISTER: bool = false;
    /// Where byte patterns begin in a 64-byte block: bit i of result `r` is set when a pattern
    /// among `select[r]` matches at `window[i..]` (`window` holds the block and its next two
    /// bytes). See [`NibblePatterns`].
    #[inline(always)]
    fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        scalar_pattern_starts(window, patterns, select)
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
}

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

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod imp {
    use super::NibblePatterns;
    use std::arch::x86_64::{
        __m128i, __m256i, __m512i, _mm_add_epi64, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_cvtsi128_si64,
        _mm_loadu_si128, _mm_max_epu8, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_sad_epu8, _mm_set1_epi8,
        _mm_setzero_si128, _mm_srli_si128, _mm_sub_epi8, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256,
        _mm256_blendv_epi8, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8,
        _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_max_epu8, _mm256_min_epu8, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_sad_epu8, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
        _mm256_slli_epi16, _mm256_srli_epi16, _mm256_sub_epi8, _mm256_subs_epu8, _mm256_testz_si256, _mm256_xor_si256,
        _mm512_add_epi8, _mm512_add_epi64, _mm512_and_si512, _mm512_broadcast_i32x4, _mm512_cmpeq_epi8_mask,
        _mm512_cmpge_epu8_mask, _mm512_cmple_epu8_mask, _mm512_cmplt_epi8_mask, _mm512_cmplt_epu8_mask,
        _mm512_loadu_si512, _mm512_mask_blend_epi8, _mm512_mask_mov_epi8, _mm512_maskz_compress_epi8,
        _mm512_maskz_mov_epi8, _mm512_movepi8_mask, _mm512_movm_epi8, _mm512_or_si512, _mm512_permutex2var_epi8,
        _mm512_reduce_add_epi64, _mm512_sad_epu8, _mm512_set1_epi8, _mm512_setzero_si512, _mm512_shuffle_epi8,
        _mm512_srli_epi16, _mm512_storeu_si512, _mm512_sub_epi8, _mm512_subs_epu8, _mm512_ternarylogic_epi32,
        _mm512_test_epi8_mask, _mm512_xor_si512,
    };

    pub use super::no_neon::*;

    pub const HAS_X86_KERNELS: bool = true;

    /// SSE2 has no byte shuffle: the baseline does not validate by table look-ups.
    #[inline(always)]
    pub fn utf8_errors(_window: &[u8; 67]) -> bool {
        true
    }

    /// SSE2 has no byte shuffle: the baseline looks tables up one byte at a time.
    #[inline(always)]
    pub fn lookup64(block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
        super::scalar_lookup64(block, table, select)
    }

    /// SSE2 has no byte shuffle: the baseline looks the patterns up one position at a time.
    #[inline(always)]
    pub fn pattern_starts(window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        super::scalar_pattern_starts(window, patterns, select)
    }

    #[inline(always)]
    pub fn prefetch(at: *const u8) {
        // SAFETY: a prefetch is a hint: it never faults, whatever the address (SSE, baseline).
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast()) }
    }

    pub fn notation_blocks(
        input: &[u8],
        show_tabs: bool,
        show_ends: bool,
        out: &mut [u8],
        at: usize,
    ) -> Option<(usize, usize)> {
        let f = crate::platform::cpu::features();
        if !(f.avx512bw && f.avx512vbmi2 && f.popcnt) {
            return None;
        }
        // SAFETY: the CPU has AVX-512BW (and so AVX-512F), VBMI, VBMI2 and POPCNT: just checked.
        Some(unsafe { notation_blocks_vbmi2(input, show_tabs, show_ends, out, at) })
    }

    /// Each byte becomes four slots (`M`, `-`, `^` or `$`, the character). Two planes are
    /// built per block: the character (its bit 7 kept: set for bytes that need `M-`) and the
    /// `^`/`$` slot (0 when unused). One two-source byte permute per 16 input bytes spreads them
    /// to the four slots (slots 0 and 1 take the character too, for its bit 7), one test finds
    /// the used slots (bit 7 in slots 0 and 1, non-zero in slot 2, always slot 3), one ternary
    /// logic op writes `M-` into slots 0 and 1 and clears bit 7 elsewhere, and the used slots
    /// are compressed together and stored (64 bytes, of which the used count is kept). A block
    /// that needs no notation is stored as it is.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
    fn notation_blocks_vbmi2(
        input: &[u8],
        show_tabs: bool,
        show_ends: bool,
        out: &mut [u8],
        mut at: usize,
    ) -> (usize, usize) {
        let byte = |b: u8| _mm512_set1_epi8(b as i8);
        // Slot p of input byte 16g + j is byte 4j + p of group g's vector: the character plane
        // (second source, indexes 64 and up) for slots 0, 1 and 3, the `^`/`$` plane for slot 2.
        let spread: [[u8; 64]; 4] =
            std::array::from_fn(|g| std::array::from_fn(|i| (16 * g + i / 4 + if i % 4 == 2 { 0 } else { 64 }) as u8));
        let spread = spread.map(|s| load512(&s));
        let slot = |values: [u8; 4]| load512(&std::array::from_fn(|i| values[i % 4]));
        // Which bits make a slot used, and the final slots from the spread ones (`M`, `-`, then
        // the slot's low seven bits): out = m_dash | (v & low7).
        let used_bits = slot([0x80, 0x80, 0x7f, 0xff]);
        let m_dash = slot([b'M', b'-', 0, 0]);
        let low7 = slot([0, 0, 0x7f, 0x7f]);
        // A block writes below at + 4 * 64 (each store of its at most 4 * 64 bytes starts at
        // most 3 * 64 past at): so many blocks fit in `out`.
        let blocks = (input.len() / 64).min(out.len().saturating_sub(at) / 256);
        let to = out.as_mut_ptr();
        let store = |at: usize, v: __m512i| {
            // SAFETY: every store is at most 256 - 64 bytes past its block's first output byte,
            // and that is at most 256 * b past the first `at` for block b < `blocks`: the 64
            // bytes are inside `out` (see `blocks`). No alignment is needed.
            unsafe { _mm512_storeu_si512(to.add(at).cast(), v) }
        };
        for (i, block) in input.chunks_exact(64).take(blocks).enumerate() {
            super::prefetch_ahead(input, i * 64);
            let x = load512(block.try_into().unwrap());
            let x1 = _mm512_add_epi8(x, byte(1));
            // Below 0x20 or 0x7f, as signed bytes also 0x80 and above: x + 1 below 0x21 signed.
            let special = _mm512_cmplt_epi8_mask(x1, byte(0x21));
            if special == 0 {
                store(at, x);
                at += 64;
                continue;
            }
            // Low seven bits below 0x20 or 0x7f: (x + 1) & 0x7f below 0x21.
            let control = _mm512_cmplt_epu8_mask(_mm512_and_si512(x1, byte(0x7f)), byte(0x21));
            let lf = _mm512_cmpeq_epi8_mask(x, byte(b'\n'));
            let tab = if show_tabs { 0 } else { _mm512_cmpeq_epi8_mask(x, byte(b'\t')) };
            let caret = control & !lf & !tab;
            // `^X` shows X ^ 0x40 (DEL: `?`); bit 7 stays.
            let ch = _mm512_xor_si512(x, _mm512_maskz_mov_epi8(caret, byte(0x40)));
            let s2 = _mm512_maskz_mov_epi8(caret, byte(b'^'));
            let s2 = if show_ends { _mm512_mask_mov_epi8(s2, lf, byte(b'$')) } else { s2 };
            for index in spread {
                let v = _mm512_permutex2var_epi8(s2, index, ch);
                let used = _mm512_test_epi8_mask(v, used_bits);
                let v = _mm512_ternarylogic_epi32::<0xf8>(m_dash, v, low7);
                store(at, _mm512_maskz_compress_epi8(used, v));
                at += used.count_ones() as usize;
            }
        }
        (blocks * 64, at)
    }

    use super::{BlockMasks, Utf8Ranges, WithMasks};

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

    #[inline(always)]
    pub fn with_avx512<W: WithMasks>(work: W) -> W::Output {
        let features = crate::platform::cpu::features();
        assert!(features.avx512bw && features.avx2 && features.bmi2 && features.popcnt);
        // SAFETY: the CPU has every feature `avx512_context` is compiled for (checked just
        // above; AVX-512BW implies AVX-512F, LZCNT and BMI1 come with BMI2).
        unsafe { avx512_context(work) }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2,popcnt,lzcnt")]
    #[inline(never)]
    fn avx512_context<W: WithMasks>(work: W) -> W::Output {
        work.run(Avx512Masks(()))
    }

    /// AVX-512 block masks (compares straight into 64-bit masks). Only `avx512_context` makes
    /// one, after its caller checked that the CPU has AVX-512BW: holding one proves the
    /// AVX-512 instructions below can run.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx512Masks(());

    #[inline(always)]
    fn load512(block: &[u8; 64]) -> __m512i {
        // SAFETY: `block` is 64 readable bytes; _mm512_loadu_si512 needs no alignment. Called
        // only from Avx512Masks methods and the VBMI2 kernel: the CPU has AVX-512.
        unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) }
    }

    impl BlockMasks for Avx512Masks {
        const TABLE_LOOKUPS: bool = true;
        const ONE_REGISTER: bool = true;

        #[inline(always)]
        fn utf8_errors(self, window: &[u8; 67]) -> bool {
            use super::utf8_tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH};
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW; the loads read 64
            // bytes at offsets 0..=3 of the 67-byte window, and 16 bytes of each table.
            unsafe {
                let w = window.as_ptr();
                let input = _mm512_loadu_si512(w.add(3).cast::<__m512i>());
                let prev1 = _mm512_loadu_si512(w.add(2).cast::<__m512i>());
                let prev2 = _mm512_loadu_si512(w.add(1).cast::<__m512i>());
                let prev3 = _mm512_loadu_si512(w.cast::<__m512i>());
                let low = _mm512_set1_epi8(0x0f);
                // (No closures: they would not inherit the caller's target features.)
                let t1h = _mm512_broadcast_i32x4(_mm_loadu_si128(BYTE_1_HIGH.as_ptr().cast::<__m128i>()));
                let t1l = _mm512_broadcast_i32x4(_mm_loadu_si128(BYTE_1_LOW.as_ptr().cast::<__m128i>()));
                let t2h = _mm512_broadcast_i32x4(_mm_loadu_si128(BYTE_2_HIGH.as_ptr().cast::<__m128i>()));
                let b1h = _mm512_shuffle_epi8(t1h, _mm512_and_si512(_mm512_srli_epi16(prev1, 4), low));
                let b1l = _mm512_shuffle_epi8(t1l, _mm512_and_si512(prev1, low));
                let b2h = _mm512_shuffle_epi8(t2h, _mm512_and_si512(_mm512_srli_epi16(input, 4), low));
                // special = b1h & b1l & b2h
                let special = _mm512_ternarylogic_epi32(b1h, b1l, b2h, 0x80);
                let third = _mm512_subs_epu8(prev2, _mm512_set1_epi8((0xe0u8 - 0x80) as i8));
                let fourth = _mm512_subs_epu8(prev3, _mm512_set1_epi8((0xf0u8 - 0x80) as i8));
                let must = _mm512_and_si512(_mm512_or_si512(third, fourth), _mm512_set1_epi8(0x80u8 as i8));
                _mm512_test_epi8_mask(_mm512_xor_si512(special, must), _mm512_set1_epi8(-1)) != 0
            }
        }

        #[inline(always)]
        fn lookup64(self, block: &[u8; 64], table: &[u8; 64], select: [u8; 3]) -> [u64; 3] {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW; the table loads read
            // 16 of its 64 bytes each. Four 16-entry shuffles, chosen by the index's bits 4 and 5
            // (no VBMI needed).
            unsafe {
                let idx = _mm512_and_si512(load512(block), _mm512_set1_epi8(0x3f));
                let t = table.as_ptr().cast::<__m128i>();
                let r0 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t)), idx);
                let r1 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(1))), idx);
                let r2 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(2))), idx);
                let r3 = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(_mm_loadu_si128(t.add(3))), idx);
                let bit4 = _mm512_test_epi8_mask(idx, _mm512_set1_epi8(0x10));
                let bit5 = _mm512_test_epi8_mask(idx, _mm512_set1_epi8(0x20));
                let r = _mm512_mask_blend_epi8(
                    bit5,
                    _mm512_mask_blend_epi8(bit4, r0, r1),
                    _mm512_mask_blend_epi8(bit4, r2, r3),
                );
                [
                    _mm512_test_epi8_mask(r, _mm512_set1_epi8(select[0] as i8)),
                    _mm512_test_epi8_mask(r, _mm512_set1_epi8(select[1] as i8)),
                    _mm512_test_epi8_mask(r, _mm512_set1_epi8(select[2] as i8)),
                ]
            }
        }

        #[inline(always)]
        fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW; every load reads 64
            // bytes at offsets 0..=2 of the 66-byte window, or 16 bytes of a 16-byte table.
            unsafe {
                let low = _mm512_set1_epi8(0x0f);
                let mut hits = _mm512_set1_epi8(-1);
                for j in 0..3 {
                    let v = _mm512_loadu_si512(window.as_ptr().add(j).cast::<__m512i>());
                    let lo_table = _mm512_broadcast_i32x4(_mm_loadu_si128(patterns.lo[j].as_ptr().cast::<__m128i>()));
                    let hi_table = _mm512_broadcast_i32x4(_mm_loadu_si128(patterns.hi[j].as_ptr().cast::<__m128i>()));
                    let lo = _mm512_shuffle_epi8(lo_table, _mm512_and_si512(v, low));
                    let hi = _mm512_shuffle_epi8(hi_table, _mm512_and_si512(_mm512_srli_epi16(v, 4), low));
                    // hits & lo & hi
                    hits = _mm512_ternarylogic_epi32(hits, lo, hi, 0x80);
                }
                // (No closures here: they would not inherit the caller's target features.)
                [
                    _mm512_test_epi8_mask(hits, _mm512_set1_epi8(select[0] as i8)),
                    _mm512_test_epi8_mask(hits, _mm512_set1_epi8(select[1] as i8)),
                    _mm512_test_epi8_mask(hits, _mm512_set1_epi8(select[2] as i8)),
                ]
            }
        }

        #[inline(always)]
        fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe { _mm512_cmpeq_epi8_mask(load512(block), _mm512_set1_epi8(byte as i8)) }
        }

        #[inline(always)]
        fn high(self, block: &[u8; 64]) -> u64 {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe { _mm512_movepi8_mask(load512(block)) }
        }

        #[inline(always)]
        fn ge(self, block: &[u8; 64], byte: u8) -> u64 {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe { _mm512_cmpge_epu8_mask(load512(block), _mm512_set1_epi8(byte as i8)) }
        }

        #[inline(always)]
        fn continuation(self, block: &[u8; 64]) -> u64 {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            // Signed, 0x80..=0xbf are -128..=-65: the bytes below -64.
            unsafe { _mm512_cmplt_epi8_mask(load512(block), _mm512_set1_epi8(-64)) }
        }

        #[inline(always)]
        fn control_or_high(self, block: &[u8; 64]) -> u64 {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) | _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0x7f))
            }
        }

        #[inline(always)]
        fn controls(self, block: &[u8; 64]) -> u64 {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x7f))
            }
        }

        #[inline(always)]
        fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE (and extra).
                let low = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(9)), _mm512_set1_epi8(4));
                let space = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b' ' as i8));
                let a0 = match extra {
                    Some(byte) => _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8)),
                    None => 0,
                };
                low | space | a0
            }
        }

        #[inline(always)]
        fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                let high = _mm512_movepi8_mask(v);
                Utf8Ranges {
                    high,
                    cont: high & !_mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xc0u8 as i8)),
                    ge_c2: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xc2u8 as i8)),
                    ge_e0: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xe0u8 as i8)),
                    ge_f0: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xf0u8 as i8)),
                    ge_f5: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xf5u8 as i8)),
                }
            }
        }

        #[inline(always)]
        fn ascii_blocks(self, buf: &[u8]) -> usize {
            let mut n = 0;
            for block in buf.chunks_exact(64) {
                if self.high(block.try_into().unwrap()) != 0 {
                    break;
                }
                n += 64;
            }
            n
        }
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

    /// One 64-bit mask from the byte masks of the two halves.
    #[inline(always)]
    fn join(lo: __m256i, hi: __m256i) -> u64 {
        // SAFETY: called only from Avx2Masks methods: the CPU has AVX2.
        unsafe { _mm256_movemask_epi8(lo) as u32 as u64 | (_mm256_movemask_epi8(hi) as u32 as u64) << 32 }
    }

    impl BlockMasks for Avx2Masks {
        const TABLE_LOOKUPS: bool = true;

        #[inline(always)]
        fn utf8_errors(self, window: &[u8; 67]) -> bool {
            use super::utf8_tables::{BYTE_1_HIGH, BYTE_1_LOW, BYTE_2_HIGH};
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2; the loads read 32 bytes at
            // offsets 0..=35 of the 67-byte window, and 16 bytes of each table.
            unsafe {
                let w = window.as_ptr();
                let low = _mm256_set1_epi8(0x0f);
                let t1h = _mm256_broadcastsi128_si256(_mm_loadu_si128(BYTE_1_HIGH.as_ptr().cast()));
                let t1l = _mm256_broadcastsi128_si256(_mm_loadu_si128(BYTE_1_LOW.as_ptr().cast()));
                let t2h = _mm256_broadcastsi128_si256(_mm_loadu_si128(BYTE_2_HIGH.as_ptr().cast()));
                let (sub3, sub4, top) = (
                    _mm256_set1_epi8((0xe0u8 - 0x80) as i8),
                    _mm256_set1_epi8((0xf0u8 - 0x80) as i8),
                    _mm256_set1_epi8(0x80u8 as i8),
                );
                let mut errors = _mm256_setzero_si256();
                for h in 0..2 {
                    // (No closures: they would not inherit the caller's target features.)
                    let p = w.add(32 * h);
                    let input = _mm256_loadu_si256(p.add(3).cast::<__m256i>());
                    let prev1 = _mm256_loadu_si256(p.add(2).cast::<__m256i>());
                    let prev2 = _mm256_loadu_si256(p.add(1).cast::<__m256i>());
                    let prev3 = _mm256_loadu_si256(p.cast::<__m256i>());
                    let b1h = _mm256_shuffle_epi8(t1h, _mm256_and_si256(_mm256_srli_epi16(prev1, 4), low));
                    let b1l = _mm256_shuffle_epi8(t1l, _mm256_and_si256(prev1, low));
                    let b2h = _mm256_shuffle_epi8(t2h, _mm256_and_si256(_mm256_srli_epi16(input, 4), low));
                    let special = _mm256_and_si256(_mm256_and_si256(b1h, b1l), b2h);
                    let must = _mm256_and_si256(
                        _mm256_or_si256(_mm256_subs_epu8(prev2, sub3), _mm256_subs_epu8(prev3, sub4)),
                        top,
                    );
                    errors = _mm256_or_si256(errors, _mm256_xor_si256(special, must));
                }
                _mm256_testz_si256(errors, errors) == 0
            }
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
        fn pattern_starts(self, window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2; every load reads 32 bytes at
            // offsets 0..=34 of the 66-byte window, or 16 bytes of a 16-byte table.
            unsafe {
                let low = _mm256_set1_epi8(0x0f);
                let mut hits = [_mm256_set1_epi8(-1); 2];
                for j in 0..3 {
                    let lo_table = _mm256_broadcastsi128_si256(_mm_loadu_si128(patterns.lo[j].as_ptr().cast()));
                    let hi_table = _mm256_broadcastsi128_si256(_mm_loadu_si128(patterns.hi[j].as_ptr().cast()));
                    for (h, hit) in hits.iter_mut().enumerate() {
                        let v = _mm256_loadu_si256(window.as_ptr().add(j + 32 * h).cast::<__m256i>());
                        let lo = _mm256_shuffle_epi8(lo_table, _mm256_and_si256(v, low));
                        let hi = _mm256_shuffle_epi8(hi_table, _mm256_and_si256(_mm256_srli_epi16(v, 4), low));
                        *hit = _mm256_and_si256(*hit, _mm256_and_si256(lo, hi));
                    }
                }
                // Bytes where no selected pattern matched are zero after the AND. (No closures
                // here: they would not inherit the caller's target features.)
                let zero = _mm256_setzero_si256();
                let (sel0, sel1, sel2) = (
                    _mm256_set1_epi8(select[0] as i8),
                    _mm256_set1_epi8(select[1] as i8),
                    _mm256_set1_epi8(select[2] as i8),
                );
                [
                    !join(
                        _mm256_cmpeq_epi8(_mm256_and_si256(hits[0], sel0), zero),
                        _mm256_cmpeq_epi8(_mm256_and_si256(hits[1], sel0), zero),
                    ),
                    !join(
                        _mm256_cmpeq_epi8(_mm256_and_si256(hits[0], sel1), zero),
                        _mm256_cmpeq_epi8(_mm256_and_si256(hits[1], sel1), zero),
                    ),
                    !join(
                        _mm256_cmpeq_epi8(_mm256_and_si256(hits[0], sel2), zero),
                        _mm256_cmpeq_epi8(_mm256_and_si256(hits[1], sel2), zero),
                    ),
                ]
            }
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
        fn any_of(self, block: &[u8; 64], bytes: [u8; 4]) -> bool {
            let (a, b) = halves(block);
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
            unsafe {
                let mut any = _mm256_setzero_si256();
                for byte in bytes {
                    let n = _mm256_set1_epi8(byte as i8);
                    any = _mm256_or_si256(any, _mm256_or_si256(_mm256_cmpeq_epi8(a, n), _mm256_cmpeq_epi8(b, n)));
                }
                _mm256_testz_si256(any, any) == 0
            }
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
                // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE (and extra).
                let nine = _mm256_set1_epi8(9);
                let four = _mm256_set1_epi8(4);
                let space = _mm256_set1_epi8(b' ' as i8);
                let a0 = _mm256_set1_epi8(extra.unwrap_or(b' ') as i8);
                let (xa, xb) = (_mm256_sub_epi8(a, nine), _mm256_sub_epi8(b, nine));
                let (la, lb) = (
                    _mm256_cmpeq_epi8(_mm256_min_epu8(xa, four), xa),
                    _mm256_cmpeq_epi8(_mm256_min_epu8(xb, four), xb),
                );
                join(
                    _mm256_or_si256(la, _mm256_or_si256(_mm256_cmpeq_epi8(a, space), _mm256_cmpeq_epi8(a, a0))),
                    _mm256_or_si256(lb, _mm256_or_si256(_mm256_cmpeq_epi8(b, space), _mm256_cmpeq_epi8(b, a0))),
                )
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

    pub fn count_byte_sse2(buf: &[u8], byte: u8) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { count_byte_sse2_inner(buf, byte) }
    }

    /// The matching lanes (0xff, that is -1) are subtracted into byte counters, which are
    /// summed into 64-bit lanes every 255 blocks.
    #[target_feature(enable = "sse2")]
    fn count_byte_sse2_inner(buf: &[u8], byte: u8) -> u64 {
        let needle = _mm_set1_epi8(byte as i8);
        let mut total = _mm_setzero_si128();
        let mut blocks = buf.chunks_exact(16);
        loop {
            let mut counters = _mm_setzero_si128();
            let mut n = 0;
            for block in blocks.by_ref().take(255) {
                // SAFETY: `block` is 16 readable bytes; no alignment is required.
                let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
                counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(v, needle));
                n += 1;
            }
            total = _mm_add_epi64(total, _mm_sad_epu8(counters, _mm_setzero_si128()));
            if n < 255 {
                break;
            }
        }
        let sum = _mm_cvtsi128_si64(total) as u64 + _mm_cvtsi128_si64(_mm_srli_si128(total, 8)) as u64;
        sum + super::swar_count_byte(blocks.remainder(), byte)
    }

    pub fn count_byte_avx2(buf: &[u8], byte: u8) -> u64 {
        assert!(std::arch::is_x86_feature_detected!("avx2"));
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
                prefetch(block.as_ptr().wrapping_add(super::PREFETCH_DISTANCE));
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

    pub fn count_byte_avx512(buf: &[u8], byte: u8) -> u64 {
        assert!(std::arch::is_x86_feature_detected!("avx512bw"));
        // SAFETY: the CPU has AVX-512BW (checked just above), which implies AVX-512F.
        unsafe { count_byte_avx512_inner(buf, byte) }
    }

    /// As the AVX2 count, 64 bytes at a time with two independent counters.
    #[target_feature(enable = "avx512f,avx512bw")]
    fn count_byte_avx512_inner(buf: &[u8], byte: u8) -> u64 {
        let needle = _mm512_set1_epi8(byte as i8);
        let zero = _mm512_setzero_si512();
        let mut total = _mm512_setzero_si512();
        let mut blocks = buf.chunks_exact(128);
        loop {
            let (mut a, mut b) = (zero, zero);
            let mut n = 0;
            for block in blocks.by_ref().take(255) {
                // A mapped file comes from memory: ask for it ahead (see `prefetch_ahead`).
                prefetch(block.as_ptr().wrapping_add(super::PREFETCH_DISTANCE));
                prefetch(block.as_ptr().wrapping_add(super::PREFETCH_DISTANCE + 64));
                // SAFETY: `block` is 128 readable bytes; _mm512_loadu_si512 needs no alignment.
                let (x, y) = unsafe {
                    let p = block.as_ptr().cast::<__m512i>();
                    (_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1)))
                };
                a = _mm512_sub_epi8(a, _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(x, needle)));
                b = _mm512_sub_epi8(b, _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(y, needle)));
                n += 1;
            }
            total = _mm512_add_epi64(total, _mm512_add_epi64(_mm512_sad_epu8(a, zero), _mm512_sad_epu8(b, zero)));
            if n < 255 {
                break;
            }
        }
        _mm512_reduce_add_epi64(total) as u64 + count_byte_sse2_inner(blocks.remainder(), byte)
    }

    #[inline]
    pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { high_bit_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn high_bit_mask64_sse2(block: &[u8; 64]) -> u64 {
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            mask |= (_mm_movemask_epi8(v) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { control_or_high_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn control_or_high_mask64_sse2(block: &[u8; 64]) -> u64 {
        // As signed bytes, 0x80..=0xff are negative: one "less than 0x20" covers both ends.
        let space = _mm_set1_epi8(0x20);
        let del = _mm_set1_epi8(0x7f);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let special = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del));
            mask |= (_mm_movemask_epi8(special) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn ascii_blocks(buf: &[u8]) -> usize {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { ascii_blocks_sse2(buf) }
    }

    #[target_feature(enable = "sse2")]
    fn ascii_blocks_sse2(buf: &[u8]) -> usize {
        let mut n = 0;
        for block in buf.chunks_exact(64) {
            let p = block.as_ptr().cast::<__m128i>();
            // SAFETY: `block` is 64 readable bytes; _mm_loadu_si128 has no alignment requirement.
            let any = unsafe {
                _mm_or_si128(
                    _mm_or_si128(_mm_loadu_si128(p), _mm_loadu_si128(p.add(1))),
                    _mm_or_si128(_mm_loadu_si128(p.add(2)), _mm_loadu_si128(p.add(3))),
                )
            };
            if _mm_movemask_epi8(any) != 0 {
                break;
            }
            n += 64;
        }
        n
    }

    #[inline]
    pub fn utf8_ranges64(block: &[u8; 64]) -> super::Utf8Ranges {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { utf8_ranges64_sse2(block) }
    }

    /// As signed bytes, 0x80..=0xff are -128..=-1: each range is one signed comparison
    /// (and-ed with the high bit, since ASCII is positive).
    #[target_feature(enable = "sse2")]
    fn utf8_ranges64_sse2(block: &[u8; 64]) -> super::Utf8Ranges {
        let mut r = super::Utf8Ranges::default();
        let gt = |v, byte: u8| _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(byte as i8))) as u32 as u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let shift = 16 * k;
            let high = _mm_movemask_epi8(v) as u32 as u64;
            r.high |= high << shift;
            r.cont |= (_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0xc0u8 as i8))) as u32 as u64) << shift;
            r.ge_c2 |= (gt(v, 0xc1) & high) << shift;
            r.ge_e0 |= (gt(v, 0xdf) & high) << shift;
            r.ge_f0 |= (gt(v, 0xef) & high) << shift;
            r.ge_f5 |= (gt(v, 0xf4) & high) << shift;
        }
        r
    }

    #[inline]
    pub fn ascii_space_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { ascii_space_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn ascii_space_mask64_sse2(block: &[u8; 64]) -> u64 {
        // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE.
        let nine = _mm_set1_epi8(9);
        let four = _mm_set1_epi8(4);
        let space = _mm_set1_epi8(b' ' as i8);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let x = _mm_sub_epi8(v, nine);
            let hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, four), x), _mm_cmpeq_epi8(v, space));
            mask |= (_mm_movemask_epi8(hit) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { eq_mask64_sse2(block, byte) }
    }

    #[inline]
    pub fn ge_mask64(block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { ge_mask64_sse2(block, byte) }
    }

    #[target_feature(enable = "sse2")]
    fn ge_mask64_sse2(block: &[u8; 64], byte: u8) -> u64 {
        let limit = _mm_set1_epi8(byte as i8);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            // v >= limit exactly where max(v, limit) == v.
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_max_epu8(v, limit), v)) as u32 as u64;
            mask |= bits << (16 * k);
        }
        mask
    }

    #[target_feature(enable = "sse2")]
    fn eq_mask64_sse2(block: &[u8; 64], byte: u8) -> u64 {
        let needle = _mm_set1_epi8(byte as i8);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)) as u32 as u64;
            mask |= bits << (16 * k);
        }
        mask
    }
}

/// The x86 kernels' places in a build without them (they are never available there, so none
/// of these is reached except `with_avx2`/`with_avx512`, which run the baseline masks).
#[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
mod no_x86 {
    pub const HAS_X86_KERNELS: bool = false;

    /// No stable prefetch instruction to ask for here (aarch64's is not stable in Rust).
    #[inline(always)]
    pub fn prefetch(_: *const u8) {}

    pub fn with_avx2<W: super::WithMasks>(work: W) -> W::Output {
        work.run(super::Baseline)
    }

    pub use with_avx2 as with_avx512;

    pub fn count_byte_sse2(_: &[u8], _: u8) -> u64 {
        unreachable!("no x86 kernels in this build")
    }

    pub use count_byte_sse2 as count_byte_avx2;
    pub use count_byte_sse2 as count_byte_avx512;

    pub fn notation_blocks(_: &[u8], _: bool, _: bool, _: &mut [u8], _: usize) -> Option<(usize, usize)> {
        None
    }
}

/// The NEON kernel's place in a build without it (never available there).
#[cfg(not(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))))]
mod no_neon {
    pub const HAS_NEON: bool = false;

    pub fn count_byte_neon(_: &[u8], _: u8) -> u64 {
        unreachable!("no NEON kernel in this build")
    }
}

/// aarch64 with NEON enabled at compile time (the aarch64 Linux and macOS targets enable it: it
/// is part of their baseline), so the baseline block masks and a byte counter use it without
/// run-time detection.
#[cfg(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable")))]
mod imp {
    use core::arch::aarch64::*;

    pub use super::no_x86::*;

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
        let tables =
            unsafe { uint8x16x4_t(vld1q_u8(t), vld1q_u8(t.add(16)), vld1q_u8(t.add(32)), vld1q_u8(t.add(48))) };
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
            let (lo_table, hi_table) =
                unsafe { (vld1q_u8(patterns.lo[j].as_ptr()), vld1q_u8(patterns.hi[j].as_ptr())) };
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
}

#[cfg(not(any(
    all(target_arch = "x86_64", not(feature = "portable")),
    all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))
)))]
mod imp {
    pub use super::{no_neon::*, no_x86::*};

    #[inline(always)]
    pub fn pattern_starts(window: &[u8; 66], patterns: &super::NibblePatterns, select: [u8; 3]) -> [u64; 3] {
        super::scalar_pattern_starts(window, patterns, select)
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
}

#[cfg(test)]
mod tests {
    use super::{Kernel, ascii_space_mask64, control_or_high_mask64, count_byte, count_byte_with, eq_mask64};

    /// The kernels this build and CPU can run: the portable one always, and without the
    /// `portable` feature at least SSE2 on x86-64 and NEON on aarch64, so a count path cannot
    /// silently go untested.
    fn kernels() -> Vec<Kernel> {
        let available: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.is_available()).collect();
        assert!(available.contains(&Kernel::Portable));
        if cfg!(all(target_arch = "x86_64", not(feature = "portable"))) {
            assert!(available.contains(&Kernel::Sse2));
        } else if cfg!(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))) {
            assert_eq!(available, [Kernel::Portable, Kernel::Neon]);
        } else {
            assert_eq!(available, [Kernel::Portable]);
        }
        available
    }

    #[test]
    #[cfg_attr(miri, ignore = "tens of thousands of counts: hours under Miri")]
    fn every_kernel_counts_like_a_plain_count_for_every_length_and_alignment() {
        let data: Vec<u8> = (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for kernel in kernels() {
            for start in 0..3 {
                for len in (0..400).chain([4079, 4080, 4081, 9999, 16_383, 16_384, 19_997]) {
                    let buf = &data[start..start + len];
                    for byte in [b'\n', 0x9b, 0, 0xff] {
                        let want = buf.iter().filter(|&&b| b == byte).count() as u64;
                        assert_eq!(count_byte_with(kernel, buf, byte), want, "{kernel:?} len {len} byte {byte}");
                    }
                }
            }
            // More than 255 blocks of matching bytes in a row (byte counters must not wrap).
            for len in [100_000, 255 * 128, 255 * 128 + 1, 256 * 128] {
                assert_eq!(count_byte_with(kernel, &vec![b'\n'; len], b'\n'), len as u64, "{kernel:?}");
            }
        }
        assert!(Kernel::best().is_available());
        assert_eq!(count_byte(b"a\nb\n\n", b'\n'), 3);
    }

    type AllMasks = (u64, u64, u64, u64, u64, u64, super::Utf8Ranges, usize);

    /// Every block mask of every 64-byte block of `buf`, with the masks `run` is given.
    struct Every<'a>(&'a [u8]);

    impl super::WithMasks for Every<'_> {
        type Output = Vec<AllMasks>;
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> Vec<AllMasks> {
            (0..self.0.len().saturating_sub(63))
                .map(|at| {
                    let b: &[u8; 64] = self.0[at..at + 64].try_into().unwrap();
                    let space = (m.ascii_space(b, None), m.ascii_space(b, Some(0x9a)));
                    (
                        m.eq(b, b'\n'),
                        m.high(b),
                        m.control_or_high(b),
                        m.controls(b),
                        space.0,
                        space.1,
                        m.utf8_ranges(b),
                        m.ascii_blocks(&self.0[at..]),
                    )
                })
                .collect()
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

        #[cfg_attr(miri, ignore = "proptest cases: hours under Miri")]
        /// Every kernel's masks (AVX2 and AVX-512 where the CPU has them) against the baseline
        /// ones (SSE2 or SWAR, which the tests above check against plain definitions), at every
        /// block alignment; `controls` too.
        #[test]
        fn best_block_masks_match_the_baseline(
            buf in proptest::collection::vec(proptest::prop_oneof![
                3 => b'a'..=b'z',
                1 => proptest::sample::select(vec![b'\n', b' ', b'\t', 0x0b, 0x0c, b'\r', 0x7f, 0xa0, 0x1f, 0x20]),
                2 => proptest::prelude::any::<u8>(),
            ], 64..400),
        ) {
            let best = super::with_best_masks(Every(&buf));
            let baseline = super::WithMasks::run(Every(&buf), super::Baseline);
            for kernel in super::Kernel::ALL {
            let got = super::with_masks(kernel, Every(&buf));
            proptest::prop_assert_eq!(&got, &baseline, "{:?}", kernel);
        }
        proptest::prop_assert_eq!(best, baseline);
        }
    }

    /// `cat -v` notation of one byte (`show_tabs`: TAB as `^I`; `show_ends`: LF as `$` LF).
    fn notation(b: u8, show_tabs: bool, show_ends: bool) -> Vec<u8> {
        match b {
            b'\n' if show_ends => b"$\n".to_vec(),
            b'\n' => b"\n".to_vec(),
            b'\t' if !show_tabs => b"\t".to_vec(),
            _ => {
                let mut v = Vec::new();
                let low = b & 0x7f;
                if b >= 0x80 {
                    v.extend_from_slice(b"M-");
                }
                match low {
                    0x7f => v.extend_from_slice(b"^?"),
                    0..0x20 => v.extend_from_slice(&[b'^', low + 0x40]),
                    _ => v.push(low),
                }
                v
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "AVX-512 intrinsics")]
    fn notation_blocks_write_every_byte_as_cat_v_does() {
        // Every byte value at every position of a block, runs, and blocks of plain text; the
        // kernel runs where the CPU has it (AVX-512 VBMI2), and must decline elsewhere.
        let mut input: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        input.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8));
        input.extend(std::iter::repeat_n(b'\n', 130));
        input.extend(b"plain text without any byte that needs notation, long enough to fill....".repeat(3));
        input.extend([0x80, 0xff, 0x7f, 0x9f, 0xa0, b'\t', 0x89, 0x8a]);
        for (tabs, ends) in [(false, false), (true, false), (false, true), (true, true)] {
            for start in [0, 1, 63] {
                let input = &input[start..];
                let mut out = vec![0u8; 7 + input.len() * 4 + 5 * 64];
                match super::notation_blocks(input, tabs, ends, &mut out, 7) {
                    Some((done, end)) => {
                        assert_eq!(done, input.len() / 64 * 64, "room for every block");
                        let want: Vec<u8> = input[..done].iter().flat_map(|&b| notation(b, tabs, ends)).collect();
                        assert!(out[..7].iter().all(|&b| b == 0), "wrote before `at`");
                        assert!(out[7..end] == want[..], "tabs {tabs} ends {ends} start {start}");
                    }
                    None => assert!(
                        Kernel::best() != Kernel::Avx512 || !crate::platform::cpu::features().avx512vbmi2,
                        "kernel available but declined"
                    ),
                }
            }
        }
    }

    /// Random rounds for a test: all of them natively, a few dozen under Miri (which interprets
    /// every vector instruction and would take hours), enough for every round-robin variant.
    fn rounds(native: usize) -> usize {
        if cfg!(miri) { 48 } else { native }
    }

    #[test]
    fn ascii_blocks_stop_at_the_block_of_the_first_high_byte() {
        let mut buf = vec![b'a'; 1000];
        assert_eq!(super::ascii_blocks(&buf), 960);
        for at in [0, 1, 63, 64, 130, 959, 960, 999] {
            buf[at] = 0x80;
            assert_eq!(super::ascii_blocks(&buf), at / 64 * 64, "{at}");
            buf[at] = b'a';
        }
    }

    #[test]
    fn utf8_ranges_mark_exactly_those_bytes() {
        for start in 0..4u16 {
            let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
            let mask =
                |f: &dyn Fn(u8) -> bool| -> u64 { block.iter().enumerate().map(|(i, &b)| u64::from(f(b)) << i).sum() };
            let want = super::Utf8Ranges {
                high: mask(&|b| b >= 0x80),
                cont: mask(&|b| (0x80..0xc0).contains(&b)),
                ge_c2: mask(&|b| b >= 0xc2),
                ge_e0: mask(&|b| b >= 0xe0),
                ge_f0: mask(&|b| b >= 0xf0),
                ge_f5: mask(&|b| b >= 0xf5),
            };
            assert_eq!(super::utf8_ranges64(&block), want);
        }
    }

    /// Every kernel's pattern look-up against the position-by-position reference, on random
    /// tables and windows (every nibble of every position exercised).
    #[test]
    fn pattern_starts_match_the_scalar_reference() {
        struct Starts<'a>(&'a [u8; 66], &'a super::NibblePatterns, [u8; 3]);
        impl super::WithMasks for Starts<'_> {
            type Output = ([u64; 3], bool);
            #[inline(always)]
            fn run<M: super::BlockMasks>(self, m: M) -> ([u64; 3], bool) {
                (m.pattern_starts(self.0, self.1, self.2), M::TABLE_LOOKUPS)
            }
        }
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1du64);
        let mut tabled = std::collections::BTreeSet::new();
        for round in 0..rounds(2000) {
            let mut patterns = super::NibblePatterns::default();
            for j in 0..3 {
                for n in 0..16 {
                    // Dense tables in some rounds, sparse in others.
                    let density = round % 3;
                    patterns.lo[j][n] = (next() as u8) | if density == 0 { next() as u8 } else { 0 };
                    patterns.hi[j][n] = (next() as u8) & if density == 2 { next() as u8 } else { 0xff };
                }
            }
            let window: [u8; 66] = std::array::from_fn(|_| next() as u8);
            let select = [next() as u8, next() as u8, next() as u8];
            let want = super::scalar_pattern_starts(&window, &patterns, select);
            for kernel in Kernel::ALL.into_iter().filter(|k| k.is_available()) {
                let (got, tables) = super::with_masks(kernel, Starts(&window, &patterns, select));
                assert_eq!(got, want, "{kernel:?} round {round}");
                if tables {
                    tabled.insert(kernel.name());
                }
            }
        }
        // Say which vector versions ran (the others need a CPU this one is not).
        eprintln!("pattern_starts: table look-ups checked for {tabled:?}");
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        assert!(!tabled.is_empty() || !Kernel::Avx2.is_available());
    }

    /// Every kernel's UTF-8 validator against the byte-by-byte reference, on valid text with
    /// errors planted at every position (and on random bytes).
    #[test]
    fn utf8_errors_match_the_reference() {
        struct Check<'a>(&'a [u8; 67]);
        impl super::WithMasks for Check<'_> {
            type Output = (bool, bool);
            #[inline(always)]
            fn run<M: super::BlockMasks>(self, m: M) -> (bool, bool) {
                (m.utf8_errors(self.0), M::TABLE_LOOKUPS)
            }
        }
        let reference =
            |w: &[u8; 67]| (3..67).any(|i| super::utf8_tables::error_at(w[i - 3], w[i - 2], w[i - 1], w[i]));
        let text: Vec<u8> =
            "aé日本\u{1f600}x\u{800}\u{10ffff}\u{ffff}\u{d7ff}\u{e000}\u{80} \n".repeat(20).into_bytes();
        let mut next = crate::testing::xorshift(0x1234_5678_9abc_def0u64);
        let mut checked = 0;
        for round in 0..rounds(4000) {
            let at = (next() as usize) % (text.len() - 67);
            let mut w: [u8; 67] = text[at..at + 67].try_into().unwrap();
            match round % 4 {
                0 => {}
                1 => w[(next() as usize) % 67] = next() as u8,
                2 => {
                    w[3 + (next() as usize) % 64] =
                        [0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff, b'a'][(next() as usize) % 11]
                }
                _ => w = std::array::from_fn(|_| next() as u8),
            }
            let want = reference(&w);
            for kernel in Kernel::ALL.into_iter().filter(|k| k.is_available()) {
                let (got, tables) = super::with_masks(kernel, Check(&w));
                if tables {
                    assert_eq!(got, want, "{kernel:?} round {round}: {w:02x?}");
                    checked += 1;
                } else {
                    assert!(got, "{kernel:?}: without table look-ups the answer must be 'unknown'");
                }
            }
        }
        eprintln!("utf8_errors: {checked} vector checks");
    }

    /// Every kernel's 64-entry look-up against the byte-by-byte reference.
    #[test]
    fn lookup64_matches_the_scalar_reference() {
        struct Look<'a>(&'a [u8; 64], &'a [u8; 64], [u8; 3]);
        impl super::WithMasks for Look<'_> {
            type Output = [u64; 3];
            #[inline(always)]
            fn run<M: super::BlockMasks>(self, m: M) -> [u64; 3] {
                m.lookup64(self.0, self.1, self.2)
            }
        }
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
        for round in 0..rounds(2000) {
            let table: [u8; 64] = std::array::from_fn(|_| next() as u8);
            // Every byte value, high bits included (only the low six index).
            let block: [u8; 64] =
                std::array::from_fn(|i| if round % 4 == 0 { (i * 4 + round) as u8 } else { next() as u8 });
            let select = [next() as u8, next() as u8, next() as u8];
            let want = super::scalar_lookup64(&block, &table, select);
            for kernel in Kernel::ALL.into_iter().filter(|k| k.is_available()) {
                assert_eq!(super::with_masks(kernel, Look(&block, &table, select)), want, "{kernel:?} round {round}");
            }
        }
    }

    /// Every kernel's `any_of` against `contains`, with the bytes sought at every position, and
    /// absent.
    #[test]
    fn any_of_finds_each_byte_anywhere() {
        struct AnyOf<'a>(&'a [u8; 64], [u8; 4]);
        impl super::WithMasks for AnyOf<'_> {
            type Output = bool;
            #[inline(always)]
            fn run<M: super::BlockMasks>(self, m: M) -> bool {
                m.any_of(self.0, self.1)
            }
        }
        let sought = [[0xc2, 0xe1, 0xe2, 0xe3], [0x00, 0xff, 0x80, 0x7f], [b'a', b'a', b'a', b'a']];
        for bytes in sought {
            let mut block: [u8; 64] = std::array::from_fn(|i| 0x30 + (i % 40) as u8);
            block.iter_mut().filter(|b| bytes.contains(b)).for_each(|b| *b = b'.');
            for at in 0..=64 {
                for &b in &bytes {
                    let mut block = block;
                    if at < 64 {
                        block[at] = b;
                    }
                    let want = block.iter().any(|x| bytes.contains(x));
                    for kernel in Kernel::ALL.into_iter().filter(|k| k.is_available()) {
                        assert_eq!(super::with_masks(kernel, AnyOf(&block, bytes)), want, "{kernel:?} {b:#x} at {at}");
                    }
                }
            }
        }
    }

    #[test]
    fn ascii_space_mask_marks_exactly_those_bytes() {
        for start in 0..4u16 {
            let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
            for extra in [None, Some(0xa0), Some(0x9a)] {
                let want: u64 = block
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| u64::from(matches!(b, 9..=13 | 32) || Some(b) == extra) << i)
                    .sum();
                assert_eq!(ascii_space_mask64(&block, extra), want);
            }
        }
    }

    #[test]
    fn control_or_high_mask_marks_exactly_those_bytes() {
        for start in 0..4u16 {
            let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(!(0x20..0x7f).contains(&b)) << i).sum();
            assert_eq!(control_or_high_mask64(&block), want);
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(b >= 0x80) << i).sum();
            assert_eq!(super::high_bit_mask64(&block), want);
        }
    }

    #[test]
    fn mask_marks_exactly_the_matching_bytes() {
        let mut block = [0u8; 64];
        for seed in 0..rounds(2000) as u64 {
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            for b in block.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = [b'\n', b'\n' ^ 0x80, 0x0b, 0x09, 0xff, 0, x as u8][(x >> 40) as usize % 7];
            }
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(b == b'\n') << i).sum();
            assert_eq!(eq_mask64(&block, b'\n'), want);
        }
    }
}
