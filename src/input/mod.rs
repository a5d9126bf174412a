//! A regular file's bytes, fed to `cat`'s formatter or `wc`'s counters the cheaper of two ways
//! here and now: from read-only mappings of the page cache, or by `read` into a buffer (GNU's).
//!
//! Which is cheaper depends on the CPU and on how the page cache holds the file, so it is timed as the file is fed:
//! stretches of up to [`STRETCH`] are the rounds of a [`Chooser`] kept from file to file. `RAPIDUTILS_INPUT=map|read`
//! forces one way. Figures: benches/RESULTS.md, "The input: mapping or reading".
//! A mapped file may shrink: the SIGBUS handler (`platform::Mapping`) maps zero pages past the new end. At a cut or a
//! stretch's end `fstat` gives the real size; a piece past it is fed again from the mark, reads take the rest.

pub mod choose;

use crate::platform::{self, Changing, Fd, FileInfo};
use choose::Chooser;
use std::cell::RefCell;
use std::io;

/// A stretch is mapped only when at least this much of the file is left.
pub const MAP_MIN: u64 = 2 << 20;
/// The most one mapping holds, keeping the resident set small; stretches end at its multiples, not to cut folios.
pub const STRETCH: u64 = 4 << 20;
/// A mapped round that measures maps at most this much (one 2 MiB folio whole).
pub const MAP_PROBE: u64 = 2 << 20;
/// A read round that measures reads at most this much.
pub const READ_PROBE: u64 = 1 << 20;

/// What is fed a file's bytes.
pub trait Consumer {
    /// The state before a piece, to go back to when the piece reached past the file's end.
    type Mark;
    type Error;
    fn mark(&self) -> Self::Mark;
    fn rewind(&mut self, mark: Self::Mark);
    /// Takes the next bytes, mapped or read: they may change while this runs (`Changing`).
    fn feed(&mut self, bytes: Changing<'_>);
    /// Whether output is due: [`Consumer::output`] runs once the bytes fed are confirmed and the offset is past them.
    fn output_due(&self) -> bool {
        false
    }
    fn output(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Where [`feed`] stops: a fixed offset (`u64::MAX`: the file's end, wherever that is then),
/// or where another thread's part of the file begins (`wc`'s two-thread split).
pub trait Bound {
    /// The end of the next stretch wanted from `from` to `to`: `to` or sooner.
    fn claim(&self, from: u64, to: u64) -> u64;
    /// Whether the bound may stop feeding before the file's end.
    fn bounded(&self) -> bool {
        true
    }
    /// The size of mapped stretches once mapping goes on without timing.
    fn mapped_stretch(&self) -> u64 {
        STRETCH
    }
    /// Told, after each stretch once it is known, whether mapping is the way for this file.
    fn maps(&self, _maps: bool) {}
}

impl Bound for u64 {
    fn claim(&self, from: u64, to: u64) -> u64 {
        to.min(*self).max(from)
    }

    fn bounded(&self) -> bool {
        *self != u64::MAX
    }
}

/// Why feeding stopped early.
#[derive(Debug)]
pub enum Stop<E> {
    /// Reading the file failed (what was read before was fed).
    Read(io::Error),
    Output(E),
}

/// The chooser's two ways of taking a file in: mapping or reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Map,
    Read,
}

/// The way `RAPIDUTILS_INPUT` forces, if any.
pub fn forced() -> Option<Way> {
    static FORCED: std::sync::OnceLock<Option<Way>> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| match std::env::var_os("RAPIDUTILS_INPUT")?.as_encoded_bytes() {
        b"map" => Some(Way::Map),
        b"read" => Some(Way::Read),
        _ => None,
    })
}

/// Feeds regular file `fd` from its offset to `end` (past the size `info` gave if it grew) to `consumer`, mapped in
/// pieces ending at multiples of `piece` (a page multiple) or read into `buf`. The offset is left at the end.
pub fn feed<C: Consumer>(
    fd: Fd,
    info: &FileInfo,
    buf: &mut [u8],
    piece: usize,
    consumer: &mut C,
    end: &impl Bound,
) -> Result<(), Stop<C::Error>> {
    // Advice and offset only where they matter: two syscalls less per small file.
    if info.size > buf.len() as u64 {
        platform::advise_sequential(fd);
    }
    let mut pos = if info.size >= MAP_MIN || end.bounded() { platform::current_offset(fd).ok() } else { None };
    // (No consumer feeds another file meanwhile: the borrow holds.)
    CHOOSER.with_borrow_mut(|chooser| {
        // This file alone may be unable to be mapped: the kept chooser is not told.
        let mut only = if platform::MAPPED_FILES && pos.is_some() { forced() } else { Some(Way::Read) };
        // Whether the file offset is behind `pos` (mapped stretches do not move it).
        let mut behind = false;
        while let Some(at) = pos.filter(|&at| info.size.saturating_sub(at) >= MAP_MIN) {
            let stretch = if only == Some(Way::Map) { end.mapped_stretch() } else { STRETCH };
            let len = end.claim(at, at + (info.size - at).min(stretch - at % stretch)).saturating_sub(at);
            if len == 0 {
                return Ok(());
            }
            let next = chooser.next();
            let round = Round::plan(at, len, only, next, chooser.is_chosen(next));
            let start = if round.timed { platform::thread_cpu_time() } else { None };
            let faults = if round.count_faults { platform::thread_minor_faults() } else { None };
            let (way, len) = (round.way, round.len);
            let fed = match way {
                Way::Map => {
                    let Ok(map) = platform::Mapping::new(fd, at, len as usize) else {
                        // Another file system, or no SIGBUS handler: read.
                        only = Some(Way::Read);
                        continue;
                    };
                    let mapped = feed_mapping(fd, at, &map, piece, consumer)?;
                    behind = true;
                    let after = faults.and_then(|_| platform::thread_minor_faults());
                    if let (Some(before), Some(after)) = (faults, after) {
                        if whole_folios(after.saturating_sub(before), mapped.len) {
                            only = Some(Way::Map);
                        }
                    }
                    if mapped.cut {
                        // The file ended inside the stretch (it shrank): reads take what follows.
                        pos = Some(at + mapped.len);
                        break;
                    }
                    mapped.len
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
            if let (None, Some(start), Some(now)) = (only, start, platform::thread_cpu_time()) {
                chooser.record(way, fed, now.saturating_sub(start));
            }
            if only.is_some() || chooser.timed_both() {
                end.maps(only.map_or(chooser.is_chosen(Way::Map), |way| way == Way::Map));
            }
            pos = pos.map(|at| at + fed);
        }
        if let Some(at) = pos.filter(|_| behind) {
            platform::seek_to(fd, at).map_err(Stop::Read)?;
        }
        let rest = match pos {
            Some(at) => end.claim(at, u64::MAX).saturating_sub(at),
            None if end.bounded() => 0,
            None => u64::MAX,
        };
        read_some(fd, buf, rest, consumer).map(drop)
    })
}

/// One round of [`feed`] over a stretch: which way, how many bytes, whether it is timed for the
/// chooser, and whether its page faults are counted (see [`whole_folios`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Round {
    way: Way,
    len: u64,
    timed: bool,
    count_faults: bool,
}

impl Round {
    /// The round from file offset `at` over the `len` bytes the bound leaves: untimed where
    /// `only` forces a way, else the chooser's `next` way, timed, and short while it is not yet
    /// `chosen` (it measures a cost per byte). A timed mapped round of whole folios counts faults.
    fn plan(at: u64, len: u64, only: Option<Way>, next: Way, chosen: bool) -> Round {
        if let Some(way) = only {
            return Round { way, len, timed: false, count_faults: false };
        }
        let len = match next {
            _ if chosen => len,
            Way::Read => len.min(READ_PROBE),
            // To the next 2 MiB boundary (the one after if near): a few pages would time map and unmap, not mapping.
            Way::Map => {
                let rest = MAP_PROBE - at % MAP_PROBE;
                len.min(if rest < MAP_PROBE / 2 { rest + MAP_PROBE } else { rest })
            }
        };
        let count_faults = next == Way::Map && at % MAP_PROBE == 0 && len % MAP_PROBE == 0;
        Round { way: next, len, timed: true, count_faults }
    }
}

/// Whether a mapping of `len` bytes from a 2 MiB boundary took at most two `faults` a 2 MiB folio
/// (small folios take one every 64 KiB): the file was read from disk, and mapping is cheaper.
fn whole_folios(faults: u64, len: u64) -> bool {
    len >= MAP_PROBE && faults * MAP_PROBE <= 2 * len
}

thread_local! {
    /// The chooser between mapping and reading, from one file to the next.
    static CHOOSER: RefCell<Chooser<Way>> = RefCell::new(Chooser::new([Way::Map, Way::Read], Way::Read, None));
}

/// Reads and feeds up to `len` bytes (fewer at the file's end); returns how many.
fn read_some<C: Consumer>(fd: Fd, buf: &mut [u8], len: u64, consumer: &mut C) -> Result<u64, Stop<C::Error>> {
    let mut got = 0;
    while got < len {
        let want = (len - got).min(buf.len() as u64) as usize;
        let n = platform::read(fd, &mut buf[..want]).map_err(Stop::Read)?;
        if n == 0 {
            break;
        }
        consumer.feed(Changing::of(&buf[..n]));
        got += n as u64;
        if consumer.output_due() {
            consumer.output().map_err(Stop::Output)?;
        }
    }
    Ok(got)
}

/// What one mapped stretch gave.
struct Mapped {
    /// How many of its bytes were the file's, and fed.
    len: u64,
    /// The file was found to end inside the stretch.
    cut: bool,
}

/// Feeds one mapped stretch from file offset `pos` in pieces ending at multiples of `piece`.
fn feed_mapping<C: Consumer>(
    fd: Fd,
    pos: u64,
    map: &platform::Mapping,
    piece: usize,
    consumer: &mut C,
) -> Result<Mapped, Stop<C::Error>> {
    let bytes = map.bytes();
    let mut at = 0;
    while at < bytes.len() {
        let end = ((pos + at as u64) / piece as u64 + 1) * piece as u64 - pos;
        let end = (end as usize).min(bytes.len());
        let mark = consumer.mark();
        consumer.feed(bytes.range(at..end));
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
                consumer.feed(bytes.range(at..real));
                return Ok(Mapped { len: real as u64, cut: true });
            }
            if cut.is_some() {
                return Ok(Mapped { len: end as u64, cut: true });
            }
        }
        at = end;
        if consumer.output_due() {
            platform::seek_to(fd, pos + at as u64).map_err(Stop::Read)?;
            consumer.output().map_err(Stop::Output)?;
        }
    }
    Ok(Mapped { len: bytes.len() as u64, cut: false })
}

#[cfg(test)]
mod tests {
    use super::{MAP_PROBE, READ_PROBE, Round, Way, whole_folios};

    #[test]
    fn rounds_that_measure_are_short_and_forced_ones_untimed() {
        const MIB: u64 = 1 << 20;
        let round = |way, len, timed, count_faults| Round { way, len, timed, count_faults };
        // (at, len, only, next, chosen) -> the round
        let table = [
            // A forced way takes the stretch whole, untimed, whatever the chooser says.
            ((0, 4 * MIB, Some(Way::Map), Way::Read, false), round(Way::Map, 4 * MIB, false, false)),
            ((0, 4 * MIB, Some(Way::Read), Way::Map, true), round(Way::Read, 4 * MIB, false, false)),
            // The chosen way goes on over the stretch, timed.
            ((4 * MIB, 4 * MIB, None, Way::Read, true), round(Way::Read, 4 * MIB, true, false)),
            ((4 * MIB, 4 * MIB, None, Way::Map, true), round(Way::Map, 4 * MIB, true, true)),
            ((0, 4 * MIB, None, Way::Read, false), round(Way::Read, READ_PROBE, true, false)),
            ((0, MIB / 2, None, Way::Read, false), round(Way::Read, MIB / 2, true, false)),
            // A mapping that measures maps to the next 2 MiB boundary: whole folios, faults count.
            ((0, 4 * MIB, None, Way::Map, false), round(Way::Map, MAP_PROBE, true, true)),
            // ... or to the one after, where the next is near.
            ((3 * MIB / 2, 4 * MIB, None, Way::Map, false), round(Way::Map, MAP_PROBE / 4 + MAP_PROBE, true, false)),
            ((MIB / 2, 4 * MIB, None, Way::Map, false), round(Way::Map, 3 * MIB / 2, true, false)),
            // A chosen mapping that ends off a boundary counts no faults.
            ((0, 3 * MIB, None, Way::Map, true), round(Way::Map, 3 * MIB, true, false)),
        ];
        for ((at, len, only, next, chosen), want) in table {
            assert_eq!(Round::plan(at, len, only, next, chosen), want, "at {at} len {len} {only:?} {next:?} {chosen}");
        }
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
}
