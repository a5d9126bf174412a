//! What the unit tests (`crate::testing`) and the integration tests (`tests/util.rs`, which
//! includes this file) share: a pseudo-random sequence, and reporting what a test could not
//! run here.
//!
//! A test of a kernel the CPU lacks must not pass as if it had tested it: it says what it left
//! out, on stderr and, when `RAPIDUTILS_TEST_SKIPS` names a file, in that file, which `make
//! test` prints at its end. The rest of the test still runs.

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
/// report: it is not part of this build, or this CPU lacks an instruction set it needs (`has`
/// tells whether the CPU has one, by the names of [`kernel_needs`]), or `GLIBC_TUNABLES` turned
/// it off (`turned_off`).
pub fn kernel_not_run(kernel: &str, in_build: bool, has: impl Fn(&str) -> bool, turned_off: bool) -> String {
    let lacks: Vec<&str> = kernel_needs(kernel).iter().copied().filter(|f| !has(f)).collect();
    if !in_build {
        "not part of this build: the portable feature builds the portable kernel alone".to_owned()
    } else if !lacks.is_empty() {
        format!("this CPU lacks {}", lacks.join(" and "))
    } else if turned_off {
        "GLIBC_TUNABLES turned it off".to_owned()
    } else {
        "it did not run, though this CPU has what it needs and nothing turned it off".to_owned()
    }
}

/// The instruction sets the kernel `kernel` needs (the AVX2 and AVX-512 kernels are compiled
/// for BMI2 and POPCNT too).
pub fn kernel_needs(kernel: &str) -> &'static [&'static str] {
    match kernel {
        "sse2" => &["sse2"],
        "avx2" => &["avx2", "bmi2", "popcnt"],
        "avx512" => &["avx2", "bmi2", "popcnt", "avx512bw"],
        "neon" => &["neon"],
        _ => &[],
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

/// A deterministic pseudo-random sequence (xorshift64) from a non-zero `seed`: each call gives
/// the next value.
pub fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}
