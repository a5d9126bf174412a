//! UTF-8 for `wc`: the multibyte white space as byte patterns, and one-character decoding.

use crate::platform::simd::{Block64, Masks, NibblePatterns};

/// Where a word can end in UTF-8 above U+007F: the characters the C library's `iswspace`
/// accepts, and GNU's no-break spaces, as byte patterns. Every such character has a two- or
/// three-byte form (Unicode's white space is U+0085, U+00A0, U+1680, U+180E, U+2000..=U+200B,
/// U+2028, U+2029, U+202F, U+205F, U+2060, U+3000 and U+FEFF at most, whatever the version: the
/// candidates asked about; a test checks every code point against GNU), so a window's spaces
/// are found by comparing bytes: a lead and a second byte from `pairs`, and a third byte from
/// the pair's set. No decoding: an invalid byte never matches (it is a word byte, as in GNU).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Utf8Spaces {
    /// The distinct lead bytes, second bytes and lone third bytes the patterns test. Unused
    /// slots repeat slot 0 (and unused pattern slots repeat pattern 0): every slot is tested,
    /// so the loops have fixed counts and compile to straight-line code.
    pub(super) leads: [u8; SPACE_LEADS],
    pub(super) seconds: [u8; SPACE_SECONDS],
    pub(super) thirds: [u8; SPACE_THIRDS],
    /// Each pattern: its lead slot, second-byte slot, and what completes it.
    pub(super) patterns: [(usize, usize, Third); SPACE_PATTERNS],
    /// The same spaces as nibble look-up patterns (for instruction sets with table look-ups),
    /// and which pattern bits are two-byte and three-byte forms; None if they need more than
    /// eight patterns.
    pub(super) nibbles: Option<(NibblePatterns, u8, u8)>,
}

/// What completes a space pattern after its lead and second byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Third {
    /// Nothing: a two-byte character.
    None,
    /// The one third byte in this `thirds` slot (U+3000, U+1680).
    Slot(usize),
    /// One of these third bytes (bit k for 0x80 + k), checked one candidate at a time (the
    /// U+2000 block, where the common punctuation shares the first two bytes).
    Set(u64),
}

/// Code points that are white space in some version of Unicode (candidates for `Utf8Spaces`).
pub(super) const SPACE_CANDIDATES: [std::ops::RangeInclusive<u32>; 6] =
    [0x80..=0xff, 0x1680..=0x1680, 0x180e..=0x180e, 0x2000..=0x206f, 0x3000..=0x3000, 0xfeff..=0xfeff];

/// Slots (glibc: patterns C2 A0, E1 9A, E2 80, E2 81, E3 80; leads C2 E1 E2 E3; seconds A0 9A
/// 80 81; lone thirds 80. musl has C2 85 for U+0085 where glibc has E1 9A 80); a C library that
/// needs more leaves the byte-pattern path untaken.
pub(super) const SPACE_PATTERNS: usize = 6;
pub(super) const SPACE_LEADS: usize = 4;
pub(super) const SPACE_SECONDS: usize = 4;
pub(super) const SPACE_THIRDS: usize = 2;

impl Utf8Spaces {
    /// The spaces among [`SPACE_CANDIDATES`] that `is_space` says separate words (the C
    /// library's answers, see `ByteClasses::utf8_spaces`).
    pub(super) fn new(is_space: impl Fn(u32) -> bool) -> Option<Utf8Spaces> {
        let mut pairs: Vec<(u8, u8, u64)> = Vec::new();
        for cp in SPACE_CANDIDATES.into_iter().flatten() {
            if !is_space(cp) {
                continue;
            }
            let ch = char::from_u32(cp)?;
            let mut utf8 = [0u8; 4];
            let bytes = ch.encode_utf8(&mut utf8).as_bytes();
            let third = bytes.get(2).map_or(0, |&t| 1u64 << (t - 0x80));
            match pairs.iter_mut().find(|p| p.0 == bytes[0] && p.1 == bytes[1]) {
                Some(pair) => pair.2 |= third,
                None => pairs.push((bytes[0], bytes[1], third)),
            }
        }
        Self::from_pairs(pairs)
    }

    /// The spaces from their (lead, second byte, third bytes: bit k for 0x80 + k, none for a
    /// two-byte form).
    pub(super) fn from_pairs(pairs: Vec<(u8, u8, u64)>) -> Option<Utf8Spaces> {
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
            || pairs.len() > SPACE_PATTERNS
            || leads.len() > SPACE_LEADS
            || seconds.len() > SPACE_SECONDS
            || thirds.len() > SPACE_THIRDS
        {
            return None;
        }
        let slot = |values: &[u8], v: u8| values.iter().position(|&x| x == v).unwrap_or(0);
        let pattern = |&(lead, second, set): &(u8, u8, u64)| {
            let third = match set.count_ones() {
                0 => Third::None,
                1 => Third::Slot(slot(&thirds, 0x80 + set.trailing_zeros() as u8)),
                _ => Third::Set(set),
            };
            (slot(&leads, lead), slot(&seconds, second), third)
        };
        let fill = |values: &[u8], k: usize| *values.get(k).unwrap_or(values.first().unwrap_or(&0x80));
        let nibbles = Self::nibbles(&pairs);
        Some(Utf8Spaces {
            nibbles,
            leads: std::array::from_fn(|k| fill(&leads, k)),
            seconds: std::array::from_fn(|k| fill(&seconds, k)),
            thirds: std::array::from_fn(|k| fill(&thirds, k)),
            patterns: std::array::from_fn(|k| pattern(pairs.get(k).unwrap_or(&pairs[0]))),
        })
    }

    /// The spaces as nibble patterns: a lead and a second byte (each one byte: one nibble of
    /// each kind), and for three-byte forms the third bytes grouped by high nibble into sets of
    /// equal low nibbles, one pattern each (glibc: seven patterns). Three-byte patterns take
    /// the low bits, two-byte ones the high bits: glibc's one two-byte space (U+00A0) is bit 7,
    /// which a vector's sign bits give without a test.
    pub(super) fn nibbles(pairs: &[(u8, u8, u64)]) -> Option<(NibblePatterns, u8, u8)> {
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

    /// [`Self::mask`] by table look-ups of `nibbles` (this `self.nibbles`), selecting the
    /// two- and three-byte patterns by masks.
    #[inline(always)]
    pub(super) fn mask_by_tables<B: Block64>(
        m: Masks<B>,
        nibbles: &(NibblePatterns, u8, u8),
        window: &[u8; 66],
    ) -> (u64, u64) {
        let (patterns, two, three) = nibbles;
        let [two, three, _] = m.pattern_starts(window, patterns, [*two, *three, 0]);
        Self::spread([two | three, two])
    }

    /// The bytes of the spaces that begin where `starts` says (`[any, two-byte]`), as
    /// [`Self::mask`] gives them. With glibc's layout (the one two-byte pattern in bit 7),
    /// `starts` is [`Masks::pattern_starts_top`].
    #[inline(always)]
    pub(super) fn spread(starts: [u64; 2]) -> (u64, u64) {
        let [any, two] = starts;
        let three = any & !two;
        let spread = u128::from(two) * 0b11 + u128::from(three) * 0b111;
        (spread as u64, (spread >> 64) as u64)
    }

    /// The bytes of the multibyte spaces that begin in `block` (which `after`, its next two
    /// bytes, follows): bit i for `block[i]`, and the bits past the block's end (the last bytes
    /// of a space that begins in its last two bytes) in the second mask, bit 0 for `after[0]`.
    #[inline(always)]
    pub(super) fn mask<B: Block64>(&self, m: Masks<B>, block: &[u8; 64], after: &[u8; 2]) -> (u64, u64) {
        let leads = self.leads.map(|b| m.eq(block, b));
        if leads.iter().fold(0, |a, &l| a | l) == 0 {
            return (0, 0);
        }
        let seconds = self.seconds.map(|b| (m.eq(block, b) >> 1) | (u64::from(after[0] == b) << 63));
        let thirds = self
            .thirds
            .map(|b| (m.eq(block, b) >> 2) | (u64::from(after[0] == b) << 62) | (u64::from(after[1] == b) << 63));
        let (mut two, mut three, mut check) = (0u64, 0u64, 0u64);
        for (lead, second, third) in self.patterns {
            let start = leads[lead] & seconds[second];
            match third {
                Third::None => two |= start,
                Third::Slot(t) => three |= start & thirds[t],
                Third::Set(_) => check |= start,
            }
        }
        if check != 0 {
            three |= self.confirm(block, after, check);
        }
        let spread = u128::from(two) * 0b11 + u128::from(three) * 0b111;
        (spread as u64, (spread >> 64) as u64)
    }

    /// The candidates (lead and second byte of a `Set` pattern) whose third byte completes a
    /// space.
    #[inline(never)]
    pub(super) fn confirm(&self, block: &[u8; 64], after: &[u8; 2], mut candidates: u64) -> u64 {
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
            if let Some(set) = set
                && (0x80..0xc0).contains(&third)
                && set >> (third - 0x80) & 1 != 0
            {
                three |= 1 << p;
            }
        }
        three
    }
}

/// One step of UTF-8 decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Utf8 {
    Char(u32, usize),
    Invalid,
    Incomplete,
}

/// Decodes the character at the start of `bytes` by the Unicode rules (no overlong forms, no
/// surrogates, nothing past U+10FFFF): the rules of GNU 9.12's `mbrtoc32`. An invalid byte is
/// reported alone (the caller skips one byte, as GNU does); `Incomplete` when `bytes` ends
/// inside a character that could still be valid.
#[inline(always)]
pub(super) fn utf8_char(bytes: &[u8]) -> Utf8 {
    let lead = bytes[0];
    // The common forms first: two bytes, and three bytes with no surrogate or overlong form.
    if let [0xc2..=0xdf, b1, ..] = *bytes {
        if b1 & 0xc0 != 0x80 {
            return Utf8::Invalid;
        }
        return Utf8::Char((u32::from(lead & 0x1f) << 6) | u32::from(b1 & 0x3f), 2);
    }
    if let [0xe1..=0xec | 0xee..=0xef, b1, b2, ..] = *bytes {
        if (b1 & 0xc0 != 0x80) | (b2 & 0xc0 != 0x80) {
            return utf8_char_slow(bytes);
        }
        return Utf8::Char((u32::from(lead & 0x0f) << 12) | (u32::from(b1 & 0x3f) << 6) | u32::from(b2 & 0x3f), 3);
    }
    utf8_char_slow(bytes)
}

#[cold]
pub(super) fn utf8_char_slow(bytes: &[u8]) -> Utf8 {
    let lead = bytes[0];
    let (len, second) = match lead {
        0x00..=0x7f => return Utf8::Char(u32::from(lead), 1),
        0xc2..=0xdf => (2, 0x80..=0xbf),
        0xe0 => (3, 0xa0..=0xbf),
        0xe1..=0xec | 0xee..=0xef => (3, 0x80..=0xbf),
        0xed => (3, 0x80..=0x9f),
        0xf0 => (4, 0x90..=0xbf),
        0xf1..=0xf3 => (4, 0x80..=0xbf),
        0xf4 => (4, 0x80..=0x8f),
        _ => return Utf8::Invalid,
    };
    let mut wc = u32::from(lead) & (0x7f >> len);
    for (k, &b) in bytes.iter().enumerate().take(len).skip(1) {
        let ok = if k == 1 { second.contains(&b) } else { (0x80..=0xbf).contains(&b) };
        if !ok {
            return Utf8::Invalid;
        }
        wc = (wc << 6) | u32::from(b & 0x3f);
    }
    if bytes.len() < len { Utf8::Incomplete } else { Utf8::Char(wc, len) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::simd::{Block64, Masks, WithMasks, with_masks};

    /// The third-byte set of a three-byte form (bit k for 0x80 + k).
    fn thirds(bytes: &[u8]) -> u64 {
        bytes.iter().map(|&b| 1u64 << (b - 0x80)).sum()
    }

    /// Every way a window's multibyte spaces are found (compares; table look-ups with
    /// selection masks; with glibc's layout, with the sign bits), for every kernel, against
    /// a byte-by-byte match, in space sets of two C libraries' kinds: glibc's (U+00A0 the one
    /// two-byte space, in pattern bit 7) and one with two two-byte spaces (musl's U+0085 and
    /// U+00A0), on windows of spaces, near misses and invalid bytes at every alignment.
    #[test]
    fn every_way_of_finding_spaces_finds_the_same() {
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
        let pieces: [&[u8]; 16] = [
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
        struct Ways<'a>(&'a Utf8Spaces, &'a [u8; 66]);
        impl WithMasks for Ways<'_> {
            type Output = ((u64, u64), (u64, u64), Option<(u64, u64)>, bool);
            fn run<B: Block64>(self, m: Masks<B>) -> Self::Output {
                let (spaces, window) = (self.0, self.1);
                let (block, after) = window.split_first_chunk::<64>().unwrap();
                let nibbles = spaces.nibbles.as_ref().unwrap();
                let top = (nibbles.1 == 0x80).then(|| Utf8Spaces::spread(m.pattern_starts_top(window, &nibbles.0)));
                (
                    spaces.mask(m, block, after.try_into().unwrap()),
                    Utf8Spaces::mask_by_tables(m, nibbles, window),
                    top,
                    B::TABLE_LOOKUPS,
                )
            }
        }
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        for (pairs, top) in [(glibc, true), (two_twos, false)] {
            let forms: Vec<(u8, u8, u64)> = pairs.clone();
            let spaces = Utf8Spaces::from_pairs(pairs).unwrap();
            assert_eq!(spaces.nibbles.as_ref().unwrap().1 == 0x80, top, "two-byte patterns' bits");
            for round in 0..3000 {
                let mut bytes = Vec::new();
                while bytes.len() < 66 + round % 3 {
                    bytes.extend_from_slice(pieces[next() as usize % pieces.len()]);
                }
                let window: [u8; 66] = bytes[round % 3..round % 3 + 66].try_into().unwrap();
                // Bit i: window[i] is a byte of a space beginning in window[..64]; past it, the
                // last bytes of one beginning there.
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
                for kernel in crate::testing::kernels("wc::utf8 (every way of finding spaces)") {
                    let (compared, selected, by_top, tables) = with_masks(kernel, Ways(&spaces, &window));
                    assert_eq!(compared, want, "{kernel:?} compares, round {round}");
                    assert_eq!(selected, want, "{kernel:?} selections (tables {tables}), round {round}");
                    if let Some(by_top) = by_top {
                        assert_eq!(by_top, want, "{kernel:?} sign bits, round {round}");
                    }
                }
            }
        }
    }
}
