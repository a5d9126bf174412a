//! Plain `cat` (no formatting option): move one input's bytes to stdout by the cheapest means the file types allow
//! ([`plan`]: a [`Strategy`]), falling back to read/write at exactly the byte where a zero-copy call gave up.
//!
//! The zero-copy calls advance the file offsets, so when one says "not supported" (`is_unsupported`) the next goes on
//! there: nothing is lost or repeated. Other errors are reported as GNU 9.12 reports them, against input or output.

use crate::common::sink;
use crate::input::choose::Chooser;
use crate::platform::{self, Fd, FileInfo, FileKind};
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

/// The read/write buffer: GNU's io_blksize minimum.
pub const BUFFER_SIZE: usize = 128 * 1024;
/// Regular files up to this size go into a pipe of the default size.
const SMALL_FILE: u64 = 64 * 1024;
/// The most one zero-copy call is asked to move.
const CALL_MAX: usize = 1 << 30;
/// A large regular file into a regular file: the timed rounds of the two [`FileWay`]s...
const ROUND: u64 = 4 << 20;
/// ...for inputs from this size on (smaller ones: copy_file_range, GNU's call, in one piece).
const TIMED_FROM: u64 = 3 * ROUND;
/// A round that measures a way, rather than works, moves at most this much: the relay may copy
/// far slower than copy_file_range (benches/RESULTS.md, "cat: copy_file_range or the relay").
const PROBE: u64 = 1 << 20;
/// Below this fraction of the relay's first-round cost a byte, copy_file_range clones or offloads: it goes on alone.
const CLONE_FRACTION: f64 = 0.5;

/// Why copying one input stopped early.
#[derive(Debug)]
pub enum CopyError {
    /// Reading the input failed: report `cat: NAME: error` and go on with the next input.
    Read(io::Error),
    /// Writing stdout failed: report `cat: write error: error` and stop.
    Write(io::Error),
}

/// A system call that moves bytes from an input straight to an output, in the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direct {
    Splice,
    CopyFileRange,
    Sendfile,
}

/// A call that moves bytes from an input to an output without copying them through memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    Direct(Direct),
    /// splice into cat's own pipe, then from it to the output.
    Relay,
}

/// The ways to move a large regular file into one on the same file system: a choice of this process (`input::choose`,
/// in rounds of 4 MiB, this thread's CPU time), or the way `RAPIDUTILS_COPY=copy_file_range|relay` forces.
///
/// The two are timed only where copy_file_range is known to copy (`platform::copy_file_range_copies`), and until its
/// first round costs less than half the relay's a byte (a clone after all); elsewhere it goes on alone, in one call,
/// as GNU's: it may clone or offload, which its cost does not always show. Which is cheaper depends on the machine's
/// state (benches/RESULTS.md, "cat: copy_file_range or the relay").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileWay {
    CopyFileRange,
    Relay,
}

impl FileWay {
    const BOTH: [FileWay; 2] = [FileWay::CopyFileRange, FileWay::Relay];

    fn call(self) -> Call {
        match self {
            FileWay::CopyFileRange => Call::Direct(Direct::CopyFileRange),
            FileWay::Relay => Call::Relay,
        }
    }
}

/// The way `RAPIDUTILS_COPY` forces, if any.
fn forced_file_way() -> Option<FileWay> {
    match std::env::var_os("RAPIDUTILS_COPY")?.as_encoded_bytes() {
        b"copy_file_range" => Some(FileWay::CopyFileRange),
        b"relay" => Some(FileWay::Relay),
        _ => None,
    }
}

/// Whether copy_file_range clones or offloads: its first round cost `cfr` nanoseconds a byte, the relay's `relay`.
pub fn clones(cfr: f64, relay: f64) -> bool {
    cfr < relay * CLONE_FRACTION
}

/// The choice between the two [`FileWay`]s for this process's large regular files.
struct FileCopies {
    chooser: Chooser<FileWay>,
    /// CPU nanoseconds a byte of each way's first round.
    first: [Option<f64>; 2],
}

impl FileCopies {
    /// What goes on where the rounds stop early (copy_file_range across file systems: `EXDEV`).
    const THEN: Strategy = Strategy::Relay;

    fn new(output: Fd) -> FileCopies {
        let forced = forced_file_way();
        let mut chooser = Chooser::new(FileWay::BOTH, FileWay::CopyFileRange, forced);
        if forced.is_none() && (!platform::copy_file_range_copies(output) || platform::thread_cpu_time().is_none()) {
            chooser.force(FileWay::CopyFileRange);
        }
        FileCopies { chooser, first: [None, None] }
    }

    /// A round done `way` moved `bytes` for `nanos` of CPU time.
    fn record(&mut self, way: FileWay, bytes: u64, nanos: u64) {
        let index = usize::from(way == FileWay::Relay);
        if self.first[index].is_none() && bytes > 0 {
            self.first[index] = Some(nanos as f64 / bytes as f64);
            if let [Some(cfr), Some(relay)] = self.first {
                if clones(cfr, relay) {
                    self.chooser.force(FileWay::CopyFileRange);
                }
            }
        }
        self.chooser.record(way, bytes, nanos);
    }
}

/// What the system offers (the build's and the kernel's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calls {
    /// splice, tee, vmsplice (Linux, not the portable build).
    pub splice: bool,
    /// copy_file_range (Linux and FreeBSD, not the portable build).
    pub copy_file_range: bool,
}

/// How one input is copied: its zero-copy calls in turn, then read/write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    Splice,
    Relay,
    /// A large file into a character device (/dev/null): the relay, else sendfile.
    RelayOrSendfile,
    Sendfile,
    /// A small file into a device or socket: one of `SmallFiles::WAYS`, the cheaper here.
    SendfileOrReadWrite,
    CopyFileRange,
    /// A large file into a file: the two [`FileWay`]s in timed rounds, then `FileCopies::THEN`.
    CopyFileRangeOrRelay,
    ReadWrite,
}

impl Strategy {
    /// The zero-copy calls, in order (read/write follows them all). A choice between two ways has its own arm in
    /// [`Copier::copy`]: its list holds the calls of both ways and of what follows them.
    fn calls(self) -> &'static [Call] {
        const SPLICE: Call = Call::Direct(Direct::Splice);
        const COPY_FILE_RANGE: Call = Call::Direct(Direct::CopyFileRange);
        const SENDFILE: Call = Call::Direct(Direct::Sendfile);
        match self {
            Strategy::Splice => &[SPLICE],
            Strategy::Relay => &[Call::Relay],
            Strategy::RelayOrSendfile => &[Call::Relay, SENDFILE],
            Strategy::Sendfile | Strategy::SendfileOrReadWrite => &[SENDFILE],
            Strategy::CopyFileRange => &[COPY_FILE_RANGE],
            Strategy::CopyFileRangeOrRelay => &[COPY_FILE_RANGE, Call::Relay],
            Strategy::ReadWrite => &[],
        }
    }
}

/// How one input goes to the output. `small`: a regular input of at most SMALL_FILE bytes, not worth a relay pipe.
pub fn plan(input: FileKind, small: bool, output: FileKind, calls: Calls) -> Strategy {
    use FileKind::*;
    if !calls.splice {
        // FreeBSD has copy_file_range without the splice family; the portable build neither.
        let files = calls.copy_file_range && (input, output) == (Regular, Regular);
        return if files { Strategy::CopyFileRange } else { Strategy::ReadWrite };
    }
    match (input, output) {
        (Directory, _) => Strategy::ReadWrite,
        // Through our relay pipe, as GNU 9.12: splice from a file holds the output pipe's lock
        // while it looks the file's pages up, and stdout's reader would wait all that time.
        (Regular, Pipe) if !small => Strategy::Relay,
        (Pipe, _) | (Regular, Pipe) => Strategy::Splice,
        (Regular, Regular) if small => Strategy::CopyFileRange,
        (Regular, Regular) => Strategy::CopyFileRangeOrRelay,
        (Regular, _) if small => Strategy::SendfileOrReadWrite,
        (Regular, CharDevice) => Strategy::RelayOrSendfile,
        (Regular, _) => Strategy::Sendfile,
        // A terminal, socket or device may wait inside splice, holding the output pipe's lock
        // (a terminal's line showed only when the next was typed): the relay takes that wait.
        _ => Strategy::Relay,
    }
}

/// Small regular files into a device or socket (`cat` of many files `> /dev/null`) go by `sendfile` or read/write,
/// the cheaper here (each wins on one machine measured): rounds of this many files time the choice (`input::choose`).
const SMALL_ROUND: u32 = 16;

/// The choice for small files (see [`SMALL_ROUND`]) and the round under way.
struct SmallFiles {
    chooser: Chooser<Strategy>,
    way: Strategy,
    files: u32,
    bytes: u64,
    start: Option<u64>,
}

impl SmallFiles {
    /// The ways of `Strategy::SendfileOrReadWrite`.
    const WAYS: [Strategy; 2] = [Strategy::ReadWrite, Strategy::Sendfile];

    fn new() -> SmallFiles {
        let chooser = Chooser::new(SmallFiles::WAYS, Strategy::Sendfile, None);
        SmallFiles { way: chooser.next(), chooser, files: 0, bytes: 0, start: None }
    }

    /// The way for the next small file.
    fn begin(&mut self) -> Strategy {
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
        if self.files == SMALL_ROUND {
            if let (Some(start), Some(end)) = (self.start, platform::thread_cpu_time()) {
                self.chooser.record(self.way, self.bytes, end.saturating_sub(start));
            }
            (self.files, self.bytes) = (0, 0);
        }
    }
}

/// One input on its way to the output.
struct Transfer {
    input: Fd,
    output: Fd,
    /// A regular input's size.
    size: Option<u64>,
    /// The input's bytes moved so far, by any call.
    moved: u64,
}

/// What comes after a zero-copy call.
enum Then {
    Done,
    /// The next call, from where this one stopped.
    Next,
    /// Read/write, from where this one stopped: the kernel lacks the zero-copy calls.
    ReadWrite,
}

/// Copies everything left in `input` to `output`.
pub(crate) struct Copier {
    buf: Vec<u8>,
    small: SmallFiles,
    /// A zero-copy call said ENOSYS: the kernel lacks it, don't try again.
    no_zero_copy: bool,
    /// Standard output's pipe capacity, once grown.
    stdout_pipe: Option<usize>,
    /// The relay pipe, made on first use and kept for later inputs.
    relay: Option<RelayPipe>,
    /// Large regular files into a regular file: which way, made on first use.
    files: Option<FileCopies>,
}

/// cat's own pipe between input and output.
struct RelayPipe {
    read_end: OwnedFd,
    write_end: OwnedFd,
}

impl RelayPipe {
    /// The relay pipe in `kept`, made once: as large as stdout's pipe (`stdout_pipe`) where that is the output (a
    /// larger relay slowed a reader on another CPU), else `pipe-max-size`, the most an unprivileged process may ask.
    fn get(kept: &mut Option<RelayPipe>, stdout_pipe: Option<usize>) -> Option<&RelayPipe> {
        if kept.is_none() {
            let (read_end, write_end) = platform::pipe().ok()?;
            let max = platform::pipe_max_size().unwrap_or(platform::PIPE_MAX_SIZE_DEFAULT);
            let _ = platform::set_pipe_size(write_end.as_raw_fd(), stdout_pipe.unwrap_or(max).min(max));
            *kept = Some(RelayPipe { read_end, write_end });
        }
        kept.as_ref()
    }
}

impl Copier {
    pub fn new() -> Copier {
        Copier {
            buf: Vec::new(),
            small: SmallFiles::new(),
            no_zero_copy: !(platform::ZERO_COPY || platform::COPY_FILE_RANGE),
            stdout_pipe: None,
            relay: None,
            files: None,
        }
    }

    pub fn copy(&mut self, input: Fd, in_info: &FileInfo, output: Fd, out_info: &FileInfo) -> Result<(), CopyError> {
        let calls = Calls {
            splice: platform::ZERO_COPY && !self.no_zero_copy,
            copy_file_range: platform::COPY_FILE_RANGE && !self.no_zero_copy,
        };
        let regular = in_info.kind == FileKind::Regular;
        let small = regular && in_info.size <= SMALL_FILE;
        let mut transfer = Transfer { input, output, size: regular.then_some(in_info.size), moved: 0 };
        match plan(in_info.kind, small, out_info.kind, calls) {
            Strategy::SendfileOrReadWrite => {
                let way = self.small.begin();
                let result = self.copy_by(way.calls(), &mut transfer, out_info);
                self.small.end(in_info.size);
                result
            }
            Strategy::CopyFileRangeOrRelay => {
                let outcome = self.file_to_file(&mut transfer);
                let then = match self.then(outcome, true)? {
                    Then::Done => return Ok(()),
                    Then::Next => FileCopies::THEN.calls(),
                    Then::ReadWrite => &[],
                };
                self.copy_by(then, &mut transfer, out_info)
            }
            strategy => self.copy_by(strategy.calls(), &mut transfer, out_info),
        }
    }

    /// Copies with `calls` in turn, then read/write.
    fn copy_by(&mut self, calls: &[Call], transfer: &mut Transfer, out_info: &FileInfo) -> Result<(), CopyError> {
        let small = transfer.size.is_some_and(|size| size <= SMALL_FILE);
        for &call in calls {
            // A bigger pipe means fewer wake-ups; not worth two system calls for a small file.
            if matches!(call, Call::Direct(Direct::Splice) | Call::Relay) && out_info.kind == FileKind::Pipe && !small {
                self.stdout_pipe.get_or_insert_with(|| {
                    platform::grow_stdout_pipe(transfer.output).unwrap_or(platform::PIPE_SIZE_DEFAULT)
                });
            }
            let outcome = self.make(call, transfer, Errors::PerSide, u64::MAX);
            match self.then(outcome, call == Call::Relay)? {
                Then::Done => return Ok(()),
                Then::Next => {}
                Then::ReadWrite => break,
            }
        }
        if transfer.size.is_some() && !small {
            platform::advise_sequential(transfer.input);
        }
        self.read_write(transfer.input, transfer.output, transfer.size)
    }

    /// Moves `transfer` by `call` until the input ends, `limit` bytes have moved or the call
    /// cannot go on; `errors`: against which side the relay reports a real error.
    fn make(&mut self, call: Call, transfer: &mut Transfer, errors: Errors, limit: u64) -> ZeroCopy {
        match call {
            Call::Direct(direct) => zero_copy(direct, transfer, limit),
            Call::Relay => match RelayPipe::get(&mut self.relay, self.stdout_pipe) {
                Some(pipe) => relay(transfer, pipe, &mut self.buf, errors, limit),
                None => ZeroCopy::Fallback(None),
            },
        }
    }

    /// What follows a zero-copy call's `outcome`; `relayed`: it may have used the relay pipe.
    fn then(&mut self, outcome: ZeroCopy, relayed: bool) -> Result<Then, CopyError> {
        match outcome {
            ZeroCopy::Done => Ok(Then::Done),
            ZeroCopy::Failed(err) => {
                // What was taken into the relay pipe belongs to this input only.
                if relayed {
                    self.relay = None;
                }
                Err(err)
            }
            ZeroCopy::Fallback(Some(err)) if err.raw_os_error() == Some(platform::errno::ENOSYS) => {
                self.no_zero_copy = true;
                Ok(Then::ReadWrite)
            }
            ZeroCopy::Fallback(_) | ZeroCopy::Limit => Ok(Then::Next),
        }
    }

    /// A large regular file into a regular file, in rounds by the way chosen for this process (see [`FileWay`]).
    fn file_to_file(&mut self, transfer: &mut Transfer) -> ZeroCopy {
        let mut files = self.files.take().unwrap_or_else(|| FileCopies::new(transfer.output));
        let timed = transfer.size.is_some_and(|size| size >= TIMED_FROM);
        let outcome = loop {
            let way = if timed { files.chooser.next() } else { FileWay::CopyFileRange };
            // One way alone (forced, or copy_file_range found to clone) goes on in one piece.
            let whole = !timed || files.chooser.forced().is_some();
            let limit = if whole {
                u64::MAX
            } else if files.chooser.is_chosen(way) {
                ROUND
            } else {
                PROBE
            };
            let start = platform::thread_cpu_time();
            let before = transfer.moved;
            // The relay's errors reported as GNU 9.12 reports copy_file_range's.
            let outcome = self.make(way.call(), transfer, Errors::AsCopyFileRange, limit);
            if let (ZeroCopy::Limit, Some(start), Some(end)) = (&outcome, start, platform::thread_cpu_time()) {
                files.record(way, transfer.moved - before, end.saturating_sub(start));
            }
            if !matches!(outcome, ZeroCopy::Limit) {
                break outcome;
            }
        };
        self.files = Some(files);
        outcome
    }

    /// The portable loop: read into one reused buffer, write all of it (done at `size`).
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
    Done,
    /// The call cannot go on here (not supported, or copy_file_range's early 0).
    Fallback(Option<io::Error>),
    /// A real error, reported as GNU 9.12 reports it.
    Failed(CopyError),
    /// The bytes asked for have moved; the input may go on.
    Limit,
}

/// Against which side the relay reports a real error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Errors {
    /// The input's or the output's, as GNU 9.12 reports its own splice's.
    PerSide,
    /// As GNU 9.12 reports copy_file_range's, in whose place it runs: all against the input, EFBIG to read/write.
    AsCopyFileRange,
}

/// "Does not work for these files" errors at any point (gnulib's list for copy_file_range): read/write takes over.
fn is_unsupported(err: &io::Error) -> bool {
    use platform::errno::*;
    platform::is_unsupported(err) || matches!(err.raw_os_error(), Some(EBADF | ETXTBSY | EPERM | EAGAIN))
}

/// Errors that belong to the output: GNU reports them as `write error` and stops.
fn is_output_error(err: &io::Error) -> bool {
    use platform::errno::*;
    matches!(err.raw_os_error(), Some(EPIPE | ENOSPC | EDQUOT | EFBIG))
}

/// Moves `transfer` by `call` until the input ends, `limit` bytes have moved or it cannot go on.
/// Not inlined (it is called once an input): inlined into `Copier::copy_by`, LLVM 22 compiled
/// that one source two ways from build to build, and the packages were not reproducible.
#[inline(never)]
fn zero_copy(call: Direct, transfer: &mut Transfer, limit: u64) -> ZeroCopy {
    let Transfer { input, output, size, .. } = *transfer;
    let mut left = limit;
    loop {
        if left == 0 {
            return ZeroCopy::Limit;
        }
        let len = CALL_MAX.min(usize::try_from(left).unwrap_or(CALL_MAX));
        let moved = match call {
            Direct::Splice => platform::splice(input, output, len),
            Direct::CopyFileRange => platform::copy_file_range(input, output, len),
            Direct::Sendfile => platform::sendfile(output, input, len),
        };
        let total_now = transfer.moved;
        match moved {
            // copy_file_range returns 0 at the end, but also at once on pseudo-files whose size
            // is 0 (/proc, /sys): trust it only when the file's size has been copied.
            Ok(0) if call == Direct::CopyFileRange && !size.is_some_and(|s| s > 0 && total_now >= s) => {
                return ZeroCopy::Fallback(None);
            }
            Ok(0) => return ZeroCopy::Done,
            Ok(n) => {
                transfer.moved += n as u64;
                left -= n as u64;
                if done_at(size, transfer.moved) {
                    return ZeroCopy::Done;
                }
            }
            Err(err) if is_unsupported(&err) => return ZeroCopy::Fallback(Some(err)),
            // GNU 9.12 hands copy_file_range's EFBIG (past the output's size limit) over to
            // the next method too, whose write then reports `write error: File too large`.
            Err(err) if call == Direct::CopyFileRange && err.raw_os_error() == Some(platform::errno::EFBIG) => {
                return ZeroCopy::Fallback(Some(err));
            }
            // GNU 9.12 reports every other copy_file_range error against the input file.
            Err(err) if call != Direct::CopyFileRange && is_output_error(&err) => {
                return ZeroCopy::Failed(CopyError::Write(err));
            }
            Err(err) => return ZeroCopy::Failed(CopyError::Read(err)),
        }
    }
}

/// Whether a regular input of `size` is done once `total` bytes of it have moved, saving the call that would
/// return 0. Not for sizes that are 0 or a page multiple, which pseudo-files report whatever they hold.
fn done_at(size: Option<u64>, total: u64) -> bool {
    size.is_some_and(|size| total == size && size % platform::page_size() as u64 != 0)
}

/// Any input to an output through cat's own `pipe`: splice in, splice out, until the input ends or `limit` bytes
/// have moved. Where splicing out is not supported, what sits in the pipe is read back and written.
fn relay(transfer: &mut Transfer, pipe: &RelayPipe, buf: &mut Vec<u8>, errors: Errors, limit: u64) -> ZeroCopy {
    let (write_end, read_end) = (pipe.write_end.as_raw_fd(), pipe.read_end.as_raw_fd());
    let mut to_go = limit;
    loop {
        if to_go == 0 {
            return ZeroCopy::Limit;
        }
        let len = CALL_MAX.min(usize::try_from(to_go).unwrap_or(CALL_MAX));
        let filled = match platform::splice(transfer.input, write_end, len) {
            Ok(0) => return ZeroCopy::Done,
            Ok(n) => n,
            Err(err) if is_unsupported(&err) => return ZeroCopy::Fallback(Some(err)),
            Err(err) => return ZeroCopy::Failed(CopyError::Read(err)),
        };
        let mut left = filled;
        while left > 0 {
            match platform::splice(read_end, transfer.output, left) {
                Ok(n) => left -= n,
                Err(err)
                    if is_unsupported(&err)
                        || (errors == Errors::AsCopyFileRange
                            && err.raw_os_error() == Some(platform::errno::EFBIG)) =>
                {
                    if let Err(err) = drain(read_end, left, transfer.output, buf) {
                        return ZeroCopy::Failed(err);
                    }
                    transfer.moved += filled as u64;
                    return ZeroCopy::Fallback(Some(err));
                }
                Err(err) if errors == Errors::AsCopyFileRange => return ZeroCopy::Failed(CopyError::Read(err)),
                Err(err) => return ZeroCopy::Failed(CopyError::Write(err)),
            }
        }
        transfer.moved += filled as u64;
        to_go = to_go.saturating_sub(filled as u64);
    }
}

/// Reads `left` bytes back out of the relay pipe and writes them to `output`.
fn drain(read_end: Fd, mut left: usize, output: Fd, buf: &mut Vec<u8>) -> Result<(), CopyError> {
    if buf.is_empty() {
        *buf = vec![0; BUFFER_SIZE];
    }
    while left > 0 {
        let want = left.min(buf.len());
        let n = match platform::read(read_end, &mut buf[..want]) {
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
    use super::{Call, Calls, Direct, FileCopies, FileWay, ROUND, SmallFiles, Strategy, clones, plan};
    use crate::input::choose::Chooser;
    use crate::platform::FileKind::*;

    const LINUX: Calls = Calls { splice: true, copy_file_range: true };
    const FREEBSD: Calls = Calls { splice: false, copy_file_range: true };
    const PORTABLE: Calls = Calls { splice: false, copy_file_range: false };

    /// Every call a strategy makes must exist for its pair of files: splice needs a pipe on
    /// one side (the relay's own is one), sendfile and copy_file_range a regular file in,
    /// copy_file_range a regular file out; nothing is tried on a directory, and without the
    /// splice family only copy_file_range between regular files is.
    #[test]
    fn every_pair_is_planned_with_calls_that_exist_for_it() {
        let kinds = [Regular, Directory, Pipe, CharDevice, BlockDevice, Socket, Symlink, Other];
        for (input, output, small) in kinds
            .into_iter()
            .flat_map(|i| kinds.map(|o| (i, o)))
            .flat_map(|(i, o)| [(i, o, false), (i, o, i == Regular)])
        {
            let strategy = plan(input, small, output, LINUX);
            for &call in strategy.calls() {
                let ok = match call {
                    Call::Direct(Direct::Splice) => input == Pipe || output == Pipe,
                    Call::Relay => input != Directory,
                    Call::Direct(Direct::Sendfile) => input == Regular && output != Pipe,
                    Call::Direct(Direct::CopyFileRange) => (input, output) == (Regular, Regular),
                };
                assert!(ok, "{input:?} -> {output:?} (small {small}): {strategy:?}");
            }
            assert_eq!(input == Directory, strategy == Strategy::ReadWrite, "{input:?} -> {output:?}");
            let bsd = plan(input, small, output, FREEBSD);
            assert_eq!(
                bsd == Strategy::CopyFileRange,
                (input, output) == (Regular, Regular),
                "{input:?} -> {output:?}"
            );
            assert!(bsd == Strategy::CopyFileRange || bsd == Strategy::ReadWrite);
            assert_eq!(plan(input, small, output, PORTABLE), Strategy::ReadWrite);
        }
    }

    /// A choice between two ways lists exactly the calls its arm in `Copier::copy` may make:
    /// those of either way and of what follows them. So the test above covers them too.
    #[test]
    fn a_choice_lists_the_calls_of_its_ways_and_what_follows() {
        let sorted = |mut calls: Vec<Call>| {
            calls.sort_by_key(|call| format!("{call:?}"));
            calls.dedup();
            calls
        };
        let small = SmallFiles::WAYS.iter().flat_map(|way| way.calls().iter().copied()).collect();
        assert_eq!(sorted(small), sorted(Strategy::SendfileOrReadWrite.calls().to_vec()));
        let files = FileWay::BOTH.map(FileWay::call).into_iter().chain(FileCopies::THEN.calls().iter().copied());
        assert_eq!(sorted(files.collect()), sorted(Strategy::CopyFileRangeOrRelay.calls().to_vec()));
    }

    fn file_copies() -> FileCopies {
        let chooser = Chooser::new([FileWay::CopyFileRange, FileWay::Relay], FileWay::CopyFileRange, None);
        FileCopies { chooser, first: [None, None] }
    }

    /// Rounds of `ROUND` bytes as `files` asks for them, copy_file_range costing `cfr` and the
    /// relay `relay` nanoseconds a round: the ways taken.
    fn rounds(files: &mut FileCopies, cfr: u64, relay: u64, n: usize) -> Vec<FileWay> {
        (0..n)
            .map(|_| {
                let way = files.chooser.next();
                files.record(way, ROUND, if way == FileWay::Relay { relay } else { cfr });
                way
            })
            .collect()
    }

    #[test]
    fn a_clone_goes_on_alone_after_the_first_round_each_way() {
        use FileWay::*;
        // 4 MiB cloned in 40 us, copied by the relay in 1.3 ms: copy_file_range alone, no
        // relay round ever again (each would copy blocks that could be shared).
        let mut files = file_copies();
        assert_eq!(rounds(&mut files, 40_000, 1_300_000, 2), [CopyFileRange, Relay]);
        assert_eq!(files.chooser.forced(), Some(CopyFileRange));
        assert!(rounds(&mut files, 40_000, 1_300_000, 100).iter().all(|&w| w == CopyFileRange));
        assert!(clones(0.49, 1.0) && !clones(0.5, 1.0) && !clones(1.0, 0.9));
    }

    #[test]
    fn two_copies_are_timed_against_each_other_and_the_cheaper_goes_on() {
        use FileWay::*;
        // Both copy: the first round each way is not timed, then one timed each, then the
        // cheaper (here the relay), the other timed again now and then (after 2, 4, 8 rounds,
        // then every 16: five times in the 56 rounds after the first four).
        for (cfr, relay, cheaper) in [(1_400_000, 1_300_000, Relay), (1_300_000, 1_400_000, CopyFileRange)] {
            let mut files = file_copies();
            let ways = rounds(&mut files, cfr, relay, 60);
            assert_eq!(files.chooser.forced(), None);
            assert_eq!(ways[..4], [CopyFileRange, Relay, CopyFileRange, Relay]);
            let other = ways[4..].iter().filter(|&&w| w != cheaper).count();
            assert_eq!(other, 5, "{cheaper:?}: {ways:?}");
        }
        // A clone-like first round of the relay (it cannot clone) does not stop the timing.
        let mut files = file_copies();
        rounds(&mut files, 1_300_000, 40_000, 2);
        assert_eq!(files.chooser.forced(), None);
    }
}
