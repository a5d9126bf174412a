#!/usr/bin/env bash
# rapidutils-coreutils in a real Debian system: a fresh chroot of the host's release (mmdebstrap,
# the host's apt sources), where apt installs the .debs that `make package-deb` left in
# target/package, then real package work with the swapped tools, an upgrade, and a purge that must
# give GNU's tools back byte for byte, with no diversion left; coreutils is reinstalled and
# upgraded in between.
#
# All along, a probe inside the chroot runs /usr/bin/cat, /usr/bin/wc and /usr/bin/yes in a loop
# and counts the runs that fail, and inotify watches /usr/bin for a moment when one of the three
# names is removed or renamed away (as opposed to replaced by a rename over it): both must find
# none.
#
# Run as root on Debian (make check-system-package installs mmdebstrap and inotify-tools).
# The chroot lives in a temporary directory; it is unmounted and removed however the test ends.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
out=$PWD/target/package
log=$out/chroot-test.log

say() { printf '\n== %s\n' "$*"; }
die() { printf 'chroot-test.sh: %s\n' "$*" >&2; exit 1; }

deb=$(ls "$out"/rapidutils_"$version"-*_*.deb 2> /dev/null) || die "no rapidutils .deb in $out: run make package-deb"
coredeb=$(ls "$out"/rapidutils-coreutils_"$version"-*_*.deb 2> /dev/null) || die "no rapidutils-coreutils .deb in $out"
if ! command -v mmdebstrap > /dev/null || ! command -v inotifywait > /dev/null; then
  die "needs mmdebstrap and inotifywait (make check-system-package installs them)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rapidutils-chroot.XXXXXX")
root=$work/root
probe_pid='' watch_pid=''
cleanup() {
  local status=$? m
  rm -f "$root/var/tmp/probe.run"
  [ -z "$probe_pid" ] || kill "$probe_pid" 2> /dev/null || true
  [ -z "$watch_pid" ] || kill "$watch_pid" 2> /dev/null || true
  wait 2> /dev/null || true
  # Innermost first; a mount still there after that stops the removal (rm never crosses into it).
  for m in $(findmnt -rn -o TARGET | grep -F "$root" | sort -r); do umount "$m" || umount -l "$m" || true; done
  if findmnt -rn -o TARGET | grep -F "$root" > /dev/null; then
    echo "chroot-test.sh: $root still has mounts; left in place" >&2
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$status"
}
trap cleanup EXIT

# Runs a command in the chroot as apt runs maintainer scripts: root, the standard PATH, no
# terminal.
in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
# Shows a command, then runs it in the chroot.
show() {
  if [ "$1 ${2-}" = "sh -c" ]; then printf '# %s\n' "$3"; else printf '# %s\n' "$*"; fi
  in_root "$@"
}
# Runs apt-get in the chroot and prints what dpkg did (apt's whole output goes to the log).
run_apt() {
  local before
  before=$(wc -l < "$log")
  printf '# apt-get %s\n' "$*"
  in_root apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >> "$log" 2>&1 || { tail -n 30 "$log"; die "apt-get $* failed"; }
  tail -n +"$((before + 1))" "$log" |
    grep -E "^(Unpacking|Setting up|Removing|Purging|Adding 'diversion|Removing 'diversion|Processing triggers)" |
    sed 's/^/  /' || true
}

# Each check prints what it saw; a failed one ends the test.
check() {
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else die "FAILED: $what"; fi
}
# (Whole outputs compared, not piped into grep -q: with pipefail, the writer may die of SIGPIPE.)
first_line() { local out; out=$(in_root "$@") && printf '%s\n' "${out%%$'\n'*}"; }
is_rapidutils() {
  [ "$(in_root readlink "/usr/bin/$1")" = /usr/bin/rapidutils ] &&
    [ "$(first_line "/usr/bin/$1" --version)" = "$1 (rapidutils) $version" ]
}
is_gnu() { [[ $(first_line "$1" --version) == "${1##*/} (GNU coreutils) "* ]]; }
all_rapidutils() { local t; for t in cat wc yes; do is_rapidutils "$t" || return 1; done; }
gnu_kept() { local t; for t in cat wc yes; do is_gnu "/usr/lib/rapidutils/gnu/$t" || return 1; done; }
our_diversions() { in_root dpkg-divert --list | grep -c 'by rapidutils-coreutils$' || true; }
verify_coreutils() { in_root dpkg --verify coreutils; }

: > "$log"
suite=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
say "mmdebstrap: a minimal $suite chroot with apt, from the host's sources"
# The host's Debian sources (files naming a /debian archive; others need keys the chroot lacks).
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
  [ -s "$f" ] && grep -q '/debian' "$f" && sources+=("$f")
done
aptopts=()
# Hosts whose mirror is a snapshot accept its old Release files; the chroot must too.
if apt-config dump | grep -x 'Acquire::Check-Valid-Until "false";' > /dev/null; then
  aptopts+=(--aptopt='Acquire::Check-Valid-Until "false"')
fi
start=$SECONDS
mmdebstrap --mode=root --variant=apt --quiet "${aptopts[@]}" "$suite" "$root" "${sources[@]}" >> "$log" 2>&1 ||
  { tail -n 20 "$log"; die "mmdebstrap failed"; }
echo "chroot made in $((SECONDS - start)) s: $(in_root dpkg-query -W -f '.\n' | wc -l) packages"
mount -t proc proc "$root/proc"
# mmdebstrap leaves no package lists behind.
in_root apt-get update -q >> "$log" 2>&1 || { tail -n 20 "$log"; die "apt-get update failed"; }
mkdir -p "$root/var/tmp/debs"
cp "$deb" "$coredeb" "$root/var/tmp/debs/"

# Upgrades: the same packages repacked as a later version, into the chroot's /var/tmp/debs (the
# maintainer scripts see a real upgrade: old prerm upgrade, new preinst upgrade, and so on).
repack() {
  local newver
  newver=$(dpkg-deb -f "$1" Version)+upgrade1
  rm -rf "$work/repack"
  dpkg-deb -R "$1" "$work/repack"
  sed -i "s/^Version: .*/Version: $newver/; s/^\(Depends: .*rapidutils (= \)[^)]*)/\1$newver)/" "$work/repack/DEBIAN/control"
  dpkg-deb --root-owner-group -b "$work/repack" "$root/var/tmp/debs/" > /dev/null
  rm -rf "$work/repack"
}
repack "$deb"
repack "$coredeb"
newver=$(dpkg-deb -f "$deb" Version)+upgrade1
arch=$(dpkg-deb -f "$deb" Architecture)
in_root apt-get download -q coreutils >> "$log" 2>&1 || die "apt-get download coreutils failed"
mv "$root"/coreutils_*.deb "$root/var/tmp/"
coreutils_deb=$(echo "$root"/var/tmp/coreutils_*.deb)
repack "$coreutils_deb"
coreutils_newver=$(dpkg-deb -f "$coreutils_deb" Version)+upgrade1
mkdir "$work/coreutils"
dpkg-deb -x "$coreutils_deb" "$work/coreutils"

say "probes: a loop runs /usr/bin/cat, wc and yes; inotify watches /usr/bin"
inotifywait -m -e delete,moved_from --format '%e %f' "$root/usr/bin" > "$work/events" 2> "$work/inotify.err" &
watch_pid=$!
until grep -q 'Watches established' "$work/inotify.err"; do sleep 0.1; done
cat > "$root/var/tmp/probe" << 'EOF'
#!/bin/sh
# Counts runs of the three tools and the runs that fail, while /var/tmp/probe.run is there.
runs=0 fails=0
while [ -e /var/tmp/probe.run ]; do
  runs=$((runs + 1))
  { /usr/bin/cat /etc/hostname && /usr/bin/wc -c /etc/hostname && /usr/bin/yes --version; } > /dev/null 2>&1 ||
    fails=$((fails + 1))
  echo "$runs $fails" > /var/tmp/probe.count
done
EOF
chmod 755 "$root/var/tmp/probe"
touch "$root/var/tmp/probe.run"
# Not through in_root: $! must be the probe itself (chroot and env exec it), for the kill.
chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /var/tmp/probe &
probe_pid=$!
echo "probe running"

say "install: rapidutils and rapidutils-coreutils"
run_apt install "/var/tmp/debs/$(basename "$deb")" "/var/tmp/debs/$(basename "$coredeb")"
show ls -l /usr/bin/cat /usr/bin/wc /usr/bin/yes /usr/lib/rapidutils/gnu
show dpkg-divert --list '*rapidutils*'
check "cat, wc and yes in /usr/bin are rapidutils" all_rapidutils
check "GNU's cat, wc and yes run from /usr/lib/rapidutils/gnu" gnu_kept
show sh -c '/usr/bin/cat --version | head -n 1; /usr/lib/rapidutils/gnu/cat --version | head -n 1'
check "7 diversions by rapidutils-coreutils (3 binaries, cat's /usr/bin name, 3 pages)" test "$(our_diversions)" = 7
check "dpkg --verify coreutils is clean" verify_coreutils

say "coreutils reinstalled: the diversions keep rapidutils in place"
before=$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")
run_apt install --reinstall coreutils
check "cat, wc and yes are still rapidutils" all_rapidutils
check "the reinstall wrote GNU's cat to its diverted name" test "$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")" != "$before"
gnu_copies_equal() {
  local t
  for t in bin/cat usr/bin/wc usr/bin/yes; do cmp "$work/coreutils/$t" "$root/usr/lib/rapidutils/gnu/${t##*/}" || return 1; done
}
check "GNU's copies in /usr/lib/rapidutils/gnu are byte for byte coreutils' own" gnu_copies_equal
check "dpkg --verify coreutils is clean" verify_coreutils

say "coreutils upgraded (its own .deb repacked as $coreutils_newver)"
before=$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")
run_apt install "/var/tmp/debs/coreutils_${coreutils_newver}_$(dpkg-deb -f "$coreutils_deb" Architecture).deb"
check "cat, wc and yes are still rapidutils" all_rapidutils
check "the upgrade wrote GNU's cat to its diverted name" test "$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")" != "$before"
check "GNU's copies in /usr/lib/rapidutils/gnu are byte for byte coreutils' own" gnu_copies_equal
check "dpkg --verify coreutils is clean" verify_coreutils

say "packages whose maintainer scripts and triggers run cat and wc: man-db, bash-completion, ca-certificates"
run_apt install --no-install-recommends man-db bash-completion ca-certificates
certs=$(in_root grep -c 'BEGIN CERTIFICATE' /etc/ssl/certs/ca-certificates.crt)
check "update-ca-certificates concatenated $certs certificates with rapidutils' cat" test "$certs" -gt 100
show man -w cat cat.gnu
check "man cat shows rapidutils' page" test "$(in_root readlink /usr/share/man/man1/cat.1.gz)" = rapidutils-cat.1.gz
check "man-db's trigger indexed the pages (whatis cat)" sh -c "chroot '$root' whatis cat > /dev/null"

say "work with the swapped tools"
show sh -c 'yes | head -n 100000 | cat -n | wc -l'
check "yes | head -n 100000 | cat -n | wc -l gives 100000" \
  test "$(in_root sh -c 'yes | head -n 100000 | cat -n | wc -l')" = 100000
# shellcheck disable=SC2016 # $PATH is the chroot's
check "a script with GNU's tools first on PATH runs GNU's" \
  test "$(first_line sh -c 'PATH=/usr/lib/rapidutils/gnu:$PATH; cat --version')" = \
  "$(first_line /usr/lib/rapidutils/gnu/cat --version)"

say "upgrade to $newver"
run_apt install "/var/tmp/debs/rapidutils_${newver}_$arch.deb" "/var/tmp/debs/rapidutils-coreutils_${newver}_$arch.deb"
check "cat, wc and yes are rapidutils after the upgrade" all_rapidutils
check "still 7 diversions" test "$(our_diversions)" = 7

say "purge: GNU's tools come back"
run_apt purge rapidutils-coreutils rapidutils
show ls -l /usr/bin/cat /usr/bin/wc /usr/bin/yes
byte_equal() {
  local f
  for f in usr/bin/wc usr/bin/yes bin/cat usr/share/man/man1/cat.1.gz usr/share/man/man1/wc.1.gz \
    usr/share/man/man1/yes.1.gz; do
    cmp "$work/coreutils/$f" "$root/$f" || return 1
  done
}
check "cat, wc, yes and their pages are byte for byte coreutils' own" byte_equal
check "dpkg --verify coreutils is clean" verify_coreutils
check "no diversion by rapidutils-coreutils is left" test "$(our_diversions)" = 0
check "/usr/lib/rapidutils is gone" test ! -e "$root/usr/lib/rapidutils"
show dpkg-divert --list

say "probes"
rm "$root/var/tmp/probe.run"
wait "$probe_pid"
probe_pid=
kill "$watch_pid"
wait "$watch_pid" 2> /dev/null || true
watch_pid=
read -r runs fails < "$root/var/tmp/probe.count"
echo "the probe ran cat, wc and yes $runs times during the installs, upgrades and the purge"
check "no run of cat, wc or yes failed ($fails failures)" test "$fails" = 0
gone=$(grep -E ' (cat|wc|yes)$' "$work/events" || true)
check "inotify saw none of /usr/bin/{cat,wc,yes} removed or renamed away${gone:+: $gone}" test -z "$gone"
echo "$(wc -l < "$work/events") removals and renames away in /usr/bin, none of cat, wc or yes (full apt log: $log)"
