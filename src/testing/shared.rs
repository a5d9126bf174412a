//! What the unit tests (`crate::testing`) and the integration tests (`tests/util.rs`, which
//! includes this file) share: a pseudo-random sequence, and reporting what a test could not run.
//!
//! A test of a kernel the CPU lacks must not pass as if it had tested it. It says what it left
//! out on stderr and, when `RAPIDUTILS_TEST_SKIPS` names a file, in that file, which
//! `make test` prints at its end. The rest of the test still runs.

use super::{Features, Kernel};
use std::collections::BTreeSet;
use std::io::Write;
use std::sync::Mutex;

/// Reports once per process that `test` did not run `what` here, and why.
pub fn skipped(test: &str, what: &str, why: &str) {
    static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let line = format!("{test}: {what} not run ({why})");
    if !SAID.lock().unwrap_or_else(|e| e.into_inner()).insert(line.clone()) {
        return;
    }
    eprintln!("skipped: {line}");
    if let Some(path) = std::env::var_os("RAPIDUTILS_TEST_SKIPS") {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path);
        file.and_then(|mut f| writeln!(f, "{line}")).expect("RAPIDUTILS_TEST_SKIPS is writable");
    }
}

/// Why the SIMD kernel `kernel` (its `RAPIDUTILS_SIMD` name) does not run here, for the skip
/// report: it is not part of this build, or this CPU (`cpu`) lacks an instruction set it needs
/// ([`kernel_needs`]), or `GLIBC_TUNABLES` turned it off.
pub fn kernel_not_run(kernel: &str, in_build: bool, cpu: &Features) -> String {
    // (With GLIBC_TUNABLES' -ASIMD, NEON reads as absent: that is said as turned off.)
    let neon_off = tunables_turn_off("-ASIMD");
    let has = |f: &str| cpu.has(f) == Some(true) || (f == "neon" && neon_off);
    let turned_off = match kernel {
        "avx2" => cpu.avx2_disabled,
        "avx512" => cpu.avx512_disabled,
        "neon" => neon_off,
        _ => false,
    };
    let lacks: Vec<&str> = kernel_needs(kernel).iter().copied().filter(|f| !has(f)).collect();
    if !in_build && cfg!(feature = "portable") {
        "not part of this build: the portable feature builds the portable kernel alone".to_owned()
    } else if !in_build {
        "not part of this build: its compiler lacks the kernel's intrinsics (AVX-512: Rust 1.89)".to_owned()
    } else if !lacks.is_empty() {
        format!("this CPU lacks {}", lacks.join(" and "))
    } else if turned_off {
        "GLIBC_TUNABLES turned it off".to_owned()
    } else {
        "it did not run, though this CPU has what it needs and nothing turned it off".to_owned()
    }
}

/// The instruction sets the kernel `kernel` needs: a baseline its own, the others those their
/// code is compiled for (`Kernel::target_features`).
pub fn kernel_needs(kernel: &str) -> &'static [&'static str] {
    match Kernel::ALL.into_iter().find(|k| k.name() == kernel) {
        Some(Kernel::Sse2) => &["sse2"],
        Some(Kernel::Neon) => &["neon"],
        Some(k) => k.target_features(),
        None => &[],
    }
}

/// Whether `GLIBC_TUNABLES` turns off the hardware capability `cap` (`-ASIMD`, ...): named in
/// its last `glibc.cpu.hwcaps=` list.
pub fn tunables_turn_off(cap: &str) -> bool {
    let tunables = std::env::var("GLIBC_TUNABLES").unwrap_or_default();
    let Some(list) = tunables.rsplit("glibc.cpu.hwcaps=").next().filter(|_| tunables.contains("glibc.cpu.hwcaps="))
    else {
        return false;
    };
    list.split(':').next().unwrap_or_default().split(',').any(|c| c == cap)
}

/// A deterministic pseudo-random sequence (xorshift64) from a non-zero `seed`: each use gives
/// the next value.
pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
