use super::*;
use crate::wc::classes::is_nbspace;
use proptest::prelude::*;

/// GNU's unibyte loop, byte by byte, with C-locale classes and the 0xA0 rule.
fn reference_c(input: &[u8]) -> Counts {
    let mut c = Counts::default();
    let (mut in_word, mut pos) = (false, 0u64);
    for &b in input {
        c.bytes += 1;
        let sep = |c: &mut Counts, in_word: &mut bool| {
            c.words += u64::from(*in_word);
            *in_word = false;
        };
        match b {
            b'\n' | b'\r' | 0x0c => {
                if b == b'\n' {
                    c.lines += 1;
                }
                c.max_line_length = c.max_line_length.max(pos);
                pos = 0;
                sep(&mut c, &mut in_word);
            }
            b'\t' => {
                pos += 8 - pos % 8;
                sep(&mut c, &mut in_word);
            }
            b' ' => {
                pos += 1;
                sep(&mut c, &mut in_word);
            }
            0x0b | 0xa0 => sep(&mut c, &mut in_word),
            _ => {
                pos += u64::from((0x20..0x7f).contains(&b));
                in_word = true;
            }
        }
    }
    c.words += u64::from(in_word);
    c.max_line_length = c.max_line_length.max(pos);
    c.chars = c.bytes;
    c
}

/// A counter with the pass that `wc::plan` gives it.
fn new_counter(want: Want, classes: &ByteClasses, charset: Charset) -> Counter<'_> {
    Counter::new(want, classes, charset, pass(want, charset, ClassShape::of(classes)))
}

/// Counts `input` fed in the chunks that `cuts` (sorted offsets) make.
fn count(charset: Charset, input: &[u8], cuts: &[usize], want: Want) -> Counts {
    let classes = ByteClasses::new(charset, false);
    let mut counter = new_counter(want, &classes, charset);
    let mut prev = 0;
    for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
        counter.feed(Changing::of(&input[prev..cut]));
        prev = cut;
    }
    counter.finish()
}

/// UTF-8 noise of fragments: ASCII, spaces (ASCII and not), wide, combining, invalid, truncated.
fn utf8_noise(len: usize, seed: &mut u64) -> Vec<u8> {
    let pieces: [&[u8]; 14] = [
        b"a",
        b"word ",
        b"\n",
        b"\t",
        "\u{a0}".as_bytes(),
        "\u{3000}".as_bytes(),
        "\u{2003}".as_bytes(),
        "日本".as_bytes(),
        "e\u{301}".as_bytes(),
        "\u{1f600}".as_bytes(),
        b"\xff",
        b"\xe2\x82",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
    ];
    let mut out = Vec::new();
    while out.len() < len {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        out.extend_from_slice(pieces[(*seed % pieces.len() as u64) as usize]);
    }
    out
}

/// GNU's multibyte loop in a UTF-8 locale, written apart from the kernels: std's decoder (each
/// byte of an invalid sequence a word byte, width 0, no character), the C library's classes.
fn reference_utf8(input: &[u8]) -> Counts {
    let mut c = Counts { bytes: input.len() as u64, ..Counts::default() };
    let (mut in_word, mut pos) = (false, 0u64);
    for chunk in input.utf8_chunks() {
        for ch in chunk.valid().chars() {
            c.chars += 1;
            let wc = ch as u32;
            let separator = match ch {
                '\n' | '\r' | '\x0c' => {
                    c.lines += u64::from(ch == '\n');
                    c.max_line_length = c.max_line_length.max(pos);
                    pos = 0;
                    true
                }
                '\t' => {
                    pos += 8 - pos % 8;
                    true
                }
                ' ' => {
                    pos += 1;
                    true
                }
                '\x0b' => true,
                _ if wc < 0x80 => {
                    pos += u64::from((0x20..0x7f).contains(&wc));
                    false
                }
                _ => {
                    pos += platform::char_width(wc).max(0) as u64;
                    platform::is_space_wide(wc) || is_nbspace(wc)
                }
            };
            if separator {
                c.words += u64::from(in_word);
                in_word = false;
            } else {
                in_word = true;
            }
        }
        if !chunk.invalid().is_empty() {
            in_word = true;
        }
    }
    c.words += u64::from(in_word);
    c.max_line_length = c.max_line_length.max(pos);
    c
}

/// The fields of `counts` that `want` asks for (bytes are always counted).
fn wanted(counts: Counts, want: Want) -> Counts {
    Counts {
        lines: if want.lines { counts.lines } else { 0 },
        words: if want.words { counts.words } else { 0 },
        chars: if want.chars { counts.chars } else { 0 },
        max_line_length: if want.max_line_length { counts.max_line_length } else { 0 },
        ..counts
    }
}

/// The options of bit set `bits` (one of 2^5).
pub(super) fn want_from_bits(bits: u8) -> Want {
    Want {
        lines: bits & 1 != 0,
        words: bits & 2 != 0,
        chars: bits & 4 != 0,
        bytes: bits & 8 != 0,
        max_line_length: bits & 16 != 0,
    }
}

/// Counts `input` cut at `cuts` with each kernel's block masks (SWAR for portable, the
/// baseline's for sse2 and neon; AVX2 and AVX-512 where the CPU has them) and through `feed`,
/// each also with the lead tables that an input this small does not otherwise use (`tables_pay`).
fn count_with_every_kernel(charset: Charset, input: &[u8], cuts: &[usize], want: Want) -> Vec<Counts> {
    let (classes, tabled) = (ByteClasses::new(charset, false), ByteClasses::new(charset, false));
    tabled.wide.use_tables();
    let mut results = Vec::new();
    let kernels = crate::testing::kernels("wc::count (every kernel against the references)");
    for (kernel, classes) in kernels.into_iter().map(Some).chain([None]).flat_map(|k| [(k, &classes), (k, &tabled)]) {
        let mut counter = new_counter(want, classes, charset);
        let mut prev = 0;
        for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
            match kernel {
                Some(kernel) => counter.feed_with(kernel, Changing::of(&input[prev..cut])),
                None => counter.feed(Changing::of(&input[prev..cut])),
            }
            prev = cut;
        }
        results.push(counter.finish());
    }
    results
}

/// Byte soup for the C locale: letters, white space of every kind, line ends, high bytes,
/// controls, long runs without line ends.
fn c_input() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        6 => b'a'..=b'z',
        2 => Just(b' '),
        2 => Just(b'\n'),
        1 => prop::sample::select(vec![b'\t', b'\r', 0x0b, 0x0c, 0xa0, 0, 0x7f, 0x1b]),
        1 => any::<u8>(),
    ];
    prop::collection::vec(byte, 0..3000)
}

/// UTF-8 soup: ASCII, spaces (ASCII and not), wide, combining, zero-width and unprintable
/// characters, invalid and truncated sequences, overlong forms, surrogates, past U+10FFFF.
fn utf8_input() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<&'static [u8]> = vec![
        b"a",
        b"word",
        b" ",
        b"\n",
        b"\t",
        b"\r",
        b"\x0b",
        b"\x0c",
        b"\x00",
        b"\x7f",
        "\u{a0}".as_bytes(),
        "\u{2007}".as_bytes(),
        "\u{3000}".as_bytes(),
        "\u{2003}".as_bytes(),
        "\u{85}".as_bytes(),
        "\u{200b}".as_bytes(),
        "\u{ad}".as_bytes(),
        "日本".as_bytes(),
        "\u{301}".as_bytes(),
        "é".as_bytes(),
        "\u{1f600}".as_bytes(),
        // Near the multibyte spaces' byte patterns: U+2028, U+205F, U+1680, U+200D (not a
        // space), U+3001 and U+2014 (punctuation sharing their first bytes), truncations.
        "\u{2028}".as_bytes(),
        "\u{205f}".as_bytes(),
        "\u{1680}".as_bytes(),
        "\u{200d}".as_bytes(),
        "\u{3001}".as_bytes(),
        "\u{2014}".as_bytes(),
        "\u{ab}".as_bytes(),
        b"\xe3\x80",
        b"\xe2\x80",
        b"\xc2",
        "\u{10ffff}".as_bytes(),
        "\u{e000}".as_bytes(),
        "\u{d7ff}".as_bytes(),
        "\u{800}".as_bytes(),
        "\u{10000}".as_bytes(),
        b"\xff",
        b"\xc0\xaf",
        b"\xc1",
        b"\xe2\x82",
        b"\xed\xa0\x80",
        b"\xf4\x90\x80\x80",
        b"\xe0\x80\x80",
        b"\xf0\x80\x80\x80",
        b"\x80",
        b"\xbf",
        b"\xf5",
        b"\xf8\x88\x80\x80\x80",
    ];
    let piece =
        prop_oneof![8 => prop::sample::select(vec![&b"ab"[..], b"the ", b"x\n"]), 5 => prop::sample::select(pieces)];
    prop::collection::vec(piece, 0..900).prop_map(|p| p.concat())
}

/// Up to 5 sorted cut points in `0..=len`.
fn cuts_for(len: usize, seeds: &[usize]) -> Vec<usize> {
    let mut cuts: Vec<usize> = seeds.iter().map(|s| s % (len + 1)).collect();
    cuts.sort();
    cuts
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn c_locale_kernels_match_the_reference(
        input in c_input(),
        seeds in prop::collection::vec(any::<usize>(), 0..5),
        bits in 0u8..32,
    ) {
        let want = want_from_bits(bits);
        let cuts = cuts_for(input.len(), &seeds);
        let expected = wanted(reference_c(&input), want);
        for got in count_with_every_kernel(Charset::Unibyte, &input, &cuts, want) {
            let got = Counts { chars: if want.chars { got.chars } else { 0 }, ..wanted(got, want) };
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn utf8_kernels_match_the_reference(
        input in utf8_input(),
        seeds in prop::collection::vec(any::<usize>(), 0..5),
        bits in 0u8..32,
    ) {
        let want = want_from_bits(bits);
        let cuts = cuts_for(input.len(), &seeds);
        let expected = wanted(reference_utf8(&input), want);
        for got in count_with_every_kernel(Charset::Utf8, &input, &cuts, want) {
            prop_assert_eq!(wanted(got, want), expected);
        }
    }

    #[test]
    fn long_lines_keep_the_longest_width(
        lens in prop::collection::vec(0usize..300, 1..60),
        tabs in prop::collection::vec(any::<bool>(), 60),
        wide in any::<bool>(),
        seeds in prop::collection::vec(any::<usize>(), 0..5),
    ) {
        // Lines of very different lengths, some with TABs or wide characters: the -L
        // shortcut (only what follows a window's last line end) must never hide a maximum.
        let mut input = Vec::new();
        for (k, &len) in lens.iter().enumerate() {
            for j in 0..len {
                input.extend_from_slice(if wide && j % 7 == 3 { "語".as_bytes() } else { b"x" });
            }
            if tabs[k % tabs.len()] {
                input.push(b'\t');
            }
            input.push(b'\n');
        }
        let cuts = cuts_for(input.len(), &seeds);
        let want = Want { max_line_length: true, ..Want::default() };
        let expected = wanted(reference_utf8(&input), want);
        for got in count_with_every_kernel(Charset::Utf8, &input, &cuts, want) {
            prop_assert_eq!(wanted(got, want), expected);
        }
    }
}

#[test]
fn tab_lines_near_the_longest_at_every_alignment() {
    // -L alone bounds TABs at eight columns: lines of TABs just wider or narrower than an earlier
    // line, at many alignments to the windows, and with the TABs' line cut across windows.
    let alone = Want { max_line_length: true, ..Want::default() };
    let with_lines = Want { lines: true, bytes: true, ..alone };
    for (charset, reference) in
        [(Charset::Utf8, reference_utf8 as fn(&[u8]) -> Counts), (Charset::Unibyte, reference_c)]
    {
        for tabs in [1usize, 7, 8, 9, 56, 63, 64, 65, 120] {
            for extra in [0, 1, 5] {
                for longest in (8 * tabs).saturating_sub(9)..8 * tabs + 10 {
                    for shift in (0..64).step_by(3) {
                        let mut input = vec![b'a'; longest];
                        input.extend(std::iter::repeat_n(b'\n', shift + 1));
                        input.extend(std::iter::repeat_n(b'\t', tabs));
                        input.extend(std::iter::repeat_n(b'b', extra));
                        input.extend_from_slice(b"\nccc");
                        for want in [alone, with_lines] {
                            let expected = wanted(reference(&input), want);
                            for got in count_with_every_kernel(charset, &input, &[], want) {
                                assert_eq!(wanted(got, want), expected, "{tabs} TABs + {extra}, {longest}, {shift}");
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn utf8_paths_agree_whatever_the_chunk_boundaries() {
    // The character loop (-L on) is the reference for the mixed-block path (-L off), the
    // chars-only path (no -w) and for every cut of the input into chunks.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for trial in 0..300 {
        let input = utf8_noise(1 + trial * 7, &mut seed);
        let all = Want { lines: true, words: true, chars: true, bytes: true, max_line_length: true };
        let reference = count(Charset::Utf8, &input, &[], all);
        let mut cuts: Vec<usize> = (0..4).map(|k| (seed as usize >> (k * 8)) % (input.len() + 1)).collect();
        cuts.sort();
        assert_eq!(count(Charset::Utf8, &input, &cuts, all), reference, "trial {trial} cuts {cuts:?}");
        // Without -L the longest line is not computed (and not printed).
        let no_l = count(Charset::Utf8, &input, &cuts, Want { max_line_length: false, ..all });
        assert_eq!(no_l, Counts { max_line_length: no_l.max_line_length, ..reference }, "trial {trial}");
        let chars = count(Charset::Utf8, &input, &cuts, Want { lines: true, chars: true, ..Want::default() });
        assert_eq!((chars.chars, chars.lines, chars.bytes), (reference.chars, reference.lines, reference.bytes));
    }
}

#[test]
fn block_and_byte_paths_agree_with_the_model_in_the_c_locale() {
    // The test process has not called setlocale: the C locale.
    let mut next = crate::testing::xorshift(0x1234_5678_9abc_def1u64);
    for _ in 0..200 {
        let len = (next() % 5000) as usize;
        let input: Vec<u8> = (0..len)
            .map(|_| match next() % 6 {
                0 => b' ',
                1 => b'\n',
                2 => [b'\t', b'\r', 0x0b, 0x0c, 0xa0, 0][(next() % 6) as usize],
                3 => (next() % 256) as u8,
                _ => b'a' + (next() % 26) as u8,
            })
            .collect();
        let mut cuts: Vec<usize> = (0..3).map(|_| (next() as usize) % (len + 1)).collect();
        cuts.sort();
        let want_all = Want { lines: true, words: true, chars: true, bytes: true, max_line_length: true };
        let want_fast = Want { max_line_length: false, ..want_all };
        let expected = reference_c(&input);
        assert_eq!(count(Charset::Unibyte, &input, &cuts, want_all), expected);
        let fast = count(Charset::Unibyte, &input, &cuts, want_fast);
        assert_eq!(fast, Counts { max_line_length: fast.max_line_length, ..expected });
        assert_eq!(count_lines(Changing::of(&input)), expected.lines);
    }
}

#[test]
fn words_agree_as_the_lead_filter_stands_aside_and_looks_again() {
    // Text whose windows mostly hold a lead byte of a space (kana and CJK punctuation share
    // U+3000's), long enough for the filter to stand aside, then text without any, then the first
    // kind again; every multibyte space, and invalid bytes, at every alignment to the windows.
    let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
    let dense: [&str; 8] = ["かな", "、", "。", "「漢字」", "\u{3000}", "\u{a0}", "\u{2009}", "\u{205f}"];
    let free: [&[u8]; 6] = ["كلمة".as_bytes(), b" ", "نص".as_bytes(), b"\n", b"\xe3\x80", "\u{3000}".as_bytes()];
    let mut input = Vec::new();
    let mut part = |input: &mut Vec<u8>, len: usize, dense_part: bool| {
        let end = input.len() + len;
        while input.len() < end {
            let r = next() as usize;
            if dense_part {
                input.extend_from_slice(dense[r % dense.len()].as_bytes());
            } else if r % 997 == 0 {
                // A rare space or a cut sequence in the lead-free text.
                input.extend_from_slice(free[4 + r % 2]);
            } else {
                input.extend_from_slice(free[r % 4]);
            }
        }
    };
    let (batch, rest) = (64 * LeadFilter::BATCH, LeadFilter::REST as usize);
    part(&mut input, 3 * batch + 100, true);
    let dense_end = input.len();
    part(&mut input, (rest + 3) * batch, false);
    let free_end = input.len();
    part(&mut input, 2 * batch + 7, true);
    let expected = reference_utf8(&input);
    let classes = ByteClasses::new(Charset::Utf8, false);
    for want in
        [Want { words: true, ..Want::default() }, Want { lines: true, words: true, bytes: true, ..Want::default() }]
    {
        for kernel in crate::testing::kernels("wc::count (the lead filter's batches)") {
            let mut counter = new_counter(want, &classes, Charset::Utf8);
            counter.feed_with(kernel, Changing::of(&input[..dense_end]));
            let after_dense = counter.lead_filter;
            counter.feed_with(kernel, Changing::of(&input[dense_end..free_end]));
            let after_free = counter.lead_filter;
            counter.feed_with(kernel, Changing::of(&input[free_end..]));
            let got = counter.finish();
            assert_eq!(wanted(got, want), wanted(expected, want), "{kernel:?} {want:?}");
            if platform::simd::with_masks(kernel, TableLookups) {
                assert!(after_dense.off, "{kernel:?}: the filter stood aside in the dense text");
                assert!(!after_free.off, "{kernel:?}: the filter looks again in the lead-free text");
            }
        }
    }
}

/// Whether a kernel's block masks use table look-ups (and so the lead filter).
struct TableLookups;

impl WithMasks for TableLookups {
    type Output = bool;
    fn run<B: Block64>(self, m: Masks<B>) -> bool {
        m.lookups_pay()
    }
}

#[test]
fn characters_agree_around_the_tally_batches() {
    // -m counts valid windows from tallies of up to 255 windows: errors where one tally's windows
    // end and the next's begin, and at the run's first and last, take back just what was tallied.
    // Only two-byte characters: every odd byte is a continuation byte, filling each tally lane.
    for text in ["Съешь же ещё этих мягких французских булок, 中文字符 και ελληνικά ✓😀 ascii\n", "ж"]
    {
        characters_around_the_tally_batches(text);
    }
}

fn characters_around_the_tally_batches(text: &str) {
    let mut base = Vec::new();
    while base.len() < 64 * 255 * 2 + 300 {
        base.extend_from_slice(text.as_bytes());
    }
    let batch = 64 * crate::platform::simd::TALLY_MAX;
    let spots =
        [0, 1, 63, 64, 65, batch - 65, batch - 64, batch - 2, batch - 1, batch, batch + 1, batch + 63, batch + 64];
    let want = Want { lines: true, chars: true, ..Want::default() };
    let classes = ByteClasses::new(Charset::Utf8, false);
    for (k, &spot) in spots.iter().chain(&[2 * batch - 1, base.len() - 70, base.len() - 3]).enumerate() {
        for bad in [&b"\xff"[..], b"\xe4\xb8", b"\x80\x80", b"\xf0\x9f\x98"] {
            let mut input = base.clone();
            input[spot..spot + bad.len()].copy_from_slice(bad);
            let expected = wanted(reference_utf8(&input), want);
            for kernel in crate::testing::kernels("wc::count (-m around the tally batches)") {
                let mut counter = new_counter(want, &classes, Charset::Utf8);
                counter.feed_with(kernel, Changing::of(&input));
                assert_eq!(wanted(counter.finish(), want), expected, "{kernel:?} spot {k} at {spot} {bad:x?}");
            }
        }
    }
}

#[test]
fn single_byte_words_agree_across_the_tally_batches() {
    // Line ends tallied 255 windows at a time, word state carried across windows, batches and
    // chunks: long byte soup cut at many places, through every kernel against GNU's loop.
    let mut next = crate::testing::xorshift(0x6a09_e667_f3bc_c909);
    // (First an unbroken run of more line ends than a tally's lane holds.)
    let input: Vec<u8> = std::iter::repeat_n(b'\n', 64 * 256 + 5)
        .chain((0..64 * 255 * 2 + 1000).map(|k| match next() % 8 {
            0 if k % 4096 < 2000 => b'\n',
            1 => b' ',
            2 => 0xa0,
            3 => next() as u8,
            _ => b'a' + (next() % 26) as u8,
        }))
        .collect();
    let expected = reference_c(&input);
    for want in
        [Want { words: true, ..Want::default() }, Want { lines: true, words: true, bytes: true, ..Want::default() }]
    {
        for cuts in [vec![], vec![64 * 255 - 1, 64 * 255 + 63], vec![1, 1000, 20000, 40000]] {
            for got in count_with_every_kernel(Charset::Unibyte, &input, &cuts, want) {
                assert_eq!(wanted(got, want), wanted(expected, want), "{want:?} {cuts:?}");
            }
        }
    }
}

#[test]
fn characters_checked_in_batches_count_a_lone_error_wherever_it_stands() {
    // `-m` alone checks 64 windows (4 KiB) at once: one bad sequence at a batch's edges, across
    // batches or windows, or at the end, counts as GNU counts it, on every kernel and chunking.
    // Where AVX2 first checks one- and three-byte forms alone, a two- or four-byte one is no error.
    for (valid, bads) in [
        (
            "日本語 text, ünïcödé — 😀 ok\n",
            &[&b"\xff"[..], b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf0\x9f\x98", b"\x80"][..],
        ),
        (
            "日本語のテキスト、한국어 हिन्दी ไทย ok\n",
            &[&b"\xff"[..], b"\xe2\x82", b"\xed\xa0\x80", b"\xc3\xa9", "😀".as_bytes()][..],
        ),
    ] {
        characters_checked_in_batches(&valid.repeat(700).into_bytes(), bads);
    }
}

fn characters_checked_in_batches(valid: &[u8], bads: &[&[u8]]) {
    let want = Want { chars: true, lines: true, bytes: true, ..Want::default() };
    let mut positions = vec![0, 1, 2, 3, 61, 62, 63, 64, 65, valid.len() - 1, valid.len()];
    // Batches of 64 windows follow the run's first window: they end at 64 + 4096 k.
    for batch_end in [4160, 8256, 12352] {
        positions.extend(batch_end - 67..batch_end + 5);
    }
    for &bad in bads {
        for &at in &positions {
            let input = [&valid[..at], bad, &valid[at..]].concat();
            let expected = wanted(reference_utf8(&input), want);
            for mut cuts in [vec![], vec![at], vec![at + bad.len() / 2, input.len() - 2]] {
                cuts.sort();
                for got in count_with_every_kernel(Charset::Utf8, &input, &cuts, want) {
                    assert_eq!(wanted(got, want), expected, "{bad:x?} at {at}, cuts {cuts:?}");
                }
            }
        }
    }
    // Valid text alone, and two errors a batch apart.
    let two = [&valid[..100], b"\xff", &valid[100..4300], b"\xc3", &valid[4300..]].concat();
    for input in [valid.to_vec(), two] {
        let expected = wanted(reference_utf8(&input), want);
        for got in count_with_every_kernel(Charset::Utf8, &input, &[], want) {
            assert_eq!(wanted(got, want), expected);
        }
    }
}

#[test]
fn characters_after_batches_of_ascii_count_what_follows_wherever_it_stands() {
    // After a batch of ASCII, `-m` looks at the next one whole first: a character or a bad
    // sequence after ASCII batches, at a batch's edges or cut by one, is counted as GNU does.
    let ascii = "plain ASCII text, line after line\n".repeat(800).into_bytes();
    let inserts: [&[u8]; 7] =
        [b"\xc3\xa9", "日".as_bytes(), "😀".as_bytes(), b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"\x80"];
    let want = Want { chars: true, lines: true, bytes: true, ..Want::default() };
    let mut positions = vec![0, 1, 2, 3, 62, 63, 64, 65, ascii.len() - 1, ascii.len()];
    for batch_end in [8256, 12352, 20544] {
        positions.extend(batch_end - 67..batch_end + 5);
    }
    for insert in inserts {
        for &at in &positions {
            // And after more ASCII, an error, and ASCII batches again.
            let input = [&ascii[..at], insert, &ascii[at..], b"\xe4\xb8", &ascii[..20000]].concat();
            let expected = wanted(reference_utf8(&input), want);
            for cuts in [vec![], vec![at]] {
                for got in count_with_every_kernel(Charset::Utf8, &input, &cuts, want) {
                    assert_eq!(wanted(got, want), expected, "{insert:x?} at {at}, cuts {cuts:?}");
                }
            }
        }
    }
}

#[test]
fn small_inputs_ask_per_character_and_large_chunks_make_the_lead_tables() {
    // -L of a few KB of Chinese asks the C library character by character (as GNU asks), making
    // no lead table (4,096 characters) nor page (256); a 64 KiB chunk makes the tables at once.
    let small = "漢字を数える。中文，한국어\n".repeat(60).into_bytes();
    let large = small.repeat(1 + (64 << 10) / small.len());
    let want = Want { max_line_length: true, ..Want::default() };
    for kernel in crate::testing::kernels("wc::count (the C library's tables by input size)") {
        let classes = ByteClasses::new(Charset::Utf8, false);
        let mut counter = new_counter(want, &classes, Charset::Utf8);
        counter.feed_with(kernel, Changing::of(&small));
        assert_eq!(wanted(counter.finish(), want), wanted(reference_utf8(&small), want));
        let made = |cells: &[std::cell::OnceCell<Box<[u8; 64]>>]| cells.iter().filter(|c| c.get().is_some()).count();
        assert_eq!(made(&classes.wide.lead_rows), 0, "{kernel:?}");
        assert_eq!(classes.wide.pages.iter().filter(|c| c.get().is_some()).count(), 0, "{kernel:?}");
        let mut counter = new_counter(want, &classes, Charset::Utf8);
        counter.feed_with(kernel, Changing::of(&large));
        assert_eq!(wanted(counter.finish(), want), wanted(reference_utf8(&large), want));
        let lookups = platform::simd::with_masks(kernel, TableLookups);
        assert_eq!(made(&classes.wide.lead_rows) > 0, lookups, "{kernel:?}");
    }
}
