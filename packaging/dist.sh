#!/usr/bin/env bash
# The tarballs the packages build from, in target/package/:
#   rapidutils-VERSION.tar.gz         the work tree's tracked files (uncommitted edits included),
#                                     under rapidutils-VERSION/
#   rapidutils-VERSION-vendor.tar.xz  vendor/: every crate of Cargo.lock (cargo vendor), so that
#                                     package builds need no network
# Both are reproducible: sorted, owned by 0, mtimes SOURCE_DATE_EPOCH (default: the last commit).
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
out=target/package
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
tarflags=(--sort=name "--mtime=@$epoch" --owner=0 --group=0 --numeric-owner --format=gnu)
mkdir -p "$out"
git ls-files -z | tar "${tarflags[@]}" --null -T - --transform "s,^,rapidutils-$version/," -cf - |
  gzip -n -9 > "$out/rapidutils-$version.tar.gz"
rm -rf "$out/vendor-tree"
mkdir -p "$out/vendor-tree"
cargo vendor --quiet --locked --versioned-dirs "$out/vendor-tree/vendor" > /dev/null
(cd "$out/vendor-tree" && tar "${tarflags[@]}" -cf - vendor) | xz -T1 -6 > "$out/rapidutils-$version-vendor.tar.xz"
rm -rf "$out/vendor-tree"
ls -l "$PWD/$out/rapidutils-$version.tar.gz" "$PWD/$out/rapidutils-$version-vendor.tar.xz"
