//! `make install` and `make uninstall` into a temporary DESTDIR, in each layout and mode: the
//! exact set of files, the installed tools running, the pages and completions where each
//! program looks for them (completions renamed for a PROG_PREFIX and still completing), and
//! nothing of ours left after `make uninstall`: a file that was there before stays, and so do
//! the directories that were there before, while those `make install` created go. bash's
//! completions for `cat` and `wc` load in an interactive bash with bash-completion.

use crate::generated::{ZPTY_AWAIT, bash_complete, fish_complete, zsh_lists};
use crate::util::*;
use std::path::{Path, PathBuf};
use std::process::Command;

const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// Runs `make -s TARGET DESTDIR=dest BINARIES=<our build> RECORD_DIRS=yes VARS...` in the
/// repository (RECORD_DIRS: as an install without DESTDIR does).
fn make(target: &str, dest: &Path, vars: &[&str]) {
    let bin_dir = ours("rapidutils").parent().unwrap().to_owned();
    let out = Command::new(require_program("make"))
        .current_dir(REPO)
        .args(["-s", target])
        .arg(format!("DESTDIR={}", dest.display()))
        .arg(format!("BINARIES={}", bin_dir.display()))
        .arg("RECORD_DIRS=yes")
        .args(vars)
        .env_remove("MAKEFLAGS")
        .output()
        .unwrap();
    assert!(out.status.success(), "make {target} {vars:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Every file and symlink under `root` as "path" or "path -> target", sorted.
fn tree(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if meta.file_type().is_symlink() {
                out.push(format!("{rel} -> {}", std::fs::read_link(&path).unwrap().display()));
            } else if meta.is_dir() {
                walk(root, &path, out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Every directory under `root`, sorted.
fn directories(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if std::fs::symlink_metadata(&path).unwrap().is_dir() {
                out.push(path.strip_prefix(root).unwrap().display().to_string());
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut list: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    list.sort();
    list
}

/// The three tools at `bin/PREFIXNAME` produce what they should.
fn run_installed(bin: &Path, prefix: &str) {
    let tool = |name: &str| bin.join(format!("{prefix}{name}"));
    assert_eq!(run_cut(Command::new(tool("yes")), 4).stdout, b"y\ny\n");
    let dir = TempDir::new("installed");
    let file = dir.file("f", b"one two\nthree\n");
    let out = Command::new(tool("cat")).arg("-n").arg(&file).output().unwrap();
    assert_eq!(out.stdout, b"     1\tone two\n     2\tthree\n");
    let out = Command::new(tool("wc")).arg(&file).env("LC_ALL", "C").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!(" 2  3 14 {}\n", file.display()));
}

fn same_as_committed(installed: &Path, committed: &str) {
    let want = std::fs::read(Path::new(REPO).join(committed)).unwrap();
    assert!(std::fs::read(installed).unwrap() == want, "{} differs from {committed}", installed.display());
}

/// Installs with `vars`, checks, uninstalls, and checks that only `keep` is left.
fn round_trip(vars: &[&str], keep: &str, expected: &[&str], check: impl FnOnce(&Path)) {
    let dest = TempDir::new("destdir");
    let keep_path = dest.0.join(keep);
    std::fs::create_dir_all(keep_path.parent().unwrap()).unwrap();
    std::fs::write(&keep_path, b"not ours\n").unwrap();
    // An empty directory that install would otherwise create: uninstall must leave it.
    let man1 = if vars.contains(&"LAYOUT=distro") { "usr/share/man/man1" } else { "usr/local/share/man/man1" };
    std::fs::create_dir_all(dest.0.join(man1)).unwrap();
    let before = directories(&dest.0);
    make("install", &dest.0, vars);
    let mut want = sorted(expected);
    want.push(keep.to_owned());
    want.sort();
    assert_eq!(tree(&dest.0), want, "installed with {vars:?}");
    check(&dest.0);
    make("uninstall", &dest.0, vars);
    assert_eq!(tree(&dest.0), [keep], "left after make uninstall {vars:?}");
    assert_eq!(directories(&dest.0), before, "directories after make uninstall {vars:?}");
}

#[test]
fn replace_layout_links() {
    let expected = [
        "usr/local/bin/rapidutils",
        "usr/local/bin/cat -> rapidutils",
        "usr/local/bin/wc -> rapidutils",
        "usr/local/bin/yes -> rapidutils",
        "usr/local/share/man/man1/rapidutils.1",
        "usr/local/share/man/man1/cat.1",
        "usr/local/share/man/man1/wc.1",
        "usr/local/share/man/man1/yes.1",
        "usr/local/share/bash-completion/completions/rapidutils",
        "usr/local/share/bash-completion/completions/cat",
        "usr/local/share/bash-completion/completions/wc",
        "usr/local/share/bash-completion/completions/yes",
        "usr/local/share/zsh/site-functions/_rapidutils",
        "usr/local/share/zsh/site-functions/_cat",
        "usr/local/share/zsh/site-functions/_wc",
        "usr/local/share/zsh/site-functions/_yes",
        "usr/local/share/fish/vendor_completions.d/rapidutils.fish",
        "usr/local/share/fish/vendor_completions.d/cat.fish",
        "usr/local/share/fish/vendor_completions.d/wc.fish",
        "usr/local/share/fish/vendor_completions.d/yes.fish",
        "etc/bash_completion.d/rapidutils",
        "etc/fish/conf.d/rapidutils.fish",
        "usr/local/share/rapidutils/installed-directories",
    ];
    round_trip(&[], "usr/local/bin/keep", &expected, |dest| {
        let bin = dest.join("usr/local/bin");
        run_installed(&bin, "");
        let list = Command::new(bin.join("rapidutils")).arg("--list").output().unwrap();
        assert_eq!(list.stdout, b"cat\nwc\nyes\n");
        let share = dest.join("usr/local/share");
        for page in ["rapidutils", "yes", "cat", "wc"] {
            same_as_committed(&share.join(format!("man/man1/{page}.1")), &format!("man/{page}.1"));
        }
        for name in ["rapidutils", "yes", "cat", "wc"] {
            same_as_committed(
                &share.join(format!("bash-completion/completions/{name}")),
                &format!("completions/bash/{name}"),
            );
            same_as_committed(&share.join(format!("zsh/site-functions/_{name}")), &format!("completions/zsh/_{name}"));
            same_as_committed(
                &share.join(format!("fish/vendor_completions.d/{name}.fish")),
                &format!("completions/fish/{name}.fish"),
            );
        }
        // In an interactive bash with bash-completion, which binds its _longopt to cat and wc:
        // what only ours offers (values of --total, cat's short options) shows that ours won.
        for (line, want) in
            [("wc --total=", "always  auto    never   only"), ("cat -", " -A"), ("rapidutils ", "--list")]
        {
            assert!(bash_lists(dest, "usr/local", line, want), "bash: {line:?}");
        }
        // fish with XDG_DATA_DIRS unset (a login shell on Debian 12) searches only its own
        // vendor_completions.d; the file in its conf.d adds ours, before fish's own completions
        // (its path made the staged one here). A fish of its own, whose conf.d is private: the
        // system's /etc/fish/conf.d (where a system-wide `make install` puts this very file) is
        // never read.
        let conf = std::fs::read_to_string(dest.join("etc/fish/conf.d/rapidutils.fish")).unwrap();
        let path = std::env::join_paths([bin.clone(), "/usr/bin".into(), "/bin".into()]).unwrap();
        let fish = PrivateFish::new(&path);
        let ours = ["--total=always", "--total=auto", "--total=never", "--total=only"];
        assert_ne!(fish.complete("wc --total="), ours, "fish found our completions without the conf.d file");
        std::fs::write(
            fish.conf_d().join("rapidutils.fish"),
            conf.replace("/usr/local/share", &share.display().to_string()),
        )
        .unwrap();
        assert_eq!(fish.complete("wc --total="), ours);
    });
}

/// A fish that reads none of this system's configuration: a copy of the system's fish at
/// `ROOT/bin/fish`, which fish takes for a relocated installation, so its configuration
/// directory (`__fish_sysconf_dir`: `config.fish`, `conf.d`, `completions`) is `ROOT/etc/fish`,
/// empty until a test puts a file there, and its data `ROOT/share/fish`, a link to the system
/// fish's own (fish takes the directory tree for an installation only where both exist). HOME is `ROOT/home`, XDG_DATA_DIRS and the user's XDG directories are unset.
struct PrivateFish {
    root: TempDir,
    path: std::ffi::OsString,
}

impl PrivateFish {
    fn new(path: &std::ffi::OsStr) -> PrivateFish {
        let system = require_program("fish");
        let out = Command::new(&system).args(["--no-config", "-c", "echo $__fish_data_dir"]).output().unwrap();
        assert!(out.status.success(), "fish: {}", String::from_utf8_lossy(&out.stderr));
        // (Empty where fish's data is built into it, as fish 4 may be.)
        let data = String::from_utf8(out.stdout).unwrap().trim().to_owned();
        let root = TempDir::new("fish-root");
        for dir in ["bin", "share", "etc/fish/conf.d", "home"] {
            std::fs::create_dir_all(root.0.join(dir)).unwrap();
        }
        copy_executable(&system, &root.0.join("bin/fish"));
        if !data.is_empty() {
            std::os::unix::fs::symlink(&data, root.0.join("share/fish")).unwrap();
        }
        let fish = PrivateFish { root, path: path.to_owned() };
        // It must really be private: a fish that ignored the relocation would read /etc/fish.
        let sysconf = fish.run("echo $__fish_sysconf_dir");
        assert_eq!(
            sysconf.trim(),
            fish.root.0.join("etc/fish").display().to_string(),
            "fish's configuration directory"
        );
        fish
    }

    fn conf_d(&self) -> PathBuf {
        self.root.0.join("etc/fish/conf.d")
    }

    /// What `fish -c SCRIPT` printed; it must succeed.
    fn run(&self, script: &str) -> String {
        let mut fish = Command::new(self.root.0.join("bin/fish"));
        for var in ["XDG_DATA_DIRS", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS"] {
            fish.env_remove(var);
        }
        fish.env("HOME", self.root.0.join("home")).env("PATH", &self.path).args(["-c", script]);
        let out = fish.output().unwrap();
        assert!(out.status.success(), "fish -c {script:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    }

    /// The completions fish offers for `line` (`complete -C`), without their descriptions.
    fn complete(&self, line: &str) -> Vec<String> {
        let script = format!("complete -C '{line}'");
        self.run(&script).lines().map(|l| l.split('\t').next().unwrap().to_owned()).collect()
    }
}

/// Whether an interactive bash (in a pseudo-terminal driven by zsh's zpty) with Debian's
/// bash-completion, reading its compatibility directory and completion files from the install
/// in `dest` under `prefix`, shows `want` when TAB is pressed twice after `line` (waited for with
/// [`ZPTY_AWAIT`]).
fn bash_lists(dest: &Path, prefix: &str, line: &str, want: &str) -> bool {
    let loader = Path::new("/usr/share/bash-completion/bash_completion");
    assert!(loader.exists(), "bash-completion is not installed: run `make test-deps` (as .ci/run does)");
    // (The prompt is set in two quoted halves: the terminal's echo of the command does not
    // read as the prompt.)
    let script = format!(
        "{ZPTY_AWAIT}{}",
        r#"start b env -i HOME=$1 HISTFILE=/dev/null TERM=dumb PATH=$2:/usr/bin:/bin BASH_COMPLETION_COMPAT_DIR=$3 XDG_DATA_DIRS=$4 \
  bash --norc --noprofile -i
zpty -w b "source /usr/share/bash-completion/bash_completion; PS1='re''ady> '"
if await b "ready> "; then
  zpty -wn b "$5"$'\t\t'
  await b "$6" && { zpty -d b; exit 0; }
fi
zpty -d b
print -r -- "$seen"
exit 1"#
    );
    let root = dest.join(prefix);
    let out = Command::new(require_program("zsh"))
        .arg("-fc")
        .arg(script)
        .arg("zsh")
        .arg(dest)
        .arg(root.join("bin"))
        .arg(dest.join("etc/bash_completion.d"))
        .arg(root.join("share"))
        .arg(line)
        .arg(want)
        .output()
        .unwrap();
    if !out.status.success() {
        eprintln!("bash showed for {line:?}:\n{}", String::from_utf8_lossy(&out.stdout));
    }
    out.status.success()
}

#[test]
fn replace_layout_separate_binaries_with_a_prefix() {
    let expected = [
        "usr/local/bin/ru-cat",
        "usr/local/bin/ru-wc",
        "usr/local/bin/ru-yes",
        "usr/local/share/man/man1/ru-cat.1",
        "usr/local/share/man/man1/ru-wc.1",
        "usr/local/share/man/man1/ru-yes.1",
        "usr/local/share/bash-completion/completions/ru-cat",
        "usr/local/share/bash-completion/completions/ru-wc",
        "usr/local/share/bash-completion/completions/ru-yes",
        "usr/local/share/zsh/site-functions/_ru-cat",
        "usr/local/share/zsh/site-functions/_ru-wc",
        "usr/local/share/zsh/site-functions/_ru-yes",
        "usr/local/share/fish/vendor_completions.d/ru-cat.fish",
        "usr/local/share/fish/vendor_completions.d/ru-wc.fish",
        "usr/local/share/fish/vendor_completions.d/ru-yes.fish",
        "etc/bash_completion.d/ru-rapidutils",
        "etc/fish/conf.d/ru-rapidutils.fish",
        "usr/local/share/rapidutils/installed-directories",
    ];
    round_trip(&["INSTALL_MODE=separate", "PROG_PREFIX=ru-"], "usr/local/share/man/man1/keep.1", &expected, |dest| {
        let bin = dest.join("usr/local/bin");
        run_installed(&bin, "ru-");
        let share = dest.join("usr/local/share");
        same_as_committed(&share.join("man/man1/ru-wc.1"), "man/wc.1");
        // The completions answer to the installed names.
        let bash = share.join("bash-completion/completions/ru-wc");
        assert_eq!(bash_complete(&bash, &["ru-wc", "--total", "=", "o"]), ["only"]);
        let fish = share.join("fish/vendor_completions.d");
        assert_eq!(fish_complete(&fish, &bin, "ru-wc --to"), ["--total"]);
        assert!(fish_complete(&fish, &bin, "ru-yes ").is_empty());
        let zsh = share.join("zsh/site-functions");
        assert!(zsh_lists(&zsh, "ru-wc --total=", "always  auto    never   only"));
        for (shell, file) in [("bash", bash), ("zsh", zsh.join("_ru-cat")), ("fish", fish.join("ru-cat.fish"))] {
            assert!(Command::new(shell).arg("-n").arg(&file).status().unwrap().success(), "{shell} -n {file:?}");
        }
    });
}

#[test]
fn replace_layout_links_with_a_prefix() {
    let dest = TempDir::new("destdir");
    make("install", &dest.0, &["PROG_PREFIX=ru-", "PREFIX=/opt/ru"]);
    let bin = dest.0.join("opt/ru/bin");
    run_installed(&bin, "ru-");
    assert_eq!(std::fs::read_link(bin.join("ru-wc")).unwrap(), PathBuf::from("rapidutils"));
    let bash = dest.0.join("opt/ru/share/bash-completion/completions");
    assert_eq!(bash_complete(&bash.join("ru-cat"), &["ru-cat", "--number-n"]), ["--number-nonblank"]);
    assert_eq!(bash_complete(&bash.join("rapidutils"), &["rapidutils", "w"]), ["wc"]);
    make("uninstall", &dest.0, &["PROG_PREFIX=ru-", "PREFIX=/opt/ru"]);
    assert_eq!(tree(&dest.0), Vec::<String>::new());
    assert_eq!(directories(&dest.0), Vec::<String>::new());
}

#[test]
fn distro_layout() {
    let vars = ["LAYOUT=distro", "ZSHCOMPDIR=/usr/share/zsh/vendor-completions"];
    let expected = [
        "usr/bin/rapidutils",
        "usr/lib/rapidutils/bin/cat -> ../../../bin/rapidutils",
        "usr/lib/rapidutils/bin/wc -> ../../../bin/rapidutils",
        "usr/lib/rapidutils/bin/yes -> ../../../bin/rapidutils",
        "usr/share/man/man1/rapidutils.1",
        "usr/share/man/man1/rapidutils-cat.1",
        "usr/share/man/man1/rapidutils-wc.1",
        "usr/share/man/man1/rapidutils-yes.1",
        "usr/share/bash-completion/completions/rapidutils",
        "usr/share/zsh/vendor-completions/_rapidutils",
        "usr/share/fish/vendor_completions.d/rapidutils.fish",
        "usr/share/rapidutils/installed-directories",
    ];
    round_trip(&vars, "usr/bin/keep", &expected, |dest| {
        run_installed(&dest.join("usr/lib/rapidutils/bin"), "");
        same_as_committed(&dest.join("usr/share/man/man1/rapidutils-cat.1"), "man/cat.1");
        let out = Command::new(dest.join("usr/bin/rapidutils")).args(["wc", "-c", "/dev/null"]).output().unwrap();
        assert_eq!(out.stdout, b"0 /dev/null\n");
    });
}

/// `make install` records the directories it creates; a package may come to own one of them
/// before `make uninstall` (fish installed after rapidutils: fish-common owns /etc/fish/conf.d),
/// and `make uninstall` must then leave it, as dpkg says (`dpkg -S`), here from a dpkg database
/// in the DESTDIR (packaging/uninstall-test.sh does it with a real package in a chroot). The
/// directories no package owns go, and without that database every one does.
#[test]
fn uninstall_leaves_directories_a_package_came_to_own() {
    require_program("dpkg");
    let dest = TempDir::new("destdir");
    make("install", &dest.0, &[]);
    let recorded = std::fs::read_to_string(dest.0.join("usr/local/share/rapidutils/installed-directories")).unwrap();
    assert!(recorded.lines().any(|d| d == "/etc/fish/conf.d"), "{recorded}");
    let admin = dest.0.join("var/lib/dpkg");
    std::fs::create_dir_all(admin.join("info")).unwrap();
    std::fs::create_dir_all(admin.join("updates")).unwrap();
    std::fs::write(
        admin.join("status"),
        "Package: fish-common\nStatus: install ok installed\nVersion: 3.6.0-3.1\nArchitecture: all\n\
         Maintainer: nobody <nobody@example.org>\nDescription: stands for fish's data\n\n",
    )
    .unwrap();
    std::fs::write(admin.join("info/fish-common.list"), "/.\n/etc\n/etc/fish\n/etc/fish/conf.d\n").unwrap();
    make("uninstall", &dest.0, &[]);
    let left: Vec<String> = directories(&dest.0).into_iter().filter(|d| !d.starts_with("var")).collect();
    assert_eq!(left, ["etc", "etc/fish", "etc/fish/conf.d"], "directories after make uninstall");
    assert_eq!(tree(&dest.0).iter().filter(|f| !f.starts_with("var/")).count(), 0, "{:?}", tree(&dest.0));
}
