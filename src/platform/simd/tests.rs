use super::{
    Block64, Families, Kernel, Masks, NibblePatterns, Notation, TALLY_MAX, UTF8_BLOCKS_MAX, UTF8_SPARSE_BLOCKS_MAX,
    Utf8Check, Utf8Ranges, WithMasks, with_masks,
};
use crate::platform::Changing;
use crate::platform::cpu::Features;

/// The kernels this build and CPU can run: always the portable one, and without `portable` at
/// least SSE2 on x86-64 and NEON on aarch64, so that no count path silently goes untested.
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

/// What a test asks of a kernel's masks.
enum Probe<'a> {
    Count(&'a [u8], u8),
    Masks(&'a [u8]),
    Notation(&'a [u8], bool, bool, &'a mut [u8]),
    Families,
    AsciiBlocks(&'a [u8]),
    Starts(&'a [u8; 66], &'a NibblePatterns, [u8; 3]),
    MayStart(&'a [u8; 64], &'a NibblePatterns),
    Utf8Errors(&'a [u8; 67]),
    Utf8Starts(&'a [u8; 67]),
    Utf8Continuation(&'a [u8]),
    Utf8ContinuationThree(&'a [u8]),
    /// A batch and the next one.
    Utf8ContinuationSparse(&'a [u8], &'a [u8]),
    Lookup64(&'a [u8; 64], &'a [u8; 64], [u8; 3]),
    Tally(&'a [u8], u8),
}

/// A kernel's answer to a [`Probe`].
#[derive(Debug, PartialEq, Eq)]
enum Answer {
    Count(u64),
    Masks(Vec<AllMasks>),
    Notation((usize, usize)),
    Families(Families),
    AsciiBlocks(usize),
    Starts([u64; 3], [u64; 2], bool),
    MayStart(bool),
    Utf8Errors(bool),
    Utf8Starts([u64; 3]),
    Utf8Continuation(Option<u64>),
    /// The check, and the blocks with a byte above 0x7f of both batches.
    Utf8ContinuationSparse(Option<u64>, u64, u64),
    Lookup64([u64; 3]),
    Tally(u64, u64),
}

impl WithMasks for Probe<'_> {
    type Output = Answer;
    #[inline(always)]
    fn run<B: Block64>(self, m: Masks<B>) -> Answer {
        match self {
            Probe::Count(buf, byte) => Answer::Count(m.count_byte(Changing::of(buf), byte)),
            Probe::Masks(buf) => Answer::Masks(all_masks(m, buf)),
            Probe::Notation(input, tabs, ends, out) => {
                Answer::Notation(m.notation(Changing::of(input), tabs, ends, out))
            }
            Probe::Families => Answer::Families(m.families()),
            Probe::AsciiBlocks(buf) => Answer::AsciiBlocks(m.ascii_blocks(Changing::of(buf))),
            Probe::Starts(window, patterns, select) => {
                let window = Changing::of(window);
                Answer::Starts(
                    m.pattern_starts(window, patterns, select),
                    m.pattern_starts_top(window, patterns),
                    m.may_start(window.array(0), patterns),
                )
            }
            Probe::MayStart(block, patterns) => Answer::MayStart(m.may_start(Changing::of(block), patterns)),
            Probe::Utf8Errors(window) => Answer::Utf8Errors(m.utf8_errors(Changing::of(window))),
            Probe::Utf8Starts(window) => Answer::Utf8Starts(m.utf8_starts(Changing::of(window))),
            Probe::Utf8Continuation(bytes) => Answer::Utf8Continuation(m.utf8_continuation(Changing::of(bytes))),
            Probe::Utf8ContinuationThree(bytes) => {
                Answer::Utf8Continuation(m.utf8_continuation_three(Changing::of(bytes)))
            }
            Probe::Utf8ContinuationSparse(bytes, next) => {
                let (bytes, next) = (Changing::of(bytes), Changing::of(next));
                let high = m.high_blocks(bytes);
                let (checked, next_high) = m.utf8_continuation_sparse(bytes, high, next);
                Answer::Utf8ContinuationSparse(checked, high, next_high)
            }
            Probe::Lookup64(block, table, select) => Answer::Lookup64(m.lookup64(Changing::of(block), table, select)),
            Probe::Tally(buf, byte) => {
                let (mut equal, mut continuation) = (m.tally_new(), m.tally_new());
                for at in (0..buf.len() / 64 * 64).step_by(64) {
                    let block = Changing::of(buf).array(at);
                    equal = m.tally(equal, block, byte);
                    continuation = m.tally_continuation(continuation, block);
                }
                Answer::Tally(m.tally_total(equal), m.tally_total(continuation))
            }
        }
    }
}

/// The masks a test runs a probe with: a kernel's, or AVX-512's without VBMI and VBMI2.
#[derive(Clone, Copy, Debug)]
enum Runner {
    Kernel(Kernel),
    #[cfg_attr(not(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512)), allow(dead_code))]
    Avx512WithoutVbmi,
}

impl Runner {
    fn name(self) -> &'static str {
        match self {
            Runner::Kernel(kernel) => kernel.name(),
            Runner::Avx512WithoutVbmi => "avx512 without vbmi",
        }
    }

    fn run(self, probe: Probe<'_>) -> Answer {
        match self {
            Runner::Kernel(kernel) => with_masks(kernel, probe),
            // SAFETY: `runners` gives this only where the AVX-512 kernel runs here, and its
            // families without VBMI need no more.
            #[cfg(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512))]
            Runner::Avx512WithoutVbmi => unsafe { super::x86_64::with_avx512(probe, without_vbmi()) },
            #[cfg(not(all(target_arch = "x86_64", not(feature = "portable"), rapidutils_avx512)))]
            Runner::Avx512WithoutVbmi => unreachable!(),
        }
    }

    fn families(self) -> Families {
        match self.run(Probe::Families) {
            Answer::Families(families) => families,
            other => panic!("{other:?}"),
        }
    }
}

/// Every kernel this build and CPU have, and AVX-512 without VBMI where its families differ.
fn runners(test: &str) -> Vec<Runner> {
    let mut runners: Vec<Runner> = kernels(test).into_iter().map(Runner::Kernel).collect();
    if Kernel::Avx512.is_available()
        && Runner::Kernel(Kernel::Avx512).families() != Families::of(Kernel::Avx512, without_vbmi())
    {
        runners.push(Runner::Avx512WithoutVbmi);
    }
    runners
}

/// This CPU's features without VBMI and VBMI2.
fn without_vbmi() -> Features {
    Features { avx512vbmi: false, avx512vbmi2: false, ..crate::platform::cpu::features() }
}

/// `probe()` (a new one each time) asked of every [`Runner`], each answer with its runner's name.
fn every_block<'a>(test: &str, probe: impl Fn() -> Probe<'a>) -> Vec<(&'static str, Answer)> {
    runners(test).into_iter().map(|r| (r.name(), r.run(probe()))).collect()
}

/// Asserts that every runner answers `probe()` with `want`.
fn assert_every_block<'a>(test: &str, probe: impl Fn() -> Probe<'a>, want: &Answer, what: &str) {
    for (name, got) in every_block(test, probe) {
        assert_eq!(&got, want, "{name} {what}");
    }
}

/// Bit i set where `f(block[i])`.
fn mask_of(block: &[u8], f: impl Fn(u8) -> bool) -> u64 {
    block.iter().enumerate().map(|(i, &b)| u64::from(f(b)) << i).sum()
}

/// Random trials for a test: all natively; under Miri, which interprets every vector instruction,
/// two dozen, enough for every variant the trials cycle through (of 3 and of 4).
fn trials(native: usize) -> usize {
    if cfg!(miri) { 24 } else { native }
}

#[test]
#[cfg_attr(miri, ignore = "tens of thousands of counts: hours under Miri")]
fn every_kernel_counts_like_a_plain_count_for_every_length_and_alignment() {
    let data: Vec<u8> = (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let test = "every_kernel_counts_like_a_plain_count_for_every_length_and_alignment";
    for start in 0..3 {
        for len in (0..400).chain([4079, 4080, 4081, 9999, 16_383, 16_384, 19_997]) {
            let buf = &data[start..start + len];
            for byte in [b'\n', 0x9b, 0, 0xff] {
                let want = Answer::Count(buf.iter().filter(|&&b| b == byte).count() as u64);
                assert_every_block(test, || Probe::Count(buf, byte), &want, &format!("len {len} byte {byte}"));
            }
        }
    }
    // More than 127 pairs of blocks of matching bytes one after another (counters must not wrap).
    for len in [100_000, 127 * 128, 127 * 128 + 1, 127 * 128 + 64, 255 * 128, 256 * 128] {
        let buf = vec![b'\n'; len];
        assert_every_block(test, || Probe::Count(&buf, b'\n'), &Answer::Count(len as u64), &format!("{len}"));
    }
    assert!(Kernel::best().is_available());
    assert_eq!(super::count_byte(Changing::of(b"a\nb\n\n"), b'\n'), 3);
}

/// Every mask of a 64-byte block, and `ascii_blocks` from it.
#[derive(Debug, PartialEq, Eq)]
struct AllMasks {
    eq: u64,
    high: u64,
    ge: u64,
    continuation: u64,
    control_or_high: u64,
    controls: u64,
    space: u64,
    space_extra: u64,
    ranges: Utf8Ranges,
    ascii_blocks: usize,
}

/// [`AllMasks`] of every 64-byte block of `buf`, with the masks `m`.
#[inline(always)]
fn all_masks<B: Block64>(m: Masks<B>, buf: &[u8]) -> Vec<AllMasks> {
    (0..buf.len().saturating_sub(63))
        .map(|at| {
            let b = Changing::of(buf).array::<64>(at);
            AllMasks {
                eq: m.eq(b, b'\n'),
                high: m.high(b),
                ge: m.ge(b, 0xe1),
                continuation: m.continuation(b),
                control_or_high: m.control_or_high(b),
                controls: m.controls(b),
                space: m.ascii_space(b, None),
                space_extra: m.ascii_space(b, Some(0x9a)),
                ranges: m.utf8_ranges(b),
                ascii_blocks: m.ascii_blocks(Changing::of(&buf[at..])),
            }
        })
        .collect()
}

/// The plain definitions of [`AllMasks`], byte by byte.
fn reference_masks(buf: &[u8]) -> Vec<AllMasks> {
    (0..buf.len().saturating_sub(63))
        .map(|at| {
            let b = &buf[at..at + 64];
            let high = mask_of(b, |x| x >= 0x80);
            AllMasks {
                eq: mask_of(b, |x| x == b'\n'),
                high,
                ge: mask_of(b, |x| x >= 0xe1),
                continuation: mask_of(b, |x| (0x80..0xc0).contains(&x)),
                control_or_high: mask_of(b, |x| !(0x20..0x7f).contains(&x)),
                controls: mask_of(b, |x| x < 0x20 || x == 0x7f),
                space: mask_of(b, |x| matches!(x, 9..=13 | b' ')),
                space_extra: mask_of(b, |x| matches!(x, 9..=13 | b' ' | 0x9a)),
                ranges: Utf8Ranges {
                    high,
                    cont: mask_of(b, |x| (0x80..0xc0).contains(&x)),
                    ge_c2: mask_of(b, |x| x >= 0xc2),
                    ge_e0: mask_of(b, |x| x >= 0xe0),
                    ge_f0: mask_of(b, |x| x >= 0xf0),
                    ge_f5: mask_of(b, |x| x >= 0xf5),
                },
                ascii_blocks: buf[at..].chunks_exact(64).take_while(|c| c.iter().all(|&x| x < 0x80)).count() * 64,
            }
        })
        .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

    #[cfg_attr(miri, ignore = "proptest cases: hours under Miri")]
    /// Every block's masks against their plain definitions, at every block alignment.
    #[test]
    fn block_masks_match_their_definitions(
        buf in proptest::collection::vec(proptest::prop_oneof![
            3 => b'a'..=b'z',
            1 => proptest::sample::select(vec![b'\n', b' ', b'\t', 0x0b, 0x0c, b'\r', 0x7f, 0xa0, 0x1f, 0x20, 0x9a]),
            2 => proptest::prelude::any::<u8>(),
        ], 64..400),
    ) {
        let want = Answer::Masks(reference_masks(&buf));
        for (name, got) in every_block("block_masks_match_their_definitions", || Probe::Masks(&buf)) {
            proptest::prop_assert_eq!(&got, &want, "{}", name);
        }
        proptest::prop_assert_eq!(super::with_best_masks(Probe::Masks(&buf)), want);
    }
}

/// Every mask of blocks with every byte value at every place (the property above, for Miri).
#[test]
fn block_masks_mark_exactly_their_bytes() {
    let buf: Vec<u8> = (0..=255u8).chain(0..64).chain([0x80; 64]).collect();
    let step = if cfg!(miri) { 61 } else { 1 };
    for at in (0..buf.len() - 64).step_by(step) {
        let part = &buf[at..at + 65];
        let want = Answer::Masks(reference_masks(part));
        assert_every_block("block_masks_mark_exactly_their_bytes", || Probe::Masks(part), &want, &format!("at {at}"));
    }
}

/// `cat -v` notation of one byte, by the one definition.
fn notation(b: u8, tabs: bool, ends: bool) -> Vec<u8> {
    let (bytes, len) = super::notation::shown(b, true, tabs, ends);
    bytes[..len].to_vec()
}

/// [`super::notation::shown`] under -v, written out for every byte.
#[test]
fn the_notation_is_cat_v_for_every_byte() {
    for (tabs, ends) in [(false, false), (true, false), (false, true), (true, true)] {
        for b in 0..=255u8 {
            let low = b & 0x7f;
            let mut want = if b >= 0x80 { b"M-".to_vec() } else { Vec::new() };
            match (b, low) {
                (b'\n', _) => want = if ends { b"$\n".to_vec() } else { b"\n".to_vec() },
                (b'\t', _) if !tabs => want = b"\t".to_vec(),
                (_, 0x7f) => want.extend_from_slice(b"^?"),
                (_, 0..0x20) => want.extend_from_slice(&[b'^', low + 0x40]),
                _ => want.push(low),
            }
            assert_eq!(notation(b, tabs, ends), want, "{b:#04x} tabs {tabs} ends {ends}");
        }
    }
}

/// Every kernel's notation of whole blocks is what `cat -v` shows, or nothing with
/// [`Notation::Steps`]: every byte value at every place, blocks where none to all bytes need
/// notation, three alignments, -T, -E, both or neither; as many blocks as `out` has 256 bytes for.
#[test]
#[cfg_attr(miri, ignore = "AVX-512 intrinsics")]
fn notation_writes_every_byte_as_cat_v_does() {
    const TEST: &str = "notation_writes_every_byte_as_cat_v_does";
    let mut next = crate::testing::xorshift(0x5851_f42d_4c95_7f2du64);
    let mut input: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
    for b in 0..=255u8 {
        input.extend((0..64u8).map(|i| b.wrapping_add(i.wrapping_mul(37))));
    }
    for density in 0..8 {
        input.extend((0..64 * 16).map(|_| {
            let r = next();
            if (r & 7) < density { (r >> 8) as u8 } else { b'a' + (r >> 16) as u8 % 26 }
        }));
    }
    input.extend(std::iter::repeat_n(b'\n', 130));
    input.extend([0xff; 64]);
    input.extend(b"plain text without any byte that needs notation, long enough to fill....".repeat(3));
    input.extend([0x80, 0xff, 0x7f, 0x9f, 0xa0, b'\t', 0x89, 0x8a]);
    let mut kinds = Vec::new();
    for runner in runners(TEST) {
        let kind = runner.families().notation;
        kinds.push(kind);
        for (tabs, ends) in [(false, false), (true, false), (false, true), (true, true)] {
            for start in [0, 1, 63] {
                let input = &input[start..];
                for room in [input.len() * 4 + 5 * 64, 256 * 3 + 255] {
                    let mut out = vec![0u8; 7 + room];
                    let Answer::Notation((done, written)) =
                        runner.run(Probe::Notation(input, tabs, ends, &mut out[7..]))
                    else {
                        unreachable!()
                    };
                    if kind == Notation::Steps {
                        assert_eq!((done, written), (0, 0), "{runner:?}");
                        continue;
                    }
                    assert_eq!(done, (input.len() / 64).min(room / 256) * 64, "{runner:?}: every block with room");
                    let want: Vec<u8> = input[..done].iter().flat_map(|&b| notation(b, tabs, ends)).collect();
                    assert!(out[..7].iter().all(|&b| b == 0), "{runner:?} wrote before `out`");
                    assert!(out[7..7 + written] == want[..], "{runner:?} tabs {tabs} ends {ends} start {start}");
                }
            }
        }
    }
    // AVX2, AVX-512 and NEON build notation in registers.
    for kernel in [Kernel::Avx2, Kernel::Avx512, Kernel::Neon].into_iter().filter(|k| k.is_available()) {
        assert_ne!(Runner::Kernel(kernel).families().notation, Notation::Steps, "{kernel:?}");
    }
    if Kernel::Avx512.in_build() && !kinds.contains(&Notation::Permutes) {
        crate::testing::skipped(
            &format!("platform::simd::{TEST}"),
            "the AVX-512 VBMI2 notation kernel",
            &crate::testing::vbmi_not_run(),
        );
    }
}

#[test]
fn ascii_blocks_stop_at_the_block_of_the_first_high_byte() {
    let test = "ascii_blocks_stop_at_the_block_of_the_first_high_byte";
    let mut buf = vec![b'a'; 1000];
    assert_every_block(test, || Probe::AsciiBlocks(&buf), &Answer::AsciiBlocks(960), "all ASCII");
    for at in [0, 1, 63, 64, 130, 959, 960, 999] {
        buf[at] = 0x80;
        assert_every_block(test, || Probe::AsciiBlocks(&buf), &Answer::AsciiBlocks(at / 64 * 64), &format!("{at}"));
        buf[at] = b'a';
    }
}

/// [`Masks::pattern_starts`] one position at a time.
fn scalar_pattern_starts(window: &[u8; 66], patterns: &NibblePatterns, select: [u8; 3]) -> [u64; 3] {
    select.map(|bits| (0..64).map(|i| u64::from(patterns.at(&window[i..]) & bits != 0) << i).sum())
}

/// Every kernel's pattern look-up against the reference, on random tables and windows.
#[test]
fn pattern_starts_match_the_scalar_reference() {
    let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1du64);
    for trial in 0..trials(2000) {
        let mut patterns = NibblePatterns::default();
        for j in 0..3 {
            for n in 0..16 {
                // Dense tables in some trials, sparse in others.
                let density = trial % 3;
                patterns.lo[j][n] = (next() as u8) | if density == 0 { next() as u8 } else { 0 };
                patterns.hi[j][n] = (next() as u8) & if density == 2 { next() as u8 } else { 0xff };
            }
        }
        let window: [u8; 66] = std::array::from_fn(|_| next() as u8);
        let select = [next() as u8, next() as u8, next() as u8];
        let [any, top, _] = scalar_pattern_starts(&window, &patterns, [0xff, 0x80, 0]);
        // The first byte of a pattern anywhere (the second and third need not follow).
        let first = window[..64]
            .iter()
            .any(|&b| patterns.lo[0][usize::from(b & 15)] & patterns.hi[0][usize::from(b >> 4)] != 0);
        let want = Answer::Starts(scalar_pattern_starts(&window, &patterns, select), [any, top], first);
        let probe = || Probe::Starts(&window, &patterns, select);
        assert_every_block("pattern_starts_match_the_scalar_reference", probe, &want, &format!("trial {trial}"));
    }
}

/// Every kernel's `may_start` finds a pattern's first byte at every position, or its absence.
#[test]
fn may_start_finds_a_first_byte_anywhere() {
    let mut next = crate::testing::xorshift(0x5851_f42d_4c95_7f2d);
    for first in [0xe3u8, 0xc2, 0x00, 0x7f, 0x80, 0xff] {
        let mut patterns = NibblePatterns::default();
        patterns.allow(0x04, 0, 1 << (first >> 4), 1 << (first & 15));
        patterns.allow(0x04, 1, 0xffff, 0xffff);
        // (Every position natively; under Miri, every fifth and the absent one.)
        for at in (0..=64).filter(|at| !cfg!(miri) || at % 5 == 0 || *at == 64) {
            let mut block: [u8; 64] = std::array::from_fn(|_| next() as u8);
            block.iter_mut().filter(|b| **b == first).for_each(|b| *b ^= 1);
            if at < 64 {
                block[at] = first;
            }
            let probe = || Probe::MayStart(&block, &patterns);
            let (test, what) = ("may_start_finds_a_first_byte_anywhere", format!("{first:#x} at {at}"));
            assert_every_block(test, probe, &Answer::MayStart(at < 64), &what);
        }
    }
}

/// Every kernel's UTF-8 validator against the byte-by-byte reference.
#[test]
fn utf8_errors_match_the_reference() {
    let reference = |w: &[u8; 67]| (3..67).any(|i| super::utf8_tables::error_at(w[i - 3], w[i - 2], w[i - 1], w[i]));
    let plant = |w: &mut [u8; 67], next: &mut dyn FnMut() -> u64| {
        w[3 + (next() as usize) % 64] =
            [0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf0, 0xf4, 0xf5, 0xff, b'a'][(next() as usize) % 11]
    };
    utf8_windows(0x1234_5678_9abc_def0, plant, |trial, w| {
        let (want, what) = (Answer::Utf8Errors(reference(w)), format!("trial {trial}: {w:02x?}"));
        assert_every_block("utf8_errors_match_the_reference", || Probe::Utf8Errors(w), &want, &what);
    });
}

/// Windows of 67 bytes of valid text for the UTF-8 tests, handed to `check` with their trial:
/// as they are, one byte replaced at random, changed by `plant`, or all random, in turn.
fn utf8_windows(
    seed: u64,
    mut plant: impl FnMut(&mut [u8; 67], &mut dyn FnMut() -> u64),
    mut check: impl FnMut(usize, &[u8; 67]),
) {
    let text: Vec<u8> = "aé日本\u{1f600}x\u{800}\u{10ffff}\u{ffff}\u{d7ff}\u{e000}\u{80} \n".repeat(20).into_bytes();
    let mut next = crate::testing::xorshift(seed);
    for trial in 0..trials(4000) {
        let at = (next() as usize) % (text.len() - 67);
        let mut w: [u8; 67] = text[at..at + 67].try_into().unwrap();
        match trial % 4 {
            0 => {}
            1 => w[(next() as usize) % 67] = next() as u8,
            2 => plant(&mut w, &mut next),
            _ => w = std::array::from_fn(|_| next() as u8),
        }
        check(trial, &w);
    }
}

/// Every kernel's check finds what the byte-by-byte reference finds in every pair of bytes at a
/// window's end (nothing after to add an error), after every kind of byte two and three places
/// before (ASCII, continuation, each kind of lead, invalid).
#[test]
#[cfg_attr(miri, ignore = "a million windows: hours under Miri")]
fn utf8_errors_match_the_reference_for_every_pair_of_bytes() {
    let reference = |w: &[u8; 67]| (3..67).any(|i| super::utf8_tables::error_at(w[i - 3], w[i - 2], w[i - 1], w[i]));
    let before = [b'a', 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5];
    for (k, (&p3, &p2)) in before.iter().flat_map(|a| before.iter().map(move |b| (a, b))).enumerate() {
        // All pairs after the commonest context, a sample of them after the others.
        let pairs: Vec<u16> = if k == 0 { (0..=u16::MAX).collect() } else { (0..=u16::MAX).step_by(251).collect() };
        for pair in pairs {
            let mut w = [b'a'; 67];
            w[63..].copy_from_slice(&[p3, p2, (pair >> 8) as u8, pair as u8]);
            let (want, what) = (Answer::Utf8Errors(reference(&w)), format!("{:02x?}", &w[63..]));
            assert_every_block(
                "utf8_errors_match_the_reference_for_every_pair_of_bytes",
                || Probe::Utf8Errors(&w),
                &want,
                &what,
            );
        }
    }
}

/// Every kernel's starts of valid characters (`utf8_starts`) against the standard library's
/// decoding: bit i of the n-byte mask where `window[i..i + n]` is one character. Planted bytes
/// put the limited leads (E0, ED, F0, F4) before every kind of second byte.
#[test]
fn utf8_starts_match_the_reference() {
    let reference = |w: &[u8; 67]| -> [u64; 3] {
        std::array::from_fn(|k| {
            let n = k + 2;
            let one_char = |b: &[u8]| std::str::from_utf8(b).is_ok_and(|s| s.chars().count() == 1);
            (0..64).filter(|&i| w[i] >= 0x80 && one_char(&w[i..i + n])).map(|i| 1u64 << i).sum()
        })
    };
    let plant = |w: &mut [u8; 67], next: &mut dyn FnMut() -> u64| {
        let i = (next() as usize) % 64;
        w[i] = [0xe0, 0xed, 0xf0, 0xf4, 0xc0, 0xc2, 0xf5][(next() as usize) % 7];
        w[i + 1] = 0x80 + (next() as u8) % 0x40;
    };
    utf8_windows(0x0bad_5eed_1234_5678, plant, |trial, w| {
        let (want, what) = (Answer::Utf8Starts(reference(w)), format!("trial {trial}: {w:02x?}"));
        assert_every_block("utf8_starts_match_the_reference", || Probe::Utf8Starts(w), &want, &what);
    });
}

/// Every kernel's batch check (`utf8_continuation`) against the byte-by-byte reference, over 1
/// to the most blocks it takes. One text puts continuation bytes at the same places in every
/// block (byte counters at their limit); errors are planted at every kind of place.
#[test]
fn utf8_continuation_matches_the_reference() {
    let reference = utf8_continuation_reference;
    // Bit k where block k of `bytes[3..]` holds a byte above 0x7f.
    let high = |bytes: &[u8]| -> u64 {
        bytes
            .get(3..)
            .unwrap_or_default()
            .chunks_exact(64)
            .enumerate()
            .map(|(k, b)| u64::from(b.iter().any(|&x| x >= 0x80)) << k)
            .sum()
    };
    let texts = [
        "\u{1f600}",
        "日本語",
        "aé日\u{1f600}x\u{800}\u{10ffff}\n",
        "plain ascii ",
        // Blocks of ASCII between blocks that are not, at places that drift from block to block.
        "a line of plain text with a café in it, and then some more words without any; ",
        "words, words and words, then \u{1f600} and 日本 or Straße.\n",
    ];
    let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1du64);
    // Under Miri, which is slow, one largest batch and a few short ones.
    for trial in 0..if cfg!(miri) { 8 } else { 600 } {
        let text = texts[trial % texts.len()].repeat(64 * UTF8_BLOCKS_MAX).into_bytes();
        let blocks = match trial {
            0 => UTF8_BLOCKS_MAX,
            _ if cfg!(miri) => 1 + (next() as usize) % 4,
            1..8 => UTF8_BLOCKS_MAX,
            _ => 1 + (next() as usize) % UTF8_BLOCKS_MAX,
        };
        // Start at a character boundary, three bytes in.
        let start = (0..).find(|&s| text[s + 3] < 0x80 || text[s + 3] >= 0xc0).unwrap();
        let mut bytes = text[start..start + 64 * blocks + 3].to_vec();
        if trial % 3 != 0 {
            let at = match trial % 5 {
                0 => 0,
                1 => bytes.len() - 1,
                2 => (next() as usize) % 3,
                _ => (next() as usize) % bytes.len(),
            };
            bytes[at] = [0x80, 0xbf, 0xc0, 0xe0, 0xed, 0xf0, 0xf4, 0xff, b'a'][(next() as usize) % 9];
        }
        let (want, what) = (Answer::Utf8Continuation(reference(&bytes)), format!("trial {trial}, {blocks} blocks"));
        assert_every_block("utf8_continuation_matches_the_reference", || Probe::Utf8Continuation(&bytes), &want, &what);
        if blocks <= UTF8_SPARSE_BLOCKS_MAX {
            // The sparse check says the same, with a next batch of any length.
            let from = start + 64 * blocks;
            let next = &text[from..from + (next() as usize) % (3 + 64 * UTF8_SPARSE_BLOCKS_MAX)];
            let want = Answer::Utf8ContinuationSparse(reference(&bytes), high(&bytes), high(next));
            let probe = || Probe::Utf8ContinuationSparse(&bytes, next);
            assert_every_block("utf8_continuation_matches_the_reference", probe, &want, &what);
        }
    }
    // A character cut at every place near the end of a sparse batch's block (or of the three
    // bytes before it), the block after it ASCII or not.
    let cut_leads: [&[u8]; 8] =
        [&[0xc3], &[0xe0], &[0xe6], &[0xe0, 0xa0], &[0xe6, 0x97], &[0xf0], &[0xf0, 0x9f], &[0xf0, 0x9f, 0x98]];
    // Under Miri, two blocks and the cuts that end a block or one byte before its end.
    let (block_counts, ends): (&[usize], &[usize]) =
        if cfg!(miri) { (&[2], &[63, 64]) } else { (&[1, 2, 3, 5, UTF8_SPARSE_BLOCKS_MAX], &[61, 62, 63, 64]) };
    for &blocks in block_counts {
        // (Block k ends at byte 3 + 64 * k + 64; "block -1", the three bytes before, at 3.)
        for k in 0..=blocks.min(4) {
            for lead in cut_leads {
                for &end in ends {
                    for high_after in [false, true] {
                        let mut bytes = vec![b'a'; 3 + 64 * blocks];
                        let Some(at) = (64 * k + end).checked_sub(61 + lead.len()) else { continue };
                        bytes[at..at + lead.len()].copy_from_slice(lead);
                        if high_after && 64 * k + 3 < bytes.len() {
                            bytes[64 * k + 13] = 0xc3;
                            bytes[64 * k + 14] = 0xa9;
                        }
                        let want = Answer::Utf8ContinuationSparse(reference(&bytes), high(&bytes), 0);
                        let what = format!("{blocks} blocks, {lead:02x?} ending at byte {}", at + lead.len());
                        let probe = || Probe::Utf8ContinuationSparse(&bytes, b"");
                        assert_every_block("utf8_continuation_matches_the_reference", probe, &want, &what);
                    }
                }
            }
        }
    }
    // (A build without the x86 kernels has nothing to skip.)
    if Kernel::Avx512.in_build() && Runner::Kernel(Kernel::Avx512).families().utf8 != Utf8Check::Permutes {
        crate::testing::skipped(
            "platform::simd::utf8_continuation_matches_the_reference",
            "the AVX-512 VBMI UTF-8 check",
            &crate::testing::vbmi_not_run(),
        );
    }
}

/// What `utf8_continuation` answers, byte by byte (`utf8_tables::error_at`).
fn utf8_continuation_reference(bytes: &[u8]) -> Option<u64> {
    let errors =
        (3..bytes.len()).any(|i| super::utf8_tables::error_at(bytes[i - 3], bytes[i - 2], bytes[i - 1], bytes[i]));
    (!errors).then(|| bytes[3..].iter().filter(|&&b| (0x80..0xc0).contains(&b)).count() as u64)
}

/// Text of one- and three-byte characters, with the ends of E0's and ED's ranges among them.
fn one_and_three_byte_text() -> Vec<u8> {
    "日本語のテキスト、한국어와 हिन्दी ไทย: plain 123.\u{800}\u{fff}\u{d000}\u{d7ff}\u{e000}\u{ffff}\n"
        .repeat(64 * UTF8_BLOCKS_MAX / 60)
        .into_bytes()
}

/// Asserts that every kernel's check of one- and three-byte characters answers `bytes` as the
/// reference does, or not at all (None: the full check follows). With `must_answer`, every
/// kernel that has the check ([`Utf8Check::has_three`]) must answer.
fn assert_three_matches_or_passes(test: &str, bytes: &[u8], must_answer: bool, what: &str) {
    let want = Answer::Utf8Continuation(utf8_continuation_reference(bytes));
    for runner in runners(test) {
        let got = runner.run(Probe::Utf8ContinuationThree(bytes));
        let has_check = runner.families().utf8.has_three();
        if got != Answer::Utf8Continuation(None) || (must_answer && has_check) {
            assert!(has_check, "{runner:?} answered without the check");
            assert_eq!(got, want, "{} {what}: {bytes:02x?}", runner.name());
        }
    }
}

/// The check of one- and three-byte characters (`utf8_continuation_three`) over 1 to the most
/// blocks it takes: every kernel with the check answers such text as the reference does. With
/// bytes changed (before the first block, at block ends, anywhere), every kernel answers as the
/// reference or not at all.
#[test]
fn utf8_continuation_three_matches_the_reference_or_passes() {
    let text = one_and_three_byte_text();
    let mut next = crate::testing::xorshift(0x3c6e_f372_fe94_f82b);
    for trial in 0..trials(3000) {
        let blocks = if trial < 4 { UTF8_BLOCKS_MAX } else { 1 + (next() as usize) % UTF8_BLOCKS_MAX };
        let start = (next() as usize) % (text.len() - 64 * blocks - 3);
        let mut bytes = text[start..start + 64 * blocks + 3].to_vec();
        let changed = trial % 4 != 0;
        for _ in 0..if changed { 1 + trial % 3 } else { 0 } {
            let at = match next() % 4 {
                0 => (next() as usize) % 4,
                1 => (2 + 64 * ((next() as usize) % blocks) + (next() as usize) % 3).min(bytes.len() - 1),
                _ => (next() as usize) % bytes.len(),
            };
            let kinds = [0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, b'a'];
            bytes[at] = if next() % 2 == 0 { kinds[(next() as usize) % kinds.len()] } else { next() as u8 };
        }
        let what = format!("trial {trial}, {blocks} blocks");
        assert_three_matches_or_passes(
            "utf8_continuation_three_matches_the_reference_or_passes",
            &bytes,
            !changed,
            &what,
        );
    }
}

/// Every pair of bytes, where the check of one- and three-byte characters has a case of its own
/// (before the first block, block edges, the end): no kernel's answer differs from the reference.
#[test]
#[cfg_attr(miri, ignore = "a million batches: hours under Miri")]
fn utf8_continuation_three_passes_no_error_for_any_pair_of_bytes() {
    const TEST: &str = "utf8_continuation_three_passes_no_error_for_any_pair_of_bytes";
    let text = one_and_three_byte_text();
    for start in [0, 1, 2, 7, 8] {
        let valid = &text[start..start + 3 + 128];
        assert_three_matches_or_passes(TEST, valid, true, "the text itself");
        for at in [0, 1, 2, 3, 4, 65, 66, 67, 68, 129] {
            for pair in 0..=u16::MAX {
                let mut bytes = valid.to_vec();
                [bytes[at], bytes[at + 1]] = pair.to_be_bytes();
                assert_three_matches_or_passes(TEST, &bytes, false, &format!("{pair:04x} at {at}"));
            }
        }
    }
}

/// Every kernel's 64-entry look-up against the byte-by-byte reference.
#[test]
fn lookup64_matches_the_scalar_reference() {
    let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
    for trial in 0..trials(2000) {
        let table: [u8; 64] = std::array::from_fn(|_| next() as u8);
        // Every byte value, high bits included (only the low six index).
        let block: [u8; 64] =
            std::array::from_fn(|i| if trial % 4 == 0 { (i * 4 + trial) as u8 } else { next() as u8 });
        let select = [next() as u8, next() as u8, next() as u8];
        let want = Answer::Lookup64(select.map(|bits| mask_of(&block, |b| table[usize::from(b & 63)] & bits != 0)));
        let probe = || Probe::Lookup64(&block, &table, select);
        assert_every_block("lookup64_matches_the_scalar_reference", probe, &want, &format!("trial {trial}"));
    }
}

/// Every kernel's tally of one byte value against a plain count, over 1 to [`TALLY_MAX`] blocks.
#[test]
fn tally_counts_like_a_plain_count() {
    let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
    for trial in 0..trials(200) {
        let blocks = 1 + trial % TALLY_MAX;
        let byte = next() as u8;
        // Trial 0: every byte 0xa5, a continuation byte, in the most blocks (lanes at their limit).
        let byte = if trial == 0 { 0xa5 } else { byte };
        let (blocks, density) = if trial == 0 { (TALLY_MAX, 1) } else { (blocks, 1 + trial % 5) };
        let input: Vec<u8> =
            (0..64 * blocks).map(|_| if (next() as usize) % density == 0 { byte } else { next() as u8 }).collect();
        let equal = input.iter().filter(|&&b| b == byte).count() as u64;
        let want = Answer::Tally(equal, input.iter().filter(|&&b| (0x80..0xc0).contains(&b)).count() as u64);
        let what = format!("trial {trial}");
        assert_every_block("tally_counts_like_a_plain_count", || Probe::Tally(&input, byte), &want, &what);
    }
}

/// Every feature a kernel's code is compiled for (each `#[target_feature]` in `x86_64/`) is one
/// the chooser checks before that code runs. So a CPU or VM that hides one gets a slower kernel,
/// never an instruction it lacks (`lzcnt` would run as `bsr`, `tzcnt` as `bsf`).
#[test]
#[cfg(target_arch = "x86_64")]
#[cfg_attr(miri, ignore = "reads the source files")]
fn kernels_run_only_where_the_cpu_has_every_feature_they_are_compiled_for() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/platform/simd/x86_64");
    let with = |extra: &[&'static str]| -> Vec<&str> {
        Kernel::Avx512.target_features().iter().chain(extra).copied().collect()
    };
    // The features checked before each file's code runs.
    let checked = |file: &str| match file {
        // The block kernels, and the families' AVX2 kernels, which inline into either.
        "avx2.rs" | "notation_avx2.rs" => Kernel::Avx2.target_features().to_vec(),
        "avx512.rs" => Kernel::Avx512.target_features().to_vec(),
        // The VBMI kernels and their load (mod.rs) run only from AVX-512, with their extensions.
        "notation_vbmi2.rs" => with(&super::notation::PERMUTES_FEATURES),
        "utf8_vbmi.rs" => with(&super::utf8::PERMUTES_FEATURES),
        "mod.rs" => with(&[]),
        // SSE2's and SSSE3's blocks, and SSSE3's notation, which inlines into SSSE3's; the check of one- and
        // three-byte forms, which inlines into AVX2's or SSE2's.
        "sse.rs" | "notation_ssse3.rs" | "utf8_three.rs" => Kernel::Ssse3.target_features().to_vec(),
        other => panic!("x86_64/{other} is new: say here which kernel's checks guard its code"),
    };
    let features = crate::platform::cpu::features();
    let mut named = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let file = path.file_name().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        for list in text.split("#[target_feature(enable = \"").skip(1) {
            for name in list[..list.find('"').unwrap()].split(',') {
                assert!(features.has(name).is_some(), "x86_64/{file}: `{name}` is not detected (platform::cpu)");
                assert!(checked(&file).contains(&name), "x86_64/{file}: compiled for `{name}`, never checked");
                named += 1;
            }
        }
    }
    // sse.rs 2, avx2.rs 5, avx512.rs 7, notation_vbmi2.rs 5, utf8_vbmi.rs 3, mod.rs 1: the scan works.
    assert!(named >= 23, "found only {named} feature names in {}", dir.display());
}

/// The features of a Zen 3 (AVX2, no AVX-512), from which the tests below make other CPUs.
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
fn zen3() -> Features {
    Features {
        sse2: true,
        ssse3: true,
        popcnt: true,
        avx2: true,
        bmi1: true,
        bmi2: true,
        lzcnt: true,
        ..Features::default()
    }
}

/// A CPU that lacks any of a kernel's target features gets the next kernel down that it has.
#[test]
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
fn a_cpu_without_one_feature_gets_a_kernel_below() {
    let full = Features { avx512f: true, avx512bw: true, avx512vbmi: true, avx512vbmi2: true, ..zen3() };
    // (A build whose compiler lacks the AVX-512 intrinsics has no AVX-512 kernel to run.)
    assert!(Kernel::Avx512.runs_with(full) == Kernel::Avx512.in_build() && Kernel::Avx2.runs_with(full));
    for name in Kernel::Avx512.target_features() {
        let mut lacking = full;
        match *name {
            "avx2" => lacking.avx2 = false,
            "bmi1" => lacking.bmi1 = false,
            "bmi2" => lacking.bmi2 = false,
            "popcnt" => lacking.popcnt = false,
            "lzcnt" => lacking.lzcnt = false,
            "avx512f" => lacking.avx512f = false,
            "avx512bw" => lacking.avx512bw = false,
            other => panic!("{other}: say here how a CPU lacks it"),
        }
        assert_eq!(lacking.has(name), Some(false));
        assert!(!Kernel::Avx512.runs_with(lacking), "AVX-512 without {name}");
        let avx2 = Kernel::Avx2.target_features().contains(name);
        assert_eq!(Kernel::Avx2.runs_with(lacking), !avx2, "AVX2 without {name}");
        assert!(Kernel::Sse2.runs_with(lacking));
        assert_eq!(Kernel::Ssse3.runs_with(lacking), *name != "popcnt", "SSSE3 without {name}");
    }
    // SSSE3's kernel needs POPCNT too: Core 2 has SSSE3 alone.
    let core2 = Features { sse2: true, ssse3: true, ..Features::default() };
    assert!(!Kernel::Ssse3.runs_with(core2) && Kernel::Sse2.runs_with(core2));
    assert!(Kernel::Ssse3.runs_with(Features { popcnt: true, ..core2 }));
}

/// Each family's kernel on CPUs this machine may not be, from their features alone. Skylake-SP
/// and Cascade Lake (AVX-512 without VBMI or VBMI2) run AVX2's notation and AVX-512's own UTF-8
/// check by shuffles; Ice Lake and Zen 4 their own permutes; Zen 3 AVX2's; Nehalem to Ivy Bridge
/// and the Atoms without AVX2 SSSE3's; Core 2 (no POPCNT) neither.
#[test]
#[cfg(all(target_arch = "x86_64", not(feature = "portable")))]
fn each_family_runs_the_best_kernel_the_cpu_has() {
    let zen3 = zen3();
    let skylake_sp = Features { avx512f: true, avx512bw: true, ..zen3 };
    let cannon_lake = Features { avx512vbmi: true, ..skylake_sp };
    let ice_lake = Features { avx512vbmi2: true, ..cannon_lake };
    let nehalem = Features { sse2: true, ssse3: true, popcnt: true, ..Features::default() };
    let core2 = Features { popcnt: false, ..nehalem };
    // A build whose compiler lacks the AVX-512 intrinsics runs AVX2's kernels there.
    let (avx512, permutes, utf8_permutes, utf8_lookups) = if Kernel::Avx512.in_build() {
        (Kernel::Avx512, Notation::Permutes, Utf8Check::Permutes, Utf8Check::Lookups)
    } else {
        (Kernel::Avx2, Notation::Shuffles, Utf8Check::LookupsAndThree, Utf8Check::LookupsAndThree)
    };
    for (cpu, features, kernel, notation, utf8) in [
        ("Skylake-SP, Cascade Lake", skylake_sp, avx512, Notation::Shuffles, utf8_lookups),
        ("Cannon Lake (VBMI, no VBMI2)", cannon_lake, avx512, Notation::Shuffles, utf8_permutes),
        ("Ice Lake, Zen 4", ice_lake, avx512, permutes, utf8_permutes),
        ("Zen 3", zen3, Kernel::Avx2, Notation::Shuffles, Utf8Check::LookupsAndThree),
        ("Nehalem to Ivy Bridge, Silvermont", nehalem, Kernel::Ssse3, Notation::Shuffles, Utf8Check::LookupsAndThree),
        ("Core 2", core2, Kernel::Sse2, Notation::Steps, Utf8Check::ComparesAndThree),
    ] {
        assert_eq!(Kernel::fastest(features), kernel, "{cpu}");
        assert_eq!(Families::of(kernel, features), Families { notation, utf8 }, "{cpu}");
    }
}

/// The families' choosers test exactly their kernels' `PERMUTES_FEATURES`.
#[test]
fn the_permutes_need_exactly_their_features() {
    for (vbmi, vbmi2) in [(false, false), (true, false), (false, true), (true, true)] {
        let features = Features { avx512vbmi: vbmi, avx512vbmi2: vbmi2, ..Features::default() };
        let notation = super::notation::choose(Kernel::Avx512, features) == Notation::Permutes;
        assert_eq!(notation, features.has_all(&super::notation::PERMUTES_FEATURES), "{features:?}");
        let utf8 = super::utf8::choose(Kernel::Avx512, features) == Utf8Check::Permutes;
        assert_eq!(utf8, features.has_all(&super::utf8::PERMUTES_FEATURES), "{features:?}");
    }
}
