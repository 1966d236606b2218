#!/usr/bin/env python3
"""Writes C sources of a large program for the profgen benchmark (bench/profgen/run.sh).

--functions noinline functions f0..fN-1, each with an inlined static helper (a loop), a
switch, and calls to two other functions chosen by its argument, a bounded call depth (so
every run visits many functions along different call chains), an occasional recursion,
tail call, and indirect call through a table. main(argc, argv) runs argv[1] rounds, each
starting at a function picked from the round number. Sources are split into --tus files so
they compile in parallel.
"""
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--functions", type=int, default=20000)
    ap.add_argument("--tus", type=int, default=8)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    n = args.functions
    rng = random.Random(20261126)
    os.makedirs(args.out, exist_ok=True)
    header = ["#include <stdint.h>", "extern volatile int sink;"]
    header += ["int f%d(int x, int d);" % i for i in range(n)]
    header.append("typedef int (*fn_t)(int, int);")
    header.append("extern fn_t table[64];")
    with open(os.path.join(args.out, "decls.h"), "w") as f:
        f.write("\n".join(header) + "\n")
    per_tu = (n + args.tus - 1) // args.tus
    for t in range(args.tus):
        lines = ['#include "decls.h"']
        for i in range(t * per_tu, min(n, (t + 1) * per_tu)):
            a, b = rng.randrange(n), rng.randrange(n)
            k = rng.randint(1, 9)
            lines.append(
                "static inline int h%d(int x) { int s = 0; for (int j = 0; j < (x & %d); j++) "
                "s += (j ^ x) * %d; return s; }" % (i, rng.choice([3, 7, 15]), k))
            body = [
                "__attribute__((noinline)) int f%d(int x, int d) {" % i,
                "  int s = h%d(x);" % i,
                "  switch (x & 3) { case 0: s += %d; break; case 1: s ^= x; break; "
                "case 2: s -= d; break; default: s += sink; }" % k,
                "  if (d <= 0) return s;",
                "  if ((x & 31) == %d) s += f%d(x >> 1, d - 2);" % (rng.randrange(32), i),
                "  if (x & 1) s += f%d(x * 3 + 1, d - 1); else s += f%d(x / 2 + 7, d - 1);"
                % (a, b),
                "  if ((x & 15) == 3) s += table[x & 63](x + 5, d - 1);",
                "  if ((x & 7) == 5) return f%d(s + x, d - 1);  /* tail call */" % b,
                "  return s;",
                "}",
            ]
            lines += body
        with open(os.path.join(args.out, "tu%02d.c" % t), "w") as f:
            f.write("\n".join(lines) + "\n")
    # Rounds start at functions spread over the whole program.
    starts = list(range(0, n, max(1, n // 512)))
    main_lines = ['#include <stdlib.h>', '#include "decls.h"', "volatile int sink;",
                  "fn_t table[64] = {%s};" % ", ".join("f%d" % rng.randrange(n)
                                                       for _ in range(64)),
                  "static fn_t starts[] = {%s};" % ", ".join("f%d" % i for i in starts),
                  "int main(int argc, char **argv) {",
                  "  int rounds = argc > 1 ? atoi(argv[1]) : 1000;",
                  "  int acc = 0;",
                  "  for (int r = 0; r < rounds; r++) {",
                  "    unsigned start = (unsigned)r * 2654435761u;",
                  "    acc += starts[start %% %d](r, 5);" % len(starts),
                  "  }",
                  "  sink = acc;",
                  "  return 0;",
                  "}"]
    with open(os.path.join(args.out, "main.c"), "w") as f:
        f.write("\n".join(main_lines) + "\n")


if __name__ == "__main__":
    main()
