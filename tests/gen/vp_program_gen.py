#!/usr/bin/env python3
"""A random C program with many indirect-call and memop (memcpy/memset) sites whose value
profiles have many equal counts, for differential tests of the raw profile path.

usage: vp_program_gen.py SEED > prog.c      (run it as `prog A`, A a small integer)
"""
import random
import sys


def main():
    rng = random.Random(int(sys.argv[1]))
    ntargets = rng.randint(3, 12)
    ncalls = rng.randint(2, 10)
    nmem = rng.randint(2, 10)
    out = ["#include <stdlib.h>", "#include <string.h>", ""]
    for t in range(ntargets):
        out.append(f"__attribute__((noinline)) int t{t}(int x) {{ return x * {t + 1} + {t}; }}")
    out.append("typedef int (*fn)(int);")
    out.append("fn table[] = {" + ", ".join(f"t{t}" for t in range(ntargets)) + "};")
    out.append("char src[4096], dst[4096];")
    out.append("volatile int sink;")
    for c in range(ncalls):
        mod = rng.randint(1, ntargets)
        mul = rng.choice([0, 1, 1, 2, 3])
        out.append(f"__attribute__((noinline)) int call{c}(int a, int r) "
                   f"{{ return table[(a * {mul} + r) % {mod}](r); }}")
    sizes = [1, 2, 3, 4, 7, 8, 9, 16, 24, 32, 64, 100, 128, 255, 1000]
    for m in range(nmem):
        sz = rng.sample(sizes, rng.randint(1, 6))
        op = rng.choice(["memcpy(dst, src, n)", "memset(dst, a, n)"])
        out.append(f"static const int sizes{m}[] = {{{', '.join(map(str, sz))}}};")
        out.append(f"__attribute__((noinline)) void mem{m}(int a, int r) "
                   f"{{ int n = sizes{m}[(a + r) % {len(sz)}]; {op}; }}")
    iters = rng.choice([60, 120, 360])
    out.append("int main(int argc, char **argv) {")
    out.append("  int a = argc > 1 ? atoi(argv[1]) : 0, total = 0;")
    out.append(f"  for (int r = 0; r < {iters} + a * {rng.randint(0, 3)}; ++r) {{")
    # Some sites run only for some arguments: their value sites are empty in other runs.
    def guard():
        return f" && a % {rng.randint(2, 3)} != {rng.randint(0, 1)}" if rng.random() < 0.4 else ""
    for c in range(ncalls):
        out.append(f"    if (r % {rng.randint(1, 3)} == 0{guard()}) total += call{c}(a, r);")
    for m in range(nmem):
        out.append(f"    if (r % {rng.randint(1, 3)} == 0{guard()}) mem{m}(a, r);")
    out.append("  }")
    out.append("  sink = total + dst[7];")
    out.append("  return 0;")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
