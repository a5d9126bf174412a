//! The C library's locale: which character set `LC_CTYPE` selects, multibyte decoding and printability, by the
//! functions GNU uses (`mbrtowc`, `iswprint`, `isprint`), so the answers match GNU's on every system.

use super::Changing;
use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::OnceLock;

/// What kind of character set the current `LC_CTYPE` locale uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Charset {
    /// `MB_CUR_MAX == 1` (the C/POSIX locale, Latin-1 locales, ...).
    Unibyte,
    Utf8,
    /// Another multibyte encoding (EUC-JP, GB18030, ...), decoded with `mbrtowc`.
    Multibyte,
}

unsafe extern "C" {
    fn mbrtowc(pwc: *mut libc::wchar_t, s: *const c_char, n: usize, ps: *mut c_void) -> usize;
    fn iswprint(wc: u32) -> c_int;
    fn iswspace(wc: u32) -> c_int;
    fn wcwidth(wc: libc::wchar_t) -> c_int;
    // wint_t is 32 bits everywhere we build; WEOF is all ones (0xffffffff or -1).
    fn btowc(c: c_int) -> u32;
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

/// Selects the character-type locale from the environment and says what it is.
///
/// GNU tools start with `setlocale(LC_ALL, "")`: every category from the environment, or none (all stays `C`) when
/// one names a locale the system lacks. These tools use only `LC_CTYPE` and `LC_MESSAGES`, so to save start-up time
/// this selects lazily: where every category names one locale (`LANG` or `LC_ALL` alone, the usual case), `LC_CTYPE`
/// alone, its success standing for `LC_ALL`'s; where they differ, `LC_ALL` for real, all or nothing, as GNU does.
pub fn charset() -> Charset {
    static CHARSET: OnceLock<Charset> = OnceLock::new();
    *CHARSET.get_or_init(|| {
        select_locale();
        if mb_cur_max() <= 1 {
            Charset::Unibyte
        } else if codeset_is_utf8() {
            Charset::Utf8
        } else {
            Charset::Multibyte
        }
    })
}

/// How the locale was selected (see [`charset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Selection {
    /// Every category names one locale, and `LC_CTYPE` is selected from it.
    CtypeOnly,
    /// The categories differ: `LC_ALL` was selected, every category at once.
    All,
    /// A category names a missing locale: all stays `C`, as GNU's failed `setlocale` leaves it.
    Failed,
}

fn select_locale() -> Selection {
    static SELECTION: OnceLock<Selection> = OnceLock::new();
    *SELECTION.get_or_init(|| {
        let (category, selection) =
            if categories_agree() { (libc::LC_CTYPE, Selection::CtypeOnly) } else { (libc::LC_ALL, Selection::All) };
        // SAFETY: run once, before any other locale-dependent code of ours, on the main thread (the tools select the
        // locale before starting threads), with a static NUL-terminated empty string: "from the environment".
        let selected = unsafe { libc::setlocale(category, c"".as_ptr()) };
        if selected.is_null() { Selection::Failed } else { selection }
    })
}

/// The environment variables of the categories `setlocale(LC_ALL, "")` selects.
#[cfg(target_env = "gnu")]
const CATEGORY_VARIABLES: &[&str] = &[
    "LC_CTYPE",
    "LC_NUMERIC",
    "LC_TIME",
    "LC_COLLATE",
    "LC_MONETARY",
    "LC_MESSAGES",
    "LC_PAPER",
    "LC_NAME",
    "LC_ADDRESS",
    "LC_TELEPHONE",
    "LC_MEASUREMENT",
    "LC_IDENTIFICATION",
];
#[cfg(not(target_env = "gnu"))]
const CATEGORY_VARIABLES: &[&str] = &["LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES"];

/// A locale variable's value when it is set and not empty (the C library ignores empty ones).
fn variable(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

/// Whether every category takes its locale from one name (`LC_ALL` set, or no `LC_*` variable unlike `LC_CTYPE`'s).
fn categories_agree() -> bool {
    if variable("LC_ALL").is_some() {
        return true;
    }
    let lang = variable("LANG");
    let name_of = |var: &str| variable(var).or_else(|| lang.clone());
    let ctype = name_of("LC_CTYPE");
    CATEGORY_VARIABLES.iter().all(|var| name_of(var) == ctype)
}

/// Whether messages may be translated: the locale selection succeeded, and `LC_MESSAGES` is
/// selected and not `C` or `POSIX` (where gettext answers with the msgids: no catalog is loaded).
pub fn messages_translated() -> bool {
    static TRANSLATED: OnceLock<bool> = OnceLock::new();
    *TRANSLATED.get_or_init(|| {
        charset();
        let name = match select_locale() {
            Selection::Failed => return false,
            Selection::All => {
                // SAFETY: a query (NULL locale) of the current LC_MESSAGES name, copied at once.
                let name = unsafe { libc::setlocale(libc::LC_MESSAGES, std::ptr::null()) };
                if name.is_null() {
                    return false;
                }
                // SAFETY: setlocale returned a NUL-terminated string.
                unsafe { CStr::from_ptr(name) }.to_bytes().to_vec()
            }
            Selection::CtypeOnly => {
                // SAFETY: as in select_locale: main thread, before any thread starts.
                let name = unsafe { libc::setlocale(libc::LC_MESSAGES, c"".as_ptr()) };
                if name.is_null() {
                    return false;
                }
                // SAFETY: setlocale returned a NUL-terminated string.
                unsafe { CStr::from_ptr(name) }.to_bytes().to_vec()
            }
        };
        // gettext ignores LANGUAGE and answers with the msgid in these.
        !matches!(name.as_slice(), b"C" | b"POSIX")
    })
}

/// `LC_CTYPE`'s character set name (`nl_langinfo(CODESET)`), as gnulib's `locale_charset` says.
pub fn codeset() -> &'static [u8] {
    static CODESET: OnceLock<Vec<u8>> = OnceLock::new();
    CODESET.get_or_init(|| {
        charset();
        // SAFETY: nl_langinfo returns a pointer to a NUL-terminated string, copied at once.
        unsafe { CStr::from_ptr(libc::nl_langinfo(libc::CODESET)) }.to_bytes().to_vec()
    })
}

/// A byte's character in the current single-byte locale (gnulib's `btoc32`): `btowc`, but in the C and POSIX locales
/// each byte is the character of its value; in a multibyte locale, the C locale's (so unit tests model it in any).
pub fn byte_to_char(byte: u8) -> Option<u32> {
    if charset() != Charset::Unibyte {
        return Some(u32::from(byte));
    }
    // SAFETY: btowc accepts any unsigned char value.
    let wc = unsafe { btowc(c_int::from(byte)) };
    if wc != u32::MAX {
        return Some(wc);
    }
    static C_LOCALE: OnceLock<bool> = OnceLock::new();
    let c_locale = *C_LOCALE.get_or_init(|| {
        // SAFETY: a query (NULL locale) of the current LC_CTYPE name, compared at once.
        let name = unsafe { libc::setlocale(libc::LC_CTYPE, std::ptr::null()) };
        // SAFETY: setlocale returned a NUL-terminated string (or NULL, checked).
        !name.is_null() && matches!(unsafe { CStr::from_ptr(name) }.to_bytes(), b"C" | b"POSIX")
    });
    c_locale.then_some(u32::from(byte))
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

/// (`isspace`, `isprint`) of a byte, or, when `wide` (ASCII in a multibyte locale), (`iswspace`, `iswprint`) of it.
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

/// The longest character of any encoding (the C library's `MB_LEN_MAX`).
pub const MB_LEN_MAX: usize = 16;

/// A stateful multibyte decoder over the C library's `mbrtowc`.
#[derive(Clone)]
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

    /// The character at the start of `bytes`, of which at most [`MB_LEN_MAX`] are looked at: a
    /// character cut by their end is `Incomplete` only where fewer are there.
    pub fn decode(&mut self, bytes: Changing<'_>) -> MbStep {
        let bytes = bytes.read_each_once();
        let bytes = &bytes[..bytes.len().min(MB_LEN_MAX)];
        let mut wc: libc::wchar_t = 0;
        // SAFETY: wc and state are valid writable objects (state is at least as large as any
        // mbstate_t), and bytes is a valid slice of the length passed.
        let n = unsafe { mbrtowc(&mut wc, bytes.as_ptr().cast(), bytes.len(), self.state.as_mut_ptr().cast()) };
        match n {
            usize::MAX => {
                self.reset();
                MbStep::Invalid
            }
            // (Never for MB_LEN_MAX bytes: the caller keeps fewer than that for the next.)
            n if n == usize::MAX - 1 && bytes.len() < MB_LEN_MAX => MbStep::Incomplete,
            n if n == usize::MAX - 1 => {
                self.reset();
                MbStep::Invalid
            }
            n => MbStep::Char(wc as u32, n),
        }
    }
}
