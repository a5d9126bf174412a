//! `cat -v`'s notation of whole 64-byte blocks (`M-` for bytes above 0x7f, `^` for controls,
//! TAB and LF as `-T` and `-E` say): the kernels that build a block's notation in registers,
//! whatever how many of its bytes need it. Where a kernel has none, `cat` maps the bytes itself
//! (`cat::format::map`), by the same table these kernels are tested against.

use super::{Block64, Kernel, Masks};
use crate::platform::cpu::Features;

/// How a kernel writes the notation of whole blocks (see [`choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// AVX-512 VBMI2: byte permutes and compresses, cheaper than `cat`'s own steps on every
    /// block, so every whole block of a chunk goes through it (`x86_64/notation_vbmi2.rs`).
    Permutes,
    /// AVX2: interleaves and a byte shuffle from a table per four bytes, for blocks with many
    /// bytes to notate (`x86_64/notation_avx2.rs`).
    Shuffles,
    /// None: `cat` maps every byte itself.
    Steps,
}

/// What [`Notation::Permutes`] needs beyond the AVX-512 kernel's features.
pub const PERMUTES_FEATURES: [&str; 2] = ["avx512vbmi", "avx512vbmi2"];

/// The notation kernel of `kernel` on a CPU with `features`: AVX-512 with VBMI and VBMI2 has
/// one of its own; AVX-512 without them runs AVX2's (its code is compiled for AVX2 too).
pub fn choose(kernel: Kernel, features: Features) -> Notation {
    match kernel {
        Kernel::Avx512 if features.has_all(&PERMUTES_FEATURES) => Notation::Permutes,
        Kernel::Avx512 | Kernel::Avx2 => Notation::Shuffles,
        Kernel::Neon | Kernel::Sse2 | Kernel::Portable => Notation::Steps,
    }
}

impl<B: Block64> Masks<B> {
    /// `cat -v` notation of the whole 64-byte blocks of `input` (TAB as `^I` with `tabs`, LF
    /// as `$` LF with `ends`, else both as they are), written from the start of `out` while it
    /// has 256 bytes of room a block; returns the input bytes done and the output bytes
    /// written. Bytes of `out` past those written may be overwritten. With
    /// [`Notation::Steps`] nothing is done: (0, 0).
    #[inline(always)]
    pub fn notation(self, input: &[u8], tabs: bool, ends: bool, out: &mut [u8]) -> (usize, usize) {
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            #[cfg(rapidutils_avx512)]
            if B::KERNEL == Kernel::Avx512 && self.families().notation == Notation::Permutes {
                // SAFETY: `Permutes` says the CPU has AVX-512BW, VBMI and VBMI2 (see
                // `Masks::new`); POPCNT comes with the AVX-512 kernel.
                return unsafe { super::x86_64::notation_vbmi2::notation_blocks(input, tabs, ends, out) };
            }
            if B::KERNEL.has_avx2() && self.families().notation != Notation::Steps {
                // SAFETY: `B`'s set includes AVX2 (`Kernel::has_avx2`), which holding `Masks<B>`
                // proves the CPU runs (see `Masks::new`).
                return unsafe { super::x86_64::notation_avx2::notation_blocks(input, tabs, ends, out) };
            }
        }
        let _ = (input, tabs, ends, out);
        (0, 0)
    }
}
