//! Asks the compiler what it can build, and links the unwinder statically on Linux with glibc.
//!
//! The AVX-512 kernels use intrinsics stable from Rust 1.89; an older compiler (Debian 13 has
//! 1.85) builds without them, and the AVX2 kernel runs on AVX-512 CPUs. Whether the compiler
//! has them is tried, as autocfg tries: a small crate using them is compiled for the target;
//! where it builds, the cfg `rapidutils_avx512` is set.
//!
//! Rust's standard library names `libgcc_s.so.1` for `_Unwind_*` (backtraces; nothing unwinds
//! with `panic = "abort"`), and loading that shared library is ~0.1 ms of every run, 7 % of
//! `wc -l` on a tiny file (1.46 against 1.36 ms, medians of 2000 runs). Taking the same
//! functions from libgcc's static `libgcc_eh.a` drops it (with `--as-needed`, which rustc
//! passes, the shared library is then not needed). Where the target's C compiler cannot name
//! that archive (or, cross-compiling, no compiler for the target is named) the build links as
//! usual. The C library is named again after the archive: GCC 14's libgcc_eh.a holds
//! heap-trampoline.o, whose `__tls_get_addr` (the dynamic loader's) the whole archive needs.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(rapidutils_avx512)");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_ARCH") == "x86_64" && compiles(AVX512_PROBE) {
        println!("cargo:rustc-cfg=rapidutils_avx512");
    }
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    // The C compiler of the target: the host's `cc` would name the host's archive when
    // cross-compiling. Cross builds use the target's compiler or linker when one is named.
    let target = var("TARGET");
    let triple = target.replace('-', "_");
    let names = [
        format!("CC_{target}"),
        format!("CC_{triple}"),
        "TARGET_CC".to_string(),
        format!("CARGO_TARGET_{}_LINKER", triple.to_uppercase()),
    ];
    for name in &names {
        println!("cargo:rerun-if-env-changed={name}");
    }
    println!("cargo:rerun-if-env-changed=CC");
    let cross = target != var("HOST");
    let named = names.iter().map(|n| var(n)).find(|v| !v.is_empty());
    let cc = match (named, cross) {
        (Some(cc), _) => cc,
        (None, false) => std::env::var("CC").unwrap_or_else(|_| "cc".into()),
        (None, true) => return,
    };
    // A compiler variable may carry a wrapper or flags ("ccache gcc", "gcc -m64").
    let mut words = cc.split_whitespace();
    let Some(program) = words.next() else { return };
    let Ok(out) = Command::new(program).args(words).arg("-print-file-name=libgcc_eh.a").output() else { return };
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if out.status.success() && Path::new(&path).is_absolute() && Path::new(&path).exists() {
        println!("cargo:rustc-link-arg=-Wl,--push-state,--whole-archive,{path},--pop-state,-lc");
    }
}

/// The AVX-512 intrinsics and target features the kernels use (stable from Rust 1.89).
const AVX512_PROBE: &str = r#"
    use core::arch::x86_64::*;
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2")]
    pub unsafe fn probe(p: *const u8) -> u64 {
        unsafe {
            let v = _mm512_loadu_si512(p.cast());
            _mm512_cmpeq_epi8_mask(_mm512_permutexvar_epi8(v, v), _mm512_maskz_compress_epi8(1, v))
        }
    }
"#;

/// Whether the compiler builds `code` as a library for the target (only its metadata, in
/// OUT_DIR), with the flags cargo gives it.
fn compiles(code: &str) -> bool {
    let var = |name: &str| std::env::var_os(name).unwrap_or_default();
    let mut rustc = Command::new(var("RUSTC"));
    // RUSTFLAGS as cargo passes them (a separator between flags), for a probe built as the crate is.
    let flags = var("CARGO_ENCODED_RUSTFLAGS").into_string().unwrap_or_default();
    rustc.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    rustc.args(["--crate-name", "rapidutils_probe", "--crate-type", "lib", "--emit", "metadata", "--edition", "2021"]);
    rustc.arg("--target").arg(var("TARGET")).arg("--out-dir").arg(var("OUT_DIR")).arg("-");
    rustc.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
    let Ok(mut child) = rustc.spawn() else { return false };
    let wrote = child.stdin.take().map(|mut stdin| std::io::Write::write_all(&mut stdin, code.as_bytes()).is_ok());
    child.wait().is_ok_and(|status| status.success()) && wrote == Some(true)
}
