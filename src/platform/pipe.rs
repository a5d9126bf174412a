//! Zero-copy pipe calls: `vmsplice`, `splice`, `tee` and pipe resizing.
//!
//! Linux has them; everywhere else (and with the `portable` feature) each call fails with
//! `ENOSYS`, the same answer an old kernel gives, so callers have exactly one fallback path.

use super::Fd;
use std::io;

/// Whether this build has the zero-copy calls at all (false: every call below is `ENOSYS`).
pub const ZERO_COPY: bool = cfg!(all(target_os = "linux", not(feature = "portable")));

#[cfg(all(target_os = "linux", not(feature = "portable")))]
mod imp {
    use super::super::{Fd, last_error, retry};
    use std::io;

    pub fn vmsplice(fd: Fd, bufs: &[&[u8]]) -> io::Result<usize> {
        const IOV_MAX: usize = 1024;
        let iov: Vec<libc::iovec> = bufs
            .iter()
            .take(IOV_MAX)
            .map(|buf| libc::iovec { iov_base: buf.as_ptr() as *mut libc::c_void, iov_len: buf.len() })
            .collect();
        // SAFETY: the iovecs describe live, initialised slices. vmsplice only reads them, and the
        // callers' contract (see `vmsplice` below) keeps the pages unchanged while a pipe holds them.
        retry(|| unsafe { libc::vmsplice(fd, iov.as_ptr(), iov.len(), 0) })
    }

    pub fn splice(fd_in: Fd, fd_out: Fd, len: usize) -> io::Result<usize> {
        // SAFETY: null offsets mean "use and advance the file offsets"; no memory is passed.
        retry(|| unsafe {
            libc::splice(fd_in, std::ptr::null_mut(), fd_out, std::ptr::null_mut(), len, libc::SPLICE_F_MOVE)
        })
    }

    pub fn tee(fd_in: Fd, fd_out: Fd, len: usize) -> io::Result<usize> {
        // SAFETY: tee takes only descriptors and a length; no memory is passed.
        retry(|| unsafe { libc::tee(fd_in, fd_out, len, 0) })
    }

    pub fn set_pipe_size(fd: Fd, size: usize) -> io::Result<usize> {
        let size = libc::c_int::try_from(size).unwrap_or(libc::c_int::MAX);
        // SAFETY: F_SETPIPE_SZ takes an int argument and touches no memory of ours.
        let ret = unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, size) };
        if ret < 0 { Err(last_error()) } else { Ok(ret as usize) }
    }

    pub fn pipe_size(fd: Fd) -> io::Result<usize> {
        // SAFETY: F_GETPIPE_SZ takes no argument and touches no memory of ours.
        let ret = unsafe { libc::fcntl(fd, libc::F_GETPIPE_SZ) };
        if ret < 0 { Err(last_error()) } else { Ok(ret as usize) }
    }

    pub fn sendfile(fd_out: Fd, fd_in: Fd, len: usize) -> io::Result<usize> {
        // SAFETY: a null offset means "use and advance the input's file offset".
        retry(|| unsafe { libc::sendfile(fd_out, fd_in, std::ptr::null_mut(), len) })
    }

    pub fn pipe_max_size() -> Option<usize> {
        use std::io::Read;
        let mut text = [0u8; 32];
        let n = std::fs::File::open("/proc/sys/fs/pipe-max-size").ok()?.read(&mut text).ok()?;
        std::str::from_utf8(&text[..n]).ok()?.trim().parse().ok()
    }
}

#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
mod imp {
    use super::super::Fd;
    use std::io;

    fn unsupported() -> io::Error {
        io::Error::from_raw_os_error(libc::ENOSYS)
    }
    pub fn vmsplice(_fd: Fd, _bufs: &[&[u8]]) -> io::Result<usize> {
        Err(unsupported())
    }
    pub fn splice(_fd_in: Fd, _fd_out: Fd, _len: usize) -> io::Result<usize> {
        Err(unsupported())
    }
    pub fn tee(_fd_in: Fd, _fd_out: Fd, _len: usize) -> io::Result<usize> {
        Err(unsupported())
    }
    pub fn set_pipe_size(_fd: Fd, _size: usize) -> io::Result<usize> {
        Err(unsupported())
    }
    pub fn pipe_size(_fd: Fd) -> io::Result<usize> {
        Err(unsupported())
    }
    pub fn pipe_max_size() -> Option<usize> {
        None
    }
    pub fn sendfile(_fd_out: Fd, _fd_in: Fd, _len: usize) -> io::Result<usize> {
        Err(unsupported())
    }
}

/// Maps the slices (up to IOV_MAX of them) into the pipe `fd` without copying them; returns the bytes moved (possibly
/// fewer than asked). Each slice within one page becomes one pipe buffer. The caller must never modify those bytes
/// again while the process lives: the pipe (and whoever reads it) sees the pages themselves, not a copy.
pub fn vmsplice(fd: Fd, bufs: &[&'static [u8]]) -> io::Result<usize> {
    imp::vmsplice(fd, bufs)
}

/// Moves up to `len` bytes from `fd_in` to `fd_out` (one of them a pipe) at their current offsets.
pub fn splice(fd_in: Fd, fd_out: Fd, len: usize) -> io::Result<usize> {
    imp::splice(fd_in, fd_out, len)
}

/// Duplicates up to `len` bytes from the pipe `fd_in` into the pipe `fd_out` without consuming them.
pub fn tee(fd_in: Fd, fd_out: Fd, len: usize) -> io::Result<usize> {
    imp::tee(fd_in, fd_out, len)
}

/// Asks for a pipe capacity of `size` bytes; returns the capacity granted.
pub fn set_pipe_size(fd: Fd, size: usize) -> io::Result<usize> {
    imp::set_pipe_size(fd, size)
}

pub fn pipe_size(fd: Fd) -> io::Result<usize> {
    imp::pipe_size(fd)
}

/// The most stdout's pipe is grown to: the kernel's default `pipe-max-size`, faster than GNU 9.12's 512 KiB (both
/// ends on one CPU, half the pipe is twice the wake-ups a byte). See [`grow_stdout_pipe`] for a raised limit.
pub const STDOUT_PIPE_MAX: usize = 1 << 20;

/// What standard output's pipe is grown to here: `min(pipe-max-size, 1 MiB)`.
pub fn stdout_pipe_target() -> usize {
    pipe_max_size().unwrap_or(PIPE_MAX_SIZE_DEFAULT).min(STDOUT_PIPE_MAX)
}

/// Grows pipe `fd` (stdout) to `stdout_pipe_target()`, never shrinking it; returns its capacity. Not past 1 MiB where
/// `pipe-max-size` was raised: a pipe that swallows a whole file lets `cat FILE | head -c1` end without SIGPIPE,
/// where GNU's dies of it; and a pipe's pages count against `pipe-user-pages-soft`, past which new pipes get 2 pages.
pub fn grow_stdout_pipe(fd: Fd) -> io::Result<usize> {
    let size = pipe_size(fd)?;
    let target = stdout_pipe_target();
    if size >= target {
        return Ok(size);
    }
    Ok(imp::set_pipe_size(fd, target).unwrap_or(size))
}

/// Copies up to `len` bytes between two regular files in the kernel, at their offsets (Linux and FreeBSD; else
/// `ENOSYS`, as with `portable`). Returns 0 at the input's end, and on some pseudo-files before it (then read).
#[cfg(all(any(target_os = "linux", target_os = "freebsd"), not(feature = "portable")))]
pub fn copy_file_range(fd_in: Fd, fd_out: Fd, len: usize) -> io::Result<usize> {
    // SAFETY: null offsets mean "use and advance the file offsets"; no memory is passed.
    super::retry(|| unsafe { libc::copy_file_range(fd_in, std::ptr::null_mut(), fd_out, std::ptr::null_mut(), len, 0) })
}

#[cfg(not(all(any(target_os = "linux", target_os = "freebsd"), not(feature = "portable"))))]
pub fn copy_file_range(_fd_in: Fd, _fd_out: Fd, _len: usize) -> io::Result<usize> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// Whether `copy_file_range` exists in this build.
pub const COPY_FILE_RANGE: bool = cfg!(all(any(target_os = "linux", target_os = "freebsd"), not(feature = "portable")));

/// Sends up to `len` bytes from the regular file `fd_in` (at its offset) to `fd_out`.
pub fn sendfile(fd_out: Fd, fd_in: Fd, len: usize) -> io::Result<usize> {
    imp::sendfile(fd_out, fd_in, len)
}

/// Linux's default `/proc/sys/fs/pipe-max-size` (1 MiB): the size to ask for when the file cannot be read.
pub const PIPE_MAX_SIZE_DEFAULT: usize = 1 << 20;
/// A new pipe's capacity on Linux (16 pages of 4 KiB): what a pipe has when growing it fails.
pub const PIPE_SIZE_DEFAULT: usize = 64 * 1024;

/// The most an unprivileged process may give a pipe (`/proc/sys/fs/pipe-max-size`), read once (cat asks per input).
pub fn pipe_max_size() -> Option<usize> {
    static MAX: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *MAX.get_or_init(imp::pipe_max_size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{self, PageBuffer};
    use std::os::fd::AsRawFd;

    fn read_all(fd: Fd, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        let mut got = 0;
        while got < len {
            let n = platform::read(fd, &mut out[got..]).unwrap();
            assert!(n > 0);
            got += n;
        }
        out
    }

    /// vmsplice maps a frozen buffer's pages into a pipe (read back unchanged), tee copies a
    /// pipe's contents without consuming them, splice moves them on, and the pipe can be
    /// grown; the portable build answers ENOSYS to every one of them.
    #[test]
    fn zero_copy_calls_move_exactly_the_bytes_or_say_enosys() {
        let (a_read, a_write) = platform::pipe().unwrap();
        let (b_read, b_write) = platform::pipe().unwrap();
        let mut buf = PageBuffer::new(3 * 4096 + 5).unwrap();
        for (i, b) in buf.as_mut_slice().iter_mut().enumerate() {
            *b = (i * 7 % 256) as u8;
        }
        let frozen = buf.freeze();
        let parts = [&frozen[..100], &frozen[100..]];
        let moved = vmsplice(a_write.as_raw_fd(), &parts);
        if !ZERO_COPY {
            for result in [
                moved,
                tee(a_read.as_raw_fd(), b_write.as_raw_fd(), 1),
                splice(a_read.as_raw_fd(), b_write.as_raw_fd(), 1),
                set_pipe_size(a_write.as_raw_fd(), 1 << 20),
            ] {
                assert_eq!(result.unwrap_err().raw_os_error(), Some(libc::ENOSYS));
            }
            assert_eq!(pipe_max_size(), None);
            return;
        }
        assert_eq!(moved.unwrap(), frozen.len());
        assert_eq!(tee(a_read.as_raw_fd(), b_write.as_raw_fd(), frozen.len()).unwrap(), frozen.len());
        assert_eq!(read_all(b_read.as_raw_fd(), frozen.len()), frozen);
        let mut left = frozen.len();
        while left > 0 {
            left -= splice(a_read.as_raw_fd(), b_write.as_raw_fd(), left).unwrap();
        }
        assert_eq!(read_all(b_read.as_raw_fd(), frozen.len()), frozen);
        let max = pipe_max_size().unwrap();
        assert!(set_pipe_size(a_write.as_raw_fd(), max).unwrap() >= max.min(1 << 20));
    }

    /// Standard output's pipe grows to `min(pipe-max-size, 1 MiB)` and is never shrunk; the
    /// portable build leaves it as it is.
    #[test]
    fn stdout_pipe_grows_to_at_most_1_mib_and_never_shrinks() {
        let (read_end, write_end) = platform::pipe().unwrap();
        let (read_end, write_end) = (read_end.as_raw_fd(), write_end.as_raw_fd());
        if !ZERO_COPY {
            assert_eq!(grow_stdout_pipe(write_end).unwrap_err().raw_os_error(), Some(libc::ENOSYS));
            return;
        }
        let text = std::fs::read_to_string("/proc/sys/fs/pipe-max-size").unwrap();
        let want = text.trim().parse::<usize>().unwrap().min(1 << 20);
        assert_eq!(stdout_pipe_target(), want);
        assert_eq!(grow_stdout_pipe(write_end).unwrap(), want);
        assert_eq!(pipe_size(read_end).unwrap(), want);
        // A larger pipe (as root, past pipe-max-size) stays as large.
        if set_pipe_size(write_end, 2 << 20).is_ok() {
            assert_eq!(grow_stdout_pipe(write_end).unwrap(), 2 << 20);
            assert_eq!(pipe_size(read_end).unwrap(), 2 << 20);
        }
    }

    /// copy_file_range and sendfile move a file's bytes from its offset, and advance it.
    #[test]
    fn file_copies_use_and_advance_the_offsets() {
        use std::io::{Seek, SeekFrom, Write};
        let dir = std::env::temp_dir().join(format!("ru-pipe-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
        let mut src =
            std::fs::File::options().read(true).write(true).create(true).truncate(true).open(dir.join("src")).unwrap();
        src.write_all(&data).unwrap();
        src.seek(SeekFrom::Start(10)).unwrap();
        let dst = std::fs::File::create(dir.join("dst")).unwrap();
        match (COPY_FILE_RANGE, copy_file_range(src.as_raw_fd(), dst.as_raw_fd(), 1 << 20)) {
            (true, Ok(n)) => {
                assert_eq!(n, data.len() - 10);
                assert_eq!(std::fs::read(dir.join("dst")).unwrap(), &data[10..]);
                assert_eq!(platform::current_offset(src.as_raw_fd()).unwrap(), data.len() as u64);
            }
            (false, Err(err)) => assert_eq!(err.raw_os_error(), Some(libc::ENOSYS)),
            other => panic!("copy_file_range: {other:?}"),
        }
        src.seek(SeekFrom::Start(99_000)).unwrap();
        let (r, w) = platform::pipe().unwrap();
        match (ZERO_COPY, sendfile(w.as_raw_fd(), src.as_raw_fd(), 1 << 20)) {
            (true, Ok(n)) => {
                assert_eq!(n, 1000);
                assert_eq!(read_all(r.as_raw_fd(), 1000), &data[99_000..]);
            }
            (false, Err(err)) => assert_eq!(err.raw_os_error(), Some(libc::ENOSYS)),
            other => panic!("sendfile: {other:?}"),
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
