//! Bytes that may change while they are read, and the only means to read them.
//!
//! A mapping's bytes are the page cache's: another process may write them (a log appended to, a file rewritten in
//! place), and the SIGBUS handler may turn them to zeros (`mapped.rs`). The length never changes, every address stays
//! readable, and each byte read is one the file held at some moment (or a zero). But two reads of one byte may
//! differ, so a reader takes each byte as a value read once, and derives from it no index, length or loop bound that
//! a second read would have to confirm. [`Changing`] gives the formatter and the counters their bytes, mapped or
//! read, as values, copies and smaller views; only the SIMD kernels in `platform` get a slice.

use std::slice::SliceIndex;

/// A view of bytes that may change while they are read: a `[u8]` or a `[u8; N]`.
#[repr(transparent)]
pub struct Changing<'a, T: ?Sized = [u8]>(&'a T);

impl<T: ?Sized> Clone for Changing<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Changing<'_, T> {}

impl<'a, T: ?Sized> Changing<'a, T> {
    /// The view of `bytes`; bytes that cannot change (a read buffer) are a case of it.
    #[inline(always)]
    pub fn of(bytes: &'a T) -> Changing<'a, T> {
        Changing(bytes)
    }

    /// The bytes, for a `platform` reader that reads each byte as a value read once: whole blocks loaded at positions
    /// not taken from the bytes, values compared, counted or indexing 256-entry tables. A changed byte changes the
    /// output, never memory safety (`tests/hostile.rs` rewrites mapped files under every counter and formatter).
    #[inline(always)]
    pub(in crate::platform) fn read_each_once(self) -> &'a T {
        self.0
    }
}

impl<'a> Changing<'a> {
    #[inline(always)]
    pub fn len(self) -> usize {
        self.0.len()
    }

    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }

    /// The byte at `at` (panics past the end), read once.
    #[inline(always)]
    pub fn byte(self, at: usize) -> u8 {
        self.0[at]
    }

    /// The byte at `at`, read once; None past the end.
    #[inline(always)]
    pub fn get(self, at: usize) -> Option<u8> {
        self.0.get(at).copied()
    }

    /// The view of a part (panics where the range is not inside).
    #[inline(always)]
    pub fn range<R: SliceIndex<[u8], Output = [u8]>>(self, range: R) -> Changing<'a> {
        Changing(&self.0[range])
    }

    /// The view of the `N` bytes from `at` (panics where they are not all there).
    #[inline(always)]
    pub fn array<const N: usize>(self, at: usize) -> Changing<'a, [u8; N]> {
        Changing(self.0[at..at + N].try_into().unwrap())
    }

    #[inline(always)]
    pub fn split_last(self) -> Option<(u8, Changing<'a>)> {
        self.0.split_last().map(|(&last, rest)| (last, Changing(rest)))
    }

    /// A copy of the first `N` bytes (zeros past the end), and how many there were.
    #[inline(always)]
    pub fn head<const N: usize>(self) -> ([u8; N], usize) {
        if let Some(head) = self.0.first_chunk::<N>() {
            return (*head, N);
        }
        let mut head = [0; N];
        head[..self.0.len()].copy_from_slice(self.0);
        (head, self.0.len())
    }

    /// Copies the bytes into `out`, of the same length.
    #[inline(always)]
    pub fn copy_to(self, out: &mut [u8]) {
        out.copy_from_slice(self.0);
    }

    #[inline(always)]
    pub fn find(self, byte: u8) -> Option<usize> {
        memchr::memchr(byte, self.0)
    }

    #[inline(always)]
    pub fn find_all(self, byte: u8) -> memchr::Memchr<'a> {
        memchr::memchr_iter(byte, self.0)
    }

    /// The bytes in order, each read once.
    #[inline(always)]
    pub fn bytes(self) -> impl Iterator<Item = u8> + 'a {
        self.0.iter().copied()
    }
}

impl<'a, const N: usize> Changing<'a, [u8; N]> {
    /// The byte at `at` (panics past the end), read once.
    #[inline(always)]
    pub fn byte(self, at: usize) -> u8 {
        self.0[at]
    }

    /// The view of all `N` bytes as a slice.
    #[inline(always)]
    pub fn all(self) -> Changing<'a> {
        Changing(self.0)
    }

    /// The view of the `M` bytes from `at` (panics where they are not all there).
    #[inline(always)]
    pub fn array<const M: usize>(self, at: usize) -> Changing<'a, [u8; M]> {
        self.all().array(at)
    }
}
