//! `wc` of a large regular file on two CPUs. This thread counts from the start as it would alone (`input::feed`,
//! mapped or read, whichever is cheaper here). A second thread takes chunks from the file's end, cut after line ends,
//! until the two meet. A busy second CPU costs nothing: it just takes fewer chunks.

use super::classes::ByteClasses;
use super::count::Counts;
use super::paths::{BIG_BUFFER_SIZE, Counting, InputCount, sum};
use super::plan::Count;
use crate::input::{self, Bound, Consumer, Way};
use crate::platform::{self, Changing, Fd, FileInfo};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// This thread's mapped stretches once mapping goes on untimed: with two threads running, each
/// unmapping interrupts the other CPU to flush its TLB, and larger stretches take fewer.
const SHARED_STRETCH: u64 = 32 << 20;

impl Counting {
    /// Counts large regular file `fd` on two threads; only for files wc opened, whose offset does not matter after.
    pub(super) fn count_on_two_threads(&mut self, fd: Fd, info: FileInfo, count: Count) -> (Counts, Option<io::Error>) {
        let Ok(start) = platform::current_offset(fd) else {
            return self.count_here(fd, Some(&info), count, &u64::MAX);
        };
        let share = Share::new(start);
        let (want, charset, posixly_correct) = (self.want, self.charset, self.posixly_correct);
        // Only the counter reads the classes (`-m` loads them in a single-byte locale, unread).
        let needs_classes = matches!(count, Count::Counter(_));
        let ((front, front_error), end) = std::thread::scope(|scope| {
            let share = &share;
            let end = std::thread::Builder::new().spawn_scoped(scope, move || {
                // The classes cache what the C library says: each thread has its own.
                let classes = needs_classes.then(|| ByteClasses::new(charset, posixly_correct));
                let fresh = InputCount::new(count, want, classes.as_ref(), charset);
                let mut buf = platform::PageBuffer::new(BIG_BUFFER_SIZE)?;
                let mut total = Counts::default();
                let add = |counted: InputCount| total = sum(&total, &counted.finish());
                let result = feed_end(fd, info.size, share, b'\n', buf.as_mut_slice(), || fresh.clone(), add);
                io::Result::Ok((total, result.err()))
            });
            // No second thread: this one counts it all.
            let front = match end {
                Ok(_) => self.count_here(fd, Some(&info), count, share),
                Err(_) => self.count_here(fd, Some(&info), count, &u64::MAX),
            };
            (front, end.map(|handle| handle.join()))
        });
        match end {
            // A count on one thread would have stopped at this thread's error.
            _ if front_error.is_some() => (front, front_error),
            Ok(Ok(Ok((end, end_error)))) => (sum(&front, &end), end_error),
            Ok(Ok(Err(err))) => (front, Some(err)),
            Ok(Err(_)) => (front, Some(io::Error::other("the second counting thread failed"))),
            Err(_) => (front, None),
        }
    }
}

/// A file fed by two threads at once: this one from the start by `input::feed` (this is its [`Bound`]), the second in
/// chunks from the file's end by [`feed_end`], each part cut after a line end. Neither waits: if the second gets no
/// CPU, this thread does it all, and when they meet it waits at most for the chunk the second is on.
pub struct Share {
    /// Where this thread's claim ends and the second's starts (u64::MAX while it has none: this one goes to the end).
    bounds: std::sync::Mutex<(u64, u64)>,
    /// Whether this thread maps the file, or may before timing both ways ([`Share::new`]): then the second maps too.
    front_maps: AtomicBool,
}

impl Share {
    /// A file this thread feeds from offset `front`. Until it has timed both ways the second
    /// thread maps (unless reading is forced or nothing is mapped here), as mapping a large file
    /// read back from disk costs less on every machine measured; then it follows this thread.
    pub fn new(front: u64) -> Share {
        let maps = platform::MAPPED_FILES && input::forced() != Some(Way::Read);
        Share { bounds: std::sync::Mutex::new((front, u64::MAX)), front_maps: AtomicBool::new(maps) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, u64)> {
        self.bounds.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Claims this thread's next stretch, from `from` to `to` at most. Returns its end: where
    /// the second thread's chunks begin if sooner (`from` or less: nothing is left).
    pub fn claim_front(&self, from: u64, to: u64) -> u64 {
        let mut bounds = self.lock();
        let end = to.min(bounds.1).max(from);
        bounds.0 = end;
        end
    }

    /// Whether this thread maps the file: then the second thread's chunks are cheaper mapped.
    pub fn front_maps(&self) -> bool {
        self.front_maps.load(Ordering::Relaxed)
    }

    /// Where the second thread's chunks begin now (u64::MAX: none yet).
    pub fn back(&self) -> u64 {
        self.lock().1
    }

    /// Claims the second thread's next chunk, from `start` to where its last began (returned;
    /// u64::MAX for the first). None once this thread is past `start`.
    pub fn claim_back(&self, start: u64) -> Option<u64> {
        let mut bounds = self.lock();
        if start < bounds.0 || start >= bounds.1 {
            return None;
        }
        Some(std::mem::replace(&mut bounds.1, start))
    }
}

impl Bound for Share {
    fn claim(&self, from: u64, to: u64) -> u64 {
        self.claim_front(from, to)
    }

    fn mapped_stretch(&self) -> u64 {
        SHARED_STRETCH
    }

    fn maps(&self, maps: bool) {
        self.front_maps.store(maps, Ordering::Relaxed);
    }
}

/// Feeds the second thread's part of a file shared with `input::feed` ([`Share`]): chunks of `end_chunk` bytes
/// backwards from `size`, each after a `cut` byte (a line end, which no count spans), each fed to a consumer from
/// `fresh` and handed to `done`. A chunk is mapped where this thread maps the file, else read with `pread` into
/// `buf`, the first on past `size` (a file that grew). Stops at the first read error, its chunk handed on first.
pub fn feed_end<C: Consumer>(
    fd: Fd,
    size: u64,
    share: &Share,
    cut: u8,
    buf: &mut [u8],
    mut fresh: impl FnMut() -> C,
    mut done: impl FnMut(C),
) -> io::Result<()> {
    let chunk = end_chunk(size);
    loop {
        let back = share.back().min(size);
        // From the first cut after a 2 MiB boundary, so that a mapped chunk starts close to one (see `feed_mapped`).
        let from = back.checked_sub(chunk).map(|at| at / FOLIO * FOLIO);
        let Some(start) = from.and_then(|at| after_cut(fd, cut, at, back, buf)) else {
            return Ok(());
        };
        let Some(end) = share.claim_back(start) else {
            return Ok(());
        };
        let to = (end != u64::MAX).then_some(end);
        let mut consumer = fresh();
        let mark = consumer.mark();
        let mapped = share.front_maps()
            && feed_mapped(fd, start, to.unwrap_or(size), &mut consumer)
            && (to.is_some() || matches!(platform::pread(fd, &mut [0], size), Ok(0)));
        let result = if mapped {
            Ok(())
        } else {
            consumer.rewind(mark);
            pread_range(fd, start, to, buf, &mut consumer)
        };
        done(consumer);
        result?;
    }
}

/// The second thread's chunk size: a thirty-second of the file, from 4 to 16 MiB. Unmapping a
/// chunk interrupts the other CPU to flush its TLB, so larger chunks take fewer interrupts
/// (benches/RESULTS.md, "Figures behind code comments"). Smaller ones share the work more evenly.
fn end_chunk(size: u64) -> u64 {
    (size / 32).clamp(4 << 20, 16 << 20)
}

/// The page cache holds a file read back from disk in folios of up to 2 MiB, aligned in the
/// file: a mapping aligned alike takes one fault a folio, an unaligned one a fault every 64 KiB.
const FOLIO: u64 = 2 << 20;

/// Where the byte after the first `cut` at or after `from` (and before `to`) is, if before `to`.
fn after_cut(fd: Fd, cut: u8, from: u64, to: u64, buf: &mut [u8]) -> Option<u64> {
    let mut at = from;
    while at < to {
        let len = ((to - at) as usize).min(buf.len()).min(64 << 10);
        let n = platform::pread(fd, &mut buf[..len], at).ok().filter(|&n| n > 0)?;
        if let Some(i) = memchr::memchr(cut, &buf[..n]) {
            return Some(at + i as u64 + 1).filter(|&start| start < to);
        }
        at += n as u64;
    }
    None
}

/// Feeds `fd` from `from` up to `to`, mapped from the 2 MiB boundary below to the one above: the
/// kernel then aligns the mapping alike and maps each folio at once ([`FOLIO`]). False where it
/// cannot be mapped, or when the file ended before `to` (what was fed then holds zeros).
fn feed_mapped<C: Consumer>(fd: Fd, from: u64, to: u64, consumer: &mut C) -> bool {
    let aligned = from / FOLIO * FOLIO;
    let end = to.div_ceil(FOLIO) * FOLIO;
    let Some(map) = usize::try_from(end - aligned).ok().and_then(|len| platform::Mapping::new(fd, aligned, len).ok())
    else {
        return false;
    };
    consumer.feed(map.bytes().range((from - aligned) as usize..(to - aligned) as usize));
    map.cut().is_none()
}

/// Feeds `fd` from offset `from` up to `to` (or its end) with `pread` into `buf`.
fn pread_range<C: Consumer>(fd: Fd, from: u64, to: Option<u64>, buf: &mut [u8], consumer: &mut C) -> io::Result<()> {
    let mut pos = from;
    loop {
        let len = to.map_or(buf.len(), |to| to.saturating_sub(pos).min(buf.len() as u64) as usize);
        if len == 0 {
            return Ok(());
        }
        match platform::pread(fd, &mut buf[..len], pos)? {
            0 => return Ok(()),
            n => {
                consumer.feed(Changing::of(&buf[..n]));
                pos += n as u64;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Share, feed_end};
    use crate::input::Consumer;
    use crate::platform::Changing;
    use std::os::fd::AsRawFd;
    use std::sync::atomic::Ordering;

    /// Every byte fed, in order.
    struct Bytes(Vec<u8>);

    impl Consumer for Bytes {
        type Mark = usize;
        type Error = std::convert::Infallible;
        fn mark(&self) -> usize {
            self.0.len()
        }
        fn rewind(&mut self, mark: usize) {
            self.0.truncate(mark);
        }
        fn feed(&mut self, bytes: Changing<'_>) {
            self.0.extend(bytes.bytes());
        }
    }

    /// With this thread taking nothing, the second's chunks run back to near the file's start:
    /// each after a line end, none twice. They are read, not mapped: the test harness holds
    /// SIGBUS (its stack-overflow handler). tests/wc_shape.rs and tests/wc_diff.rs map them.
    #[test]
    fn the_end_takes_whole_lines_back_to_front() {
        let dir = std::env::temp_dir().join(format!("ru-regular-file-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("lines");
        // 13 MiB of lines of 1 to 300 bytes.
        let mut text = Vec::new();
        let mut n = 7u32;
        while text.len() < 13 << 20 {
            n = n.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            text.extend(std::iter::repeat_n(b'a' + (n >> 16) as u8 % 26, (n >> 8) as usize % 300));
            text.push(b'\n');
        }
        std::fs::write(&path, &text).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let share = Share::new(0);
        share.front_maps.store(false, Ordering::Relaxed);
        let mut chunks = Vec::new();
        let mut buf = vec![0; 256 << 10];
        let fd = file.as_raw_fd();
        feed_end(fd, text.len() as u64, &share, b'\n', &mut buf, || Bytes(Vec::new()), |c| chunks.push(c.0)).unwrap();
        let front_end = share.claim_front(0, u64::MAX) as usize;
        assert!(chunks.len() >= 2, "{} chunks", chunks.len());
        assert_eq!(text[front_end - 1], b'\n');
        assert!(front_end < 4 << 20, "the end stopped at {front_end}");
        chunks.reverse();
        assert!(chunks.concat() == text[front_end..], "the chunks are not the file's end");
        let mut at = front_end;
        for chunk in &chunks {
            assert_eq!(text[at - 1], b'\n', "a chunk at {at} begins inside a line");
            at += chunk.len();
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_front_and_the_end_never_claim_the_same_bytes() {
        let share = Share::new(100);
        assert_eq!(share.claim_front(100, 300), 300);
        assert_eq!(share.back(), u64::MAX);
        assert_eq!(share.claim_back(800), Some(u64::MAX));
        assert_eq!(share.back(), 800);
        // A chunk below what this thread holds, or at or past the second's start: refused.
        assert_eq!(share.claim_back(250), None);
        assert_eq!(share.claim_back(800), None);
        assert_eq!(share.claim_front(300, 900), 800);
        assert_eq!(share.claim_front(800, 900), 800, "nothing left between");
        assert_eq!(share.claim_back(700), None);
        let share = Share::new(0);
        assert_eq!(share.claim_back(4), Some(u64::MAX));
        assert_eq!(share.claim_back(0), Some(4));
        assert_eq!(share.claim_front(0, 5), 0);
        // Nothing claimed by the second thread: this one goes on as far as it asks.
        let share = Share::new(0);
        assert_eq!(share.claim_front(0, u64::MAX), u64::MAX);
    }
}
