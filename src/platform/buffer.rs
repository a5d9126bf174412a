//! Page-aligned buffers straight from `mmap`, advised for transparent huge pages where the
//! system has them: the shape `vmsplice` wants (whole pages), and cheap to fault in.

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The pages are about to be written: fault them all in with the mmap (MAP_POPULATE), not one
/// fault each, which is costly in a VM (benches/RESULTS.md, "Figures behind code comments").
#[cfg(target_os = "linux")]
const POPULATE: libc::c_int = libc::MAP_POPULATE;
#[cfg(not(target_os = "linux"))]
const POPULATE: libc::c_int = 0;

/// Transparent huge pages are this large on x86-64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// An anonymous, zero-filled, page-aligned mapping of at least `len` bytes.
pub struct PageBuffer {
    ptr: *mut u8,
    len: usize,
    map_len: usize,
}

impl PageBuffer {
    /// A buffer about to be written whole, its pages faulted in by the mmap that maps them.
    pub fn new(len: usize) -> io::Result<PageBuffer> {
        PageBuffer::map(len, POPULATE)
    }

    /// A buffer maybe used for its first page only (wc's first reads: script inputs are often tiny), pages faulted in
    /// on first touch: populating 64 KiB showed in a tiny `wc` (benches/RESULTS.md, "Figures behind code comments").
    pub fn on_demand(len: usize) -> io::Result<PageBuffer> {
        PageBuffer::map(len, 0)
    }

    fn map(len: usize, populate: libc::c_int) -> io::Result<PageBuffer> {
        let page = page_size();
        let map_len = len.max(1).div_ceil(page) * page;
        // SAFETY: an anonymous private mapping with no address hint; the result is checked.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANON | populate,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        if map_len >= HUGE_PAGE {
            advise_huge(ptr, map_len);
        }
        Ok(PageBuffer { ptr: ptr.cast(), len, map_len })
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: ptr is a live mapping of map_len >= len readable and writable bytes, owned by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: as in as_mut_slice, shared access.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// Gives the buffer up for good: mapped and unchanged until exit, its pages may go to a pipe by `vmsplice`.
    pub fn freeze(self) -> &'static [u8] {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: never unmapped (no Drop runs), and no &mut to it can exist now: a shared 'static borrow is valid.
        unsafe { std::slice::from_raw_parts(this.ptr, this.len) }
    }
}

impl Drop for PageBuffer {
    fn drop(&mut self) {
        // SAFETY: ptr/map_len are exactly the mapping made in new(), unmapped once.
        unsafe { libc::munmap(self.ptr.cast(), self.map_len) };
    }
}

/// The page size, asked of the system once (`cat` wants it for every input).
pub(super) fn page_size() -> usize {
    static PAGE: AtomicUsize = AtomicUsize::new(0);
    match PAGE.load(Ordering::Relaxed) {
        0 => {
            // SAFETY: sysconf has no memory effects.
            let size = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            let size = if size > 0 { size as usize } else { 4096 };
            PAGE.store(size, Ordering::Relaxed);
            size
        }
        size => size,
    }
}

#[cfg(target_os = "linux")]
fn advise_huge(ptr: *mut libc::c_void, len: usize) {
    // SAFETY: advice on our own fresh mapping; failure (no THP) is harmless and ignored.
    unsafe { libc::madvise(ptr, len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_ptr: *mut libc::c_void, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mapping is page-aligned, zero-filled, writable over exactly `len` bytes (including
    /// the huge-page-advised sizes), and unmapped on drop; a frozen buffer stays readable.
    #[test]
    fn mappings_are_aligned_zeroed_writable_and_frozen_ones_stay() {
        let page = page_size();
        assert!(page.is_power_of_two());
        let mut frozen = Vec::new();
        for (i, len) in [0, 1, page - 1, page, page + 1, HUGE_PAGE, HUGE_PAGE + 3].into_iter().enumerate() {
            // Populated and on-demand mappings in turn.
            let mut buf = if i % 2 == 0 { PageBuffer::new(len) } else { PageBuffer::on_demand(len) }.unwrap();
            assert_eq!(buf.as_slice().len(), len);
            assert_eq!(buf.as_slice().as_ptr() as usize % page, 0, "len {len}");
            assert!(buf.as_slice().iter().all(|&b| b == 0), "len {len}");
            for (i, b) in buf.as_mut_slice().iter_mut().enumerate() {
                *b = (i % 251) as u8;
            }
            assert!(buf.as_slice().iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
            if len % 2 == 1 {
                frozen.push(buf.freeze());
            }
        }
        // Other mappings come and go; the frozen ones keep their bytes.
        for _ in 0..8 {
            drop(PageBuffer::new(HUGE_PAGE).unwrap());
        }
        for f in frozen {
            assert!(f.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
        }
    }
}
