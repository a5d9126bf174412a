#!/usr/bin/env python3
"""Cycles per 64 bytes of the hot loops, on CPU models this machine is not (llvm-mca).

    python3 benches/mca.py [--bin DIR]... [--kernel NAME]... [--cpu MODEL]... [--keep DIR]

For each workload the release tool runs under callgrind (which counts every instruction it
executes, deterministically, and, having no AVX-512, shows the CPU as an AVX2 one: the AVX2
kernel is what runs, or a lower one `--kernel` names: `--kernel sse2 --kernel ssse3 --cpu
nehalem --cpu ivybridge --cpu goldmont` models the CPUs without AVX2), on a generated 2 MB input and on twice as much. What the second run
executes more than the first is what the input's bytes cost: start-up and what a run pays
once (`wc -L`'s width tables: 36,864 characters asked of the C library on 2 MB of Chinese)
drop out, so the figures do not depend on the input's size. The hot code is read off those counts: the instructions of the tool's
own binary that ran at least once per 64 input bytes' worth (size / 64 / 8 times more),
grouped by how many times more they ran (a group: the basic blocks of one loop level, as a
block loop and the loop inside it). llvm-mca (llvm-14) models each group on each CPU model as
a loop of its own, and the cycles per 64 input bytes are the sum over groups of its cycles per
iteration times its count, over size / 64.

So the figures say how the loops' instructions fit each core's ports and latencies, summed
level by level: no overlap between levels is counted (an over-estimate, the same for every
build), branches are modelled as not taken and memory as always in L1. They compare kernels,
CPUs, and one build with another (`--bin` twice: each build's rows side by side), not what
the memory or the page cache add. The binary's own addresses are used (callgrind gives them
relative to the executable, as objdump reads them): what is modelled is the shipped code.

What llvm-mca leaves out, the branches that go one way or the other at random (how many bytes
of a block `cat -A` notates), is counted apart: the conditional branches mispredicted per 64
input bytes by cachegrind's branch model (`--branch-sim=yes`: a table of two-bit counters, not
a real CPU's predictor, but a branch that follows the data at random is missed by every
predictor), from a run on twice the input less one on the input (start-up left out). Each
costs the pipeline a refill, more than a step of these loops: on an AMD EPYC Zen 4 with AVX2
forced, a `cat -A` build with 14 % fewer instructions and 3.6 times the mispredicts took 1.16
times as long (benches/RESULTS.md).
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benches"))
import bench  # noqa: E402
import corpora  # noqa: E402

SIZE = 2_000_000
# (row, tool, arguments, input, locale)
WORKLOADS = [
    ("cat -A, the benchmark's text", "cat", ["-A"], "text", "C"),
    ("cat -v, the benchmark's text", "cat", ["-v"], "text", "C"),
    ("wc -m, UTF-8 check, Chinese", "wc", ["-m"], "chinese", "C.UTF-8"),
    ("wc -m, UTF-8 check, mixed scripts", "wc", ["-m"], "mixed", "C.UTF-8"),
    ("wc -m, UTF-8 check, the benchmark's text", "wc", ["-m"], "text", "C.UTF-8"),
    ("wc -m, UTF-8 check, ASCII", "wc", ["-m"], "ascii", "C.UTF-8"),
    ("wc -l, line count, the benchmark's text", "wc", ["-l"], "text", "C"),
    ("wc -L, widths, Chinese", "wc", ["-L"], "chinese", "C.UTF-8"),
]
# The AVX2 cores most users have. llvm-mca 14 models alderlake as skylake (the same figures) and
# znver2 nearly as znver1; they are kept so that a newer llvm-mca tells them apart.
CPUS = ["znver1", "znver2", "znver3", "skylake", "alderlake"]


def write_inputs(directory, size=SIZE):
    paths = {}
    for name in sorted({w[3] for w in WORKLOADS}):
        path = os.path.join(directory, name + ".txt")
        if name == "text":
            block = bench.text_block()
        elif name == "ascii":
            block = bytes(b for b in bench.text_block() if b < 0x80)
        else:
            block = corpora.block_for(name)
        data = (block * (size // len(block) + 1))[:size]
        with open(path, "wb") as f:
            f.write(data[: data.rfind(b"\n") + 1])
        paths[name] = path
    return paths


def self_costs(callgrind_out, binary):
    """address -> instructions executed there (self cost), for the code of `binary`."""
    costs = collections.Counter()
    objects, ob, skip, addr = {}, None, False, 0
    with open(callgrind_out) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"(c?ob)=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(3):
                    objects[m.group(2)] = m.group(3)
                if m.group(1) == "ob":
                    ob = objects.get(m.group(2))
                continue
            if line.startswith("calls="):
                skip = True  # the next cost line is the call's inclusive cost
                continue
            if not line or not (line[0] in "+-*" or line.startswith("0x")):
                continue
            pos, _, rest = line.partition(" ")
            if pos == "*":
                pass
            elif pos[0] in "+-":
                addr += int(pos)
            else:
                addr = int(pos, 16)
            if skip:
                skip = False
                continue
            if ob and os.path.realpath(ob) == os.path.realpath(binary):
                costs[addr] += int(rest.split()[-1])
    return costs


def disassemble(binary, start, stop):
    """[(address, instruction)] between two addresses, in AT&T syntax."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                          f"--stop-address={stop:#x}", binary], capture_output=True, text=True, check=True).stdout
    code = []
    for line in out.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)$", line)
        if m:
            code.append((int(m.group(1), 16), m.group(2).strip()))
    return code


def for_mca(instruction):
    """An objdump line as llvm-mca's assembler takes it: no comments, branches to a label."""
    text = instruction.split("#")[0].strip()
    text = re.sub(r"\s*<[^>]*>", "", text)
    mnemonic = text.split()[0]
    if mnemonic.startswith("j"):
        return f"{mnemonic} .Lloop"
    return text


def mca_cycles(asm, cpu):
    """llvm-mca's cycles per iteration of `asm` on `cpu`."""
    iterations = 300
    out = subprocess.run(["llvm-mca-14", f"-mcpu={cpu}", f"-iterations={iterations}"], input=asm,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"llvm-mca -mcpu={cpu}: {out.stderr.strip()}")
    total = int(re.search(r"Total Cycles:\s+(\d+)", out.stdout).group(1))
    return total / iterations


def measure(bin_dir, kernel, workload, inputs, work, keep):
    row, tool, args, name, locale = workload
    tool_path = os.path.join(bin_dir, tool)
    binary = os.path.realpath(tool_path)  # the multi-call binary where the tool is a link to it
    env = dict(os.environ, LC_ALL=locale, RAPIDUTILS_SIMD=kernel)
    # What a run on twice the input executes more than a run on it: start-up and the costs
    # paid once a run (the C library's width tables of `wc -L`) do not count.
    once, twice = (executed(tool_path, args, inputs[key], env, work, binary) for key in (name, "twice " + name))
    costs = collections.Counter({a: n - once[a] for a, n in twice.items() if n > once[a]})
    size = os.path.getsize(inputs["twice " + name]) - os.path.getsize(inputs[name])
    blocks = size / 64
    hot = {a: n for a, n in costs.items() if n * 8 >= blocks}
    code = dict(disassemble(binary, min(hot), max(hot) + 16))
    missing = [a for a in hot if a not in code]
    if missing:
        raise RuntimeError(f"{row}: {len(missing)} hot addresses objdump does not show")
    groups = collections.defaultdict(list)
    for addr in sorted(hot):
        groups[hot[addr]].append(code[addr])
    # The path: every hot instruction once, in address order, as one iteration of the main loop
    # (the group of the most instructions), so that the levels' latencies can overlap and
    # queue up as they do on the core.
    main = max(groups, key=lambda count: len(groups[count]))
    path = ".Lloop:\n" + "\n".join(for_mca(code[a]) for a in sorted(hot)) + "\n"
    path_cycles = {cpu: mca_cycles(path, cpu) * main / blocks for cpu in CPUS}
    cycles = {cpu: 0.0 for cpu in CPUS}
    for count, instructions in groups.items():
        asm = ".Lloop:\n" + "\n".join(for_mca(i) for i in instructions) + "\n"
        for cpu in CPUS:
            cycles[cpu] += mca_cycles(asm, cpu) * count
        if keep:
            slug = re.sub(r"[^a-z0-9]+", "-", row.lower()).strip("-")
            with open(os.path.join(keep, f"{slug}.{os.path.basename(os.path.normpath(bin_dir))}.{kernel}.s"), "a") as f:
                f.write(f"# {len(instructions)} instructions run {count} times ({count / blocks:.2f} per 64 B)\n{asm}")
    return {"instructions": len(hot), "groups": len(groups), "cycles": {c: v / blocks for c, v in cycles.items()},
            "path": path_cycles, "mispredicts": mispredicts_per_block(tool_path, args, inputs, name, env),
            "ir_per_byte": sum(costs.values()) / size, "hot_share": sum(hot.values()) / sum(costs.values())}


def executed(tool_path, args, path, env, work, binary):
    """address -> instructions executed there in a run of the tool on `path` (callgrind)."""
    cg = os.path.join(work, "callgrind.out")
    subprocess.run(["valgrind", "-q", "--tool=callgrind", "--dump-instr=yes", f"--callgrind-out-file={cg}",
                    tool_path] + args + [path], env=env, stdout=subprocess.DEVNULL, check=True)
    return self_costs(cg, binary)


def mispredicts_per_block(tool_path, args, inputs, name, env):
    """Conditional branches mispredicted per 64 input bytes, by cachegrind's branch model: the
    difference between a run on the input and one on twice as much, so that start-up's do not
    count."""
    one, two = inputs[name], inputs["twice " + name]
    extra = (os.path.getsize(two) - os.path.getsize(one)) / 64
    return (mispredicts(tool_path, args, two, env) - mispredicts(tool_path, args, one, env)) / extra


def mispredicts(tool_path, args, path, env):
    """Conditional branches mispredicted in a run, by cachegrind's branch model."""
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--branch-sim=yes",
                          "--cachegrind-out-file=/dev/null", tool_path] + args + [path],
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True).stderr
    return int(re.search(r"Mispredicts:\s+[\d,]+\s+\(\s*([\d,]+) cond", out).group(1).replace(",", ""))


def main():
    global CPUS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", action="append", help="directory of the release tools (repeatable)")
    parser.add_argument("--kernel", action="append", help="RAPIDUTILS_SIMD kernel (repeatable; default avx2)")
    parser.add_argument("--cpu", action="append", help="llvm-mca CPU model (repeatable; default znver1, znver2, znver3, skylake, alderlake)")
    parser.add_argument("--keep", help="write each modelled loop's assembly into this directory")
    args = parser.parse_args()
    bins = args.bin or [os.path.join(ROOT, "target", "release")]
    kernels = args.kernel or ["avx2"]
    CPUS = args.cpu or CPUS
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rapidutils-mca.") as work:
        inputs = write_inputs(work)
        os.mkdir(os.path.join(work, "twice"))
        inputs.update(("twice " + name, path) for name, path in write_inputs(os.path.join(work, "twice"), 2 * SIZE).items())
        head = "| loop | build | hot instructions (groups) | share of all executed | " + \
            " | ".join(f"{c} cycles / 64 B, path / levels" for c in CPUS) + \
            " | instructions / byte (callgrind, twice the input less once) | branches mispredicted / 64 B (cachegrind) |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        for workload in WORKLOADS:
            for bin_dir, kernel in ((b, k) for b in bins for k in kernels):
                r = measure(bin_dir, kernel, workload, inputs, work, args.keep)
                cells = " | ".join(f"{r['path'][c]:.1f} / {r['cycles'][c]:.1f}" for c in CPUS)
                build = bin_dir if kernels == ["avx2"] else f"{bin_dir} {kernel}"
                print(f"| {workload[0]} | {build} | {r['instructions']} ({r['groups']}) | {r['hot_share']:.0%} | {cells} | "
                      f"{r['ir_per_byte']:.3f} | {r['mispredicts']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
