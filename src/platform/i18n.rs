//! Message catalogs: GNU coreutils' translations, looked up as GNU looks them up.
//!
//! GNU tools pass every message through `gettext` in the `coreutils` text domain (getopt's in the C library's `libc`
//! domain); `strerror` answers in the user's `LC_MESSAGES`. rapidutils reads the same catalogs with the same
//! machinery: glibc's and musl's gettext, which applies `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG` and converts to
//! the locale's charset. Elsewhere (FreeBSD, macOS), GNU gettext's `libintl` is loaded with `dlopen` where ports or
//! Homebrew installed it; without it messages stay English, as GNU's do without NLS. Nothing is loaded at start-up,
//! nor while `LC_MESSAGES` is `C` or `POSIX`. Catalogs are under [`LOCALEDIR`], as for the system's GNU coreutils.

use super::locale;
use std::ffi::{CStr, CString, c_char, c_int};
use std::sync::OnceLock;

/// Where GNU coreutils' `coreutils.mo` catalogs are (`LOCALEDIR/LANG/LC_MESSAGES/`).
pub const LOCALEDIR: &str = match option_env!("RAPIDUTILS_LOCALEDIR") {
    Some(dir) => dir,
    None => DEFAULT_LOCALEDIR,
};

#[cfg(all(target_os = "macos", target_arch = "aarch64"))]
const DEFAULT_LOCALEDIR: &str = "/opt/homebrew/share/locale";
#[cfg(any(all(target_os = "macos", not(target_arch = "aarch64")), target_os = "freebsd", target_os = "dragonfly"))]
const DEFAULT_LOCALEDIR: &str = "/usr/local/share/locale";
#[cfg(not(any(target_os = "macos", target_os = "freebsd", target_os = "dragonfly")))]
const DEFAULT_LOCALEDIR: &str = "/usr/share/locale";

/// A text domain: whose catalog a message comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Domain {
    /// GNU coreutils' own messages.
    Coreutils,
    /// The C library's (getopt's messages; glibc only).
    Libc,
}

impl Domain {
    fn name(self) -> &'static CStr {
        match self {
            Domain::Coreutils => c"coreutils",
            Domain::Libc => c"libc",
        }
    }
}

/// The gettext entry points in use.
#[derive(Clone, Copy)]
struct Gettext {
    dcgettext: unsafe extern "C" fn(*const c_char, *const c_char, c_int) -> *mut c_char,
    bindtextdomain: unsafe extern "C" fn(*const c_char, *const c_char) -> *mut c_char,
}

/// The C library's own gettext.
#[cfg(any(target_env = "gnu", target_env = "musl"))]
fn system_gettext() -> Option<Gettext> {
    unsafe extern "C" {
        fn dcgettext(domain: *const c_char, msgid: *const c_char, category: c_int) -> *mut c_char;
        fn bindtextdomain(domain: *const c_char, dir: *const c_char) -> *mut c_char;
    }
    Some(Gettext { dcgettext, bindtextdomain })
}

/// GNU gettext's libintl, looked up at run time so that the binary runs without it.
#[cfg(not(any(target_env = "gnu", target_env = "musl")))]
fn system_gettext() -> Option<Gettext> {
    #[cfg(target_os = "macos")]
    const LIBINTL: &[&CStr] = &[
        c"/opt/homebrew/opt/gettext/lib/libintl.8.dylib",
        c"/usr/local/opt/gettext/lib/libintl.8.dylib",
        c"/opt/local/lib/libintl.8.dylib",
        c"libintl.8.dylib",
    ];
    #[cfg(not(target_os = "macos"))]
    const LIBINTL: &[&CStr] = &[c"libintl.so.8", c"/usr/local/lib/libintl.so.8", c"libintl.so"];
    load_libintl(LIBINTL)
}

/// Loads the first of `libraries` with gettext's entry points (GNU libintl's `libintl_dcgettext`, ...; `dcgettext`).
#[cfg_attr(any(target_env = "gnu", target_env = "musl"), allow(dead_code))]
fn load_libintl(libraries: &[&CStr]) -> Option<Gettext> {
    for library in libraries {
        // SAFETY: dlopen takes a NUL-terminated path; the handle is never dlclose'd, so the symbols below stay valid.
        let handle = unsafe { libc::dlopen(library.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
        if handle.is_null() {
            continue;
        }
        let symbol = |names: [&CStr; 2]| {
            names
                .iter()
                .map(|name| {
                    // SAFETY: handle is a live dlopen handle and name is NUL-terminated.
                    unsafe { libc::dlsym(handle, name.as_ptr()) }
                })
                .find(|p| !p.is_null())
        };
        let (Some(dcgettext), Some(bindtextdomain)) =
            (symbol([c"libintl_dcgettext", c"dcgettext"]), symbol([c"libintl_bindtextdomain", c"bindtextdomain"]))
        else {
            continue;
        };
        type Dcgettext = unsafe extern "C" fn(*const c_char, *const c_char, c_int) -> *mut c_char;
        type Bindtextdomain = unsafe extern "C" fn(*const c_char, *const c_char) -> *mut c_char;
        // SAFETY: these symbols are gettext's functions, whose C signatures are the ones the pointer types spell
        // (char *dcgettext(const char *, const char *, int) and char *bindtextdomain(const char *, const char *)).
        return Some(unsafe {
            Gettext {
                dcgettext: std::mem::transmute::<*mut libc::c_void, Dcgettext>(dcgettext),
                bindtextdomain: std::mem::transmute::<*mut libc::c_void, Bindtextdomain>(bindtextdomain),
            }
        });
    }
    None
}

/// gettext, ready to use: the message locale selected and the coreutils domain bound; None
/// when messages stay untranslated (`C`/`POSIX` messages, no gettext on this system).
fn ready() -> Option<Gettext> {
    static READY: OnceLock<Option<Gettext>> = OnceLock::new();
    *READY.get_or_init(|| {
        if !locale::messages_translated() {
            return None;
        }
        let gettext = system_gettext()?;
        let dir = CString::new(LOCALEDIR).ok()?;
        // SAFETY: both arguments are NUL-terminated; gettext copies the directory name.
        unsafe { (gettext.bindtextdomain)(Domain::Coreutils.name().as_ptr(), dir.as_ptr()) };
        Some(gettext)
    })
}

/// `msgid` in `domain`, translated for the user's `LC_MESSAGES` (after `LANGUAGE`) into the locale's charset, or as is.
pub fn gettext(domain: Domain, msgid: &'static CStr) -> &'static [u8] {
    let Some(gettext) = ready() else {
        return msgid.to_bytes();
    };
    #[cfg(not(target_env = "gnu"))]
    if domain == Domain::Libc {
        // Only glibc has a `libc` catalog (its getopt is the one whose words we use).
        return msgid.to_bytes();
    }
    // SAFETY: both strings are NUL-terminated. dcgettext returns msgid itself or a NUL-terminated string gettext
    // keeps for the process's life (the catalog stays loaded: locale and domain directory are never changed again).
    let text = unsafe { (gettext.dcgettext)(domain.name().as_ptr(), msgid.as_ptr(), libc::LC_MESSAGES) };
    if text.is_null() {
        return msgid.to_bytes();
    }
    // SAFETY: text is a NUL-terminated string that lives as long as the process (see above).
    unsafe { CStr::from_ptr(text) }.to_bytes()
}

/// Makes the C library's message locale the user's before it is asked for text (`strerror`).
pub fn prepare_messages() {
    ready();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untranslated_in_the_c_locale() {
        // The test process never selected a locale: messages are the msgids themselves.
        assert_eq!(gettext(Domain::Coreutils, c"write error"), b"write error");
        assert_eq!(gettext(Domain::Libc, c"%s: invalid option -- '%c'\n"), b"%s: invalid option -- '%c'\n");
    }

    /// The run-time loader FreeBSD and macOS use, tried on a library that has the same entry
    /// points (glibc's own): it finds them, and they answer.
    #[cfg(target_env = "gnu")]
    #[test]
    fn libintl_is_found_by_dlopen() {
        assert!(load_libintl(&[c"libnothing-such.so.0"]).is_none());
        let gettext = load_libintl(&[c"libnothing-such.so.0", c"libc.so.6"]).expect("glibc has gettext");
        // SAFETY: NUL-terminated strings; the C locale answers with the msgid.
        let text = unsafe { (gettext.dcgettext)(c"coreutils".as_ptr(), c"total".as_ptr(), libc::LC_MESSAGES) };
        // SAFETY: dcgettext returned a NUL-terminated string.
        assert_eq!(unsafe { CStr::from_ptr(text) }.to_bytes(), b"total");
    }
}
