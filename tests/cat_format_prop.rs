//! Property tests of `cat`'s formatting state machine (`cat::format::Formatter`) against a
//! naive byte-by-byte model of GNU cat 9.12's formatting: random bytes, split into several
//! "files" and each file into random reads, for every combination of -b -n -s -v -E -T. The
//! model itself is checked against GNU's own `cat` on sample inputs.
//!
//! cargo fuzz needs a nightly toolchain, which CI does not have: proptest runs a bounded number
//! of cases instead (PROPTEST_CASES overrides the default of 3000 per property).

use crate::util::*;
use proptest::prelude::*;
use rapidutils::cat::format::{Formatter, Options, OutBuf};
use rapidutils::platform::Changing;

#[path = "../src/testing/cat_model.rs"]
mod cat_model;
use cat_model::model;

/// The Formatter fed file by file, read by read, as `cat` feeds it.
fn formatted(opts: Options, files: &[Vec<&[u8]>]) -> Vec<u8> {
    let mut formatter = Formatter::new(opts);
    let mut all = Vec::new();
    for reads in files {
        for read in reads {
            let mut out = OutBuf::room_for(0, read.len());
            formatter.feed(Changing::of(read), &mut out);
            all.extend_from_slice(out.as_slice());
        }
    }
    let mut out = OutBuf::room_for(0, 0);
    formatter.finish(&mut out);
    all.extend_from_slice(out.as_slice());
    all
}

fn options(bits: u8) -> Options {
    Options {
        number: bits & 1 != 0 || bits & 2 != 0,
        number_nonblank: bits & 2 != 0,
        squeeze_blank: bits & 4 != 0,
        show_ends: bits & 8 != 0,
        show_tabs: bits & 16 != 0,
        show_nonprinting: bits & 32 != 0,
    }
}

fn flags(bits: u8) -> Vec<&'static str> {
    ["-n", "-b", "-s", "-E", "-T", "-v"]
        .iter()
        .enumerate()
        .filter(|(i, _)| bits >> i & 1 == 1)
        .map(|(_, f)| *f)
        .collect()
}

/// Bytes weighted towards what the state machine cares about: LF runs, CR, TAB, control and
/// high bytes, and plain text.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        6 => Just(b'\n'),
        3 => Just(b'\r'),
        2 => Just(b'\t'),
        10 => b'a'..=b'z',
        2 => Just(b' '),
        3 => any::<u8>(),
        1 => Just(0u8),
        1 => Just(127u8),
    ]
}

/// Splits `data` at the sorted `cuts` (taken modulo its length + 1).
fn split<'a>(data: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c % (data.len() + 1)).collect();
    at.sort_unstable();
    let mut pieces = Vec::new();
    let mut prev = 0;
    for c in at {
        pieces.push(&data[prev..c]);
        prev = c;
    }
    pieces.push(&data[prev..]);
    pieces
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(3000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Any input, any option set, any split into files and reads: the model's bytes.
    #[test]
    fn formatter_matches_the_byte_model(
        data in proptest::collection::vec(byte(), 0..3000),
        bits in 0u8..64,
        file_cuts in proptest::collection::vec(any::<usize>(), 0..4),
        read_cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let opts = options(bits);
        let files: Vec<Vec<&[u8]>> = split(&data, &file_cuts).into_iter().map(|file| split(file, &read_cuts)).collect();
        let got = formatted(opts, &files);
        let want = model(&opts, &data);
        prop_assert!(got == want, "{:?}: {} bytes vs model {}", flags(bits), got.len(), want.len());
    }

    /// Long runs (lines longer than the 64-byte blocks, many empty lines in a row).
    #[test]
    fn formatter_matches_the_byte_model_on_long_runs(
        runs in proptest::collection::vec((byte(), 1usize..300), 0..40),
        bits in 0u8..64,
        read_cuts in proptest::collection::vec(any::<usize>(), 0..6),
    ) {
        let data: Vec<u8> = runs.iter().flat_map(|&(b, n)| std::iter::repeat_n(b, n)).collect();
        let opts = options(bits);
        let got = formatted(opts, &[split(&data, &read_cuts)]);
        prop_assert!(got == model(&opts, &data), "{:?}", flags(bits));
    }
}

/// The model is GNU's behaviour: sample inputs as three files, every option combination,
/// through GNU 9.12's `cat`.
#[test]
fn the_model_matches_gnu_cat() {
    let dir = TempDir::new("cat-model");
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
    for sample in 0..6 {
        let len = 200 + (next() % 3000) as usize;
        let data: Vec<u8> = (0..len)
            .map(|_| match next() % 12 {
                0..=2 => b'\n',
                3 => b'\r',
                4 => b'\t',
                5 => (next() % 256) as u8,
                _ => b'a' + (next() % 26) as u8,
            })
            .collect();
        // Cut where a CR meets its LF across files in some samples.
        let cut1 = data.iter().position(|&b| b == b'\r').map_or(len / 3, |p| p + 1);
        let cut2 = (cut1 + len / 2).min(len);
        let paths = [dir.file("a", &data[..cut1]), dir.file("b", &data[cut1..cut2]), dir.file("c", &data[cut2..])];
        for bits in 0..64u8 {
            let mut gnu = std::process::Command::new(oracle("cat"));
            gnu.args(flags(bits)).args(&paths).env("LC_ALL", "C");
            let out = run_piped(gnu, None);
            assert_eq!(out.status, "exit 0");
            let want = model(&options(bits), &data);
            if out.stdout != want {
                let at = out.stdout.iter().zip(&want).position(|(a, b)| a != b);
                let at = at.unwrap_or(want.len().min(out.stdout.len()));
                let show =
                    |v: &[u8]| String::from_utf8_lossy(&v[at.saturating_sub(30)..(at + 30).min(v.len())]).into_owned();
                panic!(
                    "sample {sample}, {:?}: model differs from GNU at {at}: GNU {:?}, model {:?}",
                    flags(bits),
                    show(&out.stdout),
                    show(&want)
                );
            }
        }
    }
}
