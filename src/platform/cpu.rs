//! Run-time CPU feature detection, done once, so SIMD kernels are chosen by what the machine can
//! do, never by `target-cpu=native` (distribution builds are generic x86-64).
//!
//! As in glibc and GNU (gnulib's `cpu_supports`), `GLIBC_TUNABLES=glibc.cpu.hwcaps=` turns kernels off: `-AVX512F` or
//! `-AVX512BW` AVX-512's, `-AVX2` AVX2's, `-ASIMD` NEON. GNU's `wc-cpu.sh` runs the baseline kernels so.

use std::sync::OnceLock;

/// The instruction-set extensions the kernels are compiled for, each detected here (a test checks every
/// `#[target_feature]`): a CPU or VM hiding one (LZCNT, then run as BSR) gets a slower kernel, never a wrong one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub sse2: bool,
    /// SSSE3's byte shuffle (PSHUFB), CPUID.1:ECX bit 9.
    pub ssse3: bool,
    pub popcnt: bool,
    pub avx2: bool,
    pub bmi1: bool,
    pub bmi2: bool,
    /// ABM's LZCNT (CPUID 0x80000001 ECX bit 5).
    pub lzcnt: bool,
    pub avx512f: bool,
    pub avx512bw: bool,
    /// AVX-512 VBMI (byte permutes) and VBMI2 (byte compress).
    pub avx512vbmi: bool,
    pub avx512vbmi2: bool,
    pub neon: bool,
    /// Turned off by `GLIBC_TUNABLES` (the CPU may have them): `-AVX2`, and `-AVX512F` or
    /// `-AVX512BW` for the AVX-512 kernels. `avx2` and `avx512bw` above say what the CPU has.
    pub avx2_disabled: bool,
    pub avx512_disabled: bool,
}

impl Features {
    /// Whether the CPU has `name` (as `#[target_feature]` spells it); None if not detected here.
    pub fn has(&self, name: &str) -> Option<bool> {
        Some(match name {
            "sse2" => self.sse2,
            "ssse3" => self.ssse3,
            "popcnt" => self.popcnt,
            "avx2" => self.avx2,
            "bmi1" => self.bmi1,
            "bmi2" => self.bmi2,
            "lzcnt" => self.lzcnt,
            "avx512f" => self.avx512f,
            "avx512bw" => self.avx512bw,
            "avx512vbmi" => self.avx512vbmi,
            "avx512vbmi2" => self.avx512vbmi2,
            "neon" => self.neon,
            _ => return None,
        })
    }

    /// Whether the CPU has every feature in `names` (a name not detected here counts as absent).
    pub fn has_all(&self, names: &[&str]) -> bool {
        names.iter().all(|name| self.has(name) == Some(true))
    }
}

/// The features of the CPU we run on, detected once.
pub fn features() -> Features {
    static FEATURES: OnceLock<Features> = OnceLock::new();
    *FEATURES.get_or_init(|| {
        let tunables = std::env::var_os("GLIBC_TUNABLES");
        let tunables = tunables.as_deref().map(std::os::unix::ffi::OsStrExt::as_bytes).unwrap_or_default();
        let disabled = |cap: &str| !hwcap_allowed(tunables, cap);
        let mut features = detect();
        features.avx2_disabled = disabled("-AVX2");
        features.avx512_disabled = disabled("-AVX512F") || disabled("-AVX512BW");
        features.neon &= !disabled("-ASIMD");
        features
    })
}

/// gnulib's `hwcap_allowed`: whether `GLIBC_TUNABLES` leaves `cap` (`-AVX2`, ...) on. The last
/// `glibc.cpu.hwcaps=` wins; its list ends at the next `:`, and a name must match whole.
fn hwcap_allowed(tunables: &[u8], cap: &str) -> bool {
    const KEY: &[u8] = b"glibc.cpu.hwcaps=";
    let Some(start) = tunables.windows(KEY.len()).rposition(|w| w == KEY) else {
        return true;
    };
    let list = &tunables[start + KEY.len()..];
    let list = &list[..list.iter().position(|&b| b == b':').unwrap_or(list.len())];
    let cap = cap.as_bytes();
    let mut at = 0;
    while let Some(found) = list[at..].windows(cap.len()).position(|w| w == cap) {
        at += found + cap.len();
        if matches!(list.get(at), None | Some(b',')) {
            return false;
        }
    }
    true
}

/// The features the kernels use, from CPUID leaves 1, 7 and 0x80000001 and XCR0. A vector set
/// counts only where the operating system saves its registers (XCR0), as std and gnulib require.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn detect() -> Features {
    let bit = |word: u32, n: u32| word >> n & 1 == 1;
    let Leaves { leaf1: [_, _, ecx1, edx1], leaf7: [_, ebx7, ecx7, _], ext1: [_, _, ext_ecx1, _] } = leaves();
    let xcr0 = if bit(ecx1, 27) {
        // SAFETY: OSXSAVE (CPUID.1:ECX bit 27) says XGETBV is enabled; register 0 is XCR0.
        unsafe { xcr0() }
    } else {
        0
    };
    // SSE, AVX and (for AVX-512) opmask, upper ZMM0-15 and ZMM16-31 state saved.
    let os_avx = xcr0 & 0b110 == 0b110 && bit(ecx1, 28);
    let os_avx512 = os_avx && xcr0 & 0b1110_0000 == 0b1110_0000 && bit(ebx7, 16);
    Features {
        sse2: bit(edx1, 26),
        ssse3: bit(ecx1, 9),
        popcnt: bit(ecx1, 23),
        avx2: os_avx && bit(ebx7, 5),
        bmi1: bit(ebx7, 3),
        bmi2: bit(ebx7, 8),
        lzcnt: bit(ext_ecx1, 5),
        avx512f: os_avx512,
        avx512bw: os_avx512 && bit(ebx7, 30),
        avx512vbmi: os_avx512 && bit(ecx7, 1),
        avx512vbmi2: os_avx512 && bit(ecx7, 6),
        ..Features::default()
    }
}

/// The CPUID leaves the features come from, each as EAX, EBX, ECX, EDX.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Leaves {
    leaf1: [u32; 4],
    /// Sub-leaf 0.
    leaf7: [u32; 4],
    /// 0x80000001.
    ext1: [u32; 4],
}

/// The CPUID leaves: glibc's copies, taken at its start-up (`__x86_get_cpuid_feature_leaf`, glibc 2.33,
/// <sys/platform/x86.h>), so no `cpuid` runs here: in a VM each exits to the hypervisor, which made std's
/// `is_x86_feature_detected!` a measurable share of start-up (benches/RESULTS.md, "Figures behind code comments").
#[cfg(all(target_arch = "x86_64", target_env = "gnu", not(miri)))]
fn leaves() -> Leaves {
    /// glibc's `struct cpuid_feature`.
    #[repr(C)]
    struct CpuidFeature {
        cpuid: [u32; 4],
        /// What glibc makes of them, its tunables applied: unused ([`features`] applies gnulib's).
        _active: [u32; 4],
    }
    unsafe extern "C" {
        fn __x86_get_cpuid_feature_leaf(index: std::ffi::c_uint) -> *const CpuidFeature;
    }
    // glibc's CPUID_INDEX_1, CPUID_INDEX_7 and CPUID_INDEX_80000001 (<bits/platform/x86.h>).
    let leaf = |index| {
        // SAFETY: the function takes any index and returns a pointer to glibc's static copy of
        // that leaf (a zeroed one past its table), which lives as long as the process.
        let feature = unsafe { __x86_get_cpuid_feature_leaf(index) };
        // SAFETY: non-null, it points to a `struct cpuid_feature`, which `CpuidFeature` spells.
        unsafe { feature.as_ref() }.map(|f| f.cpuid)
    };
    match (leaf(0), leaf(1), leaf(2)) {
        (Some(leaf1), Some(leaf7), Some(ext1)) => Leaves { leaf1, leaf7, ext1 },
        _ => cpuid_leaves(),
    }
}

/// [`leaves`] where the C library keeps no copy: from `cpuid` itself.
#[cfg(all(target_arch = "x86_64", not(target_env = "gnu"), not(miri)))]
fn leaves() -> Leaves {
    cpuid_leaves()
}

/// The CPUID leaves from `cpuid` (leaves 0 and 0x80000000 say whether 7 and 0x80000001 exist).
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn cpuid_leaves() -> Leaves {
    let words = |r: std::arch::x86_64::CpuidResult| [r.eax, r.ebx, r.ecx, r.edx];
    let leaf7 = if cpuid(0).eax >= 7 { words(cpuid(7)) } else { [0; 4] };
    let ext1 = if cpuid(0x8000_0000).eax >= 0x8000_0001 { words(cpuid(0x8000_0001)) } else { [0; 4] };
    Leaves { leaf1: words(cpuid(1)), leaf7, ext1 }
}

/// Under Miri, which runs no `cpuid`: what the build assumes, as std's detection says there.
#[cfg(all(target_arch = "x86_64", miri))]
fn detect() -> Features {
    Features {
        sse2: cfg!(target_feature = "sse2"),
        ssse3: cfg!(target_feature = "ssse3"),
        popcnt: cfg!(target_feature = "popcnt"),
        avx2: cfg!(target_feature = "avx2"),
        bmi1: cfg!(target_feature = "bmi1"),
        bmi2: cfg!(target_feature = "bmi2"),
        lzcnt: cfg!(target_feature = "lzcnt"),
        avx512f: cfg!(target_feature = "avx512f"),
        avx512bw: cfg!(target_feature = "avx512bw"),
        avx512vbmi: cfg!(target_feature = "avx512vbmi"),
        avx512vbmi2: cfg!(target_feature = "avx512vbmi2"),
        ..Features::default()
    }
}

/// `cpuid` of `leaf`, sub-leaf 0.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[allow(unused_unsafe, reason = "safe to call from Rust 1.94 on; unsafe before (rust-version)")]
fn cpuid(leaf: u32) -> std::arch::x86_64::CpuidResult {
    // SAFETY: every x86-64 CPU has CPUID, and a leaf it lacks only returns other data (leaves 7
    // and 0x80000001 are asked only where leaves 0 and 0x80000000 say they exist).
    unsafe { std::arch::x86_64::__cpuid_count(leaf, 0) }
}

/// XCR0, the state components the operating system saves.
///
/// # Safety
/// The CPU has XGETBV enabled (CPUID.1:ECX.OSXSAVE).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    // SAFETY: the caller's guarantee.
    unsafe { std::arch::x86_64::_xgetbv(0) }
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
    use super::hwcap_allowed;

    #[test]
    fn tunables_turn_features_off_as_gnulib_reads_them() {
        assert!(hwcap_allowed(b"", "-AVX2"));
        assert!(!hwcap_allowed(b"glibc.cpu.hwcaps=-AVX2,-AVX512F", "-AVX2"));
        assert!(!hwcap_allowed(b"glibc.cpu.hwcaps=-AVX2,-AVX512F", "-AVX512F"));
        assert!(hwcap_allowed(b"glibc.cpu.hwcaps=-AVX2,-AVX512F", "-AVX512BW"));
        // A longer name is not a match; the list ends at ':'; the last setting wins.
        assert!(hwcap_allowed(b"glibc.cpu.hwcaps=-AVX2X", "-AVX2"));
        assert!(hwcap_allowed(b"glibc.cpu.hwcaps=-AVX:glibc.malloc.x=-AVX2", "-AVX2"));
        assert!(!hwcap_allowed(b"glibc.cpu.hwcaps=-AVX2:glibc.malloc.check=1", "-AVX2"));
        assert!(hwcap_allowed(b"glibc.cpu.hwcaps=-AVX2:glibc.cpu.hwcaps=-AVX512F", "-AVX2"));
        assert!(!hwcap_allowed(b"glibc.cpu.hwcaps=-ASIMD", "-ASIMD"));
    }

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

    /// The features are what std's detection (which asks every leaf it knows) says.
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn detection_agrees_with_std() {
        use std::arch::is_x86_feature_detected as has;
        let f = super::detect();
        assert_eq!(f.sse2, has!("sse2"));
        assert_eq!(f.ssse3, has!("ssse3"));
        assert_eq!(f.popcnt, has!("popcnt"));
        assert_eq!(f.avx2, has!("avx2"));
        assert_eq!(f.bmi1, has!("bmi1"));
        assert_eq!(f.bmi2, has!("bmi2"));
        assert_eq!(f.lzcnt, has!("lzcnt"));
        assert_eq!(f.avx512f, has!("avx512f"));
        assert_eq!(f.avx512bw, has!("avx512bw"));
        assert_eq!(f.avx512vbmi, has!("avx512vbmi"));
        assert_eq!(f.avx512vbmi2, has!("avx512vbmi2"));
    }

    /// The words of the leaves that the features come from are what `cpuid` answers, in glibc's
    /// copies too (leaf 1's EBX holds the APIC ID of whichever CPU ran it: not used).
    #[test]
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    fn leaves_are_the_cpus() {
        let used = |l: super::Leaves| (l.leaf1[2], l.leaf1[3], l.leaf7[1], l.leaf7[2], l.ext1[2]);
        assert_eq!(used(super::leaves()), used(super::cpuid_leaves()));
    }

    /// What the kernel says the CPU has (`/proc/cpuinfo`, Linux on x86-64) is what was detected.
    #[test]
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[cfg_attr(miri, ignore = "reads /proc")]
    fn detection_agrees_with_the_kernel() {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap();
        let flags: Vec<&str> = cpuinfo
            .lines()
            .find_map(|line| line.strip_prefix("flags"))
            .and_then(|rest| rest.split_once(':'))
            .expect("a flags line")
            .1
            .split_whitespace()
            .collect();
        let has = |flag: &str| flags.contains(&flag);
        let f = super::features();
        assert_eq!(f.sse2, has("sse2"));
        assert_eq!(f.ssse3, has("ssse3"));
        assert_eq!(f.popcnt, has("popcnt"));
        assert_eq!(f.avx2, has("avx2"));
        assert_eq!(f.bmi1, has("bmi1"));
        assert_eq!(f.bmi2, has("bmi2"));
        // The kernel names AMD's ABM, of which LZCNT is the part used, "abm" on every vendor.
        assert_eq!(f.lzcnt, has("abm"));
        assert_eq!(f.avx512f, has("avx512f"));
        assert_eq!(f.avx512bw, has("avx512bw"));
        assert_eq!(f.avx512vbmi, has("avx512vbmi"));
        assert_eq!(f.avx512vbmi2, has("avx512_vbmi2"));
    }
}
