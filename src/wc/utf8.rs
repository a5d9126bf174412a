//! UTF-8 for `wc`: the multibyte white space as byte patterns, and one-character decoding.

use crate::platform::Changing;
use crate::platform::simd::BytePatterns;

/// Where a word can end in UTF-8 above U+007F, as byte patterns the SIMD layer finds: what the C library's `iswspace`
/// accepts (`is_space`, asked of [`SPACE_CANDIDATES`]), and GNU's no-break spaces. Each has a two- or three-byte
/// form, so nothing is decoded: an invalid byte never matches (a word byte, as in GNU). None if too many.
pub(super) fn utf8_spaces(is_space: impl Fn(u32) -> bool) -> Option<BytePatterns> {
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
    BytePatterns::new(pairs)
}

/// Code points that are white space in some version of Unicode, at most U+0085, U+00A0, U+1680,
/// U+180E, U+2000..=U+200B, U+2028, U+2029, U+202F, U+205F, U+2060, U+3000 and U+FEFF.
const SPACE_CANDIDATES: [std::ops::RangeInclusive<u32>; 6] =
    [0x80..=0xff, 0x1680..=0x1680, 0x180e..=0x180e, 0x2000..=0x206f, 0x3000..=0x3000, 0xfeff..=0xfeff];

/// One step of UTF-8 decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Utf8 {
    Char(u32, usize),
    Invalid,
    Incomplete,
}

/// Decodes `bytes`' first character by GNU 9.12's `mbrtoc32` rules (no overlong forms, no surrogates, nothing past
/// U+10FFFF). An invalid byte is reported alone (the caller skips one byte, as GNU does); `Incomplete` where a valid
/// character may be cut. From a copy of the first four bytes, so a lead's length is checked on unchanging bytes.
#[inline(always)]
pub(super) fn utf8_char(bytes: Changing<'_>) -> Utf8 {
    let (head, n) = bytes.head::<4>();
    decode(&head[..n])
}

/// [`utf8_char`] of bytes that do not change.
#[inline(always)]
fn decode(bytes: &[u8]) -> Utf8 {
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
fn utf8_char_slow(bytes: &[u8]) -> Utf8 {
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
