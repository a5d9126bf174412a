#!/usr/bin/env bash
# rapidutils as Debian builds it, in fresh chroots of each SUITE (default: trixie sid):
#
#   source     the Debian source package: dist.sh's tarball as the orig, packaging/debian as
#              debian/ (dpkg-source, on the host), in target/package/debian-source
#   build      in a fresh chroot: its Build-Depends from Debian's archive (apt-get build-dep:
#              Debian's rustc and cargo, dh-cargo, the librust-*-dev crates), then
#              dpkg-buildpackage with no network (unshare -n) and no vendored crate
#   lintian    the source and binary packages: no error, no warning
#   msrv       (trixie: Debian 13, the oldest rustc supported) the unit tests and the whole
#              integration suite, built by its rustc 1.85 from its crates, offline, and run
#              there against GNU 9.12 (the host's /opt/gnu-oracle, the test prerequisites
#              installed in the chroot)
#   newcomer   in another fresh chroot: the README's install, `make install` as root with
#              nothing but make (it installs Debian's cargo), the tools run, `make uninstall`
#
# The .debs go to target/package/SUITE/; packaging/chroot-test.sh then runs the system-swap
# table with them (DEBS=target/package/SUITE). Each SUITE's log is target/package/distro-SUITE.log.
#
# Run as root on Debian (make check-distro-build installs mmdebstrap). Needs Debian's archive and,
# for the newcomer's cargo, crates.io (through the host's CA certificates).
# shellcheck disable=SC2016 # the chroot's commands are for the chroot's shell
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=$repo/target/package
suites=("${@:-trixie}")
[ $# -gt 0 ] || suites=(trixie sid)
msrv_suite=trixie

say() { printf '\n== %s\n' "$*"; }
die() {
  printf 'distro-build.sh: %s\n' "$*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot)"
command -v mmdebstrap > /dev/null || die "needs mmdebstrap (make check-distro-build installs it)"

# shellcheck source=packaging/chroot-lib.sh
. packaging/chroot-lib.sh

trap remove_roots EXIT

# A fresh minimal chroot of SUITE at a new directory, $made, with PACKAGES, /proc mounted. (Not
# in a command substitution: its subshell's `roots` would not reach remove_roots.)
made=
make_chroot() {
  local suite=$1 packages=$2 root
  root=$(mktemp -d "${TMPDIR:-/tmp}/rapidutils-$suite.XXXXXX")
  roots+=("$root")
  made=$root
  mmdebstrap --mode=root --variant=apt --quiet "${aptopts[@]}" --include="$packages" \
    --customize-hook='echo force-unsafe-io > "$1/etc/dpkg/dpkg.cfg.d/unsafe-io"' "$suite" "$root" \
    "deb $mirror $suite main" >> "$log" 2>&1 || { tail -n 20 "$log" >&2; die "mmdebstrap $suite failed"; }
  mount -t proc proc "$root/proc"
  # mmdebstrap leaves no package lists behind.
  chroot "$root" apt-get update -q >> "$log" 2>&1 || die "apt-get update in $suite failed"
}

say "source: the Debian source package"
bash packaging/dist.sh > /dev/null
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
debversion=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
source=$out/debian-source
rm -rf "$source"
mkdir -p "$source"
cp "$out/rapidutils-$version.tar.gz" "$source/rapidutils_$version.orig.tar.gz"
tar -xzf "$source/rapidutils_$version.orig.tar.gz" -C "$source"
cp -r "$source/rapidutils-$version/packaging/debian" "$source/rapidutils-$version/debian"
(cd "$source/rapidutils-$version" && dpkg-source -b . > /dev/null 2>&1) || die "dpkg-source -b failed"
rm -rf "$source/rapidutils-$version"
dsc=rapidutils_$debversion.dsc
find "$source" -maxdepth 1 -type f -printf '%f (%s bytes)\n' | sort

for suite in "${suites[@]}"; do
  log=$out/distro-$suite.log
  : > "$log"
  start=$SECONDS
  say "$suite build: a fresh chroot, Build-Depends from the archive, dpkg-buildpackage offline"
  make_chroot "$suite" build-essential,debhelper,dh-cargo,lintian
  root=$made
  mkdir -p "$root/build"
  cp "$source"/* "$root/build/"
  chroot "$root" sh -c "cd /build && apt-get build-dep -y -q ./$dsc" >> "$log" 2>&1 ||
    { tail -n 20 "$log"; die "$suite: apt-get build-dep failed"; }
  echo "$suite: $(chroot "$root" rustc --version), cargo $(chroot "$root" cargo --version | cut -d' ' -f2)," \
    "$(chroot "$root" dpkg-query -W -f '${Package} ${Version}, ' librust-clap-dev librust-libc-dev librust-memchr-dev)dh-cargo $(chroot "$root" dpkg-query -W -f '${Version}' dh-cargo)"
  chroot "$root" sh -c "cd /build && dpkg-source -x $dsc src > /dev/null && cd src && unshare -n dpkg-buildpackage -us -uc -b" \
    >> "$log" 2>&1 || { tail -n 40 "$log"; die "$suite: dpkg-buildpackage failed (log: $log)"; }
  echo "$suite: built with no network in $((SECONDS - start)) s"
  say "$suite lintian: the source and binary packages"
  chroot "$root" sh -c "cd /build && lintian --display-info rapidutils_${debversion}_*.changes $dsc" 2>&1 |
    grep -v 'root privileges' | tee -a "$log" > "$out/lintian-$suite.log" || true
  cat "$out/lintian-$suite.log"
  ! grep -q '^[EW]:' "$out/lintian-$suite.log" || die "$suite: lintian reports errors or warnings"
  echo "$suite: $(chroot "$root" lintian --version): no error, no warning"
  rm -rf "${out:?}/$suite"
  mkdir -p "$out/$suite"
  cp "$root"/build/rapidutils*_"$debversion"_*.deb "$out/$suite/"
  find "$out/$suite" -type f -printf '%f (%s bytes)\n' | sort

  if [ "$suite" = "$msrv_suite" ]; then
    say "$suite msrv: unit tests and the integration suite with $(chroot "$root" rustc --version)"
    mkdir -p "$root/src" "$root/opt/gnu-oracle"
    git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/src"
    # Debian's crates, offline; cargo resolves against them (Cargo.lock is the vendored builds').
    rm -f "$root/src/Cargo.lock"
    mkdir -p "$root/src/target/cargo-home"
    printf '[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "/usr/share/cargo/registry"\n[net]\noffline = true\n' \
      > "$root/src/target/cargo-home/config.toml"
    mount --rbind /dev "$root/dev"
    mount --make-rslave "$root/dev"
    mount -t sysfs sysfs "$root/sys"
    mount --bind -o ro /opt/gnu-oracle "$root/opt/gnu-oracle"
    chroot "$root" sh -c 'cd /src && make test-deps' >> "$log" 2>&1 || { tail -n 20 "$log"; die "$suite: make test-deps failed"; }
    # Debian's standard library names libgcc_s.so.1 in every program (and libm.so.6 where a float
    # function is called), whatever links the unwinder statically: the tests allow them.
    chroot "$root" sh -c 'cd /src && RAPIDUTILS_TEST_STD_LIBS="libgcc_s.so.1 libm.so.6 ld-linux-x86-64.so.2" \
      CARGO_HOME=/src/target/cargo-home cargo test --release' > "$out/msrv-tests-$suite.log" 2>&1 ||
      { grep -E '^test .* FAILED|panicked|^test result' "$out/msrv-tests-$suite.log" | tail -n 30
        die "$suite: the tests failed with Debian's rustc (log: $out/msrv-tests-$suite.log)"; }
    grep '^test result' "$out/msrv-tests-$suite.log"
    umount -R "$root/dev" "$root/sys" "$root/opt/gnu-oracle"
  fi

  say "$suite newcomer: make install in a fresh chroot with make alone, as root"
  make_chroot "$suite" make,ca-certificates
  fresh=$made
  mkdir -p "$fresh/src"
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$fresh/src"
  # cargo reaches the crate registry through the host's certificates (a proxy may sign for it).
  cp /etc/ssl/certs/ca-certificates.crt "$fresh/etc/ssl/certs/ca-certificates.crt"
  chroot "$fresh" sh -c 'cd /src && make install' >> "$log" 2>&1 || { tail -n 20 "$log"; die "$suite: make install failed"; }
  got=$(chroot "$fresh" sh -c 'PATH=/usr/local/bin:$PATH; { yes || true; } | head -n 2 | cat -n | wc -l; command -v cat')
  [ "$got" = "$(printf '2\n/usr/local/bin/cat')" ] || die "$suite: the installed tools printed '$got'"
  chroot "$fresh" sh -c 'cd /src && make uninstall' >> "$log" 2>&1 || die "$suite: make uninstall failed"
  [ ! -e "$fresh/usr/local/bin/rapidutils" ] || die "$suite: make uninstall left /usr/local/bin/rapidutils"
  echo "$suite: make install built with $(chroot "$fresh" rustc --version) (apt's), yes | cat -n | wc -l ran, make uninstall removed it"
  remove_roots
  roots=()
  echo "$suite: done in $((SECONDS - start)) s"
done
