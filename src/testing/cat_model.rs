//! The reference model of `cat`'s formatting: GNU cat 9.12's loop, one byte at a time. One
//! copy, included by the formatter's unit tests (`cat::format`) and by the property tests
//! (`tests/cat_format_prop.rs`), which also check it against GNU's own `cat`. It names
//! `super::Options`: each includer has the formatter's `Options` in scope.

use super::Options;

/// GNU cat's formatting, one byte at a time over the whole stream (all files concatenated:
/// the line number, the run of empty lines and a CR waiting for its LF all carry over from
/// one file to the next).
pub fn model(opts: &Options, stream: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    // GNU's `newlines`: -1 inside a line, 0 at the start of one, 1 after one empty line, 2 after more.
    let mut newlines: i32 = 0;
    let mut line: u64 = 0;
    let number = |out: &mut Vec<u8>, line: &mut u64| {
        *line += 1;
        out.extend_from_slice(format!("{:>6}\t", *line).as_bytes());
    };
    for (i, &b) in stream.iter().enumerate() {
        if b == b'\n' {
            newlines += 1;
            if newlines > 0 {
                if newlines >= 2 {
                    newlines = 2;
                    if opts.squeeze_blank {
                        continue;
                    }
                }
                if opts.number && !opts.number_nonblank {
                    number(&mut out, &mut line);
                }
            }
            if opts.show_ends {
                out.push(b'$');
            }
            out.push(b'\n');
            continue;
        }
        if newlines >= 0 && opts.number {
            number(&mut out, &mut line);
        }
        newlines = -1;
        if opts.show_nonprinting {
            if b == b'\t' && !opts.show_tabs {
                out.push(b'\t');
                continue;
            }
            let mut c = b;
            if c >= 128 {
                out.extend_from_slice(b"M-");
                c -= 128;
            }
            match c {
                0..=31 => out.extend_from_slice(&[b'^', c + 64]),
                127 => out.extend_from_slice(b"^?"),
                _ => out.push(c),
            }
        } else if b == b'\t' && opts.show_tabs {
            out.extend_from_slice(b"^I");
        } else if b == b'\r' && opts.show_ends && stream.get(i + 1) == Some(&b'\n') {
            // GNU 9.12: with -E (and without -v), CR LF shows as ^M$.
            out.extend_from_slice(b"^M");
        } else {
            out.push(b);
        }
    }
    out
}
