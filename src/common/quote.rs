//! File-name quoting exactly like GNU's `quotef` (gnulib `quotearg_n_style_colon` with
//! `shell_escape_quoting_style`), so diagnostics read byte for byte like GNU's.
//!
//! A name is printed as is when the shell would read it back unchanged; otherwise it goes in single quotes, with
//! unprintable bytes as `$'\ooo'` escapes and `\n`, `\t`, ... as `$'\n'`. Names quoted only because of a `'` get
//! double quotes instead (`"it's"`), as gnulib does. Printable depends on the locale (`isprint`, `iswprint`).

use super::i18n::tr;
use crate::platform::{self, Changing, Charset, MbDecoder, MbStep};

/// Quotes a file name for a diagnostic, like GNU's `quotef`.
pub fn quotef(name: &[u8]) -> Vec<u8> {
    if !needs_quoting(name) {
        return name.to_vec();
    }
    quote_always(name)
}

/// Quotes always, like GNU's `quoteaf` (`shell_escape_always_quoting_style`): `'name'`.
pub fn quote_always(name: &[u8]) -> Vec<u8> {
    let quoted = shell_always_quote(name);
    // gnulib: a name whose only problem is an apostrophe reads better in double quotes.
    if quoted.saw_single_quote && quoted.all_compatible {
        let mut out = Vec::with_capacity(name.len() + 2);
        out.push(b'"');
        out.extend_from_slice(name);
        out.push(b'"');
        return out;
    }
    quoted.text
}

/// Quotes like GNU's `quote` (gnulib's `locale_quoting_style`), for arguments in messages: in the catalog's marks for
/// "`" and "'" (French `« x »`), else ‘x’ in UTF-8, 'x' in other locales. Inside, control characters and backslashes
/// get C escapes, bytes not printable in the locale octal ones, and the closing mark a backslash before it.
pub fn quote_locale(arg: &[u8]) -> Vec<u8> {
    let left = gettext_quote(c"`");
    let right = gettext_quote(c"'");
    let unibyte = platform::charset() == Charset::Unibyte;
    let mut decoder = MbDecoder::new();
    let mut out = Vec::with_capacity(arg.len() + left.len() + right.len());
    out.extend_from_slice(left);
    let octal = |out: &mut Vec<u8>, byte: u8| {
        out.extend_from_slice(&[b'\\', b'0' + (byte >> 6), b'0' + ((byte >> 3) & 7), b'0' + (byte & 7)])
    };
    let mut i = 0;
    while i < arg.len() {
        let is_right_quote = !right.is_empty() && arg[i..].starts_with(right);
        let c = arg[i];
        let escape = match c {
            0 => Some(b'0'),
            0x07 => Some(b'a'),
            0x08 => Some(b'b'),
            0x0c => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            0x0b => Some(b'v'),
            b'\\' => Some(b'\\'),
            _ => None,
        };
        if let Some(letter) = escape {
            out.push(b'\\');
            if c == 0 && arg.get(i + 1).is_some_and(u8::is_ascii_digit) {
                out.extend_from_slice(b"00");
            }
            out.push(letter);
            i += 1;
            continue;
        }
        // The characters gnulib lists by name (ASCII punctuation, digits, letters) are taken as
        // they are; everything else is a character of the locale, printable or not.
        let listed = c.is_ascii_alphanumeric() || b"?{}#~ !\"$&()*;<=>[^`|'%+,-./:]_".contains(&c);
        if listed {
            if is_right_quote {
                out.push(b'\\');
            }
            out.push(c);
            i += 1;
            continue;
        }
        let (len, printable) = if unibyte {
            (1, platform::is_printable_byte(c))
        } else {
            decoder.reset();
            match decoder.decode(Changing::of(&arg[i..])) {
                MbStep::Char(wc, n) => (n.max(1), platform::is_printable_wide(wc)),
                MbStep::Invalid => (1, false),
                MbStep::Incomplete => (arg.len() - i, false),
            }
        };
        if printable {
            if is_right_quote {
                out.push(b'\\');
            }
            out.extend_from_slice(&arg[i..i + len]);
        } else {
            for &byte in &arg[i..i + len] {
                octal(&mut out, byte);
            }
        }
        i += len;
    }
    out.extend_from_slice(right);
    out
}

/// gnulib's `gettext_quote`: the catalog's quotation mark `msgid`, else U+2018/U+2019 in UTF-8, else an apostrophe.
fn gettext_quote(msgid: &'static std::ffi::CStr) -> &'static [u8] {
    let translation = tr(msgid);
    if translation.as_ptr() != msgid.as_ptr().cast::<u8>() {
        return translation;
    }
    if platform::charset() == Charset::Utf8 {
        if msgid.to_bytes() == b"`" { "\u{2018}".as_bytes() } else { "\u{2019}".as_bytes() }
    } else {
        b"'"
    }
}

/// A character as gnulib's quoting loop sees it: one byte or one multibyte sequence.
struct Unit {
    len: usize,
    printable: bool,
}

/// Splits off the character at the start of `rest` (never empty) under the current locale, as
/// gnulib does: an invalid byte, or an incomplete sequence to the end, is one unprintable unit.
fn next_unit(rest: &[u8], charset: Charset, decoder: &mut MbDecoder) -> Unit {
    match charset {
        Charset::Unibyte => Unit { len: 1, printable: platform::is_printable_byte(rest[0]) },
        Charset::Utf8 | Charset::Multibyte => {
            decoder.reset();
            match decoder.decode(Changing::of(rest)) {
                MbStep::Char(wc, len) => Unit { len: len.max(1), printable: platform::is_printable_wide(wc) },
                MbStep::Invalid => Unit { len: 1, printable: false },
                MbStep::Incomplete => Unit { len: rest.len(), printable: false },
            }
        }
    }
}

fn is_always_safe(c: u8) -> bool {
    matches!(c, b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b'0'..=b'9' | b'A'..=b'Z' | b']' | b'_' | b'a'..=b'z')
}

/// gnulib's first pass (outer quotes elided): does anything force quoting?
fn needs_quoting(name: &[u8]) -> bool {
    if name.is_empty() {
        return true;
    }
    let mut charset = None;
    let mut decoder = None;
    let mut i = 0;
    while i < name.len() {
        let c = name[i];
        match c {
            _ if is_always_safe(c) => {}
            // ':' is "quote these too" in quotef.
            b':' => return true,
            b'{' | b'}' if name.len() == 1 => return true,
            b'{' | b'}' => {}
            b'#' | b'~' if i == 0 => return true,
            b'#' | b'~' => {}
            b' ' | b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'[' | b'^' | b'`'
            | b'|' | b'\'' | b'?' | b'\\' => return true,
            0..=0x1f | 0x7f => return true,
            _ => {
                let cs = *charset.get_or_insert_with(platform::charset);
                let dec = decoder.get_or_insert_with(MbDecoder::new);
                let unit = next_unit(&name[i..], cs, dec);
                if !unit.printable {
                    return true;
                }
                i += unit.len;
                continue;
            }
        }
        i += 1;
    }
    false
}

struct Quoted {
    text: Vec<u8>,
    saw_single_quote: bool,
    all_compatible: bool,
}

/// gnulib's second pass: `shell_escape_always_quoting_style`.
fn shell_always_quote(name: &[u8]) -> Quoted {
    let charset = platform::charset();
    let mut decoder = MbDecoder::new();
    let mut out = Vec::with_capacity(name.len() + 8);
    let mut in_escape = false; // inside a $'...' segment
    let mut saw_single_quote = false;
    let mut all_compatible = true;
    out.push(b'\'');

    fn start_escape(out: &mut Vec<u8>, in_escape: &mut bool) {
        if !*in_escape {
            out.extend_from_slice(b"'$'");
            *in_escape = true;
        }
        out.push(b'\\');
    }
    fn end_escape(out: &mut Vec<u8>, in_escape: &mut bool) {
        if *in_escape {
            out.extend_from_slice(b"''");
            *in_escape = false;
        }
    }

    let mut i = 0;
    while i < name.len() {
        let c = name[i];
        let letter = match c {
            0x07 => Some(b'a'),
            0x08 => Some(b'b'),
            0x0c => Some(b'f'),
            b'\n' => Some(b'n'),
            b'\r' => Some(b'r'),
            b'\t' => Some(b't'),
            0x0b => Some(b'v'),
            _ => None,
        };
        if let Some(letter) = letter {
            start_escape(&mut out, &mut in_escape);
            out.push(letter);
            all_compatible = false;
            i += 1;
            continue;
        }
        let compatible = match c {
            b'\'' => {
                saw_single_quote = true;
                out.extend_from_slice(b"'\\'");
                in_escape = false;
                true
            }
            _ if is_always_safe(c) || c == b':' || c == b' ' => true,
            b'{' | b'}' => name.len() == 1,
            b'#' | b'~' => i == 0,
            b'!' | b'"' | b'$' | b'&' | b'(' | b')' | b'*' | b';' | b'<' | b'=' | b'>' | b'[' | b'^' | b'`' | b'|'
            | b'?' | b'\\' => false,
            _ => {
                let unit = next_unit(&name[i..], charset, &mut decoder);
                if unit.printable {
                    end_escape(&mut out, &mut in_escape);
                    out.extend_from_slice(&name[i..i + unit.len]);
                } else {
                    all_compatible = false;
                    for &byte in &name[i..i + unit.len] {
                        start_escape(&mut out, &mut in_escape);
                        out.extend_from_slice(&[b'0' + (byte >> 6), b'0' + ((byte >> 3) & 7), b'0' + (byte & 7)]);
                    }
                }
                i += unit.len;
                continue;
            }
        };
        if !compatible {
            all_compatible = false;
        }
        end_escape(&mut out, &mut in_escape);
        out.push(c);
        i += 1;
    }
    out.push(b'\'');
    Quoted { text: out, saw_single_quote, all_compatible }
}

#[cfg(test)]
mod tests {
    use super::quotef;

    fn q(name: &[u8]) -> String {
        String::from_utf8_lossy(&quotef(name)).into_owned()
    }

    #[test]
    fn plain_names_are_not_quoted() {
        assert_eq!(q(b"file.txt"), "file.txt");
        assert_eq!(q(b"a/b-c_d,e%f+g@h"), "a/b-c_d,e%f+g@h");
        assert_eq!(q(b"a#b~c{d}"), "a#b~c{d}");
    }

    #[test]
    fn shell_specials_are_single_quoted() {
        assert_eq!(q(b"a b"), "'a b'");
        assert_eq!(q(b"a:b"), "'a:b'");
        assert_eq!(q(b""), "''");
        assert_eq!(q(b"#a"), "'#a'");
        assert_eq!(q(b"{"), "'{'");
        assert_eq!(q(b"a*b"), "'a*b'");
        assert_eq!(q(b"a\\b"), "'a\\b'");
    }

    #[test]
    fn control_characters_use_dollar_escapes() {
        assert_eq!(q(b"a\nb"), "'a'$'\\n''b'");
        assert_eq!(q(b"a\n"), "'a'$'\\n'");
        assert_eq!(q(b"\x01\x02x"), "''$'\\001\\002''x'");
        assert_eq!(q(b"tab\there"), "'tab'$'\\t''here'");
    }

    #[test]
    fn apostrophes() {
        assert_eq!(q(b"it's"), "\"it's\"");
        assert_eq!(q(b"it's a"), "\"it's a\"");
        assert_eq!(q(b"it's$"), "'it'\\''s$'");
        assert_eq!(q(b"'\n"), "''\\'''$'\\n'");
    }
}
