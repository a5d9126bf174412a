//! Formatting without line state, a byte-to-bytes mapping: -v (-A, -e, -t) without -n or -s, -T or -E without -v, -n
//! or -s. A block's mask ([`Marked`]) splits it into runs copied as is and single bytes looked up.

use super::notation::{Marked, Shown, Table};
use super::out::{OutBuf, put_shown_at};
use crate::platform::simd::{Block64, Kernel, Masks, Notation};
use crate::platform::{self, Changing};

/// One block's output room in [`map_block`]: where a notation may start, below 128 (a block with over 16 bytes to
/// notate goes byte by byte), plus 1 + 255 (the compiler's bound on a notation), plus the 64 bytes a copy writes.
pub(super) const SLOT: usize = 128 + 256 + 64;

/// Steps of [`map_block`] between two tests of whether a block has bytes left. Two, not four: most blocks of text have
/// one to three bytes to notate, and idle steps cost more than the exits they save (benches/RESULTS.md, "Figures
/// behind code comments").
const STEPS: usize = 2;

/// How many bytes to notate a block may have and still go by the steps, where the kernel has a notation of its own.
/// With AVX2 and AVX-512, two passes of steps, as timed. NEON's and SSSE3's notation cost more a block (16 bytes a
/// register): the steps take fewer instructions up to eight bytes (benches/RESULTS.md, "Figures behind code comments").
const fn dense_above(kernel: Kernel) -> usize {
    match kernel {
        Kernel::Neon | Kernel::Ssse3 => 8,
        _ => 2 * STEPS,
    }
}

/// An area: a part of the output of fixed size that the blocks of `AREA_INPUT` bytes are written
/// into, so that no block checks its slot's bounds or reloads their limits. Their worst case (4
/// bytes a byte) rounded up to a power of two: offsets are taken modulo it by one `and`.
const AREA: usize = 1 << 16;

/// An area's input: four of them and the 65 bytes read past the last fit a 64 KiB chunk (a read or a mapped piece).
const AREA_INPUT: usize = 64 * 254;

/// Maps `input` onto the end of `out` (room from `OutBuf::room_for`): bytes `marked` through its table, others as is.
#[inline(always)]
pub(super) fn map<B: Block64>(m: Masks<B>, input: Changing<'_>, marked: Marked, out: &mut OutBuf) {
    // A loop for each kind of mark, which it then knows: a match on it in the loop took a
    // load and a branch a block, and registers the loop needed for its constants.
    match marked {
        Marked::Nonprinting { tabs, ends } => map_marked(m, input, Marked::Nonprinting { tabs, ends }, out),
        Marked::Tabs => map_marked(m, input, Marked::Tabs, out),
        Marked::Ends { tabs } => map_marked(m, input, Marked::Ends { tabs }, out),
    }
}

/// [`map`] of one kind of mark.
#[inline(always)]
fn map_marked<B: Block64>(m: Masks<B>, input: Changing<'_>, marked: Marked, out: &mut OutBuf) {
    const { assert!(4 * AREA_INPUT <= AREA) };
    // Four bytes at most a byte, and a slot past the last block's start.
    assert!(out.has_room(4 * input.len() + SLOT), "OutBuf too small");
    let table = marked.table();
    let (data, mut len) = out.parts();
    let mut base = 0;
    while base + AREA_INPUT + 65 <= input.len() && len + AREA + SLOT <= data.len() {
        let src = input.array::<{ AREA_INPUT + 65 }>(base);
        let area: &mut [u8; AREA + SLOT] = (&mut data[len..len + AREA + SLOT]).try_into().unwrap();
        let mut end = 0;
        for at in (0..AREA_INPUT).step_by(64) {
            platform::simd::prefetch_ahead(input, base + at);
            // At most 4 * at: the `%` only shows the compiler that the slot fits the area.
            let to = end % AREA;
            let slot = (&mut area[to..to + SLOT]).try_into().unwrap();
            end = to + map_block(m, src.array(at), 64, table, marked, slot);
        }
        len += end;
        base += AREA_INPUT;
    }
    while base + 129 <= input.len() {
        platform::simd::prefetch_ahead(input, base);
        let slot = (&mut data[len..len + SLOT]).try_into().unwrap();
        len += map_block(m, input.array(base), 64, table, marked, slot);
        base += 64;
    }
    // The last bytes (up to two blocks), in a copy padded with spaces, which show as
    // themselves; a CR at the very end is never in `input` under -E (the formatter holds it).
    let rest = input.range(base..);
    let mut padded = [b' '; 64 + 129];
    rest.copy_to(&mut padded[..rest.len()]);
    for at in (0..rest.len()).step_by(64) {
        let slot = (&mut data[len..len + SLOT]).try_into().unwrap();
        let block = Changing::of(&padded).array(at);
        len += map_block(m, block, (rest.len() - at).min(64), table, marked, slot);
    }
    out.set_len(len);
}

/// Maps the first `len` bytes of `src` (at most 64) to the start of `dst` (`table`: `marked`'s); returns the output's
/// length. Up to 65 bytes past the block are read, and written past its output to be overwritten. The block is copied
/// whole; after each byte to look up, its notation is stored and the block's rest copied again further on. Steps go
/// [`STEPS`] at a time without a branch (a step past the last byte copies the block's end again): how many bytes a
/// block notates varies at random, and a loop stopping at the last would mispredict nearly every block. A block with
/// many goes to the kernel's notation where there is one, else byte by byte.
#[inline(always)]
fn map_block<B: Block64>(
    m: Masks<B>,
    src: Changing<'_, [u8; 129]>,
    len: usize,
    table: &Table,
    marked: Marked,
    dst: &mut [u8; SLOT],
) -> usize {
    let mut mask = marked.mask(m, src.array(0), src.byte(64) == b'\n') & (u64::MAX >> (64 - len));
    if let Marked::Nonprinting { tabs, ends } = marked {
        // The kernel's notation costs the same for any block: from a number of bytes on, the steps cost more.
        let dense = len == 64 && mask.count_ones() as usize > dense_above(B::KERNEL);
        if dense && m.families().notation != Notation::Steps {
            let (_, written) = m.notation(src.all().range(..64), tabs, ends, &mut dst[..256]);
            return written;
        }
    }
    if mask.count_ones() > 16 {
        // Mostly bytes to look up (binary data, many empty lines under -E): byte by byte through
        // the table. At most 4 * 63 bytes precede the last, which `% 256` only tells the compiler.
        let mut to = 0;
        for at in 0..len {
            to = put_shown_at(dst, to % 256, marked.shown(table, src.all(), at));
        }
        return to;
    }
    src.all().range(..64).copy_to(&mut dst[..64]);
    // Output beyond one byte per input byte: at most 3 * 16 (`% 128` only tells the compiler).
    let mut grown = 0usize;
    if mask != 0 {
        loop {
            for _ in 0..STEPS {
                let at = mask.trailing_zeros() as usize;
                mask &= mask.wrapping_sub(1);
                let shown: Shown = table[usize::from(src.byte(at))];
                let to = (at + grown) % 128;
                dst[to..to + 4].copy_from_slice(&shown.bytes());
                // All ones while a byte is left, else none.
                let grow = shown.grow() & (at >> 6).wrapping_sub(1);
                grown += grow;
                debug_assert!(grown <= 3 * 16);
                let to = to + 1 + grow;
                src.all().range(at + 1..at + 65).copy_to(&mut dst[to..to + 64]);
            }
            if mask == 0 {
                break;
            }
        }
    }
    len + grown
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::simd::WithMasks;

    /// `map` in every kernel (without AVX-512 VBMI2's whole-block notation) against the one
    /// definition byte by byte (-v), or what -T and -E show without it: inputs from no byte to
    /// notate to all, at every length around the block, slot and area sizes.
    #[test]
    fn map_matches_the_notation_in_every_kernel() {
        struct Map<'a>(&'a [u8], Marked, &'a mut OutBuf);
        impl WithMasks for Map<'_> {
            type Output = ();
            #[inline(always)]
            fn run<B: Block64>(self, m: Masks<B>) {
                map(m, Changing::of(self.0), self.1, self.2);
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
        for (trial, len) in lengths.enumerate() {
            // One byte in `1 << density` needs notation (none for the last density).
            let density = trial % 7;
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
        // Areas and what follows: every density in turn, 1000 bytes each, three areas and more.
        let mut input = Vec::new();
        for trial in 0..3 * AREA_INPUT / 1000 + 5 {
            let density = trial % 7;
            input.extend((0..1000).map(|_| {
                let r = next();
                if density < 6 && r % (1 << density) == 0 {
                    (r >> 32) as u8 | 0x80
                } else {
                    b'a' + (r >> 40) as u8 % 26
                }
            }));
            input.push(if trial % 2 == 0 { b'\n' } else { b'\t' });
        }
        inputs.push((input, "densities in turn".to_string()));
        // Blocks with 0 to 24, 48 and 64 bytes to notate (steps go `STEPS` at a time, byte by
        // byte above 16), at random places, first and last byte among them; any byte value to notate.
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
        // Lines of every length from 0 to 70 (runs of empty lines: more than 16 LFs a block),
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
            for marked in [
                Marked::Nonprinting { tabs: true, ends: true },
                Marked::Nonprinting { tabs: true, ends: false },
                Marked::Nonprinting { tabs: false, ends: true },
                Marked::Nonprinting { tabs: false, ends: false },
                Marked::Tabs,
                Marked::Ends { tabs: false },
                Marked::Ends { tabs: true },
            ] {
                let want: Vec<u8> = match marked {
                    Marked::Nonprinting { tabs, ends } => input
                        .iter()
                        .flat_map(|&b| {
                            let (bytes, len) = crate::platform::simd::notation::shown(b, true, tabs, ends);
                            bytes[..len].to_vec()
                        })
                        .collect(),
                    Marked::Tabs => visible(input, true, false),
                    Marked::Ends { tabs } => visible(input, tabs, true),
                };
                for kernel in crate::testing::kernels("cat::format::map::map_matches_the_notation_in_every_kernel") {
                    let mut out = OutBuf::room_for(3, input.len());
                    out.put(b"abc");
                    platform::simd::with_masks(kernel, Map(input, marked, &mut out));
                    assert_eq!(&out.as_slice()[..3], b"abc");
                    assert!(out.as_slice()[3..] == want[..], "{kernel:?} {marked:?} {what}");
                }
            }
        }
    }
}
