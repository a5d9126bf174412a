//! x86-64: SSE2 (part of every x86-64 CPU), and AVX2 and AVX-512 (with cat's notation kernel
//! and a UTF-8 batch check for CPUs with VBMI and VBMI2), which `with_masks` runs where the CPU
//! has them.

mod avx2;
// Built where the compiler has the AVX-512 intrinsics (from Rust 1.89; see build.rs), so
// that clippy holds them to that version, not to the crate's rust-version.
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
mod avx512;
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
mod notation;
mod sse2;
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
mod utf8;

pub use avx2::with_avx2;
#[cfg(rapidutils_avx512)]
pub use avx512::with_avx512;
pub use sse2::Sse2;

/// The 64 bytes of `block` in a register (for the VBMI kernels, which work on `__m512i` alone).
#[cfg(rapidutils_avx512)]
#[clippy::msrv = "1.89"]
#[target_feature(enable = "avx512f")]
#[inline]
fn load512(block: &[u8; 64]) -> std::arch::x86_64::__m512i {
    // SAFETY: `block` is 64 readable bytes; _mm512_loadu_si512 needs no alignment.
    unsafe { std::arch::x86_64::_mm512_loadu_si512(block.as_ptr().cast()) }
}
