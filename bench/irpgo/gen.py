#!/usr/bin/env python3
"""Writes the C sources of a large program for the IRPGO benchmark.

The program has about FUNCTIONS instrumentable functions spread over TUS translation units,
shaped so that its raw profiles look like a real application's: loops, switches of several
widths, indirect calls through per-unit tables (indirect-call value profiles), memcpy with
sizes that depend on the input (memop value profiles), and every seventh function static
(so PGO names carry the file prefix). Which functions run, and how often, depends on the
seed given on the command line, so different runs give different counts and value sites.

Usage: gen.py OUT_DIR [--functions N] [--tus N]
Writes OUT_DIR/tu_K.c for K in [0, TUS) and OUT_DIR/main.c; the sources are deterministic.
"""
import argparse
import os


def unit(k, first, count):
    L = [
        '#include <string.h>',
        '#include <stddef.h>',
        f'/* unit {k}: functions {first} .. {first + count - 1} */',
        'static char src_buf[512], dst_buf[512];',
        'typedef long (*op_t)(long);',
    ]
    # Small helpers reached only through the table: the indirect-call targets.
    for j in range(6):
        L.append(f'static __attribute__((noinline)) long op{k}_{j}(long x) '
                 f'{{ return x * {j + 3} + {k % 11}; }}')
    L.append(f'op_t volatile table{k}[8] = '
             f'{{op{k}_0, op{k}_1, op{k}_2, op{k}_3, op{k}_4, op{k}_5, op{k}_0, op{k}_1}};')
    for i in range(first, first + count):
        static = 'static ' if i % 7 == 0 else ''
        width = 3 + i % 5
        L.append(f'{static}__attribute__((noinline)) long f{i}(long x) {{')
        L.append('  long s = 0;')
        L.append(f'  for (long i = 0; i < (x & {3 + i % 4}) + 1; i++) {{')
        L.append(f'    switch ((x + i * {1 + i % 3}) % {width}) {{')
        for c in range(width - 1):
            L.append(f'    case {c}: s += i * {c + 1 + i % 9}; break;')
        L.append('    default: s ^= x >> 1;')
        L.append('    }')
        L.append('  }')
        if i % 3 == 0:
            L.append(f'  if (x % {2 + i % 4} == 0) s += table{k}[(x + {i}) & 7](x);')
        if i % 4 == 1:
            L.append(f'  memcpy(dst_buf, src_buf, (size_t)((x * {1 + i % 13}) & 255) + 1);')
            L.append('  s += dst_buf[x & 15];')
        if i % 11 == 5:
            L.append(f'  while (s > {1000 + i}) s /= 3;')
        L.append(f'  return s + {i % 17};')
        L.append('}')
    # The unit's entry point: calls a seed-dependent subset of its functions.
    L.append(f'long run_unit{k}(long seed, long reps) {{')
    L.append('  long acc = 0;')
    L.append('  for (long r = 0; r < reps; r++) {')
    for i in range(first, first + count):
        L.append(f'    if ((seed + {i}) % {2 + i % 5} != 0) acc += f{i}(seed * {i % 23 + 1} + r);')
    L.append('  }')
    L.append('  return acc;')
    L.append('}')
    return '\n'.join(L) + '\n'


def main_unit(tus):
    L = ['#include <stdio.h>', '#include <stdlib.h>']
    for k in range(tus):
        L.append(f'long run_unit{k}(long seed, long reps);')
    L.append('int main(int argc, char **argv) {')
    L.append('  long seed = argc > 1 ? atol(argv[1]) : 1;')
    L.append('  long reps = 1 + seed % 3, acc = 0;')
    for k in range(tus):
        # Some units are skipped for some seeds, so coverage varies between runs.
        L.append(f'  if ((seed + {k}) % 9 != 0) acc += run_unit{k}(seed, reps);')
    L.append('  printf("%ld\\n", acc);')
    L.append('  return 0;')
    L.append('}')
    return '\n'.join(L) + '\n'


def write_if_changed(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, 'w') as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('out_dir')
    ap.add_argument('--functions', type=int, default=20000)
    ap.add_argument('--tus', type=int, default=20)
    args = ap.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    per = (args.functions + args.tus - 1) // args.tus
    for k in range(args.tus):
        first = k * per
        count = max(0, min(per, args.functions - first))
        write_if_changed(os.path.join(args.out_dir, f'tu_{k}.c'), unit(k, first, count))
    write_if_changed(os.path.join(args.out_dir, 'main.c'), main_unit(args.tus))


if __name__ == '__main__':
    main()
