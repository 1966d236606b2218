#!/usr/bin/env python3
"""Random, valid text IR-PGO profiles with temporal profile traces, for `order` tests.

usage: irpgo_trace_gen.py SEED OUT.proftext
Writes one text profile: `:ir`, a `:temporal_prof_traces` block (the syntax
`llvm-profdata-22 merge --text` writes: counts, then per trace a weight line and a line of
comma-separated names) and the function records. Varied on purpose: 1-50 traces of length
0-60, traces drawn from shared pools or disjoint ones, repeated calls, weights, names with
odd characters (spaces, ';' file prefixes, '$', '<>', '::', '.', non-ASCII) and trace
functions the profile has no record for. A record name never starts with '$' or '#': the
text reader takes such a line for a bitmap or a comment. Everything depends on SEED only,
so a failing case is replayed from its seed.
"""
import random
import sys

ODD_PARTS = ["main", "foo", "bar", "_Z3bazv", "x", "a b", "op<>", "ns::f", "tmp$1", "f.llvm.1",
             "__cxx_global_var_init", "é", "~d", "[blk]", "q?"]
FILES = ["a.c", "dir/b.cc", "c d.c", "x;y.c"]


def make_names(rng, count, tag):
    names = set()
    while len(names) < count:
        base = rng.choice(ODD_PARTS) + "_" + tag + str(rng.randint(0, 10 * count + 10))
        r = rng.random()
        if r < 0.2:
            base = rng.choice(FILES) + ";" + base   # a local function: FILE;NAME
        elif r < 0.25:
            base = ";" + base                       # empty file part
        elif r < 0.28:
            base = base + ";"                       # nothing after ';'
        names.add(base)
    return sorted(names)


def trace(rng, pool, length, repeat):
    if not pool or length == 0:
        return []
    if rng.random() < 0.4:   # a path through the pool: neighbours stay neighbours
        start = rng.randrange(len(pool))
        out = [pool[(start + i) % len(pool)] for i in range(length)]
    else:
        out = [rng.choice(pool) for _ in range(length)]
    for _ in range(int(length * repeat)):
        i = rng.randrange(len(out))
        out.insert(rng.randrange(len(out) + 1), out[i])
    return out[:length]


def generate(seed):
    """The text of the profile for SEED."""
    rng = random.Random(seed)
    nfuncs = rng.choice([1, 2, 5, 10, 30, 80, 200])
    universe = make_names(rng, nfuncs, "f")
    missing = make_names(rng, rng.choice([0, 0, 3, 10]), "m")  # in traces, not in records
    ntraces = rng.randint(1, 50)
    nclusters = rng.choice([1, 1, 2, 4])   # disjoint pools of functions
    pools = [[] for _ in range(nclusters)]
    for n in universe + missing:
        pools[rng.randrange(nclusters)].append(n)
    maxlen = rng.choice([0, 3, 10, 30, 60])
    repeat = rng.choice([0.0, 0.0, 0.1, 0.5])
    traces = []
    for _ in range(ntraces):
        pool = rng.choice(pools) if rng.random() < 0.8 else universe + missing
        length = rng.randint(0, maxlen) if rng.random() < 0.95 else 0
        weight = rng.choice([1, 1, 1, 2, 7, 1000])
        traces.append((weight, trace(rng, pool, length, repeat)))
    lines = ["# IR level Instrumentation Flag", ":ir", ":temporal_prof_traces",
             "# Num Temporal Profile Traces:", str(len(traces)),
             "# Temporal Profile Trace Stream Size:", str(len(traces) + rng.choice([0, 0, 5]))]
    for weight, names in traces:
        lines += ["# Weight:", str(weight), ",".join(names) + ","]
    for i, name in enumerate(universe):
        if rng.random() < 0.1:
            continue  # only in traces
        lines += [name, "# Func Hash:", str(1000 + i), "# Num Counters:", "1",
                  "# Counter Values:", str(rng.choice([0, 1, 7, 100])), ""]
    return "\n".join(lines) + "\n"


def main():
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(generate(int(sys.argv[1])))


if __name__ == "__main__":
    main()
