//! The committed man pages and completions: regenerated into a temporary directory they must
//! be the same bytes (so they are never stale), and the programs that read them must take
//! them without a warning: mandoc's linter, man-db's renderer, the shells' syntax checks, and
//! real completions in bash and fish.

use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const REPO: &str = env!("CARGO_MANIFEST_DIR");
const PAGES: [&str; 4] = ["rapidutils", "yes", "cat", "wc"];

/// Runs the generator into a fresh directory (SOURCE_DATE_EPOCH from `epoch`, else unset).
fn generate(epoch: Option<&str>) -> TempDir {
    let dir = TempDir::new("gen");
    let mut cmd = Command::new(generator());
    cmd.arg(&dir.0).env_remove("SOURCE_DATE_EPOCH");
    if let Some(epoch) = epoch {
        cmd.env("SOURCE_DATE_EPOCH", epoch);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "rapidutils-gen failed: {}", String::from_utf8_lossy(&out.stderr));
    dir
}

/// Every file under `root`, as paths relative to it, sorted.
fn files_under(root: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(path.strip_prefix(root).unwrap().to_owned());
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn committed(sub: &str) -> PathBuf {
    Path::new(REPO).join(sub)
}

#[test]
fn committed_pages_and_completions_are_current() {
    let fresh = generate(None);
    for sub in ["man", "completions"] {
        let generated = files_under(&fresh.0.join(sub));
        assert_eq!(files_under(&committed(sub)), generated, "{sub}/ differs in its files: run `make man completions`");
        for file in generated {
            let want = std::fs::read(fresh.0.join(sub).join(&file)).unwrap();
            let have = std::fs::read(committed(sub).join(&file)).unwrap();
            assert!(want == have, "{sub}/{} is stale: run `make man completions`", file.display());
        }
    }
}

#[test]
fn pages_carry_the_date_of_source_date_epoch() {
    let dir = generate(Some("1796083200"));
    let page = std::fs::read_to_string(dir.0.join("man/wc.1")).unwrap();
    assert!(page.contains("\n.TH WC 1 2026-12-01 \"rapidutils "), "{page}");
    let scratch = TempDir::new("gen-bad");
    let out = Command::new(generator()).arg(&scratch.0).env("SOURCE_DATE_EPOCH", "soon").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("SOURCE_DATE_EPOCH"));
}

#[test]
fn pages_have_the_sections_and_gnu_synopsis() {
    for name in PAGES {
        let page = std::fs::read_to_string(committed(&format!("man/{name}.1"))).unwrap();
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "\"EXIT STATUS\"",
            "ENVIRONMENT",
            "EXAMPLES",
            "NOTES",
            "\"SEE ALSO\"",
        ] {
            assert!(page.contains(&format!("\n.SH {section}\n")), "{name}.1 lacks {section}");
        }
    }
    let cat = std::fs::read_to_string(committed("man/cat.1")).unwrap();
    assert!(cat.contains(".SH SYNOPSIS\n.B cat\n[\\fIOPTION\\fR]... [\\fIFILE\\fR]...\n"), "{cat}");
    assert!(cat.contains("\\fB\\-A\\fR, \\fB\\-\\-show\\-all\\fR\nequivalent to \\-vET\n"));
    assert!(cat.contains("\\fBcat f \\- g\\fR\nOutput f's contents, then standard input, then g's contents.\n"));
    let wc = std::fs::read_to_string(committed("man/wc.1")).unwrap();
    assert!(wc.contains(".br\n.B wc\n[\\fIOPTION\\fR]... \\fB\\-\\-files0\\-from\\fR=\\fIF\\fR\n"));
    let yes = std::fs::read_to_string(committed("man/yes.1")).unwrap();
    assert!(yes.contains(".B yes | pv \\-r > /dev/null\n"));
    assert!(yes.contains(".B POSIXLY_CORRECT\n"));
}

#[test]
fn mandoc_lint_is_clean() {
    let mandoc = require_program("mandoc");
    for name in PAGES {
        let out = Command::new(&mandoc)
            .args(["-T", "lint", "-W", "warning"])
            .arg(committed(&format!("man/{name}.1")))
            .output()
            .unwrap();
        let report = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && report.is_empty(), "mandoc -T lint on {name}.1:\n{report}");
    }
}

#[test]
fn man_renders_without_warnings() {
    let man = require_program("man");
    for name in PAGES {
        // lintian's check: man-db with groff's warnings on, output thrown away.
        let out = Command::new(&man)
            .args(["--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z"])
            .arg(committed(&format!("man/{name}.1")))
            .env("LC_ALL", "C.UTF-8")
            .env("MANROFFSEQ", "")
            .env("MANWIDTH", "80")
            .output()
            .unwrap();
        assert!(out.status.success(), "man -l {name}.1 failed");
        assert!(!out.stdout.is_empty());
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "man -l {name}.1 warns");
    }
}

#[test]
fn shells_accept_the_completions() {
    for (shell, dir) in [("bash", "bash"), ("zsh", "zsh"), ("fish", "fish")] {
        let program = require_program(shell);
        for file in files_under(&committed(&format!("completions/{dir}"))) {
            let path = committed(&format!("completions/{dir}")).join(&file);
            let out = Command::new(&program).arg("-n").arg(&path).output().unwrap();
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{shell} -n {}: {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

/// What bash completes for `words` (the last one being completed) with the completion file
/// `file` sourced, as the function registered for the command would be called.
pub fn bash_complete(file: &Path, words: &[&str]) -> Vec<String> {
    let script = r#"source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
spec=$(complete -p "$1") || exit 3
fn=${spec##*-F }; fn=${fn%% *}
"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}""#;
    let out =
        Command::new(require_program("bash")).arg("-c").arg(script).arg("bash").arg(file).args(words).output().unwrap();
    assert!(
        out.status.success(),
        "no bash completion registered for {}: {}",
        words[0],
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().lines().filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

/// What fish completes for `line` when its completion path is `dir` alone (so our file is the
/// one fish autoloads, as from vendor_completions.d). fish loads completions only for commands
/// it finds, so `bin` goes first on PATH.
pub fn fish_complete(dir: &Path, bin: &Path, line: &str) -> Vec<String> {
    let path = std::env::join_paths([bin.to_owned(), "/usr/bin".into(), "/bin".into()]).unwrap();
    let out = Command::new(require_program("fish"))
        .env("PATH", path)
        .args(["--no-config", "-c", "set fish_complete_path $argv[1]; complete -C $argv[2]"])
        .arg(dir)
        .arg(line)
        .output()
        .unwrap();
    assert!(out.status.success(), "fish: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| l.split('\t').next().unwrap().to_owned()).collect()
}

#[test]
fn bash_completes_options_values_and_tools() {
    let bash = committed("completions/bash");
    assert_eq!(bash_complete(&bash.join("wc"), &["wc", "--to"]), ["--total="]);
    assert_eq!(bash_complete(&bash.join("wc"), &["wc", "--total", "="]), ["auto", "always", "only", "never"]);
    assert_eq!(bash_complete(&bash.join("wc"), &["wc", "--total", "=", "o"]), ["only"]);
    assert_eq!(bash_complete(&bash.join("wc"), &["wc", "--total", "n"]), ["never"]);
    // A file for --files0-from and for operands: an empty reply, so `complete -o default` lists files.
    assert!(bash_complete(&bash.join("wc"), &["wc", "--files0-from", "=", ""]).is_empty());
    assert!(bash_complete(&bash.join("cat"), &["cat", "-n", ""]).is_empty());
    assert!(bash_complete(&bash.join("cat"), &["cat", "--", "-"]).is_empty());
    let cat_options = bash_complete(&bash.join("cat"), &["cat", "-"]);
    assert!(cat_options.contains(&"-A".to_owned()) && cat_options.contains(&"--show-nonprinting".to_owned()));
    assert!(!cat_options.iter().any(|o| o.contains("FILE")), "{cat_options:?}");
    assert_eq!(bash_complete(&bash.join("yes"), &["yes", "--"]), ["--help", "--version"]);
    let multi = bash.join("rapidutils");
    assert_eq!(bash_complete(&multi, &["rapidutils", ""]), ["cat", "wc", "yes", "--list", "--help", "--version"]);
    assert_eq!(bash_complete(&multi, &["rapidutils", "wc", "--files"]), ["--files0-from="]);
    assert_eq!(bash_complete(&multi, &["rapidutils", "wc", "--total", "=", "a"]), ["auto", "always"]);
}

#[test]
fn fish_completes_options_values_and_tools() {
    let fish = committed("completions/fish");
    let bin = ours("rapidutils").parent().unwrap().to_owned();
    let fish_complete = |line| fish_complete(&fish, &bin, line);
    assert_eq!(fish_complete("wc --total="), ["--total=always", "--total=auto", "--total=never", "--total=only"]);
    // (Prefixes no other option holds as a subsequence: fish 4 offers those too, "--show-n" gets
    // --show-ends and "--l" --help there.)
    assert_eq!(fish_complete("cat --show-non"), ["--show-nonprinting"]);
    assert_eq!(fish_complete("rapidutils "), ["cat", "wc", "yes"]);
    assert_eq!(fish_complete("rapidutils --li"), ["--list"]);
    assert_eq!(fish_complete("rapidutils wc --max"), ["--max-line-length"]);
    assert!(fish_complete("rapidutils yes ").is_empty(), "yes takes text, not files");
    assert!(fish_complete("yes ").is_empty(), "yes takes text, not files");
}

/// zsh functions for a test that drives a program in a pseudo-terminal (zsh's zpty) and waits
/// for what it shows: `await NAME TEXT` reads the terminal NAME (its master descriptor in
/// `fds[NAME]`, from `start`) into `seen` until `seen` holds TEXT, each read as soon as zselect
/// says there is something to read; it fails when the program ends first, or after 30 s (a
/// watchdog: the wait is for the text, not for a time).
pub const ZPTY_AWAIT: &str = r#"zmodload zsh/zpty zsh/zselect zsh/datetime
typeset -A fds
seen=
start() { local name=$1; shift; zpty $name "$@" && fds[$name]=$REPLY; }
await() {
  local name=$1 text=$2 chunk got
  local -i left
  local deadline=$(( EPOCHREALTIME + 30 ))
  while [[ $seen != *"$text"* ]]; do
    left=$(( (deadline - EPOCHREALTIME) * 100 ))
    (( left > 0 )) || return 1
    zselect -t $left -r $fds[$name] || continue
    got=0
    while zpty -r -t $name chunk; do seen+=$chunk; got=1; done
    (( got )) || return 1
  done
}
"#;

/// Whether zsh, interactive in a pseudo-terminal with `dir` first in `fpath`, lists `want` when
/// TAB is pressed after `line` (waited for with [`ZPTY_AWAIT`]). The directories where the
/// system's installs put completions (`site-functions`: a system-wide `make install` puts ours
/// there; `vendor-completions`, `vendor-functions`: the packages') are taken off `fpath`: only
/// zsh's own functions and `dir` are searched.
pub fn zsh_lists(dir: &Path, line: &str, want: &str) -> bool {
    let script = format!(
        "{ZPTY_AWAIT}{}",
        r#"start z zsh -f -i
zpty -w z "fpath=($1 \${fpath:#*/(site-functions|vendor-completions|vendor-functions)}); autoload -Uz compinit; compinit -u -D; PROMPT='> '"
zpty -wn z "$2"$'\t'
await z "$3" && { zpty -d z; exit 0; }
zpty -d z
print -r -- "$seen"
exit 1"#
    );
    let out = Command::new(require_program("zsh"))
        .arg("-fc")
        .arg(script)
        .arg("zsh")
        .arg(dir)
        .arg(line)
        .arg(want)
        .output()
        .unwrap();
    if !out.status.success() {
        eprintln!("zsh showed for {line:?}:\n{}", String::from_utf8_lossy(&out.stdout));
    }
    out.status.success()
}

#[test]
fn zsh_completes_values_and_tools() {
    let zsh = committed("completions/zsh");
    assert!(zsh_lists(&zsh, "wc --total=", "always  auto    never   only"));
    assert!(zsh_lists(&zsh, "rapidutils ", "yes  -- output a string repeatedly until killed"));
    assert!(zsh_lists(&zsh, "rapidutils cat --show-t", "--show-tabs"));
}
