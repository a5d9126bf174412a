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
//!
//! A file the previous step of a script has just written sits in the cache in small pages,
//! each mapped, faulted and unmapped on its own; read back from disk it sits in large
//! folios, mapped a few at a time. So each file is measured as it is fed: after a first
//! window read, one window goes each way, timed by this thread's CPU time (what the work cost here, not
//! how long the disk or another process kept us waiting), and the cheaper way takes the next
//! windows; every [`RECHECK`] windows the other way gets one window again, so a file whose
//! state changes part-way (half cached, half read back) follows it. The choice is
//! [`Chooser`], a pure function of the costs measured, tested without a clock.
//! `RAPIDUTILS_INPUT=map|read` forces one way (tests, comparisons).
//!
//! A mapped file can shrink under us: the mapping's SIGBUS handler (`platform::Mapping`)
//! puts zero pages past the new end and records where. After each piece the next page is
//! touched (past the end, that is such a cut too) and, at a cut or a window's end, `fstat`
//! gives the real size: a piece that may hold bytes past the end is fed again from the state
//! saved before it, up to that end, and reads take what follows (nothing, or what the file
//! grew by). Reads need no such care: they return what the file holds.

use crate::platform::{self, Fd, FileInfo};
use std::io;

/// A window is mapped only when at least this much of the file is left.
pub const MAP_MIN: u64 = 2 << 20;
/// The most one mapping holds (mapped pages count in the resident set, which stays small: a
/// 1 GiB line under `cat -n` peaks at 6 MiB), and what each timed window holds.
pub const WINDOW: u64 = 4 << 20;
/// After this many windows the way not taken is timed again on one window.
pub const RECHECK: u32 = 16;

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

/// The two ways in (their order indexes [`Chooser`]'s costs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Map = 0,
    Read = 1,
}

/// Which way takes the next window, from what each cost (CPU nanoseconds per byte of its last
/// window): a first window read and not timed (it pays for what any first window pays: the
/// kernel's and our first steps, cold caches), then one mapped, one read, the cheaper, and
/// every [`RECHECK`] windows the other once.
#[derive(Clone, Debug)]
pub struct Chooser {
    /// The first window is fed.
    warm: bool,
    /// Per way (Map, Read): its last cost; None until timed.
    cost: [Option<f64>; 2],
    /// Windows fed the cheaper way since the other was last timed.
    since_check: u32,
    /// A way forced, or the only one there is (no mapping here).
    only: Option<Way>,
}

impl Chooser {
    pub fn new(only: Option<Way>) -> Chooser {
        Chooser { warm: false, cost: [None, None], since_check: 0, only }
    }

    /// The way for the next window.
    pub fn next(&self) -> Way {
        if let Some(way) = self.only {
            return way;
        }
        match self.cost {
            _ if !self.warm => Way::Read,
            [None, _] => Way::Map,
            [_, None] => Way::Read,
            [Some(map), Some(read)] => match (map <= read, self.since_check >= RECHECK) {
                (true, false) | (false, true) => Way::Map,
                (true, true) | (false, false) => Way::Read,
            },
        }
    }

    /// The window [`Chooser::next`] gave was fed `bytes` for `nanos` of CPU time.
    pub fn record(&mut self, way: Way, bytes: u64, nanos: u64) {
        if bytes == 0 {
            return;
        }
        if !self.warm {
            self.warm = true;
            return;
        }
        let timed_both = self.cost.iter().all(Option::is_some);
        let checking = timed_both && self.since_check >= RECHECK;
        self.cost[way as usize] = Some(nanos as f64 / bytes as f64);
        if checking {
            self.since_check = 0;
        } else if timed_both {
            self.since_check += 1;
        }
    }

    /// Mapping failed here (another file system, no SIGBUS handler): read from now on.
    pub fn cannot_map(&mut self) {
        self.only = Some(Way::Read);
    }
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
pub fn feed<C: Consumer>(
    fd: Fd,
    info: &FileInfo,
    buf: &mut [u8],
    piece: usize,
    consumer: &mut C,
) -> Result<(), Stop<C::Error>> {
    platform::advise_sequential(fd);
    let mut pos = platform::current_offset(fd).ok();
    let mut chooser = Chooser::new(if platform::MAPPED_FILES && pos.is_some() { forced() } else { Some(Way::Read) });
    // Whether the file offset is behind `pos` (mapped windows do not move it).
    let mut behind = false;
    // Windows while the file (as it was) has at least MAP_MIN left.
    while let Some(at) = pos.filter(|&at| info.size.saturating_sub(at) >= MAP_MIN) {
        let len = (info.size - at).min(WINDOW);
        let way = chooser.next();
        let start = platform::thread_cpu_time();
        let fed = match way {
            Way::Map => {
                let Ok(map) = platform::Mapping::new(fd, at, len as usize) else {
                    chooser.cannot_map();
                    continue;
                };
                let window = feed_window(fd, at, &map, piece, consumer)?;
                behind = true;
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
        if let (Some(start), Some(end)) = (start, platform::thread_cpu_time()) {
            chooser.record(way, fed, end.saturating_sub(start));
        }
        pos = pos.map(|at| at + fed);
    }
    if let Some(at) = pos.filter(|_| behind) {
        platform::seek_to(fd, at).map_err(Stop::Read)?;
    }
    read_some(fd, buf, u64::MAX, consumer).map(drop)
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
    use super::*;

    /// Records `way` at `cost` nanoseconds per byte over a 4 MiB window.
    fn window(chooser: &mut Chooser, cost: f64) -> Way {
        let way = chooser.next();
        chooser.record(way, WINDOW, (cost * WINDOW as f64) as u64);
        way
    }

    #[test]
    fn both_ways_are_timed_then_the_cheaper_goes_on_and_the_other_is_rechecked() {
        let mut chooser = Chooser::new(None);
        assert_eq!(window(&mut chooser, 9.0), Way::Read);
        assert_eq!(window(&mut chooser, 0.2), Way::Map);
        assert_eq!(window(&mut chooser, 0.1), Way::Read);
        for _ in 0..RECHECK {
            assert_eq!(window(&mut chooser, 0.1), Way::Read);
        }
        // The recheck: mapping is now the cheaper (the file's pages changed), and goes on.
        assert_eq!(window(&mut chooser, 0.05), Way::Map);
        for _ in 0..RECHECK {
            assert_eq!(window(&mut chooser, 0.05), Way::Map);
        }
        assert_eq!(window(&mut chooser, 0.5), Way::Read);
        assert_eq!(chooser.next(), Way::Map);
    }

    #[test]
    fn the_cheaper_way_keeps_its_cost_up_to_date() {
        let mut chooser = Chooser::new(None);
        window(&mut chooser, 9.0);
        window(&mut chooser, 0.1);
        window(&mut chooser, 0.2);
        assert_eq!(window(&mut chooser, 0.3), Way::Map);
        // Mapping got dearer than reading was: reading takes over before any recheck.
        assert_eq!(chooser.next(), Way::Read);
    }

    #[test]
    fn a_forced_or_the_only_way_is_always_taken() {
        for way in [Way::Map, Way::Read] {
            let mut chooser = Chooser::new(Some(way));
            for cost in [0.1, 9.0, 0.01, 5.0] {
                assert_eq!(window(&mut chooser, cost), way);
            }
        }
        let mut chooser = Chooser::new(None);
        chooser.cannot_map();
        assert_eq!(window(&mut chooser, 1.0), Way::Read);
        assert_eq!(window(&mut chooser, 9.0), Way::Read);
    }

    #[test]
    fn an_empty_window_changes_nothing() {
        let mut chooser = Chooser::new(None);
        chooser.record(Way::Read, 0, 100);
        assert_eq!(chooser.next(), Way::Read);
        window(&mut chooser, 1.0);
        chooser.record(Way::Map, 0, 100);
        assert_eq!(chooser.next(), Way::Map);
    }
}
