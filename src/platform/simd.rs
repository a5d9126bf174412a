//! SIMD building blocks with one portable signature each: an SSE2 version on x86-64 and a NEON
//! version on aarch64 (each part of its architecture's baseline, so no run-time detection is
//! needed), and a SWAR version everywhere else and with the `portable` feature. The byte counter behind `wc -l` also has
//! AVX2 and AVX-512 versions, and the 64-byte block masks of wc's and cat's loops
//! ([`BlockMasks`]) AVX2 and AVX-512 ones, whose loops are compiled for that instruction set
//! ([`with_masks`]); which is chosen at run time by what the CPU has ([`Kernel::best`]).

use std::sync::OnceLock;

/// An instruction set a kernel is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Plain Rust, 8 bytes at a time (SWAR): every machine.
    Portable,
    /// aarch64's baseline.
    Neon,
    Sse2,
    Avx2,
    Avx512,
}

impl Kernel {
    /// Every kernel, slowest first.
    pub const ALL: [Kernel; 5] = [Kernel::Portable, Kernel::Neon, Kernel::Sse2, Kernel::Avx2, Kernel::Avx512];

    /// The name `wc --debug` prints (GNU's names for the same instruction sets).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Portable => "portable",
            Kernel::Neon => "neon",
            Kernel::Sse2 => "sse2",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this build has the kernel and this CPU can run it.
    pub fn is_available(self) -> bool {
        let features = super::cpu::features();
        match self {
            Kernel::Portable => true,
            Kernel::Neon => imp::HAS_NEON,
            Kernel::Sse2 => imp::HAS_X86_KERNELS && features.sse2,
            // The AVX2 and AVX-512 contexts are also compiled for BMI2 and POPCNT (which every
            // CPU with AVX2 known to us has; a CPU without them gets the SSE2 kernel).
            Kernel::Avx2 => Self::avx2_context(features) && !features.avx2_disabled,
            // Compiled for AVX2 too: the CPU must have it, even where GLIBC_TUNABLES turned the
            // AVX2 kernel off (GNU's wc then still uses AVX-512, and so do we).
            Kernel::Avx512 => Self::avx2_context(features) && features.avx512bw && !features.avx512_disabled,
        }
    }

    fn avx2_context(features: super::cpu::Features) -> bool {
        imp::HAS_X86_KERNELS && features.avx2 && features.bmi2 && features.popcnt
    }

    /// What GNU 9.12's `wc --debug` says it checked for line counting, as (feature, used):
    /// on x86-64 AVX-512, then (when not used) AVX2; on aarch64 NEON; elsewhere nothing. Said
    /// of the kernel in use, so `GLIBC_TUNABLES` and `RAPIDUTILS_SIMD` are reflected.
    pub fn gnu_debug_report(self) -> &'static [(&'static str, bool)] {
        if cfg!(target_arch = "x86_64") {
            match self {
                Kernel::Avx512 => &[("avx512", true)],
                Kernel::Avx2 => &[("avx512", false), ("avx2", true)],
                _ => &[("avx512", false), ("avx2", false)],
            }
        } else if cfg!(target_arch = "aarch64") {
            if self == Kernel::Neon { &[("neon", true)] } else { &[("neon", false)] }
        } else {
            &[]
        }
    }

    /// The fastest kernel this CPU runs, decided once. `RAPIDUTILS_SIMD=portable|neon|sse2|avx2|avx512`
    /// picks a slower one instead (for tests and comparisons; a kernel the CPU lacks is ignored).
    pub fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            let fastest = *Kernel::ALL.iter().rev().find(|k| k.is_available()).unwrap_or(&Kernel::Portable);
            let wanted = std::env::var_os("RAPIDUTILS_SIMD");
            match Kernel::ALL.iter().find(|k| wanted.as_deref() == Some(std::ffi::OsStr::new(k.name()))) {
                Some(&k) if k.is_available() => k,
                _ => fastest,
            }
        })
    }
}

/// Bit i of the result is set when `block[i] == byte`.
#[inline]
pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
    imp::eq_mask64(block, byte)
}

/// Bit i of the result is set when `block[i]` is below 0x20, 0x7f, or above: the bytes
/// `cat -v` shows in `^` or `M-` notation (and TAB and LF).
#[inline]
pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
    imp::control_or_high_mask64(block)
}

/// Bit i of the result is set when `block[i]` is ASCII white space (TAB, LF, VT, FF, CR, SPACE),
/// or `extra` (a single-byte locale's no-break space: 0xA0 in Latin-1, 0x9A in KOI8-R).
#[inline]
pub fn ascii_space_mask64(block: &[u8; 64], extra: Option<u8>) -> u64 {
    let mask = imp::ascii_space_mask64(block);
    match extra {
        Some(byte) => mask | eq_mask64(block, byte),
        None => mask,
    }
}

/// The bytes of a 64-byte block by their part in UTF-8: bit i of each mask is set when
/// `block[i]` is in that range. All ranges but `high` lie above 0x7f.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Utf8Ranges {
    /// 0x80 and above.
    pub high: u64,
    /// 0x80..=0xbf, continuation bytes.
    pub cont: u64,
    /// 0xc2 and above (lead bytes and invalid bytes).
    pub ge_c2: u64,
    /// 0xe0 and above.
    pub ge_e0: u64,
    /// 0xf0 and above.
    pub ge_f0: u64,
    /// 0xf5 and above (never in UTF-8).
    pub ge_f5: u64,
}

/// The length of the longest prefix of `buf` made of whole 64-byte blocks of ASCII.
#[inline]
pub fn ascii_blocks(buf: &[u8]) -> usize {
    imp::ascii_blocks(buf)
}

impl Utf8Ranges {
    /// The lead bytes of two-, three- and four-byte characters (C2..=DF, E0..=EF, F0..=F4).
    #[inline(always)]
    pub fn leads(&self) -> [u64; 3] {
        [self.ge_c2 & !self.ge_e0, self.ge_e0 & !self.ge_f0, self.ge_f0 & !self.ge_f5]
    }

    /// The leads whose characters would reach past the block's end.
    #[inline(always)]
    pub fn crossing_leads(&self) -> u64 {
        let [lead2, lead3, lead4] = self.leads();
        (lead2 & 1 << 63) | (lead3 & 3 << 62) | (lead4 & 7 << 61)
    }
}

/// [`Utf8Ranges`] of a block.
#[inline]
pub fn utf8_ranges64(block: &[u8; 64]) -> Utf8Ranges {
    imp::utf8_ranges64(block)
}

/// The masks of a 64-byte block that the wc block paths use, in one instruction set: bit i of
/// each result stands for `block[i]`.
pub trait BlockMasks: Copy {
    /// `block[i] == byte`.
    fn eq(self, block: &[u8; 64], byte: u8) -> u64;
    /// `block[i] >= 0x80`.
    fn high(self, block: &[u8; 64]) -> u64;
    /// Below 0x20, 0x7f, or above (see [`control_or_high_mask64`]).
    fn control_or_high(self, block: &[u8; 64]) -> u64;
    /// ASCII controls: below 0x20, and 0x7f.
    fn controls(self, block: &[u8; 64]) -> u64 {
        self.control_or_high(block) & !self.high(block)
    }
    /// ASCII white space, and `extra` (see [`ascii_space_mask64`]).
    fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64;
    /// [`Utf8Ranges`] of the block.
    fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges;
    /// See [`ascii_blocks`].
    fn ascii_blocks(self, buf: &[u8]) -> usize;
}

/// The block masks every build has: SSE2 on x86-64, NEON on aarch64, SWAR elsewhere and with
/// `portable`.
#[derive(Clone, Copy, Debug)]
pub struct Baseline;

impl BlockMasks for Baseline {
    #[inline(always)]
    fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
        eq_mask64(block, byte)
    }
    #[inline(always)]
    fn high(self, block: &[u8; 64]) -> u64 {
        high_bit_mask64(block)
    }
    #[inline(always)]
    fn control_or_high(self, block: &[u8; 64]) -> u64 {
        control_or_high_mask64(block)
    }
    #[inline(always)]
    fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
        ascii_space_mask64(block, extra)
    }
    #[inline(always)]
    fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
        utf8_ranges64(block)
    }
    #[inline(always)]
    fn ascii_blocks(self, buf: &[u8]) -> usize {
        ascii_blocks(buf)
    }
}

/// Code to run with the block masks of the best instruction set (see [`with_best_masks`]).
pub trait WithMasks {
    type Output;
    /// Implementations mark this `#[inline(always)]` and inline their work into it: only code
    /// inlined into the caller is compiled for the caller's instruction set.
    fn run<M: BlockMasks>(self, masks: M) -> Self::Output;
}

/// Runs `work` with the block masks of `kernel` (or the best one below it this build and CPU
/// have), from a function compiled for that instruction set: for AVX2 and AVX-512 also BMI1/2,
/// POPCNT and LZCNT, so what `work` inlines uses `popcnt`, `tzcnt` and VEX/EVEX encodings too.
/// The portable and SSE2 kernels both run with the [`Baseline`] masks.
#[inline(always)]
pub fn with_masks<W: WithMasks>(kernel: Kernel, work: W) -> W::Output {
    if imp::HAS_X86_KERNELS {
        if kernel == Kernel::Avx512 && kernel.is_available() {
            return imp::with_avx512(work);
        }
        if matches!(kernel, Kernel::Avx2 | Kernel::Avx512) && Kernel::Avx2.is_available() {
            return imp::with_avx2(work);
        }
    }
    work.run(Baseline)
}

/// [`with_masks`] with the best kernel.
#[inline(always)]
pub fn with_best_masks<W: WithMasks>(work: W) -> W::Output {
    with_masks(Kernel::best(), work)
}

/// How many bytes of `buf` equal `byte`, with the best kernel.
pub fn count_byte(buf: &[u8], byte: u8) -> u64 {
    count_byte_with(Kernel::best(), buf, byte)
}

/// How many bytes of `buf` equal `byte`, with `kernel` (the portable one if it is not available).
pub fn count_byte_with(kernel: Kernel, buf: &[u8], byte: u8) -> u64 {
    if !kernel.is_available() {
        return swar_count_byte(buf, byte);
    }
    match kernel {
        Kernel::Portable => swar_count_byte(buf, byte),
        Kernel::Neon => imp::count_byte_neon(buf, byte),
        Kernel::Sse2 => imp::count_byte_sse2(buf, byte),
        Kernel::Avx2 => imp::count_byte_avx2(buf, byte),
        Kernel::Avx512 => imp::count_byte_avx512(buf, byte),
    }
}

/// `cat -v` notation of the whole 64-byte blocks of `input` (TAB as `^I` with `show_tabs`, LF as
/// `$` LF with `show_ends`, else both as they are), written at `out[at..]` while `out` has room
/// for a block's worst case; returns the input bytes done and where the output ends. None when
/// the AVX-512 kernel is not in use or the CPU lacks VBMI/VBMI2 (the caller maps bytes itself).
pub fn notation_blocks(
    input: &[u8],
    show_tabs: bool,
    show_ends: bool,
    out: &mut [u8],
    at: usize,
) -> Option<(usize, usize)> {
    if Kernel::best() == Kernel::Avx512 { imp::notation_blocks(input, show_tabs, show_ends, out, at) } else { None }
}

/// How far ahead of the byte being formatted `prefetch_ahead` asks for the input: far enough to
/// cover a memory access, and past a page boundary (where the hardware prefetchers stop) before
/// the loop gets there. Matters when the input is a mapping of the page cache rather than a
/// read buffer that the kernel's copy just left in the cache (cat -A of a mapped 200 MB file:
/// 59.5 -> 56.3 ms at 2 KiB; 512 bytes 58.2, 4 KiB 57.1).
const PREFETCH_DISTANCE: usize = 2048;

/// Asks the CPU to bring `input[at + PREFETCH_DISTANCE]`'s cache line in (nothing where the
/// target has no prefetch instruction). Never faults, also past the end of `input`.
#[inline(always)]
pub fn prefetch_ahead(input: &[u8], at: usize) {
    imp::prefetch(input.as_ptr().wrapping_add(at.wrapping_add(PREFETCH_DISTANCE)));
}

/// The portable byte count: 8 bytes at a time, matches found by an exact zero-byte test and
/// summed in byte lanes (at most 255 words between flushes, so a lane cannot wrap).
fn swar_count_byte(buf: &[u8], byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const ONES: u64 = 0x0101_0101_0101_0101;
    let spread = u64::from(byte) * ONES;
    let mut words = buf.chunks_exact(8);
    let mut total = 0u64;
    loop {
        let mut lanes = 0u64;
        let mut n = 0;
        for word in words.by_ref().take(255) {
            let t = u64::from_le_bytes(word.try_into().unwrap()) ^ spread;
            // 0x80 in each byte of t that is zero, exactly (no borrow between bytes).
            let zero = !(((t & LOW7) + LOW7) | t | LOW7);
            lanes += zero >> 7;
            n += 1;
        }
        // Sum the 8 byte lanes (each at most 255).
        total += (lanes & 0x00ff_00ff_00ff_00ff)
            .wrapping_add((lanes >> 8) & 0x00ff_00ff_00ff_00ff)
            .wrapping_mul(0x0001_0001_0001_0001)
            >> 48;
        if n < 255 {
            break;
        }
    }
    total + words.remainder().iter().filter(|&&b| b == byte).count() as u64
}

/// Bit i of the result is set when `block[i]` is 0x80 or above (not ASCII).
#[inline]
pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
    imp::high_bit_mask64(block)
}

#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
mod imp {
    use std::arch::x86_64::{
        __m128i, __m256i, __m512i, _mm_add_epi64, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8, _mm_cvtsi128_si64,
        _mm_loadu_si128, _mm_min_epu8, _mm_movemask_epi8, _mm_or_si128, _mm_sad_epu8, _mm_set1_epi8, _mm_setzero_si128,
        _mm_srli_si128, _mm_sub_epi8, _mm256_add_epi64, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8,
        _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_min_epu8, _mm256_movemask_epi8, _mm256_or_si256,
        _mm256_sad_epu8, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_sub_epi8, _mm512_add_epi8, _mm512_add_epi64,
        _mm512_and_si512, _mm512_cmpeq_epi8_mask, _mm512_cmpge_epu8_mask, _mm512_cmple_epu8_mask,
        _mm512_cmplt_epi8_mask, _mm512_cmplt_epu8_mask, _mm512_loadu_si512, _mm512_mask_mov_epi8,
        _mm512_maskz_compress_epi8, _mm512_maskz_mov_epi8, _mm512_movepi8_mask, _mm512_movm_epi8,
        _mm512_permutex2var_epi8, _mm512_reduce_add_epi64, _mm512_sad_epu8, _mm512_set1_epi8, _mm512_setzero_si512,
        _mm512_storeu_si512, _mm512_sub_epi8, _mm512_ternarylogic_epi32, _mm512_test_epi8_mask, _mm512_xor_si512,
    };

    pub use super::no_neon::*;

    pub const HAS_X86_KERNELS: bool = true;

    #[inline(always)]
    pub fn prefetch(at: *const u8) {
        // SAFETY: a prefetch is a hint: it never faults, whatever the address (SSE, baseline).
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast()) }
    }

    pub fn notation_blocks(
        input: &[u8],
        show_tabs: bool,
        show_ends: bool,
        out: &mut [u8],
        at: usize,
    ) -> Option<(usize, usize)> {
        let f = crate::platform::cpu::features();
        if !(f.avx512bw && f.avx512vbmi2 && f.popcnt) {
            return None;
        }
        // SAFETY: the CPU has AVX-512BW (and so AVX-512F), VBMI, VBMI2 and POPCNT: just checked.
        Some(unsafe { notation_blocks_vbmi2(input, show_tabs, show_ends, out, at) })
    }

    /// Each byte becomes four slots (`M`, `-`, `^` or `$`, the character). Two planes are
    /// built per block: the character (its bit 7 kept: set for bytes that need `M-`) and the
    /// `^`/`$` slot (0 when unused). One two-source byte permute per 16 input bytes spreads them
    /// to the four slots (slots 0 and 1 take the character too, for its bit 7), one test finds
    /// the used slots (bit 7 in slots 0 and 1, non-zero in slot 2, always slot 3), one ternary
    /// logic op writes `M-` into slots 0 and 1 and clears bit 7 elsewhere, and the used slots
    /// are compressed together and stored (64 bytes, of which the used count is kept). A block
    /// that needs no notation is stored as it is.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512vbmi2,popcnt")]
    fn notation_blocks_vbmi2(
        input: &[u8],
        show_tabs: bool,
        show_ends: bool,
        out: &mut [u8],
        mut at: usize,
    ) -> (usize, usize) {
        let byte = |b: u8| _mm512_set1_epi8(b as i8);
        // Slot p of input byte 16g + j is byte 4j + p of group g's vector: the character plane
        // (second source, indexes 64 and up) for slots 0, 1 and 3, the `^`/`$` plane for slot 2.
        let spread: [[u8; 64]; 4] =
            std::array::from_fn(|g| std::array::from_fn(|i| (16 * g + i / 4 + if i % 4 == 2 { 0 } else { 64 }) as u8));
        let spread = spread.map(|s| load512(&s));
        let slot = |values: [u8; 4]| load512(&std::array::from_fn(|i| values[i % 4]));
        // Which bits make a slot used, and the final slots from the spread ones (`M`, `-`, then
        // the slot's low seven bits): out = m_dash | (v & low7).
        let used_bits = slot([0x80, 0x80, 0x7f, 0xff]);
        let m_dash = slot([b'M', b'-', 0, 0]);
        let low7 = slot([0, 0, 0x7f, 0x7f]);
        // A block writes below at + 4 * 64 (each store of its at most 4 * 64 bytes starts at
        // most 3 * 64 past at): so many blocks fit in `out`.
        let blocks = (input.len() / 64).min(out.len().saturating_sub(at) / 256);
        let to = out.as_mut_ptr();
        let store = |at: usize, v: __m512i| {
            // SAFETY: every store is at most 256 - 64 bytes past its block's first output byte,
            // and that is at most 256 * b past the first `at` for block b < `blocks`: the 64
            // bytes are inside `out` (see `blocks`). No alignment is needed.
            unsafe { _mm512_storeu_si512(to.add(at).cast(), v) }
        };
        for (i, block) in input.chunks_exact(64).take(blocks).enumerate() {
            super::prefetch_ahead(input, i * 64);
            let x = load512(block.try_into().unwrap());
            let x1 = _mm512_add_epi8(x, byte(1));
            // Below 0x20 or 0x7f, as signed bytes also 0x80 and above: x + 1 below 0x21 signed.
            let special = _mm512_cmplt_epi8_mask(x1, byte(0x21));
            if special == 0 {
                store(at, x);
                at += 64;
                continue;
            }
            // Low seven bits below 0x20 or 0x7f: (x + 1) & 0x7f below 0x21.
            let control = _mm512_cmplt_epu8_mask(_mm512_and_si512(x1, byte(0x7f)), byte(0x21));
            let lf = _mm512_cmpeq_epi8_mask(x, byte(b'\n'));
            let tab = if show_tabs { 0 } else { _mm512_cmpeq_epi8_mask(x, byte(b'\t')) };
            let caret = control & !lf & !tab;
            // `^X` shows X ^ 0x40 (DEL: `?`); bit 7 stays.
            let ch = _mm512_xor_si512(x, _mm512_maskz_mov_epi8(caret, byte(0x40)));
            let s2 = _mm512_maskz_mov_epi8(caret, byte(b'^'));
            let s2 = if show_ends { _mm512_mask_mov_epi8(s2, lf, byte(b'$')) } else { s2 };
            for index in spread {
                let v = _mm512_permutex2var_epi8(s2, index, ch);
                let used = _mm512_test_epi8_mask(v, used_bits);
                let v = _mm512_ternarylogic_epi32::<0xf8>(m_dash, v, low7);
                store(at, _mm512_maskz_compress_epi8(used, v));
                at += used.count_ones() as usize;
            }
        }
        (blocks * 64, at)
    }

    use super::{BlockMasks, Utf8Ranges, WithMasks};

    #[inline(always)]
    pub fn with_avx2<W: WithMasks>(work: W) -> W::Output {
        let features = crate::platform::cpu::features();
        assert!(features.avx2 && features.bmi2 && features.popcnt);
        // SAFETY: the CPU has every feature `avx2_context` is compiled for (checked just above;
        // LZCNT and BMI1 come with BMI2 on every CPU that has AVX2).
        unsafe { avx2_context(work) }
    }

    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    #[inline(never)]
    fn avx2_context<W: WithMasks>(work: W) -> W::Output {
        work.run(Avx2Masks(()))
    }

    #[inline(always)]
    pub fn with_avx512<W: WithMasks>(work: W) -> W::Output {
        let features = crate::platform::cpu::features();
        assert!(features.avx512bw && features.avx2 && features.bmi2 && features.popcnt);
        // SAFETY: the CPU has every feature `avx512_context` is compiled for (checked just
        // above; AVX-512BW implies AVX-512F, LZCNT and BMI1 come with BMI2).
        unsafe { avx512_context(work) }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx2,bmi1,bmi2,popcnt,lzcnt")]
    #[inline(never)]
    fn avx512_context<W: WithMasks>(work: W) -> W::Output {
        work.run(Avx512Masks(()))
    }

    /// AVX-512 block masks (compares straight into 64-bit masks). Only `avx512_context` makes
    /// one, after its caller checked that the CPU has AVX-512BW: holding one proves the
    /// AVX-512 instructions below can run.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx512Masks(());

    #[inline(always)]
    fn load512(block: &[u8; 64]) -> __m512i {
        // SAFETY: `block` is 64 readable bytes; _mm512_loadu_si512 needs no alignment. Called
        // only from Avx512Masks methods and the VBMI2 kernel: the CPU has AVX-512.
        unsafe { _mm512_loadu_si512(block.as_ptr().cast::<__m512i>()) }
    }

    impl BlockMasks for Avx512Masks {
        #[inline(always)]
        fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe { _mm512_cmpeq_epi8_mask(load512(block), _mm512_set1_epi8(byte as i8)) }
        }

        #[inline(always)]
        fn high(self, block: &[u8; 64]) -> u64 {
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe { _mm512_movepi8_mask(load512(block)) }
        }

        #[inline(always)]
        fn control_or_high(self, block: &[u8; 64]) -> u64 {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) | _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0x7f))
            }
        }

        #[inline(always)]
        fn controls(self, block: &[u8; 64]) -> u64 {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20)) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x7f))
            }
        }

        #[inline(always)]
        fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE (and extra).
                let low = _mm512_cmple_epu8_mask(_mm512_sub_epi8(v, _mm512_set1_epi8(9)), _mm512_set1_epi8(4));
                let space = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(b' ' as i8));
                let a0 = match extra {
                    Some(byte) => _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8)),
                    None => 0,
                };
                low | space | a0
            }
        }

        #[inline(always)]
        fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
            let v = load512(block);
            // SAFETY: holding an Avx512Masks proves the CPU has AVX-512BW.
            unsafe {
                let high = _mm512_movepi8_mask(v);
                Utf8Ranges {
                    high,
                    cont: high & !_mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xc0u8 as i8)),
                    ge_c2: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xc2u8 as i8)),
                    ge_e0: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xe0u8 as i8)),
                    ge_f0: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xf0u8 as i8)),
                    ge_f5: _mm512_cmpge_epu8_mask(v, _mm512_set1_epi8(0xf5u8 as i8)),
                }
            }
        }

        #[inline(always)]
        fn ascii_blocks(self, buf: &[u8]) -> usize {
            let mut n = 0;
            for block in buf.chunks_exact(64) {
                if self.high(block.try_into().unwrap()) != 0 {
                    break;
                }
                n += 64;
            }
            n
        }
    }

    /// AVX2 block masks. Only `avx2_context` makes one, after its caller checked that the CPU
    /// has AVX2: holding one proves the AVX2 instructions below can run.
    #[derive(Clone, Copy, Debug)]
    pub struct Avx2Masks(());

    /// The two 32-byte halves of a block.
    #[inline(always)]
    fn halves(block: &[u8; 64]) -> (__m256i, __m256i) {
        let p = block.as_ptr().cast::<__m256i>();
        // SAFETY: `block` is 64 readable bytes; _mm256_loadu_si256 needs no alignment. Called only
        // from Avx2Masks methods: the CPU has AVX2.
        unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) }
    }

    /// One 64-bit mask from the byte masks of the two halves.
    #[inline(always)]
    fn join(lo: __m256i, hi: __m256i) -> u64 {
        // SAFETY: called only from Avx2Masks methods: the CPU has AVX2.
        unsafe { _mm256_movemask_epi8(lo) as u32 as u64 | (_mm256_movemask_epi8(hi) as u32 as u64) << 32 }
    }

    impl BlockMasks for Avx2Masks {
        #[inline(always)]
        fn eq(self, block: &[u8; 64], byte: u8) -> u64 {
            let (a, b) = halves(block);
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
            unsafe {
                let n = _mm256_set1_epi8(byte as i8);
                join(_mm256_cmpeq_epi8(a, n), _mm256_cmpeq_epi8(b, n))
            }
        }

        #[inline(always)]
        fn high(self, block: &[u8; 64]) -> u64 {
            let (a, b) = halves(block);
            join(a, b)
        }

        #[inline(always)]
        fn control_or_high(self, block: &[u8; 64]) -> u64 {
            let (a, b) = halves(block);
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
            unsafe {
                // Signed: 0x80..=0xff are negative, so "below 0x20" covers both ends.
                let (space, del) = (_mm256_set1_epi8(0x20), _mm256_set1_epi8(0x7f));
                join(
                    _mm256_or_si256(_mm256_cmpgt_epi8(space, a), _mm256_cmpeq_epi8(a, del)),
                    _mm256_or_si256(_mm256_cmpgt_epi8(space, b), _mm256_cmpeq_epi8(b, del)),
                )
            }
        }

        #[inline(always)]
        fn controls(self, block: &[u8; 64]) -> u64 {
            let (a, b) = halves(block);
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
            unsafe {
                // Signed "below 0x20" holds for 0x80..=0xff too: the andnot with the byte itself
                // clears the sign bit of those lanes.
                let (space, del) = (_mm256_set1_epi8(0x20), _mm256_set1_epi8(0x7f));
                join(
                    _mm256_or_si256(_mm256_andnot_si256(a, _mm256_cmpgt_epi8(space, a)), _mm256_cmpeq_epi8(a, del)),
                    _mm256_or_si256(_mm256_andnot_si256(b, _mm256_cmpgt_epi8(space, b)), _mm256_cmpeq_epi8(b, del)),
                )
            }
        }

        #[inline(always)]
        fn ascii_space(self, block: &[u8; 64], extra: Option<u8>) -> u64 {
            let (a, b) = halves(block);
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
            unsafe {
                // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE (and extra).
                let nine = _mm256_set1_epi8(9);
                let four = _mm256_set1_epi8(4);
                let space = _mm256_set1_epi8(b' ' as i8);
                let a0 = _mm256_set1_epi8(extra.unwrap_or(b' ') as i8);
                let (xa, xb) = (_mm256_sub_epi8(a, nine), _mm256_sub_epi8(b, nine));
                let (la, lb) = (
                    _mm256_cmpeq_epi8(_mm256_min_epu8(xa, four), xa),
                    _mm256_cmpeq_epi8(_mm256_min_epu8(xb, four), xb),
                );
                join(
                    _mm256_or_si256(la, _mm256_or_si256(_mm256_cmpeq_epi8(a, space), _mm256_cmpeq_epi8(a, a0))),
                    _mm256_or_si256(lb, _mm256_or_si256(_mm256_cmpeq_epi8(b, space), _mm256_cmpeq_epi8(b, a0))),
                )
            }
        }

        #[inline(always)]
        fn utf8_ranges(self, block: &[u8; 64]) -> Utf8Ranges {
            let (a, b) = halves(block);
            // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
            unsafe {
                let (c1, df, ef, f4) = (
                    _mm256_set1_epi8(0xc1u8 as i8),
                    _mm256_set1_epi8(0xdfu8 as i8),
                    _mm256_set1_epi8(0xefu8 as i8),
                    _mm256_set1_epi8(0xf4u8 as i8),
                );
                let high = join(a, b);
                let c0 = _mm256_set1_epi8(0xc0u8 as i8);
                Utf8Ranges {
                    high,
                    cont: join(_mm256_cmpgt_epi8(c0, a), _mm256_cmpgt_epi8(c0, b)),
                    ge_c2: join(_mm256_cmpgt_epi8(a, c1), _mm256_cmpgt_epi8(b, c1)) & high,
                    ge_e0: join(_mm256_cmpgt_epi8(a, df), _mm256_cmpgt_epi8(b, df)) & high,
                    ge_f0: join(_mm256_cmpgt_epi8(a, ef), _mm256_cmpgt_epi8(b, ef)) & high,
                    ge_f5: join(_mm256_cmpgt_epi8(a, f4), _mm256_cmpgt_epi8(b, f4)) & high,
                }
            }
        }

        #[inline(always)]
        fn ascii_blocks(self, buf: &[u8]) -> usize {
            let mut n = 0;
            for block in buf.chunks_exact(64) {
                let (a, b) = halves(block.try_into().unwrap());
                // SAFETY: holding an Avx2Masks proves the CPU has AVX2.
                if unsafe { _mm256_movemask_epi8(_mm256_or_si256(a, b)) } != 0 {
                    break;
                }
                n += 64;
            }
            n
        }
    }

    pub fn count_byte_sse2(buf: &[u8], byte: u8) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { count_byte_sse2_inner(buf, byte) }
    }

    /// The matching lanes (0xff, that is -1) are subtracted into byte counters, which are
    /// summed into 64-bit lanes every 255 blocks.
    #[target_feature(enable = "sse2")]
    fn count_byte_sse2_inner(buf: &[u8], byte: u8) -> u64 {
        let needle = _mm_set1_epi8(byte as i8);
        let mut total = _mm_setzero_si128();
        let mut blocks = buf.chunks_exact(16);
        loop {
            let mut counters = _mm_setzero_si128();
            let mut n = 0;
            for block in blocks.by_ref().take(255) {
                // SAFETY: `block` is 16 readable bytes; no alignment is required.
                let v = unsafe { _mm_loadu_si128(block.as_ptr().cast::<__m128i>()) };
                counters = _mm_sub_epi8(counters, _mm_cmpeq_epi8(v, needle));
                n += 1;
            }
            total = _mm_add_epi64(total, _mm_sad_epu8(counters, _mm_setzero_si128()));
            if n < 255 {
                break;
            }
        }
        let sum = _mm_cvtsi128_si64(total) as u64 + _mm_cvtsi128_si64(_mm_srli_si128(total, 8)) as u64;
        sum + super::swar_count_byte(blocks.remainder(), byte)
    }

    pub fn count_byte_avx2(buf: &[u8], byte: u8) -> u64 {
        assert!(std::arch::is_x86_feature_detected!("avx2"));
        // SAFETY: the CPU has AVX2 (checked just above).
        unsafe { count_byte_avx2_inner(buf, byte) }
    }

    /// As the SSE2 count, 32 bytes at a time with two independent counters.
    #[target_feature(enable = "avx2")]
    fn count_byte_avx2_inner(buf: &[u8], byte: u8) -> u64 {
        let needle = _mm256_set1_epi8(byte as i8);
        let zero = _mm256_setzero_si256();
        let mut total = _mm256_setzero_si256();
        let mut blocks = buf.chunks_exact(64);
        loop {
            let (mut a, mut b) = (zero, zero);
            let mut n = 0;
            for block in blocks.by_ref().take(255) {
                // SAFETY: `block` is 64 readable bytes; _mm256_loadu_si256 needs no alignment.
                let (x, y) = unsafe {
                    let p = block.as_ptr().cast::<__m256i>();
                    (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)))
                };
                a = _mm256_sub_epi8(a, _mm256_cmpeq_epi8(x, needle));
                b = _mm256_sub_epi8(b, _mm256_cmpeq_epi8(y, needle));
                n += 1;
            }
            total = _mm256_add_epi64(total, _mm256_add_epi64(_mm256_sad_epu8(a, zero), _mm256_sad_epu8(b, zero)));
            if n < 255 {
                break;
            }
        }
        let halves = _mm_add_epi64(_mm256_extracti128_si256::<0>(total), _mm256_extracti128_si256::<1>(total));
        let sum = _mm_cvtsi128_si64(halves) as u64 + _mm_cvtsi128_si64(_mm_srli_si128(halves, 8)) as u64;
        sum + count_byte_sse2_inner(blocks.remainder(), byte)
    }

    pub fn count_byte_avx512(buf: &[u8], byte: u8) -> u64 {
        assert!(std::arch::is_x86_feature_detected!("avx512bw"));
        // SAFETY: the CPU has AVX-512BW (checked just above), which implies AVX-512F.
        unsafe { count_byte_avx512_inner(buf, byte) }
    }

    /// As the AVX2 count, 64 bytes at a time with two independent counters.
    #[target_feature(enable = "avx512f,avx512bw")]
    fn count_byte_avx512_inner(buf: &[u8], byte: u8) -> u64 {
        let needle = _mm512_set1_epi8(byte as i8);
        let zero = _mm512_setzero_si512();
        let mut total = _mm512_setzero_si512();
        let mut blocks = buf.chunks_exact(128);
        loop {
            let (mut a, mut b) = (zero, zero);
            let mut n = 0;
            for block in blocks.by_ref().take(255) {
                // SAFETY: `block` is 128 readable bytes; _mm512_loadu_si512 needs no alignment.
                let (x, y) = unsafe {
                    let p = block.as_ptr().cast::<__m512i>();
                    (_mm512_loadu_si512(p), _mm512_loadu_si512(p.add(1)))
                };
                a = _mm512_sub_epi8(a, _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(x, needle)));
                b = _mm512_sub_epi8(b, _mm512_movm_epi8(_mm512_cmpeq_epi8_mask(y, needle)));
                n += 1;
            }
            total = _mm512_add_epi64(total, _mm512_add_epi64(_mm512_sad_epu8(a, zero), _mm512_sad_epu8(b, zero)));
            if n < 255 {
                break;
            }
        }
        _mm512_reduce_add_epi64(total) as u64 + count_byte_sse2_inner(blocks.remainder(), byte)
    }

    #[inline]
    pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { high_bit_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn high_bit_mask64_sse2(block: &[u8; 64]) -> u64 {
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            mask |= (_mm_movemask_epi8(v) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { control_or_high_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn control_or_high_mask64_sse2(block: &[u8; 64]) -> u64 {
        // As signed bytes, 0x80..=0xff are negative: one "less than 0x20" covers both ends.
        let space = _mm_set1_epi8(0x20);
        let del = _mm_set1_epi8(0x7f);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let special = _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del));
            mask |= (_mm_movemask_epi8(special) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn ascii_blocks(buf: &[u8]) -> usize {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { ascii_blocks_sse2(buf) }
    }

    #[target_feature(enable = "sse2")]
    fn ascii_blocks_sse2(buf: &[u8]) -> usize {
        let mut n = 0;
        for block in buf.chunks_exact(64) {
            let p = block.as_ptr().cast::<__m128i>();
            // SAFETY: `block` is 64 readable bytes; _mm_loadu_si128 has no alignment requirement.
            let any = unsafe {
                _mm_or_si128(
                    _mm_or_si128(_mm_loadu_si128(p), _mm_loadu_si128(p.add(1))),
                    _mm_or_si128(_mm_loadu_si128(p.add(2)), _mm_loadu_si128(p.add(3))),
                )
            };
            if _mm_movemask_epi8(any) != 0 {
                break;
            }
            n += 64;
        }
        n
    }

    #[inline]
    pub fn utf8_ranges64(block: &[u8; 64]) -> super::Utf8Ranges {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { utf8_ranges64_sse2(block) }
    }

    /// As signed bytes, 0x80..=0xff are -128..=-1: each range is one signed comparison
    /// (and-ed with the high bit, since ASCII is positive).
    #[target_feature(enable = "sse2")]
    fn utf8_ranges64_sse2(block: &[u8; 64]) -> super::Utf8Ranges {
        let mut r = super::Utf8Ranges::default();
        let gt = |v, byte: u8| _mm_movemask_epi8(_mm_cmpgt_epi8(v, _mm_set1_epi8(byte as i8))) as u32 as u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let shift = 16 * k;
            let high = _mm_movemask_epi8(v) as u32 as u64;
            r.high |= high << shift;
            r.cont |= (_mm_movemask_epi8(_mm_cmplt_epi8(v, _mm_set1_epi8(0xc0u8 as i8))) as u32 as u64) << shift;
            r.ge_c2 |= (gt(v, 0xc1) & high) << shift;
            r.ge_e0 |= (gt(v, 0xdf) & high) << shift;
            r.ge_f0 |= (gt(v, 0xef) & high) << shift;
            r.ge_f5 |= (gt(v, 0xf4) & high) << shift;
        }
        r
    }

    #[inline]
    pub fn ascii_space_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { ascii_space_mask64_sse2(block) }
    }

    #[target_feature(enable = "sse2")]
    fn ascii_space_mask64_sse2(block: &[u8; 64]) -> u64 {
        // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE.
        let nine = _mm_set1_epi8(9);
        let four = _mm_set1_epi8(4);
        let space = _mm_set1_epi8(b' ' as i8);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let x = _mm_sub_epi8(v, nine);
            let hit = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(x, four), x), _mm_cmpeq_epi8(v, space));
            mask |= (_mm_movemask_epi8(hit) as u32 as u64) << (16 * k);
        }
        mask
    }

    #[inline]
    pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: SSE2 is part of the x86-64 baseline, so the target feature is always there.
        unsafe { eq_mask64_sse2(block, byte) }
    }

    #[target_feature(enable = "sse2")]
    fn eq_mask64_sse2(block: &[u8; 64], byte: u8) -> u64 {
        let needle = _mm_set1_epi8(byte as i8);
        let mut mask = 0u64;
        for (k, part) in block.chunks_exact(16).enumerate() {
            // SAFETY: `part` is 16 readable bytes and _mm_loadu_si128 has no alignment requirement.
            let v = unsafe { _mm_loadu_si128(part.as_ptr().cast::<__m128i>()) };
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(v, needle)) as u32 as u64;
            mask |= bits << (16 * k);
        }
        mask
    }
}

/// The x86 kernels' places in a build without them (they are never available there, so none
/// of these is reached except `with_avx2`/`with_avx512`, which run the baseline masks).
#[cfg(not(all(target_arch = "x86_64", not(feature = "portable"))))]
mod no_x86 {
    pub const HAS_X86_KERNELS: bool = false;

    /// No stable prefetch instruction to ask for here (aarch64's is not stable in Rust).
    #[inline(always)]
    pub fn prefetch(_: *const u8) {}

    pub fn with_avx2<W: super::WithMasks>(work: W) -> W::Output {
        work.run(super::Baseline)
    }

    pub use with_avx2 as with_avx512;

    pub fn count_byte_sse2(_: &[u8], _: u8) -> u64 {
        unreachable!("no x86 kernels in this build")
    }

    pub use count_byte_sse2 as count_byte_avx2;
    pub use count_byte_sse2 as count_byte_avx512;

    pub fn notation_blocks(_: &[u8], _: bool, _: bool, _: &mut [u8], _: usize) -> Option<(usize, usize)> {
        None
    }
}

/// The NEON kernel's place in a build without it (never available there).
#[cfg(not(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))))]
mod no_neon {
    pub const HAS_NEON: bool = false;

    pub fn count_byte_neon(_: &[u8], _: u8) -> u64 {
        unreachable!("no NEON kernel in this build")
    }
}

/// aarch64 with NEON enabled at compile time (the aarch64 Linux and macOS targets enable it: it
/// is part of their baseline), so the baseline block masks and a byte counter use it without
/// run-time detection.
#[cfg(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable")))]
mod imp {
    use core::arch::aarch64::*;

    pub use super::no_x86::*;

    pub const HAS_NEON: bool = true;

    /// The four 16-byte vectors of a block.
    #[target_feature(enable = "neon")]
    #[inline]
    fn load(block: &[u8; 64]) -> [uint8x16_t; 4] {
        let p = block.as_ptr();
        // SAFETY: `block` is 64 readable bytes, and vld1q_u8 has no alignment requirement.
        unsafe { [vld1q_u8(p), vld1q_u8(p.add(16)), vld1q_u8(p.add(32)), vld1q_u8(p.add(48))] }
    }

    /// Bit i of the result for byte i of four compare results (lanes of 0xff or 0): each lane
    /// keeps its bit of a byte, and three rounds of pairwise additions gather them.
    #[target_feature(enable = "neon")]
    #[inline]
    fn bits(v: [uint8x16_t; 4]) -> u64 {
        const WEIGHTS: [u8; 16] = [1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128];
        // SAFETY: WEIGHTS is 16 readable bytes.
        let w = unsafe { vld1q_u8(WEIGHTS.as_ptr()) };
        let s0 = vpaddq_u8(vandq_u8(v[0], w), vandq_u8(v[1], w));
        let s1 = vpaddq_u8(vandq_u8(v[2], w), vandq_u8(v[3], w));
        let s = vpaddq_u8(s0, s1);
        vgetq_lane_u64::<0>(vreinterpretq_u64_u8(vpaddq_u8(s, s)))
    }

    /// The mask of a block's bytes for which `test` (a compare of one 16-byte vector, all ones
    /// where true) holds.
    #[target_feature(enable = "neon")]
    #[inline]
    fn mask(block: &[u8; 64], test: impl Fn(uint8x16_t) -> uint8x16_t) -> u64 {
        bits(load(block).map(test))
    }

    /// The mask of the bytes that are at least `byte`.
    #[target_feature(enable = "neon")]
    #[inline]
    fn ge(block: &[u8; 64], byte: u8) -> u64 {
        let x = vdupq_n_u8(byte);
        mask(block, |v| vcgeq_u8(v, x))
    }

    #[target_feature(enable = "neon")]
    #[inline]
    fn eq_mask64_neon(block: &[u8; 64], byte: u8) -> u64 {
        let x = vdupq_n_u8(byte);
        mask(block, |v| vceqq_u8(v, x))
    }

    #[target_feature(enable = "neon")]
    #[inline]
    fn control_or_high_mask64_neon(block: &[u8; 64]) -> u64 {
        let (space, del) = (vdupq_n_u8(0x20), vdupq_n_u8(0x7f));
        mask(block, |v| vorrq_u8(vcltq_u8(v, space), vcgeq_u8(v, del)))
    }

    #[target_feature(enable = "neon")]
    #[inline]
    fn ascii_space_mask64_neon(block: &[u8; 64]) -> u64 {
        // TAB..CR are the bytes b with b - 9 (wrapping) at most 4; then SPACE.
        let v = load(block);
        let (nine, four, space) = (vdupq_n_u8(9), vdupq_n_u8(4), vdupq_n_u8(b' '));
        let f = |v| vorrq_u8(vcleq_u8(vsubq_u8(v, nine), four), vceqq_u8(v, space));
        bits([f(v[0]), f(v[1]), f(v[2]), f(v[3])])
    }

    #[target_feature(enable = "neon")]
    #[inline]
    fn utf8_ranges64_neon(block: &[u8; 64]) -> super::Utf8Ranges {
        let high = ge(block, 0x80);
        super::Utf8Ranges {
            high,
            cont: high & !ge(block, 0xc0),
            ge_c2: ge(block, 0xc2),
            ge_e0: ge(block, 0xe0),
            ge_f0: ge(block, 0xf0),
            ge_f5: ge(block, 0xf5),
        }
    }

    #[target_feature(enable = "neon")]
    fn ascii_blocks_neon(buf: &[u8]) -> usize {
        let mut n = 0;
        for block in buf.chunks_exact(64) {
            let [a, b, c, d] = load(block.try_into().unwrap());
            if vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) >= 0x80 {
                break;
            }
            n += 64;
        }
        n
    }

    /// Matches are subtracted (0xff = -1) into the byte lanes of four accumulators, which are
    /// summed before any lane could wrap (at most 255 blocks).
    #[target_feature(enable = "neon")]
    fn count_byte_neon_impl(buf: &[u8], byte: u8) -> u64 {
        let needle = vdupq_n_u8(byte);
        let mut blocks = buf.chunks_exact(64);
        let mut total = 0u64;
        loop {
            let mut acc = [vdupq_n_u8(0); 4];
            let mut n = 0;
            for block in blocks.by_ref().take(255) {
                let v = load(block.try_into().unwrap());
                for k in 0..4 {
                    acc[k] = vsubq_u8(acc[k], vceqq_u8(v[k], needle));
                }
                n += 1;
            }
            total += acc.iter().map(|&a| u64::from(vaddlvq_u8(a))).sum::<u64>();
            if n < 255 {
                break;
            }
        }
        total + blocks.remainder().iter().filter(|&&b| b == byte).count() as u64
    }

    // The entry points. SAFETY (each): this module is compiled only with the `neon` target
    // feature enabled for the whole build, so every CPU the build runs on has it.

    #[inline]
    pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
        // SAFETY: see above.
        unsafe { eq_mask64_neon(block, byte) }
    }

    #[inline]
    pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: see above.
        unsafe { ge(block, 0x80) }
    }

    #[inline]
    pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: see above.
        unsafe { control_or_high_mask64_neon(block) }
    }

    #[inline]
    pub fn ascii_space_mask64(block: &[u8; 64]) -> u64 {
        // SAFETY: see above.
        unsafe { ascii_space_mask64_neon(block) }
    }

    #[inline]
    pub fn utf8_ranges64(block: &[u8; 64]) -> super::Utf8Ranges {
        // SAFETY: see above.
        unsafe { utf8_ranges64_neon(block) }
    }

    pub fn ascii_blocks(buf: &[u8]) -> usize {
        // SAFETY: see above.
        unsafe { ascii_blocks_neon(buf) }
    }

    pub fn count_byte_neon(buf: &[u8], byte: u8) -> u64 {
        // SAFETY: see above.
        unsafe { count_byte_neon_impl(buf, byte) }
    }
}

#[cfg(not(any(
    all(target_arch = "x86_64", not(feature = "portable")),
    all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))
)))]
mod imp {
    pub use super::{no_neon::*, no_x86::*};

    pub fn ascii_blocks(buf: &[u8]) -> usize {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let mut n = 0;
        for block in buf.chunks_exact(64) {
            let any = block.chunks_exact(8).fold(0, |acc, w| acc | u64::from_le_bytes(w.try_into().unwrap()));
            if any & HIGH != 0 {
                break;
            }
            n += 64;
        }
        n
    }

    pub fn utf8_ranges64(block: &[u8; 64]) -> super::Utf8Ranges {
        let mut r = super::Utf8Ranges::default();
        for (i, &b) in block.iter().enumerate() {
            let bit = |yes: bool| u64::from(yes) << i;
            r.high |= bit(b >= 0x80);
            r.cont |= bit((0x80..0xc0).contains(&b));
            r.ge_c2 |= bit(b >= 0xc2);
            r.ge_e0 |= bit(b >= 0xe0);
            r.ge_f0 |= bit(b >= 0xf0);
            r.ge_f5 |= bit(b >= 0xf5);
        }
        r
    }

    #[inline]
    pub fn ascii_space_mask64(block: &[u8; 64]) -> u64 {
        let mut mask = eq_mask64(block, b' ');
        for byte in 9..=13 {
            mask |= eq_mask64(block, byte);
        }
        mask
    }

    #[inline]
    pub fn high_bit_mask64(block: &[u8; 64]) -> u64 {
        block.iter().enumerate().fold(0, |mask, (i, &b)| mask | (u64::from(b >> 7) << i))
    }

    #[inline]
    pub fn control_or_high_mask64(block: &[u8; 64]) -> u64 {
        let mut mask = 0u64;
        for (i, &b) in block.iter().enumerate() {
            mask |= u64::from(!(0x20..0x7f).contains(&b)) << i;
        }
        mask
    }

    #[inline]
    pub fn eq_mask64(block: &[u8; 64], byte: u8) -> u64 {
        const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let spread = u64::from(byte) * 0x0101_0101_0101_0101;
        let mut mask = 0u64;
        for (k, word) in block.chunks_exact(8).enumerate() {
            // An exact zero-byte test of word ^ byte, high bits gathered into one byte.
            let t = u64::from_le_bytes(word.try_into().unwrap()) ^ spread;
            let zero_high_bits = !(((t & LOW7) + LOW7) | t | LOW7);
            mask |= ((zero_high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        mask
    }
}

#[cfg(test)]
mod tests {
    use super::{Kernel, ascii_space_mask64, control_or_high_mask64, count_byte, count_byte_with, eq_mask64};

    /// The kernels this build and CPU can run: the portable one always, and without the
    /// `portable` feature at least SSE2 on x86-64 and NEON on aarch64, so a count path cannot
    /// silently go untested.
    fn kernels() -> Vec<Kernel> {
        let available: Vec<Kernel> = Kernel::ALL.into_iter().filter(|k| k.is_available()).collect();
        assert!(available.contains(&Kernel::Portable));
        if cfg!(all(target_arch = "x86_64", not(feature = "portable"))) {
            assert!(available.contains(&Kernel::Sse2));
        } else if cfg!(all(target_arch = "aarch64", target_feature = "neon", not(feature = "portable"))) {
            assert_eq!(available, [Kernel::Portable, Kernel::Neon]);
        } else {
            assert_eq!(available, [Kernel::Portable]);
        }
        available
    }

    #[test]
    #[cfg_attr(miri, ignore = "tens of thousands of counts: hours under Miri")]
    fn every_kernel_counts_like_a_plain_count_for_every_length_and_alignment() {
        let data: Vec<u8> = (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for kernel in kernels() {
            for start in 0..3 {
                for len in (0..400).chain([4079, 4080, 4081, 9999, 16_383, 16_384, 19_997]) {
                    let buf = &data[start..start + len];
                    for byte in [b'\n', 0x9b, 0, 0xff] {
                        let want = buf.iter().filter(|&&b| b == byte).count() as u64;
                        assert_eq!(count_byte_with(kernel, buf, byte), want, "{kernel:?} len {len} byte {byte}");
                    }
                }
            }
            // More than 255 blocks of matching bytes in a row (byte counters must not wrap).
            for len in [100_000, 255 * 128, 255 * 128 + 1, 256 * 128] {
                assert_eq!(count_byte_with(kernel, &vec![b'\n'; len], b'\n'), len as u64, "{kernel:?}");
            }
        }
        assert!(Kernel::best().is_available());
        assert_eq!(count_byte(b"a\nb\n\n", b'\n'), 3);
    }

    type AllMasks = (u64, u64, u64, u64, u64, u64, super::Utf8Ranges, usize);

    /// Every block mask of every 64-byte block of `buf`, with the masks `run` is given.
    struct Every<'a>(&'a [u8]);

    impl super::WithMasks for Every<'_> {
        type Output = Vec<AllMasks>;
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> Vec<AllMasks> {
            (0..self.0.len().saturating_sub(63))
                .map(|at| {
                    let b: &[u8; 64] = self.0[at..at + 64].try_into().unwrap();
                    let space = (m.ascii_space(b, None), m.ascii_space(b, Some(0x9a)));
                    (
                        m.eq(b, b'\n'),
                        m.high(b),
                        m.control_or_high(b),
                        m.controls(b),
                        space.0,
                        space.1,
                        m.utf8_ranges(b),
                        m.ascii_blocks(&self.0[at..]),
                    )
                })
                .collect()
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

        #[cfg_attr(miri, ignore = "proptest cases: hours under Miri")]
        /// Every kernel's masks (AVX2 and AVX-512 where the CPU has them) against the baseline
        /// ones (SSE2 or SWAR, which the tests above check against plain definitions), at every
        /// block alignment; `controls` too.
        #[test]
        fn best_block_masks_match_the_baseline(
            buf in proptest::collection::vec(proptest::prop_oneof![
                3 => b'a'..=b'z',
                1 => proptest::sample::select(vec![b'\n', b' ', b'\t', 0x0b, 0x0c, b'\r', 0x7f, 0xa0, 0x1f, 0x20]),
                2 => proptest::prelude::any::<u8>(),
            ], 64..400),
        ) {
            let best = super::with_best_masks(Every(&buf));
            let baseline = super::WithMasks::run(Every(&buf), super::Baseline);
            for kernel in super::Kernel::ALL {
            let got = super::with_masks(kernel, Every(&buf));
            proptest::prop_assert_eq!(&got, &baseline, "{:?}", kernel);
        }
        proptest::prop_assert_eq!(best, baseline);
        }
    }

    /// `cat -v` notation of one byte (`show_tabs`: TAB as `^I`; `show_ends`: LF as `$` LF).
    fn notation(b: u8, show_tabs: bool, show_ends: bool) -> Vec<u8> {
        match b {
            b'\n' if show_ends => b"$\n".to_vec(),
            b'\n' => b"\n".to_vec(),
            b'\t' if !show_tabs => b"\t".to_vec(),
            _ => {
                let mut v = Vec::new();
                let low = b & 0x7f;
                if b >= 0x80 {
                    v.extend_from_slice(b"M-");
                }
                match low {
                    0x7f => v.extend_from_slice(b"^?"),
                    0..0x20 => v.extend_from_slice(&[b'^', low + 0x40]),
                    _ => v.push(low),
                }
                v
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore = "AVX-512 intrinsics")]
    fn notation_blocks_write_every_byte_as_cat_v_does() {
        // Every byte value at every position of a block, runs, and blocks of plain text; the
        // kernel runs where the CPU has it (AVX-512 VBMI2), and must decline elsewhere.
        let mut input: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        input.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8));
        input.extend(std::iter::repeat_n(b'\n', 130));
        input.extend(b"plain text without any byte that needs notation, long enough to fill....".repeat(3));
        input.extend([0x80, 0xff, 0x7f, 0x9f, 0xa0, b'\t', 0x89, 0x8a]);
        for (tabs, ends) in [(false, false), (true, false), (false, true), (true, true)] {
            for start in [0, 1, 63] {
                let input = &input[start..];
                let mut out = vec![0u8; 7 + input.len() * 4 + 5 * 64];
                match super::notation_blocks(input, tabs, ends, &mut out, 7) {
                    Some((done, end)) => {
                        assert_eq!(done, input.len() / 64 * 64, "room for every block");
                        let want: Vec<u8> = input[..done].iter().flat_map(|&b| notation(b, tabs, ends)).collect();
                        assert!(out[..7].iter().all(|&b| b == 0), "wrote before `at`");
                        assert!(out[7..end] == want[..], "tabs {tabs} ends {ends} start {start}");
                    }
                    None => assert!(
                        Kernel::best() != Kernel::Avx512 || !crate::platform::cpu::features().avx512vbmi2,
                        "kernel available but declined"
                    ),
                }
            }
        }
    }

    #[test]
    fn ascii_blocks_stop_at_the_block_of_the_first_high_byte() {
        let mut buf = vec![b'a'; 1000];
        assert_eq!(super::ascii_blocks(&buf), 960);
        for at in [0, 1, 63, 64, 130, 959, 960, 999] {
            buf[at] = 0x80;
            assert_eq!(super::ascii_blocks(&buf), at / 64 * 64, "{at}");
            buf[at] = b'a';
        }
    }

    #[test]
    fn utf8_ranges_mark_exactly_those_bytes() {
        for start in 0..4u16 {
            let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
            let mask =
                |f: &dyn Fn(u8) -> bool| -> u64 { block.iter().enumerate().map(|(i, &b)| u64::from(f(b)) << i).sum() };
            let want = super::Utf8Ranges {
                high: mask(&|b| b >= 0x80),
                cont: mask(&|b| (0x80..0xc0).contains(&b)),
                ge_c2: mask(&|b| b >= 0xc2),
                ge_e0: mask(&|b| b >= 0xe0),
                ge_f0: mask(&|b| b >= 0xf0),
                ge_f5: mask(&|b| b >= 0xf5),
            };
            assert_eq!(super::utf8_ranges64(&block), want);
        }
    }

    #[test]
    fn ascii_space_mask_marks_exactly_those_bytes() {
        for start in 0..4u16 {
            let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
            for extra in [None, Some(0xa0), Some(0x9a)] {
                let want: u64 = block
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| u64::from(matches!(b, 9..=13 | 32) || Some(b) == extra) << i)
                    .sum();
                assert_eq!(ascii_space_mask64(&block, extra), want);
            }
        }
    }

    #[test]
    fn control_or_high_mask_marks_exactly_those_bytes() {
        for start in 0..4u16 {
            let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(!(0x20..0x7f).contains(&b)) << i).sum();
            assert_eq!(control_or_high_mask64(&block), want);
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(b >= 0x80) << i).sum();
            assert_eq!(super::high_bit_mask64(&block), want);
        }
    }

    #[test]
    fn mask_marks_exactly_the_matching_bytes() {
        let mut block = [0u8; 64];
        for seed in 0..2000u64 {
            let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
            for b in block.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = [b'\n', b'\n' ^ 0x80, 0x0b, 0x09, 0xff, 0, x as u8][(x >> 40) as usize % 7];
            }
            let want: u64 = block.iter().enumerate().map(|(i, &b)| u64::from(b == b'\n') << i).sum();
            assert_eq!(eq_mask64(&block, b'\n'), want);
        }
    }
}
