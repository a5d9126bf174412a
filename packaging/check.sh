#!/usr/bin/env bash
# Builds or checks each package from the tarballs dist.sh makes, in target/package/:
#   check.sh deb|rpm|arch|freebsd|homebrew|reproducible|all
# deb: dpkg-buildpackage of rapidutils and rapidutils-coreutils, then lintian (no errors or
#   warnings allowed), the packages' contents, the tools run, and the maintainer scripts are
#   checked by shellcheck.
# rpm: rpmbuild with stand-in cargo macros, then rpmlint, and the contents run.
# arch: makepkg as an unprivileged user (created for the check when missing, then removed),
#   then the contents run.
# freebsd: the crate list and distinfo regenerated from Cargo.lock and compared; pkg-plist
#   compared with a staged install. homebrew: ruby -c, then the formula's install and test
#   blocks run against a stand-in of Homebrew's DSL with the binary we built.
# reproducible (not part of all): the .debs built twice in two directories must be identical, and
#   so must `cargo build --release` from the work tree and from a copy elsewhere.
# Run as root on Debian (make packaging-deps installs the tools).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
out=$repo/target/package
src=$out/rapidutils-$version.tar.gz
vendor=$out/rapidutils-$version-vendor.tar.xz

# Inside the mount namespace below, the work tree is bound at /tmp/repo: paths shown to the
# caller name it where it really is.
real_repo=${RAPIDUTILS_CHECK_REPO:-$repo}
real() { sed "s,$repo/,$real_repo/,g"; }
say() { printf '== %s\n' "$*" | real; }
die() { printf 'check.sh: %s\n' "$*" | real >&2; exit 1; }

# The checks leave nothing behind in $HOME or /tmp. check.sh runs itself again in a mount
# namespace of its own, where a fresh directory (/tmp/rapidutils-check.XXXXXX) is bound over /tmp,
# HOME is /tmp/home and the work tree is bound at /tmp/repo (wherever it is, under /tmp too);
# cargo and rustup keep the caller's CARGO_HOME and RUSTUP_HOME. When it ends, that directory must
# hold nothing but an empty home, and the caller's home no new entry; what other processes write
# to /tmp meanwhile is not mistaken for the check's. Tools known to leave files there are told to
# write elsewhere: rpm's database (Debian's rpm keeps it in ~/.rpmdb) goes into the build's
# directory, rpmlint gets a HOME and lintian a TMPDIR removed after them.
if [ -z "${RAPIDUTILS_CHECK_TMP:-}" ]; then
  scratch=$(mktemp -d /tmp/rapidutils-check.XXXXXX)
  chmod 1777 "$scratch"
  mkdir -m 700 "$scratch/home"
  mkdir "$scratch/repo"
  home_before=$(ls -A "$HOME")
  status=0
  # shellcheck disable=SC2016 # the inner sh expands them
  env RAPIDUTILS_CHECK_TMP="$scratch" RAPIDUTILS_CHECK_REPO="$repo" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" \
    RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" HOME=/tmp/home TMPDIR=/tmp \
    unshare --mount --propagation private -- sh -c '
      mount --bind "$RAPIDUTILS_CHECK_REPO" "$RAPIDUTILS_CHECK_TMP/repo" &&
      mount --rbind "$RAPIDUTILS_CHECK_TMP" /tmp && cd /tmp/repo && exec bash packaging/check.sh "$@"' sh "$@" ||
    status=$?
  # The namespace and its mounts are gone: repo is an empty directory again, or nothing is removed.
  rmdir "$scratch/repo" || die "$scratch/repo is not empty: $scratch left in place"
  left=$(cd "$scratch" && find . -mindepth 1 -maxdepth 2 ! -path ./home | sed 's,^\./,/tmp/,')
  rm -rf "$scratch"
  new=$(comm -13 <(printf '%s\n' "$home_before") <(ls -A "$HOME"))
  [ -z "$left" ] || printf 'check.sh: left in /tmp (the check'"'"'s HOME was /tmp/home):\n%s\n' "$left" >&2
  [ -z "$new" ] || printf 'check.sh: new in %s:\n%s\n' "$HOME" "$new" >&2
  [ -z "$left$new" ] || [ "$status" != 0 ] || status=1
  exit "$status"
fi

# Cleanup run when the script ends, whether it succeeded or not (in reverse order of `at_exit`).
cleanups=()
at_exit() { cleanups=("$1" "${cleanups[@]}"); }
run_cleanups() { local c; for c in "${cleanups[@]}"; do eval "$c"; done; }
trap run_cleanups EXIT

# The files a distro-layout install puts under PREFIX (= /usr here), man pages uncompressed.
distro_files() {
  printf '%s\n' bin/rapidutils lib/rapidutils/bin/cat lib/rapidutils/bin/wc lib/rapidutils/bin/yes \
    share/bash-completion/completions/rapidutils share/fish/vendor_completions.d/rapidutils.fish \
    share/man/man1/rapidutils-cat.1 share/man/man1/rapidutils-wc.1 share/man/man1/rapidutils-yes.1 \
    share/man/man1/rapidutils.1
}

# Runs the tools of a package unpacked in $1: the multi-call binary in $1/usr/bin, the plain
# names in $1/$2.
run_unpacked() {
  local root=$1 tooldir=$1/$2 got
  # yes dies of SIGPIPE when head is done, as it should: not a failure of the pipeline.
  got=$({ "$tooldir/yes" || true; } | head -n 2 | tr '\n' ' ')
  [ "$got" = "y y " ] || die "yes from the package printed '$got'"
  got=$(printf 'a b\nc\n' | "$tooldir/cat" -n | "$tooldir/wc" -l)
  [ "$got" = 2 ] || die "cat | wc from the package printed '$got'"
  got=$("$root/usr/bin/rapidutils" --list | tr '\n' ' ')
  [ "$got" = "cat wc yes " ] || die "rapidutils --list from the package printed '$got'"
  echo "ran from the package: yes, cat -n | wc -l, rapidutils --list"
}

# Unpacks the sources (and the vendored crates) into a fresh $1/rapidutils-VERSION.
unpack() {
  rm -rf "$1"
  mkdir -p "$1"
  tar -xzf "$src" -C "$1"
  tar -xJf "$vendor" -C "$1/rapidutils-$version"
}

# The files a package installs, unpacked under $1, must not name the directory $2 they were built
# in (a path left in a binary makes builds from two directories differ).
no_build_path() {
  local hits
  hits=$(grep -rlF "$2" "$1" || true)
  [ -z "$hits" ] || die "these files name the build directory $2: $hits"
  echo "no file of the package names its build directory"
}

# Builds the .debs in $1 (a fresh directory) from the tarballs; the build log is $1/build.log.
build_deb() {
  unpack "$1"
  cp -r "$1/rapidutils-$version/packaging/debian" "$1/rapidutils-$version/debian"
  # -d: the toolchain may be rustup's rather than Debian's cargo and rustc packages.
  (cd "$1/rapidutils-$version" && dpkg-buildpackage -b -us -uc -d > "$1/build.log" 2>&1) ||
    { tail -n 40 "$1/build.log"; die "dpkg-buildpackage failed (log: $1/build.log)"; }
}

check_deb() {
  say "deb: dpkg-buildpackage"
  local work=$out/deb
  build_deb "$work"
  local deb coredeb changes
  deb=$(ls "$work"/rapidutils_"$version"-*_*.deb)
  coredeb=$(ls "$work"/rapidutils-coreutils_"$version"-*_*.deb)
  changes=$(ls "$work"/rapidutils_"$version"-*_*.changes)
  say "deb: lintian $(basename "$changes")"
  # lintian's MLDBM files (mldbm-elf-*) stay in TMPDIR after it ends: give it one of its own.
  mkdir "$work/lintian-tmp"
  TMPDIR=$work/lintian-tmp lintian --fail-on error --display-info --show-overrides "$changes" 2>&1 |
    grep -v 'root privileges' | tee "$work/lintian.log"
  rm -rf "$work/lintian-tmp"
  local tag
  for tag in E W I O; do printf '%s: %s  ' "$tag" "$(grep -c "^$tag:" "$work/lintian.log" || true)"; done
  echo "(lintian: errors, warnings, info, overridden)"
  # Not --fail-on warning: with --show-overrides it counts the overridden tags too.
  ! grep -q '^[EW]:' "$work/lintian.log" || die "lintian reports errors or warnings"
  say "deb: contents"
  deb_contents "$deb" > "$work/contents"
  { distro_files | sed 's,^,usr/,; s,\(man/man1/.*\.1\)$,\1.gz,; s,^usr/lib/rapidutils/bin/.*,& -> ../../../bin/rapidutils,'
    echo usr/share/zsh/vendor-completions/_rapidutils
    echo usr/share/doc/rapidutils/changelog.Debian.gz
    echo usr/share/doc/rapidutils/changelog.gz
    echo usr/share/doc/rapidutils/copyright; } | sort > "$work/expected"
  diff -u "$work/expected" "$work/contents" || die "the .deb holds other files than expected"
  deb_contents "$coredeb" > "$work/contents"
  { for t in cat wc yes; do echo "usr/share/man/man1/$t.1.gz -> rapidutils-$t.1.gz"; done
    echo "usr/share/doc/rapidutils-coreutils -> rapidutils"
    echo usr/share/lintian/overrides/rapidutils-coreutils; } | sort > "$work/expected"
  diff -u "$work/expected" "$work/contents" || die "rapidutils-coreutils holds other files than expected"
  rm -rf "$work/root"
  dpkg-deb -x "$deb" "$work/root"
  run_unpacked "$work/root" usr/lib/rapidutils/bin
  no_build_path "$work/root/usr" "$work"
  rm -rf "$work/control"
  dpkg-deb -e "$coredeb" "$work/control"
  # SC2317 (unreachable code): each script calls only some of the functions they share.
  shellcheck -s sh -e SC2317 "$work"/control/{preinst,postinst,prerm,postrm}
  echo "shellcheck: rapidutils-coreutils' maintainer scripts are clean"
  cp "$deb" "$coredeb" "$out/"
  ls -l "$out/$(basename "$deb")" "$out/$(basename "$coredeb")" | real
}

# The files of a .deb, one a line, without directories; symbolic links with their target.
deb_contents() {
  dpkg-deb -c "$1" | awk '$6 != "./" && $6 !~ /\/$/ { sub(/^\.\//, "", $6); $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' |
    sort
}

check_rpm() {
  say "rpm: rpmbuild (stand-in cargo macros)"
  local work=$out/rpm
  rm -rf "$work"
  mkdir -p "$work/SOURCES"
  cp "$src" "$vendor" "$work/SOURCES/"
  # --nodeps: the build requirements are Fedora packages; here cargo is rustup's.
  rpmbuild --load="$repo/packaging/rpm/macros.cargo-standin" --define "_topdir $work" --dbpath "$work/rpmdb" --nodeps \
    -ba packaging/rpm/rapidutils.spec > "$work/build.log" 2>&1 ||
    { tail -n 40 "$work/build.log"; die "rpmbuild failed (log: $work/build.log)"; }
  local rpm srpm
  rpm=$(ls "$work"/RPMS/*/rapidutils-"$version"-*.rpm)
  srpm=$(ls "$work"/SRPMS/rapidutils-"$version"-*.src.rpm)
  say "rpm: rpmlint (Fedora's settings: packaging/rpm/rpmlint.toml)"
  # rpmlint opens an rpm database in ~/.rpmdb and writes ~/.config/enchant: a HOME of its own.
  mkdir "$work/rpmlint-home"
  HOME=$work/rpmlint-home rpmlint -c packaging/rpm/rpmlint.toml packaging/rpm/rapidutils.spec "$rpm" "$srpm" |
    tee "$work/rpmlint.log"
  rm -rf "$work/rpmlint-home"
  grep -q ' 0 errors, 0 warnings' "$work/rpmlint.log" || die "rpmlint reports errors or warnings"
  say "rpm: contents"
  rpm --dbpath "$work/rpmdb" -qlp "$rpm" | grep -v -e '^/usr/lib/\.build-id' -e '^/usr/share/doc/' -e '^/usr/share/licenses/' |
    sed 's,^/,,' | sort > "$work/contents"
  { distro_files | sed 's,^,usr/,; s,\(man/man1/.*\.1\)$,\1.gz,; s,^usr/lib/rapidutils,usr/libexec/rapidutils,'
    echo usr/libexec/rapidutils; echo usr/libexec/rapidutils/bin
    echo usr/share/zsh/site-functions/_rapidutils; } | sort > "$work/expected"
  diff -u "$work/expected" "$work/contents" || die "the RPM holds other files than expected"
  rm -rf "$work/root"
  mkdir -p "$work/root"
  (cd "$work/root" && rpm2cpio "$rpm" | cpio -idm --quiet)
  run_unpacked "$work/root" usr/libexec/rapidutils/bin
  no_build_path "$work/root/usr" "$work"
  cp "$rpm" "$srpm" "$out/"
  ls -l "$out/$(basename "$rpm")" "$out/$(basename "$srpm")" | real
}

# makepkg refuses to run as root: it runs as an unprivileged user (RAPIDUTILS_BUILDER, by default
# `rapidutils-builder`), created for the check when missing and removed afterwards, with a copy
# of the caller's toolchain (hard links when on the same file system) in the temporary build
# directory, so nothing above that directory needs to let the user through.
builder=${RAPIDUTILS_BUILDER:-rapidutils-builder}

check_arch() {
  say "arch: makepkg as $builder"
  local work pkg sysroot home
  work=$(mktemp -d /tmp/rapidutils-makepkg.XXXXXX)
  at_exit "rm -rf '$work'"
  if ! id "$builder" > /dev/null 2>&1; then
    home=$work/home
    useradd --home-dir "$home" --create-home --shell /bin/sh --user-group "$builder"
    at_exit "userdel '$builder' 2>/dev/null || true"
  fi
  home=$(getent passwd "$builder" | cut -d: -f6)
  sysroot=$(rustc --print sysroot)
  mkdir "$work/toolchain"
  cp -al "$sysroot/bin" "$sysroot/lib" "$work/toolchain/" 2>/dev/null ||
    cp -a "$sysroot/bin" "$sysroot/lib" "$work/toolchain/"
  sed "s/^sha256sums=.*/sha256sums=('$(sha256sum "$src" | cut -d' ' -f1)')/" packaging/arch/PKGBUILD > "$work/PKGBUILD"
  cp "$src" "$work/"
  chmod 755 "$work"
  chown "$builder:" "$work" "$work/PKGBUILD" "$work/$(basename "$src")"
  runuser -u "$builder" -- "$work/toolchain/bin/cargo" --version > /dev/null ||
    die "$builder cannot run the toolchain copied to $work/toolchain"
  (cd "$work" && runuser -u "$builder" -- env -i HOME="$home" \
    PATH="$work/toolchain/bin:/usr/bin:/bin" LANG=C.UTF-8 makepkg --nodeps --noconfirm --noprogressbar) \
    > "$out/makepkg.log" 2>&1 || { tail -n 40 "$out/makepkg.log"; die "makepkg failed (log: $out/makepkg.log)"; }
  pkg=$(ls "$work"/rapidutils-"$version"-*.pkg.tar.*)
  grep -E '^==> (Validating|Starting (build|check)|Finished)|test result' "$out/makepkg.log"
  say "arch: contents"
  bsdtar -tf "$pkg" | grep -v -e '/$' -e '^\.' | sort > "$work/contents"
  { distro_files | sed 's,^,usr/,; s,\(man/man1/.*\.1\)$,\1.gz,'
    echo usr/share/zsh/site-functions/_rapidutils
    echo usr/share/licenses/rapidutils/LICENSE-MIT; } | sort > "$work/expected"
  diff -u "$work/expected" "$work/contents" || die "the Arch package holds other files than expected"
  mkdir "$work/root"
  bsdtar -xf "$pkg" -C "$work/root"
  run_unpacked "$work/root" usr/lib/rapidutils/bin
  no_build_path "$work/root/usr" "$work"
  cp "$pkg" "$out/"
  ls -l "$out/$(basename "$pkg")" | real
}

# The staged install pkg-plist must match: our Makefile's distro layout under /usr/local, with the
# pages gzipped as the ports framework does when it stages.
check_freebsd() {
  say "freebsd: Makefile.crates and distinfo against Cargo.lock"
  python3 packaging/freebsd/crates.py check
  say "freebsd: pkg-plist against a staged install"
  local stage
  stage=$(mktemp -d /tmp/rapidutils-stage.XXXXXX)
  at_exit "rm -rf '$stage' '$stage.list'"
  built_binaries
  make -s install DESTDIR="$stage" PREFIX=/usr/local LAYOUT=distro BINARIES=target/release
  find "$stage/usr/local/share/man" -type f -name '*.1' -exec gzip -n -9 {} +
  (cd "$stage/usr/local" && find . ! -type d | sed 's,^\./,,' | sort) > "$stage.list"
  sort packaging/freebsd/pkg-plist | diff -u - "$stage.list" || die "pkg-plist differs from the staged install"
  echo "pkg-plist matches the staged install ($(wc -l < "$stage.list") files)"
  grep -q '^USES=.*cargo' packaging/freebsd/Makefile || die "the port does not use USES=cargo"
  awk 'length > 80 { bad = 1 } END { exit bad }' packaging/freebsd/pkg-descr || die "pkg-descr has lines over 80 columns"
  rm -rf "$stage" "$stage.list"
}

check_homebrew() {
  say "homebrew: ruby -c, then the install and test blocks against a stand-in DSL"
  ruby -c packaging/homebrew/rapidutils.rb
  built_binaries
  ruby packaging/homebrew/check.rb target/release/rapidutils
}

# Reproducible builds: the .debs built twice, from directories of other names and depths, with
# another umask, time zone and locale (what reprotest varies that matters here; the date is held
# by SOURCE_DATE_EPOCH from debian/changelog), must be the same bytes (diffoscope shows where
# they differ when they do); so must the binaries of `cargo build --release` from the work tree
# and from a copy of it elsewhere, in the other locale and time zone.
check_reproducible() {
  say "reproducible: the .debs built twice, in two directories"
  local repro=/tmp/rapidutils-repro one two f name differ=0 debs_one debs_two
  at_exit "rm -rf '$repro'"
  one=$repro/a
  two=$repro/elsewhere/second/build
  # The unit tests (DEB_BUILD_OPTIONS=nocheck) have no part in the packages.
  (export DEB_BUILD_OPTIONS=nocheck
    LC_ALL=C TZ=UTC build_deb "$one"
    umask 0002
    LC_ALL=C.UTF-8 LANGUAGE=fr:de TZ=Pacific/Kiritimati build_deb "$two")
  for f in "$one"/*.deb; do
    name=${f##*/}
    if cmp "$f" "$two/$name"; then
      echo "identical: $(sha256sum "$f" | cut -d' ' -f1)  $name"
    else
      differ=1
      diffoscope --text - "$f" "$two/$name" | head -n 200 || true
    fi
  done
  debs_one=("$one"/*.deb)
  debs_two=("$two"/*.deb)
  [ "${#debs_one[@]}" = "${#debs_two[@]}" ] || die "the two builds made other .debs"
  [ "$differ" = 0 ] || die "the .debs built in $one and $two differ"
  say "reproducible: cargo build --release in the work tree and in a copy of it elsewhere"
  cargo build --quiet --release --locked --bins
  mkdir -p "$repro/copy"
  tar -xzf "$src" -C "$repro/copy"
  (cd "$repro/copy/rapidutils-$version" && umask 0002 &&
    LC_ALL=C.UTF-8 LANGUAGE=fr:de TZ=Pacific/Kiritimati cargo build --quiet --release --locked --bins)
  for name in rapidutils cat wc yes; do
    f=$repro/copy/rapidutils-$version/target/release/$name
    cmp "target/release/$name" "$f" || die "target/release/$name differs when built in $repro/copy"
    echo "identical: $(sha256sum "$f" | cut -d' ' -f1)  $name"
  done
  rm -rf "$repro"
}

# The release binaries, built when missing (from a fresh clone, before the tests ran).
built_binaries() {
  [ -x target/release/rapidutils ] || cargo build --quiet --release --bins
}

case ${1:-all} in
  freebsd | homebrew) "check_$1" ;;
  deb | rpm | arch)
    bash packaging/dist.sh | real
    "check_$1" ;;
  reproducible)
    bash packaging/dist.sh | real
    check_reproducible ;;
  all)
    bash packaging/dist.sh | real
    check_freebsd
    check_homebrew
    check_deb
    check_rpm
    check_arch
    say "packages in $out"
    ls -l "$out"/*.deb "$out"/*.rpm "$out"/*.pkg.tar.* | real ;;
  *) die "usage: check.sh deb|rpm|arch|freebsd|homebrew|reproducible|all" ;;
esac
