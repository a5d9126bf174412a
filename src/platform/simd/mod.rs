//! The SIMD block masks of `wc`'s and `cat`'s loops, chosen at run time.
//!
//! Every algorithm is written once, in [`Masks`] (`generic.rs`), over the primitives of a
//! 64-byte block, [`Block64`], whose associated [`Mask`] type absorbs how each instruction set
//! holds a compare's result, as BurntSushi's `memchr` writes its searches over its `Vector`
//! trait. Each instruction set implements the trait in a file of its own: `x86_64/sse2.rs`
//! (x86-64's baseline), `x86_64/avx2.rs`, `x86_64/avx512.rs` (with two kernels for CPUs with
//! VBMI and VBMI2: cat's notation, `x86_64/notation.rs`, and the UTF-8 batch check,
//! `x86_64/utf8.rs`), `aarch64.rs` (NEON, aarch64's baseline) and `swar.rs` (plain Rust,
//! 8 bytes at a time: the portable kernel everywhere, and the only block of other targets and
//! of the `portable` build).
//! [`with_masks`] is the one place a kernel is chosen: it runs the caller's work ([`WithMasks`])
//! with the masks of the kernel asked for ([`Kernel::best`], from the one feature source,
//! [`super::cpu::features`]), from a function compiled for its instruction set; holding a
//! [`Masks`] is the proof that the CPU runs it.

use std::ffi::CStr;
use std::sync::OnceLock;

#[cfg(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable")))]
mod aarch64;
mod generic;
mod patterns;
// The portable kernel, on every build.
mod swar;
#[cfg(test)]
mod tests;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod x86_64;

pub use generic::{Block64, Mask, Masks, TALLY_MAX, Tally, UTF8_BLOCKS_MAX, UTF8_SPARSE_BLOCKS_MAX, utf8_cut_before};
pub use patterns::{BY_COMPARES, BY_SELECTION, BY_TOP, BytePatterns};

/// The vector set every CPU this build runs on has: SSE2 on x86-64, NEON on aarch64 (none
/// elsewhere and with `portable`: SWAR stands in).
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
type Baseline = x86_64::Sse2;
#[cfg(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable")))]
type Baseline = aarch64::Neon;
#[cfg(not(any(
    all(target_arch = "x86_64", not(feature = "portable")),
    all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))
)))]
type Baseline = swar::Swar;

/// An instruction set a kernel is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// No vector instruction set: plain Rust, 8 bytes at a time (SWAR), the same code on every
    /// target, and the only kernel of the portable build.
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
            Kernel::Neon => cfg!(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))),
            Kernel::Sse2 | Kernel::Avx2 => cfg!(all(target_arch = "x86_64", not(feature = "portable"))),
            // Where the compiler has the AVX-512 intrinsics (build.rs).
            Kernel::Avx512 => cfg!(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512)),
        }
    }

    /// The target features the kernel's code is compiled for (the `#[target_feature(enable)]`
    /// of `with_avx2` and `with_avx512`): it runs only where the CPU has every one. The
    /// baselines need none beyond the build's own.
    pub fn target_features(self) -> &'static [&'static str] {
        match self {
            Kernel::Portable | Kernel::Neon | Kernel::Sse2 => &[],
            Kernel::Avx2 => &["avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
            Kernel::Avx512 => &["avx512f", "avx512bw", "avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
        }
    }

    /// Whether this build has the kernel and this CPU can run it.
    pub fn is_available(self) -> bool {
        self.runs_with(super::cpu::features())
    }

    /// Whether this build has the kernel and a CPU with `features` can run it.
    fn runs_with(self, features: super::cpu::Features) -> bool {
        self.in_build() && self.fits(features)
    }

    /// Whether a CPU with `features` could run the kernel, were it in this build.
    fn fits(self, features: super::cpu::Features) -> bool {
        let has_all = features.has_all(self.target_features());
        match self {
            Kernel::Portable => true,
            // NEON is aarch64's baseline; `GLIBC_TUNABLES=glibc.cpu.hwcaps=-ASIMD` turns it off,
            // so that `wc --debug` says what GNU's does (the portable kernel runs then).
            Kernel::Neon => features.neon,
            Kernel::Sse2 => features.sse2,
            Kernel::Avx2 => has_all && !features.avx2_disabled,
            // Compiled for AVX2 too: the CPU must have it, even where GLIBC_TUNABLES turned the
            // AVX2 kernel off (GNU's wc then still uses AVX-512, and so do we).
            Kernel::Avx512 => has_all && !features.avx512_disabled,
        }
    }

    /// What GNU 9.12's `wc --debug` says it checked for line counting, in GNU's words (its
    /// message ids, for the catalog): on x86-64 AVX-512, then (when not used) AVX2; on aarch64
    /// NEON; elsewhere nothing. Said of the kernel in use, so `GLIBC_TUNABLES` and
    /// `RAPIDUTILS_SIMD` are reflected. A build without the AVX-512 kernel (a compiler older
    /// than 1.89) on a CPU that has AVX-512 says what a GNU built without it says: AVX2 alone.
    pub fn gnu_debug_report(self) -> &'static [&'static CStr] {
        if cfg!(target_arch = "x86_64") {
            match self {
                Kernel::Avx512 => &[c"using avx512 hardware support"],
                Kernel::Avx2 if !Kernel::Avx512.in_build() && Kernel::Avx512.fits(super::cpu::features()) => {
                    &[c"using avx2 hardware support"]
                }
                Kernel::Avx2 => &[c"avx512 support not detected", c"using avx2 hardware support"],
                _ => &[c"avx512 support not detected", c"avx2 support not detected"],
            }
        } else if cfg!(target_arch = "aarch64") {
            if self == Kernel::Neon { &[c"using neon hardware support"] } else { &[c"neon support not detected"] }
        } else {
            &[]
        }
    }

    /// This kernel if this build and CPU have it, else the fastest below it that they have.
    pub fn or_below(self) -> Kernel {
        Kernel::ALL.into_iter().rev().skip_while(|&k| k != self).find(|k| k.is_available()).unwrap_or(Kernel::Portable)
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

/// The target features the AVX-512 kernel's VBMI loops (cat's notation, the UTF-8 batch check)
/// are compiled for beyond [`Kernel::Avx512`]'s.
pub const VBMI_FEATURES: [&str; 2] = ["avx512vbmi", "avx512vbmi2"];

/// The three 16-entry tables of the Keiser-Lemire UTF-8 validator (see
/// [`Masks::utf8_errors`]): by the previous byte's high nibble, its low nibble, and the
/// byte's own high nibble; a byte pair is an error where all three share a bit (and that bit is
/// not bit 0, the "two continuations" bit, where a continuation byte is expected). Bit 0, not
/// Keiser and Lemire's bit 7: the expectation is then found as 1 or 0 by saturating adds, whose
/// byte from memory needs no load of its own (see `utf8_error_bytes`).
pub mod utf8_tables {
    const TOO_SHORT: u8 = 1 << 7;
    const TOO_LONG: u8 = 1 << 1;
    const OVERLONG_3: u8 = 1 << 2;
    const TOO_LARGE: u8 = 1 << 3;
    const SURROGATE: u8 = 1 << 4;
    const OVERLONG_2: u8 = 1 << 5;
    const TOO_LARGE_1000: u8 = 1 << 6;
    const OVERLONG_4: u8 = 1 << 6;
    const TWO_CONTS: u8 = 1 << 0;
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
        let must = if prev2 >= 0xe0 || prev3 >= 0xf0 { 1 } else { 0 };
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

/// Code to run with the block masks of a kernel (see [`with_masks`]).
pub trait WithMasks {
    type Output;
    /// Implementations mark this `#[inline(always)]` and inline their work into it: only code
    /// inlined into the caller is compiled for the caller's instruction set.
    fn run<B: Block64>(self, masks: Masks<B>) -> Self::Output;
}

/// Runs `work` with the block masks of `kernel` (or of the best one below it this build and CPU
/// have, [`Kernel::or_below`]), from a function compiled for that instruction set: for AVX2 and
/// AVX-512 also BMI1/2, POPCNT and LZCNT ([`Kernel::target_features`]), so what `work` inlines
/// uses `popcnt`, `tzcnt`, `lzcnt` and VEX or EVEX encodings too. The portable kernel runs the
/// SWAR masks; the baseline kernels (SSE2 on x86-64, NEON on aarch64) the baseline's.
#[inline(always)]
pub fn with_masks<W: WithMasks>(kernel: Kernel, work: W) -> W::Output {
    match kernel.or_below() {
        // SAFETY: `or_below` gives a kernel the CPU runs: it has every one of the kernel's
        // target features (`Kernel::is_available`), and VBMI and VBMI2 where it says so.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512))]
        Kernel::Avx512 => unsafe { x86_64::with_avx512(work, super::cpu::features().has_all(&VBMI_FEATURES)) },
        // SAFETY: as for AVX-512.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        Kernel::Avx2 => unsafe { x86_64::with_avx2(work) },
        // SAFETY: SWAR is plain Rust: every CPU runs it.
        Kernel::Portable => work.run(unsafe { Masks::<swar::Swar>::new(false) }),
        // SAFETY: the baseline set is enabled for the whole build: every CPU it runs on has it.
        _ => work.run(unsafe { Masks::<Baseline>::new(false) }),
    }
}

/// [`with_masks`] with the best kernel.
#[inline(always)]
pub fn with_best_masks<W: WithMasks>(work: W) -> W::Output {
    with_masks(Kernel::best(), work)
}

/// How many bytes of `buf` equal `byte`, with the best kernel.
pub fn count_byte(buf: &[u8], byte: u8) -> u64 {
    struct Count<'a>(&'a [u8], u8);
    impl WithMasks for Count<'_> {
        type Output = u64;
        #[inline(always)]
        fn run<B: Block64>(self, masks: Masks<B>) -> u64 {
            masks.count_byte(self.0, self.1)
        }
    }
    with_best_masks(Count(buf, byte))
}

/// How far ahead of the byte being formatted `prefetch_ahead` asks for the input: far enough to
/// cover a memory access, and past a page boundary (where the hardware prefetchers stop) before
/// the loop gets there. Matters when the input is a mapping of the page cache rather than a
/// read buffer that the kernel's copy just left in the cache; 2 KiB measured faster there than
/// 512 bytes or 4 KiB (benches/RESULTS.md, "Figures behind code comments").
const PREFETCH_DISTANCE: usize = 2048;

/// Asks the CPU to bring `input[at + PREFETCH_DISTANCE]`'s cache line in (nothing where the
/// build has no stable prefetch instruction to ask with: aarch64's is not stable in Rust). Never
/// faults, also past the end of `input`.
#[inline(always)]
pub fn prefetch_ahead(input: &[u8], at: usize) {
    let _ahead = input.as_ptr().wrapping_add(at.wrapping_add(PREFETCH_DISTANCE));
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    // SAFETY: a prefetch is a hint: it never faults, whatever the address (SSE, baseline).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(_ahead.cast())
    }
}
