#!/usr/bin/env bash
# Installs Debian packages for the make targets: apt-get update, then apt-get install, with apt's
# and dpkg's progress in a log (APT_LOG, by default target/apt.log) rather than on the terminal,
# and one line here per call. On failure the log's end is shown.
set -euo pipefail
log=${APT_LOG:-$(dirname "$0")/../target/apt.log}
mkdir -p "$(dirname "$log")"
log=$(cd "$(dirname "$log")" && pwd)/$(basename "$log")
echo "apt-get install $* (log: $log)"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } \
  >> "$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "apt-get install $* failed (log: $log)" >&2
  exit 1
fi
