//! Helpers for the unit tests.

mod shared;

use crate::platform::simd::Kernel;
pub use shared::{skipped, xorshift};

/// The kernels `test` can run on this CPU. The kernels this build has and the CPU lacks are
/// reported as skipped (see [`skipped`]): with them forced, the code would silently run a
/// slower kernel and the test would pass without testing them.
pub fn kernels(test: &str) -> Vec<Kernel> {
    let (run, missing): (Vec<Kernel>, Vec<Kernel>) =
        Kernel::ALL.into_iter().filter(|k| k.in_build()).partition(|k| k.is_available());
    for kernel in missing {
        skipped(test, &format!("the {} kernel", kernel.name()), "this CPU lacks it, or GLIBC_TUNABLES turns it off");
    }
    run
}
