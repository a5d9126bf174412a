//! Read-only mappings of regular files (Linux): formatting straight from the page cache saves the kernel's copy into
//! a read buffer, a large part of `cat -A`'s time (benches/RESULTS.md, "Figures behind code comments").
//!
//! A mapped file can shrink under us, and touching a page past its new end raises SIGBUS, which would kill the
//! process where `read` would return a short count. So a SIGBUS handler, installed with the first mapping, replaces
//! the mapping from the faulting page on with zero pages and records where: the access completes, and the caller asks
//! `cut()` and reads the rest. Any other SIGBUS gets the default action.

use super::{Changing, Fd};
use std::io;

/// Whether this build maps files (Linux, not the `portable` build).
pub const MAPPED_FILES: bool = cfg!(all(target_os = "linux", not(feature = "portable")));

#[cfg(all(target_os = "linux", not(feature = "portable")))]
mod imp {
    use super::Fd;
    use std::ffi::{c_int, c_void};
    use std::io;
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, compiler_fence};

    /// The live mappings (as many as [`WATCHED`]: one per counting thread): each one's first address (0: free),
    /// length, and the offset into it of the first page replaced after a SIGBUS (usize::MAX: none).
    struct Watched {
        start: AtomicUsize,
        len: AtomicUsize,
        cut: AtomicUsize,
    }
    const WATCHED: usize = 2;
    #[allow(clippy::declare_interior_mutable_const, reason = "each array element is its own")]
    const FREE: Watched =
        Watched { start: AtomicUsize::new(0), len: AtomicUsize::new(0), cut: AtomicUsize::new(usize::MAX) };
    static LIVE: [Watched; WATCHED] = [FREE; WATCHED];
    static PAGE: AtomicUsize = AtomicUsize::new(0);
    static HANDLER: Once = Once::new();
    /// Whether the handler is in place (see `install_handler`).
    static HANDLED: AtomicBool = AtomicBool::new(false);

    extern "C" fn on_sigbus(_: c_int, info: *mut libc::siginfo_t, _: *mut c_void) {
        // The interrupted code's errno, kept: mmap sets it when it fails.
        let _errno = KeepErrno::new();
        // SAFETY: the kernel passes a valid siginfo_t to an SA_SIGINFO handler.
        let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
        let page = PAGE.load(Ordering::SeqCst);
        // A read past the end of a mapped file is a BUS_ADRERR (BUS_OBJERR: an I/O error behind
        // the page); anything else (a signal sent by kill, a machine-check report) is not ours.
        let watched = LIVE.iter().find(|watched| {
            let (start, len) = (watched.start.load(Ordering::SeqCst), watched.len.load(Ordering::SeqCst));
            start != 0 && addr >= start && addr < start + len
        });
        if let Some(watched) = watched.filter(|_| code == libc::BUS_ADRERR || code == libc::BUS_OBJERR) {
            let (start, len) = (watched.start.load(Ordering::SeqCst), watched.len.load(Ordering::SeqCst));
            let from = addr & !(page - 1);
            // SAFETY: [from, start + len) lies inside the live mapping, which only this module owns; replacing it
            // with anonymous zero pages (same protection) leaves every address the program may touch readable. mmap
            // is async-signal-safe here (why: docs/ARCHITECTURE.md, "Regular files: mapped or read").
            let ret = unsafe {
                libc::mmap(
                    from as *mut c_void,
                    start + len - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if ret != libc::MAP_FAILED {
                watched.cut.fetch_min(from - start, Ordering::SeqCst);
                return;
            }
        }
        // Not ours, or not replaced: the default action, as without the handler, raised again for delivery on return.
        // SAFETY: signal() and raise() are async-signal-safe.
        unsafe {
            libc::signal(libc::SIGBUS, libc::SIG_DFL);
            libc::raise(libc::SIGBUS);
        }
    }

    /// `errno` as it was when made, put back when dropped.
    struct KeepErrno(c_int);

    impl KeepErrno {
        fn new() -> KeepErrno {
            // SAFETY: the calling thread's errno, a valid thread-local int.
            KeepErrno(unsafe { *libc::__errno_location() })
        }
    }

    impl Drop for KeepErrno {
        fn drop(&mut self) {
            // SAFETY: as in `new`.
            unsafe { *libc::__errno_location() = self.0 };
        }
    }

    /// Installs the SIGBUS handler once, where SIGBUS is at its default action and not masked
    /// (ignored by `trap '' BUS` it must stay so; masked, faults kill anyway). True if in place.
    fn install_handler() -> bool {
        HANDLER.call_once(|| {
            PAGE.store(super::super::page_size(), Ordering::SeqCst);
            // SAFETY: all-zero sigset_t and sigaction are valid C structs, which the functions only read and write.
            unsafe {
                let mut mask: libc::sigset_t = std::mem::zeroed();
                if libc::pthread_sigmask(libc::SIG_BLOCK, std::ptr::null(), &mut mask) != 0
                    || libc::sigismember(&mask, libc::SIGBUS) != 0
                {
                    return;
                }
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 || old.sa_sigaction != libc::SIG_DFL {
                    return;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                if libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) == 0 {
                    HANDLED.store(true, Ordering::SeqCst);
                }
            }
        });
        HANDLED.load(Ordering::SeqCst)
    }

    /// Whether `fd`'s file system keeps plain file data in the page cache, mapped as `read` reads
    /// it: not /proc, /sys, debugfs and the like (device memory, sizes unlike what `read` gives).
    pub fn plain_file_system(fd: Fd) -> bool {
        const PLAIN: [u32; 8] = [
            0xef53,      // ext2, ext3, ext4
            0x5846_5342, // xfs
            0x9123_683e, // btrfs
            0x0102_1994, // tmpfs
            0xf2f5_2010, // f2fs
            0x2fc1_2fc1, // zfs
            0x794c_7630, // overlayfs
            0xcafe_4a11, // bcachefs
        ];
        super::super::file_system_magic(fd).is_some_and(|magic| PLAIN.contains(&magic))
    }

    pub struct Mapping {
        watched: &'static Watched,
        addr: usize,
        map_len: usize,
        skip: usize,
        len: usize,
    }

    impl Mapping {
        pub fn new(fd: Fd, offset: u64, len: usize) -> io::Result<Mapping> {
            let page = super::super::page_size();
            let skip = (offset % page as u64) as usize;
            let map_len = skip.checked_add(len).ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
            let aligned =
                libc::off_t::try_from(offset - skip as u64).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
            if !plain_file_system(fd) {
                return Err(io::Error::from(io::ErrorKind::Unsupported));
            }
            if !install_handler() {
                return Err(io::Error::from(io::ErrorKind::Unsupported));
            }
            // SAFETY: a new private read-only mapping with no address hint; the result is checked.
            let ptr =
                unsafe { libc::mmap(std::ptr::null_mut(), map_len, libc::PROT_READ, libc::MAP_PRIVATE, fd, aligned) };
            if ptr == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let addr = ptr as usize;
            // A free entry, taken with its length not yet set (0): the handler matches no address.
            let Some(watched) = LIVE
                .iter()
                .find(|watched| watched.start.compare_exchange(0, addr, Ordering::SeqCst, Ordering::SeqCst).is_ok())
            else {
                // As many mappings are live as the handler watches.
                // SAFETY: unmapping what was just mapped and is referenced nowhere.
                unsafe { libc::munmap(ptr, map_len) };
                return Err(io::Error::from_raw_os_error(libc::EBUSY));
            };
            watched.cut.store(usize::MAX, Ordering::SeqCst);
            watched.len.store(map_len, Ordering::SeqCst);
            // SAFETY: advice only, on our own mapping. (Not MADV_POPULATE_READ, which cost more
            // than the faults it saves: benches/RESULTS.md, "Figures behind code comments".)
            unsafe { libc::madvise(ptr, map_len, libc::MADV_SEQUENTIAL) };
            Ok(Mapping { watched, addr, map_len, skip, len })
        }

        pub fn bytes(&self) -> &[u8] {
            // SAFETY: [addr, addr + map_len) stays mapped and readable until drop: the SIGBUS handler replaces pages
            // past the file's end with zero pages, never unmaps them. Another process, or the handler, may change the
            // bytes while we read them, though Rust assumes bytes behind a shared reference do not change. But the
            // only readers, cat's formatter and wc's counters (pub(crate), through `Changing`), derive no length,
            // index bound or other invariant from a byte that a second read would have to confirm. So a changed byte
            // can change the output, never memory safety.
            unsafe { std::slice::from_raw_parts((self.addr + self.skip) as *const u8, self.len) }
        }

        pub fn touch(&self, at: usize) {
            let byte = &self.bytes()[at];
            // SAFETY: a read of one byte of the slice above; volatile so that it happens here.
            unsafe { std::ptr::read_volatile(byte) };
        }

        pub fn cut(&self) -> Option<usize> {
            // Keeps the compiler from moving earlier reads of the mapping past the load below.
            compiler_fence(Ordering::SeqCst);
            match self.watched.cut.load(Ordering::SeqCst) {
                usize::MAX => None,
                cut => Some(cut.saturating_sub(self.skip)),
            }
        }
    }

    impl Drop for Mapping {
        fn drop(&mut self) {
            self.watched.len.store(0, Ordering::SeqCst);
            self.watched.start.store(0, Ordering::SeqCst);
            // SAFETY: our own mapping (or its zero-page replacement), not referenced past drop.
            unsafe { libc::munmap(self.addr as *mut c_void, self.map_len) };
        }
    }
}

#[cfg(not(all(target_os = "linux", not(feature = "portable"))))]
mod imp {
    use super::Fd;
    use std::io;

    pub struct Mapping(());

    pub fn plain_file_system(_: Fd) -> bool {
        false
    }

    impl Mapping {
        pub fn new(_: Fd, _: u64, _: usize) -> io::Result<Mapping> {
            Err(io::Error::from(io::ErrorKind::Unsupported))
        }

        pub fn bytes(&self) -> &[u8] {
            &[]
        }

        pub fn touch(&self, _: usize) {}

        pub fn cut(&self) -> Option<usize> {
            None
        }
    }
}

/// Whether `fd`'s file system's files are mapped: disk and memory ones if `MAPPED_FILES`, never /proc, /sys and such.
pub fn maps_files_on(fd: Fd) -> bool {
    imp::plain_file_system(fd)
}

/// A read-only view of `len` bytes of a regular file from `offset`, straight from the page
/// cache. Two at a time per process (one per counting thread; a third `new` fails with EBUSY).
pub struct Mapping(imp::Mapping);

impl Mapping {
    /// Maps `len` bytes of `fd` from any `offset` (the mapping starts at its page). Fails where `maps_files_on` says
    /// no, where SIGBUS is not at its default action or is masked (no handler for shrinking files), or mmap fails.
    pub fn new(fd: Fd, offset: u64, len: usize) -> io::Result<Mapping> {
        imp::Mapping::new(fd, offset, len).map(Mapping)
    }

    /// The file's bytes as they are when read, zeros from `cut()` on; they may change while read ([`Changing`]).
    pub(crate) fn bytes(&self) -> Changing<'_> {
        Changing::of(self.0.bytes())
    }

    /// Reads byte `at` now: past the file's current end this sets `cut()`.
    pub(crate) fn touch(&self, at: usize) {
        self.0.touch(at)
    }

    /// Where a SIGBUS found the file to end, from which `bytes()` are zeros; None until then.
    pub(crate) fn cut(&self) -> Option<usize> {
        self.0.cut()
    }
}
