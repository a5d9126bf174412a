//! GNU's line counter for `cat -n` and `-b`, printed as GNU's `next_line_num` prints it.

use super::out::OutBuf;

/// GNU's line counter: ASCII digits incremented in place, right-aligned in six columns, then a TAB. Like GNU's
/// `next_line_num`, it widens past 999999 and shows `>` in front past 18 digits. The last seven digit cells and the
/// TAB live in one 64-bit word (`low`, little-endian): up to seven digits take a few register operations and one
/// 8-byte store. Byte writes read back by an 8-byte load would stall every line (such a load waits for the stores).
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

/// The units digit's cell: cells 0..=17 hold up to 18 digits, the most GNU's `next_line_num` widens to before `>`.
const COUNTER_DIGIT_END: usize = 17;
/// Numbers are right-aligned in six columns, as GNU's initial `"     0\t"`.
const NUMBER_WIDTH: usize = 6;
/// The first cell held in `LineCounter::low`.
const LOW: usize = COUNTER_DIGIT_END - 6;
/// Where the last digit sits in `LineCounter::low`.
const LAST_DIGIT_SHIFT: u32 = 48;
/// `LineCounter::head`'s length: a 16-byte copy from any print start below LOW (8+ digits, `put_at`) stays in it.
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

    /// Advances to the next number and returns it as printed (`"     1\t"`), for the tests.
    #[cfg(test)]
    pub fn advance(&mut self) -> &[u8] {
        self.step();
        self.head[LOW..LOW + 8].copy_from_slice(&self.low.to_le_bytes());
        &self.head[self.print_start..COUNTER_DIGIT_END + 2]
    }

    /// Advances, and writes the number at `data[at..]` (up to 24 bytes may be written, the
    /// ones past the number to be overwritten by what follows); returns where it ends.
    #[inline(always)]
    pub(super) fn put_at(&mut self, data: &mut [u8], at: usize) -> usize {
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

    #[inline(always)]
    pub(super) fn put_next(&mut self, out: &mut OutBuf) {
        let (data, len) = out.parts();
        let end = self.put_at(data, len);
        out.set_len(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
