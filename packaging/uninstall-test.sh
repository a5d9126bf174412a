#!/usr/bin/env bash
# `make install` and `make uninstall` as root in a fresh Debian chroot of each SUITE (default:
# bookworm), with a package installed between them that comes to own a directory `make install`
# created: `make uninstall` must leave that directory, and remove the other ones it created.
#
#   alone     make install (fish is not installed: it creates /etc/fish/conf.d and records it),
#             make uninstall: every file and every directory it created is gone
#   owned     make install, then apt-get install fish-common (which owns /etc/fish/conf.d),
#             make uninstall: /etc/fish/conf.d stays, dpkg still lists it as fish-common's, the
#             other directories make install created are gone
#
# The binaries are the host's release build (BINARIES=DIR, default target/release: `make build`);
# the repository's files (git ls-files) are copied into the chroot. Each SUITE's log is
# target/package/uninstall-SUITE.log. Run as root on Debian (make check-uninstall installs
# mmdebstrap). The chroots live in temporary directories, removed however the test ends.
# shellcheck disable=SC2016,SC2317 # the chroot's commands are for its shell; functions run through check and trap
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/target/package
binaries=${BINARIES:-target/release}
suites=("${@:-bookworm}")

die() {
  printf 'uninstall-test.sh: %s\n' "$*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, chroot)"
command -v mmdebstrap > /dev/null || die "needs mmdebstrap (make check-uninstall installs it)"
for t in rapidutils cat wc yes; do [ -x "$binaries/$t" ] || die "no $binaries/$t: run make build"; done

# shellcheck source=packaging/chroot-lib.sh
. packaging/chroot-lib.sh

trap remove_roots EXIT
mkdir -p "$out"

failed=0
check() {
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; failed=1; fi
}

# What make install creates in a minimal system (no fish, no bash-completion, no zsh): it must
# record these, and make uninstall must remove those no package owns.
created=(/etc/bash_completion.d /etc/fish /etc/fish/conf.d /usr/local/share/bash-completion
  /usr/local/share/bash-completion/completions /usr/local/share/fish
  /usr/local/share/fish/vendor_completions.d /usr/local/share/rapidutils /usr/local/share/zsh
  /usr/local/share/zsh/site-functions)

# In the chroot at $root, as root with a login's PATH; make TARGET there, its output to $log.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
make_in_root() { in_root sh -c "cd /src && make $1 BINARIES=/built" >> "$log" 2>&1; }
# None of the paths exists in the chroot.
absent() {
  local d
  for d in "$@"; do [ ! -e "$root$d" ] || { echo "  $d is still there"; return 1; }; done
}
# make install listed every directory of "created" as its own.
recorded() {
  local d
  for d in "${created[@]}"; do
    grep -qx "$d" "$root/usr/local/share/rapidutils/installed-directories" || { echo "  $d not recorded"; return 1; }
  done
}
# dpkg says package $2 owns path $1 (whole outputs compared, not piped into grep -q).
owner_is() { [ "$(in_root dpkg-query -S "$1" 2> /dev/null)" = "$2: $1" ]; }
# The installed tools run, and cat is the one in /usr/local/bin.
runs() {
  [ "$(in_root sh -c 'printf "a b\n" | cat -n | wc -w')" = 3 ] &&
    [ "$(in_root sh -c 'command -v cat')" = /usr/local/bin/cat ]
}

for suite in "${suites[@]}"; do
  log=$out/uninstall-$suite.log
  : > "$log"
  start=$SECONDS
  root=$(mktemp -d "${TMPDIR:-/tmp}/rapidutils-uninstall-$suite.XXXXXX")
  roots+=("$root")
  mmdebstrap --mode=root --variant=apt --quiet "${aptopts[@]}" --include=make \
    --customize-hook='echo force-unsafe-io > "$1/etc/dpkg/dpkg.cfg.d/unsafe-io"' "$suite" "$root" \
    "deb $mirror $suite main" >> "$log" 2>&1 || { tail -n 20 "$log" >&2; die "mmdebstrap $suite failed"; }
  chroot "$root" apt-get update -q >> "$log" 2>&1 || die "apt-get update in $suite failed"
  mkdir -p "$root/src" "$root/built"
  git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$root/src"
  cp "$binaries"/{rapidutils,cat,wc,yes} "$root/built/"

  echo "== $suite alone: make install, make uninstall, nothing installed between"
  check "$suite: /etc/fish/conf.d is no package's" sh -c "! chroot '$root' dpkg-query -S /etc/fish/conf.d > /dev/null 2>&1"
  check "$suite: make install" make_in_root install
  check "$suite: the tools run from /usr/local/bin" runs
  check "$suite: make install recorded the directories it created" recorded
  check "$suite: make uninstall" make_in_root uninstall
  check "$suite: every file and directory make install created is gone" \
    absent "${created[@]}" /usr/local/bin/rapidutils /usr/local/bin/cat /usr/local/share/man/man1/cat.1

  echo "== $suite owned: make install, apt-get install fish-common, make uninstall"
  check "$suite: make install" make_in_root install
  check "$suite: make install recorded the directories it created" recorded
  check "$suite: apt-get install fish-common" sh -c \
    "chroot '$root' env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends fish-common >> '$log' 2>&1"
  check "$suite: fish-common owns /etc/fish/conf.d" owner_is /etc/fish/conf.d fish-common
  check "$suite: make uninstall" make_in_root uninstall
  check "$suite: /etc/fish/conf.d stays" test -d "$root/etc/fish/conf.d"
  check "$suite: dpkg still lists it as fish-common's" owner_is /etc/fish/conf.d fish-common
  check "$suite: the directories no package owns are gone" \
    absent /etc/bash_completion.d /usr/local/share/rapidutils /usr/local/share/fish /usr/local/share/zsh \
    /usr/local/share/bash-completion /usr/local/bin/rapidutils /etc/fish/conf.d/rapidutils.fish
  grep '^kept ' "$log" | sed "s/^/  $suite: make uninstall said: /"

  remove_chroot "$root"
  roots=()
  echo "== $suite: done in $((SECONDS - start)) s (log: $log)"
done
exit "$failed"
