//! `cat -v`'s notation: [`shown`], the one definition of what `cat` shows for each byte, and kernels building it for
//! whole blocks in registers. Without one, `cat` maps the bytes itself (`cat::format::map`) by [`shown`]'s tables.

use super::{Block64, Kernel, Masks};
use crate::platform::Changing;
use crate::platform::cpu::Features;

/// What `cat` shows for `byte`, and how many of the four bytes. With `nonprinting` (-v), `M-` before a byte above
/// 0x7f (less 0x80), a control as `^` and the byte ^ 0x40 (DEL `^?`). TAB as `^I` with `tabs`, else itself (even
/// with -v); LF as `$` LF with `ends`. Without -v, CR as `^M` with `ends` (GNU 9.12: just before a LF).
pub const fn shown(byte: u8, nonprinting: bool, tabs: bool, ends: bool) -> ([u8; 4], usize) {
    match byte {
        b'\n' if ends => ([b'$', b'\n', 0, 0], 2),
        b'\n' => ([b'\n', 0, 0, 0], 1),
        b'\t' if tabs => ([b'^', b'I', 0, 0], 2),
        b'\t' => ([b'\t', 0, 0, 0], 1),
        b'\r' if ends && !nonprinting => ([b'^', b'M', 0, 0], 2),
        _ if !nonprinting => ([byte, 0, 0, 0], 1),
        _ => {
            let mut out = [0; 4];
            let mut len = 0;
            if byte >= 0x80 {
                out = [b'M', b'-', 0, 0];
                len = 2;
            }
            let low = byte & 0x7f;
            if low < 0x20 || low == 0x7f {
                out[len] = b'^';
                out[len + 1] = low ^ 0x40;
                len += 2;
            } else {
                out[len] = low;
                len += 1;
            }
            (out, len)
        }
    }
}

/// How a kernel writes the notation of whole blocks (see [`choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// AVX-512 VBMI2: byte permutes and compresses, cheaper than `cat`'s own steps on every
    /// block, so every whole block of a chunk goes through it (`x86_64/notation_vbmi2.rs`).
    Permutes,
    /// SSSE3, AVX2 and NEON: interleaves and a shuffle from a table per four bytes (`NOTATION_SHUFFLES`), for blocks
    /// with much to notate (`x86_64/notation_ssse3.rs`, `x86_64/notation_avx2.rs`, `aarch64/notation_neon.rs`).
    Shuffles,
    /// None: `cat` maps every byte itself.
    Steps,
}

/// What [`Notation::Permutes`] needs beyond the AVX-512 kernel's features.
#[cfg(test)]
pub const PERMUTES_FEATURES: [&str; 2] = ["avx512vbmi", "avx512vbmi2"];

/// The notation kernel of `kernel` on a CPU with `features` (AVX-512 lacking VBMI2 runs AVX2's).
#[inline(always)]
pub fn choose(kernel: Kernel, features: Features) -> Notation {
    match kernel {
        // (PERMUTES_FEATURES, which a test holds to this.)
        Kernel::Avx512 if features.avx512vbmi && features.avx512vbmi2 => Notation::Permutes,
        Kernel::Avx512 | Kernel::Avx2 | Kernel::Ssse3 | Kernel::Neon => Notation::Shuffles,
        Kernel::Sse2 | Kernel::Portable => Notation::Steps,
    }
}

impl<B: Block64> Masks<B> {
    /// `cat -v` notation of the whole blocks of `input` (TAB as `^I` with `tabs`, LF as `$` LF
    /// with `ends`), from the start of `out` while it has 256 bytes of room a block. Returns the
    /// input and output bytes done (none with [`Notation::Steps`]); `out` past those may change.
    #[inline(always)]
    pub fn notation(self, input: Changing<'_>, tabs: bool, ends: bool, out: &mut [u8]) -> (usize, usize) {
        let input = input.read_each_once();
        #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
        {
            #[cfg(rapidutils_avx512)]
            if B::KERNEL == Kernel::Avx512 && self.families().notation == Notation::Permutes {
                // SAFETY: `Permutes`: the CPU has AVX-512BW, VBMI, VBMI2 (`Masks::new`), and POPCNT with AVX-512.
                return unsafe { super::x86_64::notation_vbmi2::notation_blocks(input, tabs, ends, out) };
            }
            if B::KERNEL.has_avx2() && self.families().notation == Notation::Shuffles {
                // SAFETY: `B`'s set has AVX2 (`Kernel::has_avx2`); a `Masks<B>` proves the CPU runs it (`Masks::new`).
                return unsafe { super::x86_64::notation_avx2::notation_blocks(input, tabs, ends, out) };
            }
            if B::KERNEL == Kernel::Ssse3 && self.families().notation == Notation::Shuffles {
                // SAFETY: a `Masks<B>` of the SSSE3 kernel proves the CPU has SSSE3 (`Masks::new`); its code is
                // compiled for it (`with_ssse3`).
                return unsafe { super::x86_64::notation_ssse3::notation_blocks(input, tabs, ends, out) };
            }
        }
        #[cfg(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable")))]
        if B::KERNEL == Kernel::Neon && self.families().notation == Notation::Shuffles {
            return super::aarch64::notation_neon::notation_blocks(input, tabs, ends, out);
        }
        let _ = (input, tabs, ends, out);
        (0, 0)
    }
}

/// The table of the kernels that shuffle: SSSE3's, AVX2's and NEON's.
#[cfg(any(
    all(target_arch = "x86_64", not(feature = "portable")),
    all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))
))]
pub(super) mod shuffles {
    /// The table of [`super::Notation::Shuffles`]: for four bytes whose fields (`M`, `-`, `^` or `$`, the character)
    /// are used as the index says (byte i's `M-` bit 2i, its `^` or `$` bit 2i + 1; the character always), the
    /// shuffle packing the used fields of those four bytes' 16 together, and their number. An unused place is 0x80,
    /// out of range: both sets' shuffles give 0 there.
    pub struct NotationShuffles {
        pub shuffles: [[u8; 16]; 256],
        pub lens: [u8; 256],
    }

    const fn notation_shuffles() -> NotationShuffles {
        let mut t = NotationShuffles { shuffles: [[0x80; 16]; 256], lens: [0; 256] };
        let mut index = 0;
        while index < 256 {
            let mut n = 0;
            let mut i = 0;
            while i < 4 {
                let (meta, prefix) = (index >> (2 * i) & 1 != 0, index >> (2 * i + 1) & 1 != 0);
                let mut field = 4 * i;
                while field < 4 * i + 4 {
                    let used = match field % 4 {
                        0 | 1 => meta,
                        2 => prefix,
                        _ => true,
                    };
                    if used {
                        t.shuffles[index][n] = field as u8;
                        n += 1;
                    }
                    field += 1;
                }
                i += 1;
            }
            t.lens[index] = n as u8;
            index += 1;
        }
        t
    }

    pub static NOTATION_SHUFFLES: NotationShuffles = notation_shuffles();
}
