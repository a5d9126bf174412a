//! x86-64: SSE2 (part of every x86-64 CPU), and AVX2 and AVX-512 (with cat's VBMI2 kernel),
//! which `with_masks` runs where the CPU has them.

mod avx2;
mod avx512;
mod notation;
mod sse2;

pub use avx2::with_avx2;
pub use avx512::with_avx512;
pub use sse2::Sse2;
