//! Character classes of the running locale, as `wc` uses them: per byte for single-byte
//! locales, per character (cached per 256-character page) for multibyte ones.

use super::utf8;
use crate::platform::simd::BytePatterns;
use crate::platform::{self, Charset};
use std::cell::{Cell, OnceCell};

/// GNU 9.12 also separates words at these no-break spaces (not under POSIXLY_CORRECT).
pub(super) fn is_nbspace(wc: u32) -> bool {
    matches!(wc, 0x00a0 | 0x2007 | 0x202f | 0x2060)
}

/// Classes of non-ASCII characters from the C library (`iswspace` and GNU's no-break spaces,
/// `wcwidth`), kept per 256-character page: one look-up a character, not two questions. A page
/// of the first plane is made once `PAGE_AFTER` of its characters were asked singly, as GNU asks.
pub struct WideClasses {
    pub(super) posixly_correct: bool,
    pub(super) pages: [OnceCell<Box<[u8; 256]>>; 256],
    /// How many characters of each page of the first plane `get` has asked the C library.
    asked: [Cell<u16>; 256],
    /// How many characters `get` has asked the C library one by one, see `tables_pay`.
    singly: Cell<u64>,
    pub(super) supplementary: OnceCell<Box<[Lazy<[u8; 256]>]>>,
    /// For each three-byte UTF-8 lead, the width of each row of 64 characters it begins (by second byte; `lead_rows`).
    pub(super) lead_rows: [OnceCell<Box<[u8; 64]>>; 16],
    /// The same for four-byte forms' first two bytes (F0..=F4, 0x80..=0xBF), by the third byte;
    /// made on first use. Any lead byte's low three bits have an entry: another writer may change
    /// a mapped byte after the UTF-8 check, and no byte may then lead out of a table.
    pub(super) region_rows: OnceCell<Box<[Lazy<[u8; 64]>]>>,
}

/// A table made the first time it is needed.
pub(super) type Lazy<T> = OnceCell<Box<T>>;

/// A [`WideClasses`] entry: the column width (`wcwidth`, 0 where below one) in the low bits...
pub(super) const WIDTH_BITS: u8 = 0b11;
/// ...and whether the character separates words.
pub(super) const SPACE_BIT: u8 = 0b100;
/// The last code point (U+10FFFF) and the number of 256-character pages up to it.
pub(super) const PAGES: usize = 0x1100;
/// A page costs asking about 256 characters (two questions each). Made after that many were asked
/// one by one, it at most doubles what the cheaper choice asks, whatever the text.
const PAGE_AFTER: u16 = 256;
/// Chunks this large, or runs that asked this many characters singly, use whole lead bytes' tables: 4,096 `wcwidth`
/// answers each, which a few KB of Chinese never pays back (benches/RESULTS.md, "Figures behind code comments").
const TABLES_MIN: usize = 64 << 10;
const TABLES_AFTER: u64 = 8 << 10;

/// A `lead_rows` entry: every character of the row is this wide (0, 1, or 3 for 2:
/// the bits `width >= 1` and `width == 2`, as `WIDTH_BITS` of an entry)...
pub(super) const ROW_WIDTH_BITS: u8 = 0b011;
/// ...or the characters of the row differ in width.
pub(super) const ROW_MIXED: u8 = 0b100;

impl WideClasses {
    pub(super) fn new(posixly_correct: bool) -> WideClasses {
        WideClasses {
            posixly_correct,
            pages: [const { OnceCell::new() }; 256],
            asked: [const { Cell::new(0) }; 256],
            singly: Cell::new(0),
            supplementary: OnceCell::new(),
            lead_rows: [const { OnceCell::new() }; 16],
            region_rows: OnceCell::new(),
        }
    }

    /// The entry of one character, straight from the C library.
    pub(super) fn classify(&self, wc: u32) -> u8 {
        let space = platform::is_space_wide(wc) || (!self.posixly_correct && is_nbspace(wc));
        Self::width(wc) | if space { SPACE_BIT } else { 0 }
    }

    /// The entries of the 256 characters from `page << 8` (`page` below `PAGES`).
    #[inline]
    pub(super) fn page(&self, page: usize) -> &[u8; 256] {
        let cell = match self.pages.get(page) {
            Some(cell) => cell,
            None => &self.supplementary.get_or_init(|| (256..PAGES).map(|_| OnceCell::new()).collect())[page - 256],
        };
        cell.get_or_init(|| {
            let base = (page as u32) << 8;
            Box::new(std::array::from_fn(|i| self.classify(base + i as u32)))
        })
    }

    /// The page of `wc` if it is made (pages of the first plane only).
    #[inline]
    fn made_page(&self, wc: u32) -> Option<&[u8; 256]> {
        self.pages.get((wc >> 8) as usize).and_then(OnceCell::get).map(|page| &**page)
    }

    /// The entry of one character: from its page once made; before, from the C library.
    #[inline]
    pub(super) fn get(&self, wc: u32) -> u8 {
        match self.made_page(wc) {
            Some(page) => page[(wc & 0xff) as usize],
            None => self.get_unmade(wc),
        }
    }

    /// [`Self::get`] without a page: the C library's answer, until [`PAGE_AFTER`] of its characters make the page.
    fn get_unmade(&self, wc: u32) -> u8 {
        let page = (wc >> 8) as usize;
        match self.asked.get(page) {
            Some(asked) if asked.get() < PAGE_AFTER => {
                asked.set(asked.get() + 1);
                self.singly.set(self.singly.get() + 1);
                self.classify(wc)
            }
            _ if (wc as usize) < PAGES << 8 => self.page(page)[(wc & 0xff) as usize],
            _ => self.classify(wc),
        }
    }

    /// From now on [`Self::tables_pay`] whatever the chunk (the tests of small inputs).
    #[cfg(test)]
    pub(super) fn use_tables(&self) {
        self.singly.set(TABLES_AFTER);
    }

    /// Whether the tables of whole lead bytes (`lead_rows`, 4,096 characters each) pay for a
    /// chunk of `len` bytes: a large chunk, or a run that asked many characters one by one.
    pub(super) fn tables_pay(&self, len: usize) -> bool {
        len >= TABLES_MIN || self.singly.get() >= TABLES_AFTER
    }

    /// The entries of the 64 characters from `first` (a multiple of 64, at most U+10FFC0; past
    /// that, from bytes changed under the reader, those of the last page).
    #[inline]
    pub(super) fn row64(&self, first: u32) -> &[u8; 64] {
        let page = self.page(((first >> 8) as usize).min(PAGES - 1));
        page[(first & 0xc0) as usize..][..64].try_into().expect("64 entries")
    }

    /// One character's width (`WIDTH_BITS` of its entry) from the C library, not asking if a space: `wcwidth` alone,
    /// as GNU 9.12 does (9.1 asked `iswprint` first; docs/COMPATIBILITY.md: where they were checked to agree).
    fn width(wc: u32) -> u8 {
        platform::char_width(wc).clamp(0, 3) as u8
    }

    /// The widths of the 64 rows of 64 characters from `first` (a multiple of 4,096): a common
    /// width's `ROW_WIDTH_BITS`, or `ROW_MIXED`. From the page if made, else the C library.
    pub(super) fn rows_of(&self, first: u32) -> Box<[u8; 64]> {
        Box::new(std::array::from_fn(|k| {
            let row = first | ((k as u32) << 6);
            let page = self.made_page(row);
            let width = |i: u32| match page {
                Some(page) => page[((row | i) & 0xff) as usize] & WIDTH_BITS,
                None => Self::width(row | i),
            };
            let common = width(0);
            if (1..64).all(|i| width(i) == common) { if common == 2 { 0b011 } else { common } } else { ROW_MIXED }
        }))
    }

    /// The widths of the rows the three-byte lead `lead` begins, by the second byte's low six bits.
    pub(super) fn lead_rows(&self, lead: u8) -> &[u8; 64] {
        self.lead_rows[usize::from(lead & 0x0f)].get_or_init(|| self.rows_of(u32::from(lead & 0x0f) << 12))
    }

    /// [`Self::lead_rows()`] for four-byte forms (`lead` F0..=F4, then `second`), by the third byte's low six bits.
    pub(super) fn region_rows(&self, lead: u8, second: u8) -> &[u8; 64] {
        let index = usize::from(lead & 0x07) * 64 + usize::from(second & 0x3f);
        let cells = self.region_rows.get_or_init(|| (0..8 * 64).map(|_| OnceCell::new()).collect());
        cells[index].get_or_init(|| self.rows_of((u32::from(lead & 0x07) << 18) | (u32::from(second & 0x3f) << 12)))
    }
}

/// Character classes of single bytes (all in a single-byte locale, ASCII in a multibyte one), from the C library.
pub struct ByteClasses {
    pub(super) space: [bool; 256],
    pub(super) print: [bool; 256],
    /// `space` is exactly {TAB, LF, VT, FF, CR, SPACE} plus `space_high`, so the block path's SIMD mask stands for it.
    pub(super) standard_spaces: bool,
    /// A single-byte locale's one word-separating byte above 0x7f, if any (its no-break space: 0xA0 in C and Latin-1).
    pub(super) space_high: Option<u8>,
    /// `print` is exactly 0x20..=0x7e among ASCII bytes: -L's block path can assume width 1.
    pub(super) standard_print: bool,
    /// No byte above 0x7f is printable (single-byte locales such as C).
    pub(super) high_unprintable: bool,
    pub(super) wide: WideClasses,
    /// The multibyte word separators of a UTF-8 locale as byte patterns, made on first use.
    pub(super) utf8_spaces: OnceCell<Option<BytePatterns>>,
    pub(super) narrow_below_u1000: OnceCell<bool>,
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

    /// Whether no character below U+1000 is wider than one column in this C library (in Unicode
    /// none is), as -L's tight bound assumes. Asked once, for a large chunk: its pages are made.
    pub(super) fn narrow_below_u1000(&self) -> bool {
        let narrow = |wc: usize| self.wide.page(wc >> 8)[wc & 0xff] & WIDTH_BITS <= 1;
        *self.narrow_below_u1000.get_or_init(|| (0x80..0x1000).all(narrow))
    }

    /// This locale's multibyte white space as byte patterns (`utf8::utf8_spaces`), if they fit.
    pub(super) fn utf8_spaces(&self) -> Option<&BytePatterns> {
        self.utf8_spaces.get_or_init(|| utf8::utf8_spaces(|cp| self.wide.classify(cp) & SPACE_BIT != 0)).as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Another writer may change a mapped byte between wc's UTF-8 check and its look-ups: every
    /// lead and second byte, valid or not, finds its tables, none indexed past its end.
    #[test]
    fn any_bytes_find_a_row_table() {
        let wide = WideClasses::new(false);
        for lead in 0..=255u8 {
            let _ = wide.lead_rows(lead);
            for second in 0..=255u8 {
                let _ = wide.region_rows(lead, second);
            }
        }
        // Past U+10FFFF: the last page's entries.
        assert_eq!(wide.row64(0x1f_ffc0), wide.row64(0x10_ffc0));
    }

    /// The tables of whole leads hold the C library's widths (GNU 9.12's `c32width`, 0 below one,
    /// 2 as 0b011), one a row of 64 characters or mixed: every three-byte form and the emoji's
    /// region, with a page made in the middle (whose row is answered from it).
    #[test]
    fn lead_tables_hold_the_c_librarys_widths() {
        let gnu = |wc: u32| platform::char_width(wc).clamp(0, 3) as u8;
        let wide = WideClasses::new(false);
        wide.page(0x4e);
        let tables = (0xe0..=0xefu8).map(|lead| (u32::from(lead & 0x0f) << 12, wide.lead_rows(lead)));
        for (first, rows) in tables.chain([(0x1f000, wide.region_rows(0xf0, 0x9f))]) {
            for (k, &entry) in rows.iter().enumerate() {
                let row = first | (k as u32) << 6;
                let widths: Vec<u8> = (row..row + 64).map(gnu).collect();
                let expected = match widths[0] {
                    _ if widths.iter().any(|&w| w != widths[0]) => ROW_MIXED,
                    2 => 0b011,
                    width => width,
                };
                assert_eq!(entry, expected, "U+{row:04X}");
            }
        }
    }
}
