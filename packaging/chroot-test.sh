#!/usr/bin/env bash
# rapidutils-coreutils in a real Debian system of release SUITE (bookworm, trixie, sid, ...; by
# default the host's): a fresh chroot (mmdebstrap, Debian's archive), where apt installs the
# .debs that `make package-deb` left in target/package, and every maintainer-script path runs:
#
#   refusals  another package's diversion of /usr/bin/cat, a local one of a page, a changed or
#             missing GNU binary, a full disk: nothing changed or all undone (abort-install),
#             dpkg --audit empty, apt usable
#   crashes   dpkg killed (SIGKILL) half way through preinst install, prerm remove, postinst
#             configure and postrm remove: dpkg --audit says what to do, and what it says
#             (dpkg --configure -a, apt-get install or remove again) recovers
#   upgrades  from the previous version, 0.1.0-1 (its maintainer scripts, packaging/chroot-test/,
#             repacked with this build's files), whose diversions move: first with a full disk
#             half way (abort-upgrade: back to 0.1.0-1 as it was), then with its prerm and postrm
#             failing (failed-upgrade), a downgrade back to it and an upgrade killed half way
#   use       coreutils reinstalled and upgraded at each step (the trigger), packages whose
#             maintainer scripts run cat, GNU hello built and checked with the swapped tools, GNU
#             first on PATH, an upgrade to a later version, on bookworm coreutils upgraded to
#             trixie's (cat moves from /bin to /usr/bin)
#   purge     GNU's tools and pages byte for byte those of the coreutils .deb, nothing left
#
# All along, a probe inside the chroot runs /usr/bin/cat, /usr/bin/wc and /usr/bin/yes in a loop
# and counts the runs that fail, and inotify watches /usr/bin for a moment when one of the three
# names is removed or renamed away (as opposed to replaced by a rename over it): both must find
# none. Each case's result goes to target/package/chroot-SUITE.results; `chroot-test.sh --table
# SUITE...` prints them side by side.
#
# Run as root on Debian (make check-system-package installs mmdebstrap and inotify-tools).
# The chroot lives in a temporary directory; it is unmounted and removed however the test ends.
# shellcheck disable=SC2016 # dpkg-query formats and the chroot's $PATH are for dpkg-query and sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=$repo/target/package

# Every case, in the order they run: a name for the table and what it checks.
cases=(
  "foreign:another package's diversion (rename) and a local one: refused, nothing changed"
  "unexpected:GNU's wc changed, GNU's yes missing: refused, nothing changed"
  "full-disk:a full disk in preinst: abort-install undoes it"
  "kill-preinst:dpkg killed in preinst install, then apt installs"
  "install:installed: GNU's tools kept under their own names, 7 diversions"
  "coreutils:coreutils reinstalled and upgraded: the links stay, GNU's copies follow"
  "kill-prerm:dpkg killed in prerm remove, then dpkg --configure -a and apt remove"
  "kill-postinst:dpkg killed in postinst configure, then dpkg --configure -a"
  "kill-postrm:dpkg killed in postrm remove, then apt remove; purge leaves nothing"
  "old-install:0.1.0-1 installed (the previous version)"
  "abort-upgrade:upgrade from 0.1.0-1 with a full disk half way: 0.1.0-1 as it was"
  "failed-upgrade:upgrade from 0.1.0-1 whose prerm and postrm fail"
  "downgrade:downgrade to 0.1.0-1 and back, the upgrade killed half way"
  "packages:man-db, bash-completion, ca-certificates installed with the swapped tools"
  "hello:GNU hello: configure, make, make check with the swapped tools"
  "gnu-path:GNU first on PATH runs GNU's tools, which name themselves"
  "upgrade:an upgrade of both packages to a later version"
  "usr-move:coreutils upgraded to trixie's (cat from /bin to /usr/bin)"
  "purge:purge: GNU's files byte for byte, no diversion, nothing left"
  "probes:no run of cat, wc or yes failed; none was ever missing"
)

# --suites JOBS SUITE...: each SUITE in a run of its own, JOBS at a time, its output in
# target/package/chroot-test-SUITE.out (a line when it ends, and one a failure, with the end
# of that output where it failed); then the table. Fails when a case failed on any release.
if [ "${1-}" = --suites ]; then
  jobs=$2
  shift 2
  start=$SECONDS
  declare -A pid
  for s in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
    echo "== $s: started ($((SECONDS - start)) s; output in $out/chroot-test-$s.out)"
    bash "$0" "$s" > "$out/chroot-test-$s.out" 2>&1 &
    pid[$s]=$!
  done
  for s in "$@"; do
    if wait "${pid[$s]}"; then
      echo "== $s: every case ok ($((SECONDS - start)) s)"
    else
      echo "== $s: FAILED ($((SECONDS - start)) s; its output: $out/chroot-test-$s.out)"
      grep -E '^(FAILED: |chroot-test\.sh \[)' "$out/chroot-test-$s.out" || tail -n 15 "$out/chroot-test-$s.out"
    fi
  done
  echo
  echo "== rapidutils-coreutils by release: $* ($((SECONDS - start)) s, $jobs at a time)"
  exec bash "$0" --table "$@"
fi

if [ "${1-}" = --table ]; then
  shift
  # The results of each SUITE's last run, one column each.
  printf '%-15s' case
  for s in "$@"; do printf ' %-9s' "$s"; done
  printf '\n'
  failed=0
  for c in "${cases[@]}"; do
    name=${c%%:*}
    printf '%-15s' "$name"
    for s in "$@"; do
      r=$(sed -n "s/^$name //p" "$out/chroot-$s.results" 2> /dev/null | tail -n1)
      printf ' %-9s' "${r:-not-run}"
      case "${r:-not-run}" in ok | n/a) ;; *) failed=1 ;; esac
    done
    printf '  %s\n' "${c#*:}"
  done
  exit "$failed"
fi

suite=${1:-$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)}
# shellcheck source=packaging/chroot-lib.sh
. packaging/chroot-lib.sh
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
debversion=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
log=$out/chroot-test-$suite.log
results=$out/chroot-$suite.results

say() { printf '\n== %s\n' "$*"; }
current=''
die() {
  printf 'chroot-test.sh [%s]: %s\n' "$suite" "$*" >&2
  [ -z "$current" ] || echo "$current FAILED" >> "$results"
  current=''
  exit 1
}
# Starts case NAME; the previous one, if any, passed.
begin() {
  [ -z "$current" ] || echo "$current ok" >> "$results"
  current=$1
  # Where the probe's count of runs stands: a failed run is told with its case.
  echo "$1 $(cat "$root/var/tmp/probe.count" 2> /dev/null || echo 0)" >> "$work/case-runs"
  local c
  for c in "${cases[@]}"; do [ "${c%%:*}" != "$1" ] || say "$1: ${c#*:} ($SECONDS s)"; done
}

# The .debs: make package-deb's, or those of DEBS (a directory; @SUITE@ stands for the release,
# as make check-distro-build leaves Debian's own builds in target/package/SUITE).
debs=${DEBS:-$out}
debs=$(cd "${debs//@SUITE@/$suite}" 2> /dev/null && pwd) || die "no directory ${DEBS//@SUITE@/$suite}"
deb=$debs/rapidutils_${debversion}_amd64.deb
coredeb=$debs/rapidutils-coreutils_${debversion}_amd64.deb
if [ ! -e "$deb" ] || [ ! -e "$coredeb" ]; then
  die "no rapidutils $debversion .debs in $debs: run make package-deb"
fi
if ! command -v mmdebstrap > /dev/null || ! command -v inotifywait > /dev/null; then
  die "needs mmdebstrap and inotifywait (make check-system-package installs them)"
fi

: > "$results"
: > "$log"
work=$(mktemp -d "${TMPDIR:-/tmp}/rapidutils-chroot.XXXXXX")
root=$work/root
probe_pid='' watch_pid=''
cleanup() {
  local status=$?
  [ -z "$current" ] || [ "$status" = 0 ] || echo "$current FAILED" >> "$results"
  rm -f "$root/var/tmp/probe.run"
  [ -z "$probe_pid" ] || kill "$probe_pid" 2> /dev/null || true
  [ -z "$watch_pid" ] || kill "$watch_pid" 2> /dev/null || true
  wait 2> /dev/null || true
  remove_chroot "$work"
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
# What dpkg did in the lines of the log from line $1 on, with rapidutils, coreutils and the
# diversions; the other packages are counted.
dpkg_did() {
  tail -n +"$(($1 + 1))" "$log" > "$work/did"
  grep -E "^((Unpacking|Setting up|Removing|Purging configuration files for|Processing triggers for) (rapidutils|coreutils)|(Adding|Removing|Leaving) '(local )?diversion|rapidutils-coreutils:|(cp|ln|mv|mkdir|rm|dpkg-divert): )" \
    "$work/did" | grep -v "^Leaving 'diversion" | sed 's/^/  /' || true
  local others
  others=$(grep -E '^Setting up ' "$work/did" | grep -cvE '^Setting up (rapidutils|coreutils)' || true)
  [ "$others" = 0 ] || echo "  (and $others other packages set up)"
}
# Runs apt-get in the chroot and prints what dpkg did (apt's whole output goes to the log, and
# to $said).
said=''
run_apt() {
  local before
  before=$(wc -l < "$log")
  printf '# apt-get %s\n' "$*"
  in_root apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >> "$log" 2>&1 || { tail -n 30 "$log"; die "apt-get $* failed"; }
  said=$(tail -n +"$((before + 1))" "$log")
  dpkg_did "$before"
}
# Runs apt-get, which must fail, the same way.
apt_fails() {
  local before
  before=$(wc -l < "$log")
  printf '# apt-get %s (must fail)\n' "$*"
  if in_root apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >> "$log" 2>&1; then die "apt-get $* did not fail"; fi
  said=$(tail -n +"$((before + 1))" "$log")
  dpkg_did "$before"
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
# Whether PATH runs GNU's TOOL (by default, PATH's name).
is_gnu() { local t=${2:-${1##*/}}; [[ $(first_line "$1" --version) == "$t (GNU coreutils) "* ]]; }
all_rapidutils() { local t; for t in cat wc yes; do is_rapidutils "$t" || return 1; done; }
all_gnu() { local t; for t in cat wc yes; do [ ! -L "$root/usr/bin/$t" ] && is_gnu "/usr/bin/$t" || return 1; done; }
gnu_kept() { local t; for t in cat wc yes; do is_gnu "/usr/lib/rapidutils/gnu/$t" || return 1; done; }
our_diversions() { in_root dpkg-divert --list | grep 'by rapidutils-coreutils$' | sort || true; }
# The diversions of this version, and of 0.1.0-1.
diversions() {
  local g=/usr/lib/rapidutils/gnu m=/usr/share/man/man1 t
  if [ "$1" = new ]; then
    echo "diversion of /usr/bin/cat to $g/cat by rapidutils-coreutils"
    echo "diversion of /bin/cat to $g/bin/cat by rapidutils-coreutils"
  else
    echo "diversion of /bin/cat to $g/cat by rapidutils-coreutils"
    echo "diversion of /usr/bin/cat to $g/cat.usr-is-merged by rapidutils-coreutils"
  fi
  for t in wc yes; do echo "diversion of /usr/bin/$t to $g/$t by rapidutils-coreutils"; done
  for t in cat wc yes; do echo "diversion of $m/$t.1.gz to $m/$t.gnu.1.gz by rapidutils-coreutils"; done
}
diversions_are() { [ "$(our_diversions)" = "$(diversions "$1" | sort)" ]; }
verify_coreutils() { in_root dpkg --verify coreutils; }
audit_clean() { [ -z "$(in_root dpkg --audit)" ]; }
status_is() { [ "$(in_root dpkg-query -W -f '${db:Status-Abbrev}${Version}' "$1" 2> /dev/null)" = "$2" ]; }
# (The second letter of the status: n, not installed.)
not_installed() { [[ $(in_root dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2> /dev/null || true) != ?[^n]* ]]; }
# apt works: it plans an install and finds nothing to fix.
apt_works() { in_root apt-get -s -q install --reinstall coreutils > /dev/null && in_root apt-get -q check > /dev/null; }
# The files of the coreutils .deb installed now: $cu (extracted), with cat at $cu_cat.
cu='' cu_cat=''
use_coreutils_deb() {
  rm -rf "$work/coreutils"
  mkdir "$work/coreutils"
  dpkg-deb -x "$1" "$work/coreutils"
  cu=$work/coreutils
  cu_cat=usr/bin/cat
  [ -e "$cu/$cu_cat" ] || cu_cat=bin/cat
}
gnu_copies_equal() {
  cmp "$cu/$cu_cat" "$root/usr/lib/rapidutils/gnu/cat" && cmp "$cu/usr/bin/wc" "$root/usr/lib/rapidutils/gnu/wc" &&
    cmp "$cu/usr/bin/yes" "$root/usr/lib/rapidutils/gnu/yes"
}
byte_equal() {
  local f
  for f in usr/bin/wc usr/bin/yes "$cu_cat" usr/share/man/man1/cat.1.gz usr/share/man/man1/wc.1.gz \
    usr/share/man/man1/yes.1.gz; do
    cmp "$cu/$f" "$root/$f" || return 1
  done
}
# The checks of an installed rapidutils-coreutils VERSION.
installed() {
  check "rapidutils-coreutils $1 is installed" status_is rapidutils-coreutils "ii $1"
  check "cat, wc and yes in /usr/bin are rapidutils" all_rapidutils
  check "GNU's cat, wc and yes run from /usr/lib/rapidutils/gnu" gnu_kept
  check "GNU's copies there are byte for byte coreutils' own" gnu_copies_equal
  check "the 7 diversions of this version" diversions_are new
  check "dpkg --verify coreutils is clean" verify_coreutils
  check "dpkg --audit is empty" audit_clean
}
# The checks of a system without rapidutils-coreutils: GNU's tools back, nothing of ours left.
clean() {
  check "cat, wc and yes in /usr/bin are GNU's files" all_gnu
  check "cat, wc, yes and their pages are byte for byte coreutils' own" byte_equal
  check "no diversion by rapidutils-coreutils" test -z "$(our_diversions)"
  check "/usr/lib/rapidutils/gnu is gone" test ! -e "$root/usr/lib/rapidutils/gnu"
  check "dpkg --verify coreutils is clean" verify_coreutils
  check "dpkg --audit is empty" audit_clean
  check "apt works" apt_works
}
coreutils_reinstalled() {
  run_apt install --reinstall coreutils
  check "dpkg --verify coreutils is clean after the reinstall" verify_coreutils
  check "dpkg --audit is empty after the reinstall" audit_clean
}

# Fault injection: packaging/chroot-test/fault as dpkg-divert, ln, cp, mv, rm and mkdir first on
# the PATH of one dpkg run; its Nth call that changes something fails (enospc) or kills dpkg and
# the script (kill). fault_at SCRIPT CALL prints N for the first call of the maintainer script
# SCRIPT whose command line starts with CALL, from a run without faults logged by fault_log.
fault_log() {
  rm -rf "$root/var/tmp/fault"
  mkdir -p "$root/var/tmp/fault/bin"
  cp packaging/chroot-test/fault "$root/var/tmp/fault/bin/fault"
  local t
  for t in dpkg-divert ln cp mv rm mkdir; do ln -s fault "$root/var/tmp/fault/bin/$t"; done
  echo "$1" > "$root/var/tmp/fault/at"
  echo "$2" > "$root/var/tmp/fault/how"
}
fault_at() {
  local n
  n=$(grep -m1 -F " $1 $2" "$work/fault.learned" | cut -d' ' -f1)
  [ -n "$n" ] || die "no call '$2' in $1 to inject a fault at"
  echo "$n"
}
# Runs dpkg ARGS in the chroot with the faults set by fault_log, as a process group of its own
# (setsid), so that a kill takes dpkg and the maintainer script together, as a crash would.
# Prints what dpkg said; its status is $dpkg_status.
dpkg_status=0
faulty_dpkg() {
  local before
  before=$(wc -l < "$log")
  printf '# dpkg %s (fault: %s at the %sth change)\n' "$*" "$(cat "$root/var/tmp/fault/how")" "$(cat "$root/var/tmp/fault/at")"
  rm -f "$root/var/tmp/fault/count" "$root/var/tmp/fault/log"
  dpkg_status=0
  chroot "$root" /usr/bin/env -i PATH=/var/tmp/fault/bin:/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive setsid -w dpkg "$@" >> "$log" 2>&1 || dpkg_status=$?
  # apt's cache is rebuilt when dpkg's status file changes size or time, which an upgrade
  # from 0.1.0-1 to 0.1.0-2 within the same second does not change: it goes.
  rm -f "$root"/var/cache/apt/*.bin
  said=$(tail -n +"$((before + 1))" "$log")
  dpkg_did "$before"
  tail -n1 "$root/var/tmp/fault/log" | sed 's/^/  fault log: /'
}
# The learning run: the same dpkg ARGS with no fault, whose calls fault_at reads.
logged_dpkg() {
  fault_log 0 none
  faulty_dpkg "$@"
  [ "$dpkg_status" = 0 ] || { tail -n 20 "$log"; die "dpkg $* failed"; }
  cp "$root/var/tmp/fault/log" "$work/fault.learned"
}
# dpkg ARGS in the chroot, which must succeed.
plain_dpkg() {
  printf '# dpkg %s\n' "$*"
  in_root dpkg "$@" >> "$log" 2>&1 || { tail -n 20 "$log"; die "dpkg $* failed"; }
  rm -f "$root"/var/cache/apt/*.bin
}
said_has() { [[ $said == *"$1"* ]]; }

# What /usr/lib/rapidutils/gnu holds: names, inodes, sizes.
gnu_dir() { (cd "$root/usr/lib/rapidutils/gnu" 2> /dev/null && find . -printf '%p %i %s\n' | sort) || true; }

say "mmdebstrap: a minimal $suite chroot with apt, from $mirror"
start=$SECONDS
# With what GNU hello's build needs; dpkg without fsync (nothing here outlives the test, and a
# killed dpkg loses nothing to it: the page cache stays).
mmdebstrap --mode=root --variant=apt --quiet "${aptopts[@]}" --include=gcc,make,libc6-dev,xz-utils \
  --customize-hook='echo force-unsafe-io > "$1/etc/dpkg/dpkg.cfg.d/unsafe-io"' "$suite" "$root" \
  "deb $mirror $suite main" "deb-src $mirror $suite main" >> "$log" 2>&1 ||
  { tail -n 20 "$log"; die "mmdebstrap failed"; }
echo "chroot made in $((SECONDS - start)) s: $(in_root dpkg-query -W -f '.\n' | wc -l) packages," \
  "coreutils $(in_root dpkg-query -W -f '${Version}' coreutils), dpkg $(in_root dpkg-query -W -f '${Version}' dpkg)"
mount -t proc proc "$root/proc"
# mmdebstrap leaves no package lists behind.
in_root apt-get update -q >> "$log" 2>&1 || { tail -n 20 "$log"; die "apt-get update failed"; }
mkdir -p "$root/var/tmp/debs"
cp "$deb" "$coredeb" "$root/var/tmp/debs/"
deb=/var/tmp/debs/${deb##*/}
coredeb=/var/tmp/debs/${coredeb##*/}

# Other versions of the packages, into the chroot's /var/tmp/debs, so that the maintainer
# scripts see real upgrades (old prerm upgrade, new preinst upgrade, and so on): repack DEB
# VERSION [SCRIPTS] gives DEB that version (and the rapidutils it depends on), with SCRIPTS'
# maintainer scripts when given; the previous version's scripts fail on purpose when
# /var/tmp/fail-SCRIPT-ARGUMENT exists (failed-upgrade).
repack() {
  rm -rf "$work/repack"
  dpkg-deb -R "$root$1" "$work/repack"
  sed -i "s/^Version: .*/Version: $2/; s/^\(Depends: .*rapidutils (= \)[^)]*)/\1$2)/" "$work/repack/DEBIAN/control"
  if [ -n "${3-}" ]; then
    rm -f "$work/repack/DEBIAN/triggers"
    local s
    for s in preinst postinst prerm postrm; do
      # shellcheck disable=SC2016 # for the script
      sed '/^set -e$/a [ ! -e "/var/tmp/fail-$DPKG_MAINTSCRIPT_NAME-$1" ] || { echo "$DPKG_MAINTSCRIPT_NAME $1: failing on purpose" >&2; exit 1; }' \
        "$3/$s" > "$work/repack/DEBIAN/$s"
      chmod 755 "$work/repack/DEBIAN/$s"
    done
  fi
  dpkg-deb --root-owner-group -Zgzip -z1 -b "$work/repack" "$root/var/tmp/debs/" > /dev/null
  rm -rf "$work/repack"
}
arch=$(dpkg-deb -f "$root$deb" Architecture)
newver=$debversion+upgrade1
repack "$deb" "$newver"
repack "$coredeb" "$newver"
repack "$deb" 0.1.0-1
repack "$coredeb" 0.1.0-1 packaging/chroot-test/rapidutils-coreutils-0.1.0-1
olddebs=("/var/tmp/debs/rapidutils_0.1.0-1_$arch.deb" "/var/tmp/debs/rapidutils-coreutils_0.1.0-1_$arch.deb")
in_root sh -c 'cd /var/tmp && apt-get download -q coreutils' >> "$log" 2>&1 || die "apt-get download coreutils failed"
coreutils_deb=$(echo "$root"/var/tmp/coreutils_*.deb)
repack "${coreutils_deb#"$root"}" "$(dpkg-deb -f "$coreutils_deb" Version)+upgrade1"
coreutils_newdeb=/var/tmp/debs/coreutils_$(dpkg-deb -f "$coreutils_deb" Version)+upgrade1_$arch.deb
use_coreutils_deb "$coreutils_deb"

run_apt install "$deb"

begin foreign
# Another package diverts /usr/bin/cat with --rename, as one that ships its own cat would.
show dpkg-divert --package other --divert /usr/bin/cat.other --rename --add /usr/bin/cat
apt_fails install "$coredeb"
check "the refusal names the other package and the path" \
  said_has "rapidutils-coreutils: /usr/bin/cat is already diverted by package 'other' (to /usr/bin/cat.other)"
check "rapidutils-coreutils is not installed" not_installed rapidutils-coreutils
check "the other package's diversion is untouched" \
  test "$(in_root dpkg-divert --listpackage /usr/bin/cat) $(in_root dpkg-divert --truename /usr/bin/cat)" = "other /usr/bin/cat.other"
check "GNU's cat is still at /usr/bin/cat.other" is_gnu /usr/bin/cat.other cat
check "no diversion by rapidutils-coreutils" test -z "$(our_diversions)"
check "nothing in /usr/lib/rapidutils/gnu" test ! -e "$root/usr/lib/rapidutils/gnu"
check "dpkg --audit is empty" audit_clean
check "apt works" apt_works
show dpkg-divert --package other --rename --remove /usr/bin/cat
show dpkg-divert --local --no-rename --add /usr/share/man/man1/yes.1.gz
apt_fails install "$coredeb"
check "the refusal names the local diversion" \
  said_has "rapidutils-coreutils: /usr/share/man/man1/yes.1.gz is already diverted by a local diversion"
show dpkg-divert --local --no-rename --remove /usr/share/man/man1/yes.1.gz
clean

begin unexpected
# A binary that is not the one coreutils installed would be kept as GNU's: refused.
cp -p "$root/usr/bin/wc" "$work/wc"
printf '\n' >> "$root/usr/bin/wc"
apt_fails install "$coredeb"
check "the refusal says wc is not coreutils' file" \
  said_has "rapidutils-coreutils: /usr/bin/wc is not the wc that coreutils installed (its checksum differs)"
check "rapidutils-coreutils is not installed" not_installed rapidutils-coreutils
check "nothing in /usr/lib/rapidutils/gnu" test ! -e "$root/usr/lib/rapidutils/gnu"
mv "$work/wc" "$root/usr/bin/wc"
mv "$root/usr/bin/yes" "$work/yes"
apt_fails install "$coredeb"
check "the refusal says GNU's yes is missing" said_has "rapidutils-coreutils: GNU's yes is neither at /usr/bin/yes nor in"
check "rapidutils-coreutils is not installed" not_installed rapidutils-coreutils
mv "$work/yes" "$root/usr/bin/yes"
clean

say "probes: a loop runs /usr/bin/cat, wc and yes; inotify watches /usr/bin"
inotifywait -m -e delete,moved_from --format '%e %f' "$root/usr/bin" > "$work/events" 2> "$work/inotify.err" &
watch_pid=$!
until grep -q 'Watches established' "$work/inotify.err"; do sleep 0.1; done
cat > "$root/var/tmp/probe" << 'EOF'
#!/bin/sh
# Counts runs of the three tools and the runs that fail (each told in probe.failures), while
# /var/tmp/probe.run is there; goes on from the counts it left.
read -r runs fails < /var/tmp/probe.count
while [ -e /var/tmp/probe.run ]; do
  runs=$((runs + 1))
  if ! said=$({ /usr/bin/cat /etc/hostname && /usr/bin/wc -c /etc/hostname && /usr/bin/yes --version; } 2>&1 > /dev/null); then
    fails=$((fails + 1))
    echo "$runs $said" >> /var/tmp/probe.failures
  fi
  echo "$runs $fails" > /var/tmp/probe.count
done
EOF
chmod 755 "$root/var/tmp/probe"
echo "0 0" > "$root/var/tmp/probe.count"
probe_start() {
  touch "$root/var/tmp/probe.run"
  # Not through in_root: $! must be the probe itself (chroot, env and nice exec it), for the kill.
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin nice -n 10 /var/tmp/probe &
  probe_pid=$!
}
probe_stop() {
  rm "$root/var/tmp/probe.run"
  wait "$probe_pid"
  probe_pid=
}
probe_start
echo "probe running"

begin full-disk
# A file system of 64 KiB where GNU's copies go: a hard link cannot reach it, and a copy of the
# second binary finds it full.
mkdir -p "$root/usr/lib/rapidutils/gnu"
mount -t tmpfs -o size=64k tmpfs "$root/usr/lib/rapidutils/gnu"
apt_fails install "$coredeb"
check "the failure says the disk is full and which binary could not be kept" \
  said_has "No space left on device"
said_has "rapidutils-coreutils: could not keep GNU's" || die "FAILED: the failure names what could not be kept"
check "rapidutils-coreutils is not installed (abort-install undid preinst)" not_installed rapidutils-coreutils
check "nothing left on the full file system" test -z "$(ls -A "$root/usr/lib/rapidutils/gnu")"
umount "$root/usr/lib/rapidutils/gnu"
rmdir "$root/usr/lib/rapidutils/gnu"
clean
coreutils_reinstalled

begin kill-preinst
logged_dpkg -i "$coredeb"
plain_dpkg -r rapidutils-coreutils
at=$(fault_at preinst "dpkg-divert --package rapidutils-coreutils --no-rename --divert /usr/lib/rapidutils/gnu/wc --add")
fault_log "$at" kill
faulty_dpkg -i "$coredeb"
check "dpkg was killed" test "$dpkg_status" = 137
show dpkg --audit
check "dpkg --audit says rapidutils-coreutils must be reinstalled" sh -c "chroot '$root' dpkg --audit | grep -q 'must be reinstalled'"
check "cat, wc and yes are GNU's" all_gnu
show dpkg --configure -a
run_apt install --reinstall "$coredeb"

begin install
installed "$debversion"
show ls -l /usr/bin/cat /usr/bin/wc /usr/bin/yes
show ls -liR /usr/lib/rapidutils/gnu
show dpkg-divert --list '*rapidutils*'

begin coreutils
before=$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")
coreutils_reinstalled
check "cat, wc and yes are still rapidutils" all_rapidutils
check "the reinstall wrote GNU's cat, under its own name too" test "$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")" != "$before"
check "GNU's copies are byte for byte coreutils' own" gnu_copies_equal
before=$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")
run_apt install "$coreutils_newdeb"
use_coreutils_deb "$root$coreutils_newdeb"
installed "$debversion"
check "the upgrade wrote GNU's cat, under its own name too" test "$(stat -c %i "$root/usr/lib/rapidutils/gnu/cat")" != "$before"
# Back to the archive's version (a downgrade), which apt can reinstall at the next steps.
run_apt install --allow-downgrades "coreutils=$(dpkg-deb -f "$coreutils_deb" Version)"
use_coreutils_deb "$coreutils_deb"
installed "$debversion"

begin kill-prerm
logged_dpkg -r rapidutils-coreutils
clean
plain_dpkg -i "$coredeb"
fault_log "$(fault_at prerm "mv -fT /usr/bin/wc.rapidutils-tmp")" kill
faulty_dpkg -r rapidutils-coreutils
check "dpkg was killed" test "$dpkg_status" = 137
show dpkg --audit
check "dpkg --audit names rapidutils-coreutils" sh -c "chroot '$root' dpkg --audit | grep -q '^ rapidutils-coreutils '"
show dpkg --configure -a
run_apt remove rapidutils-coreutils
clean
check "rapidutils-coreutils is removed, its configuration kept" status_is rapidutils-coreutils "rc $debversion"
coreutils_reinstalled

begin kill-postinst
logged_dpkg -i "$coredeb"
plain_dpkg -r rapidutils-coreutils
fault_log "$(fault_at postinst "mv -fT /usr/bin/wc.rapidutils-tmp")" kill
faulty_dpkg -i "$coredeb"
check "dpkg was killed" test "$dpkg_status" = 137
show dpkg --audit
check "dpkg --audit names rapidutils-coreutils" sh -c "chroot '$root' dpkg --audit | grep -q '^ rapidutils-coreutils '"
show dpkg --configure -a
installed "$debversion"

begin kill-postrm
logged_dpkg -r rapidutils-coreutils
plain_dpkg -i "$coredeb"
fault_log "$(fault_at postrm "dpkg-divert --package rapidutils-coreutils --no-rename --divert /usr/lib/rapidutils/gnu/wc --remove")" kill
faulty_dpkg -r rapidutils-coreutils
check "dpkg was killed" test "$dpkg_status" = 137
show dpkg --audit
check "dpkg --audit names rapidutils-coreutils" sh -c "chroot '$root' dpkg --audit | grep -q '^ rapidutils-coreutils '"
check "cat, wc and yes are GNU's" all_gnu
show dpkg --configure -a
# apt removes a half-installed package (dpkg --remove, as dpkg --audit says); a second purge
# purges it.
run_apt purge rapidutils-coreutils
clean
check "rapidutils-coreutils is removed, its configuration kept" status_is rapidutils-coreutils "rc $debversion"
run_apt purge rapidutils-coreutils
check "rapidutils-coreutils is purged" not_installed rapidutils-coreutils

begin old-install
run_apt install --allow-downgrades "${olddebs[@]}"
check "rapidutils-coreutils 0.1.0-1 is installed" status_is rapidutils-coreutils "ii 0.1.0-1"
check "cat, wc and yes are rapidutils" all_rapidutils
check "the 7 diversions of 0.1.0-1" diversions_are old
coreutils_reinstalled
show ls -liR /usr/lib/rapidutils/gnu

begin abort-upgrade
# A full disk at three points of the upgrade's preinst: its first move of a copy, its first new
# diversion, and its last step, once the binaries' diversions moved. Each time 0.1.0-1 must be
# left as it was.
logged_dpkg -i "$deb" "$coredeb"
run_apt install --allow-downgrades "${olddebs[@]}"
check "the 7 diversions of 0.1.0-1 (a downgrade brought them back)" diversions_are old
state=$(gnu_dir; our_diversions)
for call in "mv -fT /usr/lib/rapidutils/gnu/" \
  "dpkg-divert --package rapidutils-coreutils --no-rename --divert /usr/lib/rapidutils/gnu/cat --add" \
  "dpkg-divert --package rapidutils-coreutils --no-rename --divert /usr/share/man/man1/yes.gnu.1.gz"; do
  fault_log "$(fault_at preinst "$call")" enospc
  faulty_dpkg -i "$deb" "$coredeb"
  check "the upgrade failed" test "$dpkg_status" != 0
  check "rapidutils-coreutils 0.1.0-1 is installed, as it was" status_is rapidutils-coreutils "ii 0.1.0-1"
  check "its diversions and GNU's copies are as they were" test "$(gnu_dir; our_diversions)" = "$state"
  check "cat, wc and yes are rapidutils" all_rapidutils
  check "dpkg --audit is empty" audit_clean
  # rapidutils 0.1.0-2 was unpacked, which rapidutils-coreutils 0.1.0-1 does not go with: back
  # to 0.1.0-1.
  plain_dpkg -i "${olddebs[0]}"
done
check "apt works" apt_works
coreutils_reinstalled

begin failed-upgrade
touch "$root/var/tmp/fail-prerm-upgrade" "$root/var/tmp/fail-postrm-upgrade"
run_apt install "$deb" "$coredeb"
check "0.1.0-1's prerm upgrade failed (this version's prerm failed-upgrade took over)" said_has "prerm upgrade: failing on purpose"
check "0.1.0-1's postrm upgrade failed (this version's postrm failed-upgrade took over)" said_has "postrm upgrade: failing on purpose"
rm "$root/var/tmp/fail-prerm-upgrade" "$root/var/tmp/fail-postrm-upgrade"
installed "$debversion"
check "no copy of 0.1.0-1 is left" test ! -e "$root/usr/lib/rapidutils/gnu/cat.usr-is-merged"

begin downgrade
run_apt install --allow-downgrades "${olddebs[@]}"
check "rapidutils-coreutils 0.1.0-1 is installed" status_is rapidutils-coreutils "ii 0.1.0-1"
check "the 7 diversions of 0.1.0-1" diversions_are old
check "cat, wc and yes are rapidutils" all_rapidutils
logged_dpkg -i "$deb" "$coredeb"
run_apt install --allow-downgrades "${olddebs[@]}"
fault_log "$(fault_at preinst "dpkg-divert --package rapidutils-coreutils --no-rename --divert /usr/lib/rapidutils/gnu/bin/cat --add")" kill
faulty_dpkg -i "$deb" "$coredeb"
check "dpkg was killed" test "$dpkg_status" = 137
show dpkg --audit
check "cat, wc and yes are rapidutils" all_rapidutils
show dpkg --configure -a
run_apt install "$deb" "$coredeb"
installed "$debversion"
coreutils_reinstalled

begin packages
run_apt install --no-install-recommends man-db bash-completion ca-certificates
certs=$(in_root grep -c 'BEGIN CERTIFICATE' /etc/ssl/certs/ca-certificates.crt)
check "update-ca-certificates concatenated $certs certificates with rapidutils' cat" test "$certs" -gt 100
show man -w cat cat.gnu
check "man cat shows rapidutils' page" test "$(in_root readlink /usr/share/man/man1/cat.1.gz)" = rapidutils-cat.1.gz
check "man-db's trigger indexed the pages (whatis cat)" sh -c "chroot '$root' whatis cat > /dev/null"

begin hello
# GNU hello's own release (Debian's orig tarball), built the way its README says, by make,
# the shell and the swapped cat, wc and yes; configure again with GNU's first on PATH must write
# the same files.
# The upstream tarball alone (apt-get source would fetch Debian's changes too, and unpack them with
# dpkg-source), checked against the hash in the archive's signed index.
read -r uri orig _ hash < <(in_root apt-get source -q --print-uris hello | grep "\.orig\.tar\." | tr -d "'") ||
  die "no source of hello in $suite"
mkdir -p "$root/var/tmp/hello"
in_root /usr/lib/apt/apt-helper download-file "$uri" "/var/tmp/hello/$orig" "$hash" >> "$log" 2>&1 ||
  die "downloading $uri failed"
echo "$orig ($hash)"
build() {
  # shellcheck disable=SC2016 # $PATH is the chroot's
  in_root sh -c "set -e; mkdir -p /var/tmp/hello/$1 && cd /var/tmp/hello/$1 && tar -xf ../$orig --strip-components=1
    ${2:+PATH=/usr/lib/rapidutils/gnu:\$PATH; }./configure --quiet > /dev/null && $3" >> "$log" 2>&1
}
start=$SECONDS
before=$(wc -l < "$log")
build swapped '' 'make -s > /dev/null && make -s check' || { tail -n 40 "$log"; die "FAILED: hello's build or make check"; }
tail -n +"$((before + 1))" "$log" | grep -E '^(# [A-Z]+: |PASS|FAIL|All )' | sed 's/^/  /' || true
echo "ok: hello: configure, make, make check passed in $((SECONDS - start)) s"
check "the hello it built greets" test "$(in_root /var/tmp/hello/swapped/hello)" = "Hello, world!"
build gnu gnu true || { tail -n 40 "$log"; die "FAILED: hello's configure with GNU's tools first on PATH"; }
same_configure() {
  local h=$root/var/tmp/hello
  cmp "$h/swapped/config.h" "$h/gnu/config.h" && diff <(sed 's,/swapped,/gnu,g' "$h/swapped/Makefile") "$h/gnu/Makefile"
}
check "configure wrote the same config.h and Makefile with GNU's tools" same_configure
rm -rf "$root/var/tmp/hello"

begin gnu-path
# shellcheck disable=SC2016 # $PATH is the chroot's
gnu_first() { in_root sh -c 'PATH=/usr/lib/rapidutils/gnu:$PATH; '"$1" 2>&1 || true; }
show sh -c 'PATH=/usr/lib/rapidutils/gnu:$PATH; cat --version | head -n1; cat /nonexistent; wc /nonexistent; yes --badopt' || true
for t in cat wc yes; do
  check "GNU first on PATH: $t is GNU's" test "$(gnu_first "$t --version | head -n1")" = "$(first_line "/usr/lib/rapidutils/gnu/$t" --version)"
done
check "GNU's cat names itself cat" test "$(gnu_first 'cat /nonexistent')" = "cat: /nonexistent: No such file or directory"
check "GNU's wc names itself wc" test "$(gnu_first 'wc /nonexistent')" = "wc: /nonexistent: No such file or directory"
check "GNU's yes names itself yes" sh -c "chroot '$root' sh -c 'PATH=/usr/lib/rapidutils/gnu:\$PATH yes --badopt' 2>&1 | grep -q \"^yes: unrecognized option '--badopt'\""
check "yes | head -n 100000 | cat -n | wc -l gives 100000 with the swapped tools" \
  test "$(in_root sh -c 'yes | head -n 100000 | cat -n | wc -l')" = 100000

begin upgrade
run_apt install "/var/tmp/debs/rapidutils_${newver}_$arch.deb" "/var/tmp/debs/rapidutils-coreutils_${newver}_$arch.deb"
installed "$newver"
coreutils_reinstalled

begin usr-move
if [ "$suite" = bookworm ]; then
  # Debian 13's coreutils ships /usr/bin/cat where 12's shipped /bin/cat: the upgrade unpacks
  # the new cat to /usr/bin/cat's diverted name and removes the old one from /bin/cat's.
  echo "deb $mirror trixie main" > "$root/etc/apt/sources.list.d/trixie.list"
  in_root apt-get update -q >> "$log" 2>&1 || die "apt-get update (trixie) failed"
  # trixie's coreutils needs trixie's C library, whose upgrade stops every program for a moment
  # (the probe would count that): it goes first, without the probe.
  probe_stop
  run_apt install libc6/trixie
  probe_start
  run_apt install coreutils/trixie
  in_root sh -c 'cd /var/tmp && rm -f coreutils_*.deb && apt-get download -q coreutils/trixie' >> "$log" 2>&1 ||
    die "apt-get download coreutils/trixie failed"
  use_coreutils_deb "$(echo "$root"/var/tmp/coreutils_*.deb)"
  check "coreutils ships /usr/bin/cat now" test "$cu_cat" = usr/bin/cat
  installed "$newver"
  check "no copy of the old cat is left (the trigger ran)" test -z "$(ls -A "$root/usr/lib/rapidutils/gnu/bin")"
  check "GNU first on PATH runs trixie's cat" test "$(gnu_first 'cat --version | head -n1')" = "$(first_line /usr/lib/rapidutils/gnu/cat --version)"
  coreutils_reinstalled
else
  echo "n/a: coreutils ships /usr/bin/cat already on $suite"
  current=''
  echo "usr-move n/a" >> "$results"
fi

begin purge
run_apt purge rapidutils-coreutils rapidutils
show ls -l /usr/bin/cat /usr/bin/wc /usr/bin/yes
clean
check "/usr/lib/rapidutils is gone" test ! -e "$root/usr/lib/rapidutils"
check "nothing of rapidutils is installed" test -z "$(in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' 'rapidutils*' 2> /dev/null | grep -v '^un ')"
show dpkg-divert --list

begin probes
probe_stop
kill "$watch_pid"
wait "$watch_pid" 2> /dev/null || true
watch_pid=
read -r runs fails < "$root/var/tmp/probe.count"
echo "the probe ran cat, wc and yes $runs times during the installs, failures, upgrades and purges"
if [ "$fails" != 0 ]; then
  # Each failed run with the case it happened in.
  while read -r run said; do
    printf '  run %s, in %s: %s\n' "$run" "$(awk -v r="$run" '$2 < r { c = $1 } END { print c }' "$work/case-runs")" "$said"
  done < "$root/var/tmp/probe.failures"
fi
check "no run of cat, wc or yes failed ($fails failures)" test "$fails" = 0
gone=$(grep -E ' (cat|wc|yes)$' "$work/events" || true)
check "inotify saw none of /usr/bin/{cat,wc,yes} removed or renamed away${gone:+: $gone}" test -z "$gone"
echo "$(wc -l < "$work/events") removals and renames away in /usr/bin, none of cat, wc or yes (full log: $log)"
begin ''
echo "$suite: every case passed in $SECONDS s"
