//! `wc`'s input: regular files counted from mappings of the page cache, ranges read with
//! `pread` for the two-thread split, the read buffers, bytes alone without reading (size,
//! splice to /dev/null), and `--files0-from`'s names.

use super::classes::ByteClasses;
use super::count::{self, Counter, Counts, Want};
use super::{BIG_BUFFER_SIZE, BUFFER_SIZE};
use crate::platform::{self, Charset, Fd, FileInfo, FileKind};
use std::io;
use std::os::fd::AsRawFd;

/// As much as one splice to /dev/null is asked to move: more than any pipe holds, so each call
/// moves what the pipe has.
const SPLICE_CHUNK: usize = 1 << 30;
/// Regular files with at least this much left are counted from a mapping of the page cache
/// (Linux, disk and memory file systems): no copy into a read buffer. Below it, reads cost less
/// than setting up a mapping.
const MAP_MIN: u64 = 1 << 20;
/// Files are mapped this much at a time (mapped pages count in the resident set).
const MAP_WINDOW: u64 = 4 << 20;
/// Within a window, the count is checked against a shrinking file after this much.
const MAP_PIECE: usize = 256 << 10;

/// Feeds what is left of the regular file `fd`, from its offset, to `feed` straight from
/// mappings of the page cache, MAP_WINDOW at a time, while at least MAP_MIN is left; then sets
/// the offset past what was fed (reads take the rest: a tail, a file that grew). Nothing
/// happens where files are not mapped (other systems, the portable build, /proc, pipes).
/// `info`: what `fstat` said of `fd` when its count began (None: it failed).
///
/// A file that shrinks meanwhile: the mapping's SIGBUS handler puts zero pages past its new
/// end and records where (`cut`). After each piece, the next page is touched (past the end,
/// that is a cut too) and, at a cut or a window's end, `fstat` gives the real size: a piece
/// that may hold bytes past the end is fed again from the state saved before it, up to the
/// end. `state` is cloned once per piece (a counter is a few hundred bytes).
pub(super) fn feed_mapped<S: Clone>(
    fd: Fd,
    info: Option<FileInfo>,
    state: &mut S,
    mut feed: impl FnMut(&mut S, &[u8]),
) -> io::Result<()> {
    let Some(info) = info.filter(|_| platform::MAPPED_FILES) else {
        return Ok(());
    };
    if info.kind != FileKind::Regular {
        return Ok(());
    }
    let Ok(start) = platform::current_offset(fd) else {
        return Ok(());
    };
    let mut pos = start;
    'windows: while info.size.saturating_sub(pos) >= MAP_MIN {
        let len = (info.size - pos).min(MAP_WINDOW) as usize;
        let Ok(map) = platform::Mapping::new(fd, pos, len) else {
            break;
        };
        let bytes = map.bytes();
        let mut at = 0;
        while at < len {
            let end = (at + MAP_PIECE).min(len);
            let saved = state.clone();
            feed(state, &bytes[at..end]);
            if end < len {
                // The page after the piece: past the file's end, this cuts the mapping.
                map.touch(end);
            }
            let cut = map.cut();
            if cut.is_some() || end == len {
                let size = platform::fstat(fd)?.size;
                let real = (size.saturating_sub(pos) as usize).min(cut.unwrap_or(usize::MAX));
                if real < end {
                    *state = saved;
                    let real = real.max(at);
                    feed(state, &bytes[at..real]);
                    pos += real as u64;
                    break 'windows;
                }
                if cut.is_some() {
                    pos += end as u64;
                    break 'windows;
                }
            }
            at = end;
        }
        pos += len as u64;
    }
    if pos != start {
        platform::seek_to(fd, pos)?;
    }
    Ok(())
}

/// Counts `fd` from offset `from` up to `to` (or its end) with `pread`, in 1 MiB pieces: with
/// `classes`, the full counter; else lines and bytes only.
pub(super) fn count_range(
    want: Want,
    classes: Option<&ByteClasses>,
    charset: Charset,
    fd: Fd,
    from: u64,
    to: Option<u64>,
) -> (Counts, Option<io::Error>) {
    let mut buf = match platform::PageBuffer::new(BIG_BUFFER_SIZE) {
        Ok(buf) => buf,
        Err(err) => return (Counts::default(), Some(err)),
    };
    let buf = buf.as_mut_slice();
    let mut counter = classes.map(|classes| Counter::new(want, classes, charset));
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
                    None => {
                        counts.bytes += n as u64;
                        counts.lines += count::count_lines(&buf[..n]);
                    }
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
pub(super) struct Buffers {
    small: Option<platform::PageBuffer>,
    big: Option<platform::PageBuffer>,
}

impl Buffers {
    pub(super) fn small(&mut self) -> io::Result<&mut [u8]> {
        if self.small.is_none() {
            self.small = Some(platform::PageBuffer::new(BUFFER_SIZE)?);
        }
        Ok(self.small.as_mut().expect("buffer just made").as_mut_slice())
    }

    /// Reads `fd` to its end (or a read error, returned), handing each chunk to `consume`.
    /// Reads go to the small buffer until one fills it, then to the big one when it can be had.
    pub(super) fn read_all(&mut self, fd: Fd, mut consume: impl FnMut(&[u8])) -> Option<io::Error> {
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

/// Bytes alone: from the size of a regular file when it can be trusted, reading what
/// follows the current offset otherwise. Leaves the offset at the end, as GNU does.
/// `info`: what `fstat` said of `fd`; `named`: a file wc opened itself, at offset 0, whose
/// offset does not matter afterwards.
pub(super) fn count_bytes_only(
    fd: Fd,
    info: Option<FileInfo>,
    named: bool,
    buffers: &mut Buffers,
    bytes: &mut u64,
) -> io::Result<()> {
    if let Some(info) = info {
        if info.kind == FileKind::Pipe && platform::ZERO_COPY {
            // A pipe: move its pages to /dev/null without copying, adding up what moved.
            if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
                loop {
                    match platform::splice(fd, null.as_raw_fd(), SPLICE_CHUNK) {
                        Ok(0) => return Ok(()),
                        Ok(n) => *bytes += n as u64,
                        // Not supported here: read the rest.
                        Err(err) if platform::is_unsupported(&err) => break,
                        Err(err) => return Err(err),
                    }
                }
            }
        }
        if info.kind == FileKind::Regular {
            let page = platform::page_size() as u64;
            let end = info.size;
            if named && end % page != 0 {
                // The common case: no offset to ask for or to leave at the end.
                *bytes = end;
                return Ok(());
            }
            let pos = if named { Ok(0) } else { platform::current_offset(fd) };
            if let Ok(pos) = pos {
                if end % page != 0 {
                    // GNU: sizes that are not a multiple of the page size are trusted.
                    let n = end.saturating_sub(pos);
                    if n > 0 && platform::seek_relative(fd, n as i64).is_ok() {
                        *bytes = n;
                        return Ok(());
                    }
                } else {
                    // /proc and /sys report 0 or a page: skip to near the end, read the rest.
                    let hi = end - end % (info.blksize.max(1) + 1);
                    if pos < hi && platform::seek_relative(fd, (hi - pos) as i64).is_ok() {
                        *bytes = hi - pos;
                    }
                }
            }
        }
    }
    let buf = buffers.small()?;
    platform::advise_sequential(fd);
    loop {
        match platform::read(fd, buf) {
            Ok(0) => return Ok(()),
            Ok(n) => *bytes += n as u64,
            Err(err) => return Err(err),
        }
    }
}

/// Reads NUL-terminated names (the last may lack its NUL) from a descriptor, a chunk at a time.
pub(super) struct NameReader {
    fd: Fd,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
}

impl NameReader {
    pub(super) fn new(fd: Fd) -> NameReader {
        NameReader { fd, buf: vec![0; BUFFER_SIZE], start: 0, end: 0, eof: false }
    }

    pub(super) fn next_name(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(p) = memchr::memchr(0, &self.buf[self.start..self.end]) {
                let name = self.buf[self.start..self.start + p].to_vec();
                self.start += p + 1;
                return Ok(Some(name));
            }
            if self.eof {
                if self.start < self.end {
                    let name = self.buf[self.start..self.end].to_vec();
                    self.start = self.end;
                    return Ok(Some(name));
                }
                return Ok(None);
            }
            // Keep the partial name, make room, read more.
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.end == self.buf.len() {
                self.buf.resize(self.buf.len() * 2, 0);
            }
            match platform::read(self.fd, &mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(err) => return Err(err),
            }
        }
    }
}
