#!/usr/bin/env bash
# `make test` after its prerequisites: every suite in turn, whatever the ones before gave, each
# with its output on the terminal and in target/test-logs/STEP.log; then what did not run here,
# each with its reason, and one count line over them all:
#   passed   tests that passed (cargo's test results, ci/pipe-max-size.sh's checks, GNU's own
#            tests, CPU models under qemu)
#   failed   tests that failed, and suites that failed without a test result (a build error)
#   skipped  tests cargo ignored, GNU's tests that skipped, and the parts of passing tests that
#            could not run here (RAPIDUTILS_TEST_SKIPS: a kernel this CPU lacks, no root for
#            ci/pipe-max-size.sh, ...), of which
#            those "not part of this build" (the portable build's kernels) are counted apart
# CARGO and MAKE name the programs (the Makefile passes its own).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
cargo=${CARGO:-cargo}
make=${MAKE:-make}
logs=$PWD/target/test-logs
export RAPIDUTILS_TEST_SKIPS=$PWD/target/test-skips.txt
rm -rf "$logs" "$RAPIDUTILS_TEST_SKIPS"
mkdir -p "$logs"

broken=()
step() {
  local name=$1
  shift
  echo "== make test: $name: $*"
  "$@" 2>&1 | tee "$logs/$name.log"
  [ "${PIPESTATUS[0]}" = 0 ] || broken+=("$name")
}
step cargo-test "$cargo" test --release
# The release binaries cargo just built, with pipe-max-size raised: a system-wide value, so it
# runs here, alone, before the portable build replaces those binaries.
step pipe-max-size bash ci/pipe-max-size.sh target/release
step gnu-tests "$make" --no-print-directory test-gnu
step cargo-test-portable "$cargo" test --release --features portable
step cpu-models "$make" --no-print-directory test-cpu-models
step aarch64-unit "$make" --no-print-directory test-aarch64

passed=0 failed=0 skipped=0
for name in cargo-test pipe-max-size gnu-tests cargo-test-portable cpu-models aarch64-unit; do
  log=$logs/$name.log
  # cargo: "test result: ok. 12 passed; 0 failed; 3 ignored; ..."
  read -r p f i < <(sed -n 's/^test result: [a-zA-Z]*\. \([0-9]*\) passed; \([0-9]*\) failed; \([0-9]*\) ignored;.*/\1 \2 \3/p' "$log" |
    awk '{ p += $1; f += $2; i += $3 } END { print p + 0, f + 0, i + 0 }')
  # ci/gnu-tests.sh: "  PASS: 25   SKIP: 1   FAIL: 0 (incl. ERROR, TIMEOUT)   of 26 tests"
  read -r gp gs gf < <(sed -n 's/^  PASS: \([0-9]*\)   SKIP: \([0-9]*\)   FAIL: \([0-9]*\) .*/\1 \2 \3/p' "$log" |
    awk '{ p += $1; s += $2; f += $3 } END { print p + 0, s + 0, f + 0 }')
  # ci/cpu-models.sh: one "ok: qemu -cpu ..." line a CPU model, "FAILED: ..." for one that failed;
  # ci/pipe-max-size.sh: one "ok: pipe-max-size: ..." or "FAILED: ..." line a check
  cp=$(grep -c -e '^ok: qemu -cpu ' -e '^ok: pipe-max-size: ' "$log")
  cf=$(grep -c '^FAILED: ' "$log")
  passed=$((passed + p + gp + cp))
  failed=$((failed + f + gf + cf))
  skipped=$((skipped + i + gs))
  # A suite that failed with no failed test in its log (it did not build, say) counts as one.
  if [[ " ${broken[*]} " == *" $name "* ]] && [ $((f + gf + cf)) = 0 ]; then failed=$((failed + 1)); fi
done

echo
echo "== make test: what did not run here"
{
  grep -h '^test .* \.\.\. ignored' "$logs"/*.log | sed 's/^test \(.*\) \.\.\. ignored.*/\1: ignored (#[ignore] in the code)/'
  # ci/gnu-tests.sh's report: "  SKIP    cat/cat-self.sh    the reason"
  sed -n 's/^  SKIP    \([^ ]*\) *\(.*\)/GNU test \1: skipped (\2)/p' "$logs/gnu-tests.log"
  [ ! -s "$RAPIDUTILS_TEST_SKIPS" ] || sort -u "$RAPIDUTILS_TEST_SKIPS"
} | tee "$logs/not-run.txt"
parts=$([ ! -s "$RAPIDUTILS_TEST_SKIPS" ] || sort -u "$RAPIDUTILS_TEST_SKIPS" | wc -l)
skipped=$((skipped + ${parts:-0}))
[ -s "$logs/not-run.txt" ] || echo "nothing: every test and every kernel this build has ran on this CPU"
[ ${#broken[@]} = 0 ] || echo "failed: ${broken[*]} (logs in $logs)"
# Parts left out of a build on purpose (the portable build's kernels, say) are not gaps of this
# machine: counted apart.
by_design=$(grep -c ' not run (not part of this build' "$logs/not-run.txt")
echo "total: $passed passed, $failed failed, $skipped skipped" \
  "($by_design not part of that build by design, $((skipped - by_design)) not checked on this machine)"
[ ${#broken[@]} = 0 ]
