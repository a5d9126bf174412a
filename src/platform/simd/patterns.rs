//! Short byte patterns found in windows (a block and its next two bytes), as `wc` finds UTF-8's
//! multibyte white space: up to six, each a lead byte, a second byte, and none or a set of third
//! bytes. [`Masks::patterns_how`] picks a kernel's cheapest method: nibble look-ups where it has
//! a byte shuffle (with a two-byte form read from sign bits, as for glibc's spaces), else compares.

use super::{Block64, Mask, Masks};
use crate::platform::Changing;

/// Up to eight patterns of up to three bytes as nibble look-up tables (as simdjson's and simdutf's classification).
/// Pattern k matches at i when for every j bit k is set in both `lo[j][b[i + j] & 15]` and `hi[j][b[i + j] >> 4]`: a
/// pattern allows, per position, high nibbles times low nibbles; past its length, any byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NibblePatterns {
    pub lo: [[u8; 16]; 3],
    pub hi: [[u8; 16]; 3],
}

impl NibblePatterns {
    /// The patterns (bits) that match at the start of `bytes`: the tests' reference.
    #[cfg(test)]
    pub fn at(&self, bytes: &[u8]) -> u8 {
        (0..3)
            .fold(0xff, |acc, j| acc & self.lo[j][usize::from(bytes[j] & 15)] & self.hi[j][usize::from(bytes[j] >> 4)])
    }

    /// Lets pattern `bit` take the bytes `highs` x `lows` (nibble sets, as bits) at position `j`.
    pub fn allow(&mut self, bit: u8, j: usize, highs: u16, lows: u16) {
        for n in 0..16 {
            if highs >> n & 1 != 0 {
                self.hi[j][n] |= bit;
            }
            if lows >> n & 1 != 0 {
                self.lo[j][n] |= bit;
            }
        }
    }
}

/// The patterns, in both forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytePatterns {
    /// The distinct lead, second and lone third bytes the patterns test. Unused entries (and
    /// patterns) repeat the first: the loops test every entry, so they compile straight-line.
    leads: [u8; LEADS],
    seconds: [u8; SECONDS],
    thirds: [u8; THIRDS],
    /// Each pattern: its entry of `leads`, of `seconds`, and what completes it.
    patterns: [(usize, usize, Third); PATTERNS],
    /// The nibble patterns, and which bits are two- and three-byte forms; zero where over eight.
    nibbles: (NibblePatterns, u8, u8),
    by_tables: bool,
}

/// What completes a pattern after its lead and second byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Third {
    /// Nothing: a two-byte form.
    None,
    /// The one third byte at this entry of `thirds` (U+3000, U+1680).
    Entry(usize),
    /// One of these third bytes (bit k: 0x80 + k), checked a candidate at a time (U+2000..U+203F share two bytes).
    Set(u64),
}

/// The entries: enough for glibc's spaces (C2 A0, E1 9A, E2 80, E2 81, E3 80) and musl's (C2 85
/// for U+0085 where glibc has E1 9A 80). Patterns that need more are refused.
const PATTERNS: usize = 6;
const LEADS: usize = 4;
const SECONDS: usize = 4;
const THIRDS: usize = 2;

/// [`Masks::pattern_bytes`]'s methods: look-ups with two-byte forms in sign bits, or with selection masks; compares.
pub const BY_TOP: u8 = 0;
pub const BY_SELECTION: u8 = 1;
pub const BY_COMPARES: u8 = 2;

impl BytePatterns {
    /// The patterns from their (lead, second byte, third bytes: bit k for 0x80 + k, none for a
    /// two-byte form); None when there are none or more than the entries hold.
    pub fn new(pairs: Vec<(u8, u8, u64)>) -> Option<BytePatterns> {
        let distinct = |values: Vec<u8>| {
            let mut v = values;
            v.sort_unstable();
            v.dedup();
            v
        };
        let leads = distinct(pairs.iter().map(|p| p.0).collect());
        let seconds = distinct(pairs.iter().map(|p| p.1).collect());
        let thirds = distinct(
            pairs.iter().filter(|p| p.2.count_ones() == 1).map(|p| 0x80 + p.2.trailing_zeros() as u8).collect(),
        );
        if pairs.is_empty()
            || pairs.len() > PATTERNS
            || leads.len() > LEADS
            || seconds.len() > SECONDS
            || thirds.len() > THIRDS
        {
            return None;
        }
        let index_of = |values: &[u8], v: u8| values.iter().position(|&x| x == v).unwrap_or(0);
        let pattern = |&(lead, second, set): &(u8, u8, u64)| {
            let third = match set.count_ones() {
                0 => Third::None,
                1 => Third::Entry(index_of(&thirds, 0x80 + set.trailing_zeros() as u8)),
                _ => Third::Set(set),
            };
            (index_of(&leads, lead), index_of(&seconds, second), third)
        };
        let fill = |values: &[u8], k: usize| *values.get(k).unwrap_or(values.first().unwrap_or(&0x80));
        let nibbles = Self::nibbles(&pairs);
        Some(BytePatterns {
            by_tables: nibbles.is_some(),
            nibbles: nibbles.unwrap_or_default(),
            leads: std::array::from_fn(|k| fill(&leads, k)),
            seconds: std::array::from_fn(|k| fill(&seconds, k)),
            thirds: std::array::from_fn(|k| fill(&thirds, k)),
            patterns: std::array::from_fn(|k| pattern(pairs.get(k).unwrap_or(&pairs[0]))),
        })
    }

    /// The patterns as nibble patterns: third bytes grouped by high nibble into sets of equal low nibbles, one
    /// pattern each (glibc's spaces: seven). Three-byte patterns take the low bits, two-byte ones the high bits:
    /// glibc's one two-byte space (U+00A0) is bit 7, which sign bits give without a test.
    fn nibbles(pairs: &[(u8, u8, u64)]) -> Option<(NibblePatterns, u8, u8)> {
        let one = |b: u8| (1u16 << (b >> 4), 1u16 << (b & 15));
        // (lead, second, the third bytes' nibble sets or None for a two-byte form)
        type Form = (u8, u8, Option<(u16, u16)>);
        let mut forms: Vec<Form> = Vec::new();
        for &(lead, second, set) in pairs {
            if set == 0 {
                forms.push((lead, second, None));
                continue;
            }
            // The third bytes by high nibble (8..=B): their low nibbles.
            let lows: [u16; 4] = std::array::from_fn(|h| ((set >> (16 * h)) & 0xffff) as u16);
            let mut groups: Vec<(u16, u16)> = Vec::new();
            for (h, &low) in lows.iter().enumerate().filter(|(_, l)| **l != 0) {
                match groups.iter_mut().find(|g| g.1 == low) {
                    Some(g) => g.0 |= 1 << (8 + h),
                    None => groups.push((1 << (8 + h), low)),
                }
            }
            forms.extend(groups.into_iter().map(|g| (lead, second, Some(g))));
        }
        if forms.len() > 8 {
            return None;
        }
        let mut patterns = NibblePatterns::default();
        let (mut two, mut three) = (0u8, 0u8);
        let (mut low_bit, mut high_bit) = (0u32, 7u32);
        for (lead, second, third) in forms {
            let bit = match third {
                Some(_) => 1u8 << low_bit,
                None => 1u8 << high_bit,
            };
            let (h, l) = one(lead);
            patterns.allow(bit, 0, h, l);
            let (h, l) = one(second);
            patterns.allow(bit, 1, h, l);
            match third {
                None => {
                    patterns.allow(bit, 2, 0xffff, 0xffff);
                    two |= bit;
                    high_bit = high_bit.wrapping_sub(1);
                }
                Some((highs, lows)) => {
                    patterns.allow(bit, 2, highs, lows);
                    three |= bit;
                    low_bit += 1;
                }
            }
        }
        Some((patterns, two, three))
    }

    /// [`Masks::pattern_bytes`] by compares.
    #[inline(always)]
    fn compared<B: Block64>(&self, m: Masks<B>, block: &[u8; 64], after: &[u8; 2]) -> (u64, u64) {
        let leads = self.leads.map(|b| m.eq(Changing::of(block), b));
        if leads.iter().fold(0, |a, &l| a | l) == 0 {
            return (0, 0);
        }
        let seconds = self.seconds.map(|b| (m.eq(Changing::of(block), b) >> 1) | (u64::from(after[0] == b) << 63));
        let thirds = self.thirds.map(|b| {
            (m.eq(Changing::of(block), b) >> 2) | (u64::from(after[0] == b) << 62) | (u64::from(after[1] == b) << 63)
        });
        let (mut two, mut three, mut check) = (0u64, 0u64, 0u64);
        for (lead, second, third) in self.patterns {
            let start = leads[lead] & seconds[second];
            match third {
                Third::None => two |= start,
                Third::Entry(t) => three |= start & thirds[t],
                Third::Set(_) => check |= start,
            }
        }
        if check != 0 {
            three |= self.confirm(block, after, check);
        }
        let spread = u128::from(two) * 0b11 + u128::from(three) * 0b111;
        (spread as u64, (spread >> 64) as u64)
    }

    /// The candidates (a `Set` pattern's lead and second byte) that a third byte completes.
    #[inline(never)]
    fn confirm(&self, block: &[u8; 64], after: &[u8; 2], mut candidates: u64) -> u64 {
        let byte_at = |q: usize| if q < 64 { block[q] } else { after[q - 64] };
        let mut three = 0;
        while candidates != 0 {
            let p = candidates.trailing_zeros() as usize;
            candidates &= candidates - 1;
            let (lead, second, third) = (block[p], byte_at(p + 1), byte_at(p + 2));
            let set = self.patterns.iter().find_map(|&(l, s, t)| match t {
                Third::Set(set) if self.leads[l] == lead && self.seconds[s] == second => Some(set),
                _ => None,
            });
            if (0x80..0xc0).contains(&third) && set.is_some_and(|set| set >> (third - 0x80) & 1 != 0) {
                three |= 1 << p;
            }
        }
        three
    }
}

/// The bytes of the patterns that begin where `starts` says (`[any, two-byte]`), the bits past 64 in the second word.
#[inline(always)]
fn spread(starts: [u64; 2]) -> (u64, u64) {
    let [any, two] = starts;
    let three = any & !two;
    let spread = u128::from(two) * 0b11 + u128::from(three) * 0b111;
    (spread as u64, (spread >> 64) as u64)
}

impl<B: Block64> Masks<B> {
    /// How this kernel finds `patterns` cheapest (the `HOW` of [`Self::pattern_bytes`]). A table
    /// look-up is worth [`Self::may_begin`] first, which costs less; compares test leads first.
    pub fn patterns_how(self, patterns: &BytePatterns) -> u8 {
        match patterns.nibbles.1 {
            _ if !B::KERNEL.table_lookups() || !patterns.by_tables => BY_COMPARES,
            0x80 => BY_TOP,
            _ => BY_SELECTION,
        }
    }

    /// The bytes of patterns beginning in `window[..64]`: bit i for `window[i]`, bits past 64 in the second. `HOW` is
    /// [`Self::patterns_how`]'s: all give the same bits, but table methods need nibble patterns in `patterns`.
    #[inline(always)]
    pub fn pattern_bytes<const HOW: u8>(self, window: Changing<'_, [u8; 66]>, patterns: &BytePatterns) -> (u64, u64) {
        let window = window.read_each_once();
        let (nibbles, two, three) = &patterns.nibbles;
        match HOW {
            BY_TOP => spread(self.pattern_starts_top(Changing::of(window), nibbles)),
            BY_SELECTION => {
                let [two, three, _] = self.pattern_starts(Changing::of(window), nibbles, [*two, *three, 0]);
                spread([two | three, two])
            }
            _ => {
                let (block, after) = window.split_first_chunk::<64>().unwrap();
                patterns.compared(self, block, after.try_into().unwrap())
            }
        }
    }

    /// Whether a pattern may begin in `block` (table methods only): false when none does.
    #[inline(always)]
    pub fn may_begin(self, block: Changing<'_, [u8; 64]>, patterns: &BytePatterns) -> bool {
        let block = block.read_each_once();
        self.may_start(Changing::of(block), &patterns.nibbles.0)
    }

    /// Where [`NibblePatterns`] begin: bit i of result `r`: a pattern of `select[r]` matches at `window[i..]`.
    #[inline(always)]
    pub fn pattern_starts(
        self,
        window: Changing<'_, [u8; 66]>,
        patterns: &NibblePatterns,
        select: [u8; 3],
    ) -> [u64; 3] {
        let window = window.read_each_once();
        // SAFETY: see `Masks::eq`.
        unsafe {
            let hits = pattern_hits::<B>(window, patterns);
            // (No closure: it would not inherit the caller's target features.)
            [hits.test(select[0]), hits.test(select[1]), hits.test(select[2])]
        }
    }

    /// Where any pattern begins, and where pattern bit 7 does: [`Self::pattern_starts`] of
    /// 0xff and 0x80, which need no selection mask (bytes not zero, and sign bits).
    #[inline(always)]
    pub fn pattern_starts_top(self, window: Changing<'_, [u8; 66]>, patterns: &NibblePatterns) -> [u64; 2] {
        let window = window.read_each_once();
        // SAFETY: see `Masks::eq`.
        unsafe {
            let hits = pattern_hits::<B>(window, patterns);
            [hits.test(0xff), hits.signs().bits()]
        }
    }

    /// Whether a byte of `block` may begin a pattern: [`Self::pattern_starts`]'s first position.
    #[inline(always)]
    pub fn may_start(self, block: Changing<'_, [u8; 64]>, patterns: &NibblePatterns) -> bool {
        let block = block.read_each_once();
        // SAFETY: see `Masks::eq`.
        unsafe {
            let v = B::load(block, 0);
            v.low_nibbles().lookup16(&patterns.lo[0]).and(v.high_nibbles().lookup16(&patterns.hi[0])).any()
        }
    }
}

/// The patterns that begin at each byte: the three positions' nibble look-ups and-ed together.
///
/// # Safety
/// The CPU has `B`'s instruction set (see [`Block64`]).
#[inline(always)]
unsafe fn pattern_hits<B: Block64>(window: &[u8; 66], patterns: &NibblePatterns) -> B {
    // SAFETY: the caller's guarantee; the loads are of bytes 0..=65 of the window (offsets 0..=2, 64 bytes each).
    unsafe {
        let mut hits = B::splat(0xff);
        for j in 0..3 {
            let v = B::load(window, j);
            let lo = v.low_nibbles().lookup16(&patterns.lo[j]);
            let hi = v.high_nibbles().lookup16(&patterns.hi[j]);
            hits = hits.and(lo).and(hi);
        }
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::simd::{WithMasks, with_masks};

    /// The third-byte set of a three-byte form (bit k for 0x80 + k).
    fn thirds(bytes: &[u8]) -> u64 {
        bytes.iter().map(|&b| 1u64 << (b - 0x80)).sum()
    }

    /// Every method of [`Masks::pattern_bytes`], on every kernel, against a byte-by-byte match,
    /// for glibc's white space (one two-byte space, in bit 7) and one with two two-byte spaces.
    #[test]
    fn each_method_of_finding_patterns_finds_the_same() {
        let glibc = vec![
            (0xc2, 0xa0, 0),
            (0xe1, 0x9a, thirds(&[0x80])),
            (0xe2, 0x80, thirds(&[0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x88, 0x89, 0x8a, 0xa8, 0xa9, 0xaf])),
            (0xe2, 0x81, thirds(&[0x9f, 0xa0])),
            (0xe3, 0x80, thirds(&[0x80])),
        ];
        let two_twos = vec![
            (0xc2, 0x85, 0),
            (0xc2, 0xa0, 0),
            (0xe2, 0x80, thirds(&[0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x88, 0x89, 0x8a, 0xa8, 0xa9])),
            (0xe3, 0x80, thirds(&[0x80])),
        ];
        let samples: [&[u8]; 16] = [
            b"a",
            b" ",
            "\u{a0}".as_bytes(),
            "\u{85}".as_bytes(),
            "\u{1680}".as_bytes(),
            "\u{2003}".as_bytes(),
            "\u{2029}".as_bytes(),
            "\u{205f}".as_bytes(),
            "\u{3000}".as_bytes(),
            "\u{ab}".as_bytes(),
            "\u{2014}".as_bytes(),
            "\u{3001}".as_bytes(),
            "\u{2007}".as_bytes(),
            b"\xe2\x80",
            b"\xc2",
            "ж".as_bytes(),
        ];
        struct Hows<'a>(&'a BytePatterns, &'a [u8; 66]);
        impl WithMasks for Hows<'_> {
            type Output = [(u64, u64); 3];
            fn run<B: Block64>(self, m: Masks<B>) -> Self::Output {
                let (patterns, window) = (self.0, self.1);
                let window = Changing::of(window);
                [
                    m.pattern_bytes::<BY_COMPARES>(window, patterns),
                    m.pattern_bytes::<BY_SELECTION>(window, patterns),
                    m.pattern_bytes::<BY_TOP>(window, patterns),
                ]
            }
        }
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        for (pairs, top) in [(glibc, true), (two_twos, false)] {
            let forms: Vec<(u8, u8, u64)> = pairs.clone();
            let patterns = BytePatterns::new(pairs).unwrap();
            assert!(patterns.by_tables);
            assert_eq!(patterns.nibbles.1 == 0x80, top, "two-byte patterns' bits");
            for trial in 0..if cfg!(miri) { 6 } else { 3000 } {
                let mut bytes = Vec::new();
                while bytes.len() < 66 + trial % 3 {
                    bytes.extend_from_slice(samples[next() as usize % samples.len()]);
                }
                let window: [u8; 66] = bytes[trial % 3..trial % 3 + 66].try_into().unwrap();
                // Bit i: window[i] is a byte of a pattern beginning in window[..64]; past it,
                // the last bytes of one beginning there.
                let mut want = 0u128;
                for i in 0..64 {
                    for &(lead, second, set) in &forms {
                        let third = window.get(i + 2).copied().unwrap_or(0);
                        if window[i] == lead && window[i + 1] == second {
                            if set == 0 {
                                want |= 0b11 << i;
                            } else if (0x80..0xc0).contains(&third) && set >> (third - 0x80) & 1 != 0 {
                                want |= 0b111 << i;
                            }
                        }
                    }
                }
                let want = (want as u64, (want >> 64) as u64);
                for kernel in crate::testing::kernels("simd::patterns (every way of finding patterns)") {
                    let [compared, selected, by_top] = with_masks(kernel, Hows(&patterns, &window));
                    assert_eq!(compared, want, "{kernel:?} compares, trial {trial}");
                    assert_eq!(selected, want, "{kernel:?} selections, trial {trial}");
                    if top {
                        assert_eq!(by_top, want, "{kernel:?} sign bits, trial {trial}");
                    }
                }
            }
        }
    }
}
