#!/usr/bin/env python3
"""Random, valid text IR-PGO profiles with many value-profile ties, for differential tests.

usage: irpgo_text_gen.py SEED OUTDIR [--llvm14] [--variants]
Writes OUTDIR/in_<i>.proftext for 1..20 inputs and prints one merge argument per line
(`W,path` for weighted inputs, `path` otherwise), in a random input order.
Everything depends on SEED only, so a failing case is replayed from its seed.
--llvm14 leaves out what llvm-profdata-14 cannot read (bitmaps, temporal traces).
--variants adds what makes records disagree between inputs: context-sensitive records
(hash bit 60), a second hash under the same name, another number of counters or value
sites, repeated records in one input, vtable value sites.
--traces adds temporal profile traces to some inputs: a few or more than llvm-profdata's
default reservoir of 100, stream sizes that say the input was sampled already, long traces,
names the profile has no record for.
"""
import os
import random
import sys


def site(rng, names, kind):
    n = rng.choice([0, 0, 1, 2, 3, 4, 6, 9])
    counts = rng.choice([[1], [5, 5, 7], [156, 3], [2, 2, 2, 9]])
    if kind in (0, 2):
        vals = rng.sample(names, min(n, len(names)))
    else:
        vals = rng.sample([0, 1, 2, 3, 4, 5, 6, 7, 8, 16, 24, 32, 64, 100, 128, 1000], n)
    return [(v, rng.choice(counts)) for v in vals]


def function(rng, fid, shape, names, llvm14, variants=False):
    ncounters, nic, nmem = shape
    nvt = 0
    hash_ = 1000 + fid
    if variants:
        if rng.random() < 0.15:
            hash_ |= 1 << 60  # context-sensitive
        elif rng.random() < 0.1:
            hash_ += 1000  # the same name under another CFG hash
        if rng.random() < 0.1:
            ncounters += rng.choice([-1, 1]) if ncounters > 1 else 1
        if rng.random() < 0.1:
            nic += 1
        nvt = fid % 3
    zero = rng.random() < 0.15
    lines = [f"f{fid}", f"# Func Hash:", f"{hash_}", "# Num Counters:", f"{ncounters}",
             "# Counter Values:"]
    lines += ["0" if zero else str(rng.choice([0, 1, 7, 100, 156])) for _ in range(ncounters)]
    kinds = []
    if nic:
        kinds.append((0, "IPVK_IndirectCallTarget", nic))
    if nmem:
        kinds.append((1, "IPVK_MemOPSize", nmem))
    if nvt:
        kinds.append((2, "IPVK_VTableTarget", nvt))
    if kinds:
        lines += ["# Num Value Kinds:", str(len(kinds))]
        for k, kname, nsites in kinds:
            lines += [f"# ValueKind = {kname}:", str(k), "# NumValueSites:", str(nsites)]
            for _ in range(nsites):
                vd = [] if zero else site(rng, names, k)
                lines.append(str(len(vd)))
                lines += [f"{v}:{c}" for v, c in vd]
    return lines + [""]


def traces(rng, names):
    n = rng.choice([1, 2, 3, 5, 8, 40, 99, 100, 101, 150])
    stream = n if rng.random() < 0.6 else n + rng.choice([1, 10, 200, 1000])
    out = [":temporal_prof_traces", "# Num Temporal Profile Traces:", str(n),
           "# Temporal Profile Trace Stream Size:", str(stream)]
    pool = names + [f"cold{i}" for i in range(4)]
    for _ in range(n):
        length = rng.choice([1, 2, 3, 5, 8, 13, 40])
        out += ["# Weight:", str(rng.choice([1, 1, 2, 7])),
                ",".join(rng.choice(pool) for _ in range(length)) + ","]
    return out


def main():
    seed = int(sys.argv[1])
    out = sys.argv[2]
    llvm14 = "--llvm14" in sys.argv
    variants = "--variants" in sys.argv
    with_traces = "--traces" in sys.argv and not llvm14
    rng = random.Random(seed)
    nfuncs = rng.randint(1, 12)
    shapes = [(rng.randint(1, 4), rng.randint(0, 4), rng.randint(0, 4)) for _ in range(nfuncs)]
    names = [f"f{i}" for i in range(nfuncs)] + [f"ext{i}" for i in range(6)]
    ninputs = rng.randint(1, 20)
    args = []
    for i in range(ninputs):
        lines = ["# IR level Instrumentation Flag", ":ir"]
        if with_traces and rng.random() < 0.6:
            lines += traces(rng, names)
        lines.append("")
        present = [f for f in range(nfuncs) if rng.random() < 0.7]
        if variants:
            present += [f for f in present if rng.random() < 0.1]  # repeated records
        rng.shuffle(present)
        for f in present:
            lines += function(rng, f, shapes[f], names, llvm14, variants)
        path = os.path.join(out, f"in_{i}.proftext")
        with open(path, "w") as fh:
            fh.write("\n".join(lines))
        w = rng.choice([1, 1, 1, 2, 3, 10])
        args.append(f"{w},{path}" if w != 1 else path)
    rng.shuffle(args)
    print("\n".join(args))


if __name__ == "__main__":
    main()
