//! `cat`'s formatting options (-b -E -n -s -T -v and their combinations -A -e -t) as a state
//! machine over large chunks: line ends are found with `memchr`, runs of bytes that need no
//! change are copied in bulk, and the state (line number, blank-line run, a pending CR) carries
//! over from chunk to chunk and from file to file exactly as in GNU's `cat`.

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
pub struct LineCounter {
    buf: [u8; 19],
    print_start: usize,
    digit_start: usize,
}

const COUNTER_DIGIT_END: usize = 17;

impl Default for LineCounter {
    fn default() -> Self {
        let mut buf = [b' '; 19];
        buf[COUNTER_DIGIT_END] = b'0';
        buf[18] = b'\t';
        LineCounter { buf, print_start: 12, digit_start: COUNTER_DIGIT_END }
    }
}

impl LineCounter {
    /// Advances to the next number and returns it as printed (`"     1\t"`).
    pub fn advance(&mut self) -> &[u8] {
        let mut pos = COUNTER_DIGIT_END;
        loop {
            let digit = self.buf[pos];
            self.buf[pos] = digit.wrapping_add(1);
            if digit < b'9' {
                return &self.buf[self.print_start..];
            }
            self.buf[pos] = b'0';
            if pos == self.digit_start {
                break;
            }
            pos -= 1;
        }
        if self.digit_start > 0 {
            self.digit_start -= 1;
            self.buf[self.digit_start] = b'1';
        } else {
            self.buf[0] = b'>';
        }
        self.print_start = self.print_start.min(self.digit_start);
        &self.buf[self.print_start..]
    }
}

/// Output space written by index: initialised once, so no per-byte capacity checks or
/// zero-filling happen in the hot loops. `feed` needs room for the worst case of its input
/// (see [`OutBuf::room_for`]); the caller writes the contents out and clears it between chunks.
pub struct OutBuf {
    data: Vec<u8>,
    len: usize,
}

/// The most one input byte can become: a LF with a widest line number and `$` (19 + 2 bytes),
/// or `M-^X` (4 bytes), plus the `^M` of a CR held back from the previous chunk.
const WORST_EXPANSION: usize = 21;

impl OutBuf {
    /// Room for `pending` bytes already formatted plus the worst case of `chunk` input bytes.
    pub fn room_for(pending: usize, chunk: usize) -> OutBuf {
        OutBuf { data: vec![0; pending + chunk * WORST_EXPANSION + 2], len: 0 }
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

    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.data[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    #[inline]
    fn push(&mut self, byte: u8) {
        self.data[self.len] = byte;
        self.len += 1;
    }
}

/// The state that carries across chunks and files.
pub struct Formatter {
    opts: Options,
    /// GNU's `newlines`: -1 inside a line, 0 at the start of a line, 1 after one empty line,
    /// 2 after two or more.
    newlines: i32,
    /// -E without -v: a CR ended the last chunk; it prints as `^M` if a LF follows, else as is.
    pending_cr: bool,
    counter: LineCounter,
}

/// How one byte prints under -v: up to four bytes (`M-^X`), always stored as four.
#[derive(Clone, Copy)]
struct Shown {
    bytes: [u8; 4],
    len: u8,
}

/// The -v notation of every byte (LF is handled by the caller); TAB as `^I` if `show_tabs`,
/// else as itself.
const fn notation(show_tabs: bool) -> [Shown; 256] {
    let mut table = [Shown { bytes: [0; 4], len: 0 }; 256];
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
        if c < 32 {
            out[len] = b'^';
            out[len + 1] = c as u8 + 64;
            len += 2;
        } else if c == 127 {
            out[len] = b'^';
            out[len + 1] = b'?';
            len += 2;
        } else {
            out[len] = c as u8;
            len += 1;
        }
        table[b] = Shown { bytes: out, len: len as u8 };
        b += 1;
    }
    if !show_tabs {
        table[b'\t' as usize] = Shown { bytes: [b'\t', 0, 0, 0], len: 1 };
    }
    table
}

static NOTATION_TABS_SHOWN: [Shown; 256] = notation(true);
static NOTATION_TABS_KEPT: [Shown; 256] = notation(false);

/// The same tables with LF as itself or as `$` LF (-E): with -v and no line numbers or
/// squeezing, formatting is a plain byte-to-bytes mapping of the whole chunk.
const fn with_newline(mut table: [Shown; 256], show_ends: bool) -> [Shown; 256] {
    table[b'\n' as usize] = if show_ends {
        Shown { bytes: [b'$', b'\n', 0, 0], len: 2 }
    } else {
        Shown { bytes: [b'\n', 0, 0, 0], len: 1 }
    };
    table
}

static MAP_TABS_SHOWN_ENDS_SHOWN: [Shown; 256] = with_newline(notation(true), true);
static MAP_TABS_SHOWN: [Shown; 256] = with_newline(notation(true), false);
static MAP_ENDS_SHOWN: [Shown; 256] = with_newline(notation(false), true);
static MAP_PLAIN: [Shown; 256] = with_newline(notation(false), false);

/// Does any byte of the word need -v notation (below 0x20, 0x7f, or above)?
#[inline]
fn word_has_special(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    let del = (word ^ (ONES * 0x7f)).wrapping_sub(ONES) & !(word ^ (ONES * 0x7f));
    (below_space | del | word) & HIGHS != 0
}

impl Formatter {
    pub fn new(opts: Options) -> Formatter {
        Formatter { opts, newlines: 0, pending_cr: false, counter: LineCounter::default() }
    }

    /// Formats `input` (any chunk of a file) onto the end of `out`, which must have room for
    /// it (`OutBuf::room_for`).
    pub fn feed(&mut self, input: &[u8], out: &mut OutBuf) {
        assert!(out.data.len() - out.len >= input.len() * WORST_EXPANSION + 2, "OutBuf too small");
        if self.opts.show_nonprinting && !self.opts.number && !self.opts.squeeze_blank {
            let table = match (self.opts.show_tabs, self.opts.show_ends) {
                (true, true) => &MAP_TABS_SHOWN_ENDS_SHOWN,
                (true, false) => &MAP_TABS_SHOWN,
                (false, true) => &MAP_ENDS_SHOWN,
                (false, false) => &MAP_PLAIN,
            };
            show_nonprinting(input, table, out);
            // Only the line state matters later (for nothing, with these options), but keep it right.
            if let Some(&last) = input.last() {
                self.newlines = if last == b'\n' { 0 } else { -1 };
            }
            return;
        }
        let mut i = 0;
        if self.pending_cr && !input.is_empty() {
            self.pending_cr = false;
            out.put(if input[0] == b'\n' { b"^M" } else { b"\r" });
        }
        while i < input.len() {
            if input[i] == b'\n' {
                self.newline(out);
                i += 1;
                continue;
            }
            if self.newlines >= 0 && self.opts.number {
                out.put(self.counter.advance());
            }
            self.newlines = -1;
            let end = memchr(b'\n', &input[i..]).map_or(input.len(), |p| i + p);
            self.line_body(&input[i..end], end < input.len(), out);
            i = end;
        }
    }

    /// Ends the output of the last file: a CR held back in case a LF followed prints as is.
    pub fn finish(&mut self, out: &mut OutBuf) {
        if self.pending_cr {
            self.pending_cr = false;
            out.push(b'\r');
        }
    }

    #[inline]
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
                out.put(self.counter.advance());
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
        if self.opts.show_nonprinting {
            let table = if self.opts.show_tabs { &NOTATION_TABS_SHOWN } else { &NOTATION_TABS_KEPT };
            show_nonprinting(body, table, out);
            return;
        }
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

/// -v: runs of eight bytes that need no notation are copied as a word; other bytes go through
/// the table, each written as four bytes of which `len` count.
fn show_nonprinting(body: &[u8], table: &[Shown; 256], out: &mut OutBuf) {
    let dst = &mut out.data[out.len..];
    let mut pos = 0;
    let mut words = body.chunks_exact(8);
    for word in &mut words {
        let bytes: [u8; 8] = word.try_into().unwrap();
        if !word_has_special(u64::from_le_bytes(bytes)) {
            dst[pos..pos + 8].copy_from_slice(&bytes);
            pos += 8;
            continue;
        }
        // Expand the word in a local buffer, then copy it out in one piece (one bounds check
        // on the output instead of eight). 8 bytes become at most 32.
        let mut expanded = [0u8; 36];
        let mut len = 0;
        for &b in &bytes {
            let shown = table[b as usize];
            expanded[len..len + 4].copy_from_slice(&shown.bytes);
            len += shown.len as usize;
        }
        dst[pos..pos + 32].copy_from_slice(&expanded[..32]);
        pos += len;
    }
    for &b in words.remainder() {
        let shown = table[b as usize];
        dst[pos..pos + 4].copy_from_slice(&shown.bytes);
        pos += shown.len as usize;
    }
    out.len += pos;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte-at-a-time model of GNU's `cat` loop, for comparison.
    fn reference(opts: Options, chunks: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut newlines = 0i32;
        let mut counter = LineCounter::default();
        let mut pending_cr = false;
        for chunk in chunks {
            for (i, &b) in chunk.iter().enumerate() {
                if pending_cr {
                    pending_cr = false;
                    out.extend_from_slice(if b == b'\n' { b"^M" } else { b"\r" });
                }
                if b == b'\n' {
                    newlines += 1;
                    if newlines > 0 {
                        if newlines >= 2 {
                            newlines = 2;
                            if opts.squeeze_blank {
                                continue;
                            }
                        }
                        if opts.number && !opts.number_nonblank {
                            out.extend_from_slice(counter.advance());
                        }
                    }
                    if opts.show_ends {
                        out.push(b'$');
                    }
                    out.push(b'\n');
                    continue;
                }
                if newlines >= 0 && opts.number {
                    out.extend_from_slice(counter.advance());
                }
                newlines = -1;
                if opts.show_nonprinting {
                    if b == b'\t' && !opts.show_tabs {
                        out.push(b'\t');
                    } else {
                        let s = &NOTATION_TABS_SHOWN[b as usize];
                        out.extend_from_slice(&s.bytes[..s.len as usize]);
                    }
                } else if b == b'\t' && opts.show_tabs {
                    out.extend_from_slice(b"^I");
                } else if b == b'\r' && opts.show_ends {
                    match chunk.get(i + 1) {
                        Some(b'\n') => out.extend_from_slice(b"^M"),
                        Some(_) => out.push(b'\r'),
                        None => pending_cr = true,
                    }
                } else {
                    out.push(b);
                }
            }
        }
        if pending_cr {
            out.push(b'\r');
        }
        out
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
        let mut f = Formatter::new(opts);
        let mut all = Vec::new();
        for c in chunks {
            let mut out = OutBuf::room_for(0, c.len());
            f.feed(c, &mut out);
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
            let whole = reference(opts, &[&input]);
            assert_eq!(run(opts, &[&input]), whole, "{opts:?}");
            for cut in 0..input.len() {
                let (a, b) = input.split_at(cut);
                assert_eq!(run(opts, &[a, b]), whole, "{opts:?} cut {cut}");
            }
        }
    }

    #[test]
    fn pseudo_random_inputs_match_model() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..300 {
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
            for opts in all_options() {
                assert_eq!(run(opts, &chunks), reference(opts, &[&input]), "{opts:?}");
            }
        }
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
