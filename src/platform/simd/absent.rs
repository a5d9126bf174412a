//! The places of the kernels a build does not have.

/// The x86 kernels' places in a build without them (they are never available there, so none
/// of these is reached except `with_avx2`/`with_avx512`, which run the baseline masks).
#[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
pub mod x86 {
    pub const HAS_X86_KERNELS: bool = false;

    /// No stable prefetch instruction to ask for here (aarch64's is not stable in Rust).
    #[inline(always)]
    pub fn prefetch(_: *const u8) {}

    pub fn with_avx2<W: super::super::WithMasks>(work: W) -> W::Output {
        work.run(super::super::Baseline)
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
pub mod neon {
    pub const HAS_NEON: bool = false;

    pub fn count_byte_neon(_: &[u8], _: u8) -> u64 {
        unreachable!("no NEON kernel in this build")
    }
}
