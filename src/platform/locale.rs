//! The C library's locale: which character set `LC_CTYPE` selects, multibyte decoding and
//! printability. Tools classify characters with the very functions GNU uses (`mbrtowc`,
//! `iswprint`, `isprint`), so their answers match GNU's on every system and C library.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;

/// What kind of character set the current `LC_CTYPE` locale uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    /// `MB_CUR_MAX == 1` (the C/POSIX locale, Latin-1 locales, ...).
    Unibyte,
    /// UTF-8.
    Utf8,
    /// Another multibyte encoding (EUC-JP, GB18030, ...), decoded with `mbrtowc`.
    Multibyte,
}

unsafe extern "C" {
    fn mbrtowc(pwc: *mut libc::wchar_t, s: *const c_char, n: usize, ps: *mut c_void) -> usize;
    fn iswprint(wc: u32) -> c_int;
    fn iswspace(wc: u32) -> c_int;
    fn wcwidth(wc: libc::wchar_t) -> c_int;
    #[cfg(target_os = "linux")]
    fn __ctype_get_mb_cur_max() -> usize;
    #[cfg(any(target_os = "macos", target_os = "freebsd", target_os = "dragonfly"))]
    fn ___mb_cur_max() -> c_int;
}

#[cfg(target_os = "linux")]
fn mb_cur_max() -> usize {
    // SAFETY: a pure query of the current locale.
    unsafe { __ctype_get_mb_cur_max() }
}

#[cfg(any(target_os = "macos", target_os = "freebsd", target_os = "dragonfly"))]
fn mb_cur_max() -> usize {
    // SAFETY: a pure query of the current locale.
    unsafe { ___mb_cur_max() as usize }
}

#[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "freebsd", target_os = "dragonfly")))]
fn mb_cur_max() -> usize {
    if codeset_is_utf8() { 4 } else { 1 }
}

fn codeset_is_utf8() -> bool {
    // SAFETY: nl_langinfo returns a pointer to a static NUL-terminated string.
    let codeset = unsafe { CStr::from_ptr(libc::nl_langinfo(libc::CODESET)) };
    matches!(codeset.to_bytes(), b"UTF-8" | b"utf-8" | b"utf8" | b"UTF8")
}

/// Selects the character-type locale from the environment (`setlocale(LC_CTYPE, "")`) and says
/// what it is. GNU tools select every category (`LC_ALL`), but the others only translate
/// messages (which rapidutils does not: its messages and `strerror` texts stay English, as
/// GNU's in the C locale) or format numbers and dates (which these tools never do); loading
/// them cost start-up time (a dozen files). Done once, lazily: tools that never look at
/// characters never pay for loading locale files.
pub fn charset() -> Charset {
    static CHARSET: OnceLock<Charset> = OnceLock::new();
    *CHARSET.get_or_init(|| {
        // SAFETY: called once, before any other locale-dependent call of ours, with a static
        // NUL-terminated empty string meaning "from the environment".
        unsafe { libc::setlocale(libc::LC_CTYPE, c"".as_ptr()) };
        if mb_cur_max() <= 1 {
            Charset::Unibyte
        } else if codeset_is_utf8() {
            Charset::Utf8
        } else {
            Charset::Multibyte
        }
    })
}

/// `isprint` of one byte in the current (unibyte) locale.
pub fn is_printable_byte(byte: u8) -> bool {
    charset();
    // SAFETY: isprint accepts any unsigned char value.
    unsafe { libc::isprint(c_int::from(byte)) != 0 }
}

/// `iswprint` of one decoded character in the current locale.
pub fn is_printable_wide(wc: u32) -> bool {
    charset();
    // SAFETY: iswprint accepts any wint_t value.
    unsafe { iswprint(wc) != 0 }
}

/// `iswspace` of one decoded character in the current locale.
pub fn is_space_wide(wc: u32) -> bool {
    charset();
    // SAFETY: iswspace accepts any wint_t value.
    unsafe { iswspace(wc) != 0 }
}

/// `wcwidth` of one decoded character (-1 for unprintable ones).
pub fn char_width(wc: u32) -> i32 {
    charset();
    // SAFETY: wcwidth accepts any wchar_t value.
    unsafe { wcwidth(wc as libc::wchar_t) }
}

/// (`isspace`, `isprint`) of a byte, or (`iswspace`, `iswprint`) of it as a character when
/// `wide` (ASCII in a multibyte locale).
pub fn ctype(byte: u8, wide: bool) -> (bool, bool) {
    charset();
    if wide {
        return (is_space_wide(u32::from(byte)), is_printable_wide(u32::from(byte)));
    }
    // SAFETY: isspace and isprint accept any unsigned char value.
    unsafe { (libc::isspace(c_int::from(byte)) != 0, libc::isprint(c_int::from(byte)) != 0) }
}

/// One step of `mbrtowc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbStep {
    /// A character and the number of bytes it took (0 for NUL, as `mbrtowc` says).
    Char(u32, usize),
    /// An invalid sequence (`(size_t) -1`).
    Invalid,
    /// The bytes end inside a character (`(size_t) -2`).
    Incomplete,
}

/// A stateful multibyte decoder over the C library's `mbrtowc`.
pub struct MbDecoder {
    // Large and aligned enough for every C library's mbstate_t (glibc 8 bytes, BSDs 128).
    state: [u64; 16],
}

impl Default for MbDecoder {
    fn default() -> Self {
        MbDecoder::new()
    }
}

impl MbDecoder {
    pub fn new() -> MbDecoder {
        charset();
        MbDecoder { state: [0; 16] }
    }

    pub fn reset(&mut self) {
        self.state = [0; 16];
    }

    pub fn decode(&mut self, bytes: &[u8]) -> MbStep {
        let mut wc: libc::wchar_t = 0;
        // SAFETY: wc and state are valid writable objects (state is at least as large as any
        // mbstate_t), and bytes is a valid slice of the length passed.
        let n = unsafe { mbrtowc(&mut wc, bytes.as_ptr().cast(), bytes.len(), self.state.as_mut_ptr().cast()) };
        match n {
            usize::MAX => {
                self.reset();
                MbStep::Invalid
            }
            n if n == usize::MAX - 1 => MbStep::Incomplete,
            n => MbStep::Char(wc as u32, n),
        }
    }
}
