//! How each byte shows: a table of [`Shown`] per set of options, made from the one definition
//! (`platform::simd::notation::shown`), and which bytes a mapping looks up ([`Marked`]).

use crate::platform::Changing;
use crate::platform::simd::notation::shown;
use crate::platform::simd::{Block64, Masks};

/// How one byte shows: up to four bytes (`M-^X`) in the low half, always stored as four, and how
/// many count, less one, in the top byte (one load in the mapping, a shift known below 256).
#[derive(Clone, Copy)]
pub(super) struct Shown(u64);

impl Shown {
    const fn new(bytes: [u8; 4], len: usize) -> Shown {
        Shown(u32::from_le_bytes(bytes) as u64 | ((len as u64 - 1) << 56))
    }

    pub(super) const fn plain(byte: u8) -> Shown {
        Shown::new([byte, 0, 0, 0], 1)
    }

    #[inline(always)]
    pub(super) fn bytes(self) -> [u8; 4] {
        (self.0 as u32).to_le_bytes()
    }

    #[inline(always)]
    pub(super) fn len(self) -> usize {
        self.grow() + 1
    }

    /// How many more bytes than one the notation takes.
    #[inline(always)]
    pub(super) fn grow(self) -> usize {
        (self.0 >> 56) as usize
    }
}

/// Every byte's [`Shown`] under one set of options.
pub(super) type Table = [Shown; 256];

const fn table(nonprinting: bool, tabs: bool, ends: bool) -> Table {
    let mut table = [Shown(0); 256];
    let mut b = 0;
    while b < 256 {
        let (bytes, len) = shown(b as u8, nonprinting, tabs, ends);
        table[b] = Shown::new(bytes, len);
        b += 1;
    }
    table
}

/// The tables by options: index `nonprinting << 2 | tabs << 1 | ends`.
static TABLES: [Table; 8] = [
    table(false, false, false),
    table(false, false, true),
    table(false, true, false),
    table(false, true, true),
    table(true, false, false),
    table(true, false, true),
    table(true, true, false),
    table(true, true, true),
];

/// Which bytes a mapping (`map::map`) looks up in its table; every other byte is copied as is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marked {
    /// -v: control bytes (TAB, LF too), DEL, bytes above 127; TAB as `^I` with `tabs`, LF as `$` LF with `ends`.
    Nonprinting { tabs: bool, ends: bool },
    /// -T alone: TABs.
    Tabs,
    /// -E (and maybe -T): LFs, CRs just before a LF (GNU 9.12 shows CR LF as `^M$`, other CRs as is), with -T TABs.
    Ends { tabs: bool },
}

impl Marked {
    #[inline(always)]
    pub(super) fn table(self) -> &'static Table {
        let (nonprinting, tabs, ends) = match self {
            Marked::Nonprinting { tabs, ends } => (true, tabs, ends),
            Marked::Tabs => (false, true, false),
            Marked::Ends { tabs } => (false, tabs, true),
        };
        &TABLES[usize::from(nonprinting) << 2 | usize::from(tabs) << 1 | usize::from(ends)]
    }

    /// The bits of `block`'s bytes to look up; `lf_next`: the byte after the block is a LF.
    #[inline(always)]
    pub(super) fn mask<B: Block64>(self, m: Masks<B>, block: Changing<'_, [u8; 64]>, lf_next: bool) -> u64 {
        match self {
            Marked::Nonprinting { .. } => m.control_or_high(block),
            Marked::Tabs => m.eq(block, b'\t'),
            Marked::Ends { tabs } => {
                let lf = m.eq(block, b'\n');
                let cr_lf = m.eq(block, b'\r') & (lf >> 1 | u64::from(lf_next) << 63);
                lf | cr_lf | if tabs { m.eq(block, b'\t') } else { 0 }
            }
        }
    }

    /// How `input[at]` shows, looked up in `table` (this one's) or not (the byte-by-byte loops).
    #[inline(always)]
    pub(super) fn shown(self, table: &Table, input: Changing<'_>, at: usize) -> Shown {
        let b = input.byte(at);
        match self {
            Marked::Ends { .. } if b == b'\r' && input.get(at + 1) != Some(b'\n') => Shown::plain(b'\r'),
            _ => table[usize::from(b)],
        }
    }
}
