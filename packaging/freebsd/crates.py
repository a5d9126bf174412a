#!/usr/bin/env python3
"""The FreeBSD port's Makefile.crates and distinfo, from Cargo.lock.

  crates.py write   regenerate packaging/freebsd/Makefile.crates and distinfo
  crates.py check   fail when they differ from what Cargo.lock gives (the TIMESTAMP aside)

CARGO_CRATES lists every registry package of Cargo.lock as NAME-VERSION, as the ports
framework's `make cargo-crates` does. distinfo gives each crate's SHA256 (Cargo.lock's checksum
is the SHA256 of the .crate file) and SIZE, from cargo's download cache (`cargo fetch --locked`
fills it); every cached file's SHA256 is checked against Cargo.lock. The port's own distfile,
rapidutils-VERSION.tar.gz, is added by `make makesum` on FreeBSD once the tarball is published.
"""

import glob
import hashlib
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PORT = REPO / "packaging" / "freebsd"


def crates():
    lock = tomllib.loads((REPO / "Cargo.lock").read_text())
    found = [p for p in lock["package"] if p.get("source", "").startswith("registry+")]
    return sorted(found, key=lambda p: (p["name"], p["version"]))


def crate_file(name, version):
    home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    hits = glob.glob(str(home / "registry" / "cache" / "*" / f"{name}-{version}.crate"))
    return Path(hits[0]) if hits else None


def render(timestamp):
    packages = crates()
    names = [f"{p['name']}-{p['version']}" for p in packages]
    makefile = "CARGO_CRATES=\t" + " \\\n\t\t".join(names) + "\n"
    if any(crate_file(p["name"], p["version"]) is None for p in packages):
        subprocess.run(["cargo", "fetch", "--locked", "--quiet"], cwd=REPO, check=True)
    lines = [f"TIMESTAMP = {timestamp}"]
    for p, name in zip(packages, names):
        path = crate_file(p["name"], p["version"])
        if path is None:
            sys.exit(f"crates.py: {name}.crate is not in cargo's cache after cargo fetch")
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest() != p["checksum"]:
            sys.exit(f"crates.py: {path} does not match Cargo.lock's checksum")
        lines.append(f"SHA256 (rust/crates/{name}.crate) = {p['checksum']}")
        lines.append(f"SIZE (rust/crates/{name}.crate) = {len(data)}")
    return makefile, "\n".join(lines) + "\n"


def without_timestamp(text):
    return [line for line in text.splitlines() if not line.startswith("TIMESTAMP")]


def main():
    mode = sys.argv[1] if len(sys.argv) == 2 else ""
    timestamp = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    makefile, distinfo = render(timestamp)
    if mode == "write":
        (PORT / "Makefile.crates").write_text(makefile)
        (PORT / "distinfo").write_text(distinfo)
    elif mode == "check":
        stale = []
        if (PORT / "Makefile.crates").read_text() != makefile:
            stale.append("Makefile.crates")
        if without_timestamp((PORT / "distinfo").read_text()) != without_timestamp(distinfo):
            stale.append("distinfo")
        if stale:
            sys.exit(f"crates.py: {' and '.join(stale)} differ from Cargo.lock: run packaging/freebsd/crates.py write")
        print(f"freebsd: Makefile.crates and distinfo match Cargo.lock ({len(crates())} crates)")
    else:
        sys.exit("usage: crates.py write|check")


if __name__ == "__main__":
    main()
