//! aarch64: NEON, part of the aarch64 Linux and macOS targets' baseline, so every CPU the build runs on has it.

mod neon;

pub use neon::Neon;
