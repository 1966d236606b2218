#!/usr/bin/env python3
"""Writes C sources for a large CSSPGO benchmark binary.

Each group g has three functions: an inlined leaf, an inlined middle function that calls the
leaf in a loop, and a noinline entry that calls the middle function twice and the previous
group's entry (so every entry stays alive). --functions counts source functions (descriptors),
so 100000 gives about 33334 groups, 100000 descriptors and a three-level inline tree in each
entry. Sources are split into --tus translation units so they compile in parallel.
"""
import argparse
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--functions", type=int, default=100000)
    ap.add_argument("--tus", type=int, default=16)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    groups = max(1, (args.functions + 2) // 3)
    os.makedirs(args.out, exist_ok=True)
    per_tu = (groups + args.tus - 1) // args.tus
    decls = []
    for t in range(args.tus):
        lo, hi = t * per_tu, min(groups, (t + 1) * per_tu)
        if lo >= hi:
            break
        lines = []
        for g in range(lo, hi):
            if g > 0:
                lines.append(f"int e{g - 1}(int);")
            lines.append(f"static inline int l{g}(int x) {{ if (x & 1) return x * 3 + {g % 7}; return x / 2; }}")
            lines.append(f"static inline int m{g}(int x) {{ int s = 0; for (int i = 0; i < x % 5; i++) s += l{g}(x + i); return s; }}")
            prev = f"(x > 3 ? e{g - 1}(x - 1) : 0)" if g > 0 else "0"
            lines.append(f"__attribute__((noinline)) int e{g}(int x) {{ return m{g}(x) + m{g}(x + 1) + {prev}; }}")
        with open(os.path.join(args.out, f"tu{t}.c"), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(args.out, "main.c"), "w") as f:
        f.write(f"int e{groups - 1}(int);\nint main(int argc, char **argv) {{ (void)argv; return e{groups - 1}(argc) & 0xff; }}\n")


if __name__ == "__main__":
    main()
