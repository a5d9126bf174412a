//! `wc`'s input by the path `plan` picks ([`Counting::count`]): a regular file's size, a pipe spliced to /dev/null, a
//! file mapped or read on one or two threads, or reads; also the read buffers and `--files0-from`'s names.

use super::StartStat;
use super::classes::ByteClasses;
use super::count::{self, ClassShape, Counter, Counts, Want};
use super::plan::{self, Count, Path};
use crate::input::{self, Bound, Consumer, Stop};
use crate::platform::{self, Changing, Charset, Fd, FileInfo};
use std::io::{self, BufRead};
use std::os::fd::AsRawFd;
/// Read size for counting: 64 KiB, cheap to map for the many small inputs of scripts.
const BUFFER_SIZE: usize = 64 * 1024;
/// Larger inputs are read 256 KiB at a time: with the counting's reads it stays in a 512 KiB L2,
/// and no other size measured faster (benches/RESULTS.md, "Figures behind code comments").
pub(super) const BIG_BUFFER_SIZE: usize = 256 * 1024;
/// Asked of each splice to /dev/null: more than any pipe holds, so each moves what the pipe has.
const SPLICE_CHUNK: usize = 1 << 30;
/// A regular file's mapped stretches are checked against a file that shrinks every this much.
const MAP_PIECE: usize = 256 << 10;

/// How each input of a run is counted: what ([`plan::count`], once), with what it needs, and the read buffers.
pub(super) struct Counting {
    pub(super) count: Count,
    pub(super) want: Want,
    pub(super) charset: Charset,
    pub(super) posixly_correct: bool,
    classes: Option<ByteClasses>,
    buffers: Buffers,
}

impl Counting {
    pub(super) fn new(want: Want, posixly_correct: bool) -> Counting {
        // Lines and bytes do not depend on the locale: only words, characters and widths load it.
        let needs_locale = want.words || want.chars || want.max_line_length;
        let charset = if needs_locale { platform::charset() } else { Charset::Unibyte };
        let classes = needs_locale.then(|| ByteClasses::new(charset, posixly_correct));
        let count = plan::count(want, charset, classes.as_ref().map(ClassShape::of));
        Counting { count, want, charset, posixly_correct, classes, buffers: Buffers::default() }
    }

    /// Counts what is left in `fd` (`named`: a file wc opened; `start`: what was found of it at
    /// start) along the path [`plan::path`] picks; a read error stops it, keeping what was counted.
    pub(super) fn count(&mut self, fd: Fd, named: bool, start: StartStat) -> (Counts, Option<io::Error>) {
        // GNU sizes bytes alone by the stat taken at start if any (reading if it failed); other counts ask `fstat` now.
        let info = match (start, self.count) {
            (StartStat::Taken(info), Count::Bytes) => Some(info),
            (StartStat::Failed, Count::Bytes) => None,
            _ => platform::fstat(fd).ok(),
        };
        let two_cpus = || std::thread::available_parallelism().map_or(1, |n| n.get()) >= 2;
        let (mut counts, error) = match plan::path(self.count, info, named, two_cpus) {
            Path::Size(info) => self.bytes_then_read(fd, |bytes| bytes_by_size(fd, &info, named, bytes)),
            Path::Splice => self.bytes_then_read(fd, |bytes| bytes_by_splice(fd, bytes)),
            Path::File(count, info) => self.count_here(fd, Some(&info), count, &u64::MAX),
            Path::TwoThreads(count, info) => self.count_on_two_threads(fd, info, count),
            Path::Read(count) => self.count_here(fd, None, count, &u64::MAX),
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
            None => self.count_here(fd, None, Count::Bytes, &u64::MAX),
        };
        (Counts { bytes: bytes + rest.bytes, ..rest }, error)
    }

    /// Counts what is left of `fd` on this thread: a regular file (`file`) by `input::feed` up to
    /// `end` (where a second thread starts, see `parallel`), anything else read to its end.
    pub(super) fn count_here(
        &mut self,
        fd: Fd,
        file: Option<&FileInfo>,
        count: Count,
        end: &impl Bound,
    ) -> (Counts, Option<io::Error>) {
        let mut count = InputCount::new(count, self.want, self.classes.as_ref(), self.charset);
        let error = match file {
            Some(info) => feed_file(fd, info, &mut self.buffers, &mut count, end),
            None => self.buffers.read_all(fd, |chunk| count.feed(Changing::of(chunk))),
        };
        (count.finish(), error)
    }
}

/// One input's count as it goes, as [`Count`] says. Cloned before each mapped piece (a few
/// hundred bytes) and put back when the piece reached past the file's end (`input::Consumer`).
#[derive(Clone)]
pub(super) enum InputCount<'a> {
    Bytes(Counts),
    Lines(Counts),
    Counter(Counter<'a>),
}

impl<'a> InputCount<'a> {
    pub(super) fn new(count: Count, want: Want, classes: Option<&'a ByteClasses>, charset: Charset) -> InputCount<'a> {
        match count {
            Count::Bytes => InputCount::Bytes(Counts::default()),
            Count::Lines => InputCount::Lines(Counts::default()),
            Count::Counter(pass) => {
                let classes = classes.expect("words, characters or widths load the classes");
                InputCount::Counter(Counter::new(want, classes, charset, pass))
            }
        }
    }

    pub(super) fn finish(self) -> Counts {
        match self {
            InputCount::Bytes(counts) | InputCount::Lines(counts) => counts,
            InputCount::Counter(counter) => counter.finish(),
        }
    }
}

impl Consumer for InputCount<'_> {
    type Mark = Self;
    type Error = std::convert::Infallible;

    fn mark(&self) -> Self {
        self.clone()
    }

    fn rewind(&mut self, mark: Self) {
        *self = mark;
    }

    fn feed(&mut self, chunk: Changing<'_>) {
        match self {
            InputCount::Bytes(counts) => counts.bytes += chunk.len() as u64,
            InputCount::Lines(counts) => count::add_lines_and_bytes(counts, chunk),
            InputCount::Counter(counter) => counter.feed(chunk),
        }
    }
}

/// The counts of two parts of an input cut after a line end.
pub(super) fn sum(a: &Counts, b: &Counts) -> Counts {
    Counts {
        lines: a.lines + b.lines,
        words: a.words + b.words,
        chars: a.chars + b.chars,
        bytes: a.bytes + b.bytes,
        max_line_length: a.max_line_length.max(b.max_line_length),
    }
}

/// Bytes alone from a regular file's size where GNU trusts it (not a page multiple), the offset left at the end as
/// GNU does. None: read the rest (from near the end for /proc and /sys files). `named`: opened by wc.
fn bytes_by_size(fd: Fd, info: &FileInfo, named: bool, bytes: &mut u64) -> Option<io::Result<()>> {
    let end = info.size;
    let trusted = end % platform::page_size() as u64 != 0;
    if named && trusted {
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

/// Bytes alone of a pipe: its pages spliced to /dev/null, adding up what moved. None: no splice here, read the rest.
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

/// Feeds the rest of regular file `fd` (`info`: `fstat`'s) to `count` up to `end` (`input::feed`); Some: a read error.
fn feed_file(
    fd: Fd,
    info: &FileInfo,
    buffers: &mut Buffers,
    count: &mut InputCount,
    end: &impl Bound,
) -> Option<io::Error> {
    let buf = if info.size > BUFFER_SIZE as u64 { buffers.big() } else { buffers.small() };
    let buf = match buf {
        Ok(buf) => buf,
        Err(err) => return Some(err),
    };
    match input::feed(fd, info, buf, MAP_PIECE, count, end) {
        Ok(()) => None,
        Err(Stop::Read(err)) => Some(err),
        Err(Stop::Output(never)) => match never {},
    }
}

/// Read buffers mapped on first use, so start-up clears none (benches/RESULTS.md, "Figures behind code comments").
#[derive(Default)]
struct Buffers {
    small: Option<platform::PageBuffer>,
    big: Option<platform::PageBuffer>,
}

impl Buffers {
    fn small(&mut self) -> io::Result<&mut [u8]> {
        let buf = match &mut self.small {
            Some(buf) => buf,
            none => none.insert(platform::PageBuffer::on_demand(BUFFER_SIZE)?),
        };
        Ok(buf.as_mut_slice())
    }

    fn big(&mut self) -> io::Result<&mut [u8]> {
        let buf = match &mut self.big {
            Some(buf) => buf,
            none => none.insert(platform::PageBuffer::new(BIG_BUFFER_SIZE)?),
        };
        Ok(buf.as_mut_slice())
    }

    /// Reads `fd` to its end (or a read error, returned), handing each chunk to `consume`.
    /// Reads go to the small buffer until one fills it, then to the big one when it can be had.
    fn read_all(&mut self, fd: Fd, mut consume: impl FnMut(&[u8])) -> Option<io::Error> {
        let mut big = false;
        loop {
            let buf = if big { self.big() } else { self.small() };
            let buf = match buf {
                Ok(buf) => buf,
                Err(err) => return Some(err),
            };
            let n = match platform::read(fd, buf) {
                Ok(0) => return None,
                Ok(n) => n,
                Err(err) => return Some(err),
            };
            consume(&buf[..n]);
            if n == BUFFER_SIZE && !big {
                // Large input: read-ahead advice now pays its syscall (small files, common in scripts, end sooner).
                platform::advise_sequential(fd);
                big = self.big().is_ok();
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
