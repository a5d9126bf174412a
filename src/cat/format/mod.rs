//! `cat`'s formatting options (-b -E -n -s -T -v and their combinations -A -e -t) as a state machine over large
//! chunks. Line ends and the bytes `-v` shows come from the masks of 64-byte blocks (`memchr` in a chunk's last
//! partial block); runs that need no change are copied in bulk. The state (line number, blank-line run, a pending CR)
//! carries from chunk to chunk and file to file as in GNU's `cat`. `counter.rs` is GNU's line counter, `out.rs` the
//! output space, `notation.rs` how each byte shows, `map.rs` the formatting without line state.

mod counter;
mod map;
mod notation;
mod out;

use crate::platform::simd::{Block64, Masks, Notation, WithMasks};
use crate::platform::{self, Changing};
use counter::LineCounter;
use notation::Marked;
pub use out::OutBuf;
use out::put_run_at;

/// Which formatting options are on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// -n or -b.
    pub number: bool,
    /// -b: empty lines get no number.
    pub number_nonblank: bool,
    pub squeeze_blank: bool,
    pub show_ends: bool,
    pub show_tabs: bool,
    pub show_nonprinting: bool,
}

impl Options {
    pub fn any(&self) -> bool {
        self.number || self.squeeze_blank || self.show_ends || self.show_tabs || self.show_nonprinting
    }
}

/// The state that carries across chunks and files.
#[derive(Clone)]
pub struct Formatter {
    opts: Options,
    /// GNU's `newlines`: -1 inside a line, 0 at the start of a line, 1 after one empty line, 2 after two or more.
    newlines: i32,
    /// -E without -v: a CR ended the last chunk; it prints as `^M` if a LF follows, else as is.
    pending_cr: bool,
    counter: LineCounter,
}

/// [`Formatter::feed`]'s work, run with the masks of a kernel.
struct Feed<'f, 'i, 'o>(&'f mut Formatter, Changing<'i>, &'o mut OutBuf);

impl WithMasks for Feed<'_, '_, '_> {
    type Output = ();
    #[inline(always)]
    fn run<B: Block64>(self, masks: Masks<B>) {
        self.0.feed_with(masks, self.1, self.2);
    }
}

impl Formatter {
    pub fn new(opts: Options) -> Formatter {
        Formatter { opts, newlines: 0, pending_cr: false, counter: LineCounter::default() }
    }

    /// Formats `input` (any chunk of a file) onto the end of `out`, which must have room for it
    /// (`OutBuf::room_for`), with the best block masks (`platform::simd::with_best_masks`).
    pub fn feed(&mut self, input: Changing<'_>, out: &mut OutBuf) {
        platform::simd::with_best_masks(Feed(self, input, out));
    }

    #[inline(always)]
    fn feed_with<B: Block64>(&mut self, m: Masks<B>, input: Changing<'_>, out: &mut OutBuf) {
        assert!(out.has_room_for(input.len()), "OutBuf too small");
        // A CR held back at the last chunk's end (-E without -v): `^M` before a LF, else itself.
        if self.pending_cr && !input.is_empty() {
            self.pending_cr = false;
            out.put(if input.byte(0) == b'\n' { b"^M" } else { b"\r" });
        }
        let (tabs, ends) = (self.opts.show_tabs, self.opts.show_ends);
        if self.opts.number || self.opts.squeeze_blank || !(self.opts.show_nonprinting || tabs || ends) {
            self.feed_lines(m, input, out);
            return;
        }
        // No line state is needed: a byte-to-bytes mapping (the common -A, -v, -e, -t; -T, -E).
        let mut input = input;
        let marked = if self.opts.show_nonprinting {
            if m.families().notation == Notation::Permutes {
                // The kernel's notation costs less than the mapping on every block.
                let (data, len) = out.parts();
                let (done, written) = m.notation(input, tabs, ends, &mut data[len..]);
                out.set_len(len + written);
                input = input.range(done..);
            }
            Marked::Nonprinting { tabs, ends }
        } else if ends {
            // A CR at the chunk's end waits for the next byte.
            if let Some((b'\r', rest)) = input.split_last() {
                input = rest;
                self.pending_cr = true;
            }
            Marked::Ends { tabs }
        } else {
            Marked::Tabs
        };
        map::map(m, input, marked, out);
    }

    /// The options that keep line state: -n, -b, -s, or -v, -T, -E with one of them.
    #[inline(always)]
    fn feed_lines<B: Block64>(&mut self, m: Masks<B>, input: Changing<'_>, out: &mut OutBuf) {
        if self.opts.show_nonprinting {
            self.feed_nonprinting(m, input, out);
            return;
        }
        if self.opts == (Options { number: true, ..Options::default() }) {
            self.feed_numbered(m, input, out);
            return;
        }
        // Line ends come from a bit mask per 64-byte block (compiled to SIMD compares), which
        // costs far less per line than running memchr for each of many short lines.
        let mut start = 0;
        let full = input.len() / 64 * 64;
        for base in (0..full).step_by(64) {
            platform::simd::prefetch_ahead(input, base);
            let mut mask = m.eq(input.array(base), b'\n');
            while mask != 0 {
                let end = base + mask.trailing_zeros() as usize;
                mask &= mask - 1;
                if end > start {
                    self.content(input, start, end, true, out);
                }
                self.newline(out);
                start = end + 1;
            }
        }
        for end in input.range(full..).find_all(b'\n').map(|p| full + p) {
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

    /// -n alone: each line (LF included) is one copy after its number; output length and line state stay in locals.
    /// A block's bytes after its last LF go out with the block, so no copy is longer than a block: each is one
    /// 64-byte copy, and how long the lines are decides no branch (it did a line in three, mispredicted).
    #[inline(always)]
    fn feed_numbered<B: Block64>(&mut self, m: Masks<B>, input: Changing<'_>, out: &mut OutBuf) {
        let mut at_start = self.newlines >= 0;
        let (data, mut len) = out.parts();
        let mut start = 0;
        // The blocks from any place in which 64 bytes can be copied; the rest goes line by line below.
        let full = input.len().saturating_sub(64) / 64 * 64;
        for base in (0..full).step_by(64) {
            platform::simd::prefetch_ahead(input, base);
            // Here `start == base`: what came before has gone out.
            let mut mask = m.eq(input.array(base), b'\n');
            if mask != 0 {
                // The first LF ends the line under way: numbered already, unless it begins with the block.
                if at_start {
                    len = self.counter.put_at(data, len);
                }
                let end = base + mask.trailing_zeros() as usize + 1;
                mask &= mask - 1;
                len = put_run_at(data, len, input, start, end);
                start = end;
                while mask != 0 {
                    let end = base + mask.trailing_zeros() as usize + 1;
                    mask &= mask - 1;
                    len = self.counter.put_at(data, len);
                    len = put_run_at(data, len, input, start, end);
                    start = end;
                }
                at_start = true;
            }
            if start < base + 64 {
                if at_start {
                    len = self.counter.put_at(data, len);
                    at_start = false;
                }
                len = put_run_at(data, len, input, start, base + 64);
                start = base + 64;
            }
        }
        for end in input.range(full..).find_all(b'\n').map(|p| full + p + 1) {
            if at_start {
                len = self.counter.put_at(data, len);
            }
            len = put_run_at(data, len, input, start, end);
            start = end;
            at_start = true;
        }
        if start < input.len() {
            if at_start {
                len = self.counter.put_at(data, len);
            }
            len = put_run_at(data, len, input, start, input.len());
            at_start = false;
        }
        out.set_len(len);
        self.newlines = if at_start { 0 } else { -1 };
    }

    /// -v (with any other options): one pass over the chunk by blocks. A block's mask of bytes to notate (LF among
    /// them) splits it into runs copied as is and single bytes: LF ends a line (numbering, squeezing, `$`), the
    /// others go through the table. The short last block is padded in a local copy with room for `put_run`'s overrun.
    #[inline(always)]
    fn feed_nonprinting<B: Block64>(&mut self, m: Masks<B>, input: Changing<'_>, out: &mut OutBuf) {
        let full = input.len() / 64 * 64;
        for base in (0..full).step_by(64) {
            platform::simd::prefetch_ahead(input, base);
            self.nonprinting_block(m, input, base, 64, out);
        }
        if full < input.len() {
            let rest = input.range(full..);
            let mut padded = [b' '; 128];
            rest.copy_to(&mut padded[..rest.len()]);
            self.nonprinting_block(m, Changing::of(&padded), 0, rest.len(), out);
        }
    }

    /// Bytes `src[base..base + len]` (within one 64-byte block) under -v.
    #[inline(always)]
    fn nonprinting_block<B: Block64>(
        &mut self,
        m: Masks<B>,
        src: Changing<'_>,
        base: usize,
        len: usize,
        out: &mut OutBuf,
    ) {
        // (LF is the caller's: the table's ends matter not.)
        let table = Marked::Nonprinting { tabs: self.opts.show_tabs, ends: false }.table();
        let mut mask = m.control_or_high(src.array(base));
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
            let byte = src.byte(at);
            if byte == b'\n' {
                self.newline(out);
            } else {
                self.start_content(out);
                out.put_shown(table[usize::from(byte)]);
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
    fn content(&mut self, input: Changing<'_>, start: usize, end: usize, ends_line: bool, out: &mut OutBuf) {
        self.start_content(out);
        let needs_work = self.opts.show_tabs || (self.opts.show_ends && input.byte(end - 1) == b'\r');
        if !needs_work {
            out.put_run(input, start, end - start);
            return;
        }
        self.line_body(input.range(start..end), ends_line, out);
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
    fn line_body(&mut self, body: Changing<'_>, ends_line: bool, out: &mut OutBuf) {
        // GNU 9.12: with -E, CR LF shows as ^M$ (also when the LF comes in a later read).
        let (body, cr) = match body.split_last() {
            Some((b'\r', rest)) if self.opts.show_ends => (rest, true),
            _ => (body, false),
        };
        if self.opts.show_tabs {
            let mut rest = body;
            while let Some(p) = rest.find(b'\t') {
                out.put_copy(rest.range(..p));
                out.put(b"^I");
                rest = rest.range(p + 1..);
            }
            out.put_copy(rest);
        } else {
            out.put_copy(body);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// GNU's `cat` loop over the whole input (see `testing/cat_model.rs`).
    fn reference(opts: Options, input: &[u8]) -> Vec<u8> {
        crate::testing::cat_model::model(&opts, input)
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
            platform::simd::with_masks(kernel, Feed(&mut f, Changing::of(c), &mut out));
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
        for trial in 0..300 {
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
            let kernel = kernels[trial % kernels.len()];
            for opts in all_options() {
                assert_eq!(run_on(kernel, opts, &chunks), reference(opts, &input), "{kernel:?} {opts:?}");
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
}
