//! Plain `cat` (no formatting option): move the bytes of one input to stdout by the cheapest
//! means the pair of file types allows, falling back to read/write at exactly the byte where
//! a zero-copy call gave up.
//!
//! | input \ output   | pipe   | regular file      | anything else (socket, /dev/null, tty) |
//! |------------------|--------|-------------------|----------------------------------------|
//! | regular file     | splice | copy_file_range (across file systems: splice through a relay pipe) | splice through a relay pipe (char devices such as /dev/null), else sendfile |
//! | pipe             | splice | splice            | splice                                 |
//! | other (device, socket, tty) | splice through a relay pipe | splice through a relay pipe | splice through a relay pipe |
//!
//! The zero-copy calls use and advance the file offsets, so when one gives up the read/write
//! loop simply continues: nothing is lost or repeated. A call the pair of files does not support
//! (EINVAL, ENOSYS, EXDEV, EBADF, EPERM, EAGAIN and the like: `is_unsupported`) hands over to
//! read/write; any other error is reported as GNU reports it, against the side it belongs to
//! (`cat: NAME: ...` for the input, `cat: write error: ...` for the output; every
//! copy_file_range error against the input, as GNU 9.12 does).

use crate::common::choose::Chooser;
use crate::common::sink;
use crate::platform::{self, Fd, FileInfo, FileKind};
use std::io;
use std::os::fd::AsRawFd;

/// The read/write buffer: GNU's io_blksize minimum.
pub const BUFFER_SIZE: usize = 128 * 1024;
/// Regular files up to this size go into a pipe of the default size.
const SMALL_FILE: u64 = 64 * 1024;
/// How much one zero-copy call is asked to move.
const CHUNK: usize = 1 << 30;

/// Why copying one input stopped early.
#[derive(Debug)]
pub enum CopyError {
    /// Reading the input failed: report `cat: NAME: error` and go on with the next input.
    Read(io::Error),
    /// Writing stdout failed: report `cat: write error: error` and stop.
    Write(io::Error),
}

/// One way of moving bytes from an input to an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Splice,
    CopyFileRange,
    Sendfile,
    /// splice into a private pipe, then from it to the output: measured 61 GiB/s against 53 for
    /// sendfile (whose internal pipe is small) for `cat big > /dev/null`.
    Relay,
    ReadWrite,
}

/// What the system offers (the build's and the kernel's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calls {
    /// splice, tee, vmsplice (Linux, not the portable build).
    pub splice: bool,
    /// copy_file_range (Linux and FreeBSD, not the portable build).
    pub copy_file_range: bool,
}

/// The methods to try for one input, in order: when one says "not supported here" (at any
/// point: the offsets tell where the data stands), the next goes on. Read/write always ends
/// the list. `small`: a regular input of at most SMALL_FILE bytes (a relay pipe is not worth
/// its set-up for it).
pub fn plan(input: FileKind, small: bool, output: FileKind, calls: Calls) -> Vec<Method> {
    use FileKind::*;
    let mut methods = Vec::with_capacity(3);
    if calls.splice {
        match (input, output) {
            (Directory, _) => {}
            (Pipe, _) | (Regular, Pipe) => methods.push(Method::Splice),
            // A regular file into a regular file: copy_file_range, GNU 9.12's call (one or two
            // calls for 1 GiB, the page cache copied in the kernel; on ext4 measured stable at
            // 0.30 s where the relay took 0.3-1.2 s). Across file systems it says EXDEV: the
            // relay, then, as GNU's own splice through a pipe.
            (Regular, Regular) => {
                methods.push(Method::CopyFileRange);
                if !small {
                    methods.push(Method::Relay);
                }
            }
            (Regular, CharDevice) if !small => methods.extend([Method::Relay, Method::Sendfile]),
            (Regular, _) => methods.push(Method::Sendfile),
            // A terminal, socket or device may wait for its data inside splice, and the kernel
            // holds the output pipe's lock all that time: the reader of stdout could not take
            // what is already in it (a terminal's line showed only when the next one was typed).
            // Our own relay pipe takes that wait, as GNU's intermediate pipe does. Into a file,
            // device or socket too, as GNU 9.12 (its splice errors reported per side).
            _ => methods.push(Method::Relay),
        }
    } else if calls.copy_file_range && input == Regular && output == Regular {
        // FreeBSD: copy_file_range without the splice family.
        methods.push(Method::CopyFileRange);
    }
    methods.push(Method::ReadWrite);
    methods
}

/// Small regular files into a device or socket (`cat` of many files `> /dev/null`) go by
/// `sendfile` or by read/write, whichever is cheaper here: 10,000 files of 1 KiB into
/// /dev/null took 84.6 ms by sendfile and 75.0 by read/write on an AMD EPYC (Zen 3) VM, 18.1
/// against 22.5 ms on an Intel Xeon (Sapphire Rapids) VM. Batches of this many files are the
/// rounds of the choice (`common::choose`): the first by sendfile and one by read/write (not
/// timed), then one read/write, one sendfile, then the cheaper.
const SMALL_BATCH: u32 = 16;

/// The choice for small files (see [`SMALL_BATCH`]) and the batch under way.
struct SmallFiles {
    chooser: Chooser<Method>,
    way: Method,
    files: u32,
    bytes: u64,
    start: Option<u64>,
}

impl SmallFiles {
    fn new() -> SmallFiles {
        let chooser = Chooser::new([Method::ReadWrite, Method::Sendfile], Method::Sendfile, None);
        SmallFiles { way: chooser.next(), chooser, files: 0, bytes: 0, start: None }
    }

    /// The way for the next small file.
    fn begin(&mut self) -> Method {
        if self.files == 0 {
            self.way = self.chooser.next();
            self.start = platform::thread_cpu_time();
        }
        self.way
    }

    /// A small file of `bytes` was copied.
    fn end(&mut self, bytes: u64) {
        self.files += 1;
        self.bytes += bytes;
        if self.files == SMALL_BATCH {
            if let (Some(start), Some(end)) = (self.start, platform::thread_cpu_time()) {
                self.chooser.record(self.way, self.bytes, end.saturating_sub(start));
            }
            (self.files, self.bytes) = (0, 0);
        }
    }
}

/// Copies everything left in `input` to `output`.
pub struct Copier {
    buf: Vec<u8>,
    small: SmallFiles,
    /// A zero-copy call said ENOSYS: the kernel lacks it, don't try again.
    no_zero_copy: bool,
    /// The output pipe has been grown already (or that was not wanted).
    pipe_grown: bool,
    /// The relay pipe (read end, write end), made on first use and kept for later inputs.
    relay: Option<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)>,
}

impl Default for Copier {
    fn default() -> Self {
        Copier::new()
    }
}

impl Copier {
    pub fn new() -> Copier {
        Copier {
            buf: Vec::new(),
            small: SmallFiles::new(),
            no_zero_copy: !(platform::ZERO_COPY || platform::COPY_FILE_RANGE),
            pipe_grown: false,
            relay: None,
        }
    }

    pub fn copy(&mut self, input: Fd, in_info: &FileInfo, output: Fd, out_info: &FileInfo) -> Result<(), CopyError> {
        let calls = Calls {
            splice: platform::ZERO_COPY && !self.no_zero_copy,
            copy_file_range: platform::COPY_FILE_RANGE && !self.no_zero_copy,
        };
        let regular = in_info.kind == FileKind::Regular;
        let small = regular && in_info.size <= SMALL_FILE;
        let size = regular.then_some(in_info.size);
        let mut methods = plan(in_info.kind, small, out_info.kind, calls);
        if small && methods == [Method::Sendfile, Method::ReadWrite] {
            let way = self.small.begin();
            methods.retain(|&m| m == way || m == Method::ReadWrite);
            let result = self.copy_by(&methods, input, size, output, out_info);
            self.small.end(in_info.size);
            return result;
        }
        self.copy_by(&methods, input, size, output, out_info)
    }

    /// Copies with `methods` in turn (read/write last).
    fn copy_by(
        &mut self,
        methods: &[Method],
        input: Fd,
        size: Option<u64>,
        output: Fd,
        out_info: &FileInfo,
    ) -> Result<(), CopyError> {
        let small = size.is_some_and(|size| size <= SMALL_FILE);
        for &method in methods {
            if method == Method::ReadWrite {
                break;
            }
            if method == Method::Relay && self.relay_pipe().is_none() {
                continue;
            }
            if matches!(method, Method::Splice | Method::Relay) && out_info.kind == FileKind::Pipe && !self.pipe_grown {
                // A bigger pipe means fewer wake-ups; not worth two system calls for a small file.
                if !small {
                    self.pipe_grown = true;
                    let _ = platform::set_pipe_size(
                        output,
                        platform::pipe_max_size().unwrap_or(platform::PIPE_MAX_SIZE_DEFAULT),
                    );
                }
            }
            let outcome = match (method, &self.relay) {
                (Method::Relay, Some((relay_out, relay_in))) => {
                    relay(input, relay_in.as_raw_fd(), relay_out.as_raw_fd(), output, &mut self.buf)
                }
                _ => zero_copy(method, input, output, size),
            };
            match outcome {
                ZeroCopy::Done => return Ok(()),
                ZeroCopy::Failed(err) => return Err(err),
                ZeroCopy::Fallback(Some(err)) if err.raw_os_error() == Some(platform::errno::ENOSYS) => {
                    self.no_zero_copy = true;
                    break;
                }
                ZeroCopy::Fallback(_) => {}
            }
        }
        if size.is_some() && !small {
            platform::advise_sequential(input);
        }
        self.read_write(input, output, size)
    }

    fn relay_pipe(&mut self) -> Option<()> {
        if self.relay.is_none() {
            let (read_end, write_end) = platform::pipe().ok()?;
            let _ = platform::set_pipe_size(
                write_end.as_raw_fd(),
                platform::pipe_max_size().unwrap_or(platform::PIPE_MAX_SIZE_DEFAULT),
            );
            self.relay = Some((read_end, write_end));
        }
        Some(())
    }

    /// The portable loop: read into one reused buffer, write all of it. `size`: a regular
    /// input's size, at which it is done (see `done_at`).
    pub fn read_write(&mut self, input: Fd, output: Fd, size: Option<u64>) -> Result<(), CopyError> {
        if self.buf.is_empty() {
            self.buf = vec![0; BUFFER_SIZE];
        }
        let mut total = 0;
        loop {
            let n = match platform::read(input, &mut self.buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(err) => return Err(CopyError::Read(err)),
            };
            sink::write_all(output, &self.buf[..n]).map_err(CopyError::Write)?;
            total += n as u64;
            if done_at(size, total) {
                return Ok(());
            }
        }
    }
}

/// How a zero-copy transfer ended.
enum ZeroCopy {
    /// The input is exhausted.
    Done,
    /// The call cannot go on here (not supported, or copy_file_range's early 0): read/write
    /// takes over from the current offsets.
    Fallback(Option<io::Error>),
    /// A real error, reported as GNU 9.12 reports it.
    Failed(CopyError),
}

/// Errors meaning "this call does not work for these files" (gnulib's list for
/// copy_file_range, which also fits splice and sendfile). At any point, not only at the first
/// call as in GNU: the offsets say where the data stands, so read/write continues exactly there.
fn is_unsupported(err: &io::Error) -> bool {
    use platform::errno::*;
    platform::is_unsupported(err) || matches!(err.raw_os_error(), Some(EBADF | ETXTBSY | EPERM | EAGAIN))
}

/// Errors that belong to the output: GNU reports them as `write error` and stops.
fn is_output_error(err: &io::Error) -> bool {
    use platform::errno::*;
    matches!(err.raw_os_error(), Some(EPIPE | ENOSPC | EDQUOT | EFBIG))
}

/// Moves data with `method` until the input ends or the call cannot go on. `size` is a regular
/// input's size when the copy started.
fn zero_copy(method: Method, input: Fd, output: Fd, size: Option<u64>) -> ZeroCopy {
    let mut total: u64 = 0;
    loop {
        let moved = match method {
            Method::Splice => platform::splice(input, output, CHUNK),
            Method::CopyFileRange => platform::copy_file_range(input, output, CHUNK),
            Method::Sendfile => platform::sendfile(output, input, CHUNK),
            Method::ReadWrite | Method::Relay => return ZeroCopy::Fallback(None),
        };
        match moved {
            // copy_file_range returns 0 at the end, but also at once on pseudo-files whose size
            // is 0 (/proc, /sys): trust it only when the file's size has been copied.
            Ok(0) if method == Method::CopyFileRange && !size.is_some_and(|s| s > 0 && total >= s) => {
                return ZeroCopy::Fallback(None);
            }
            Ok(0) => return ZeroCopy::Done,
            Ok(n) => {
                total += n as u64;
                if done_at(size, total) {
                    return ZeroCopy::Done;
                }
            }
            Err(err) if is_unsupported(&err) => return ZeroCopy::Fallback(Some(err)),
            // GNU 9.12 hands copy_file_range's EFBIG (past the output's size limit) over to
            // the next method too, whose write then reports `write error: File too large`.
            Err(err) if method == Method::CopyFileRange && err.raw_os_error() == Some(platform::errno::EFBIG) => {
                return ZeroCopy::Fallback(Some(err));
            }
            // GNU 9.12 reports every other copy_file_range error against the input file.
            Err(err) if method != Method::CopyFileRange && is_output_error(&err) => {
                return ZeroCopy::Failed(CopyError::Write(err));
            }
            Err(err) => return ZeroCopy::Failed(CopyError::Read(err)),
        }
    }
}

/// Whether a regular input of `size` is done once `total` bytes of it have moved: the call that
/// would return 0 is saved (a fifth of the system calls for many small files). Not for sizes
/// that are 0 or a page multiple, which pseudo-files report whatever they hold; a file that
/// grew meanwhile moves more than its size and goes on to its end.
fn done_at(size: Option<u64>, total: u64) -> bool {
    size.is_some_and(|size| total == size && size % platform::page_size() as u64 != 0)
}

/// Any input to a non-pipe output through a private pipe: splice in, splice out. When splicing
/// out is not supported, what sits in the pipe is read back and written, and read/write takes
/// over; a real error on either side is reported against that side as GNU 9.12 reports it
/// (`cat: NAME: Input/output error` and the next input, or `cat: write error: ...` and stop).
fn relay(input: Fd, relay_in: Fd, relay_out: Fd, output: Fd, buf: &mut Vec<u8>) -> ZeroCopy {
    loop {
        let filled = match platform::splice(input, relay_in, CHUNK) {
            Ok(0) => return ZeroCopy::Done,
            Ok(n) => n,
            Err(err) if is_unsupported(&err) => return ZeroCopy::Fallback(Some(err)),
            Err(err) => return ZeroCopy::Failed(CopyError::Read(err)),
        };
        let mut left = filled;
        while left > 0 {
            match platform::splice(relay_out, output, left) {
                Ok(n) => left -= n,
                Err(err) if is_unsupported(&err) => {
                    if let Err(err) = drain(relay_out, left, output, buf) {
                        return ZeroCopy::Failed(err);
                    }
                    return ZeroCopy::Fallback(Some(err));
                }
                Err(err) => return ZeroCopy::Failed(CopyError::Write(err)),
            }
        }
    }
}

/// Reads `left` bytes back out of the relay pipe and writes them to `output`.
fn drain(relay_out: Fd, mut left: usize, output: Fd, buf: &mut Vec<u8>) -> Result<(), CopyError> {
    if buf.is_empty() {
        *buf = vec![0; BUFFER_SIZE];
    }
    while left > 0 {
        let want = left.min(buf.len());
        let n = match platform::read(relay_out, &mut buf[..want]) {
            Ok(n) => n,
            Err(err) => return Err(CopyError::Read(err)),
        };
        sink::write_all(output, &buf[..n]).map_err(CopyError::Write)?;
        left -= n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Calls, Method, plan};
    use crate::platform::FileKind::{self, *};

    const LINUX: Calls = Calls { splice: true, copy_file_range: true };
    const FREEBSD: Calls = Calls { splice: false, copy_file_range: true };
    const PORTABLE: Calls = Calls { splice: false, copy_file_range: false };

    /// The whole table: every pair of file kinds, large and small inputs, on each system.
    #[test]
    fn every_pair_has_its_methods_and_ends_with_read_write() {
        use Method::*;
        let kinds = [Regular, Directory, Pipe, CharDevice, BlockDevice, Socket, Symlink, Other];
        for input in kinds {
            for output in kinds {
                for small in [false, true] {
                    let small = small && input == Regular;
                    let linux = plan(input, small, output, LINUX);
                    let want: Vec<Method> = match (input, output) {
                        (Directory, _) => vec![],
                        (Pipe, _) | (Regular, Pipe) => vec![Splice],
                        (Regular, Regular) if small => vec![CopyFileRange],
                        (Regular, Regular) => vec![CopyFileRange, Relay],
                        (Regular, CharDevice) if !small => vec![Relay, Sendfile],
                        (Regular, _) => vec![Sendfile],
                        _ => vec![Relay],
                    };
                    assert_eq!(linux, [want, vec![ReadWrite]].concat(), "{input:?} -> {output:?} small {small}");
                    let bsd = plan(input, small, output, FREEBSD);
                    let want = if (input, output) == (Regular, Regular) {
                        vec![CopyFileRange, ReadWrite]
                    } else {
                        vec![ReadWrite]
                    };
                    assert_eq!(bsd, want, "FreeBSD {input:?} -> {output:?}");
                    assert_eq!(plan(input, small, output, PORTABLE), [ReadWrite], "portable {input:?} -> {output:?}");
                }
            }
        }
    }

    #[test]
    fn kinds_are_distinct() {
        // FileKind is matched above by value; a new kind must be added to the table.
        let all: [FileKind; 8] = [Regular, Directory, Pipe, CharDevice, BlockDevice, Socket, Symlink, Other];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
