//! The counting kernels of `wc`, fed chunk by chunk with their state carried across reads.
//!
//! * Lines only (with or without bytes): [`count_lines`], a SIMD byte count.
//! * Everything else: 64-byte windows from the block masks of the best instruction set
//!   ([`BlockMasks`], run through `platform::simd::with_best_masks` so the whole loop is
//!   compiled for it): ASCII windows by masks alone (`Counter::block`), -m alone on valid
//!   UTF-8 by masks alone (`Counter::valid_utf8_block`), -L alone by skipping what cannot
//!   pass the longest line (`Counter::width_run`), the rest visiting only the bytes that
//!   matter (`Counter::line_block`). GNU's loop (byte by byte in a single-byte locale,
//!   character by character in a multibyte one) takes window tails, characters cut by a chunk
//!   end, and locales whose ASCII classes are not the usual ones or whose encoding is not UTF-8
//!   (`mbrtowc`). Non-ASCII classes come from the C library (`iswspace`, `iswprint`, `wcwidth`),
//!   cached per 256-character page, so the answers are the C library's, as GNU's are.
//!
//! Words are counted where they end, as GNU counts them, so the window and byte paths agree.

use crate::platform::simd::{BlockMasks, NibblePatterns, WithMasks};
use crate::platform::{self, Charset, MbDecoder, MbStep};
use std::cell::OnceCell;

/// In `width_block`, this many characters of blocks of mixed widths or fewer are looked up one
/// by one (a vector look-up per block costs more for them).
const FEW_CHARACTERS: u32 = 3;

/// The bits of [`platform::simd::utf8_start_patterns`] of two- and three-byte forms.
const UTF8_TWO_BYTE: u8 = 0b0000_0011;
const UTF8_THREE_BYTE: u8 = 0b0001_1100;

/// -L's tight bound (see `width_run`) is used for chunks at least this large: below, checking
/// its premise with the C library would cost more than it saves.
const TIGHT_BOUND_MIN: usize = 64 << 10;

/// The longest character in any encoding (MB_LEN_MAX).
const MAX_CHAR_LEN: usize = 16;

/// What to count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Want {
    pub lines: bool,
    pub words: bool,
    pub chars: bool,
    pub bytes: bool,
    pub max_line_length: bool,
}

/// The counts of one input (or the totals).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub lines: u64,
    pub words: u64,
    pub chars: u64,
    pub bytes: u64,
    pub max_line_length: u64,
}

/// GNU 9.12 also separates words at these no-break spaces (not under POSIXLY_CORRECT).
fn is_nbspace(wc: u32) -> bool {
    matches!(wc, 0x00a0 | 0x2007 | 0x202f | 0x2060)
}

/// Classes of non-ASCII characters, from the C library (`iswspace` and GNU's no-break spaces,
/// `iswprint`, `wcwidth`), asked once per 256-character page and kept: one table look-up per
/// character instead of three library calls. Pages of the supplementary planes are kept too,
/// in a table made on first use.
pub struct WideClasses {
    posixly_correct: bool,
    pages: [OnceCell<Box<[u8; 256]>>; 256],
    supplementary: OnceCell<Box<[Lazy<[u8; 256]>]>>,
    /// For each lead byte of a three-byte UTF-8 form, the width of each 64-character block it
    /// begins (by second byte), see `lead_blocks`.
    lead_blocks: [OnceCell<Box<[u8; 64]>>; 16],
    /// The same for the first two bytes of four-byte forms (F0..=F4, then 0x80..=0xBF),
    /// indexed by the third byte; made on first use.
    region_blocks: OnceCell<Box<[Lazy<[u8; 64]>]>>,
}

/// A table made the first time it is needed.
type Lazy<T> = OnceCell<Box<T>>;

/// A [`WideClasses`] entry: the column width (0 when not printable) in the low bits...
const WIDTH_BITS: u8 = 0b11;
/// ...and whether the character separates words.
const SPACE_BIT: u8 = 0b100;
/// The last code point (U+10FFFF) and the number of 256-character pages up to it.
const PAGES: usize = 0x1100;

/// A `lead_blocks` entry: every character of the block is this wide (0, 1, or 3 for 2:
/// the bits `width >= 1` and `width == 2`, as `WIDTH_BITS` of an entry)...
const BLOCK_WIDTH_BITS: u8 = 0b011;
/// ...or the characters of the block differ in width.
const BLOCK_MIXED: u8 = 0b100;

impl WideClasses {
    fn new(posixly_correct: bool) -> WideClasses {
        WideClasses {
            posixly_correct,
            pages: [const { OnceCell::new() }; 256],
            supplementary: OnceCell::new(),
            lead_blocks: [const { OnceCell::new() }; 16],
            region_blocks: OnceCell::new(),
        }
    }

    /// The entry of one character, straight from the C library.
    fn classify(&self, wc: u32) -> u8 {
        let width = if platform::is_printable_wide(wc) { platform::char_width(wc).clamp(0, 3) as u8 } else { 0 };
        let space = platform::is_space_wide(wc) || (!self.posixly_correct && is_nbspace(wc));
        width | if space { SPACE_BIT } else { 0 }
    }

    /// The entries of the 256 characters from `page << 8` (`page` below `PAGES`).
    #[inline]
    fn page(&self, page: usize) -> &[u8; 256] {
        let cell = match self.pages.get(page) {
            Some(cell) => cell,
            None => &self.supplementary.get_or_init(|| (256..PAGES).map(|_| OnceCell::new()).collect())[page - 256],
        };
        cell.get_or_init(|| {
            let base = (page as u32) << 8;
            Box::new(std::array::from_fn(|i| self.classify(base + i as u32)))
        })
    }

    #[inline]
    fn get(&self, wc: u32) -> u8 {
        if (wc as usize) < PAGES << 8 { self.page((wc >> 8) as usize)[(wc & 0xff) as usize] } else { self.classify(wc) }
    }

    /// The entries of the 64 characters from `first` (a multiple of 64, at most U+10FFC0).
    #[inline]
    fn block64(&self, first: u32) -> &[u8; 64] {
        let page = self.page((first >> 8) as usize);
        page[(first & 0xc0) as usize..][..64].try_into().expect("64 entries")
    }

    /// The widths of the 64 blocks of 64 characters from `first` (a multiple of 4,096): each
    /// `BLOCK_WIDTH_BITS` of a common width, or `BLOCK_MIXED`.
    fn blocks_of(&self, first: u32) -> Box<[u8; 64]> {
        Box::new(std::array::from_fn(|k| {
            let block = self.block64(first | ((k as u32) << 6));
            let width = block[0] & WIDTH_BITS;
            if block.iter().all(|&e| e & WIDTH_BITS == width) {
                if width == 2 { 0b011 } else { width }
            } else {
                BLOCK_MIXED
            }
        }))
    }

    /// The widths of the 64 blocks of 64 characters that the three-byte lead `lead` begins,
    /// indexed by the second byte's low six bits.
    fn lead_blocks(&self, lead: u8) -> &[u8; 64] {
        self.lead_blocks[usize::from(lead & 0x0f)].get_or_init(|| self.blocks_of(u32::from(lead & 0x0f) << 12))
    }

    /// The widths of the 64 blocks of 64 characters that a four-byte form's first two bytes
    /// (`lead` F0..=F4, `second` a continuation byte) begin, indexed by the third byte's low six
    /// bits.
    fn region_blocks(&self, lead: u8, second: u8) -> &[u8; 64] {
        let index = usize::from(lead & 0x07) * 64 + usize::from(second & 0x3f);
        let cells = self.region_blocks.get_or_init(|| (0..5 * 64).map(|_| OnceCell::new()).collect());
        cells[index].get_or_init(|| self.blocks_of((u32::from(lead & 0x07) << 18) | (u32::from(second & 0x3f) << 12)))
    }
}

/// Character classes of single bytes (all bytes in a single-byte locale, ASCII in a multibyte
/// one), from the C library.
pub struct ByteClasses {
    space: [bool; 256],
    print: [bool; 256],
    /// `space` is exactly {TAB, LF, VT, FF, CR, SPACE} plus `space_high`: the block
    /// fast path's SIMD mask can stand for the table.
    standard_spaces: bool,
    /// The one byte above 0x7f that separates words in a single-byte locale (its no-break
    /// space: 0xA0 in C and Latin-1, 0x9A in KOI8-R), if any.
    space_high: Option<u8>,
    /// `print` is exactly 0x20..=0x7e among ASCII bytes: -L's block path can assume width 1.
    standard_print: bool,
    /// No byte above 0x7f is printable (single-byte locales such as C).
    high_unprintable: bool,
    wide: WideClasses,
    /// The multibyte word separators of a UTF-8 locale as byte patterns, made on first use.
    utf8_spaces: OnceCell<Option<Utf8Spaces>>,
    /// See `narrow_below_u1000`.
    narrow_below_u1000: OnceCell<bool>,
}

impl ByteClasses {
    pub fn new(charset: Charset, posixly_correct: bool) -> ByteClasses {
        let mut space = [false; 256];
        let mut print = [false; 256];
        let limit = if charset == Charset::Unibyte { 256 } else { 128 };
        for b in 0..limit {
            let (s, p) = platform::ctype(b as u8, charset != Charset::Unibyte);
            space[b] = s;
            print[b] = p;
        }
        // GNU 9.12: in a single-byte locale a byte that is a no-break space in the locale's
        // character set separates words too (`btoc32`: in C and POSIX each byte is itself).
        if charset == Charset::Unibyte && !posixly_correct {
            for b in 0x80..=0xff_u8 {
                if platform::byte_to_char(b).is_some_and(is_nbspace) {
                    space[usize::from(b)] = true;
                }
            }
        }
        let mut high_spaces = (0x80..=0xff_u8).filter(|&b| space[usize::from(b)]);
        let space_high = high_spaces.next();
        let standard_spaces = high_spaces.next().is_none()
            && (0..256).all(|b| space[b] == (matches!(b, 9..=13 | 32) || Some(b as u8) == space_high));
        let standard_print = (0..128).all(|b| print[b] == (0x20..0x7f).contains(&b));
        let high_unprintable = !print[0x80..].contains(&true);
        let wide = WideClasses::new(posixly_correct);
        ByteClasses {
            space,
            print,
            standard_spaces,
            space_high,
            standard_print,
            high_unprintable,
            wide,
            utf8_spaces: OnceCell::new(),
            narrow_below_u1000: OnceCell::new(),
        }
    }

    /// Whether no character below U+1000 is wider than one column in this C library (in
    /// Unicode none is: the wide ones begin at U+1100), which -L's tight bound relies on.
    /// Asked once, when the bound is first needed.
    fn narrow_below_u1000(&self) -> bool {
        *self.narrow_below_u1000.get_or_init(|| (0x80..0x1000).all(|wc| self.wide.get(wc) & WIDTH_BITS <= 1))
    }

    /// [`Utf8Spaces`] of this locale (None when they do not fit its shape).
    fn utf8_spaces(&self) -> Option<&Utf8Spaces> {
        self.utf8_spaces.get_or_init(|| Utf8Spaces::new(&self.wide)).as_ref()
    }
}

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
    leads: [u8; SPACE_LEADS],
    seconds: [u8; SPACE_SECONDS],
    thirds: [u8; SPACE_THIRDS],
    /// Each pattern: its lead slot, second-byte slot, and what completes it.
    patterns: [(usize, usize, Third); SPACE_PATTERNS],
    /// The same spaces as nibble look-up patterns (for instruction sets with table look-ups),
    /// and which pattern bits are two-byte and three-byte forms; None if they need more than
    /// eight patterns.
    nibbles: Option<(NibblePatterns, u8, u8)>,
}

/// What completes a space pattern after its lead and second byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Third {
    /// Nothing: a two-byte character.
    None,
    /// The one third byte in this `thirds` slot (U+3000, U+1680).
    Slot(usize),
    /// One of these third bytes (bit k for 0x80 + k), checked one candidate at a time (the
    /// U+2000 block, where the common punctuation shares the first two bytes).
    Set(u64),
}

/// Code points that are white space in some version of Unicode (candidates for `Utf8Spaces`).
const SPACE_CANDIDATES: [std::ops::RangeInclusive<u32>; 6] =
    [0x80..=0xff, 0x1680..=0x1680, 0x180e..=0x180e, 0x2000..=0x206f, 0x3000..=0x3000, 0xfeff..=0xfeff];

/// Slots (glibc: patterns C2 A0, E1 9A, E2 80, E2 81, E3 80; leads C2 E1 E2 E3; seconds A0 9A
/// 80 81; lone thirds 80. musl has C2 85 for U+0085 where glibc has E1 9A 80); a C library that
/// needs more leaves the byte-pattern path untaken.
const SPACE_PATTERNS: usize = 6;
const SPACE_LEADS: usize = 4;
const SPACE_SECONDS: usize = 4;
const SPACE_THIRDS: usize = 2;

impl Utf8Spaces {
    fn new(wide: &WideClasses) -> Option<Utf8Spaces> {
        let mut pairs: Vec<(u8, u8, u64)> = Vec::new();
        for cp in SPACE_CANDIDATES.into_iter().flatten() {
            if wide.classify(cp) & SPACE_BIT == 0 {
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
    /// equal low nibbles, one pattern each (glibc: seven patterns).
    fn nibbles(pairs: &[(u8, u8, u64)]) -> Option<(NibblePatterns, u8, u8)> {
        let one = |b: u8| (1u16 << (b >> 4), 1u16 << (b & 15));
        let mut patterns = NibblePatterns::default();
        let (mut two, mut three, mut next) = (0u8, 0u8, 0u32);
        for &(lead, second, set) in pairs {
            // The third bytes by high nibble (8..=B): their low nibbles.
            let lows: [u16; 4] = std::array::from_fn(|h| ((set >> (16 * h)) & 0xffff) as u16);
            let mut groups: Vec<(u16, u16)> = Vec::new();
            for (h, &low) in lows.iter().enumerate().filter(|(_, l)| **l != 0) {
                match groups.iter_mut().find(|g| g.1 == low) {
                    Some(g) => g.0 |= 1 << (8 + h),
                    None => groups.push((1 << (8 + h), low)),
                }
            }
            let thirds: Vec<Option<(u16, u16)>> =
                if set == 0 { vec![None] } else { groups.into_iter().map(Some).collect() };
            for third in thirds {
                let bit = 1u8.checked_shl(next)?;
                next += 1;
                let (h, l) = one(lead);
                patterns.allow(bit, 0, h, l);
                let (h, l) = one(second);
                patterns.allow(bit, 1, h, l);
                match third {
                    None => {
                        patterns.allow(bit, 2, 0xffff, 0xffff);
                        two |= bit;
                    }
                    Some((highs, lows)) => {
                        patterns.allow(bit, 2, highs, lows);
                        three |= bit;
                    }
                }
            }
        }
        Some((patterns, two, three))
    }

    /// [`Self::mask`] by table look-ups.
    #[inline(always)]
    fn mask_by_tables<M: BlockMasks>(&self, m: M, window: &[u8; 66]) -> Option<(u64, u64)> {
        let (patterns, two, three) = self.nibbles.as_ref()?;
        let [two, three, _] = m.pattern_starts(window, patterns, [*two, *three, 0]);
        let spread = u128::from(two) * 0b11 + u128::from(three) * 0b111;
        Some((spread as u64, (spread >> 64) as u64))
    }

    /// The bytes of the multibyte spaces that begin in `block` (which `after`, its next two
    /// bytes, follows): bit i for `block[i]`, and the bits past the block's end (the last bytes
    /// of a space that begins in its last two bytes) in the second mask, bit 0 for `after[0]`.
    #[inline(always)]
    fn mask<M: BlockMasks>(&self, m: M, block: &[u8; 64], after: &[u8; 2]) -> (u64, u64) {
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

/// The state of one input's count.
#[derive(Clone)]
pub struct Counter<'a> {
    want: Want,
    classes: &'a ByteClasses,
    multibyte: bool,
    counts: Counts,
    in_word: bool,
    line_pos: u64,
    decoder: Option<MbDecoder>,
    /// UTF-8 is decoded here rather than by `mbrtowc` (same validity rules as GNU 9.12's).
    utf8: bool,
    /// The bytes of a character cut by the end of the last chunk.
    pending: [u8; MAX_CHAR_LEN],
    pending_len: usize,
    /// Line ends are being counted over a whole run, not per window.
    bulk_lines: bool,
    /// Whether `words_run` looks for the lead bytes of spaces before the table look-ups.
    lead_filter: LeadFilter,
}

/// When to look for the lead bytes of multibyte spaces before looking the spaces up: the
/// look-up costs about as much as the rest of a window's count, and most windows of most
/// scripts (Arabic, Devanagari, Hangul: all of them) hold no lead byte of a space. But in
/// scripts whose windows often do (the CJK punctuation and kana share U+3000's lead byte;
/// Cyrillic quotes and dashes, U+00A0's and U+2000's), a look that rarely spares the look-up
/// costs more than it saves, and its branch goes unpredictable. So the filter samples how often
/// it finds a lead, and stands aside where that is more than one window in eight, looking
/// again after a while.
#[derive(Clone, Copy, Debug, Default)]
struct LeadFilter {
    off: bool,
    windows: u32,
    hits: u32,
}

impl LeadFilter {
    /// Windows per sample while on.
    const SAMPLE: u32 = 64;
    /// Windows before it samples again after standing aside.
    const REST: u32 = 4096;

    /// Whether a window needs the look-up, given whether it holds a lead byte (asked only
    /// while the filter is on).
    #[inline(always)]
    fn look_up(&mut self, has_lead: impl FnOnce() -> bool) -> bool {
        self.windows += 1;
        if self.off {
            if self.windows == Self::REST {
                *self = LeadFilter::default();
            }
            return true;
        }
        let hit = has_lead();
        self.hits += u32::from(hit);
        if self.windows == Self::SAMPLE {
            *self = LeadFilter { off: self.hits * 8 > Self::SAMPLE, windows: 0, hits: 0 };
        }
        hit
    }
}

impl<'a> Counter<'a> {
    pub fn new(want: Want, classes: &'a ByteClasses, charset: Charset) -> Counter<'a> {
        let multibyte = charset != Charset::Unibyte;
        Counter {
            want,
            classes,
            multibyte,
            counts: Counts::default(),
            in_word: false,
            line_pos: 0,
            decoder: (multibyte && charset != Charset::Utf8).then(MbDecoder::new),
            utf8: charset == Charset::Utf8,
            pending: [0; MAX_CHAR_LEN],
            pending_len: 0,
            bulk_lines: false,
            lead_filter: LeadFilter::default(),
        }
    }

    /// Counts one chunk.
    pub fn feed(&mut self, buf: &[u8]) {
        struct Feed<'c, 'a, 'b>(&'c mut Counter<'a>, &'b [u8]);
        impl WithMasks for Feed<'_, '_, '_> {
            type Output = ();
            #[inline(always)]
            fn run<M: BlockMasks>(self, masks: M) {
                self.0.feed_chunk(masks, self.1);
            }
        }
        platform::simd::with_best_masks(Feed(self, buf));
    }

    #[inline(always)]
    fn feed_chunk<M: BlockMasks>(&mut self, m: M, buf: &[u8]) {
        self.counts.bytes += buf.len() as u64;
        let mut i = if self.pending_len > 0 { self.finish_pending(buf) } else { 0 };
        // The block paths need the C library's ASCII classes to be the usual ones, and UTF-8 or
        // a single-byte locale (other multibyte encodings go through mbrtowc).
        let blocks = self.classes.standard_spaces && (self.utf8 || !self.multibyte);
        let width_path = blocks && self.want.max_line_length && self.classes.standard_print;
        let block_path = blocks && !self.want.max_line_length;
        if block_path && self.utf8 && !self.want.words && self.pending_len == 0 {
            i = self.chars_run(m, buf, i);
        }
        if block_path && self.utf8 && self.want.words && !self.want.chars && self.pending_len == 0 {
            i = self.words_run(m, buf, i);
        }
        if width_path && self.width_alone() && self.pending_len == 0 {
            i = self.width_run(m, buf, i);
        }
        while i + 64 <= buf.len() && (width_path || block_path) && self.pending_len == 0 {
            let used = if width_path {
                self.line_block::<M, true>(m, buf, i)
            } else {
                let block: &[u8; 64] = buf[i..i + 64].try_into().unwrap();
                if !self.multibyte || m.high(block) == 0 {
                    self.block(m, block);
                    64
                } else {
                    match self.want.words {
                        false => match self.valid_utf8_block(m, block) {
                            0 => self.line_block::<M, false>(m, buf, i),
                            used => used,
                        },
                        true => self.line_block::<M, false>(m, buf, i),
                    }
                }
            };
            if used == 0 {
                // A character that crosses the end of the chunk: the character loop keeps it.
                break;
            }
            i += used;
        }
        if i < buf.len() {
            if self.multibyte {
                self.multibyte_run(buf, i, buf.len());
            } else {
                self.unibyte_run(buf, i, buf.len());
            }
        }
    }

    /// The counts, once the input has ended.
    pub fn finish(mut self) -> Counts {
        // A character cut by the end of the input: as GNU, its first byte is invalid (a word
        // byte, no character) and decoding goes on from the next byte (in GB18030 or EUC-JP
        // that can be a character, in UTF-8 it never is).
        let (pending, len) = (self.pending, self.pending_len);
        self.pending_len = 0;
        let mut j = 0;
        while j < len {
            self.word_char(true);
            j += 1;
            while j < len {
                match self.mb_step(&pending[j..len]) {
                    Some(n) => j += n,
                    None => break,
                }
            }
        }
        self.counts.words += u64::from(self.in_word);
        self.counts.max_line_length = self.counts.max_line_length.max(self.line_pos);
        if !self.multibyte {
            self.counts.chars = self.counts.bytes;
        }
        self.counts
    }

    /// 64 bytes of ASCII (or of a single-byte locale) without -L.
    #[inline(always)]
    fn block<M: BlockMasks>(&mut self, m: M, block: &[u8; 64]) {
        let lf = m.eq(block, b'\n');
        self.counts.lines += u64::from(lf.count_ones());
        if self.want.words {
            let space = m.ascii_space(block, self.classes.space_high);
            // A word ends where a space follows a non-space (the carry is the previous byte).
            let prev_nonspace = (!space << 1) | u64::from(self.in_word);
            self.counts.words += u64::from((space & prev_nonspace).count_ones());
            self.in_word = space >> 63 == 0;
        }
        if self.multibyte {
            self.counts.chars += 64;
        }
    }

    /// GNU's single-byte loop over `buf[from..to]`; returns `to`.
    fn unibyte_run(&mut self, buf: &[u8], from: usize, to: usize) -> usize {
        for &c in &buf[from..to] {
            self.byte(c);
        }
        to
    }

    /// One byte (or ASCII character), GNU's switch.
    #[inline]
    fn byte(&mut self, c: u8) {
        match c {
            b'\n' | b'\r' | 0x0c => {
                if c == b'\n' {
                    self.counts.lines += 1;
                }
                self.end_line();
                self.separator();
            }
            b'\t' => {
                self.line_pos += 8 - self.line_pos % 8;
                self.separator();
            }
            b' ' => {
                self.line_pos += 1;
                self.separator();
            }
            0x0b => self.separator(),
            _ => {
                self.line_pos += u64::from(self.classes.print[c as usize]);
                self.word_char(!self.classes.space[c as usize]);
            }
        }
    }

    #[inline]
    fn end_line(&mut self) {
        self.counts.max_line_length = self.counts.max_line_length.max(self.line_pos);
        self.line_pos = 0;
    }

    #[inline]
    fn separator(&mut self) {
        self.counts.words += u64::from(self.in_word);
        self.in_word = false;
    }

    #[inline]
    fn word_char(&mut self, in_word: bool) {
        self.counts.words += u64::from(self.in_word & !in_word);
        self.in_word = in_word;
    }

    /// GNU's multibyte loop over `buf[from..to]`: ASCII by table, the rest by our UTF-8
    /// decoder or the C library's `mbrtowc`. A character cut by the end of the chunk is kept in
    /// `pending`. Returns where it stopped (`to`, or the end of the chunk).
    fn multibyte_run(&mut self, buf: &[u8], from: usize, to: usize) -> usize {
        let mut i = from;
        while i < to {
            let c = buf[i];
            if c < 0x80 {
                self.counts.chars += 1;
                self.byte(c);
                i += 1;
                continue;
            }
            match self.mb_step(&buf[i..]) {
                Some(n) => i += n,
                None => {
                    let rest = &buf[i..];
                    self.pending[..rest.len()].copy_from_slice(rest);
                    self.pending_len = rest.len();
                    return buf.len();
                }
            }
        }
        i
    }

    /// Counts the character at the start of `bytes`; returns the bytes it took, or None when
    /// `bytes` ends inside it (nothing counted). An invalid byte is one word byte, no character.
    fn mb_step(&mut self, bytes: &[u8]) -> Option<usize> {
        if self.utf8 {
            return self.utf8_step(bytes);
        }
        if bytes[0] < 0x80 {
            self.counts.chars += 1;
            self.byte(bytes[0]);
            return Some(1);
        }
        let decoder = self.decoder.as_mut().expect("multibyte counter has a decoder");
        match decoder.decode(bytes) {
            MbStep::Incomplete => {
                // The bytes stay ours (in `pending`), not the decoder's.
                decoder.reset();
                None
            }
            // glibc's mbrtowc decodes UTF-8 forms beyond U+10FFFF (5 and 6 bytes, F4 90..);
            // GNU 9.12's mbrtoc32 rejects them: invalid, one byte at a time.
            MbStep::Char(wc, _) if wc > 0x10_ffff => {
                decoder.reset();
                self.word_char(true);
                Some(1)
            }
            MbStep::Invalid => {
                self.word_char(true);
                Some(1)
            }
            MbStep::Char(wc, n) => {
                self.counts.chars += 1;
                self.wide_char(wc);
                Some(n.max(1))
            }
        }
    }

    /// UTF-8 words (with lines and bytes), without -m or -L: each window's white space is its
    /// ASCII white space plus the bytes of the multibyte spaces that begin in it (byte patterns,
    /// see [`Utf8Spaces`]), and words end where white space follows a word byte, whatever the
    /// script: nothing is decoded. Stops two bytes before the chunk's end (a space's last bytes
    /// must be there to be seen), never inside a multibyte space; the bytes of any other
    /// character it stops inside are word bytes either way. Returns where it stopped.
    #[inline(always)]
    fn words_run<M: BlockMasks>(&mut self, m: M, buf: &[u8], from: usize) -> usize {
        // (Not even the spaces' patterns for an input too short for a window: they cost a
        // few hundred look-ups in the C library's tables, a tenth of a tiny file's run.)
        if from + 66 > buf.len() {
            return from;
        }
        let Some(spaces) = self.classes.utf8_spaces() else {
            return from;
        };
        let mut i = from;
        let mut carry = 0u64;
        let mut in_word = self.in_word;
        let mut lead_filter = self.lead_filter;
        let (mut words, mut lines) = (0u64, 0u64);
        while i + 66 <= buf.len() {
            platform::simd::prefetch_ahead(buf, i);
            let block: &[u8; 64] = buf[i..i + 64].try_into().unwrap();
            let after: &[u8; 2] = buf[i + 64..i + 66].try_into().unwrap();
            let mut space = m.ascii_space(block, None) | carry;
            carry = 0;
            // With table look-ups in several registers, windows without the lead byte of a
            // space skip them (see `LeadFilter`; without table look-ups, `mask` itself starts
            // with the leads).
            if m.high(block) != 0
                && (!M::TABLE_LOOKUPS || M::ONE_REGISTER || lead_filter.look_up(|| m.any_of(block, spaces.leads)))
            {
                let window: &[u8; 66] = buf[i..i + 66].try_into().unwrap();
                let by_tables = if M::TABLE_LOOKUPS { spaces.mask_by_tables(m, window) } else { None };
                let (mb, next) = by_tables.unwrap_or_else(|| spaces.mask(m, block, after));
                space |= mb;
                carry = next;
            }
            lines += u64::from(m.eq(block, b'\n').count_ones());
            // A word ends where a space follows a word byte (the carry is the previous byte).
            let prev_nonspace = (!space << 1) | u64::from(in_word);
            words += u64::from((space & prev_nonspace).count_ones());
            in_word = space >> 63 == 0;
            i += 64;
        }
        // The last bytes of a space that began in the last window: spaces, no line end.
        i += carry.count_ones() as usize;
        self.counts.words += words;
        self.counts.lines += lines;
        self.in_word = in_word;
        self.lead_filter = lead_filter;
        i
    }

    /// UTF-8 characters (with lines and bytes), without -w or -L, from `buf[from..]`. Each
    /// window is checked by the Keiser-Lemire validator (three table look-ups): where it and the
    /// next window's check find no error, its characters are its bytes that are not
    /// continuation bytes (windows of ASCII need no check at all). Where a check finds an error,
    /// that window and the one before it (whose last character may be the broken one) are
    /// counted exactly by `exact_chars`, which needs no decoding either. Windows need the three
    /// bytes after them; it stops at a window boundary, maybe inside a character it counted
    /// (its last bytes are no character to what follows, either way). Line ends are counted in
    /// one pass at the end.
    #[inline(always)]
    fn chars_run<M: BlockMasks>(&mut self, m: M, buf: &[u8], from: usize) -> usize {
        if !M::TABLE_LOOKUPS {
            return self.chars_run_by_masks(m, buf, from);
        }
        let mut i = from;
        let mut chars = 0u64;
        // The characters of the last window, counted but not yet confirmed by the next check.
        let mut pending: Option<u64> = None;
        let mut first = [0u8; 67];
        while i + 67 <= buf.len() {
            platform::simd::prefetch_ahead(buf, i);
            let block: &[u8; 64] = buf[i..i + 64].try_into().unwrap();
            // The three bytes before the window: before the run's start, which is a character
            // boundary, ASCII stands for them.
            let window: &[u8; 67] = if i == from {
                first[3..].copy_from_slice(block);
                &first
            } else {
                buf[i - 3..i + 64].try_into().unwrap()
            };
            if !m.utf8_errors(window) {
                chars += pending.take().unwrap_or(0);
                pending = Some(u64::from(64 - m.continuation(block).count_ones()));
            } else {
                if pending.take().is_some() {
                    chars += exact_chars(m, buf, i - 64);
                }
                chars += exact_chars(m, buf, i);
            }
            i += 64;
        }
        if pending.is_some() {
            // The last window's characters that reach past it were checked by no next window.
            chars += exact_chars(m, buf, i - 64);
        }
        self.counts.chars += chars;
        if self.want.lines {
            self.counts.lines += count_lines(&buf[from..i]);
        }
        i
    }

    /// [`Self::chars_run`] for instruction sets without table look-ups (SSE2, SWAR): blocks of
    /// ASCII are skipped 64 bytes at a time, the others counted by [`Self::valid_utf8_block`]
    /// or else by [`Self::line_block`]; line ends are counted in one pass at the end. Returns
    /// where it stopped (the rest goes to the character loop).
    #[inline(always)]
    fn chars_run_by_masks<M: BlockMasks>(&mut self, m: M, buf: &[u8], from: usize) -> usize {
        let mut i = from;
        self.bulk_lines = true;
        while i + 64 <= buf.len() {
            let ascii = m.ascii_blocks(&buf[i..]);
            self.counts.chars += ascii as u64;
            i += ascii;
            if i + 64 > buf.len() {
                break;
            }
            let used = match self.valid_utf8_block(m, buf[i..i + 64].try_into().unwrap()) {
                0 => self.line_block::<M, false>(m, buf, i),
                used => used,
            };
            if used == 0 {
                break;
            }
            i += used;
        }
        self.bulk_lines = false;
        if self.want.lines {
            self.counts.lines += count_lines(&buf[from..i]);
        }
        i
    }

    /// -L without -w, and without -m in a multibyte locale: widths need only be exact where
    /// they can pass the longest line so far (see `line_block`).
    fn width_alone(&self) -> bool {
        self.want.max_line_length && !self.want.words && !(self.multibyte && self.want.chars)
    }

    /// -L alone (`width_alone`), from `buf[from..]` in 64-byte windows. A line's width grows
    /// by at most one column per byte except at a TAB (at most eight); so the bytes since the
    /// last exactly measured point need no measuring as long as that bound cannot pass the
    /// longest line so far: windows are skipped with two compares (a few more when the whole
    /// window's bound would not fit but each line's part of it does), and the line running at
    /// the last line end of a skipped window starts a new unmeasured stretch. Only when the bound
    /// could pass the longest is the stretch measured exactly (`line_block`, from its start).
    /// Returns where exact measuring stopped: the caller measures the rest.
    #[inline(always)]
    fn width_run<M: BlockMasks>(&mut self, m: M, buf: &[u8], from: usize) -> usize {
        // The tight bound asks the C library about 3,840 characters once: for large inputs.
        if self.utf8 && buf.len() >= TIGHT_BOUND_MIN && self.classes.narrow_below_u1000() {
            self.width_run_bounded::<M, true>(m, buf, from)
        } else {
            self.width_run_bounded::<M, false>(m, buf, from)
        }
    }

    /// `width_run` with one byte's bound: at most its column (`TIGHT` false), or, in UTF-8
    /// (`TIGHT` true), nothing at a continuation byte and two at the first byte of a character
    /// from U+1000 on (the only ones that can be wide), so a character adds at most its width.
    /// A skipped window takes no branch but the one that decides to measure.
    #[inline(always)]
    fn width_run_bounded<M: BlockMasks, const TIGHT: bool>(&mut self, m: M, buf: &[u8], from: usize) -> usize {
        // `pos` is exact up to `start`; `[start, i)` is unmeasured and can add at most `grown`.
        let mut i = from;
        let mut start = from;
        let mut grown = 0u64;
        let mut pos = self.line_pos;
        let mut longest = self.counts.max_line_length;
        let mut lines = 0u64;
        while i + 64 <= buf.len() {
            platform::simd::prefetch_ahead(buf, i);
            let block: &[u8; 64] = buf[i..i + 64].try_into().unwrap();
            let lf = m.eq(block, b'\n');
            let tab = m.eq(block, b'\t');
            let (one, two) = if TIGHT { (!m.continuation(block), m.ge(block, 0xe1)) } else { (u64::MAX, 0) };
            let bound = |part: u64| {
                u64::from((one & part).count_ones() + (two & part).count_ones() + 7 * (tab & part).count_ones())
            };
            let last = 64 - lf.leading_zeros();
            let after = u64::MAX.checked_shl(last).unwrap_or(0);
            // Even the whole window cannot make the running line the longest; or, closer: the
            // running line ends at the window's first line end, the lines between its first
            // and last line end are whole within it, and the line after its last begins a new
            // stretch (lines of emoji and their joiners, whose bound is far above their width,
            // need this to go unmeasured).
            let fits = pos + grown + bound(u64::MAX) <= longest || {
                let before = !u64::MAX.checked_shl(lf.trailing_zeros()).unwrap_or(0);
                pos + grown + bound(before) <= longest && bound(!before & !after) <= longest
            };
            if fits {
                // The line running at the window's last line end (if any) starts a new
                // unmeasured stretch; without one the stretch grows by the whole window.
                let tail = bound(after);
                // All ones when the window has no line end: selects by masks, since a branch
                // on line ends mispredicts on every other window of ordinary text.
                let keep = u64::from(lf == 0).wrapping_neg();
                start = (start & keep as usize) | ((i + last as usize) & !keep as usize);
                pos &= keep;
                grown = (grown & keep) + tail;
                lines += u64::from(lf.count_ones());
                i += 64;
                continue;
            }
            match self.measure(m, buf, start, i + 64, pos) {
                Some(at) => {
                    i = at;
                    start = at;
                    grown = 0;
                    pos = self.line_pos;
                    longest = self.counts.max_line_length;
                }
                None => {
                    self.counts.lines += lines;
                    return start;
                }
            }
        }
        self.counts.lines += lines;
        if start == i {
            self.line_pos = pos;
            return i;
        }
        match self.measure(m, buf, start, i, pos) {
            Some(at) => at,
            None => start,
        }
    }

    /// Measures `buf[start..]` exactly through at least `to` with `line_block`, the line
    /// being `pos` wide at `start`; returns where it stopped, or None (with `line_pos` set
    /// to `pos`) when a window could not be measured there (the caller measures from
    /// `start` by other means).
    #[inline(always)]
    fn measure<M: BlockMasks>(&mut self, m: M, buf: &[u8], start: usize, to: usize, pos: u64) -> Option<usize> {
        self.line_pos = pos;
        let mut at = start;
        while at < to {
            if at + 64 > buf.len() {
                return (at > start).then_some(at);
            }
            let used = if self.utf8 && M::TABLE_LOOKUPS && at + 67 <= buf.len() {
                self.width_block(m, buf, at)
            } else {
                self.line_block::<M, true>(m, buf, at)
            };
            if used == 0 {
                return (at > start).then_some(at);
            }
            at += used;
        }
        Some(at)
    }

    /// The widths of a UTF-8 window at `buf[at..]` (-L without -w or -m; `buf` must hold the
    /// three bytes after it), with table look-ups only: the valid characters are found by their
    /// byte patterns (`utf8_start_patterns`), and each one's width is looked up in the 64-entry
    /// table of its block of 64 code points (the C library's answers, see `WideClasses`), one
    /// block at a time: all the characters of a window from one block take one vector look-up.
    /// Three-byte forms whose whole block is one width (most CJK and Hangul) take one look-up
    /// per lead byte. The bits of the characters at least one column wide, and of those two
    /// wide, then give a line's width between control characters by counting. Invalid bytes
    /// and continuation bytes are no characters: no width. Returns 64.
    #[inline(always)]
    fn width_block<M: BlockMasks>(&mut self, m: M, buf: &[u8], at: usize) -> usize {
        let w: &[u8; 67] = buf[at..at + 67].try_into().unwrap();
        let (b0, b1, b2, b3): (&[u8; 64], &[u8; 64], &[u8; 64], &[u8; 64]) = (
            w[..64].try_into().unwrap(),
            w[1..65].try_into().unwrap(),
            w[2..66].try_into().unwrap(),
            w[3..].try_into().unwrap(),
        );
        let control_or_high = m.control_or_high(b0);
        let high = m.high(b0);
        // Printable ASCII is one column; then each block's characters by look-up.
        let (mut w1, mut w2) = (!control_or_high, 0u64);
        let (two, three, four) = if high == 0 {
            (0, 0, 0)
        } else {
            let patterns = platform::simd::utf8_start_patterns();
            let [two, three, four] = m.pattern_starts(
                w[..66].try_into().unwrap(),
                patterns,
                [UTF8_TWO_BYTE, UTF8_THREE_BYTE, platform::simd::UTF8_FOUR_BYTE],
            );
            (two, three, four & m.continuation(b3))
        };
        let wide = &self.classes.wide;
        let mut todo = two;
        while todo != 0 {
            let lead = b0[todo.trailing_zeros() as usize];
            let same = todo & m.eq(b0, lead);
            let [x1, x2, _] = m.lookup64(b1, wide.block64(u32::from(lead & 0x1f) << 6), [WIDTH_BITS, 0b10, 0]);
            w1 |= same & x1;
            w2 |= same & x2;
            todo &= !same;
        }
        let mut todo = three;
        while todo != 0 {
            let lead = b0[todo.trailing_zeros() as usize];
            let same_lead = todo & m.eq(b0, lead);
            todo &= !same_lead;
            let [x1, x2, mixed] = m.lookup64(b1, wide.lead_blocks(lead), [BLOCK_WIDTH_BITS, 0b010, BLOCK_MIXED]);
            let mixed = same_lead & mixed;
            w1 |= same_lead & !mixed & x1;
            w2 |= same_lead & !mixed & x2;
            let mut rest = mixed;
            // A few characters are looked up one by one, more one block at a time.
            if rest.count_ones() <= FEW_CHARACTERS {
                while rest != 0 {
                    let p = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let cp = (u32::from(lead & 0x0f) << 12) | (u32::from(b1[p] & 0x3f) << 6) | u32::from(b2[p] & 0x3f);
                    let width = wide.get(cp) & WIDTH_BITS;
                    w1 |= u64::from(width != 0) << p;
                    w2 |= u64::from(width == 2) << p;
                }
            }
            while rest != 0 {
                let second = b1[rest.trailing_zeros() as usize];
                let same = rest & m.eq(b1, second);
                let first = (u32::from(lead & 0x0f) << 12) | (u32::from(second & 0x3f) << 6);
                let [x1, x2, _] = m.lookup64(b2, wide.block64(first), [WIDTH_BITS, 0b10, 0]);
                w1 |= same & x1;
                w2 |= same & x2;
                rest &= !same;
            }
        }
        let mut todo = four;
        while todo != 0 {
            let p = todo.trailing_zeros() as usize;
            let (lead, second) = (b0[p], b1[p]);
            let same_region = todo & m.eq(b0, lead) & m.eq(b1, second);
            todo &= !same_region;
            let [x1, x2, mixed] =
                m.lookup64(b2, wide.region_blocks(lead, second), [BLOCK_WIDTH_BITS, 0b010, BLOCK_MIXED]);
            let mixed = same_region & mixed;
            w1 |= same_region & !mixed & x1;
            w2 |= same_region & !mixed & x2;
            let mut rest = mixed;
            if rest.count_ones() <= FEW_CHARACTERS {
                while rest != 0 {
                    let p = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    let cp = (u32::from(lead & 0x07) << 18)
                        | (u32::from(second & 0x3f) << 12)
                        | (u32::from(b2[p] & 0x3f) << 6)
                        | u32::from(b3[p] & 0x3f);
                    let width = wide.get(cp) & WIDTH_BITS;
                    w1 |= u64::from(width != 0) << p;
                    w2 |= u64::from(width == 2) << p;
                }
            }
            while rest != 0 {
                let third = b2[rest.trailing_zeros() as usize];
                let same = rest & m.eq(b2, third);
                let first =
                    (u32::from(lead & 0x07) << 18) | (u32::from(second & 0x3f) << 12) | (u32::from(third & 0x3f) << 6);
                let [x1, x2, _] = m.lookup64(b3, wide.block64(first), [WIDTH_BITS, 0b10, 0]);
                w1 |= same & x1;
                w2 |= same & x2;
                rest &= !same;
            }
        }
        // Line ends, TABs and the other controls (no width) in order; the columns between them
        // are counted.
        let width =
            |from: usize, to: usize| u64::from((w1 & span(from, to)).count_ones() + (w2 & span(from, to)).count_ones());
        let mut controls = control_or_high & !high;
        let (mut pos, mut longest, mut lines) = (self.line_pos, self.counts.max_line_length, 0u64);
        let mut last = 0;
        while controls != 0 {
            let e = controls.trailing_zeros() as usize;
            controls &= controls - 1;
            pos += width(last, e);
            last = e;
            match b0[e] {
                b'\n' | b'\r' | 0x0c => {
                    lines += u64::from(b0[e] == b'\n');
                    longest = longest.max(pos);
                    pos = 0;
                }
                b'\t' => pos += 8 - pos % 8,
                _ => {}
            }
        }
        pos += width(last, 64);
        self.line_pos = pos;
        self.counts.max_line_length = longest;
        if !self.bulk_lines {
            self.counts.lines += lines;
        }
        64
    }

    /// UTF-8 without -w or -L: a window whose characters are all valid is counted from masks
    /// alone (characters are the bytes that are not continuation bytes), checking the
    /// structure as a whole: no byte that never occurs in UTF-8, continuation bytes exactly
    /// where the lead bytes want them, and the second-byte limits of the leads E0, ED, F0, F4
    /// (no overlong form, no surrogate, nothing past U+10FFFF). The window ends before a
    /// character that would cross its end. Returns the bytes used, or 0 when anything is off
    /// (the character loop then decides, byte by byte).
    #[inline(always)]
    fn valid_utf8_block<M: BlockMasks>(&mut self, m: M, block: &[u8; 64]) -> usize {
        let r = m.utf8_ranges(block);
        // C0, C1 and F5..FF never occur; nor a high byte that is neither lead nor continuation.
        if r.ge_f5 != 0 || r.high & !r.cont & !r.ge_c2 != 0 {
            return 0;
        }
        let crossing = r.crossing_leads();
        let end = if crossing == 0 { 64 } else { crossing.trailing_zeros() as usize };
        if end == 0 {
            return 0;
        }
        let valid = u64::MAX >> (64 - end);
        let [lead2, lead3, lead4] = r.leads().map(|lead| lead & valid);
        let expected = ((lead2 | lead3 | lead4) << 1) | ((lead3 | lead4) << 2) | (lead4 << 3);
        if expected != r.cont & valid {
            return 0;
        }
        // Only the leads E0, ED, F0 and F4 limit their second byte (rare in most text).
        let mut long = (m.eq(block, 0xe0) | m.eq(block, 0xed) | m.eq(block, 0xf0) | m.eq(block, 0xf4)) & valid;
        while long != 0 {
            let p = long.trailing_zeros() as usize;
            long &= long - 1;
            let ok = match block[p] {
                0xe0 => block[p + 1] >= 0xa0,
                0xed => block[p + 1] < 0xa0,
                0xf0 => block[p + 1] >= 0x90,
                _ => block[p + 1] < 0x90,
            };
            if !ok {
                return 0;
            }
        }
        if !self.bulk_lines {
            self.counts.lines += u64::from((m.eq(block, b'\n') & valid).count_ones());
        }
        self.counts.chars += u64::from((!r.cont & valid).count_ones());
        end
    }

    /// A 64-byte window at `buf[at..]`, for -L (`WIDTH`) in a single-byte or UTF-8 locale, and
    /// without -L for UTF-8 windows that hold non-ASCII bytes. Lines, white space and characters
    /// come from SIMD masks; only the "events" are visited one by one: with `WIDTH` the controls
    /// (line ends, TAB, ...), and the bytes that may begin a UTF-8 character (a lead byte with
    /// the continuation bytes it wants; in a single-byte locale every byte above 0x7f unless none
    /// is printable). Any other byte above 0x7f is an invalid byte or a continuation byte a lead
    /// takes with it: invalid ones are word bytes, no character, width 0, so they need no visit
    /// (a run between events is as wide as its bytes below 0x80). A UTF-8 character is decoded
    /// (which also checks the E0/ED/F0/F4 limits) and classified from the cached C-library
    /// classes (its bytes join the space mask if it is white space). The window ends before a
    /// character that would cross its end. Returns the bytes used (0: leave this window to the
    /// character loop).
    #[inline(always)]
    fn line_block<M: BlockMasks, const WIDTH: bool>(&mut self, m: M, buf: &[u8], at: usize) -> usize {
        let block: &[u8; 64] = buf[at..at + 64].try_into().unwrap();
        let mut space = if self.want.words { m.ascii_space(block, self.classes.space_high) } else { 0 };
        let high = m.high(block);
        let controls = if WIDTH { m.controls(block) } else { 0 };
        // `high`: the bytes above 0x7f, counted out of characters; `hidden`: those that are not
        // events, counted out of a run's width.
        let (high, hidden, mut events) = if self.utf8 && high == 0 {
            (0, 0, controls)
        } else if self.utf8 {
            let r = m.utf8_ranges(block);
            let [lead2, lead3, lead4] = r.leads();
            let (c1, c2, c3) = (r.cont >> 1, r.cont >> 2, r.cont >> 3);
            let starts = (lead2 & c1) | (lead3 & c1 & c2) | (lead4 & c1 & c2 & c3);
            // Leads whose characters would reach past the window: decoding decides.
            (r.high, r.high, controls | starts | r.crossing_leads())
        } else if self.classes.high_unprintable {
            // A single-byte locale whose bytes above 0x7f are all unprintable (C, POSIX).
            (0, high, controls)
        } else {
            (0, 0, m.control_or_high(block))
        };
        let mut end = 64;
        let mut last = 0;
        let mut pos = self.line_pos;
        let mut longest = self.counts.max_line_length;
        let mut wide_chars = 0u64;
        // -L without -w or -m: a line's width grows by at most one column per byte, except at a
        // TAB (up to eight): every character is at most as wide as its encoding is long, other
        // controls have no width, CR and FF only end lines. So when the window has a line end
        // and even the line running into it plus the whole window (TABs at their widest) cannot
        // pass the longest line so far, nothing before its last line end can change the answer:
        // only what follows that line end is measured.
        let lf = m.eq(block, b'\n');
        if WIDTH && lf != 0 && self.width_alone() {
            let tabs = if controls & !lf != 0 { m.eq(block, b'\t').count_ones() } else { 0 };
            if pos + 64 + 7 * u64::from(tabs) <= longest {
                last = 64 - lf.leading_zeros() as usize;
                events &= span(last, 64);
                pos = 0;
            }
        }
        while events != 0 {
            let p = events.trailing_zeros() as usize;
            if WIDTH {
                pos += (p - last) as u64;
                if hidden != 0 {
                    pos -= u64::from((hidden & span(last, p)).count_ones());
                }
            }
            let c = block[p];
            let mut n = 1;
            // Most frequent first: line ends, then non-ASCII, TABs, the rest.
            if c == b'\n' {
                longest = longest.max(pos);
                pos = 0;
            } else if c >= 0x80 {
                if self.utf8 {
                    match utf8_char(&buf[at + p..]) {
                        Utf8::Char(wc, len) if p + len <= 64 => {
                            if WIDTH || self.want.words {
                                let class = self.classes.wide.get(wc);
                                pos += u64::from(class & WIDTH_BITS);
                                if class & SPACE_BIT != 0 {
                                    space |= ((1u64 << len) - 1) << p;
                                }
                            }
                            wide_chars += 1;
                            n = len;
                        }
                        Utf8::Invalid => {}
                        Utf8::Char(..) | Utf8::Incomplete => {
                            last = p;
                            end = p;
                            break;
                        }
                    }
                } else {
                    pos += u64::from(self.classes.print[c as usize]);
                }
            } else if c == b'\t' {
                pos += 8 - pos % 8;
            } else if c == b'\r' || c == 0x0c {
                longest = longest.max(pos);
                pos = 0;
            }
            last = p + n;
            events &= span(last, 64);
        }
        if end == 0 {
            return 0;
        }
        if WIDTH {
            pos += (end - last) as u64 - u64::from((hidden & span(last, end)).count_ones());
            self.line_pos = pos;
            self.counts.max_line_length = longest;
        }
        let valid = u64::MAX >> (64 - end);
        if !self.bulk_lines {
            self.counts.lines += u64::from((lf & valid).count_ones());
        }
        if self.want.words {
            let space = space & valid;
            let prev_nonspace = (!space << 1) | u64::from(self.in_word);
            self.counts.words += u64::from((space & prev_nonspace & valid).count_ones());
            self.in_word = space >> (end - 1) & 1 == 0;
        }
        if self.multibyte {
            self.counts.chars += u64::from((!high & valid).count_ones()) + wide_chars;
        }
        end
    }

    /// Counts the UTF-8 character at the start of `bytes` (an invalid byte counts as a word byte
    /// and no character, as in GNU); returns the bytes it took, or None when `bytes` ends
    /// inside it.
    fn utf8_step(&mut self, bytes: &[u8]) -> Option<usize> {
        match utf8_char(bytes) {
            Utf8::Char(wc, n) => {
                self.counts.chars += 1;
                self.wide_char(wc);
                Some(n)
            }
            Utf8::Invalid => {
                self.word_char(true);
                Some(1)
            }
            Utf8::Incomplete => None,
        }
    }

    /// Completes a character begun at the end of the last chunk with the first bytes of
    /// `buf`; returns how many bytes of `buf` it took.
    fn finish_pending(&mut self, buf: &[u8]) -> usize {
        let mut tmp = [0u8; 2 * MAX_CHAR_LEN];
        let held = self.pending_len;
        tmp[..held].copy_from_slice(&self.pending[..held]);
        let take = buf.len().min(MAX_CHAR_LEN);
        tmp[held..held + take].copy_from_slice(&buf[..take]);
        let avail = held + take;
        self.pending_len = 0;
        let mut j = 0;
        while j < held {
            match self.mb_step(&tmp[j..avail]) {
                Some(n) => j += n,
                None => {
                    // Still incomplete: the whole (short) chunk joins the pending bytes.
                    self.pending[..avail - j].copy_from_slice(&tmp[j..avail]);
                    self.pending_len = avail - j;
                    return buf.len();
                }
            }
        }
        j - held
    }

    /// One decoded character that came through `mbrtowc`.
    fn wide_char(&mut self, wc: u32) {
        if wc < 0x80 {
            self.byte(wc as u8);
            return;
        }
        let class = self.classes.wide.get(wc);
        self.line_pos += u64::from(class & WIDTH_BITS);
        self.word_char(class & SPACE_BIT == 0);
    }
}

/// The valid UTF-8 characters that begin in the window at `buf[at..]` (which must hold the
/// three bytes after it): ASCII bytes, and the positions where a valid form begins (nibble
/// look-ups of each position's first three bytes, a continuation byte fourth for four-byte
/// forms). Exact whatever the bytes: an invalid byte begins no character, as in GNU.
#[inline(always)]
fn exact_chars<M: BlockMasks>(m: M, buf: &[u8], at: usize) -> u64 {
    let block: &[u8; 64] = buf[at..at + 64].try_into().unwrap();
    let window: &[u8; 66] = buf[at..at + 66].try_into().unwrap();
    let four_byte = platform::simd::UTF8_FOUR_BYTE;
    let [short, long, _] = m.pattern_starts(window, platform::simd::utf8_start_patterns(), [!four_byte, four_byte, 0]);
    let cont3 = m.continuation(buf[at + 3..at + 67].try_into().unwrap());
    u64::from((!m.high(block) | short | (long & cont3)).count_ones())
}

/// The bits `from..to` of a 64-bit mask (`from <= to <= 64`).
#[inline]
fn span(from: usize, to: usize) -> u64 {
    (u64::MAX.checked_shl(from as u32).unwrap_or(0)) & !(u64::MAX.checked_shl(to as u32).unwrap_or(0))
}

/// One step of UTF-8 decoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Utf8 {
    Char(u32, usize),
    Invalid,
    Incomplete,
}

/// Decodes the character at the start of `bytes` by the Unicode rules (no overlong forms, no
/// surrogates, nothing past U+10FFFF): the rules of GNU 9.12's `mbrtoc32`. An invalid byte is
/// reported alone (the caller skips one byte, as GNU does); `Incomplete` when `bytes` ends
/// inside a character that could still be valid.
#[inline(always)]
fn utf8_char(bytes: &[u8]) -> Utf8 {
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

/// Lines only: the number of LF bytes, counted with SIMD compares.
pub fn count_lines(buf: &[u8]) -> u64 {
    platform::simd::count_byte(buf, b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
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

    /// Counts `input` fed in the chunks that `cuts` (sorted offsets) make.
    fn count(charset: Charset, input: &[u8], cuts: &[usize], want: Want) -> Counts {
        let classes = ByteClasses::new(charset, false);
        let mut counter = Counter::new(want, &classes, charset);
        let mut prev = 0;
        for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
            counter.feed(&input[prev..cut]);
            prev = cut;
        }
        counter.finish()
    }

    /// UTF-8 input pieces: ASCII, spaces (ASCII and not), wide, combining, invalid, truncated.
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

    /// GNU's multibyte loop in a UTF-8 locale, character by character, written independently of
    /// the kernels: std's decoder (its invalid sequences are GNU's invalid bytes: each byte
    /// counts as a word byte, width 0, no character), classes from the C library.
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
                        if platform::is_printable_wide(wc) {
                            pos += platform::char_width(wc).max(0) as u64;
                        }
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

    fn want_from_bits(bits: u8) -> Want {
        Want {
            lines: bits & 1 != 0,
            words: bits & 2 != 0,
            chars: bits & 4 != 0,
            bytes: bits & 8 != 0,
            max_line_length: bits & 16 != 0,
        }
    }

    /// Counts `input` cut at `cuts` with each kernel's block masks (baseline SSE2 or SWAR for
    /// portable and sse2; AVX2 and AVX-512 where the CPU has them) and through `feed` (the best).
    fn count_all_ways(charset: Charset, input: &[u8], cuts: &[usize], want: Want) -> Vec<Counts> {
        struct Chunk<'c, 'a, 'b>(&'c mut Counter<'a>, &'b [u8]);
        impl WithMasks for Chunk<'_, '_, '_> {
            type Output = ();
            #[inline(always)]
            fn run<M: BlockMasks>(self, masks: M) {
                self.0.feed_chunk(masks, self.1);
            }
        }
        let classes = ByteClasses::new(charset, false);
        let mut results = Vec::new();
        for kernel in platform::simd::Kernel::ALL.into_iter().map(Some).chain([None]) {
            let mut counter = Counter::new(want, &classes, charset);
            let mut prev = 0;
            for &cut in cuts.iter().chain(std::iter::once(&input.len())) {
                match kernel {
                    Some(kernel) => platform::simd::with_masks(kernel, Chunk(&mut counter, &input[prev..cut])),
                    None => counter.feed(&input[prev..cut]),
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
        let piece = prop_oneof![8 => prop::sample::select(vec![&b"ab"[..], b"the ", b"x\n"]), 5 => prop::sample::select(pieces)];
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
            for got in count_all_ways(Charset::Unibyte, &input, &cuts, want) {
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
            for got in count_all_ways(Charset::Utf8, &input, &cuts, want) {
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
            for got in count_all_ways(Charset::Utf8, &input, &cuts, want) {
                prop_assert_eq!(wanted(got, want), expected);
            }
        }
    }

    #[test]
    fn tab_lines_near_the_longest_at_every_alignment() {
        // -L alone skips what cannot pass the longest line, bounding TABs at eight columns:
        // lines of TABs just wider or narrower than an earlier line, at many alignments to the
        // 64-byte windows, and with the TABs' line cut across windows.
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
                                for got in count_all_ways(charset, &input, &[], want) {
                                    assert_eq!(
                                        wanted(got, want),
                                        expected,
                                        "{tabs} TABs + {extra}, {longest}, {shift}"
                                    );
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
        // chars-only path (no -w) and for every way of cutting the input into chunks.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..300 {
            let input = utf8_noise(1 + round * 7, &mut seed);
            let all = Want { lines: true, words: true, chars: true, bytes: true, max_line_length: true };
            let reference = count(Charset::Utf8, &input, &[], all);
            let mut cuts: Vec<usize> = (0..4).map(|k| (seed as usize >> (k * 8)) % (input.len() + 1)).collect();
            cuts.sort();
            assert_eq!(count(Charset::Utf8, &input, &cuts, all), reference, "round {round} cuts {cuts:?}");
            // Without -L the longest line is not computed (and not printed).
            let no_l = count(Charset::Utf8, &input, &cuts, Want { max_line_length: false, ..all });
            assert_eq!(no_l, Counts { max_line_length: no_l.max_line_length, ..reference }, "round {round}");
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
            assert_eq!(count_lines(&input), expected.lines);
        }
    }
}
