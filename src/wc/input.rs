//! `wc`'s input: one input counted along the path `plan` picks for it ([`Counting::count`]):
//! a regular file's size, a pipe spliced to /dev/null, a regular file mapped or read
//! (whichever is cheaper here) on one thread or two, anything else read; the read buffers,
//! and `--files0-from`'s names.

use super::StartStat;
use super::classes::ByteClasses;
use super::count::{self, ClassShape, Counter, Counts, Want};
use super::plan::{self, Count, Path};
use crate::common::regular_file::{self, Share, Stop};
use crate::platform::{self, Charset, Fd, FileInfo};
use std::io::{self, BufRead};
use std::os::fd::AsRawFd;
/// Read size for counting: 64 KiB, cheap to map for the many small inputs of scripts.
const BUFFER_SIZE: usize = 64 * 1024;
/// Larger inputs are read 256 KiB at a time: with the counting's reads it stays in the L2 of
/// a Zen 3 (512 KiB), and on an Intel Xeon (Sapphire Rapids) `wc -l` of 100 MB read in
/// 64 KiB, 256 KiB and 1 MiB reads took 22.2, 21.3 and 22.9 ms (file written in 4 KiB
/// writes), 13.7, 14.0 and 13.6 ms (read back from disk).
const BIG_BUFFER_SIZE: usize = 256 * 1024;
/// As much as one splice to /dev/null is asked to move: more than any pipe holds, so each call
/// moves what the pipe has.
const SPLICE_CHUNK: usize = 1 << 30;
/// A regular file's mapped windows are checked against a file that shrinks every this much.
const MAP_PIECE: usize = 256 << 10;

/// How each input of a run is counted: what is counted ([`plan::count`], once), with what it
/// needs, and the read buffers.
pub(super) struct Counting {
    pub(super) count: Count,
    want: Want,
    charset: Charset,
    posixly_correct: bool,
    classes: Option<ByteClasses>,
    buffers: Buffers,
}

impl Counting {
    pub(super) fn new(want: Want, charset: Charset, posixly_correct: bool) -> Counting {
        // Lines and bytes do not depend on the locale: only words, characters and widths load it.
        let needs_locale = want.words || want.chars || want.max_line_length;
        let classes = needs_locale.then(|| ByteClasses::new(charset, posixly_correct));
        let count = plan::count(want, charset, classes.as_ref().map(ClassShape::of));
        Counting { count, want, charset, posixly_correct, classes, buffers: Buffers::default() }
    }

    /// Counts what is left in `fd` (`named`: a file wc opened itself; `start`: what was found
    /// of it at start) along the path [`plan::path`] picks; a read error stops the count (what
    /// was counted stays).
    pub(super) fn count(&mut self, fd: Fd, named: bool, start: StartStat) -> (Counts, Option<io::Error>) {
        // GNU sizes a count of bytes alone by the stat taken at start when there is one (and
        // reads when it failed); every other count asks `fstat` now.
        let info = match (start, self.count) {
            (StartStat::Taken(info), Count::Bytes) => Some(info),
            (StartStat::Failed, Count::Bytes) => None,
            _ => platform::fstat(fd).ok(),
        };
        let two_cpus = || std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2;
        let (mut counts, error) = match plan::path(self.count, info, named, two_cpus) {
            Path::Size(info) => self.bytes_then_read(fd, |bytes| bytes_by_size(fd, &info, named, bytes)),
            Path::Splice => self.bytes_then_read(fd, |bytes| bytes_by_splice(fd, bytes)),
            Path::File(count, info) => self.count_here(fd, Some(&info), count, None),
            Path::TwoThreads(count, info) => self.count_on_two_threads(fd, info, count),
            Path::Read(count) => self.count_here(fd, None, count, None),
        };
        if self.charset == Charset::Unibyte {
            counts.chars = counts.bytes;
        }
        (counts, error)
    }

    /// Bytes alone by `fast` (Some: the count is over, with its result), the rest read.
    fn bytes_then_read(
        &mut self,
        fd: Fd,
        fast: impl FnOnce(&mut u64) -> Option<io::Result<()>>,
    ) -> (Counts, Option<io::Error>) {
        let mut bytes = 0;
        let (rest, error) = match fast(&mut bytes) {
            Some(result) => (Counts::default(), result.err()),
            None => self.count_here(fd, None, Count::Bytes, None),
        };
        (Counts { bytes: bytes + rest.bytes, ..rest }, error)
    }

    /// What is left of `fd` counted on this thread: a regular file (`file`) mapped or read
    /// (`regular_file`), up to where a second thread counts from with `share`; anything else
    /// read to its end.
    fn count_here(
        &mut self,
        fd: Fd,
        file: Option<&FileInfo>,
        count: Count,
        share: Option<&Share>,
    ) -> (Counts, Option<io::Error>) {
        let buffers = &mut self.buffers;
        let mut counts = Counts::default();
        let add_bytes = |counts: &mut Counts, chunk: &[u8]| counts.bytes += chunk.len() as u64;
        let error = match count {
            Count::Bytes => feed_input(fd, file, buffers, &mut counts, add_bytes, share),
            Count::Lines => feed_input(fd, file, buffers, &mut counts, count::add_lines_and_bytes, share),
            Count::Counter(pass) => {
                let classes = self.classes.as_ref().expect("words, characters or widths load the classes");
                let mut counter = Counter::new(self.want, classes, self.charset, pass);
                let error = feed_input(fd, file, buffers, &mut counter, |c, chunk| c.feed(chunk), share);
                counts = counter.finish();
                error
            }
        };
        (counts, error)
    }

    /// A large regular file on a machine where we may use two CPUs: this thread counts from
    /// the front as it would alone (mapped or read, whichever is cheaper here), a second one
    /// takes chunks from the end (sized to the file), cut after line ends, until they meet
    /// (`count_end`): a second CPU that is busy costs nothing, it just takes fewer chunks.
    /// Only for files wc opened itself: their offset does not matter afterwards.
    fn count_on_two_threads(&mut self, fd: Fd, info: FileInfo, count: Count) -> (Counts, Option<io::Error>) {
        let Ok(start) = platform::current_offset(fd) else {
            return self.count_here(fd, Some(&info), count, None);
        };
        let share = Share::new(start);
        let (want, charset, posixly_correct) = (self.want, self.charset, self.posixly_correct);
        let ((front, front_error), end) = std::thread::scope(|scope| {
            let share = &share;
            let end = std::thread::Builder::new().spawn_scoped(scope, move || {
                // The classes cache what the C library says: each thread has its own.
                let own = match count {
                    Count::Counter(pass) => Some((ByteClasses::new(charset, posixly_correct), pass)),
                    _ => None,
                };
                let fresh = own.as_ref().map(|(classes, pass)| Counter::new(want, classes, charset, *pass));
                let mut buf = platform::PageBuffer::new(BIG_BUFFER_SIZE)?;
                io::Result::Ok(count_end(fresh.as_ref(), fd, info.size, share, buf.as_mut_slice()))
            });
            // No thread to be had: this one counts it all (the end claims nothing).
            let front = self.count_here(fd, Some(&info), count, Some(share).filter(|_| end.is_ok()));
            (front, end.map(|handle| handle.join()))
        });
        match end {
            // A sequential count would have stopped at the front's error.
            _ if front_error.is_some() => (front, front_error),
            Ok(Ok(Ok((end, end_error)))) => (sum(&front, &end), end_error),
            Ok(Ok(Err(err))) => (front, Some(err)),
            Ok(Err(_)) => (front, Some(io::Error::other("the second counting thread failed"))),
            Err(_) => (front, None),
        }
    }
}

/// Bytes alone of a regular file from its size, where it can be trusted (GNU's rule: a size
/// that is not a multiple of the page size), leaving the offset at the end as GNU does. None:
/// the rest is to be read (from near the end, for the /proc and /sys files that report 0 or
/// a page). `named`: a file wc opened itself, at offset 0.
fn bytes_by_size(fd: Fd, info: &FileInfo, named: bool, bytes: &mut u64) -> Option<io::Result<()>> {
    let end = info.size;
    let trusted = !end.is_multiple_of(platform::page_size() as u64);
    if named && trusted {
        // The common case: no offset to ask for or to leave at the end.
        *bytes = end;
        return Some(Ok(()));
    }
    let pos = if named { 0 } else { platform::current_offset(fd).ok()? };
    if trusted {
        let n = end.saturating_sub(pos);
        if n > 0 && platform::seek_relative(fd, n as i64).is_ok() {
            *bytes = n;
            return Some(Ok(()));
        }
    } else {
        let hi = end - end % (info.blksize.max(1) + 1);
        if pos < hi && platform::seek_relative(fd, (hi - pos) as i64).is_ok() {
            *bytes = hi - pos;
        }
    }
    None
}

/// Bytes alone of a pipe: its pages moved to /dev/null without copying, adding up what moved.
/// None: splice is not supported here, the rest is to be read.
fn bytes_by_splice(fd: Fd, bytes: &mut u64) -> Option<io::Result<()>> {
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null").ok()?;
    loop {
        match platform::splice(fd, null.as_raw_fd(), SPLICE_CHUNK) {
            Ok(0) => return Some(Ok(())),
            Ok(n) => *bytes += n as u64,
            Err(err) if platform::is_unsupported(&err) => return None,
            Err(err) => return Some(Err(err)),
        }
    }
}

/// Feeds what is left of `fd` to `feed` (a read error stops it, and is returned): a regular
/// file (`file`: what `fstat` said of it) by the cheaper of mapping and reading here
/// (`regular_file`), anything else by reads. With `share`, another thread counts the file's
/// end (see `regular_file::Share`).
fn feed_input<S: Clone>(
    fd: Fd,
    file: Option<&FileInfo>,
    buffers: &mut Buffers,
    state: &mut S,
    mut feed: impl FnMut(&mut S, &[u8]),
    share: Option<&Share>,
) -> Option<io::Error> {
    let Some(info) = file else {
        return buffers.read_all(fd, |chunk| feed(state, chunk));
    };
    let buf = if info.size > BUFFER_SIZE as u64 { buffers.big() } else { buffers.small() };
    let buf = match buf {
        Ok(buf) => buf,
        Err(err) => return Some(err),
    };
    match regular_file::feed(fd, info, buf, MAP_PIECE, &mut Fed { state, feed }, share) {
        Ok(()) => None,
        Err(Stop::Read(err)) => Some(err),
        Err(Stop::Output(never)) => match never {},
    }
}

/// A count fed by a function, as a regular file's consumer: the count is cloned before each
/// mapped piece (a counter is a few hundred bytes) and put back when the piece reached past
/// the file's end.
struct Fed<'a, S, F> {
    state: &'a mut S,
    feed: F,
}

impl<S: Clone, F: FnMut(&mut S, &[u8])> regular_file::Consumer for Fed<'_, S, F> {
    type Mark = S;
    type Error = std::convert::Infallible;

    fn mark(&self) -> S {
        self.state.clone()
    }

    fn rewind(&mut self, mark: S) {
        *self.state = mark;
    }

    fn feed(&mut self, bytes: &[u8]) {
        (self.feed)(self.state, bytes);
    }
}

/// A file's end counted on a second thread while the first counts from the front
/// (`regular_file::Share`): chunks of [`chunk`] bytes from the end (`size`, what `fstat` said)
/// backwards, each starting after a line end (no word, line or character spans one, so the
/// counts add up; the longest line is the larger), read with `pread` into `buf`, or mapped
/// where the front maps the file (the cheaper way here, the front's chooser found). The first
/// chunk reads on past `size` (a file that grew): mapped, it is counted again with `pread`
/// where something follows `size`. With a `fresh` counter, a copy of it counts
/// each chunk; else lines and bytes. Stops at the first read error, returned with what was
/// counted.
fn count_end(fresh: Option<&Counter>, fd: Fd, size: u64, share: &Share, buf: &mut [u8]) -> (Counts, Option<io::Error>) {
    let mut total = Counts::default();
    let chunk = chunk(size);
    loop {
        let back = share.back().min(size);
        // From the first line start after a 2 MiB boundary, so that a mapped chunk starts
        // close to one (see `count_mapped`).
        let from = back.checked_sub(chunk).map(|at| at / HUGE_PAGE * HUGE_PAGE);
        let Some(start) = from.and_then(|at| line_start_after(fd, at, back, buf)) else {
            return (total, None);
        };
        let Some(end) = share.claim_back(start) else {
            return (total, None);
        };
        let to = (end != u64::MAX).then_some(end);
        // The first chunk reaches past `size` where the file grew: mapped to `size` when
        // nothing follows.
        let mapped = match to {
            _ if !share.front_maps() => None,
            Some(to) => count_mapped(fresh, fd, start, to),
            None if size > start => count_mapped(fresh, fd, start, size).filter(|_| ends_at(fd, size)),
            None => None,
        };
        let (counts, error) = match mapped {
            Some(counts) => (counts, None),
            None => count_range(fresh, fd, start, to, buf),
        };
        total = sum(&total, &counts);
        if error.is_some() {
            return (total, error);
        }
    }
}

/// The second thread's chunks for a file of `size` bytes: a thirty-second of it, from 4 to
/// 16 MiB. Mapped, each is unmapped at its end, and in a process of two running threads that
/// interrupts the other CPU to flush its TLB (213 such interrupts for `wc -l` of 1 GiB in 4 MiB
/// chunks and windows, against 5 for fcoreutils, which maps the file once: 51 with 16 MiB
/// chunks); at the end the front waits at most for the chunk the second thread is on, and on
/// a smaller file a large chunk leaves the work unevenly shared.
fn chunk(size: u64) -> u64 {
    (size / 32).clamp(4 << 20, 16 << 20)
}
/// The page cache holds a file read back from disk in folios of up to 2 MiB, aligned in the
/// file; a mapping whose addresses are aligned with the file's offsets maps each with one
/// page-table entry (one fault), where an unaligned one takes a fault every 64 KiB of it.
const HUGE_PAGE: u64 = 2 << 20;

/// The counts of two pieces of an input cut after a line end.
fn sum(a: &Counts, b: &Counts) -> Counts {
    Counts {
        lines: a.lines + b.lines,
        words: a.words + b.words,
        chars: a.chars + b.chars,
        bytes: a.bytes + b.bytes,
        max_line_length: a.max_line_length.max(b.max_line_length),
    }
}

/// Where the line after the first line end at or after `from` (and before `to`) begins.
fn line_start_after(fd: Fd, from: u64, to: u64, buf: &mut [u8]) -> Option<u64> {
    let mut at = from;
    while at < to {
        let len = ((to - at) as usize).min(BUFFER_SIZE);
        let n = platform::pread(fd, &mut buf[..len], at).ok().filter(|&n| n > 0)?;
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Some(at + i as u64 + 1).filter(|&start| start < to);
        }
        at += n as u64;
    }
    None
}

/// Counts `fd` from offset `from` up to `to` mapped, as `count_range` would: None where it
/// cannot be mapped, or when the file turned out to end before `to` (its bytes from there were
/// zeros, not the file's: `count_range` then counts what it holds).
///
/// The mapping runs from the 2 MiB boundary at or below `from` to the one at or above `to`
/// (the bytes around the chunk are mapped, not counted, nor touched): the kernel puts a mapping
/// of 2 MiB or more at an address aligned alike, and then maps each folio of 2 MiB at once
/// ([`HUGE_PAGE`]).
fn count_mapped(fresh: Option<&Counter>, fd: Fd, from: u64, to: u64) -> Option<Counts> {
    let aligned = from / HUGE_PAGE * HUGE_PAGE;
    let end = to.div_ceil(HUGE_PAGE) * HUGE_PAGE;
    let map = platform::Mapping::new(fd, aligned, usize::try_from(end - aligned).ok()?).ok()?;
    let bytes = &map.bytes()[(from - aligned) as usize..(to - aligned) as usize];
    let counts = match fresh {
        Some(fresh) => {
            let mut counter = fresh.clone();
            counter.feed(bytes);
            counter.finish()
        }
        None => {
            let mut counts = Counts::default();
            count::add_lines_and_bytes(&mut counts, bytes);
            counts
        }
    };
    map.cut().is_none().then_some(counts)
}

/// Whether `fd` ends at `size` (nothing to read there).
fn ends_at(fd: Fd, size: u64) -> bool {
    matches!(platform::pread(fd, &mut [0], size), Ok(0))
}

/// Counts `fd` from offset `from` up to `to` (or its end) with `pread` into `buf`: with a
/// `fresh` counter, a copy of it; else lines and bytes only.
fn count_range(
    fresh: Option<&Counter>,
    fd: Fd,
    from: u64,
    to: Option<u64>,
    buf: &mut [u8],
) -> (Counts, Option<io::Error>) {
    let mut counter = fresh.cloned();
    let mut counts = Counts::default();
    let mut pos = from;
    let mut error = None;
    loop {
        let want_len = to.map_or(buf.len(), |to| (to.saturating_sub(pos)).min(buf.len() as u64) as usize);
        if want_len == 0 {
            break;
        }
        match platform::pread(fd, &mut buf[..want_len], pos) {
            Ok(0) => break,
            Ok(n) => {
                pos += n as u64;
                match counter.as_mut() {
                    Some(counter) => counter.feed(&buf[..n]),
                    None => count::add_lines_and_bytes(&mut counts, &buf[..n]),
                }
            }
            Err(err) => {
                error = Some(err);
                break;
            }
        }
    }
    if let Some(counter) = counter {
        counts = counter.finish();
    }
    (counts, error)
}

/// The read buffers, mapped on first use: fresh zero pages, so start-up does not pay for
/// clearing them (a third of wc's own start-up instructions with `vec![0; ..]`).
#[derive(Default)]
struct Buffers {
    small: Option<platform::PageBuffer>,
    big: Option<platform::PageBuffer>,
}

impl Buffers {
    fn small(&mut self) -> io::Result<&mut [u8]> {
        if self.small.is_none() {
            self.small = Some(platform::PageBuffer::on_demand(BUFFER_SIZE)?);
        }
        Ok(self.small.as_mut().expect("buffer just made").as_mut_slice())
    }

    fn big(&mut self) -> io::Result<&mut [u8]> {
        if self.big.is_none() {
            self.big = Some(platform::PageBuffer::new(BIG_BUFFER_SIZE)?);
        }
        Ok(self.big.as_mut().expect("buffer just made").as_mut_slice())
    }

    /// Reads `fd` to its end (or a read error, returned), handing each chunk to `consume`.
    /// Reads go to the small buffer until one fills it, then to the big one when it can be had.
    fn read_all(&mut self, fd: Fd, mut consume: impl FnMut(&[u8])) -> Option<io::Error> {
        if let Err(err) = self.small() {
            return Some(err);
        }
        let mut big = false;
        loop {
            let buf = match (big, &mut self.big) {
                (true, Some(b)) => b.as_mut_slice(),
                _ => self.small.as_mut().expect("small buffer made").as_mut_slice(),
            };
            match platform::read(fd, buf) {
                Ok(0) => return None,
                Ok(n) => {
                    consume(&buf[..n]);
                    if n == BUFFER_SIZE && !big {
                        // A large input: read-ahead advice is worth its system call now (small
                        // files, the common case in scripts, are over before it would help).
                        platform::advise_sequential(fd);
                        if self.big.is_none() {
                            self.big = platform::PageBuffer::new(BIG_BUFFER_SIZE).ok();
                        }
                        big = self.big.is_some();
                    }
                }
                Err(err) => return Some(err),
            }
        }
    }
}

/// The NUL-terminated names (the last may lack its NUL) read from `fd`, for `--files0-from`.
pub(super) fn names(fd: Fd) -> impl Iterator<Item = io::Result<Vec<u8>>> {
    struct FdRead(Fd);
    impl io::Read for FdRead {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            platform::read(self.0, buf)
        }
    }
    io::BufReader::with_capacity(BUFFER_SIZE, FdRead(fd)).split(0)
}
