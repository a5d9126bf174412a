//! A regular file's bytes, fed to `cat`'s formatter or `wc`'s counters by the cheaper of two
//! ways on this machine, now: from read-only mappings of the page cache (no copy into a
//! buffer), or by `read` into a reused buffer (GNU's and uutils' way).
//!
//! Which is cheaper is not a property of the program. It depends on the CPU and on how the
//! page cache holds the file. Counting the lines of 100 MB on one CPU (ms, mapping / reading):
//!
//! | machine | written in 4 KiB writes | copied by `cp` | read back from disk |
//! |---|---|---|---|
//! | Intel Xeon (Sapphire Rapids), Linux 6.18: a count loop, 4 MiB windows / 256 KiB reads | 14.6 / 21.3 | 9.5 / 14.5 | 5.1 / 13.6 |
//! | AMD EPYC (Zen 3), Linux 6.18: `wc -l` of rapidutils (mapped) / of uutils (read) | 19.9 / 16.1 | 14.5 / 12.6 | 9.0 / 12.3 |
//! | AMD EPYC (Zen 5), Linux 6.18: a count loop, 4 MiB windows on 4 MiB boundaries / 256 KiB reads | 15.9 / 8.5 | | 5.8 / 7.5 |
//!
//! A file the previous step of a script has just written sits in the cache in small pages,
//! each mapped, faulted and unmapped on its own; read back from disk it sits in large
//! folios, mapped a few at a time. So the files are measured as they are fed, 4 MiB windows
//! being the rounds of a [`Chooser`]: a first round read and one mapped (not timed), then
//! one each way, then the cheaper, the other rechecked now and then; a round that only
//! measures takes [`READ_PROBE`] read or [`MAP_PROBE`] mapped. Windows end on multiples of
//! [`WINDOW`], so that they do not cut the folios of a file read back from disk. One thing is
//! not left to timing: a mapped round that took a page fault per 2 MiB, not per 64 KiB,
//! found the file in whole 2 MiB folios, which every machine measured maps cheaper than it
//! reads, and the file is mapped to its end (`whole_folios`).
//! `RAPIDUTILS_INPUT=map|read` forces one way (tests, comparisons).
//!
//! The chooser goes on from one file to the next, its rechecks too (a next file in another
//! state is followed as a file that changes part-way is): the files of one command mostly
//! come from the same step of a script. Measured again for each file, the first 5 MiB of each
//! 8 MB file went to rounds that measure (a MiB read and a MiB mapped, untimed, then 2 MiB
//! mapped and a MiB read, timed), and 30 such files (one cached file named 30 times) cost
//! `wc -l` 1.14x what reading them forced did, slower than uutils; kept across files, at
//! parity with uutils (AMD EPYC Zen 4; figures in benches/RESULTS.md).
//!
//! A mapped file can shrink under us: the mapping's SIGBUS handler (`platform::Mapping`)
//! puts zero pages past the new end and records where. After each piece the next page is
//! touched (past the end, that is such a cut too) and, at a cut or a window's end, `fstat`
//! gives the real size: a piece that may hold bytes past the end is fed again from the state
//! saved before it, up to that end, and reads take what follows (nothing, or what the file
//! grew by). Reads need no such care: they return what the file holds.

use super::choose::Chooser;
use crate::platform::{self, Fd, FileInfo};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// A window is mapped only when at least this much of the file is left.
pub const MAP_MIN: u64 = 2 << 20;
/// The most one mapping holds (mapped pages count in the resident set, which stays small: a
/// 1 GiB line under `cat -n` peaks at 6 MiB). Windows end at file offsets that are multiples
/// of it: the page cache holds a file read back from disk in folios of up to 2 MiB, aligned in
/// the file, and a window that cuts them costs more (100 MB in 4 MiB windows starting 1 MiB or
/// 64 KiB past such a boundary: 14.7 and 15.5 ms against 9.7 aligned, a count loop, AMD EPYC
/// Zen 5; after the 1 MiB that measures reading, every window of `wc -l` was cut so).
pub const WINDOW: u64 = 4 << 20;

/// Mapped windows of a file shared with a second thread (see [`Share`]), once mapping goes on
/// without timing: each unmapping in a process of two running threads makes the kernel flush
/// the other CPU's TLB by an interrupt, and fewer, larger windows take fewer.
pub const SHARED_WINDOW: u64 = 32 << 20;

/// A mapped round that measures, rather than works, maps at most this much, up to a multiple
/// of it (a folio of 2 MiB whole): on a file just written, whose page cache is small pages,
/// mapping costs twice what reading does (AMD EPYC Zen 5), and the rounds that check it again
/// cost half what a whole window would. 2 MiB windows cost 4 % more than 4 MiB ones where
/// mapping suits (100 MB read back from disk, the same machine).
pub const MAP_PROBE: u64 = 2 << 20;

/// A read round that measures, rather than works, reads at most this much: on a file the
/// mapping suits (reading it costs 1.5 times as much, `wc -l` of 100 MB read back from disk on
/// an Intel Xeon, Sapphire Rapids), the five such rounds of 100 MB read 5 MiB, not 20 MiB.
pub const READ_PROBE: u64 = 1 << 20;

/// What is fed a file's bytes.
pub trait Consumer {
    /// The state before a piece, to go back to when the piece reached past the file's end.
    type Mark;
    /// Why output failed.
    type Error;
    fn mark(&self) -> Self::Mark;
    fn rewind(&mut self, mark: Self::Mark);
    fn feed(&mut self, bytes: &[u8]);
    /// Whether output is due; if so [`Consumer::output`] is called once every byte fed is
    /// known to be the file's and the file offset is past them (a next reader of a shared
    /// stdin, or one after a failed write, goes on from there).
    fn output_due(&self) -> bool {
        false
    }
    fn output(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Why feeding stopped early.
#[derive(Debug)]
pub enum Stop<E> {
    /// Reading the file failed (what was read before was fed).
    Read(io::Error),
    /// The consumer's output failed.
    Output(E),
}

/// The two ways in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Map,
    Read,
}

/// The way `RAPIDUTILS_INPUT` forces, if any.
fn forced() -> Option<Way> {
    static FORCED: std::sync::OnceLock<Option<Way>> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| match std::env::var_os("RAPIDUTILS_INPUT")?.as_encoded_bytes() {
        b"map" => Some(Way::Map),
        b"read" => Some(Way::Read),
        _ => None,
    })
}

/// Feeds what is left of the regular file `fd` (from its offset to its end, also past the
/// size `info` gave if it grew) to `consumer`: mapped pieces end at file offsets that are
/// multiples of `piece` (a multiple of the page size), reads fill `buf`. The offset is left
/// at the end.
///
/// With `share`, another thread takes the file from its end (see [`Share`]): this one stops
/// where that one's bytes begin, or where `Share::ending_at` puts the end.
pub fn feed<C: Consumer>(
    fd: Fd,
    info: &FileInfo,
    buf: &mut [u8],
    piece: usize,
    consumer: &mut C,
    share: Option<&Share>,
) -> Result<(), Stop<C::Error>> {
    // Read-ahead advice matters only where more than a buffer is read, and the offset only where
    // windows may be mapped or shared: a smaller file is read to its end from wherever it is
    // (two system calls less for each of many small files).
    if info.size > buf.len() as u64 {
        platform::advise_sequential(fd);
    }
    let mut pos = if info.size >= MAP_MIN || share.is_some() { platform::current_offset(fd).ok() } else { None };
    // This file alone may be unable to be mapped: the chooser that goes on is not told.
    let mut only = if platform::MAPPED_FILES && pos.is_some() { forced() } else { Some(Way::Read) };
    let mut chooser = KeptChooser::take();
    // Whether the file offset is behind `pos` (mapped windows do not move it).
    let mut behind = false;
    // Windows while the file (as it was) has at least MAP_MIN left.
    while let Some(at) = pos.filter(|&at| info.size.saturating_sub(at) >= MAP_MIN) {
        let window = if share.is_some() && only == Some(Way::Map) { SHARED_WINDOW } else { WINDOW };
        let mut len = (info.size - at).min(window - at % window);
        if let Some(share) = share {
            len = share.claim_front(at, at + len).saturating_sub(at);
            if len == 0 {
                return Ok(());
            }
        }
        let way = only.unwrap_or_else(|| chooser.next());
        if only.is_none() && !chooser.favours(way) {
            // A round that measures: its cost is per byte, and short enough is as good as
            // long (a mapping's within a few per cent; see MAP_PROBE).
            len = match way {
                Way::Read => len.min(READ_PROBE),
                // Up to the next 2 MiB boundary, or the one after where that is near: a few
                // pages mapped would time the map and unmap, not the mapping.
                Way::Map => {
                    let rest = MAP_PROBE - at % MAP_PROBE;
                    len.min(if rest < MAP_PROBE / 2 { rest + MAP_PROBE } else { rest })
                }
            };
        }
        let start = if only.is_none() { platform::thread_cpu_time() } else { None };
        // A mapped round over whole 2 MiB stretches of the file, while the way is chosen by
        // timing, counts its page faults (two system calls; the first stretches of a file read
        // from disk may be in smaller folios, the read-ahead's first).
        let look = way == Way::Map && only.is_none() && at % MAP_PROBE == 0 && len % MAP_PROBE == 0;
        let faults = if look { platform::thread_minor_faults() } else { None };
        let fed = match way {
            Way::Map => {
                let Ok(map) = platform::Mapping::new(fd, at, len as usize) else {
                    // Another file system, or no SIGBUS handler: read.
                    only = Some(Way::Read);
                    continue;
                };
                let window = feed_window(fd, at, &map, piece, consumer)?;
                behind = true;
                if let (Some(before), Some(after)) = (faults, look.then(platform::thread_minor_faults).flatten()) {
                    if whole_folios(after.saturating_sub(before), window.len) {
                        only = Some(Way::Map);
                    }
                }
                if window.cut {
                    // The file ended inside the window (it shrank): reads take what follows.
                    pos = Some(at + window.len);
                    break;
                }
                window.len
            }
            Way::Read => {
                if behind {
                    platform::seek_to(fd, at).map_err(Stop::Read)?;
                    behind = false;
                }
                let got = read_some(fd, buf, len, consumer)?;
                if got < len {
                    // The file ended sooner than its size said: nothing is left.
                    return Ok(());
                }
                got
            }
        };
        if let (None, Some(start), Some(end)) = (only, start, platform::thread_cpu_time()) {
            chooser.record(way, fed, end.saturating_sub(start));
        }
        if let Some(share) = share.filter(|_| only.is_some() || chooser.timed_both()) {
            share.front_maps.store(only.map_or(chooser.favours(Way::Map), |way| way == Way::Map), Ordering::Relaxed);
        }
        pos = pos.map(|at| at + fed);
    }
    if let Some(at) = pos.filter(|_| behind) {
        platform::seek_to(fd, at).map_err(Stop::Read)?;
    }
    // To the end of the file (past the size it had if it grew), or where the other thread's
    // chunks begin.
    let rest = match (share, pos) {
        (Some(share), Some(at)) => share.claim_front(at, u64::MAX).saturating_sub(at),
        (Some(_), None) => 0,
        (None, _) => u64::MAX,
    };
    read_some(fd, buf, rest, consumer).map(drop)
}

/// Whether a mapping of `len` bytes from a 2 MiB boundary that took `faults` page faults was
/// mapped a whole 2 MiB folio at a time: at most two faults a folio, where pages the writer
/// left in the page cache (small folios) take one every 64 KiB (the kernel's fault-around).
/// Such a file came into the cache read from disk, and mapping it costs less than reading it
/// on every machine measured (`wc -l` of 100 MB, ms, mapped / read: Intel Xeon Sapphire Rapids
/// 5.1 / 13.6, AMD EPYC Zen 3 9.0 / 12.3, Zen 4 8.6 / 13.3, Zen 5 5.8 / 7.5): it is mapped to its
/// end without timing reads against it. Small folios are left to the timing, which differs by
/// machine (mapped / read: Sapphire Rapids 14.6 / 21.3, Zen 4 15.5 / 17.1, Zen 5 15.9 / 8.5).
fn whole_folios(faults: u64, len: u64) -> bool {
    len >= MAP_PROBE && faults * MAP_PROBE <= 2 * len
}

thread_local! {
    /// The chooser between mapping and reading, from one file to the next (see the module's
    /// documentation).
    static CHOOSER: std::cell::Cell<Option<Chooser<Way>>> = const { std::cell::Cell::new(None) };
}

/// The thread's chooser while a file is fed, put back for the next file when dropped (also
/// when feeding stops early).
struct KeptChooser(Chooser<Way>);

impl KeptChooser {
    fn take() -> KeptChooser {
        KeptChooser(CHOOSER.take().unwrap_or_else(|| Chooser::new([Way::Map, Way::Read], Way::Read, None)))
    }
}

impl std::ops::Deref for KeptChooser {
    type Target = Chooser<Way>;
    fn deref(&self) -> &Chooser<Way> {
        &self.0
    }
}

impl std::ops::DerefMut for KeptChooser {
    fn deref_mut(&mut self) -> &mut Chooser<Way> {
        &mut self.0
    }
}

impl Drop for KeptChooser {
    fn drop(&mut self) {
        CHOOSER.set(Some(self.0.clone()));
    }
}

/// A file fed by two threads at once: one from the front by [`feed`], one taking chunks from
/// the end by [`feed_end`], each cut where the other may start (for `wc`: after a line end,
/// where every count can be cut); or by the front alone up to a fixed end
/// (`Share::ending_at`). Neither waits for the other: if the second gets no CPU, the first
/// does it all; at the end the first waits at most for the chunk the second is on.
pub struct Share {
    /// The end of what the front has claimed, and the start of what the end has (u64::MAX
    /// while it has nothing: the front goes on to the file's end, wherever that is then).
    bounds: std::sync::Mutex<(u64, u64)>,
    /// Whether the front maps the file, having found that cheaper here (or been told to), or,
    /// until it has timed both ways, whether mapping may be tried (see [`Share::new`]): the end
    /// then maps its chunks too, where it reads them otherwise.
    front_maps: AtomicBool,
}

impl Share {
    /// A file whose front begins at `front` (its offset). Until the front has timed both ways,
    /// the end maps (unless reading is forced or nothing is mapped here): mapping a file read
    /// back from disk, the usual state of a large one, costs less than reading it on every
    /// machine measured, and where the front finds otherwise the end follows it.
    pub fn new(front: u64) -> Share {
        let maps = platform::MAPPED_FILES && forced() != Some(Way::Read);
        Share { bounds: std::sync::Mutex::new((front, u64::MAX)), front_maps: AtomicBool::new(maps) }
    }

    /// A file read from its front alone, up to `end` and no further, whatever it grows to.
    pub fn ending_at(end: u64) -> Share {
        Share { bounds: std::sync::Mutex::new((0, end)), front_maps: AtomicBool::new(false) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, u64)> {
        self.bounds.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The front's next stretch, from `from` to `to` at most: returns its end, where the
    /// end's chunks begin if sooner (`from` or less: nothing is left).
    pub fn claim_front(&self, from: u64, to: u64) -> u64 {
        let mut bounds = self.lock();
        let end = to.min(bounds.1).max(from);
        bounds.0 = end;
        end
    }

    /// Whether the front maps the file (see [`feed`]): the end's chunks are cheaper mapped too.
    pub fn front_maps(&self) -> bool {
        self.front_maps.load(Ordering::Relaxed)
    }

    /// Where the end's chunks begin now (u64::MAX: none yet).
    pub fn back(&self) -> u64 {
        self.lock().1
    }

    /// The end's next chunk, from `start` to where its last began: returns that (u64::MAX for
    /// the first: to the file's end), or None when the front has come past `start` (the chunk
    /// is the front's).
    pub fn claim_back(&self, start: u64) -> Option<u64> {
        let mut bounds = self.lock();
        if start < bounds.0 || start >= bounds.1 {
            return None;
        }
        Some(std::mem::replace(&mut bounds.1, start))
    }
}

/// The end of a file shared with a front fed by [`feed`] (see [`Share`]), fed on a second
/// thread: chunks of `end_chunk` bytes from the end (`size`, what `fstat` said) backwards,
/// each starting after a `cut` byte (for `wc` a line end: no count spans one, so the chunks'
/// counts add up), each fed to a consumer of its own from `fresh` and handed to `done`. A
/// chunk is mapped where the front maps the file (the cheaper way here, its chooser found),
/// else read with `pread` into `buf`. The first chunk reads on past `size` (a file that grew):
/// mapped up to `size`, it is fed again by `pread` where something follows. Stops at the
/// first read error (the chunk's consumer, fed what was read, is handed on first).
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
        // From the first cut after a 2 MiB boundary, so that a mapped chunk starts close to
        // one (see `feed_mapped`).
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

/// The second thread's chunks for a file of `size` bytes: a thirty-second of it, from 4 to
/// 16 MiB. Mapped, each is unmapped at its end, and in a process of two running threads that
/// interrupts the other CPU to flush its TLB (213 such interrupts for `wc -l` of 1 GiB in 4 MiB
/// chunks and windows, against 5 for fcoreutils, which maps the file once: 51 with 16 MiB
/// chunks); at the end the front waits at most for the chunk the second thread is on, and on
/// a smaller file a large chunk leaves the work unevenly shared.
fn end_chunk(size: u64) -> u64 {
    (size / 32).clamp(4 << 20, 16 << 20)
}

/// The page cache holds a file read back from disk in folios of up to 2 MiB, aligned in the
/// file; a mapping whose addresses are aligned with the file's offsets maps each with one
/// page-table entry (one fault), where an unaligned one takes a fault every 64 KiB of it.
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

/// Feeds `fd` from offset `from` up to `to` mapped: false where it cannot be mapped, or when
/// the file turned out to end before `to` (what was fed then holds zeros, not the file's bytes).
///
/// The mapping runs from the 2 MiB boundary at or below `from` to the one at or above `to`
/// (the bytes around the chunk are mapped, not fed, nor touched): the kernel puts a mapping
/// of 2 MiB or more at an address aligned alike, and then maps each folio of 2 MiB at once
/// ([`FOLIO`]).
fn feed_mapped<C: Consumer>(fd: Fd, from: u64, to: u64, consumer: &mut C) -> bool {
    let aligned = from / FOLIO * FOLIO;
    let end = to.div_ceil(FOLIO) * FOLIO;
    let Some(map) = usize::try_from(end - aligned).ok().and_then(|len| platform::Mapping::new(fd, aligned, len).ok())
    else {
        return false;
    };
    consumer.feed(&map.bytes()[(from - aligned) as usize..(to - aligned) as usize]);
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
                consumer.feed(&buf[..n]);
                pos += n as u64;
            }
        }
    }
}

/// Reads up to `len` bytes (fewer at the end of the file) into `buf` a buffer at a time,
/// feeding each read; returns how many were read.
fn read_some<C: Consumer>(fd: Fd, buf: &mut [u8], len: u64, consumer: &mut C) -> Result<u64, Stop<C::Error>> {
    let mut got = 0;
    while got < len {
        let want = (len - got).min(buf.len() as u64) as usize;
        let n = platform::read(fd, &mut buf[..want]).map_err(Stop::Read)?;
        if n == 0 {
            break;
        }
        consumer.feed(&buf[..n]);
        got += n as u64;
        if consumer.output_due() {
            consumer.output().map_err(Stop::Output)?;
        }
    }
    Ok(got)
}

/// What one mapped window gave.
struct Window {
    /// How many of its bytes were the file's, and fed.
    len: u64,
    /// The file was found to end inside the window.
    cut: bool,
}

/// Feeds one mapped window, starting at file offset `pos`, in pieces ending at multiples of
/// `piece` (see the module's comment for a file that shrinks meanwhile).
fn feed_window<C: Consumer>(
    fd: Fd,
    pos: u64,
    map: &platform::Mapping,
    piece: usize,
    consumer: &mut C,
) -> Result<Window, Stop<C::Error>> {
    let bytes = map.bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = ((pos + at as u64) / piece as u64 + 1) * piece as u64 - pos;
        let end = (end as usize).min(bytes.len());
        let mark = consumer.mark();
        consumer.feed(&bytes[at..end]);
        if end < bytes.len() {
            // The page after the piece: past the file's end, this cuts the mapping.
            map.touch(end);
        }
        let cut = map.cut();
        if cut.is_some() || end == bytes.len() {
            let size = platform::fstat(fd).map_err(Stop::Read)?.size;
            let real = (size.saturating_sub(pos) as usize).min(cut.unwrap_or(usize::MAX));
            if real < end {
                consumer.rewind(mark);
                let real = real.max(at);
                consumer.feed(&bytes[at..real]);
                return Ok(Window { len: real as u64, cut: true });
            }
            if cut.is_some() {
                return Ok(Window { len: end as u64, cut: true });
            }
        }
        at = end;
        if consumer.output_due() {
            platform::seek_to(fd, pos + at as u64).map_err(Stop::Read)?;
            consumer.output().map_err(Stop::Output)?;
        }
    }
    Ok(Window { len: bytes.len() as u64, cut: false })
}

#[cfg(test)]
mod tests {
    use super::{Consumer, MAP_PROBE, Share, feed_end, whole_folios};
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
        fn feed(&mut self, bytes: &[u8]) {
            self.0.extend_from_slice(bytes);
        }
    }

    /// With no front taking anything, the end's chunks are the file from where the front is
    /// told to stop to its end: each after a line end, none twice. They are read here: under
    /// the test harness Rust's runtime holds SIGBUS (its stack-overflow handler), so nothing
    /// is mapped; the mapped chunks are tested through the binary
    /// (`tests/wc_shape.rs`, `both_threads_map_a_large_file_where_the_first_maps`, and
    /// `tests/wc_diff.rs`, `large_files_counted_on_two_threads_as_on_one`).
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
    fn whole_folios_take_a_fault_or_two_each() {
        // 4 MiB: one fault a 2 MiB folio (two), or two each (the first touch and the page
        // after a piece); small folios take one every 64 KiB (64).
        assert!(whole_folios(2, 2 * MAP_PROBE));
        assert!(whole_folios(4, 2 * MAP_PROBE));
        assert!(!whole_folios(5, 2 * MAP_PROBE));
        assert!(!whole_folios(64, 2 * MAP_PROBE));
        // Less than a folio says nothing.
        assert!(!whole_folios(0, MAP_PROBE / 2));
    }

    #[test]
    fn the_front_and_the_end_never_claim_the_same_bytes() {
        let share = Share::new(100);
        assert_eq!(share.claim_front(100, 300), 300);
        assert_eq!(share.back(), u64::MAX);
        assert_eq!(share.claim_back(800), Some(u64::MAX));
        assert_eq!(share.back(), 800);
        // A chunk below what the front holds, or at or past the end's start, is not the end's.
        assert_eq!(share.claim_back(250), None);
        assert_eq!(share.claim_back(800), None);
        assert_eq!(share.claim_front(300, 900), 800);
        assert_eq!(share.claim_front(800, 900), 800, "nothing left between");
        assert_eq!(share.claim_back(700), None);
        let share = Share::new(0);
        assert_eq!(share.claim_back(4), Some(u64::MAX));
        assert_eq!(share.claim_back(0), Some(4));
        assert_eq!(share.claim_front(0, 5), 0);
        // Nothing claimed from the end: the front goes on as far as it asks.
        let share = Share::new(0);
        assert_eq!(share.claim_front(0, u64::MAX), u64::MAX);
    }
}
