#!/usr/bin/env bash
# The kernels are chosen by every CPU feature they are compiled for, shown on CPUs this machine
# is not: qemu's user-mode emulator runs the tools as CPU models that lack one feature each of the
# AVX2 kernel's (qemu's TCG emulates AVX2 but no AVX-512, so "max" runs the AVX2 kernel). On such
# a CPU a kernel compiled for the missing feature would run wrong (LZCNT decodes as BSR there,
# and `wc -L` counts other widths) or die of SIGILL (BMI1's ANDN); each must take the SSSE3 kernel
# (or SSE2's, without POPCNT or SSSE3) and print what the AVX2 kernel prints natively.
#
# Two builds run: the glibc one (the product), on every model glibc itself starts on (without
# BMI1 glibc's own string functions die of SIGILL, before our code runs), and a static musl one,
# which has no such functions, on every model.
#
#     ci/cpu-models.sh GLIBC_BIN_DIR MUSL_BIN_DIR
set -euo pipefail
glibc=$1 musl=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/rapidutils-cpu-models.XXXXXX")
trap 'rm -rf "$work"' EXIT
command -v qemu-x86_64 > /dev/null || { echo "cpu-models.sh: needs qemu-x86_64 (package qemu-user)" >&2; exit 1; }

# Inputs: every script of the benchmark corpora (200 KB each: invalid UTF-8 among them), and
# English-like lines of varied length, where `wc -L`'s line ends decide the width.
python3 "$(dirname "$0")/../benches/corpora.py" "$work/in" 200000 > /dev/null
python3 - "$work/in/lines.txt" << 'EOF'
import random, sys
rng = random.Random(2)
with open(sys.argv[1], "w") as f:
    for _ in range(5000):
        f.write(" ".join("abcdefg"[: rng.randint(1, 7)] for _ in range(rng.randint(0, 40))) + "\n")
EOF
inputs=("$work"/in/*.txt)

# The model, the build, the kernel `wc --debug` must name. A CPU without SSSE3 has no SSE4 or AVX
# either (glibc's own string functions take SSSE3 for granted where SSE4.1 is there).
models=(
  "max glibc avx2" "max musl avx2"
  "max,-abm glibc ssse3" "max,-abm musl ssse3"
  "max,-bmi1 musl ssse3"
  "max,-bmi2 glibc ssse3" "max,-bmi2 musl ssse3"
  "max,-avx2 glibc ssse3" "max,-avx2 musl ssse3"
  "max,-popcnt glibc sse2" "max,-popcnt musl sse2"
  "max,-avx2,-avx,-sse4.2,-sse4.1,-ssse3 glibc sse2" "max,-avx2,-avx,-sse4.2,-sse4.1,-ssse3 musl sse2"
)
runs=0
for model in "${models[@]}"; do
  read -r cpu build kernel <<< "$model"
  dir=$glibc
  [ "$build" = musl ] && dir=$musl
  # qemu warns of host features its TCG lacks; only the tool's own stderr is kept.
  emulated() { qemu-x86_64 -cpu "$cpu" "$@" 2> >(grep -v '^qemu-x86_64: warning' >&2); }
  # GNU's words for the kernel, and (RAPIDUTILS_SIMD set to no kernel's name: the fastest) which one it is.
  said=$(LC_ALL=C RAPIDUTILS_SIMD=fastest emulated "$dir/wc" --debug -l /dev/null 2>&1 > /dev/null)
  gnu_words="wc: using avx2 hardware support"
  [ "$kernel" = avx2 ] || gnu_words="wc: avx2 support not detected"
  if ! grep -qx "$gnu_words" <<< "$said" || ! grep -qx "wc: RAPIDUTILS_SIMD: using $kernel" <<< "$said"; then
    echo "FAILED: $cpu ($build): wc --debug said: $said (expected the $kernel kernel)" >&2
    exit 1
  fi
  for locale in C C.UTF-8; do
    for args in -l -w -m -L "" -A -v -n; do
      tool=wc
      case $args in -A | -v | -n) tool=cat ;; esac
      # shellcheck disable=SC2086 # $args is one option or none
      LC_ALL=$locale emulated "$dir/$tool" $args "${inputs[@]}" > "$work/got" 2>&1 || true
      # The reference: the same build, natively, with the AVX2 kernel (what "max" runs).
      # shellcheck disable=SC2086
      LC_ALL=$locale RAPIDUTILS_SIMD=avx2 "$dir/$tool" $args "${inputs[@]}" > "$work/want" 2>&1 || true
      if ! cmp -s "$work/got" "$work/want"; then
        echo "FAILED: $cpu ($build): LC_ALL=$locale $tool $args differs from the native AVX2 kernel's:" >&2
        diff "$work/want" "$work/got" | head -n 10 >&2
        exit 1
      fi
      runs=$((runs + 1))
    done
  done
  echo "ok: qemu -cpu $cpu, $build build: the $kernel kernel, same output as natively (wc -l -w -m -L, cat -A -v -n; C, C.UTF-8)"
done
echo "cpu-models: ${#models[@]} models, $runs runs, every output as the native AVX2 kernel's"
