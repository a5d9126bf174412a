//! GNU's `_()`: messages found by the English text GNU 9.12 passes to gettext (the msgid), so the system's coreutils
//! catalogs serve rapidutils too, and `printf`-style formatting of translations (which may reorder arguments).

use crate::platform::i18n::{self, Domain};
use std::ffi::CStr;

/// `_("...")` in GNU coreutils: the translation of a coreutils msgid, or the msgid itself.
pub fn tr(msgid: &'static CStr) -> &'static [u8] {
    i18n::gettext(Domain::Coreutils, msgid)
}

/// `_("...")` inside glibc (getopt's messages): the C library's own catalog.
pub fn tr_libc(msgid: &'static CStr) -> &'static [u8] {
    i18n::gettext(Domain::Libc, msgid)
}

/// The translation of `msgid` with its conversions filled in from `args`.
pub fn trf(msgid: &'static CStr, args: &[&[u8]]) -> Vec<u8> {
    format(tr(msgid), args)
}

/// `printf` for messages whose arguments are already text: every conversion (`%s`, `%d`, `%zu`,
/// `%c`, ...) takes the next argument as it is, or the one its `%N$` names (translations may
/// reorder); `%%` is `%`. Flags, width and precision are skipped: GNU's messages use none.
pub fn format(template: &[u8], args: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(template.len() + args.iter().map(|a| a.len()).sum::<usize>());
    let mut next = 0;
    let mut i = 0;
    while i < template.len() {
        let c = template[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        if template.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        // An argument number: digits followed by '$'.
        let digits = template[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        let mut index = None;
        if digits > 0 && template.get(i + digits) == Some(&b'$') {
            let number: usize =
                std::str::from_utf8(&template[i..i + digits]).ok().and_then(|n| n.parse().ok()).unwrap_or(0);
            index = number.checked_sub(1);
            i += digits + 1;
        }
        // Flags, width, precision and length modifiers, up to the conversion letter.
        while i < template.len() && b"-+ #0123456789.'*hljztLq".contains(&template[i]) {
            i += 1;
        }
        if i >= template.len() {
            break;
        }
        i += 1;
        let arg = index.unwrap_or_else(|| {
            next += 1;
            next - 1
        });
        if let Some(text) = args.get(arg) {
            out.extend_from_slice(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::format;

    #[test]
    fn conversions_take_the_arguments_in_order_or_by_number() {
        assert_eq!(format(b"%s: %s", &[b"wc", b"f"]), b"wc: f");
        assert_eq!(format(b"%s:%zu: %s", &[b"l", b"3", b"x"]), b"l:3: x");
        assert_eq!(format(b"%2$s then %1$s", &[b"a", b"b"]), b"b then a");
        assert_eq!(format(b"100%% -- '%c'\n", &[b"q"]), b"100% -- 'q'\n");
        assert_eq!(format(b"no args", &[]), b"no args");
        assert_eq!(format(b"missing %s", &[]), b"missing ");
        assert_eq!(format(b"trailing %", &[b"x"]), b"trailing ");
    }
}
