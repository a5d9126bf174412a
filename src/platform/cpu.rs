//! Run-time CPU feature detection, done once and cached, so SIMD kernels are chosen by what the
//! machine can do, never by `target-cpu=native` (distribution builds are generic x86-64).

use std::sync::OnceLock;

/// The instruction-set extensions the kernels can use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub sse2: bool,
    pub avx2: bool,
    pub avx512bw: bool,
    /// AVX-512 VBMI and VBMI2 (byte permutes, byte compress): cat -v's notation kernel.
    pub avx512vbmi2: bool,
    pub bmi2: bool,
    pub popcnt: bool,
    pub neon: bool,
}

/// The features of the CPU we run on (cached after the first call).
pub fn features() -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Features {
    Features {
        sse2: std::arch::is_x86_feature_detected!("sse2"),
        avx2: std::arch::is_x86_feature_detected!("avx2"),
        avx512bw: std::arch::is_x86_feature_detected!("avx512bw"),
        avx512vbmi2: std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("avx512vbmi2"),
        bmi2: std::arch::is_x86_feature_detected!("bmi2"),
        popcnt: std::arch::is_x86_feature_detected!("popcnt"),
        neon: false,
    }
}

#[cfg(target_arch = "aarch64")]
fn detect() -> Features {
    Features { neon: std::arch::is_aarch64_feature_detected!("neon"), ..Features::default() }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect() -> Features {
    Features::default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn detection_is_cached_and_consistent() {
        let first = super::features();
        assert_eq!(first, super::features());
        #[cfg(target_arch = "x86_64")]
        {
            // SSE2 is part of x86-64; AVX-512BW implies AVX2 on every CPU that has it.
            assert!(first.sse2);
            assert!(!first.avx512bw || first.avx2);
        }
    }
}
