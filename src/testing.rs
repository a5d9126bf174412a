//! Helpers for the unit tests.

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
