use super::{Kernel, ascii_space_mask64, control_or_high_mask64, count_byte, count_byte_with, eq_mask64};

/// The kernels this build and CPU can run: the portable one always, and without the
/// `portable` feature at least SSE2 on x86-64 and NEON on aarch64, so a count path cannot
/// silently go untested.
fn kernels(test: &str) -> Vec<Kernel> {
    let available = crate::testing::kernels(&format!("platform::simd::{test}"));
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
    for kernel in kernels("every_kernel_counts_like_a_plain_count_for_every_length_and_alignment") {
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
        for kernel in kernels("best_block_masks_match_the_baseline") {
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
                None => {
                    let vbmi2 = Kernel::best() == Kernel::Avx512 && crate::platform::cpu::features().avx512vbmi2;
                    assert!(!vbmi2, "kernel available but declined");
                    // (A build without the x86 kernels has nothing to skip.)
                    if Kernel::Avx512.in_build() {
                        crate::testing::skipped(
                            "platform::simd::notation_blocks_write_every_byte_as_cat_v_does",
                            "the AVX-512 VBMI2 notation kernel",
                            "not in use (the CPU, RAPIDUTILS_SIMD or GLIBC_TUNABLES); checked that it declines",
                        );
                    }
                }
            }
        }
    }
}

/// Random rounds for a test: all of them natively, a few dozen under Miri (which interprets
/// every vector instruction and would take hours), enough for every round-robin variant.
fn rounds(native: usize) -> usize {
    if cfg!(miri) { 48 } else { native }
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

/// Every kernel's pattern look-up against the position-by-position reference, on random
/// tables and windows (every nibble of every position exercised).
#[test]
fn pattern_starts_match_the_scalar_reference() {
    struct Starts<'a>(&'a [u8; 66], &'a super::NibblePatterns, [u8; 3]);
    impl super::WithMasks for Starts<'_> {
        type Output = ([u64; 3], [u64; 2], bool, bool);
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> ([u64; 3], [u64; 2], bool, bool) {
            let block: &[u8; 64] = self.0[..64].try_into().unwrap();
            (
                m.pattern_starts(self.0, self.1, self.2),
                m.pattern_starts_top(self.0, self.1),
                m.may_start(block, self.1),
                M::TABLE_LOOKUPS,
            )
        }
    }
    let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1du64);
    let mut tabled = std::collections::BTreeSet::new();
    for round in 0..rounds(2000) {
        let mut patterns = super::NibblePatterns::default();
        for j in 0..3 {
            for n in 0..16 {
                // Dense tables in some rounds, sparse in others.
                let density = round % 3;
                patterns.lo[j][n] = (next() as u8) | if density == 0 { next() as u8 } else { 0 };
                patterns.hi[j][n] = (next() as u8) & if density == 2 { next() as u8 } else { 0xff };
            }
        }
        let window: [u8; 66] = std::array::from_fn(|_| next() as u8);
        let select = [next() as u8, next() as u8, next() as u8];
        let want = super::scalar_pattern_starts(&window, &patterns, select);
        let [any, top, _] = super::scalar_pattern_starts(&window, &patterns, [0xff, 0x80, 0]);
        // The first byte of a pattern anywhere (the second and third need not follow).
        let first = window[..64]
            .iter()
            .any(|&b| patterns.lo[0][usize::from(b & 15)] & patterns.hi[0][usize::from(b >> 4)] != 0);
        for kernel in kernels("pattern_starts_match_the_scalar_reference") {
            let (got, got_top, got_first, tables) = super::with_masks(kernel, Starts(&window, &patterns, select));
            assert_eq!(got, want, "{kernel:?} round {round}");
            assert_eq!(got_top, [any, top], "{kernel:?} round {round}");
            assert_eq!(got_first, first, "{kernel:?} round {round}");
            if tables {
                tabled.insert(kernel.name());
            }
        }
    }
    // Say which vector versions ran (the others need a CPU this one is not).
    eprintln!("pattern_starts: table look-ups checked for {tabled:?}");
    #[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
    assert!(!tabled.is_empty() || !Kernel::Avx2.is_available());
}

/// Every kernel's `may_start` finds a pattern's one first byte at every position, and says no
/// where it is absent.
#[test]
fn may_start_finds_a_first_byte_anywhere() {
    struct MayStart<'a>(&'a [u8; 64], &'a super::NibblePatterns);
    impl super::WithMasks for MayStart<'_> {
        type Output = bool;
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> bool {
            m.may_start(self.0, self.1)
        }
    }
    let mut next = crate::testing::xorshift(0x5851_f42d_4c95_7f2d);
    for first in [0xe3u8, 0xc2, 0x00, 0x7f, 0x80, 0xff] {
        let mut patterns = super::NibblePatterns::default();
        patterns.allow(0x04, 0, 1 << (first >> 4), 1 << (first & 15));
        patterns.allow(0x04, 1, 0xffff, 0xffff);
        for at in 0..=64 {
            let mut block: [u8; 64] = std::array::from_fn(|_| next() as u8);
            block.iter_mut().filter(|b| **b == first).for_each(|b| *b ^= 1);
            if at < 64 {
                block[at] = first;
            }
            for kernel in kernels("may_start_finds_a_first_byte_anywhere") {
                assert_eq!(
                    super::with_masks(kernel, MayStart(&block, &patterns)),
                    at < 64,
                    "{kernel:?} {first:#x} at {at}"
                );
            }
        }
    }
}

/// Every kernel's UTF-8 validator against the byte-by-byte reference, on valid text with
/// errors planted at every position (and on random bytes).
#[test]
fn utf8_errors_match_the_reference() {
    struct Check<'a>(&'a [u8; 67]);
    impl super::WithMasks for Check<'_> {
        type Output = (bool, bool);
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> (bool, bool) {
            (m.utf8_errors(self.0), M::TABLE_LOOKUPS)
        }
    }
    let reference = |w: &[u8; 67]| (3..67).any(|i| super::utf8_tables::error_at(w[i - 3], w[i - 2], w[i - 1], w[i]));
    let text: Vec<u8> = "aé日本\u{1f600}x\u{800}\u{10ffff}\u{ffff}\u{d7ff}\u{e000}\u{80} \n".repeat(20).into_bytes();
    let mut next = crate::testing::xorshift(0x1234_5678_9abc_def0u64);
    let mut checked = 0;
    for round in 0..rounds(4000) {
        let at = (next() as usize) % (text.len() - 67);
        let mut w: [u8; 67] = text[at..at + 67].try_into().unwrap();
        match round % 4 {
            0 => {}
            1 => w[(next() as usize) % 67] = next() as u8,
            2 => {
                w[3 + (next() as usize) % 64] =
                    [0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff, b'a'][(next() as usize) % 11]
            }
            _ => w = std::array::from_fn(|_| next() as u8),
        }
        let want = reference(&w);
        for kernel in kernels("utf8_errors_match_the_reference") {
            let (got, tables) = super::with_masks(kernel, Check(&w));
            if tables {
                assert_eq!(got, want, "{kernel:?} round {round}: {w:02x?}");
                checked += 1;
            } else {
                assert!(got, "{kernel:?}: without table look-ups the answer must be 'unknown'");
            }
        }
    }
    eprintln!("utf8_errors: {checked} vector checks");
}

/// Every kernel's 64-entry look-up against the byte-by-byte reference.
#[test]
fn lookup64_matches_the_scalar_reference() {
    struct Look<'a>(&'a [u8; 64], &'a [u8; 64], [u8; 3]);
    impl super::WithMasks for Look<'_> {
        type Output = [u64; 3];
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> [u64; 3] {
            m.lookup64(self.0, self.1, self.2)
        }
    }
    let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
    for round in 0..rounds(2000) {
        let table: [u8; 64] = std::array::from_fn(|_| next() as u8);
        // Every byte value, high bits included (only the low six index).
        let block: [u8; 64] =
            std::array::from_fn(|i| if round % 4 == 0 { (i * 4 + round) as u8 } else { next() as u8 });
        let select = [next() as u8, next() as u8, next() as u8];
        let want = super::scalar_lookup64(&block, &table, select);
        for kernel in kernels("lookup64_matches_the_scalar_reference") {
            assert_eq!(super::with_masks(kernel, Look(&block, &table, select)), want, "{kernel:?} round {round}");
        }
    }
}

/// Every kernel's `any_of` against `contains`, with the bytes sought at every position, and
/// absent.
#[test]
fn ascii_space_mask_marks_exactly_those_bytes() {
    struct Space<'a>(&'a [u8; 64], Option<u8>);
    impl super::WithMasks for Space<'_> {
        type Output = u64;
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> u64 {
            m.ascii_space(self.0, self.1)
        }
    }
    for start in 0..4u16 {
        let block: [u8; 64] = std::array::from_fn(|i| (start as usize * 64 + i) as u8);
        for extra in [None, Some(0xa0), Some(0x9a)] {
            let want: u64 = block
                .iter()
                .enumerate()
                .map(|(i, &b)| u64::from(matches!(b, 9..=13 | 32) || Some(b) == extra) << i)
                .sum();
            assert_eq!(ascii_space_mask64(&block, extra), want);
            for kernel in kernels("ascii_space_mask_marks_exactly_those_bytes") {
                assert_eq!(super::with_masks(kernel, Space(&block, extra)), want, "{kernel:?} {start} {extra:?}");
            }
        }
    }
}

/// Every kernel's tally of one byte value against a plain count, over 1 to the most blocks a
/// tally may hold, each byte value equal in every block at most (a lane's count at its limit).
#[test]
fn tally_counts_like_a_plain_count() {
    struct Tally<'a>(&'a [u8], u8);
    impl super::WithMasks for Tally<'_> {
        type Output = (u64, u64);
        #[inline(always)]
        fn run<M: super::BlockMasks>(self, m: M) -> (u64, u64) {
            let (mut equal, mut continuation) = (m.tally_new(), m.tally_new());
            for block in self.0.chunks_exact(64) {
                equal = m.tally(equal, block.try_into().unwrap(), self.1);
                continuation = m.tally_continuation(continuation, block.try_into().unwrap());
            }
            (m.tally_total(equal), m.tally_total(continuation))
        }
    }
    let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
    for round in 0..rounds(200) {
        let blocks = 1 + round % super::TALLY_MAX;
        let byte = next() as u8;
        // Round 0: every byte equal, in the most blocks (each lane counts to its limit); with
        // a continuation byte, every byte that too.
        let byte = if round == 0 { 0xa5 } else { byte };
        let (blocks, density) = if round == 0 { (super::TALLY_MAX, 1) } else { (blocks, 1 + round % 5) };
        let input: Vec<u8> = (0..64 * blocks)
            .map(|_| if (next() as usize).is_multiple_of(density) { byte } else { next() as u8 })
            .collect();
        let want = input.iter().filter(|&&b| b == byte).count() as u64;
        let want = (want, input.iter().filter(|&&b| (0x80..0xc0).contains(&b)).count() as u64);
        for kernel in kernels("tally_counts_like_a_plain_count") {
            assert_eq!(super::with_masks(kernel, Tally(&input, byte)), want, "{kernel:?} round {round}");
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
    for seed in 0..rounds(2000) as u64 {
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
