//! The operating system, behind one portable API.
//!
//! The one module with `unsafe` code or `cfg(target_os)`: every system call the tools make goes through here. All is
//! plain Unix but the zero-copy pipe calls (`splice`, `vmsplice`, `tee`, `F_SETPIPE_SZ`), Linux only; elsewhere, and
//! with `portable`, they return `ENOSYS`, so callers fall back to read/write as with a kernel lacking them.

mod buffer;
mod changing;
pub mod cpu;
pub mod i18n;
mod locale;
mod mapped;
mod pipe;
pub mod simd;

pub use buffer::PageBuffer;
pub use changing::Changing;
pub use locale::{
    Charset, MB_LEN_MAX, MbDecoder, MbStep, byte_to_char, char_width, charset, codeset, ctype, is_printable_byte,
    is_printable_wide, is_space_wide,
};
pub use mapped::{MAPPED_FILES, Mapping, maps_files_on};
pub use pipe::{
    COPY_FILE_RANGE, PIPE_MAX_SIZE_DEFAULT, PIPE_SIZE_DEFAULT, STDOUT_PIPE_MAX, ZERO_COPY, copy_file_range,
    grow_stdout_pipe, pipe_max_size, pipe_size, sendfile, set_pipe_size, splice, tee, vmsplice,
};

use std::ffi::{CStr, OsStr, c_char, c_int};
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

pub type Fd = c_int;
pub const STDIN: Fd = 0;
pub const STDOUT: Fd = 1;
pub const STDERR: Fd = 2;

/// Defines a binary's C `main`: `rapidutils::entry!(path::to::run)`, `run: fn(Vec<rapidutils::common::Arg>) -> i32`.
///
/// The binaries are `#![no_main]`, so Rust's runtime start-up never runs: it would set SIGPIPE to "ignored" and
/// reopen closed fds 0-2 on /dev/null, hiding the state GNU tools react to (`yes | head` must die of SIGPIPE unless
/// the parent ignored it; `yes >&-` must report "Bad file descriptor"). Skipping it also saves system calls, for
/// tools started millions of times by scripts. The expansion holds the binaries' only `unsafe`, allowed here alone.
#[macro_export]
macro_rules! entry {
    ($run:path) => {
        #[allow(unsafe_code)]
        #[unsafe(no_mangle)]
        extern "C" fn main(argc: ::std::ffi::c_int, argv: *const *const ::std::ffi::c_char) -> ::std::ffi::c_int {
            // SAFETY: the C runtime's own argc/argv: valid, NUL-terminated, and living as long as the process.
            let args = unsafe { $crate::platform::args_from_c(argc, argv) };
            $run(args)
        }
    };
}

/// The C `argv` as byte strings (arguments are bytes, never assumed UTF-8), borrowed: nothing is copied.
///
/// # Safety
/// `argv` points to `argc` valid NUL-terminated strings, unchanged for the rest of the process (as the C runtime's).
pub unsafe fn args_from_c(argc: c_int, argv: *const *const c_char) -> Vec<&'static OsStr> {
    let count = usize::try_from(argc).unwrap_or(0);
    let mut args = Vec::with_capacity(count);
    for i in 0..count {
        // SAFETY: i < argc, and the caller guarantees argv[0..argc] are valid C strings, unchanged for good.
        let arg: &'static CStr = unsafe { CStr::from_ptr(*argv.add(i)) };
        args.push(OsStr::from_bytes(arg.to_bytes()));
    }
    args
}

fn last_error() -> io::Error {
    io::Error::last_os_error()
}

/// Makes a system call again for as long as it fails with EINTR (a signal whose handler returned before anything
/// moved), as gnulib's `safe_read` and `safe_write` do: the data calls below (and `poll`) never return EINTR, so no
/// caller needs an arm for it. Converts the C `-1`-and-errno convention to `io::Result`.
fn retry(mut call: impl FnMut() -> isize) -> io::Result<usize> {
    loop {
        let ret = call();
        if ret >= 0 {
            return Ok(ret as usize);
        }
        let err = last_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// One `write(2)`; may be short.
pub fn write(fd: Fd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: buf is a valid, initialised slice for its whole length.
    retry(|| unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) })
}

pub fn read(fd: Fd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for writes of its whole length.
    retry(|| unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) })
}

/// One `pread(2)`: reads at `offset` without moving the file offset (several threads can read one file).
pub fn pread(fd: Fd, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let offset = libc::off_t::try_from(offset).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: buf is valid for writes of its whole length.
    retry(|| unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), offset) })
}

/// Waits until `fd` can take more output (used when stdout is non-blocking and said EAGAIN).
pub fn wait_writable(fd: Fd) -> io::Result<()> {
    let mut pfd = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
    // SAFETY: pfd is one valid pollfd, and we pass a count of 1.
    retry(|| unsafe { libc::poll(&mut pfd, 1, -1) } as isize).map(drop)
}

/// A new pipe: (read end, write end), both close-on-exec.
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: fds is a writable array of two ints, as pipe2() and pipe() require.
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    // SAFETY: as above.
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    let made = unsafe { libc::pipe(fds.as_mut_ptr()) };
    if made != 0 {
        return Err(last_error());
    }
    // SAFETY: the call just returned these two descriptors, owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // Close-on-exec at once where pipe2 exists: a thread that forks and execs between pipe()
    // and fcntl() would hand both ends to its child (the test programs do). Elsewhere, now.
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    for fd in [&read, &write] {
        // SAFETY: F_SETFD with FD_CLOEXEC on a descriptor we own touches no memory.
        unsafe { libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(fd), libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    Ok((read, write))
}

pub fn set_nonblocking(fd: Fd, on: bool) -> io::Result<()> {
    let flags = status_flags(fd, None)?;
    let flags = if on { flags | libc::O_NONBLOCK } else { flags & !libc::O_NONBLOCK };
    status_flags(fd, Some(flags)).map(drop)
}

/// `fd`'s status flags (`F_GETFL`), or sets them to `set` (`F_SETFL`).
fn status_flags(fd: Fd, set: Option<c_int>) -> io::Result<c_int> {
    // SAFETY: F_GETFL/F_SETFL take and return plain ints; no memory is involved.
    let ret = unsafe {
        match set {
            None => libc::fcntl(fd, libc::F_GETFL),
            Some(flags) => libc::fcntl(fd, libc::F_SETFL, flags),
        }
    };
    if ret < 0 { Err(last_error()) } else { Ok(ret) }
}

/// The current offset of `fd` (`lseek(fd, 0, SEEK_CUR)`); fails on pipes, sockets and ttys.
pub fn current_offset(fd: Fd) -> io::Result<u64> {
    lseek(fd, 0, libc::SEEK_CUR)
}

pub fn seek_relative(fd: Fd, delta: i64) -> io::Result<u64> {
    lseek(fd, delta as libc::off_t, libc::SEEK_CUR)
}

pub fn seek_to(fd: Fd, pos: u64) -> io::Result<u64> {
    let pos = libc::off_t::try_from(pos).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    lseek(fd, pos, libc::SEEK_SET)
}

fn lseek(fd: Fd, offset: libc::off_t, whence: c_int) -> io::Result<u64> {
    // SAFETY: lseek takes and returns plain integers.
    let pos = unsafe { libc::lseek(fd, offset, whence) };
    if pos < 0 { Err(last_error()) } else { Ok(pos as u64) }
}

pub fn is_append(fd: Fd) -> bool {
    status_flags(fd, None).is_ok_and(|flags| flags & libc::O_APPEND != 0)
}

/// How many bytes can be read from `fd` without blocking (`FIONREAD`), if the file type says.
pub fn bytes_available(fd: Fd) -> Option<usize> {
    let mut n: c_int = 0;
    // SAFETY: FIONREAD writes one int through the pointer, which points to n.
    let ret = unsafe { libc::ioctl(fd, libc::FIONREAD as _, &mut n) };
    if ret < 0 { None } else { usize::try_from(n).ok() }
}

/// Tells the kernel `fd` will be read sequentially (read-ahead), where the system has `posix_fadvise`.
#[cfg(any(target_os = "linux", target_os = "freebsd", target_os = "android"))]
pub fn advise_sequential(fd: Fd) {
    // SAFETY: advice only; a failure is harmless and ignored.
    unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_SEQUENTIAL) };
}

#[cfg(not(any(target_os = "linux", target_os = "freebsd", target_os = "android")))]
pub fn advise_sequential(_fd: Fd) {}

/// This thread's CPU time so far (user and system), in nanoseconds: what a piece of work cost here, without the time
/// spent waiting for a disk or for another process. None where it cannot be asked.
pub fn thread_cpu_time() -> Option<u64> {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime fills the timespec it is given.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } != 0 {
        return None;
    }
    Some(now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64)
}

/// The page faults this thread has taken so far that needed no I/O (minor faults): how many times mapped pages were
/// found unmapped. None where it cannot be asked (only Linux counts per thread).
#[cfg(all(target_os = "linux", not(feature = "portable")))]
pub fn thread_minor_faults() -> Option<u64> {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct, which getrusage fills.
    let (ret, usage) = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        (libc::getrusage(libc::RUSAGE_THREAD, &mut usage), usage)
    };
    if ret != 0 {
        return None;
    }
    u64::try_from(usage.ru_minflt).ok()
}

/// See the Linux version: nothing is mapped here.
#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
pub fn thread_minor_faults() -> Option<u64> {
    None
}

/// Closes a descriptor we do not own as an `OwnedFd` (standard input), reporting the error.
pub fn close(fd: Fd) -> io::Result<()> {
    // SAFETY: closing a plain descriptor number; the caller no longer uses it.
    if unsafe { libc::close(fd) } != 0 { Err(last_error()) } else { Ok(()) }
}

/// `fd`'s file system magic (`fstatfs`'s f_type, a signed word; the numbers are 32-bit), None if unknown.
#[cfg(all(target_os = "linux", not(feature = "portable")))]
fn file_system_magic(fd: Fd) -> Option<u32> {
    // SAFETY: an all-zero statfs is a valid value of this plain C struct, which fstatfs fills.
    let (ret, st) = unsafe {
        let mut st: libc::statfs = std::mem::zeroed();
        (libc::fstatfs(fd, &mut st), st)
    };
    if ret != 0 {
        return None;
    }
    Some(st.f_type as u32)
}

/// Whether copy_file_range into `fd`'s file system copies through the kernel's own splice, and never shares blocks or
/// hands the copy to a server: ext2/3/4, tmpfs, f2fs. On the others (btrfs, XFS, ZFS, bcachefs, NFS, CIFS, FUSE,
/// overlayfs over them) it may clone, which its cost cannot always tell from a copy (see `cat::copy::FileWay`).
#[cfg(all(target_os = "linux", not(feature = "portable")))]
pub fn copy_file_range_copies(fd: Fd) -> bool {
    matches!(file_system_magic(fd), Some(0xef53 | 0x0102_1994 | 0xf2f5_2010))
}

#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
pub fn copy_file_range_copies(_fd: Fd) -> bool {
    false
}

pub fn page_size() -> usize {
    buffer::page_size()
}

/// What kind of file a descriptor refers to; decides which copy path a tool takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    Regular,
    Directory,
    Pipe,
    CharDevice,
    BlockDevice,
    Socket,
    Symlink,
    Other,
}

/// The parts of `fstat` the tools use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileInfo {
    pub kind: FileKind,
    pub size: u64,
    pub dev: u64,
    pub ino: u64,
    pub blksize: u64,
}

pub fn fstat(fd: Fd) -> io::Result<FileInfo> {
    // SAFETY: an all-zero `stat` is a valid value of this plain C struct, which fstat fills.
    let (ret, st) = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        (libc::fstat(fd, &mut st), st)
    };
    if ret != 0 {
        return Err(last_error());
    }
    Ok(FileInfo {
        kind: kind_of(st.st_mode),
        size: st.st_size as u64,
        #[allow(clippy::unnecessary_cast)] // dev_t is u32 on some targets
        dev: st.st_dev as u64,
        #[allow(clippy::unnecessary_cast)]
        ino: st.st_ino as u64,
        blksize: st.st_blksize as u64,
    })
}

/// `stat` of `path`, as [`fstat`] gives it of a descriptor.
pub fn stat(path: &std::path::Path) -> io::Result<FileInfo> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    #[allow(clippy::unnecessary_cast)] // mode_t is u16 on some targets
    let kind = kind_of(m.mode() as libc::mode_t);
    Ok(FileInfo { kind, size: m.size(), dev: m.dev(), ino: m.ino(), blksize: m.blksize() })
}

fn kind_of(mode: libc::mode_t) -> FileKind {
    match mode & libc::S_IFMT {
        libc::S_IFREG => FileKind::Regular,
        libc::S_IFDIR => FileKind::Directory,
        libc::S_IFIFO => FileKind::Pipe,
        libc::S_IFCHR => FileKind::CharDevice,
        libc::S_IFBLK => FileKind::BlockDevice,
        libc::S_IFSOCK => FileKind::Socket,
        libc::S_IFLNK => FileKind::Symlink,
        _ => FileKind::Other,
    }
}

/// The C library's text for an errno value, exactly as GNU tools print it (`strerror`), in the
/// user's `LC_MESSAGES` and the locale's character set (not necessarily UTF-8).
pub fn strerror(errno: i32) -> Vec<u8> {
    i18n::prepare_messages();
    let mut buf = [0 as c_char; 1024];
    // SAFETY: buf is writable for the length passed; XSI strerror_r returns 0 after writing a NUL-terminated string.
    let ret = unsafe { libc::strerror_r(errno, buf.as_mut_ptr(), buf.len()) };
    if ret != 0 {
        return format!("Unknown error {errno}").into_bytes();
    }
    // SAFETY: on success strerror_r left a NUL-terminated string in buf.
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_bytes().to_vec()
}

/// The errno value behind an I/O error (EIO if none; errors made here from system calls always have one).
pub fn errno_of(err: &io::Error) -> i32 {
    err.raw_os_error().unwrap_or(libc::EIO)
}

/// Errno values the callers name.
pub mod errno {
    pub use libc::{
        EAGAIN, EBADF, EDQUOT, EFBIG, EINTR, EINVAL, EIO, ENOSPC, ENOSYS, EOPNOTSUPP, EOVERFLOW, EPERM, EPIPE, ETXTBSY,
        EWOULDBLOCK, EXDEV,
    };
}

/// Whether a zero-copy call's error means "not available here" (take the fallback), not a real I/O error (report it).
pub fn is_unsupported(err: &io::Error) -> bool {
    matches!(err.raw_os_error(), Some(libc::ENOSYS | libc::EINVAL | libc::EXDEV | libc::EOPNOTSUPP))
        || err.raw_os_error() == Some(libc::ENOTSUP)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CString;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;

    #[test]
    fn args_from_c_keeps_every_byte() {
        let owned: Vec<CString> =
            [&b"prog"[..], b"", b"\xff\xfe not utf-8", b"a b"].iter().map(|a| CString::new(*a).unwrap()).collect();
        let ptrs: Vec<*const c_char> = owned.iter().map(|a| a.as_ptr()).collect();
        // SAFETY: ptrs holds ptrs.len() valid NUL-terminated strings that outlive the call.
        let args = unsafe { args_from_c(ptrs.len() as c_int, ptrs.as_ptr()) };
        let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        assert_eq!(bytes, [&b"prog"[..], b"", b"\xff\xfe not utf-8", b"a b"]);
        // SAFETY: a count of 0 reads nothing.
        assert!(unsafe { args_from_c(0, std::ptr::null()) }.is_empty());
    }

    #[test]
    fn strerror_is_the_c_librarys_text() {
        assert_eq!(strerror(libc::ENOSPC), b"No space left on device");
        if cfg!(target_env = "musl") {
            assert_eq!(strerror(libc::EIO), b"I/O error");
            assert_eq!(strerror(libc::EOVERFLOW), b"Value too large for data type");
            assert_eq!(strerror(123_456), b"No error information");
        } else {
            assert_eq!(strerror(libc::EIO), b"Input/output error");
            assert_eq!(strerror(libc::EOVERFLOW), b"Value too large for defined data type");
            assert_eq!(strerror(123_456), b"Unknown error 123456");
        }
    }

    #[test]
    fn fstat_read_write_offsets_and_flags() {
        let dir = std::env::temp_dir().join(format!("ru-platform-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let info = fstat(file.as_raw_fd()).unwrap();
        assert_eq!((info.kind, info.size), (FileKind::Regular, 10));
        let mut buf = [0u8; 4];
        assert_eq!(read(file.as_raw_fd(), &mut buf).unwrap(), 4);
        assert_eq!(&buf, b"0123");
        assert_eq!(current_offset(file.as_raw_fd()).unwrap(), 4);
        assert_eq!(seek_relative(file.as_raw_fd(), 3).unwrap(), 7);
        assert!(!is_append(file.as_raw_fd()));
        advise_sequential(file.as_raw_fd());
        let appending = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        assert!(is_append(appending.as_raw_fd()));
        assert_eq!(fstat(std::fs::File::open(&dir).unwrap().as_raw_fd()).unwrap().kind, FileKind::Directory);
        assert_eq!(fstat(std::fs::File::open("/dev/null").unwrap().as_raw_fd()).unwrap().kind, FileKind::CharDevice);
        let (sock, _other) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(fstat(sock.as_raw_fd()).unwrap().kind, FileKind::Socket);
        std::fs::remove_dir_all(&dir).unwrap();
        // A closed descriptor: errors, not crashes.
        let (r, w) = pipe().unwrap();
        let raw = r.as_raw_fd();
        drop(r);
        assert_eq!(fstat(raw).unwrap_err().raw_os_error(), Some(libc::EBADF));
        assert_eq!(close(raw).unwrap_err().raw_os_error(), Some(libc::EBADF));
        assert_eq!(write(raw, b"x").unwrap_err().raw_os_error(), Some(libc::EBADF));
        drop(w);
    }

    #[test]
    fn pipes_non_blocking_mode_and_waiting() {
        let (r, w) = pipe().unwrap();
        assert_eq!(fstat(r.as_raw_fd()).unwrap().kind, FileKind::Pipe);
        assert!(current_offset(r.as_raw_fd()).is_err());
        assert_eq!(bytes_available(r.as_raw_fd()), Some(0));
        assert_eq!(write(w.as_raw_fd(), b"hello").unwrap(), 5);
        assert_eq!(bytes_available(r.as_raw_fd()), Some(5));
        set_nonblocking(r.as_raw_fd(), true).unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(read(r.as_raw_fd(), &mut buf).unwrap(), 5);
        assert_eq!(read(r.as_raw_fd(), &mut buf).unwrap_err().raw_os_error(), Some(libc::EAGAIN));
        set_nonblocking(r.as_raw_fd(), false).unwrap();
        // Fill the write end, then let a reader drain it: wait_writable returns once there is room.
        set_nonblocking(w.as_raw_fd(), true).unwrap();
        let page = [7u8; 4096];
        while write(w.as_raw_fd(), &page).is_ok() {}
        let reader = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let mut buf = [0u8; 65536];
            (read(r.as_raw_fd(), &mut buf).unwrap(), r)
        });
        wait_writable(w.as_raw_fd()).unwrap();
        let (n, _r) = reader.join().unwrap();
        assert!(n > 0);
        assert!(write(w.as_raw_fd(), &page).is_ok());
    }

    /// A blocked `read` interrupted by a signal whose handler returns (no SA_RESTART) fails
    /// with EINTR in the kernel; `read` makes the call again and returns the data that comes.
    #[test]
    fn a_read_interrupted_by_a_signal_goes_on() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static CAUGHT: AtomicUsize = AtomicUsize::new(0);
        extern "C" fn caught(_: c_int) {
            CAUGHT.fetch_add(1, Ordering::SeqCst);
        }
        // SAFETY: a zeroed sigaction is valid (no flags, empty mask); the handler only touches
        // an atomic. SIGUSR1 is used by no other test.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = caught as extern "C" fn(c_int) as usize;
            assert_eq!(libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()), 0);
        }
        let (r, w) = pipe().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            // SAFETY: pthread_self has no preconditions.
            tx.send(unsafe { libc::pthread_self() } as usize).unwrap();
            let mut buf = [0u8; 8];
            read(r.as_raw_fd(), &mut buf).map(|n| buf[..n].to_vec())
        });
        let thread = rx.recv().unwrap() as libc::pthread_t;
        for _ in 0..5 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            // SAFETY: the reader thread is alive: it is blocked in read until the write below.
            assert_eq!(unsafe { libc::pthread_kill(thread, libc::SIGUSR1) }, 0);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(write(w.as_raw_fd(), b"data").unwrap(), 4);
        assert_eq!(reader.join().unwrap().unwrap(), b"data");
        assert!(CAUGHT.load(Ordering::SeqCst) >= 5);
    }

    #[test]
    fn unsupported_errors_are_told_from_real_ones() {
        for e in [libc::ENOSYS, libc::EINVAL, libc::EXDEV, libc::EOPNOTSUPP, libc::ENOTSUP] {
            assert!(is_unsupported(&io::Error::from_raw_os_error(e)), "{e}");
        }
        for e in [libc::EIO, libc::ENOSPC, libc::EPIPE, libc::EBADF, libc::EAGAIN, libc::EINTR] {
            assert!(!is_unsupported(&io::Error::from_raw_os_error(e)), "{e}");
        }
    }
}
