//! x86-64: SSE2 (part of every x86-64 CPU), SSSE3, AVX2 and AVX-512, which `with_masks` runs where the CPU has them,
//! and the kernels of the families that need more than the block's primitives: cat's notation (SSSE3's and AVX2's
//! shuffles, AVX-512 VBMI2's permutes) and the UTF-8 checks (of one- and three-byte forms on AVX2's and SSE2's
//! registers, AVX-512 VBMI's batch check).

mod avx2;
// Built where the compiler has the AVX-512 intrinsics (Rust 1.89, build.rs); clippy checks them for that version.
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
mod avx512;
pub mod notation_avx2;
pub mod notation_ssse3;
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
pub mod notation_vbmi2;
mod sse;
pub mod utf8_three;
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
pub mod utf8_vbmi;

pub use avx2::with_avx2;
#[cfg(rapidutils_avx512)]
pub use avx512::with_avx512;
pub use sse::{Sse2, with_ssse3};

/// `byte` 32 times.
///
/// # Safety
/// The CPU has AVX2.
#[inline(always)]
unsafe fn splat8(byte: u8) -> std::arch::x86_64::__m256i {
    // SAFETY: the caller's guarantee.
    unsafe { std::arch::x86_64::_mm256_set1_epi8(byte as i8) }
}

/// The 64 bytes of `block` in a register (for the VBMI kernels, which work on `__m512i` alone).
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
#[inline]
fn load512(block: &[u8; 64]) -> std::arch::x86_64::__m512i {
    // SAFETY: `block` is 64 readable bytes; _mm512_loadu_si512 needs no alignment.
    unsafe { std::arch::x86_64::_mm512_loadu_si512(block.as_ptr().cast()) }
}
