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

/// How one byte prints under -v: up to four bytes (`M-^X`).
#[derive(Clone, Copy)]
struct Shown {
    bytes: [u8; 4],
    len: u8,
}

/// The -v notation of every byte (TAB and LF are handled by the caller).
const fn notation() -> [Shown; 256] {
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
    table
}

static NOTATION: [Shown; 256] = notation();

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

    /// Formats `input` (any chunk of a file) onto the end of `out`.
    pub fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) {
        let mut i = 0;
        if self.pending_cr && !input.is_empty() {
            self.pending_cr = false;
            out.extend_from_slice(if input[0] == b'\n' { b"^M" } else { b"\r" });
        }
        while i < input.len() {
            if input[i] == b'\n' {
                self.newline(out);
                i += 1;
                continue;
            }
            if self.newlines >= 0 && self.opts.number {
                out.extend_from_slice(self.counter.advance());
            }
            self.newlines = -1;
            let end = memchr(b'\n', &input[i..]).map_or(input.len(), |p| i + p);
            self.line_body(&input[i..end], end < input.len(), out);
            i = end;
        }
    }

    /// Ends the output of the last file: a CR held back in case a LF followed prints as is.
    pub fn finish(&mut self, out: &mut Vec<u8>) {
        if self.pending_cr {
            self.pending_cr = false;
            out.push(b'\r');
        }
    }

    fn newline(&mut self, out: &mut Vec<u8>) {
        self.newlines += 1;
        if self.newlines > 0 {
            if self.newlines >= 2 {
                self.newlines = 2;
                if self.opts.squeeze_blank {
                    return;
                }
            }
            if self.opts.number && !self.opts.number_nonblank {
                out.extend_from_slice(self.counter.advance());
            }
        }
        if self.opts.show_ends {
            out.extend_from_slice(b"$\n");
        } else {
            out.push(b'\n');
        }
    }

    /// A run of line content (no LF); `ends_line` when a LF follows it in this chunk.
    fn line_body(&mut self, body: &[u8], ends_line: bool, out: &mut Vec<u8>) {
        if self.opts.show_nonprinting {
            self.show_nonprinting(body, out);
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
                out.extend_from_slice(&rest[..p]);
                out.extend_from_slice(b"^I");
                rest = &rest[p + 1..];
            }
            out.extend_from_slice(rest);
        } else {
            out.extend_from_slice(body);
        }
        if cr {
            if ends_line {
                out.extend_from_slice(b"^M");
            } else {
                self.pending_cr = true;
            }
        }
    }

    /// -v: `^X`, `^?`, `M-x` notation; TAB as is unless -T.
    fn show_nonprinting(&self, body: &[u8], out: &mut Vec<u8>) {
        out.reserve(body.len() * 4);
        let mut start = 0;
        let mut i = 0;
        while i < body.len() {
            if i + 8 <= body.len() {
                let word = u64::from_le_bytes(body[i..i + 8].try_into().unwrap());
                if !word_has_special(word) {
                    i += 8;
                    continue;
                }
            }
            let b = body[i];
            if (32..127).contains(&b) {
                i += 1;
                continue;
            }
            out.extend_from_slice(&body[start..i]);
            if b == b'\t' && !self.opts.show_tabs {
                out.push(b'\t');
            } else {
                let shown = &NOTATION[b as usize];
                out.extend_from_slice(&shown.bytes[..shown.len as usize]);
            }
            i += 1;
            start = i;
        }
        out.extend_from_slice(&body[start..]);
    }
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
                        let s = &NOTATION[b as usize];
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
        let mut out = Vec::new();
        for c in chunks {
            f.feed(c, &mut out);
        }
        f.finish(&mut out);
        out
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
