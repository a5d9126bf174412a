#!/usr/bin/env bash
# Runs GNU coreutils' OWN test scripts for cat, wc and yes against a directory of binaries, the way GNU's
# `make check` runs them (tests/init.sh, TESTS_ENVIRONMENT from tests/local.mk, the .pl driver options),
# and reports PASS/FAIL/SKIP per test. Exits 1 if any test FAILs (or ERRORs / TIMEOUTs), else 0.
#
#   usage: ci/gnu-tests.sh [-k] [-K] [-q] [-u] [-t SECONDS] BINDIR [TEST-NAME]...
#     BINDIR      holds executables named cat, wc, yes. ONLY those three are put first on PATH; every other
#                 tool the tests use (seq, head, dd, truncate, timeout, env, perl...) comes from the system.
#     TEST-NAME   optional filter: run only tests whose path contains one of these strings (e.g. wc-total).
#     -k          keep the run directory with each test's log (its path is printed)
#     -K          also keep each test's own temporary directory (init.sh's KEEP=yes; implies -k)
#     -q          run without VERBOSE=yes (by default tests run as `make check VERBOSE=yes`: set -x traces in logs)
#     -u          don't fall back to an already-cached older test suite: query the Debian archive again
#     -t SECONDS  per-test timeout (default 300, or $GNU_TESTS_TIMEOUT)
#
# Which tests: every tests/cat/* and tests/wc/* script (.sh and .pl), tests/misc/yes.sh, tests/misc/write-errors.sh
# and, when the fetched version has it, tests/misc/warning-errors.sh.
#
# Where the tests come from: GNU's sources are GPL and are NOT part of this repository; they are fetched at run time
# from the Debian archive this machine's apt already uses, and cached (tests/ and init.cfg only) in
# $GNU_TESTS_CACHE (default /var/cache/rapidutils-gnu-tests, else ~/.cache/rapidutils-gnu-tests).
#   1. The wanted version is $GNU_TESTS_VERSION, else the oracle's: `$GNU_ORACLE/bin/wc --version`
#      (GNU_ORACLE defaults to /opt/gnu-oracle, see ci/gnu-oracle.sh).
#   2. If that version is cached, use it. Else try MIRROR/pool/main/c/coreutils/coreutils_VERSION.orig.tar.xz.
#   3. Else, if an older version is cached (and no -u), use the newest cached one: no download on re-runs.
#   4. Else ask apt (private lists, deb-src experimental + sid, kept in the cache) which coreutils sources the
#      archive offers and `apt-get source --download-only` them newest first (hash-verified by apt) until one
#      downloads. The version actually run is printed, with a warning when it differs from the oracle's.
#
# Environment given to each test (as tests/local.mk's TESTS_ENVIRONMENT, in an otherwise empty environment):
#   LC_ALL=C (tests/lang-default), TMPDIR, srcdir/top_srcdir/abs_top_srcdir/abs_srcdir (the cached sources),
#   abs_top_builddir (the test's private top dir, holding src/ with cat wc yes + a getlimits replacement),
#   built_programs, VERSION, PACKAGE_VERSION, LOCALE_FR, LOCALE_FR_UTF8, host_os, host_triplet, CONFIG_HEADER (a small
#   generated config.h), CU_TEST_NAME, CC, AWK, EGREP, EXEEXT, MAKE, PERL, SHELL (bash), fail=0, VERBOSE, and
#   fd 9 open (init.sh writes the one-line skip/failure reason there). SIGPIPE is reset to its default action.
#   built_programs = cat wc yes, plus the helper tools a test names in its own print_ver_/require_built_ lines
#   when the system has them (e.g. printf for wc-nbsp.sh, timeout env for write-errors.sh). So loops over
#   $built_programs (write-errors.sh) exercise only the tools under test. Override: $GNU_TESTS_BUILT_PROGRAMS.
# Helpers that GNU's build tree provides and a system lacks are supplied:
#   src/getlimits  generated script printing the same variables as GNU's (not installed by distributions).
#   cksum          only if the system's cksum lacks `-a sha3` (coreutils < 9.8): a shim that computes exactly
#                  `cksum -a sha3 -l 256 FILE` (write-errors.sh's set-up step) with python3 or openssl and passes
#                  anything else to the system's cksum.
#
# Where: a fresh directory under $GNU_TESTS_TMPDIR, else $TMPDIR, else /tmp -- or /dev/shm when /tmp cannot hold the
# 2 EiB sparse file wc-total.sh needs for its overflow checks (a NOTE is printed when no choice can).
#
# Result of a test: exit 0 PASS, 77 SKIP (reason shown), 99 ERROR (set-up failure), 124/137 TIMEOUT, else FAIL.
# ERROR and TIMEOUT count as failures. The tail of each failing test's log is printed at the end.
set -uo pipefail

me=gnu-tests
die() { echo "$me: $*" >&2; exit 2; }
usage() { sed -n '6,14s/^#  \{0,1\}//p' "$0" >&2; exit 2; }

keep=no keep_tmp=no verbose=yes refresh=no
timeout_s=${GNU_TESTS_TIMEOUT:-300}
while getopts kKqut:h opt; do
  case $opt in
    k) keep=yes ;;
    K) keep=yes keep_tmp=yes ;;
    q) verbose=no ;;
    u) refresh=yes ;;
    t) timeout_s=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage
bindir=$1; shift
filters=("$@")
case $timeout_s in ''|*[!0-9]*) die "-t needs a number of seconds" ;; esac

tools_under_test='cat wc yes'
[ -d "$bindir" ] || die "$bindir: not a directory"
bindir=$(cd "$bindir" && pwd -P)
for t in $tools_under_test; do
  [ -x "$bindir/$t" ] && [ -f "$bindir/$t" ] || die "$bindir/$t: missing or not executable"
done

# The system's tools: a fixed PATH, so nothing from the caller's PATH (e.g. a rapidutils dir) leaks in.
sys_path=/usr/bin:/bin:/usr/sbin:/sbin
sys_which() { PATH=$sys_path command -v "$1" 2>/dev/null; }
PATH=$sys_path:$PATH  # this script's own tools too
for t in timeout env tar xz mktemp sed grep; do sys_which "$t" >/dev/null || die "the system lacks '$t'"; done
shell=$(sys_which bash) || die "bash is required"
perl=$(sys_which perl || true)

# ---------------------------------------------------------------------------------------------------------------
# Fetch (or reuse) GNU's test suite.

oracle=${GNU_ORACLE:-/opt/gnu-oracle}
oracle_version=
if [ -x "$oracle/bin/wc" ]; then
  oracle_version=$("$oracle/bin/wc" --version 2>/dev/null | sed -n '1s/.* \([0-9][0-9.]*\)$/\1/p')
fi
want=${GNU_TESTS_VERSION:-$oracle_version}

cached_ok() { [ -f "$cache/coreutils-$1/.complete" ] && [ -f "$cache/coreutils-$1/tests/init.sh" ]; }
cache=${GNU_TESTS_CACHE:-/var/cache/rapidutils-gnu-tests}
mkdir -p "$cache" 2>/dev/null
if [ ! -w "$cache" ] && ! compgen -G "$cache/coreutils-*/.complete" >/dev/null; then  # read-only is fine if filled
  [ -n "${GNU_TESTS_CACHE:-}" ] && die "cache dir $cache is not writable"
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/rapidutils-gnu-tests
  mkdir -p "$cache" || die "cannot create cache dir $cache"
fi

mirror=$( { cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2}';
            cat /etc/apt/sources.list 2>/dev/null | awk '$1 == "deb" || $1 == "deb-src" {for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) {print $i; break}}'; } \
          | grep -v -e security -e '-updates' | head -n1 || true)
mirror=${mirror%/}


# unpack_orig TARBALL VERSION ORIGIN: keep only tests/ and init.cfg, atomically.
unpack_orig() {
  local tarball=$1 v=$2 origin=$3 tmp
  tmp=$(mktemp -d "$cache/.unpack.XXXXXX") && chmod 755 "$tmp" || return 1
  if tar -xJf "$tarball" -C "$tmp" --strip-components=1 --wildcards --no-wildcards-match-slash '*/tests' '*/init.cfg' \
     && [ -f "$tmp/tests/init.sh" ] && [ -f "$tmp/init.cfg" ]; then
    printf 'version=%s\norigin=%s\nfetched=%s\n' "$v" "$origin" "$(date -u +%FT%TZ)" > "$tmp/.complete"
    rm -rf "$cache/coreutils-$v"
    mv "$tmp" "$cache/coreutils-$v" && return 0
  fi
  rm -rf "$tmp"
  return 1
}

# What was tried to obtain the tests: shown only when nothing could be (the banner's NOTE says
# which suite ran instead of the oracle's).
tried=$(mktemp)
trap 'rm -f "$tried"' EXIT
note() { echo "$me: $*" >> "$tried"; }

fetch_direct() {  # fetch_direct VERSION: the orig tarball straight from the mirror's pool
  local v=$1 url dl
  [ -n "$mirror" ] && sys_which curl >/dev/null || return 1
  url=$mirror/pool/main/c/coreutils/coreutils_$v.orig.tar.xz
  dl=$(mktemp -d) || return 1
  note "fetching $url"
  if curl -fsSL --retry 2 -o "$dl/orig.tar.xz" "$url" 2>"$dl/err" && unpack_orig "$dl/orig.tar.xz" "$v" "$url"; then
    rm -rf "$dl"; return 0
  fi
  note "... not available ($(tail -n1 "$dl/err" 2>/dev/null))"
  rm -rf "$dl"; return 1
}

fetch_apt() {  # newest coreutils source the archive offers (the wanted version first), via apt; sets $got
  local aptdir=$cache/apt keyring=/usr/share/keyrings/debian-archive-keyring.gpg versions v up dl tarball
  [ -n "$mirror" ] || { note "no Debian archive found in the apt sources"; return 1; }
  sys_which apt-get >/dev/null || { note "apt-get is not available"; return 1; }
  mkdir -p "$aptdir/lists/partial" "$aptdir/archives/partial" "$aptdir/cache"
  printf 'deb-src [signed-by=%s] %s %s main\n' "$keyring" "$mirror" experimental "$keyring" "$mirror" sid \
    > "$aptdir/sources.list"
  local apt_opts=(-o "Dir::Etc::SourceList=$aptdir/sources.list" -o Dir::Etc::SourceParts=/dev/null
                  -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
                  -o "Dir::Cache::Archives=$aptdir/archives" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
                  -o "APT::Sandbox::User=$(id -un)" -o Debug::NoLocking=1)
  note "asking $mirror (experimental, sid) which coreutils sources it offers"
  apt-get "${apt_opts[@]}" -qq update >> "$tried" 2>&1 || { note "apt-get update failed"; return 1; }
  versions=$(apt-cache "${apt_opts[@]}" showsrc coreutils 2>/dev/null | awk '$1 == "Version:" {print $2}' | sort -urV)
  [ -n "$versions" ] || { note "the archive offers no coreutils source"; return 1; }
  # The oracle's upstream version first, then newest first.
  versions=$( { grep -E "^([0-9]+:)?${want//./\\.}-" <<<"$versions"; grep -vE "^([0-9]+:)?${want//./\\.}-" <<<"$versions"; } \
              | grep . || true)
  for v in $versions; do
    up=${v#*:}; up=${up%-*}
    cached_ok "$up" && { got=$up; return 0; }
    dl=$(mktemp -d) || return 1
    note "apt-get source --download-only coreutils=$v"
    if (cd "$dl" && apt-get "${apt_opts[@]}" -qq source --download-only "coreutils=$v") >"$dl/log" 2>&1; then
      tarball=$(ls "$dl"/coreutils_"$up".orig.tar.* 2>/dev/null | grep -v '\.asc$' | head -n1)
      if [ -n "$tarball" ] && unpack_orig "$tarball" "$up" "apt-get source coreutils=$v from $mirror"; then
        rm -rf "$dl"; got=$up; return 0
      fi
    fi
    note "... coreutils $v: $(grep -E '^(E|W):' "$dl/log" | head -n1)"
    rm -rf "$dl"
  done
  return 1
}

newest_cached() { ls -d "$cache"/coreutils-*/ 2>/dev/null | sed 's|.*/coreutils-||; s|/$||' | sort -rV \
                  | while read -r v; do cached_ok "$v" && { echo "$v"; break; }; done; }

got=
if [ -n "$want" ] && cached_ok "$want"; then
  got=$want
else
  # A version found missing on the mirror within the last 7 days is not probed again (no network on re-runs).
  probe=yes
  if [ $refresh = no ] && [ -n "$(newest_cached)" ] && { [ -z "$want" ] ||
       [ -n "$(find "$cache/.unavailable-$want" -mtime -7 2>/dev/null)" ]; }; then
    probe=no
  fi
  if [ -n "$want" ] && [ $probe = yes ] && fetch_direct "$want"; then
    got=$want
  else
    [ -n "$want" ] && [ $probe = yes ] && touch "$cache/.unavailable-$want" 2>/dev/null
    if [ $refresh = no ] && [ -n "$(newest_cached)" ]; then
      got=$(newest_cached)
      [ -n "$want" ] && note "coreutils $want's tests are not in the archive (checked" \
        "$(date -r "$cache/.unavailable-$want" +%F)); using the cached $got tests (-u: ask the archive again)"
    elif fetch_apt; then :
    else cat "$tried" >&2; die "could not obtain GNU coreutils' test suite (wanted ${want:-the newest})"
    fi
  fi
fi
srcdir=$cache/coreutils-$got
origin=$(sed -n 's/^origin=//p' "$srcdir/.complete")

echo "================================================================================"
echo "GNU coreutils $got test suite  (from $origin; cached in $srcdir)"
if [ -z "$oracle_version" ]; then
  echo "(no GNU oracle at $oracle to compare versions with)"
elif [ "$got" != "$oracle_version" ] && [ -n "${GNU_TESTS_VERSION:-}" ]; then
  echo "NOTE: running the $got tests (GNU_TESTS_VERSION); the oracle is GNU coreutils $oracle_version."
elif [ "$got" != "$oracle_version" ]; then
  echo "NOTE: GNU $oracle_version's tests are not in the archive: running $got's (later tests not covered)."
fi
for t in $tools_under_test; do
  printf '  %-4s %s  [%s]\n' "$t" "$bindir/$t" "$("$bindir/$t" --version 2>&1 | head -n1)"
done
echo "================================================================================"

# ---------------------------------------------------------------------------------------------------------------
# The list of tests.

tests=()
for f in "$srcdir"/tests/cat/*.sh "$srcdir"/tests/cat/*.pl "$srcdir"/tests/wc/*.sh "$srcdir"/tests/wc/*.pl \
         "$srcdir"/tests/misc/yes.sh "$srcdir"/tests/misc/write-errors.sh "$srcdir"/tests/misc/warning-errors.sh; do
  [ -f "$f" ] || continue
  rel=${f#"$srcdir"/}
  if [ ${#filters[@]} -gt 0 ]; then
    hit=no
    for p in "${filters[@]}"; do case $rel in *"$p"*) hit=yes ;; esac; done
    [ $hit = yes ] || continue
  fi
  tests+=("$rel")
done
[ ${#tests[@]} -gt 0 ] || die "no test matches ${filters[*]}"

# ---------------------------------------------------------------------------------------------------------------
# The "build tree" the tests expect.

# Where the tests run. wc-total.sh checks total overflow only where a 2 EiB sparse file can be made (not on ext4):
# unless TMPDIR or GNU_TESTS_TMPDIR chooses, prefer /tmp, else /dev/shm (tmpfs) when only that can.
holds_2e() { local f st; f=$(mktemp "$1/.gnu-tests-2e.XXXXXX" 2>/dev/null) || return 1
             PATH=$sys_path truncate -s 2E "$f" 2>/dev/null; st=$?; rm -f "$f"; return $st; }
tmp_base=${GNU_TESTS_TMPDIR:-${TMPDIR:-/tmp}}
if [ -z "${GNU_TESTS_TMPDIR:-}${TMPDIR:-}" ] && ! holds_2e "$tmp_base" && [ -d /dev/shm ] && holds_2e /dev/shm; then
  tmp_base=/dev/shm
fi
holds_2e "$tmp_base" || echo "NOTE: $tmp_base cannot hold a 2 EiB sparse file: wc-total.sh's overflow checks" \
  "will not run (set GNU_TESTS_TMPDIR to a tmpfs, xfs or btrfs directory)"
run=$(mktemp -d "$tmp_base/rapidutils-gnu-tests.XXXXXX") || die "mktemp in $tmp_base failed"
echo "running in $run"
cleanup() { rm -f "$tried"; if [ $keep = yes ]; then echo "$me: logs kept in $run/logs"; else rm -rf "$run"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$run/src" "$run/compat" "$run/logs" "$run/tmp" "$run/t"
for t in $tools_under_test; do ln -s "$bindir/$t" "$run/src/$t"; done

# GNU's src/getlimits (built for the test suite, never installed): same variables, same format.
cat > "$run/src/getlimits" <<'GETLIMITS'
#!/usr/bin/env bash
# Generated by rapidutils' ci/gnu-tests.sh: prints what GNU coreutils' src/getlimits prints (LP64/ILP32 Linux).
add1() {  # decimal absolute value plus one, any size, keeping a leading '-'
  local n=$1 sign= out= i d carry=1
  case $n in -*) sign=-; n=${n#-} ;; esac
  for ((i = ${#n} - 1; i >= 0; i--)); do
    d=$(( ${n:i:1} + carry )); carry=$(( d / 10 )); out=$(( d % 10 ))$out
  done
  [ $carry = 1 ] && out=1$out
  echo "$sign$out"
}
p() { echo "$1_MAX=$2"; echo "$1_OFLOW=$(add1 "$2")"; [ "$3" = 0 ] || { echo "$1_MIN=$3"; echo "$1_UFLOW=$(add1 "$3")"; }; }
bits=$(getconf LONG_BIT 2>/dev/null || echo 64)
if [ "$bits" = 64 ]; then lmax=9223372036854775807 lmin=-9223372036854775808 ulmax=18446744073709551615
else lmax=2147483647 lmin=-2147483648 ulmax=4294967295; fi
p CHAR "$(getconf CHAR_MAX)" "$(getconf CHAR_MIN)"
p SCHAR 127 -128
p UCHAR 255 0
p SHRT 32767 -32768
p INT 2147483647 -2147483648
p UINT 4294967295 0
p LONG $lmax $lmin
p ULONG $ulmax 0
p SIZE $ulmax 0
p SSIZE $lmax $lmin
p TIME_T 9223372036854775807 -9223372036854775808
p UID_T 4294967295 0
p GID_T 4294967295 0
p PID_T 2147483647 -2147483648
p OFF_T 9223372036854775807 -9223372036854775808
p OFF64_T 9223372036854775807 -9223372036854775808
p INTMAX 9223372036854775807 -9223372036854775808
p UINTMAX 18446744073709551615 0
echo FLT_MIN=1.1754944e-38;  echo FLT_MAX=3.4028235e+38
echo DBL_MIN=2.2250738585072014e-308; echo DBL_MAX=1.7976931348623157e+308
case $(uname -m) in
  x86_64|i?86) echo LDBL_MIN=3.3621031431120935063e-4932; echo LDBL_MAX=1.189731495357231765e+4932 ;;
  *) echo LDBL_MIN=3.362103143112093506262677817321753e-4932; echo LDBL_MAX=1.189731495357231765085759326628007e+4932 ;;
esac
echo "SIGRTMIN=$(kill -l SIGRTMIN 2>/dev/null || echo 34)"
echo "SIGRTMAX=$(kill -l SIGRTMAX 2>/dev/null || echo 64)"
echo IO_BUFSIZE=262144
GETLIMITS
chmod +x "$run/src/getlimits"

# config.h stand-in, describing the build under test where tests grep it: init.cfg's require_openat_support_ and
# require_selinux_, and (coreutils >= 9.11) warning-errors.sh, which expects `wc -l --debug 2>/dev/full` to fail
# exactly when wc was built with an accelerated line counter -- detected here from what its --debug reports.
wc_debug=$("$bindir/wc" -l --debug /dev/null 2>&1 >/dev/null </dev/null || true)
{
  echo "/* Generated by rapidutils' ci/gnu-tests.sh in place of GNU coreutils' config.h (CONFIG_HEADER). */"
  echo "#define HAVE_OPENAT 1"
  echo "/* HAVE_SELINUX_SELINUX_H is left undefined: the tools under test have no SELinux support. */"
  echo "/* wc -l --debug /dev/null said: $(printf '%s' "$wc_debug" | tr '\n' ' ' | sed 's|\*/|* /|g') */"
  case $wc_debug in *avx2*) echo "#define USE_AVX2_WC_LINECOUNT 1" ;; esac
  case $wc_debug in *avx512*) echo "#define USE_AVX512_WC_LINECOUNT 1" ;; esac
  case $wc_debug in *[Nn][Ee][Oo][Nn]*) echo "#define USE_NEON_WC_LINECOUNT 1" ;; esac
} > "$run/config.h"

# cksum shim, only when the system's cksum is too old for write-errors.sh's set-up line.
if ! PATH=$sys_path cksum -a sha3 -l 256 /dev/null >/dev/null 2>&1; then
  python=$(sys_which python3 || true); openssl=$(sys_which openssl || true)
  cat > "$run/compat/cksum" <<SHIM
#!/bin/sh
# Generated by rapidutils' ci/gnu-tests.sh: the system's cksum lacks '-a sha3', which a GNU test's set-up needs.
# Handles exactly 'cksum -a sha3 -l 256 FILE...' (GNU's tagged output); anything else goes to the system's cksum.
if [ "\$1 \$2 \$3 \$4" = "-a sha3 -l 256" ] && [ \$# -ge 5 ]; then
  shift 4; st=0
  for f in "\$@"; do
    if [ -n "$python" ]; then
      h=\$("$python" -c 'import hashlib,sys; print(hashlib.sha3_256(open(sys.argv[1],"rb").read()).hexdigest())' "\$f") || { st=1; continue; }
    elif [ -n "$openssl" ]; then
      h=\$("$openssl" dgst -sha3-256 < "\$f" | sed 's/.*= *//') || { st=1; continue; }
    else
      echo "cksum: sha3: unsupported (compat shim has neither python3 nor openssl)" >&2; exit 1
    fi
    printf 'SHA3-256 (%s) = %s\n' "\$f" "\$h"
  done
  exit \$st
fi
exec $(sys_which cksum) "\$@"
SHIM
  chmod +x "$run/compat/cksum"
  compat_note="cksum shim for '-a sha3 -l 256' (system cksum: $(PATH=$sys_path cksum --version | head -n1))"
fi

# Locales as configure's gt_LOCALE_FR / gt_LOCALE_FR_UTF8 would find them.
find_locale() {  # find_locale CHARMAP CANDIDATE...
  local cm=$1 l; shift
  for l in "$@"; do
    [ "$(LC_ALL=$l locale charmap 2>/dev/null)" = "$cm" ] && { echo "$l"; return; }
  done
  echo none
}
locale_fr=$(find_locale ISO-8859-1 fr_FR.ISO-8859-1 fr_FR.ISO8859-1 fr_FR.iso88591 fr_FR)
locale_fr_utf8=$(find_locale UTF-8 fr_FR.UTF-8 fr_FR.utf8 fr_FR.UTF8)

awk_name=$(for a in gawk mawk nawk awk; do sys_which $a >/dev/null && { echo $a; break; }; done)
cc_name=$(for c in gcc cc clang; do sys_which $c >/dev/null && { echo $c; break; }; done)
host_os=linux-gnu
host_triplet=$(uname -m)-pc-linux-gnu
timeout_bin=$(sys_which timeout)
env_cmd=("$(sys_which env)" -i)
"${env_cmd[0]}" --default-signal=PIPE true 2>/dev/null && env_cmd+=(--default-signal=PIPE)

# built_programs for one test: the tools under test + the helpers it names in print_ver_ / require_built_.
built_for() {
  if [ -n "${GNU_TESTS_BUILT_PROGRAMS:-}" ]; then echo "$GNU_TESTS_BUILT_PROGRAMS"; return; fi
  local list=" $tools_under_test " t
  for t in $(sed -n 's/^[[:space:]]*\(print_ver_\|require_built_\)[[:space:]]\{1,\}\([^#;|&]*\).*/\2/p' "$1"); do
    case $list in *" $t "*) continue ;; esac
    case $t in *[!a-z0-9_.-]*|'') continue ;; esac
    sys_which "$t" >/dev/null && list="$list$t "
  done
  echo $list
}

# ---------------------------------------------------------------------------------------------------------------
# Run.

declare -A result detail secs
n_pass=0 n_fail=0 n_skip=0
for rel in "${tests[@]}"; do
  name=${rel#tests/}; sub=${rel%/*}
  top=$run/t/${name//\//-}
  mkdir -p "$top/$sub"
  ln -s "$run/src" "$top/src"
  log=$run/logs/${name//\//-}.log
  reason=$top/.fd9
  case $rel in
    *.pl)
      if [ -n "$perl" ]; then
        cmd=("$perl" -w "-I$srcdir/tests" -MCuSkip -MCoreutils "-MCuTmpdir qw($rel)" "$srcdir/$rel")
      else
        cmd=("$shell" "$srcdir/tests/no-perl")
      fi ;;
    *) cmd=("$shell" "$srcdir/$rel") ;;
  esac
  vars=(
    PATH="$run/src:$run/compat:$sys_path" HOME="${HOME:-/root}" USER="$(id -un)" LOGNAME="$(id -un)"
    LC_ALL=C TMPDIR="$run/tmp"
    VERSION="$got" PACKAGE_VERSION="$got" LOCALE_FR="$locale_fr" LOCALE_FR_UTF8="$locale_fr_utf8"
    abs_top_builddir="$top" abs_top_srcdir="$srcdir" abs_srcdir="$srcdir" top_srcdir="$srcdir" srcdir="$srcdir"
    built_programs="$(built_for "$srcdir/$rel")" fail=0 host_os="$host_os" host_triplet="$host_triplet"
    CONFIG_HEADER="$run/config.h" CU_TEST_NAME="coreutils-$got,${rel//\//-}"
    CC="${cc_name:-cc}" AWK="${awk_name:-awk}" EGREP='grep -E' EXEEXT= MAKE=make PERL="${perl:-perl}" SHELL="$shell"
  )
  [ $verbose = yes ] && vars+=(VERBOSE=yes)
  [ $keep_tmp = yes ] && vars+=(KEEP=yes)
  [ $keep_tmp = yes ] && [[ $rel == *.pl ]] && vars+=(DEBUG=1)
  for v in RUN_EXPENSIVE_TESTS RUN_VERY_EXPENSIVE_TESTS NON_ROOT_USERNAME COREUTILS_GROUPS; do
    [ -n "${!v:-}" ] && vars+=("$v=${!v}")
  done

  printf '%-34s ' "$name"
  start=$(date +%s.%N)
  ( cd "$top" && exec "$timeout_bin" -k 10 "$timeout_s" "${env_cmd[@]}" "${vars[@]}" "${cmd[@]}" ) \
    </dev/null >"$log" 2>&1 9>"$reason"
  st=$?
  secs[$rel]=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  why=$(grep -v '^[[:space:]]*$' "$reason" | head -n1)
  case $st in
    0)  r=PASS; why= ;;
    77) r=SKIP; [ -n "$why" ] || why=$(grep -m1 -i 'skip' "$log") ;;
    99) r=ERROR; [ -n "$why" ] || why=$(grep -m1 -e 'set-up failure' -e 'hard error' "$log") ;;
    124|137) r=TIMEOUT; why="killed after ${timeout_s}s" ;;
    *)  r=FAIL; why="exit status $st${why:+: $why}" ;;
  esac
  [ $st = 0 ] && [ -s "$reason" ] && why=$(head -n1 "$reason")
  result[$rel]=$r; detail[$rel]=$why
  case $r in PASS) n_pass=$((n_pass + 1)) ;; SKIP) n_skip=$((n_skip + 1)) ;; *) n_fail=$((n_fail + 1)) ;; esac
  printf '%-7s %6ss  %s\n' "$r" "${secs[$rel]}" "$why"
  { echo; echo "[$me] exit status $st => $r  (cwd $top, timeout ${timeout_s}s)"; } >> "$log"
  [ $keep = yes ] || rm -rf "$top"
done

# ---------------------------------------------------------------------------------------------------------------
# Report.

echo "================================================================================"
echo "GNU coreutils $got tests against $bindir"
[ -n "${compat_note:-}" ] && echo "(supplied: $compat_note)"
for rel in "${tests[@]}"; do
  printf '  %-7s %-34s %s\n' "${result[$rel]}" "${rel#tests/}" "${detail[$rel]}"
done
echo "--------------------------------------------------------------------------------"
echo "  PASS: $n_pass   SKIP: $n_skip   FAIL: $n_fail (incl. ERROR, TIMEOUT)   of ${#tests[@]} tests"
for rel in "${tests[@]}"; do
  case ${result[$rel]} in PASS|SKIP) continue ;; esac
  name=${rel#tests/}; log=$run/logs/${name//\//-}.log
  echo
  echo "==================== ${result[$rel]}: ${rel#tests/} (last 60 lines of its log) ===================="
  tail -n 60 "$log"
done
[ $n_fail = 0 ]
