//! `cat`'s formatting options (-b -E -n -s -T -v and their combinations -A -e -t) as a state
//! machine over large chunks: line ends and the bytes `-v` shows come from the masks of 64-byte
//! blocks (`platform::simd`; `memchr` finds them in a chunk's last partial block, and TABs for
//! `-T` with `-n`, `-b` or `-s`), runs of bytes that need no change are copied in bulk, and the
//! state (line number, blank-line run, a pending CR) carries over from chunk to chunk and from
//! file to file exactly as in GNU's `cat`.

use crate::platform;
use crate::platform::simd::{Block64, Masks, Notation, WithMasks};
use memchr::memchr;

/// Which formatting options are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// -n or -b.
    pub number: bool,
    /// -b: empty lines get no number.
    pub number_nonblank: bool,
    /// -s.
    pub squeeze_blank: bool,
    /// -E.
    pub show_ends: bool,
    /// -T.
    pub show_tabs: bool,
    /// -v.
    pub show_nonprinting: bool,
}

impl Options {
    pub fn any(&self) -> bool {
        self.number || self.squeeze_blank || self.show_ends || self.show_tabs || self.show_nonprinting
    }
}

/// GNU's line counter: ASCII digits incremented in place, printed right-aligned in six columns
/// and followed by a TAB; it widens past 999999 and, past 18 digits, shows `>` in front, as
/// GNU's `next_line_num` does.
///
/// The last seven digit cells and the TAB live in one 64-bit word (`low`, little-endian), so
/// that counting and printing a number of up to seven digits are a few register operations and
/// one 8-byte store: byte writes followed by an 8-byte load of the same bytes would stall on
/// every line, as a load that spans several pending stores cannot be forwarded from them.
#[derive(Clone)]
pub struct LineCounter {
    /// Cells 0..LOW (the high digits; written only by `carry`), then room so that 16 bytes can
    /// be copied from any print start; cells LOW.. are stale except inside `carry`/`advance`.
    head: [u8; HEAD_LEN],
    /// Cells LOW..LOW + 7 (digits) and the TAB.
    low: u64,
    print_start: usize,
    digit_start: usize,
}

/// The cell of the units digit: cells 0..=17 hold up to 18 digits, the most GNU's
/// `next_line_num` widens to before it shows `>` in front.
const COUNTER_DIGIT_END: usize = 17;
/// Numbers are right-aligned in six columns, as GNU's initial `"     0\t"`.
const NUMBER_WIDTH: usize = 6;
/// The first cell held in `LineCounter::low`.
const LOW: usize = COUNTER_DIGIT_END - 6;
/// Where the last digit sits in `LineCounter::low`.
const LAST_DIGIT_SHIFT: u32 = 48;
/// `LineCounter::head`'s length: a 16-byte copy from any print start below LOW (numbers of
/// eight digits and more, see `put_at`) stays inside it.
const HEAD_LEN: usize = LOW + 16;

impl Default for LineCounter {
    fn default() -> Self {
        let mut head = [b' '; HEAD_LEN];
        head[COUNTER_DIGIT_END] = b'0';
        head[COUNTER_DIGIT_END + 1] = b'\t';
        let low = u64::from_le_bytes(head[LOW..LOW + 8].try_into().unwrap());
        LineCounter { head, low, print_start: COUNTER_DIGIT_END + 1 - NUMBER_WIDTH, digit_start: COUNTER_DIGIT_END }
    }
}

impl LineCounter {
    /// Advances to the next number.
    #[inline(always)]
    fn step(&mut self) {
        let next = self.low + (1 << LAST_DIGIT_SHIFT);
        if (next >> LAST_DIGIT_SHIFT) as u8 <= b'9' {
            self.low = next;
            return;
        }
        // 9 -> 0 and a carry into a ten's digit below 9: nine times in ten, still in registers.
        let tens = (next >> (LAST_DIGIT_SHIFT - 8)) as u8;
        if (b'0'..=b'8').contains(&tens) {
            self.low = next - (10 << LAST_DIGIT_SHIFT) + (1 << (LAST_DIGIT_SHIFT - 8));
            return;
        }
        self.carry();
    }

    /// The ten's digit is 9 or the number widens: GNU's carry, cell by cell.
    #[cold]
    #[inline(never)]
    fn carry(&mut self) {
        let mut buf = self.head;
        buf[LOW..LOW + 8].copy_from_slice(&self.low.to_le_bytes());
        let mut pos = COUNTER_DIGIT_END;
        let widened = loop {
            let digit = buf[pos];
            buf[pos] = digit.wrapping_add(1);
            if digit < b'9' {
                break false;
            }
            buf[pos] = b'0';
            if pos == self.digit_start {
                break true;
            }
            pos -= 1;
        };
        if widened {
            if self.digit_start > 0 {
                self.digit_start -= 1;
                buf[self.digit_start] = b'1';
            } else {
                buf[0] = b'>';
            }
            self.print_start = self.print_start.min(self.digit_start);
        }
        self.low = u64::from_le_bytes(buf[LOW..LOW + 8].try_into().unwrap());
        self.head = buf;
    }

    /// Advances to the next number and returns it as printed (`"     1\t"`): the tests' view
    /// (the formatter writes numbers with `put_at`).
    #[cfg(test)]
    pub fn advance(&mut self) -> &[u8] {
        self.step();
        self.head[LOW..LOW + 8].copy_from_slice(&self.low.to_le_bytes());
        &self.head[self.print_start..COUNTER_DIGIT_END + 2]
    }

    /// Advances, and writes the number at `data[at..]` (up to 24 bytes may be written, the
    /// ones past the number to be overwritten by what follows); returns where it ends.
    #[inline(always)]
    fn put_at(&mut self, data: &mut [u8], at: usize) -> usize {
        self.step();
        let len = COUNTER_DIGIT_END + 2 - self.print_start;
        if self.print_start >= LOW && at + 8 <= data.len() {
            let word = self.low >> (8 * (self.print_start - LOW));
            data[at..at + 8].copy_from_slice(&word.to_le_bytes());
        } else if at + 24 <= data.len() {
            let head = LOW - self.print_start;
            data[at..at + 16].copy_from_slice(&self.head[self.print_start..self.print_start + 16]);
            data[at + head..at + head + 8].copy_from_slice(&self.low.to_le_bytes());
        } else {
            let mut all = self.head;
            all[LOW..LOW + 8].copy_from_slice(&self.low.to_le_bytes());
            data[at..at + len].copy_from_slice(&all[self.print_start..self.print_start + len]);
        }
        at + len
    }

    /// Advances, and appends the number to `out`.
    #[inline(always)]
    fn put_next(&mut self, out: &mut OutBuf) {
        out.len = self.put_at(&mut out.data, out.len);
    }
}

/// Output space written by index: initialised once, so no per-byte capacity checks or
/// zero-filling happen in the hot loops. `feed` needs room for the worst case of its input
/// (see [`OutBuf::room_for`]); the caller writes the contents out and clears it between chunks.
pub struct OutBuf {
    data: Vec<u8>,
    len: usize,
}

/// Short runs are copied as whole blocks of this size (one inlined copy instead of a call to
/// memmove per line); the bytes past the run's end are overwritten by what follows.
const OVERCOPY: usize = 64;

/// The most one input byte can become: a LF with a widest line number and `$` (19 + 2 bytes),
/// or `M-^X` (4 bytes), plus the `^M` of a CR held back from the previous chunk.
const WORST_EXPANSION: usize = 21;

impl OutBuf {
    /// Room for `pending` bytes already formatted plus the worst case of `chunk` input bytes.
    pub fn room_for(pending: usize, chunk: usize) -> OutBuf {
        OutBuf { data: vec![0; pending + chunk * WORST_EXPANSION + 2 + OVERCOPY], len: 0 }
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.data[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Drops what was formatted past `len` bytes.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    #[inline(always)]
    fn put(&mut self, bytes: &[u8]) {
        self.data[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    /// Appends `src[at..at + len]` (see [`put_run_at`]).
    #[inline(always)]
    fn put_run(&mut self, src: &[u8], at: usize, len: usize) {
        self.len = put_run_at(&mut self.data, self.len, src, at, at + len);
    }

    /// Appends a byte's -v notation (see [`put_shown_at`]).
    #[inline(always)]
    fn put_shown(&mut self, shown: Shown) {
        self.len = put_shown_at(&mut self.data, self.len, shown);
    }

    #[inline(always)]
    fn push(&mut self, byte: u8) {
        self.data[self.len] = byte;
        self.len += 1;
    }
}

/// The state that carries across chunks and files.
#[derive(Clone)]
pub struct Formatter {
    opts: Options,
    /// GNU's `newlines`: -1 inside a line, 0 at the start of a line, 1 after one empty line,
    /// 2 after two or more.
    newlines: i32,
    /// -E without -v: a CR ended the last chunk; it prints as `^M` if a LF follows, else as is.
    pending_cr: bool,
    counter: LineCounter,
}

/// [`Formatter::feed`]'s work, run with the masks of a kernel.
struct Feed<'f, 'i, 'o>(&'f mut Formatter, &'i [u8], &'o mut OutBuf);

impl WithMasks for Feed<'_, '_, '_> {
    type Output = ();
    #[inline(always)]
    fn run<B: Block64>(self, masks: Masks<B>) {
        self.0.feed_with(masks, self.1, self.2);
    }
}

/// How one byte prints under -v: up to four bytes (`M-^X`) in the low half, always stored as
/// four, and how many of them count less one in the top byte (one load in the slot loop,
/// and a shift the compiler knows to be below 256).
#[derive(Clone, Copy)]
struct Shown(u64);

impl Shown {
    const fn new(bytes: [u8; 4], len: usize) -> Shown {
        Shown(u32::from_le_bytes(bytes) as u64 | ((len as u64 - 1) << 56))
    }

    #[inline(always)]
    fn bytes(self) -> [u8; 4] {
        (self.0 as u32).to_le_bytes()
    }

    #[inline(always)]
    fn len(self) -> usize {
        self.grow() + 1
    }

    /// How many more bytes than one the notation takes.
    #[inline(always)]
    fn grow(self) -> usize {
        (self.0 >> 56) as usize
    }
}

/// The -v notation of every byte (LF is handled by the caller); TAB as `^I` if `show_tabs`,
/// else as itself.
const fn notation(show_tabs: bool) -> [Shown; 256] {
    let mut table = [Shown(0); 256];
    let mut b = 0;
    while b < 256 {
        let mut out = [0u8; 4];
        let mut len = 0;
        let mut c = b;
        if c >= 128 {
            out[0] = b'M';
            out[1] = b'-';
            len = 2;
            c -= 128;
        }
        if c < 32 || c == 127 {
            // `^@`..`^_`, and DEL as `^?`: the character with bit 6 flipped.
            out[len] = b'^';
            out[len + 1] = c as u8 ^ 64;
            len += 2;
        } else {
            out[len] = c as u8;
            len += 1;
        }
        table[b] = Shown::new(out, len);
        b += 1;
    }
    if !show_tabs {
        table[b'\t' as usize] = Shown::new([b'\t', 0, 0, 0], 1);
    }
    table
}

static NOTATION_TABS_SHOWN: [Shown; 256] = notation(true);
static NOTATION_TABS_KEPT: [Shown; 256] = notation(false);

/// The same tables with LF as itself or as `$` LF (-E): with -v and no line numbers or
/// squeezing, formatting is a plain byte-to-bytes mapping of the whole chunk.
const fn with_newline(mut table: [Shown; 256], show_ends: bool) -> [Shown; 256] {
    table[b'\n' as usize] =
        if show_ends { Shown::new([b'$', b'\n', 0, 0], 2) } else { Shown::new([b'\n', 0, 0, 0], 1) };
    table
}

static MAP_TABS_ENDS: [Shown; 256] = with_newline(notation(true), true);
static MAP_TABS: [Shown; 256] = with_newline(notation(true), false);
static MAP_ENDS: [Shown; 256] = with_newline(notation(false), true);
static MAP_PLAIN: [Shown; 256] = with_newline(notation(false), false);

/// Without -v: every byte as itself, but TAB as `^I` (-T), LF as `$` LF and CR as `^M` (-E;
/// only a CR just before a LF is looked up, see [`Marked::Ends`]).
const fn visible(show_tabs: bool, show_ends: bool) -> [Shown; 256] {
    let mut table = [Shown(0); 256];
    let mut b = 0;
    while b < 256 {
        table[b] = Shown::new([b as u8, 0, 0, 0], 1);
        b += 1;
    }
    if show_tabs {
        table[b'\t' as usize] = Shown::new([b'^', b'I', 0, 0], 2);
    }
    if show_ends {
        table[b'\n' as usize] = Shown::new([b'$', b'\n', 0, 0], 2);
        table[b'\r' as usize] = Shown::new([b'^', b'M', 0, 0], 2);
    }
    table
}

static VISIBLE_TABS: [Shown; 256] = visible(true, false);
static VISIBLE_ENDS: [Shown; 256] = visible(false, true);
static VISIBLE_TABS_ENDS: [Shown; 256] = visible(true, true);

/// Which bytes a byte-to-bytes mapping (`map_bytes`) looks up in its table; every other byte is
/// copied as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Marked {
    /// -v: control bytes (TAB and LF among them), DEL, and bytes above 127; TAB shown as `^I`
    /// with `tabs`, LF as `$` LF with `ends` (which the table says too).
    Nonprinting { tabs: bool, ends: bool },
    /// -T alone: TABs.
    Tabs,
    /// -E, with -T or without: LFs, each CR just before a LF (GNU 9.12 shows CR LF as `^M$`,
    /// any other CR as itself), and with -T TABs.
    Ends { tabs: bool },
}

impl Marked {
    /// The bits of `block`'s bytes to look up; `lf_next`: the byte after the block is a LF.
    #[inline(always)]
    fn mask<B: Block64>(self, m: Masks<B>, block: &[u8; 64], lf_next: bool) -> u64 {
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

    /// How `input[at]` shows, looked up or not (the loops that go byte by byte).
    #[inline(always)]
    fn shown(self, table: &[Shown; 256], input: &[u8], at: usize) -> Shown {
        let b = input[at];
        match self {
            Marked::Ends { .. } if b == b'\r' && input.get(at + 1) != Some(&b'\n') => Shown::new([b'\r', 0, 0, 0], 1),
            _ => table[usize::from(b)],
        }
    }
}

impl Formatter {
    pub fn new(opts: Options) -> Formatter {
        Formatter { opts, newlines: 0, pending_cr: false, counter: LineCounter::default() }
    }

    /// Formats `input` (any chunk of a file) onto the end of `out`, which must have room for
    /// it (`OutBuf::room_for`). Runs with the best block masks, compiled for their
    /// instruction set (see `platform::simd::with_best_masks`).
    pub fn feed(&mut self, input: &[u8], out: &mut OutBuf) {
        platform::simd::with_best_masks(Feed(self, input, out));
    }

    #[inline(always)]
    fn feed_with<B: Block64>(&mut self, m: Masks<B>, input: &[u8], out: &mut OutBuf) {
        assert!(out.data.len() - out.len >= input.len() * WORST_EXPANSION + 2, "OutBuf too small");
        // A CR held back at the end of the last chunk (-E without -v, whichever loop held it):
        // `^M` before a LF, else itself.
        if self.pending_cr && !input.is_empty() {
            self.pending_cr = false;
            out.put(if input[0] == b'\n' { b"^M" } else { b"\r" });
        }
        if self.opts.show_nonprinting && !self.opts.number && !self.opts.squeeze_blank {
            // No line state is needed: a byte-to-bytes mapping (the common -A, -v, -e, -t).
            let table = match (self.opts.show_tabs, self.opts.show_ends) {
                (true, true) => &MAP_TABS_ENDS,
                (true, false) => &MAP_TABS,
                (false, true) => &MAP_ENDS,
                (false, false) => &MAP_PLAIN,
            };
            // Where the kernel writes whole blocks' notation (`Masks::notation_blocks`; some
            // CPUs only), it does all it can and the table maps the rest.
            let room = &mut out.data[out.len..];
            let (done, written) = if m.families().notation == Notation::Permutes {
                m.notation(input, self.opts.show_tabs, self.opts.show_ends, room)
            } else {
                (0, 0)
            };
            out.len += written;
            let marked = Marked::Nonprinting { tabs: self.opts.show_tabs, ends: self.opts.show_ends };
            map_bytes(m, &input[done..], table, marked, out);
            return;
        }
        if (self.opts.show_tabs || self.opts.show_ends)
            && !self.opts.show_nonprinting
            && !self.opts.number
            && !self.opts.squeeze_blank
        {
            // -T, -E or both, no line state: a mapping too, of the few bytes they show.
            if !self.opts.show_ends {
                map_bytes(m, input, &VISIBLE_TABS, Marked::Tabs, out);
                return;
            }
            // A CR at the chunk's end waits for the next byte.
            let mut input = input;
            if let Some((b'\r', rest)) = input.split_last() {
                input = rest;
                self.pending_cr = true;
            }
            let tabs = self.opts.show_tabs;
            let table = if tabs { &VISIBLE_TABS_ENDS } else { &VISIBLE_ENDS };
            map_bytes(m, input, table, Marked::Ends { tabs }, out);
            return;
        }
        if self.opts.show_nonprinting {
            self.feed_nonprinting(m, input, out);
            return;
        }
        if self.opts == (Options { number: true, ..Options::default() }) {
            self.feed_numbered(m, input, out);
            return;
        }
        // Line ends come from a bit mask per 64-byte block (compiled to SIMD compares), which
        // costs far less per line than a memchr call for each of many short lines.
        let mut start = 0;
        let mut blocks = input.chunks_exact(64);
        let mut base = 0;
        for block in &mut blocks {
            platform::simd::prefetch_ahead(input, base);
            let mut mask = m.eq(block.try_into().unwrap(), b'\n');
            while mask != 0 {
                let end = base + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                if end > start {
                    self.content(input, start, end, true, out);
                }
                self.newline(out);
                start = end + 1;
            }
            base += 64;
        }
        for end in memchr::memchr_iter(b'\n', blocks.remainder()).map(|p| base + p) {
            if end > start {
                self.content(input, start, end, true, out);
            }
            self.newline(out);
            start = end + 1;
        }
        if start < input.len() {
            self.content(input, start, input.len(), false, out);
        }
    }

    /// -n alone: each line (its LF included) is one copy after its number. The output length
    /// and the line-start state live in locals for the whole chunk.
    #[inline(always)]
    fn feed_numbered<B: Block64>(&mut self, m: Masks<B>, input: &[u8], out: &mut OutBuf) {
        let mut at_start = self.newlines >= 0;
        let mut len = out.len;
        let mut start = 0;
        let full = input.len() / 64 * 64;
        for base in (0..full).step_by(64) {
            platform::simd::prefetch_ahead(input, base);
            let mut mask = m.eq(input[base..base + 64].try_into().unwrap(), b'\n');
            while mask != 0 {
                let end = base + mask.trailing_zeros() as usize + 1;
                mask &= mask - 1;
                if at_start {
                    len = self.counter.put_at(&mut out.data, len);
                }
                len = put_run_at(&mut out.data, len, input, start, end);
                start = end;
                at_start = true;
            }
        }
        for end in memchr::memchr_iter(b'\n', &input[full..]).map(|p| full + p + 1) {
            if at_start {
                len = self.counter.put_at(&mut out.data, len);
            }
            len = put_run_at(&mut out.data, len, input, start, end);
            start = end;
            at_start = true;
        }
        if start < input.len() {
            if at_start {
                len = self.counter.put_at(&mut out.data, len);
            }
            len = put_run_at(&mut out.data, len, input, start, input.len());
            at_start = false;
        }
        out.len = len;
        self.newlines = if at_start { 0 } else { -1 };
    }

    /// -v (with any other options): one pass over the chunk in 64-byte blocks. A block's mask
    /// of bytes that need notation (LF among them) splits it into runs copied as they are and
    /// single bytes: LF ends a line (numbering, squeezing, `$`), the others go through the table
    /// (written as four bytes of which `len` count). The short last block is padded with spaces,
    /// which need no notation, in a local copy with room for the over-long copies of `put_run`.
    #[inline(always)]
    fn feed_nonprinting<B: Block64>(&mut self, m: Masks<B>, input: &[u8], out: &mut OutBuf) {
        let full = input.len() / 64 * 64;
        for base in (0..full).step_by(64) {
            platform::simd::prefetch_ahead(input, base);
            self.nonprinting_block(m, input, base, 64, out);
        }
        if full < input.len() {
            let rest = &input[full..];
            let mut padded = [b' '; 128];
            padded[..rest.len()].copy_from_slice(rest);
            self.nonprinting_block(m, &padded, 0, rest.len(), out);
        }
    }

    /// Bytes `src[base..base + len]` (within one 64-byte block) under -v.
    #[inline(always)]
    fn nonprinting_block<B: Block64>(&mut self, m: Masks<B>, src: &[u8], base: usize, len: usize, out: &mut OutBuf) {
        let table = if self.opts.show_tabs { &NOTATION_TABS_SHOWN } else { &NOTATION_TABS_KEPT };
        let mut mask = m.control_or_high(src[base..base + 64].try_into().unwrap());
        if len < 64 {
            mask &= (1u64 << len) - 1;
        }
        let mut done = base;
        while mask != 0 {
            let at = base + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if at > done {
                self.start_content(out);
                out.put_run(src, done, at - done);
            }
            if src[at] == b'\n' {
                self.newline(out);
            } else {
                self.start_content(out);
                out.put_shown(table[src[at] as usize]);
            }
            done = at + 1;
        }
        if base + len > done {
            self.start_content(out);
            out.put_run(src, done, base + len - done);
        }
    }

    /// Before content: a line that starts here gets its number.
    #[inline(always)]
    fn start_content(&mut self, out: &mut OutBuf) {
        if self.newlines >= 0 {
            if self.opts.number {
                self.counter.put_next(out);
            }
            self.newlines = -1;
        }
    }

    /// Line content `input[start..end]` (no LF), numbered if it starts a line.
    #[inline(always)]
    fn content(&mut self, input: &[u8], start: usize, end: usize, ends_line: bool, out: &mut OutBuf) {
        self.start_content(out);
        let needs_work = self.opts.show_tabs || (self.opts.show_ends && input[end - 1] == b'\r');
        if !needs_work {
            // The common case: the run as it is.
            out.put_run(input, start, end - start);
            return;
        }
        self.line_body(&input[start..end], ends_line, out);
    }

    /// Ends the output of the last file: a CR held back in case a LF followed prints as is.
    pub fn finish(&mut self, out: &mut OutBuf) {
        if self.pending_cr {
            self.pending_cr = false;
            out.push(b'\r');
        }
    }

    #[inline(always)]
    fn newline(&mut self, out: &mut OutBuf) {
        self.newlines += 1;
        if self.newlines > 0 {
            if self.newlines >= 2 {
                self.newlines = 2;
                if self.opts.squeeze_blank {
                    return;
                }
            }
            if self.opts.number && !self.opts.number_nonblank {
                self.counter.put_next(out);
            }
        }
        if self.opts.show_ends {
            out.put(b"$\n");
        } else {
            out.push(b'\n');
        }
    }

    /// A run of line content (no LF); `ends_line` when a LF follows it in this chunk.
    #[inline]
    fn line_body(&mut self, body: &[u8], ends_line: bool, out: &mut OutBuf) {
        // GNU 9.12: with -E, CR LF shows as ^M$ (also when the LF comes in a later read).
        let (body, cr) = match body.split_last() {
            Some((b'\r', rest)) if self.opts.show_ends => (rest, true),
            _ => (body, false),
        };
        if self.opts.show_tabs {
            let mut rest = body;
            while let Some(p) = memchr(b'\t', rest) {
                out.put(&rest[..p]);
                out.put(b"^I");
                rest = &rest[p + 1..];
            }
            out.put(rest);
        } else {
            out.put(body);
        }
        if cr {
            if ends_line {
                out.put(b"^M");
            } else {
                self.pending_cr = true;
            }
        }
    }
}

/// Writes `src[start..end]` at `data[at..]` in whole 64-byte blocks where both sides have room
/// (the bytes past `end` are overwritten by what follows); returns where it ends.
#[inline(always)]
fn put_run_at(data: &mut [u8], at: usize, src: &[u8], start: usize, end: usize) -> usize {
    let len = end - start;
    if len <= OVERCOPY && start + OVERCOPY <= src.len() && at + OVERCOPY <= data.len() {
        data[at..at + OVERCOPY].copy_from_slice(&src[start..start + OVERCOPY]);
        return at + len;
    }
    let whole = len.div_ceil(OVERCOPY) * OVERCOPY;
    if start + whole <= src.len() && at + whole <= data.len() {
        for (to, from) in
            data[at..at + whole].chunks_exact_mut(OVERCOPY).zip(src[start..start + whole].chunks_exact(OVERCOPY))
        {
            to.copy_from_slice(from);
        }
    } else {
        data[at..at + len].copy_from_slice(&src[start..end]);
    }
    at + len
}

/// The output slot of one 64-byte block in `map_block`: where a notation may start, below
/// 128 (a slot with more than 16 bytes to notate goes byte by byte), plus 1 + 255 (as far as
/// the compiler knows a notation's length), plus the 64 bytes a copy writes.
const SLOT: usize = 128 + 256 + 64;

/// Steps of `map_block` between two tests of whether a block has bytes left.
const STEPS: usize = 4;

/// Maps every byte of `input` through `table`: a 64-byte block's mask of bytes that need
/// notation splits it into runs copied as they are and single bytes from the table.
#[inline(always)]
fn map_bytes<B: Block64>(m: Masks<B>, input: &[u8], table: &[Shown; 256], marked: Marked, out: &mut OutBuf) {
    // The output length is a local for the whole chunk (stores into `out.data` could otherwise
    // alias `out.len`, which would be reloaded after every one).
    let data = &mut out.data[..];
    let (mut done, mut len) = map_slots(m, input, table, marked, data, out.len);
    let full = input.len() / 64 * 64;
    for base in (done..full).step_by(64) {
        let lf_next = input.get(base + 64) == Some(&b'\n');
        let mut mask = marked.mask(m, input[base..base + 64].try_into().unwrap(), lf_next);
        while mask != 0 {
            let at = base + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            len = put_run_at(data, len, input, done, at);
            len = put_shown_at(data, len, table[input[at] as usize]);
            done = at + 1;
        }
    }
    len = put_run_at(data, len, input, done, full);
    for at in full..input.len() {
        len = put_shown_at(data, len, marked.shown(table, input, at));
    }
    out.len = len;
}

/// Input bytes of a stretch of `map_slots`. Four stretches and the 65 bytes read past the last
/// fit a 64 KiB chunk (cat's reads and mapped pieces), so that the loop over a stretch's blocks
/// ends four times a chunk.
const STRETCH: usize = 64 * 254;

/// A stretch's output window: its worst case (4 bytes a byte) rounded up to a power of two,
/// which the output offsets are taken modulo (one `and`, no division).
const WINDOW: usize = 1 << 16;

/// The blocks of `input` that 65 more bytes follow (which `map_slots` reads ahead), formatted
/// at `data[len..]`; returns how many input bytes it took and the new length.
///
/// A stretch of `STRETCH` bytes at a time, in a window of `data` of fixed size, so that no
/// block checks its slot's bounds or reloads their limits (on text, a twelfth of a block's
/// instructions); what is left, a block at a time.
#[inline(always)]
fn map_slots<B: Block64>(
    m: Masks<B>,
    input: &[u8],
    table: &[Shown; 256],
    marked: Marked,
    data: &mut [u8],
    mut len: usize,
) -> (usize, usize) {
    const { assert!(4 * STRETCH <= WINDOW) };
    let mut base = 0;
    if len + input.len() * 4 + SLOT > data.len() {
        return (0, len);
    }
    while base + STRETCH + 65 <= input.len() && len + WINDOW + SLOT <= data.len() {
        let src: &[u8; STRETCH + 65] = input[base..base + STRETCH + 65].try_into().unwrap();
        let window: &mut [u8; WINDOW + SLOT] = (&mut data[len..len + WINDOW + SLOT]).try_into().unwrap();
        let mut out = 0;
        for at in (0..STRETCH).step_by(64) {
            platform::simd::prefetch_ahead(input, base + at);
            // At most 4 * at: the `%` only shows the compiler that the slot fits the window.
            let to = out % WINDOW;
            let slot = (&mut window[to..to + SLOT]).try_into().unwrap();
            out = to + map_block(m, src[at..at + 129].try_into().unwrap(), table, marked, slot);
        }
        len += out;
        base += STRETCH;
    }
    while base + 129 <= input.len() {
        platform::simd::prefetch_ahead(input, base);
        let slot = (&mut data[len..len + SLOT]).try_into().unwrap();
        len += map_block(m, input[base..base + 129].try_into().unwrap(), table, marked, slot);
        base += 64;
    }
    (base, len)
}

/// The first 64 bytes of `src` formatted at the start of `dst`; returns the output's length.
///
/// The block is copied whole, and after each byte that needs notation its rest is copied
/// again further on (up to 65 bytes past the block are read, and written past the block's
/// output, to be overwritten). The steps go four at a time without a branch: a step after
/// the last byte (`at` 64) grows nothing and copies the block's end again. How many bytes a
/// block notates varies at random in text; a loop that stopped at the last one would
/// mispredict its exit nearly every block.
#[inline(always)]
fn map_block<B: Block64>(
    m: Masks<B>,
    src: &[u8; 129],
    table: &[Shown; 256],
    marked: Marked,
    dst: &mut [u8; SLOT],
) -> usize {
    let mut mask = marked.mask(m, src[..64].try_into().unwrap(), src[64] == b'\n');
    // Many bytes to notate under -v: the instruction set's kernel, whose cost is the same
    // for every block, where it has one (three rounds of steps and more cost it more).
    let kernel = match marked {
        Marked::Nonprinting { tabs, ends } if mask.count_ones() as usize > 2 * STEPS => {
            match m.notation(&src[..64], tabs, ends, &mut dst[..256]) {
                (64, written) => Some(written),
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(written) = kernel {
        return written;
    }
    if mask.count_ones() > 16 {
        // Mostly bytes that need notation (binary data, or many empty lines under -E):
        // byte by byte through the table, which maps the others to themselves, is cheaper
        // than a run copy per byte. (At most 4 * 63 bytes before the last: the `% 256` only
        // shows the compiler that each 4-byte store fits the slot.)
        let mut to = 0;
        for at in 0..64 {
            to = put_shown_at(dst, to % 256, marked.shown(table, src, at));
        }
        return to;
    }
    dst[..64].copy_from_slice(&src[..64]);
    // Output bytes so far beyond one per input byte: at most 3 * 16 (the `% 128` only
    // shows the compiler the bounds).
    let mut grown = 0usize;
    if mask != 0 {
        loop {
            for _ in 0..STEPS {
                let at = mask.trailing_zeros() as usize;
                mask &= mask.wrapping_sub(1);
                let shown = table[usize::from(src[at])];
                let to = (at + grown) % 128;
                dst[to..to + 4].copy_from_slice(&shown.bytes());
                // All ones while a byte is left, else none.
                let grow = shown.grow() & (at >> 6).wrapping_sub(1);
                grown += grow;
                debug_assert!(grown <= 3 * 16);
                let to = to + 1 + grow;
                dst[to..to + 64].copy_from_slice(&src[at + 1..at + 65]);
            }
            if mask == 0 {
                break;
            }
        }
    }
    64 + grown
}

/// Writes a byte's -v notation at `data[at..]` (four bytes written, `len` of them kept).
#[inline(always)]
fn put_shown_at(data: &mut [u8], at: usize, shown: Shown) -> usize {
    data[at..at + 4].copy_from_slice(&shown.bytes());
    at + shown.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GNU's `cat` loop over the whole input (see `gnu_model.rs`).
    fn reference(opts: Options, input: &[u8]) -> Vec<u8> {
        crate::cat::gnu_model::model(&opts, input)
    }

    fn all_options() -> Vec<Options> {
        (0..64u32)
            .map(|m| Options {
                number: m & 1 != 0 || m & 2 != 0,
                number_nonblank: m & 2 != 0,
                squeeze_blank: m & 4 != 0,
                show_ends: m & 8 != 0,
                show_tabs: m & 16 != 0,
                show_nonprinting: m & 32 != 0,
            })
            .collect()
    }

    fn run(opts: Options, chunks: &[&[u8]]) -> Vec<u8> {
        run_on(platform::simd::Kernel::best(), opts, chunks)
    }

    /// `run` with the masks of `kernel`.
    fn run_on(kernel: platform::simd::Kernel, opts: Options, chunks: &[&[u8]]) -> Vec<u8> {
        let mut f = Formatter::new(opts);
        let mut all = Vec::new();
        for c in chunks {
            let mut out = OutBuf::room_for(0, c.len());
            platform::simd::with_masks(kernel, Feed(&mut f, c, &mut out));
            all.extend_from_slice(out.as_slice());
        }
        let mut out = OutBuf::room_for(0, 0);
        f.finish(&mut out);
        all.extend_from_slice(out.as_slice());
        all
    }

    #[test]
    fn matches_bytewise_model_on_every_split() {
        let mut input: Vec<u8> = b"a\tb\r\n\n\n\nc\r\rd\n\r\n\x00\x7f\x80\xff\xa0 x\n\n".to_vec();
        input.extend(0..=255u8);
        input.extend_from_slice(b"\r");
        for opts in all_options() {
            let whole = reference(opts, &input);
            assert_eq!(run(opts, &[&input]), whole, "{opts:?}");
            for cut in 0..input.len() {
                let (a, b) = input.split_at(cut);
                assert_eq!(run(opts, &[a, b]), whole, "{opts:?} cut {cut}");
            }
        }
    }

    #[test]
    fn pseudo_random_inputs_match_model() {
        let kernels = crate::testing::kernels("cat::format::pseudo_random_inputs_match_model");
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1du64);
        for round in 0..300 {
            let len = (next() % 3000) as usize;
            let input: Vec<u8> = (0..len)
                .map(|_| match next() % 8 {
                    0 => b'\n',
                    1 => b'\r',
                    2 => b'\t',
                    3 => (next() % 256) as u8,
                    _ => b'a' + (next() % 26) as u8,
                })
                .collect();
            let cuts: Vec<usize> = (0..4).map(|_| (next() as usize) % (len + 1)).collect();
            let mut sorted = cuts.clone();
            sorted.sort();
            let mut chunks = Vec::new();
            let mut prev = 0;
            for c in sorted {
                chunks.push(&input[prev..c]);
                prev = c;
            }
            chunks.push(&input[prev..]);
            // Every kernel in turn (the masks split blocks differently in each).
            let kernel = kernels[round % kernels.len()];
            for opts in all_options() {
                assert_eq!(run_on(kernel, opts, &chunks), reference(opts, &input), "{kernel:?} {opts:?}");
            }
        }
    }

    /// `map_bytes` in every kernel (the whole-block notation of AVX-512 VBMI2 left aside, as on
    /// CPUs without it) against the table byte by byte (-v), or against what -T and -E show
    /// without it: inputs from no byte needing notation to all of them, at every length around
    /// the block and slot sizes.
    #[test]
    fn map_bytes_matches_the_table_in_every_kernel() {
        struct Map<'a>(&'a [u8], &'a [Shown; 256], Marked, &'a mut OutBuf);
        impl WithMasks for Map<'_> {
            type Output = ();
            #[inline(always)]
            fn run<B: Block64>(self, m: Masks<B>) {
                map_bytes(m, self.0, self.1, self.2, self.3);
            }
        }
        // -T and -E without -v, written out: TAB `^I`, LF `$` LF, CR `^M` just before a LF.
        let visible = |input: &[u8], tabs: bool, ends: bool| -> Vec<u8> {
            let mut out = Vec::new();
            for (at, &b) in input.iter().enumerate() {
                match b {
                    b'\t' if tabs => out.extend_from_slice(b"^I"),
                    b'\n' if ends => out.extend_from_slice(b"$\n"),
                    b'\r' if ends && input.get(at + 1) == Some(&b'\n') => out.extend_from_slice(b"^M"),
                    _ => out.push(b),
                }
            }
            out
        };
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15u64);
        let mut inputs = Vec::new();
        let lengths = (0..300).chain([383, 384, 385, 1000, 4096 + 7]);
        for (round, len) in lengths.enumerate() {
            // One byte in `1 << density` needs notation (none for the last density).
            let density = round % 7;
            let mut input = Vec::with_capacity(len);
            for _ in 0..len {
                let r = next();
                input.push(if r % 16 == 1 {
                    [b'\n', b'\t', 0, 0x7f, b'\r'][(r >> 8) as usize % 5]
                } else if density < 6 && (r >> 4) % (1 << density) == 0 {
                    (r >> 32) as u8 | 0x80
                } else {
                    b'a' + (r >> 40) as u8 % 26
                });
            }
            inputs.push((input, format!("length {len} density {density}")));
        }
        // Stretches of `map_slots` and what is left after them: every density in turn, 1000
        // bytes each, over three stretches and more.
        let mut input = Vec::new();
        for round in 0..3 * STRETCH / 1000 + 5 {
            let density = round % 7;
            input.extend((0..1000).map(|_| {
                let r = next();
                if density < 6 && r % (1 << density) == 0 {
                    (r >> 32) as u8 | 0x80
                } else {
                    b'a' + (r >> 40) as u8 % 26
                }
            }));
            input.push(if round % 2 == 0 { b'\n' } else { b'\t' });
        }
        inputs.push((input, "densities in turn".to_string()));
        // Blocks with each count of bytes to notate from none to 24, and 48 and 64 (the slot
        // loop steps four at a time and goes byte by byte above 16), at random places, the
        // block's first and last byte among them in turn; any byte value that needs notation.
        for shift in 0..3 {
            let mut input = vec![b'x'; shift];
            for count in (0..=24).chain([48, 64]).chain((0..=24).rev()) {
                let mut block = [b'a'; 64];
                let mut placed = 0;
                if count > 0 {
                    block[[0, 63, 31][count % 3]] = 0x80;
                    placed = 1;
                }
                while placed < count {
                    let at = next() as usize % 64;
                    if block[at] == b'a' {
                        let r = next() as u8;
                        block[at] = if r % 3 == 0 { r % 32 } else { r | 0x80 };
                        placed += 1;
                    }
                }
                input.extend_from_slice(&block);
            }
            inputs.push((input, format!("counted blocks after {shift} bytes")));
        }
        // Lines of every length from 0 to 70 (empty lines in a row: more than 16 LFs a block),
        // ending in LF or CR LF, with TABs and lone CRs, CR LF across every block boundary.
        for shift in 0..3 {
            let mut input = vec![b'x'; shift];
            for len in (0..70).chain((0..40).rev()) {
                input.extend((0..len).map(|i| match (i * 7 + len) % 11 {
                    0 => b'\t',
                    1 => b'\r',
                    _ => b'y',
                }));
                input.extend_from_slice(if len % 3 == 0 { b"\r\n" } else { b"\n" });
            }
            input.extend_from_slice(&[b'\n'; 100]);
            input.extend(b"\r\n".repeat(50));
            inputs.push((input, format!("lines after {shift} bytes")));
        }
        for (input, what) in &inputs {
            for (table, marked) in [
                (&MAP_TABS_ENDS, Marked::Nonprinting { tabs: true, ends: true }),
                (&MAP_TABS, Marked::Nonprinting { tabs: true, ends: false }),
                (&MAP_ENDS, Marked::Nonprinting { tabs: false, ends: true }),
                (&MAP_PLAIN, Marked::Nonprinting { tabs: false, ends: false }),
                (&VISIBLE_TABS, Marked::Tabs),
                (&VISIBLE_ENDS, Marked::Ends { tabs: false }),
                (&VISIBLE_TABS_ENDS, Marked::Ends { tabs: true }),
            ] {
                let want: Vec<u8> = match marked {
                    Marked::Nonprinting { .. } => input
                        .iter()
                        .flat_map(|&b| table[usize::from(b)].bytes()[..table[usize::from(b)].len()].to_vec())
                        .collect(),
                    Marked::Tabs => visible(input, true, false),
                    Marked::Ends { tabs } => visible(input, tabs, true),
                };
                for kernel in crate::testing::kernels("cat::format::map_bytes_matches_the_table_in_every_kernel") {
                    let mut out = OutBuf::room_for(3, input.len());
                    out.put(b"abc");
                    platform::simd::with_masks(kernel, Map(input, table, marked, &mut out));
                    assert_eq!(&out.as_slice()[..3], b"abc");
                    assert!(out.as_slice()[3..] == want[..], "{kernel:?} {marked:?} {what}");
                }
            }
        }
    }

    /// Small enough for Miri (which runs the SIMD masks the state machine splits blocks by):
    /// every option set, every split of a short input crossing a 64-byte block.
    #[test]
    fn short_input_every_split_every_option() {
        let mut input = b"a\tb\r\n\n\n\x00\x7f\x80\xff\r".to_vec();
        input.extend_from_slice(&[b'x'; 50]);
        input.extend_from_slice(b"\r\n\t\n");
        for opts in all_options() {
            let whole = reference(opts, &input);
            for cut in (0..=input.len()).step_by(if cfg!(miri) { 9 } else { 1 }) {
                let (a, b) = input.split_at(cut);
                assert_eq!(run(opts, &[a, b]), whole, "{opts:?} cut {cut}");
            }
        }
    }

    /// The counter as it stands after printing `n` (1 <= n < 10^18).
    fn counter_after(n: u64) -> LineCounter {
        let digits = n.to_string();
        let mut c = LineCounter::default();
        let first = COUNTER_DIGIT_END + 1 - digits.len();
        c.head[first..=COUNTER_DIGIT_END].copy_from_slice(digits.as_bytes());
        c.digit_start = first;
        c.print_start = first.min(12);
        c.low = u64::from_le_bytes(c.head[LOW..LOW + 8].try_into().unwrap());
        c
    }

    #[test]
    fn counter_writes_every_width_at_every_room() {
        let starts =
            [1, 7, 8, 9, 18, 98, 99, 989, 999, 99_998, 999_990, 9_999_990, 99_999_990, 999_999_999_999_999_980];
        for start in starts {
            for room in [0usize, 1, 7, 16, 23, 24, 100] {
                let mut c = counter_after(start);
                for k in 1..=12 {
                    let want = format!("{:>6}\t", start + k);
                    let mut data = vec![b'#'; 40 + want.len() + room];
                    let at = 40;
                    let end = c.put_at(&mut data, at);
                    assert_eq!(&data[at..end], want.as_bytes(), "after {start}+{k}, room {room}");
                    assert!(data[..at].iter().all(|&b| b == b'#'), "wrote before the number");
                }
            }
        }
        let mut c = counter_after(999_999_999_999_999_999);
        assert_eq!(c.advance(), b">00000000000000000\t");
    }

    #[test]
    fn counter_widens_like_gnu() {
        let mut c = LineCounter::default();
        assert_eq!(c.advance(), b"     1\t");
        for _ in 1..999_999 {
            c.advance();
        }
        assert_eq!(c.advance(), b"1000000\t");
        assert_eq!(c.advance(), b"1000001\t");
    }
}
