#!/usr/bin/env python3
"""Text sample profiles of one synthetic program, as many training runs would give.

usage: gen.py OUTDIR --functions N --profiles K

The program has N functions with C++-like mangled names. Each profile covers about 90% of
them (a run does not reach everything), each function with 5-40 body lines (line offsets and
a few discriminators), call targets on a fifth of the lines, and 0-3 inlined callees with
their own lines, one level of them with a further inlinee. Counts differ per run (seeded),
so merging adds real work; the structure is the same, as for one binary.
"""
import argparse
import os
import random


def name(i):
    return '_ZN4bench%dC%dEPKvm%s' % (i % 97, i, 'i' * (i % 5))


def function_shape(i):
    r = random.Random(i)
    lines = sorted(r.sample(range(0, 200), r.randint(5, 40)))
    locs = [('%d.%d' % (l, r.randint(1, 8)) if r.random() < 0.1 else str(l)) for l in lines]
    calls = {loc: r.sample(range(0, 20000), r.randint(1, 3)) for loc in locs if r.random() < 0.2}
    inl = []
    for _ in range(r.choice([0, 0, 1, 2, 3])):
        callee = r.randrange(20000)
        sub = sorted(r.sample(range(0, 60), r.randint(3, 15)))
        nested = (r.randrange(20000), sorted(r.sample(range(0, 30), r.randint(2, 6)))) \
            if r.random() < 0.3 else None
        inl.append((r.randint(200, 400), callee, sub, nested))
    return locs, calls, inl


def write_profile(path, seed, n):
    r = random.Random(seed)
    out = []
    for i in range(n):
        if r.random() < 0.1:
            continue
        locs, calls, inl = function_shape(i)
        scale = r.randint(1, 1000)
        body = []
        total = 0
        for loc in locs:
            c = r.randint(0, scale)
            total += c
            s = ' %s: %d' % (loc, c)
            for t in calls.get(loc, []):
                s += ' %s:%d' % (name(t % n), r.randint(0, c + 1))
            body.append(s)
        for line, callee, sub, nested in inl:
            sub_lines = []
            sub_total = 0
            for l in sub:
                c = r.randint(0, scale)
                sub_total += c
                sub_lines.append('  %d: %d' % (l, c))
            if nested:
                ncallee, nlines = nested
                ntotal = 0
                nl = []
                for l in nlines:
                    c = r.randint(0, scale)
                    ntotal += c
                    nl.append('   %d: %d' % (l, c))
                sub_lines.append('  %d: %s:%d' % (sub[-1] + 1, name(ncallee % n), ntotal))
                sub_lines += nl
                sub_total += ntotal
            body.append(' %d: %s:%d' % (line, name(callee % n), sub_total))
            body += sub_lines
            total += sub_total
        out.append('%s:%d:%d' % (name(i), total, r.randint(0, scale)))
        out += body
    with open(path, 'w') as f:
        f.write('\n'.join(out) + '\n')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('outdir')
    ap.add_argument('--functions', type=int, default=20000)
    ap.add_argument('--profiles', type=int, default=50)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for k in range(1, a.profiles + 1):
        write_profile(os.path.join(a.outdir, 'run%03d.txt' % k), k, a.functions)


if __name__ == '__main__':
    main()
