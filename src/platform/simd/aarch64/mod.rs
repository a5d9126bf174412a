//! aarch64: NEON, part of the aarch64 Linux and macOS targets' baseline, so every CPU the build runs on has it, and
//! the kernel of the family that needs more than the block's primitives: cat's notation (`tbl` shuffles).

mod neon;
pub mod notation_neon;

pub use neon::Neon;
