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
