//! x86-64: the SSE2 baseline, and AVX2 and AVX-512 chosen at run time.

mod avx2;
mod avx512;
mod notation;
mod sse2;

pub use super::absent::neon::*;
pub use avx2::{count_byte_avx2, with_avx2};
pub use avx512::{count_byte_avx512, with_avx512};
pub use notation::notation_blocks;
pub use sse2::*;

pub const HAS_X86_KERNELS: bool = true;

#[inline(always)]
pub fn prefetch(at: *const u8) {
    // SAFETY: a prefetch is a hint: it never faults, whatever the address (SSE, baseline).
    unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast()) }
}
