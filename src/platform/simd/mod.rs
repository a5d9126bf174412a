//! The SIMD block masks of `wc`'s and `cat`'s loops, chosen at run time, as in `memchr`.
//!
//! * [`Block64`] (`block.rs`): a block's primitives, one implementation per set: `x86_64/` (SSE2, the baseline;
//!   SSSE3; AVX2; AVX-512), `aarch64/` (NEON, the baseline), `swar.rs` (plain Rust: the portable kernel, other
//!   targets' block).
//! * [`Masks`] (`masks.rs`): the masks every loop uses, written once over the primitives.
//! * The kernel families, a file each (UTF-8 checks, cat's notation, byte patterns), over the primitives, and per set
//!   only where a set does better (`x86_64/`, `aarch64/`). [`Families::of`] chooses; a set without its own kernel
//!   inherits a lower set's.
//!
//! [`with_masks`] is the one place a kernel is chosen: it runs the caller's [`WithMasks`] in a
//! function compiled for the kernel's set. Holding a [`Masks`] proves that the CPU runs it.

use super::Changing;
use std::ffi::CStr;
use std::sync::OnceLock;

#[cfg(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable")))]
mod aarch64;
mod block;
mod masks;
pub mod notation;
mod patterns;
// The portable kernel, on every build.
mod swar;
#[cfg(test)]
mod tests;
mod utf8;
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod x86_64;

pub use block::{Block64, Mask};
pub use masks::{Masks, TALLY_MAX, Tally};
pub use notation::Notation;
pub use patterns::{BY_COMPARES, BY_SELECTION, BY_TOP, BytePatterns, NibblePatterns};
pub use utf8::{UTF8_BLOCKS_MAX, UTF8_SPARSE_BLOCKS_MAX, Utf8Check, Utf8Ranges, utf8_cut_before, utf8_tables};

/// The vector set every CPU of this build has: SSE2 on x86-64, NEON on aarch64, else SWAR.
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
    /// No vector set: SWAR in plain Rust on every target, the `portable` build's only kernel.
    Portable,
    /// aarch64's baseline.
    Neon,
    Sse2,
    /// SSE2 with SSSE3's byte shuffle and POPCNT (in x86-64-v2): CPUs without AVX2 from Nehalem and Silvermont on.
    Ssse3,
    Avx2,
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first.
    pub const ALL: [Kernel; 6] =
        [Kernel::Portable, Kernel::Neon, Kernel::Sse2, Kernel::Ssse3, Kernel::Avx2, Kernel::Avx512];

    /// The name `wc --debug` prints (GNU's names for the same instruction sets).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Neon => "neon",
            Kernel::Sse2 => "sse2",
            Kernel::Ssse3 => "ssse3",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this build has the kernel (whether or not this CPU can run it).
    pub fn in_build(self) -> bool {
        match self {
            Kernel::Portable => true,
            Kernel::Neon => cfg!(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))),
            Kernel::Sse2 | Kernel::Ssse3 | Kernel::Avx2 => cfg!(all(target_arch = "x86_64", not(feature = "portable"))),
            // Where the compiler has the AVX-512 intrinsics (build.rs).
            Kernel::Avx512 => cfg!(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512)),
        }
    }

    /// The target features the kernel's code is compiled for: it runs only where the CPU has all.
    pub fn target_features(self) -> &'static [&'static str] {
        match self {
            Kernel::Portable | Kernel::Neon | Kernel::Sse2 => &[],
            Kernel::Ssse3 => &["ssse3", "popcnt"],
            Kernel::Avx2 => &["avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
            Kernel::Avx512 => &["avx512f", "avx512bw", "avx2", "bmi1", "bmi2", "popcnt", "lzcnt"],
        }
    }

    /// Whether the set's table look-ups ([`Block64::lookup16`], [`Block64::lookup64`]) are
    /// vector instructions (byte shuffles): without them a caller may do better by compares.
    pub const fn table_lookups(self) -> bool {
        matches!(self, Kernel::Neon | Kernel::Ssse3 | Kernel::Avx2 | Kernel::Avx512)
    }

    /// Whether the kernel's code is compiled for AVX2 (so AVX2's family kernels run in it).
    pub const fn has_avx2(self) -> bool {
        matches!(self, Kernel::Avx2 | Kernel::Avx512)
    }

    /// The fastest kernel this build has that a CPU with `features` runs.
    pub fn fastest(features: super::cpu::Features) -> Kernel {
        Kernel::ALL.into_iter().rev().find(|k| k.runs_with(features)).unwrap_or(Kernel::Portable)
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
            Kernel::Ssse3 => has_all,
            Kernel::Avx2 => has_all && !features.avx2_disabled,
            // Compiled for AVX2 too: the CPU must have it, even where GLIBC_TUNABLES turned the
            // AVX2 kernel off (GNU's wc then still uses AVX-512, and so do we).
            Kernel::Avx512 => has_all && !features.avx512_disabled,
        }
    }

    /// What GNU 9.12's `wc --debug` says it checked for line counting, as GNU's message ids: on
    /// x86-64 AVX-512, then (when not used) AVX2; on aarch64 NEON; elsewhere nothing. Said of the
    /// kernel in use, so `GLIBC_TUNABLES` and `RAPIDUTILS_SIMD` count. A build without AVX-512
    /// (compiler older than 1.89) on an AVX-512 CPU says what a GNU built without it does: AVX2.
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

    /// The fastest kernel this CPU runs, decided once, or a slower one `RAPIDUTILS_SIMD` names.
    pub fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            let fastest = Kernel::fastest(super::cpu::features());
            let wanted = std::env::var_os("RAPIDUTILS_SIMD");
            match Kernel::ALL.iter().find(|k| wanted.as_deref() == Some(std::ffi::OsStr::new(k.name()))) {
                Some(&k) if k.is_available() => k,
                _ => fastest,
            }
        })
    }
}

/// Each family's kernel beside a block kernel: a pure function, so tests can ask it of other CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Families {
    pub notation: Notation,
    pub utf8: Utf8Check,
}

impl Families {
    /// Each family's kernel with `kernel` on a CPU with `features`.
    #[inline(always)]
    pub fn of(kernel: Kernel, features: super::cpu::Features) -> Families {
        Families { notation: notation::choose(kernel, features), utf8: utf8::choose(kernel, features) }
    }
}

/// Code to run with the block masks of a kernel (see [`with_masks`]).
pub trait WithMasks {
    type Output;
    /// Implementations mark this `#[inline(always)]` and inline their work into it: only code
    /// inlined into the caller is compiled for the caller's instruction set.
    fn run<B: Block64>(self, masks: Masks<B>) -> Self::Output;
}

/// Runs `work` with the block masks of `kernel`, or the best below it that this build and CPU
/// have, in a function compiled for its set ([`Kernel::target_features`]) that `work` inlines into.
#[inline(always)]
pub fn with_masks<W: WithMasks>(kernel: Kernel, work: W) -> W::Output {
    let features = super::cpu::features();
    match kernel.or_below() {
        // SAFETY: `or_below` gives a kernel the CPU runs: it has every one of the kernel's
        // target features (`Kernel::is_available`), and `features` are the CPU's.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512))]
        Kernel::Avx512 => unsafe { x86_64::with_avx512(work, features) },
        // SAFETY: as for AVX-512.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        Kernel::Avx2 => unsafe { x86_64::with_avx2(work, features) },
        // SAFETY: as for AVX-512.
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        Kernel::Ssse3 => unsafe { x86_64::with_ssse3(work, features) },
        // SAFETY: SWAR is plain Rust: every CPU runs it.
        Kernel::Portable => work.run(unsafe { Masks::<swar::Swar>::new(features) }),
        // SAFETY: the baseline set is enabled for the whole build: every CPU it runs on has it.
        _ => work.run(unsafe { Masks::<Baseline>::new(features) }),
    }
}

/// [`with_masks`] with the best kernel.
#[inline(always)]
pub fn with_best_masks<W: WithMasks>(work: W) -> W::Output {
    with_masks(Kernel::best(), work)
}

/// How many bytes of `buf` equal `byte`, with the best kernel.
pub fn count_byte(buf: Changing<'_>, byte: u8) -> u64 {
    struct Count<'a>(Changing<'a>, u8);
    impl WithMasks for Count<'_> {
        type Output = u64;
        #[inline(always)]
        fn run<B: Block64>(self, masks: Masks<B>) -> u64 {
            masks.count_byte(self.0, self.1)
        }
    }
    with_best_masks(Count(buf, byte))
}

/// How far ahead [`prefetch_ahead`] asks for input: past a memory access and a page boundary
/// (where hardware prefetchers stop) before the loop gets there, for mappings of the page cache.
/// 2 KiB was the best distance tried (benches/RESULTS.md, "Figures behind code comments").
const PREFETCH_DISTANCE: usize = 2048;

/// Asks the CPU to bring `input[at + PREFETCH_DISTANCE]`'s cache line in; never faults, even past
/// the end. Does nothing without a stable prefetch instruction (aarch64's is not stable in Rust).
#[inline(always)]
pub fn prefetch_ahead(input: Changing<'_>, at: usize) {
    prefetch(input.read_each_once(), at)
}

/// [`prefetch_ahead`] of a slice, for the kernels here.
#[inline(always)]
fn prefetch(input: &[u8], at: usize) {
    let _ahead = input.as_ptr().wrapping_add(at.wrapping_add(PREFETCH_DISTANCE));
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    // SAFETY: a prefetch is a hint: it never faults, whatever the address (SSE, baseline).
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(_ahead.cast())
    }
}
