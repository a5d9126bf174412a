#!/usr/bin/env python3
"""Whole-command benchmark: rapidutils beside GNU 9.1 (/usr/bin), GNU 9.12 (the oracle),
uutils, fcoreutils and busybox where installed, measured in the same run, in interleaved rounds.

    python3 benches/bench.py [--rounds N] [--quick] [--cross-core] [--suite yes|cat|wc|scripts|startup]...
                             [--kernel avx2|ssse3|sse2|portable]... [--baseline DIR] [--update-readme]

Every implementation's output is checked against the expected bytes (GNU 9.12's) before it is
timed, row by row. rapidutils must print them; a peer that prints other bytes (or fails) is marked
**WRONG** on that row, with its first differing line, and is not a peer there; the run goes on.
`make bench-peers` installs the peers at the versions measured: uutils' uu_yes, uu_cat and uu_wc
into /opt/uutils (binaries yes, cat, wc), fcoreutils into /opt/fcoreutils (fyes, fcat, fwc).
Throughput into a pipe is measured by benches/pipe_reader.rs (built as a cargo example), which
starts its clock at the first byte, so no producer start-up lands inside the timing. By default
producer and reader are pinned to the same CPU (taskset -c 0): on 2-vCPU VMs a pipe whose ends
sit on different CPUs swings wildly; --cross-core pins them to CPUs 0 and 1 instead (`cat` of a
file into a pipe is timed both ways in every run). Where pv is installed, the yes suite ends with
`yes | pv` as a user types it, neither end pinned, the whole pipeline timed.
Reported: the median GiB/s of each implementation, and the median over rounds of the
per-round ratio rapidutils / best peer (the best of the others in that same round; busybox is
shown, not a peer).
"""

import argparse
import io
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, "target", "release")
READER = os.path.join(RELEASE, "examples", "pipe_reader")
ORACLE = "/opt/gnu-oracle"
ORACLE_LIB = ORACLE + "/usr/lib/x86_64-linux-gnu"
# The peers' tools as `make bench-peers` installs them (cargo install's layout, ROOT/bin), or in
# ~/.cargo/bin: uutils' per-tool crates name them yes, cat, wc; fcoreutils fyes, fcat, fwc.
UUTILS_BINS = ("/opt/uutils/bin", os.path.expanduser("~/.cargo/bin"))
FCOREUTILS_BINS = ("/opt/fcoreutils/bin", os.path.expanduser("~/.cargo/bin"))
# --baseline DIR: another rapidutils build (say, of the parent commit) timed in the same rounds.
BASELINE = None


def implementations(tool):
    """name -> argv prefix, for each implementation of `tool` present on this machine."""
    impls = {"rapidutils": [os.path.join(RELEASE, tool)]}
    if BASELINE:
        impls["rapidutils-baseline"] = [os.path.join(BASELINE, tool)]
    if os.path.exists("/usr/bin/" + tool):
        impls["gnu-9.1"] = ["/usr/bin/" + tool]
    if os.path.exists(ORACLE + "/usr/bin/" + tool):
        # The oracle's own loader and C library, without the wrapper script's extra exec.
        impls["gnu-9.12"] = [ORACLE_LIB + "/ld-linux-x86-64.so.2", "--library-path", ORACLE_LIB,
                             ORACLE + "/usr/bin/" + tool]
    for root in UUTILS_BINS:
        if os.path.exists(os.path.join(root, tool)) and "uutils" not in impls:
            impls["uutils"] = [os.path.join(root, tool)]
    for root in FCOREUTILS_BINS:
        if os.path.exists(os.path.join(root, "f" + tool)) and "fcoreutils" not in impls:
            impls["fcoreutils"] = [os.path.join(root, "f" + tool)]
    if shutil.which("busybox"):
        impls["busybox"] = ["busybox", tool]
    return impls


def stdout_of(argv, base_env=None, stdin=None):
    """What `argv` prints on stdout (see `split_env` for a leading `env`)."""
    env, command = split_env(argv, base_env)
    return subprocess.run(command, stdin=stdin, capture_output=True, env=env).stdout


def is_peer(name):
    """Whether `name` competes in "rapidutils / best peer": GNU 9.1, GNU 9.12, uutils, fcoreutils
    (not rapidutils' own columns, nor busybox, which is shown only)."""
    return not name.startswith("rapidutils") and name != "busybox"


# Output: what one run printed on stdout, its exit status and the first line of its stderr.
def output_of(argv, base_env=None, stdin=None):
    """The Output of `argv` (see `split_env` for a leading `env`)."""
    env, command = split_env(argv, base_env)
    done = subprocess.run(command, stdin=stdin, capture_output=True, env=env)
    return done.stdout, done.returncode, done.stderr.decode(errors="backslashreplace").partition("\n")[0]


def shown(line, width=72):
    """A line of output as the report quotes it: UTF-8 shown as text, other bytes and control
    characters escaped, cut at `width` characters."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in line.decode(errors="backslashreplace"))
    return "`" + (text if len(text) <= width else text[:width] + "...") + "`"


def first_difference(ref, got):
    """None where the binary streams `ref` and `got` hold the same bytes; else (line number,
    byte of the line, the reference's line, the other's line) where they first differ. A long
    line is shown from a little before that byte (a "..." first), each as far as the chunk of
    1 MiB that holds the difference holds it (b"" past the end of an output)."""
    line, column, partial = 1, 0, b""
    while True:
        a, b = read_exactly(ref, 1 << 20), read_exactly(got, 1 << 20)
        if a == b:
            if not a:
                return None
            line += a.count(b"\n")
            if b"\n" in a:
                partial = a[a.rfind(b"\n") + 1:]
                column = len(partial)
            else:
                partial, column = (partial + a)[-64:], column + len(a)
            continue
        # The common prefix of the two chunks, by halves.
        lo, hi = 0, min(len(a), len(b))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if a[:mid] == b[:mid]:
                lo = mid
            else:
                hi = mid - 1
        line += a.count(b"\n", 0, lo)
        start = a.rfind(b"\n", 0, lo) + 1
        head, column = ((partial, column) if start == 0 else (b"", 0))
        head, column = head + a[start:lo], column + lo - start
        if column > 40:
            head = b"..." + head[-20:]
        return line, column + 1, head + a[lo:].partition(b"\n")[0], head + b[lo:].partition(b"\n")[0]


def difference(ref_name, ref, out):
    """None where the Output `out` is the Output `ref`, else what differs, as the report says it:
    the exit status (with the first line of stderr), then the first differing line of stdout."""
    parts = []
    if out[1] != ref[1]:
        parts.append(f"exit status {out[1]} ({ref_name}: {ref[1]})"
                     + (f", stderr {shown(out[2].encode())}" if out[2] else ""))
    diff = first_difference(io.BytesIO(ref[0]), io.BytesIO(out[0]))
    if diff:
        parts.append(f"line {diff[0]}" + (f" from byte {diff[1]}" if diff[1] > 41 else "")
                     + f": {shown(diff[3])}, {ref_name} {shown(diff[2])}")
    return "; ".join(parts) or None


def settle(label, details):
    """details: name -> what differs from the reference (None where nothing does). Exits where a
    rapidutils column differs; returns {name: what differs} for the others, which are marked
    WRONG on the rows this check covers and are not peers there."""
    bad = {n: d for n, d in details.items() if d}
    for n, d in bad.items():
        if n.startswith("rapidutils"):
            print(f"OUTPUT MISMATCH: {n} {label}: {d}", file=sys.stderr)
            sys.exit(1)
    for n, d in bad.items():
        print(f"note: {label}: {n}'s output differs ({d})")
    return bad


def check_outputs(label, impls, extra, base_env=None, stdin_of=None):
    """Runs `argv + extra` of each implementation and compares its Output with GNU 9.12's (rapidutils'
    where the oracle is not installed): see `settle`. stdin_of, if given, makes each run's stdin."""
    outs = {}
    for n, a in impls.items():
        stdin = stdin_of() if stdin_of else None
        try:
            outs[n] = output_of(a + extra, base_env, stdin)
        finally:
            if stdin is not None and hasattr(stdin, "close"):
                stdin.close()
    ref_name = "gnu-9.12" if "gnu-9.12" in outs else "rapidutils"
    return settle(label, {n: difference(ref_name, outs[ref_name], o) for n, o in outs.items()})


def check_stream(argv, expected, out_path=None):
    """What differs (as `difference` says it) between the input file `expected` and what `argv`
    prints: read from a pipe, or, with `out_path`, written into that file (removed after)."""
    env, command = split_env(argv)
    with open(expected, "rb") as ref, tempfile.TemporaryFile() as errors:
        if out_path is None:
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, env=env)
            diff = first_difference(ref, proc.stdout)
            proc.stdout.close()
            status = proc.wait()
        else:
            with open(out_path, "wb") as out:
                status = subprocess.run(command, stdout=out, stderr=errors, env=env).returncode
            with open(out_path, "rb") as got:
                diff = first_difference(ref, got)
            os.unlink(out_path)
        errors.seek(0)
        err = errors.readline().decode(errors="backslashreplace").rstrip("\n")
    parts = []
    # A pipe closed at the first difference ends the writer with SIGPIPE: that is no failure of its own.
    if status != 0 and not (out_path is None and diff is not None and status == -13):
        parts.append(f"exit status {status}" + (f", stderr {shown(err.encode())}" if err else ""))
    if diff:
        parts.append(f"line {diff[0]}" + (f" from byte {diff[1]}" if diff[1] > 41 else "")
                     + f": {shown(diff[3])}, expected {shown(diff[2])}")
    return "; ".join(parts) or None


def timed_rounds(impls, rounds, run, wrong=()):
    """impl -> the value of `run(name, argv)` in each of `rounds` interleaved rounds. An implementation in
    `wrong` (its output is not GNU 9.12's on this row) whose run fails leaves the row, not the run."""
    per = {name: [] for name in impls}
    failed = set()
    for rnd in range(rounds):
        for name, argv in rotated(impls, rnd):
            if name in failed:
                continue
            try:
                per[name].append(run(name, argv))
            except (subprocess.CalledProcessError, RuntimeError, ValueError):
                if name not in wrong:
                    raise
                failed.add(name)
    for name in failed:
        del per[name]
    return per


def pin(cpu):
    return ["taskset", "-c", str(cpu)]


def split_env(argv, base=None):
    """(environment, argv) to run `argv` with: a leading `env NAME=VALUE ...` (a forced kernel)
    goes into the environment instead of running an `env` process, whose exec (0.5-1 ms here)
    would be timed for that implementation alone."""
    env = dict(base if base is not None else os.environ)
    if not argv or argv[0] != "env":
        return env, list(argv)
    rest = list(argv[1:])
    while rest and "=" in rest[0] and not rest[0].startswith("/"):
        name, _, value = rest.pop(0).partition("=")
        env[name] = value
    return env, rest


def read_exactly(pipe, n):
    chunks, got = [], 0
    while got < n:
        chunk = pipe.read(min(1 << 20, n - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def check_yes(argv, line, n=8 << 20):
    """What differs (as `difference` says it) between the first `n` bytes `argv` prints and `line`
    repeated, or None."""
    env, argv = split_env(argv)
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errors, env=env)
        data = read_exactly(proc.stdout, n)
        proc.stdout.close()
        status = proc.wait()
        errors.seek(0)
        err = errors.readline().decode(errors="backslashreplace").rstrip("\n")
    expected = (line * (n // len(line) + 1))[:n]
    # One that printed all n bytes was ended by the closed pipe: its status says nothing.
    return difference("expected", (expected, 0, ""), (data, 0 if len(data) == n else status, err))


def pipe_throughput(producer, mode, nbytes, cross_core):
    cpu_reader = 1 if cross_core else 0
    env, producer = split_env(producer)
    prod = subprocess.Popen(pin(0) + producer, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    reader = subprocess.Popen(pin(cpu_reader) + [READER, mode, str(nbytes)], stdin=prod.stdout,
                              stdout=subprocess.PIPE)
    prod.stdout.close()
    out, _ = reader.communicate()
    prod.wait()
    moved, secs, gibs = out.split()
    if int(moved) != nbytes:
        raise RuntimeError(f"{producer}: moved {moved} of {nbytes} bytes")
    return float(gibs)


def machine():
    """The CPU model, its vector extensions and the kernel: every figure depends on them."""
    model, flags, ids = "unknown CPU", set(), {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model == "unknown CPU":
                    model = " ".join(value.split())
                elif key == "flags" and not flags:
                    flags = set(value.split())
                elif key in ("cpu family", "model") and key not in ids:
                    ids[key] = value.strip()
    except OSError:
        pass
    # A VM may name the CPU only "AMD EPYC": its family and model say which generation it is
    # (AMD family 25 is Zen 3 and Zen 4, 26 Zen 5).
    if ids:
        model += f" (family {ids.get('cpu family', '?')}, model {ids.get('model', '?')})"
    vector = "AVX-512 (VBMI2)" if "avx512_vbmi2" in flags else "AVX-512" if "avx512bw" in flags else \
        "AVX2" if "avx2" in flags else "no AVX2"
    return f"{model}, {vector}, {os.cpu_count()} CPUs, Linux {os.uname().release}"


# A row whose slowest round of some implementation took this many times its fastest is marked.
SPREAD_MARK = 2.0

# Every row reported, for README's speed table (--update-readme): (case, unit, rapidutils,
# GNU 9.12, ratio against the best peer).
SUMMARY = []


def report(title, unit, results, higher_is_better=True, wrong=None):
    """results: case -> impl -> list of per-round values (same length for every impl). Each cell
    is the median with the min and max of the rounds; `spread` is the largest max/min of the
    row, marked when it exceeds SPREAD_MARK (such a row needs more rounds before it says much).
    wrong: case -> impl -> what differs in its output (see `settle`): that cell is marked
    **WRONG** (without figures where its runs failed), the impl is not a peer on that row, and
    what differs is listed under the table."""
    wrong = wrong or {}
    print(f"\n## {title}\n\n{machine()}\n")
    # Every implementation timed on some row or wrong on one (where its runs failed, on no row).
    impls = []
    for case, per_impl in results.items():
        for i in list(per_impl) + list(wrong.get(case, {})):
            if i not in impls:
                impls.append(i)
    head = ("| case | " + " | ".join(f"{i} median (min-max)" for i in impls)
            + " | spread | rapidutils / best peer (median of per-round ratios) |")
    print(head)
    print("|" + "---|" * (len(impls) + 3))
    # Where rounds spread, the best of several peers in a round is the luckiest of them: the
    # ratio against each peer alone says whether rapidutils is behind or the round was.
    per_peer = []
    differs = []
    for case, per_impl in results.items():
        bad = wrong.get(case, {})
        # The peers named by the targets: GNU 9.1, GNU 9.12, uutils, fcoreutils, each where its
        # output on this row is right.
        peers = [i for i in impls if is_peer(i) and i in per_impl and i not in bad]
        cells = " | ".join((f"{statistics.median(per_impl[i]):.2f} ({min(per_impl[i]):.2f}-{max(per_impl[i]):.2f})"
                            if i in per_impl else "-") + (" **WRONG**" if i in bad else "") for i in impls)
        spread = max(max(v) / min(v) for v in per_impl.values() if min(v) > 0)
        spread_cell = f"{spread:.1f}" + (" **!**" if spread > SPREAD_MARK else "")
        mine = per_impl["rapidutils"]
        ratios = []
        for r in range(len(mine) if peers else 0):
            in_round = [per_impl[i][r] for i in peers]
            best = max(in_round) if higher_is_better else min(in_round)
            ratios.append(mine[r] / best if higher_is_better else best / mine[r])
        ratio = f"{statistics.median(ratios):.2f}x" if ratios else "n/a"
        print(f"| {case} | {cells} | {spread_cell} | {ratio} |")
        gnu = per_impl.get("gnu-9.12")
        SUMMARY.append((case, unit.split(",")[0], f"{statistics.median(mine):.2f}",
                        f"{statistics.median(gnu):.2f}" if gnu and "gnu-9.12" not in bad else "-", ratio))
        for i in impls:
            if i in bad:
                differs.append(f"- {case}: {i}'s output differs" + ("" if i in per_impl else " and its runs failed")
                               + f": {bad[i]}")
        if spread > SPREAD_MARK:
            each = []
            for i in peers:
                alone = [(m / p if higher_is_better else p / m) for m, p in zip(mine, per_impl[i]) if m > 0 and p > 0]
                if alone:
                    each.append(f"{i} {statistics.median(alone):.2f}x")
            if each:
                per_peer.append(f"- {case}: rapidutils / each peer (median of per-round ratios): {', '.join(each)}")
    print(f"\n(unit: {unit}; ratio > 1 means rapidutils is faster; peers: GNU 9.1, GNU 9.12, uutils, fcoreutils; "
          f"**!**: a max/min spread above {SPREAD_MARK:g}"
          + ("; **WRONG**: output other than GNU 9.12's on that row, not a peer there" if differs else "") + ")")
    for line in differs + per_peer:
        print(line)
    sys.stdout.flush()


def suite_yes(args):
    impls = implementations("yes")
    results = {}
    lengths = [2, 85, 4096, 100_000]
    modes = ["splice", "read"]
    wrong = {}
    for length in lengths:
        word = "y" * (length - 1)
        line = (word + "\n").encode()
        bad = settle(f"yes (line length {length})",
                     {name: check_yes(argv + [word], line) for name, argv in impls.items()})
        for mode in modes:
            if bad:
                wrong[f"yes into {mode} reader, line {length} B"] = bad
    print("outputs checked: rapidutils prints the right bytes for every line length"
          + (" (peers that do not are marked WRONG on those rows)" if wrong else ", and so does every peer"))
    target_secs = 0.05 if args.quick else 0.3
    for mode in modes:
        for length in lengths:
            word = "y" * (length - 1)
            case = f"yes into {mode} reader, line {length} B"
            bad = wrong.get(case, {})
            # Each implementation moves about target_secs worth of data (from a 256 MiB probe), so
            # slow peers do not dominate the run time; GiB/s are comparable whatever the size.
            nbytes = {}
            for name, argv in impls.items():
                try:
                    probe = pipe_throughput(argv + [word], mode, 256 << 20, args.cross_core)
                except (RuntimeError, ValueError):
                    if name not in bad:
                        raise
                    continue
                nbytes[name] = max(256 << 20, int(probe * target_secs * (1 << 30)) // 4096 * 4096)
            results[case] = timed_rounds(
                {n: a for n, a in impls.items() if n in nbytes}, args.rounds,
                lambda name, argv: pipe_throughput(argv + [word], mode, nbytes[name], args.cross_core), bad)
    where = "producer CPU 0, reader CPU 1" if args.cross_core else "both ends on CPU 0"
    report(f"yes into a pipe ({where}; {args.rounds} rounds)", "GiB/s, median", results, wrong=wrong)
    if shutil.which("pv"):
        suite_yes_pv(args, impls, wrong.get("yes into splice reader, line 2 B", {}))
    else:
        print("\nnot run: yes | pv, as typed (pv is not installed; `make bench-peers` installs it)")


def pv_throughput(producer, nbytes):
    """GiB/s of `producer | pv -q -S -s nbytes > /dev/null` as a user types it: no pinning, the
    whole pipeline timed from its start (a producer's start-up is a millisecond of half a second)."""
    env, producer = split_env(producer)
    start = time.perf_counter()
    prod = subprocess.Popen(producer, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    pv = subprocess.Popen(["pv", "-q", "-S", "-s", str(nbytes)], stdin=prod.stdout, stdout=subprocess.DEVNULL)
    prod.stdout.close()
    if pv.wait() != 0:
        raise RuntimeError(f"{producer} | pv: pv exited with {pv.returncode}")
    secs = time.perf_counter() - start
    prod.wait()
    return nbytes / secs / (1 << 30)


def suite_yes_pv(args, impls, wrong):
    """`yes | pv`, the first thing a user tries: pv splices 1 MiB at a time; neither end is pinned,
    so the scheduler places them as it does for the user (rounds spread more than pinned rows)."""
    case = "yes \\| pv, as typed (not pinned)"
    target_secs = 0.1 if args.quick else 0.5
    nbytes = {}
    for name, argv in impls.items():
        try:
            probe = pv_throughput(argv, 256 << 20)
        except (RuntimeError, ValueError):
            if name not in wrong:
                raise
            continue
        nbytes[name] = max(256 << 20, int(probe * target_secs * (1 << 30)) // 4096 * 4096)
    rounds = max(args.rounds, 5)
    results = {case: timed_rounds({n: a for n, a in impls.items() if n in nbytes}, rounds,
                                  lambda name, argv: pv_throughput(argv, nbytes[name]), wrong)}
    report(f"yes | pv -q -S -s N > /dev/null (not pinned; {rounds} rounds)", "GiB/s, median", results,
           wrong={case: wrong} if wrong else None)


BENCH_DIR = "/tmp/ru-bench"
# Output of the file-copy case on a memory file system: the page-cache copy alone, without the
# disk's writeback and discard stalls.
SHM_OUT = "/dev/shm/ru-bench-out"
# Rounds of the copies into a file (at least): their medians settle only after about 20.
FILE_ROUNDS = 20
# Rounds of wc on 100 MB in each state of the page cache (at least): rounds of 20-30 ms swing by
# 10-20 % on a shared VM, and these rows decide between two close methods (mapping, reading).
STATE_ROUNDS = 15


def text_block():
    """About 1 MB of the benchmark's text (repeated to make text-200M), the same every run."""
    rng = random.Random(42)
    # English-like prose with a little non-ASCII (about 1 word in 30: accents, CJK, a dash),
    # some tabs, empty lines and the odd long line. No multibyte white space: GNU 9.12 miscounts
    # one split by its read boundaries (see docs/COMPATIBILITY.md), which would fail the output check.
    ascii_words = ("the of and to in is was that for it with as his on be at by had not are but from or "
                   "have an they which one you were all her she there would their we him been has when who "
                   "will more no if out so said what up its about into than them can only other new some "
                   "time could these two may then first any my now such like our over man me even most made "
                   "after also did many before must through back years where much your way well down should "
                   "because each just those people mr how too little state good very make world still own "
                   "see men work long get here between both life being under never day same another know").split()
    other_words = ["caf\u00e9", "na\u00efve", "\u65e5\u672c\u8a9e", "\u00e9t\u00e9", "Stra\u00dfe", "\u00e0", "\u2014"]
    lines = []
    for _ in range(20000):
        n = rng.choice([0, 3, 6, 8, 9, 10, 11, 12, 12, 13, 14, 15, 30])
        words = [rng.choice(other_words) if rng.random() < 0.033 else rng.choice(ascii_words) for _ in range(n)]
        line = " ".join(words)
        if rng.random() < 0.1:
            line = "\t" + line
        lines.append(line)
    return ("\n".join(lines) + "\n").encode()


def prepare_inputs():
    """Input files, made once and then cached in memory: text for the formatting options, a
    1 GiB file for plain copies, and 10,000 files of 1 KiB."""
    os.makedirs(BENCH_DIR, exist_ok=True)
    text = os.path.join(BENCH_DIR, "text-200M")
    if not os.path.exists(text):
        block = text_block()
        with open(text, "wb") as f:
            written = 0
            while written < 200_000_000:
                f.write(block)
                written += len(block)
    big = os.path.join(BENCH_DIR, "plain-1G")
    if not os.path.exists(big) or os.path.getsize(big) != 1 << 30:
        # The text repeated to exactly 1 GiB (before 2026-11-30 02:30 this was four copies of
        # the 200 MB text, 0.75 GiB: GiB/s figures were right, the name was not).
        with open(text, "rb") as src:
            chunk = src.read()
        with open(big, "wb") as f:
            left = 1 << 30
            while left > 0:
                f.write(chunk[:left])
                left -= min(left, len(chunk))
    small = os.path.join(BENCH_DIR, "small")
    if not os.path.exists(os.path.join(small, "f9999")):
        os.makedirs(small, exist_ok=True)
        for i in range(10000):
            with open(os.path.join(small, f"f{i}"), "wb") as f:
                f.write(os.urandom(1024))
    # Put the inputs in the page cache the way a read from disk does: dropped from the cache,
    # then read once. How a file came into the cache matters on this kernel: pages left by the
    # writer that made the file are small folios, a read from disk brings large folios, and
    # mapping and copying both cost less per byte over large ones (2026-11-30, 200 MB text: GNU
    # 9.12 cat -A 170 -> 144 ms, rapidutils 56 -> 33 ms). Runs are then comparable from one
    # session to the next, whoever wrote the files.
    for path in (text, big):
        os.sync()
        read_back(path)
    return text, big, [os.path.join(small, f"f{i}") for i in range(10000)]


def read_back(path):
    """Drops `path` from the page cache and reads it once: it sits there as read from disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)


def resident(paths):
    """The fraction of the bytes of `paths` in the page cache (util-linux's `fincore`), or None
    where that cannot be told."""
    try:
        out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES,SIZE"] + list(paths),
                             capture_output=True, text=True, check=True).stdout.split()
        res, size = sum(map(int, out[0::2])), sum(map(int, out[1::2]))
    except (OSError, subprocess.CalledProcessError, ValueError):
        return None
    return 1.0 if size == 0 else res / size


def cached(*paths):
    """Reads back (as `read_back`) inputs that are not wholly in the page cache, and says so,
    before a case is timed: a round that read from disk would time the disk. The 2-vCPU VMs
    reclaim page cache with no memory pressure at all: a DAMON scheme pages out memory not
    touched for 60 s, up to 128 MiB a second (`/sys/kernel/mm/damon/admin/kdamonds/0`, seen on
    the AMD EPYC Zen 5 VM), so an input prepared a minute before its case is partly gone, and
    the first implementation of the first round read it from disk."""
    share = resident(paths)
    if share is not None and share < 1.0:
        what = os.path.basename(paths[0]) + (f" and {len(paths) - 1} more" if len(paths) > 1 else "")
        print(f"note: {100 * (1 - share):.1f}% of {what} had left the page cache: read back before timing")
        for path in paths:
            read_back(path)


def first_lines(path, size):
    """The whole lines of the first `size` bytes of `path`."""
    with open(path, "rb") as src:
        data = src.read(size)
    return data[: data.rfind(b"\n") + 1]


def rotated(impls, rnd):
    """The implementations in round `rnd`'s order, a fixed shuffle per round: who runs just after
    whom changes from round to round. Writes of 1 GiB to this VM's ext4 (mounted with `discard`)
    stall for 1.3-2 s in irregular runs; in one experiment (2026-11-30) the run right after
    busybox's stalled in most rounds, and a rotation, which keeps the same neighbours, put
    rapidutils there in every round."""
    items = list(impls.items())
    random.Random(rnd).shuffle(items)
    return items


def wall_time(argv, stdout, pinned=True):
    """Seconds for one run of argv pinned to CPU 0 (unless not `pinned`), with stdout to DEVNULL
    or a file path. A file output is removed and the page cache's dirty data written back before
    the clock starts, so no run pays for the previous run's writeback."""
    if stdout is not None:
        if os.path.exists(stdout):
            os.unlink(stdout)
        os.sync()
        # The discards of the deleted file's blocks (ext4 mounted with `discard`) go on after
        # sync returns: without a pause the next writer stalls 0.5-3 s in some runs, whoever
        # it is (2026-11-30: 20 rounds with the pause, cat 1G > file 0.29-0.35 s every time).
        time.sleep(0.5)
    out = subprocess.DEVNULL if stdout is None else open(stdout, "wb")
    env, command = split_env(argv)
    try:
        start = time.perf_counter()
        subprocess.run((pin(0) if pinned else []) + command, stdout=out, stderr=subprocess.DEVNULL, check=True, env=env)
        return time.perf_counter() - start
    finally:
        if out is not subprocess.DEVNULL:
            out.close()


def throughput_rounds(impls, rounds, extra, gib, pinned=True, wrong=()):
    """impl -> GiB/s of each of `rounds` interleaved rounds of `argv + extra` (stdout to
    /dev/null) over `gib` GiB of input (see `timed_rounds` for `wrong`)."""
    return timed_rounds(impls, rounds, lambda name, argv: gib / wall_time(argv + extra, None, pinned=pinned), wrong)


def suite_cat(args):
    text, big, small = prepare_inputs()
    impls = implementations("cat")
    kernels = [k for k in (args.kernel or []) if k]
    # Each forced kernel (RAPIDUTILS_SIMD) formats the text again beside the same peers.
    forced = {}
    for k in kernels:
        forced[k] = {"rapidutils": ["env", f"RAPIDUTILS_SIMD={k}", os.path.join(RELEASE, "cat")]}
        if BASELINE:
            forced[k]["rapidutils-baseline"] = ["env", f"RAPIDUTILS_SIMD={k}", os.path.join(BASELINE, "cat")]
        forced[k].update((n, a) for n, a in impls.items() if not n.startswith("rapidutils"))
    # Each row's output: the formatting options' against GNU 9.12's (every forced kernel's too),
    # the plain copies' against the input itself, read from a pipe (the rows into /dev/null and into
    # a pipe) and written into a file on tmpfs (the rows into a file), the small files' against
    # GNU 9.12's.
    wrong = {}
    out_file = os.path.join(BENCH_DIR, "out")
    with_kernels = dict(impls)
    for k, each in forced.items():
        with_kernels.update((f"{n} (RAPIDUTILS_SIMD={k})", a) for n, a in each.items() if n.startswith("rapidutils"))
    for opt in ("-n", "-A", "-v", "-T", "-E"):
        bad = check_outputs(f"cat {opt}", with_kernels, [opt, text])
        if bad:
            wrong[f"cat {opt} 200M > /dev/null"] = bad
            for k in forced:
                wrong[f"cat {opt} 200M, {k}"] = bad
    bad = settle("cat 1G into a pipe", {n: check_stream(a + [big], big) for n, a in impls.items()})
    if bad:
        wrong["cat 1G > /dev/null"] = wrong[PIPE_SAME_CPU] = wrong[PIPE_OTHER_CPU] = bad
    bad = settle("cat 1G > file", {n: check_stream(a + [big], big, SHM_OUT) for n, a in impls.items()})
    if bad:
        wrong["cat 1G > file"] = wrong["cat 1G > file on tmpfs"] = bad
    bad = check_outputs("cat of 10,000 files", impls, small)
    if bad:
        wrong["cat 10,000 files of 1 KiB > /dev/null"] = bad
    print("outputs checked: rapidutils (and every forced kernel) prints GNU 9.12's bytes for cat -n, cat -A, "
          "cat -v, cat -T, cat -E, the input's for cat of 1 GiB into a pipe and into a file, GNU 9.12's for cat "
          "of many files"
          + (" (peers that do not are marked WRONG on those rows)" if wrong else ", and so does every peer"))
    size_big = os.path.getsize(big) / (1 << 30)
    size_text = os.path.getsize(text) / (1 << 30)
    cases = {
        "cat 1G > /dev/null": (lambda a: a + [big], None, size_big),
        "cat 1G > file": (lambda a: a + [big], out_file, size_big),
        "cat 1G > file on tmpfs": (lambda a: a + [big], SHM_OUT, size_big),
        "cat -n 200M > /dev/null": (lambda a: a + ["-n", text], None, size_text),
        "cat -A 200M > /dev/null": (lambda a: a + ["-A", text], None, size_text),
        "cat -v 200M > /dev/null": (lambda a: a + ["-v", text], None, size_text),
        "cat -T 200M > /dev/null": (lambda a: a + ["-T", text], None, size_text),
        "cat -E 200M > /dev/null": (lambda a: a + ["-E", text], None, size_text),
        "cat 10,000 files of 1 KiB > /dev/null": (lambda a: a + small, None, None),
    }
    results = {}
    for case, (make, stdout, gib) in cases.items():
        cached(*[p for p in make([]) if os.path.isfile(p)])
        # Copies into a file stall now and then (writeback, discards): they need many rounds;
        # so do many small files, bound by the file system's calls (5 rounds of 10,000 files
        # gave 0.97x GNU 9.12 where 41 interleaved rounds gave 1.07x, AMD EPYC Zen 5).
        many = gib is None
        rounds = args.rounds if (stdout is None and not many) or args.quick else max(args.rounds, FILE_ROUNDS)

        def run(name, argv, make=make, stdout=stdout, gib=gib):
            secs = wall_time(make(argv), stdout)
            return gib / secs if gib else secs * 1000
        results[case] = timed_rounds(impls, rounds, run, wrong.get(case, {}))
    for path in (out_file, SHM_OUT):
        if os.path.exists(path):
            os.unlink(path)
    throughput = {k: v for k, v in results.items() if cases[k][2]}
    report(f"cat, files cached in memory, pinned to CPU 0 ({args.rounds} rounds; into a file "
           f"{args.rounds if args.quick else max(args.rounds, FILE_ROUNDS)})", "GiB/s, median", throughput, wrong=wrong)
    timed = {k: v for k, v in results.items() if not cases[k][2]}
    report(f"cat of many small files ({args.rounds if args.quick else max(args.rounds, FILE_ROUNDS)} rounds)",
           "ms, median", timed, higher_is_better=False, wrong=wrong)
    if forced:
        per_kernel = {}
        for k, each in forced.items():
            for opt in ("-A", "-v", "-n"):
                cached(text)
                case = f"cat {opt} 200M, {k}"
                per_kernel[case] = throughput_rounds(each, args.rounds, [opt, text], size_text,
                                                     wrong=wrong.get(case, {}))
        report(f"cat formatting with a kernel forced, pinned to CPU 0 ({args.rounds} rounds)", "GiB/s, median",
               per_kernel, wrong=wrong)
    # Both placements, whatever --cross-core says: the relay pipe's second call costs a few per cent
    # where both ends share a CPU, and saves much more where they do not (see cat/copy.rs).
    pipe = {}
    for case, cross_core in ((PIPE_SAME_CPU, False), (PIPE_OTHER_CPU, True)):
        cached(big)
        pipe[case] = timed_rounds(
            impls, args.rounds,
            lambda name, argv, cross_core=cross_core: pipe_throughput(argv + [big], "splice", os.path.getsize(big),
                                                                  cross_core),
            wrong.get(case, {}))
    report("cat into a pipe", "GiB/s, median", pipe, wrong=wrong)


# cat's rows into a pipe: both ends on CPU 0, then the reader on CPU 1.
PIPE_SAME_CPU = "cat 1G into splice reader, both on CPU 0"
PIPE_OTHER_CPU = "cat 1G into splice reader on CPU 1"


# The row of wc -c on a pipe (its | escaped for the Markdown table).
PIPE_CASE = "cat 200M \\| wc -c"


def suite_wc(args):
    text, _, small = prepare_inputs()
    impls = implementations("wc")
    opts = [["-l"], ["-w"], [], ["-m"], ["-L"], ["-c"]]
    # Each row's output against GNU 9.12's, in the row's locale. Peers disagree among themselves
    # on words (GNU 9.12's no-break-space rule, busybox's rules): rapidutils must agree with GNU
    # 9.12, a peer that does not is marked WRONG on that row.
    wrong = {}
    for locale in ("C", "C.UTF-8"):
        env = dict(os.environ, LC_ALL=locale)
        for o in opts:
            bad = check_outputs(f"wc {' '.join(o) or '(default)'} 200M in {locale}", impls, o + [text], env)
            if bad:
                wrong[f"wc {' '.join(o) or '(default)'} 200M, {locale}"] = bad
    print("outputs checked: rapidutils prints GNU 9.12's output for wc -l -w -m -L -c and default in C and C.UTF-8"
          + (" (peers that do not are marked WRONG on those rows)" if wrong else ", and so does every peer")
          + "; each later case is checked before it is timed")
    size = os.path.getsize(text) / (1 << 30)
    results = {}
    for locale in ("C", "C.UTF-8"):
        os.environ["LC_ALL"] = locale
        for o in opts:
            # `wc -c` of a file (and `-m` in a single-byte locale) is one fstat: a start-up time,
            # not a throughput (the start-up suite times it).
            if o == ["-c"] or (o == ["-m"] and locale == "C"):
                continue
            case = f"wc {' '.join(o) or '(default)'} 200M, {locale}"
            cached(text)
            results[case] = throughput_rounds(impls, args.rounds, o + [text], size, wrong=wrong.get(case, {}))
    os.environ.pop("LC_ALL", None)
    report(f"wc on 200 MB of English-like UTF-8 text, cached, pinned to CPU 0 ({args.rounds} rounds)", "GiB/s, median",
           results, wrong=wrong)
    for case, label, extra, stdin_of in (
            (PIPE_CASE, "cat 200M | wc -c", ["-c"],
             lambda: subprocess.Popen(["cat", text], stdout=subprocess.PIPE).stdout),
            ("wc 10,000 files of 1 KiB", "wc of 10,000 files", small, None)):
        bad = check_outputs(label, impls, extra, stdin_of=stdin_of)
        if bad:
            wrong[case] = bad

    def through_cat(name, argv):
        start = time.perf_counter()
        p1 = subprocess.Popen(pin(0) + ["cat", text], stdout=subprocess.PIPE)
        env, command = split_env(argv)
        try:
            subprocess.run(pin(0) + command + ["-c"], stdin=p1.stdout, stdout=subprocess.DEVNULL, check=True, env=env)
        finally:
            p1.stdout.close()
            p1.wait()
        return size / (time.perf_counter() - start)
    cached(text, *small)
    pipe = {PIPE_CASE: timed_rounds(impls, args.rounds, through_cat, wrong.get(PIPE_CASE, {}))}
    many = {"wc 10,000 files of 1 KiB": timed_rounds(
        impls, args.rounds, lambda name, argv: wall_time(argv + small, None) * 1000,
        wrong.get("wc 10,000 files of 1 KiB", {}))}
    report("wc -c of a pipe (cat start-up included for every implementation alike)", "GiB/s, median", pipe, wrong=wrong)
    report("wc of many small files", "ms, median", many, higher_is_better=False, wrong=wrong)
    # A 1 GiB file unpinned (where an implementation may use threads).
    _, big, _ = prepare_inputs()
    gib = os.path.getsize(big) / (1 << 30)
    unpinned = {}
    os.environ["LC_ALL"] = "C.UTF-8"
    for o in (["-l"], [], ["-m"], ["-L"]):
        case = f"wc {' '.join(o) or '(default)'} 1G, C.UTF-8, unpinned"
        bad = check_outputs(f"wc {' '.join(o) or '(default)'} 1G in C.UTF-8", impls, o + [big])
        if bad:
            wrong[case] = bad
        cached(big)
        unpinned[case] = throughput_rounds(impls, args.rounds, o + [big], gib, pinned=False, wrong=wrong.get(case, {}))
    os.environ.pop("LC_ALL", None)
    report(f"wc on 1 GiB, cached, not pinned ({args.rounds} rounds)", "GiB/s, median", unpinned, wrong=wrong)
    state_rounds = args.rounds if args.quick else max(args.rounds, STATE_ROUNDS)
    by_state = {}
    os.environ["LC_ALL"] = "C.UTF-8"
    for state in PAGE_CACHE_STATES:
        # Each state made just before its cases, which touch it every few ms: it stays as made.
        path = page_cache_state(text, state)
        gib = os.path.getsize(path) / (1 << 30)
        for o in (["-l"], ["-m"]):
            bad = check_outputs(f"wc {o[0]} 100M, {state}, in C.UTF-8", impls, o + [path])
            for pinned in (True, False):
                case = f"wc {o[0]} 100M, {state}, {'pinned' if pinned else 'not pinned'}"
                if bad:
                    wrong[case] = bad
                by_state[case] = throughput_rounds(impls, state_rounds, o + [path], gib, pinned=pinned, wrong=bad)
        share = resident([path])
        if share is not None and share < 1.0:
            print(f"note: {100 * (1 - share):.1f}% of the file {state} left the page cache during its cases")
    os.environ.pop("LC_ALL", None)
    report(f"wc on 100 MB in two states of the page cache, C.UTF-8 ({state_rounds} rounds)", "GiB/s, median", by_state,
           wrong=wrong)


# The two states a script meets a file in: just written by a previous step in 4 KiB writes
# (small pages in the cache), and read back from disk (dropped from the cache, then read once:
# large folios). Mapping and reading rank differently in the two on some machines (an AMD EPYC
# Zen 3: see benches/RESULTS.md).
PAGE_CACHE_STATES = {"just written (4 KiB writes)": "written-100M", "read back from disk": "read-back-100M"}


def page_cache_state(text, state):
    """100 MB of the text in `state` (a key of PAGE_CACHE_STATES), made now; returns its path."""
    data = first_lines(text, 100_000_000)
    path = os.path.join(BENCH_DIR, PAGE_CACHE_STATES[state])
    if os.path.exists(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for at in range(0, len(data), 4096):
            os.write(fd, data[at:at + 4096])
    finally:
        os.close(fd)
    os.sync()
    if state == "read back from disk":
        read_back(path)
    return path


SCRIPTS_DIR = os.path.join(BENCH_DIR, "scripts")


def prepare_corpora():
    """The texts of benches/corpora.py (about 100 MB each), made once, dropped from the page cache
    and read once (as the other inputs), plus a 100 MB cut of the English-like text and that cut
    without its non-ASCII bytes."""
    subprocess.run([sys.executable, os.path.join(ROOT, "benches", "corpora.py"), SCRIPTS_DIR],
                   check=True, stdout=subprocess.DEVNULL)
    import corpora
    paths = {}
    english = os.path.join(SCRIPTS_DIR, "english.txt")
    if not os.path.exists(english):
        text, _, _ = prepare_inputs()
        with open(english, "wb") as f:
            f.write(first_lines(text, 100_000_000))
    paths["english"] = english
    # The same without its bytes above 0x7f: text in which `-m` has no character to check.
    ascii = os.path.join(SCRIPTS_DIR, "ascii.txt")
    if not os.path.exists(ascii):
        with open(english, "rb") as src, open(ascii, "wb") as f:
            f.write(src.read().translate(None, bytes(range(0x80, 0x100))))
    paths["ascii"] = ascii
    for name in corpora.NAMES:
        paths[name] = os.path.join(SCRIPTS_DIR, name + ".txt")
    for path in paths.values():
        read_back(path)
    return paths


def suite_scripts(args):
    """wc on text in many scripts: each option's time per corpus beside the peers, and
    rapidutils' time against its own wc -l on the same file (the yardstick: counting words,
    widths or characters should cost about what counting lines costs, whatever the script)."""
    sys.path.insert(0, os.path.join(ROOT, "benches"))
    corpora = prepare_corpora()
    impls = implementations("wc")
    kernels = [k for k in (args.kernel or []) if k]
    for k in kernels:
        impls[f"rapidutils-{k}"] = ["env", f"RAPIDUTILS_SIMD={k}", os.path.join(RELEASE, "wc")]
        if BASELINE:
            impls[f"rapidutils-baseline-{k}"] = ["env", f"RAPIDUTILS_SIMD={k}", os.path.join(BASELINE, "wc")]
    opts = [["-l"], ["-w"], [], ["-L"], ["-m"]]
    env = dict(os.environ, LC_ALL="C.UTF-8")
    # Outputs: rapidutils (every kernel) must print GNU 9.12's counts. Where GNU 9.12's own read
    # boundaries split a multibyte space (its bug: an extra word, see docs/COMPATIBILITY.md), GNU 9.1,
    # whose loop has no such bug for UTF-8 spaces, is taken as the reference.
    # Peers that print other counts are marked WRONG and are not the best peer of their row.
    wrong = {}
    for name, path in corpora.items():
        for o in opts:
            outs = {n: stdout_of(a + o + [path], env) for n, a in impls.items()}
            ref = outs.get("gnu-9.12")
            mine = [v for n, v in outs.items() if n.startswith("rapidutils")]
            good = {v for v in mine if v == ref or ref is None} or set(mine)
            for n, v in outs.items():
                if not n.startswith("rapidutils") and n != "gnu-9.12" and v not in good and ref is not None:
                    wrong[(' '.join(o) or '(default)', name, n)] = difference("rapidutils", (mine[0], 0, ""),
                                                                             (v, 0, ""))
            if ref is not None and any(v != ref for v in mine):
                if o == ["-w"] or o == []:
                    alt = outs.get("gnu-9.1")
                    if alt is not None and all(v == alt for v in mine):
                        print(f"note: wc {' '.join(o)} {name}: GNU 9.12 says {ref.split()}, rapidutils and GNU 9.1 "
                              f"{alt.split()} (GNU 9.12's read-boundary bug)")
                        continue
                print(f"OUTPUT MISMATCH: wc {o} {name}: {outs}", file=sys.stderr)
                sys.exit(1)
    print("outputs checked: rapidutils gives GNU 9.12's counts for wc -l -w -L -m and default on every corpus")
    os.environ["LC_ALL"] = "C.UTF-8"
    results = {}
    for o in opts:
        for name, path in corpora.items():
            cached(path)
            per = {n: [] for n in impls}
            for rnd in range(args.rounds):
                for n, argv in rotated(impls, rnd):
                    per[n].append(wall_time(argv + o + [path], None) * 1000)
            results[(' '.join(o) or '(default)', name)] = per
    os.environ.pop("LC_ALL", None)
    names = list(impls)
    for o in opts:
        opt = ' '.join(o) or '(default)'
        print(f"\n## wc {opt}, 100 MB per script, C.UTF-8, cached, pinned to CPU 0 ({args.rounds} rounds)\n\n{machine()}\n")
        # Each forced kernel against its own wc -l too (the yardstick holds for every kernel).
        own_of = ["rapidutils"] + [f"rapidutils-{k}" for k in kernels]
        if any(w[0] == opt for w in wrong):
            print("(**WRONG**: counts other than GNU 9.12's, and not the best peer)\n")
        print("| corpus | " + " | ".join(f"{n} ms" for n in names)
              + " | rapidutils / best peer | " + " | ".join(f"{n} / its own wc -l" for n in own_of) + " |")
        print("|" + "---|" * (len(names) + 2 + len(own_of)))
        for name in corpora:
            per = results[(opt, name)]
            peers = [n for n in names if not n.startswith("rapidutils") and n != "busybox"
                     and (opt, name, n) not in wrong]
            ratios = [min(per[p][r] for p in peers) / per["rapidutils"][r] for r in range(args.rounds)] if peers else []
            own = []
            for n in own_of:
                lines = results[("-l", name)][n]
                own.append(f"{statistics.median(per[n][r] / lines[r] for r in range(args.rounds)):.2f}x")
            cells = " | ".join(f"{statistics.median(per[n]):.1f}" + (" **WRONG**" if (opt, name, n) in wrong else "")
                               for n in names)
            ratio = f"{statistics.median(ratios):.2f}x" if ratios else "n/a"
            print(f"| {name} | {cells} | {ratio} | {' | '.join(own)} |")
        for (w_opt, w_name, n), d in wrong.items():
            if w_opt == opt:
                print(f"- {w_name}: {n}'s output differs: {d}")
        sys.stdout.flush()


# Runs of each start-up command before the timed ones (page cache, branch predictors).
STARTUP_WARMUP = 20


def interleaved_runs(commands, runs, shell):
    """Wall seconds of each run of each command, the commands taking turns run by run (in an
    order shuffled every run), pinned to CPU 0, output to /dev/null. hyperfine runs one
    command's runs in a row, so a drift of the machine during a session fell on one
    implementation: GNU 9.1's `LANG=ja_JP.EUC-JP wc -l tiny` read 0.55 ms in a session where its
    C-locale row read 0.95. Run by run, every drift falls on all alike, and run i of each
    command makes round i of the per-round ratios."""
    argvs = [["/bin/sh", "-c", c] if shell else c.split() for c in commands]
    devnull = os.open(os.devnull, os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    times = [[] for _ in commands]
    saved = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {0})
    try:
        for run in range(-STARTUP_WARMUP, runs):
            order = list(range(len(commands)))
            random.Random(run).shuffle(order)
            for i in order:
                start = time.perf_counter()
                pid = os.posix_spawn(argvs[i][0], argvs[i], os.environ, file_actions=actions)
                os.waitpid(pid, 0)
                elapsed = time.perf_counter() - start
                if run >= 0:
                    times[i].append(elapsed)
    finally:
        os.sched_setaffinity(0, saved)
        os.close(devnull)
    return times


def suite_startup(args):
    # busybox is left out (its applets share one binary, like rapidutils' multi-call column).
    text, _, _ = prepare_inputs()
    tiny = os.path.join(BENCH_DIR, "tiny")
    os.makedirs(BENCH_DIR, exist_ok=True)
    with open(tiny, "w") as f:
        f.write("hello\n")
    multi = os.path.join(RELEASE, "rapidutils")
    missing = os.path.join(BENCH_DIR, "no-such-file")
    # Small files of other scripts: what -L pays for its first characters' classes.
    import corpora
    small = {name: os.path.join(BENCH_DIR, f"{name}-10k.txt") for name in ("chinese", "mixed")}
    for name, path in small.items():
        corpora.write(path, name, 10_000)
    # (tool, through a shell, command, LANG or None for the environment's locale). Translated
    # rows: a run that prints nothing translated must not open a catalog (GNU 9.1 selects every
    # locale category at start); one that prints a message opens the same catalog GNU opens.
    cases = {
        "yes --version > /dev/null": ("yes", False, lambda argv: " ".join(argv) + " --version", None),
        "yes \\| head -n1": ("yes", True, lambda argv: " ".join(argv) + " | head -n1", None),
        "cat tiny-file > /dev/null": ("cat", False, lambda argv: " ".join(argv) + " " + tiny, None),
        "cat -n tiny-file > /dev/null": ("cat", False, lambda argv: " ".join(argv) + " -n " + tiny, None),
        "wc -l tiny-file": ("wc", False, lambda argv: " ".join(argv) + " -l " + tiny, None),
        "wc tiny-file": ("wc", False, lambda argv: " ".join(argv) + " " + tiny, None),
        "wc -c 200M-file (fstat)": ("wc", False, lambda argv: " ".join(argv) + " -c " + text, None),
        "wc -L 10 KB of Chinese": ("wc", False, lambda argv: " ".join(argv) + " -L " + small["chinese"], "C.UTF-8"),
        "wc -L 10 KB of mixed scripts": (
            "wc", False, lambda argv: " ".join(argv) + " -L " + small["mixed"], "C.UTF-8"),
        # The C locale, GNU's fastest start-up (it loads no locale): in C.UTF-8, the usual
        # environment, GNU 9.1 opens some 25 files at start (each category of Debian's C.utf8,
        # which is not in the locale archive, and gconv's module cache).
        "LANG=C cat tiny-file": ("cat", False, lambda argv: " ".join(argv) + " " + tiny, "C"),
        "LANG=C wc -l tiny-file": ("wc", False, lambda argv: " ".join(argv) + " -l " + tiny, "C"),
        "LANG=C wc tiny tiny": ("wc", False, lambda argv: " ".join(argv) + f" {tiny} {tiny}", "C"),
        "LANG=fr_FR.UTF-8 cat tiny-file": ("cat", False, lambda argv: " ".join(argv) + " " + tiny, "fr_FR.UTF-8"),
        "LANG=fr_FR.UTF-8 wc -l tiny-file": ("wc", False, lambda argv: " ".join(argv) + " -l " + tiny, "fr_FR.UTF-8"),
        "LANG=fr_FR.UTF-8 wc tiny-file": ("wc", False, lambda argv: " ".join(argv) + " " + tiny, "fr_FR.UTF-8"),
        "LANG=fr_FR.UTF-8 wc tiny tiny (prints 'total')": (
            "wc", False, lambda argv: " ".join(argv) + f" {tiny} {tiny}", "fr_FR.UTF-8"),
        "LANG=fr_FR.UTF-8 cat missing-file (message)": (
            "cat", True, lambda argv: " ".join(argv) + f" {missing} 2>/dev/null; true", "fr_FR.UTF-8"),
        "LANG=ja_JP.EUC-JP wc -l tiny-file": ("wc", False, lambda argv: " ".join(argv) + " -l " + tiny, "ja_JP.EUC-JP"),
        "LANG=ja_JP.EUC-JP wc tiny tiny (prints 'total')": (
            "wc", False, lambda argv: " ".join(argv) + f" {tiny} {tiny}", "ja_JP.EUC-JP"),
    }
    results = {}
    runs = 50 if args.quick else 300
    saved = {k: os.environ.get(k) for k in ("LANG", "LC_ALL", "LANGUAGE")}
    for case, (tool, shell, make, lang) in cases.items():
        wanted = ("rapidutils", "rapidutils-baseline", "gnu-9.1", "gnu-9.12", "uutils", "fcoreutils")
        impls = {k: v for k, v in implementations(tool).items() if k in wanted}
        names = list(impls) + ["rapidutils (multi-call)"]
        argvs = list(impls.values()) + [[multi, tool]]
        if lang:
            for k in ("LC_ALL", "LANGUAGE"):
                os.environ.pop(k, None)
            os.environ["LANG"] = lang
        times = interleaved_runs([make(argv) for argv in argvs], runs, shell)
        per = {n: [t * 1000 for t in ts] for n, ts in zip(names, times)}
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        results[case] = per
    report(f"start-up ({runs} interleaved runs, pinned to CPU 0; median ms, lower is better)", "ms", results,
           higher_is_better=False)


# README.md's speed table lies between these lines (`make speed-table` rewrites it).
README_BEGIN = "<!-- speed table: written by `make speed-table` (benches/bench.py --update-readme) -->"
README_END = "<!-- end of the speed table -->"


def update_readme(command):
    """Replaces README.md's speed table with this run's rows, naming the CPU, date and commit."""
    commit = subprocess.run(["git", "describe", "--always", "--dirty", "--abbrev=7"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip() or "unknown"
    lines = [README_BEGIN,
             f"Measured {time.strftime('%Y-%m-%d', time.gmtime())} at commit {commit} on {machine()}: "
             f"`{command}`, inputs in the page cache, pinned to CPU 0 unless a row says otherwise, "
             "medians of interleaved rounds. The last column is the median of per-round ratios against "
             "the fastest of GNU 9.1, GNU 9.12, uutils and fcoreutils that printed GNU 9.12's output "
             "(above 1: rapidutils is faster).",
             "",
             "| case | unit | rapidutils | GNU 9.12 | rapidutils / best peer |",
             "|---|---|---|---|---|"]
    lines += [f"| {case} | {unit} | {mine} | {gnu} | {ratio} |" for case, unit, mine, gnu, ratio in SUMMARY]
    lines.append(README_END)
    path = os.path.join(ROOT, "README.md")
    text = open(path).read()
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if begin < 0 or end < begin:
        sys.exit(f"README.md has no speed table between {README_BEGIN!r} and {README_END!r}")
    with open(path, "w") as f:
        f.write(text[:begin] + "\n".join(lines) + text[end + len(README_END):])
    print(f"\nREADME.md: speed table of {len(SUMMARY)} rows written")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="fewer bytes and runs (a smoke test)")
    parser.add_argument("--cross-core", action="store_true",
                        help="pin yes's pipe ends to different CPUs (cat into a pipe is timed both ways)")
    parser.add_argument("--suite", action="append", choices=["yes", "cat", "wc", "scripts", "startup"])
    parser.add_argument("--kernel", action="append", choices=["avx2", "ssse3", "sse2", "portable"],
                        help="scripts and cat suites: also time rapidutils with RAPIDUTILS_SIMD=KERNEL")
    parser.add_argument("--baseline", metavar="DIR",
                        help="also time the yes, cat, wc of another rapidutils build in DIR (before/after)")
    parser.add_argument("--update-readme", action="store_true",
                        help="write this run's rows into README.md's speed table")
    args = parser.parse_args()
    global BASELINE
    BASELINE = args.baseline and os.path.abspath(args.baseline)
    # Always rebuild with default features: a `--features portable` build may be in target/.
    subprocess.run(["cargo", "build", "-q", "--release", "--bins", "--example", "pipe_reader"], cwd=ROOT, check=True)
    print(f"# rapidutils benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"machine: {machine()}; "
          f"inputs and binaries cached in memory (inputs dropped from the cache and read once first); pipe-max-size "
          f"{open('/proc/sys/fs/pipe-max-size').read().strip()}")
    print("implementations:", ", ".join(f"{n} ({' '.join(a)})" for n, a in implementations("yes").items()))
    for suite in args.suite or ["yes", "cat", "wc", "scripts", "startup"]:
        {"yes": suite_yes, "cat": suite_cat, "wc": suite_wc, "scripts": suite_scripts,
         "startup": suite_startup}[suite](args)
    if args.update_readme:
        # (A baseline build is another column of the run, not of the table: its path is left out.)
        argv = sys.argv[1:]
        shown = [a for i, a in enumerate(argv) if a != "--baseline" and (i == 0 or argv[i - 1] != "--baseline")]
        update_readme("python3 benches/bench.py " + " ".join(shown))


if __name__ == "__main__":
    main()
