//! The output sink: writes every byte across short writes and `EAGAIN` (a non-blocking
//! stdout inherited from the parent is waited on with `poll`, not spun on or reported).

use crate::platform::{self, Fd};
use std::io;

/// Writes all of `buf` to `fd`. A `write` that returns 0 is reported as `ENOSPC`, as gnulib's `full_write` does.
pub fn write_all(fd: Fd, mut buf: &[u8]) -> io::Result<()> {
    while !buf.is_empty() {
        match platform::write(fd, buf) {
            Ok(0) => return Err(io::Error::from_raw_os_error(platform::errno::ENOSPC)),
            Ok(n) => buf = &buf[n..],
            Err(err) => match err.raw_os_error() {
                Some(e) if e == platform::errno::EAGAIN || e == platform::errno::EWOULDBLOCK => {
                    platform::wait_writable(fd)?
                }
                _ => return Err(err),
            },
        }
    }
    Ok(())
}
