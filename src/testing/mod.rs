//! Helpers for the unit tests.

pub mod cat_model;
mod shared;

use crate::cat::format::Options;
use crate::platform::cpu::Features;
use crate::platform::simd::Kernel;
pub use shared::{kernel_not_run, skipped, xorshift};

/// The kernels `test` can run on this CPU. The others of this architecture are reported as
/// skipped ([`skipped`]): forced, they would silently run a slower kernel and pass untested.
pub fn kernels(test: &str) -> Vec<Kernel> {
    let this_arch = |k: &Kernel| match k {
        Kernel::Portable => true,
        Kernel::Neon => cfg!(target_arch = "aarch64"),
        Kernel::Sse2 | Kernel::Ssse3 | Kernel::Avx2 | Kernel::Avx512 => cfg!(target_arch = "x86_64"),
    };
    let (run, missing): (Vec<Kernel>, Vec<Kernel>) =
        Kernel::ALL.into_iter().filter(this_arch).partition(|k| k.is_available());
    for kernel in missing {
        skipped(test, &format!("the {} kernel", kernel.name()), &not_run(kernel));
    }
    run
}

/// Why `kernel` does not run here (see [`kernel_not_run`]).
pub fn not_run(kernel: Kernel) -> String {
    kernel_not_run(kernel.name(), kernel.in_build(), &crate::platform::cpu::features())
}

/// Why the AVX-512 VBMI/VBMI2 kernels do not run here: those of the AVX-512 kernel, or this CPU
/// lacking VBMI or VBMI2.
pub fn vbmi_not_run() -> String {
    if Kernel::Avx512.is_available() {
        "this CPU lacks AVX-512 VBMI or VBMI2".to_owned()
    } else {
        not_run(Kernel::Avx512)
    }
}
