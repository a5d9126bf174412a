//! The formatter's output: space written by index, and the copies into it.

use super::map::SLOT;
use super::notation::Shown;
use crate::platform::Changing;

/// Output space written by index, initialised once: no per-byte capacity checks or zero-filling
/// in the hot loops. `feed` needs room for its input's worst case ([`OutBuf::room_for`]).
pub struct OutBuf {
    data: Vec<u8>,
    len: usize,
}

/// Short runs go this many bytes at a time (one inlined copy, not a memmove a line), overwriting past the run.
const OVERCOPY: usize = 64;

/// The most one input byte can become: a LF with a widest line number and `$` (19 + 2 bytes),
/// or `M-^X` (4 bytes), plus the `^M` of a CR held back from the previous chunk.
pub(super) const WORST_EXPANSION: usize = 21;

/// Room past the worst case: a block's output slot of the mappings (for a copy's overrun) and a held-back CR's `^M`.
const SLACK: usize = SLOT + 2;

impl OutBuf {
    /// Room for `pending` bytes already formatted plus the worst case of `chunk` input bytes.
    pub fn room_for(pending: usize, chunk: usize) -> OutBuf {
        OutBuf { data: vec![0; pending + chunk * WORST_EXPANSION + SLACK], len: 0 }
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.data[..self.len]
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }

    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    /// Whether `input` bytes fit at their worst, as `room_for` made room for them.
    pub(super) fn has_room_for(&self, input: usize) -> bool {
        self.has_room(input * WORST_EXPANSION + SLACK)
    }

    pub(super) fn has_room(&self, bytes: usize) -> bool {
        self.data.len() - self.len >= bytes
    }

    /// The whole space and the length used, for loops that keep the length in a local (stores
    /// into the space could otherwise alias the length, reloaded after every one).
    #[inline(always)]
    pub(super) fn parts(&mut self) -> (&mut [u8], usize) {
        (&mut self.data, self.len)
    }

    /// Sets the length after `parts`.
    #[inline(always)]
    pub(super) fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.data.len());
        self.len = len;
    }

    #[inline(always)]
    pub(super) fn put(&mut self, bytes: &[u8]) {
        self.data[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    #[inline(always)]
    pub(super) fn put_copy(&mut self, bytes: Changing<'_>) {
        bytes.copy_to(&mut self.data[self.len..self.len + bytes.len()]);
        self.len += bytes.len();
    }

    /// Appends `src[at..at + len]` (see [`put_run_at`]).
    #[inline(always)]
    pub(super) fn put_run(&mut self, src: Changing<'_>, at: usize, len: usize) {
        self.len = put_run_at(&mut self.data, self.len, src, at, at + len);
    }

    /// Appends a byte's notation (see [`put_shown_at`]).
    #[inline(always)]
    pub(super) fn put_shown(&mut self, shown: Shown) {
        self.len = put_shown_at(&mut self.data, self.len, shown);
    }

    #[inline(always)]
    pub(super) fn push(&mut self, byte: u8) {
        self.data[self.len] = byte;
        self.len += 1;
    }
}

/// Writes `src[start..end]` at `data[at..]` in whole 64-byte blocks where both sides have room
/// (the bytes past `end` are overwritten by what follows); returns where it ends.
#[inline(always)]
pub(super) fn put_run_at(data: &mut [u8], at: usize, src: Changing<'_>, start: usize, end: usize) -> usize {
    let len = end - start;
    if len <= OVERCOPY && start + OVERCOPY <= src.len() && at + OVERCOPY <= data.len() {
        src.range(start..start + OVERCOPY).copy_to(&mut data[at..at + OVERCOPY]);
        return at + len;
    }
    let whole = len.div_ceil(OVERCOPY) * OVERCOPY;
    if start + whole <= src.len() && at + whole <= data.len() {
        for k in (0..whole).step_by(OVERCOPY) {
            src.range(start + k..start + k + OVERCOPY).copy_to(&mut data[at + k..at + k + OVERCOPY]);
        }
    } else {
        src.range(start..end).copy_to(&mut data[at..at + len]);
    }
    at + len
}

/// Writes a byte's notation at `data[at..]` (four bytes written, `len` of them kept).
#[inline(always)]
pub(super) fn put_shown_at(data: &mut [u8], at: usize, shown: Shown) -> usize {
    data[at..at + 4].copy_from_slice(&shown.bytes());
    at + shown.len()
}
