#!/usr/bin/env bash
# Standard output's pipe with /proc/sys/fs/pipe-max-size raised to 16 MiB, as an administrator
# may raise it: `yes` and `cat` still grow standard output to 1 MiB, no F_SETPIPE_SZ of theirs
# asks for more, and `cat` of a 10 MB file into `head -c1` dies of SIGPIPE (status 141) on
# every run, as GNU 9.12's does (a pipe that took the whole file would let it end with 0).
#
# pipe-max-size is one value for the whole system (no namespace has its own), so this runs
# alone: its own step of ci/test-all.sh, after the tests and never beside them. It needs root.
# The old value is set back however the script ends (but SIGKILL), and a lock keeps two runs
# from undoing each other's. Without root it says so and records a skip, never a pass.
#
#   ci/pipe-max-size.sh [BINDIR]     BINDIR holds our yes and cat (default target/release)
#
# One line a check: "ok: pipe-max-size: ..." or "FAILED: pipe-max-size: ..."; status 1 if one
# failed. A skip is also written to $RAPIDUTILS_TEST_SKIPS when set, as the tests' skips are.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bin=${1:-target/release}
oracle=${GNU_ORACLE_BIN:-/opt/gnu-oracle/bin}
knob=/proc/sys/fs/pipe-max-size
raised=$((16 << 20))
cap=$((1 << 20))
runs=20

skip() {
  local line="ci/pipe-max-size.sh: yes and cat with pipe-max-size at 16 MiB not run ($1)"
  echo "skipped: $line"
  [ -z "${RAPIDUTILS_TEST_SKIPS:-}" ] || echo "$line" >>"$RAPIDUTILS_TEST_SKIPS"
  exit 0
}
failed=0
ok() { echo "ok: pipe-max-size: $*"; }
fail() {
  echo "FAILED: pipe-max-size: $*"
  failed=1
}

[ "$(uname -s)" = Linux ] || skip "pipe-max-size is Linux's"
{ [ "$(id -u)" = 0 ] && [ -w "$knob" ]; } || skip "needs root and a writable $knob"
for need in strace head "$bin/yes" "$bin/cat" "$oracle/cat"; do
  command -v "$need" >/dev/null || { fail "$need is missing" && exit 1; }
done

tmp=$(mktemp -d) || exit 1
exec 9>/run/lock/rapidutils-pipe-max-size.lock || exit 1
flock 9
old=$(cat "$knob") || exit 1
restore() {
  echo "$old" >"$knob"
  rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
echo "$raised" >"$knob" || { fail "cannot write $knob" && exit 1; }
if [ "$(cat "$knob")" = "$raised" ]; then ok "raised from $old to $raised"; else fail "$knob reads $(cat "$knob")"; fi

head -c 10000000 /dev/urandom >"$tmp/big"

# The F_SETPIPE_SZ calls of one run of "$@" under strace, its stdout into `head -c $1`.
# Standard output (1) grown once, to 1 MiB, and no call asks for more.
grows_to_cap() {
  local name=$1 cut=$2
  shift 2
  strace -qq -o "$tmp/trace" -e trace=fcntl "$@" | head -c "$cut" >/dev/null
  local status=${PIPESTATUS[0]}
  local stdout asked
  stdout=$(grep '^fcntl(1, F_SETPIPE_SZ, ' "$tmp/trace" | tr -s ' ')
  asked=$(sed -n 's/^fcntl([0-9]*, F_SETPIPE_SZ, \([0-9]*\)).*/\1/p' "$tmp/trace" | sort -n | tail -n1)
  if [ "$stdout" = "fcntl(1, F_SETPIPE_SZ, $cap) = $cap" ] && [ "${asked:-0}" -le "$cap" ]; then
    ok "$name grows standard output to $cap and asks no pipe for more (largest asked: $asked)"
  else
    fail "$name: standard output's growth: '${stdout:-none}', largest asked: ${asked:-none}"
    sed 's/^/    /' "$tmp/trace"
  fi
  if [ "$status" = 141 ]; then ok "$name under strace | head -c $cut: SIGPIPE"; else fail "$name | head -c $cut: status $status"; fi
}
grows_to_cap yes 8M "$bin/yes"
grows_to_cap "cat of 10 MB" 1 "$bin/cat" "$tmp/big"

# Without strace, as users run it: every run dies of SIGPIPE, ours as GNU's.
for who in ours gnu; do
  if [ $who = ours ]; then cat=$bin/cat; else cat=$oracle/cat; fi
  statuses=()
  for _ in $(seq $runs); do
    "$cat" "$tmp/big" | head -c1 >/dev/null
    statuses+=("${PIPESTATUS[0]}")
  done
  others=$(printf '%s\n' "${statuses[@]}" | grep -cvx 141)
  if [ "$others" = 0 ]; then
    ok "$who cat of 10 MB | head -c1: status 141 (SIGPIPE) in $runs runs of $runs"
  else
    fail "$who cat of 10 MB | head -c1: statuses ${statuses[*]}"
  fi
done

echo "$old" >"$knob"
if [ "$(cat "$knob")" = "$old" ]; then ok "set back to $old"; else fail "$knob reads $(cat "$knob"), not $old"; fi
exit $failed
