#!/usr/bin/env python3
"""Random, valid text sample profiles for the differential tests.

usage: sampleprof_gen.py SEED KIND OUT     KIND: flat | probe | cs | preinlined

Every profile is one llvm-profdata accepts. The generator aims at what decides output
bytes: counts drawn from a few values (ties in function totals, call targets, hot lists),
names chosen to hit the ordering rules (prefixes, case, digits, '.__uniq.', '::'), repeated
headers, lines and targets (which the reader adds up), discriminators up to 2^32-1, line
65535, big counts, inlinees nested several levels deep, CS contexts of 1-4 frames, and
checksums and attributes at every level.
"""
import random
import sys

NAMES = ['main', 'foo', 'fo', 'foo2', 'bar', '_Z3foov', '_Z3barii', 'a::b<int>', 'zz',
         '_ZN1A1fEv', 'f.llvm.123', 'g.__uniq.42', 'h.part.0', 'Ab', 'aB', 'x1', 'x10', 'x9',
         '_ZL4workPKc', 'std::vector<int>::push_back']
CHECKSUMS = [1, 2, 4294967295, 281479271677951, 563022570642068]


def count(r):
    k = r.random()
    if k < 0.35:
        return r.choice([0, 1, 2, 3, 5, 10, 100])  # ties
    if k < 0.97:
        return r.randint(0, 5000)
    return r.choice([2**32, 2**40 + 7, 2**61 + 1])


def loc(r):
    line = r.choice([0, 1, 2, 3, 4, 5, 7, 10, 65535]) if r.random() < 0.8 else r.randint(0, 65535)
    if r.random() < 0.3:
        d = r.choice([1, 2, 3, 0x80000000, 4294967295]) if r.random() < 0.3 else r.randint(1, 40)
        return '%d.%d' % (line, d)
    return '%d' % line


def body(r, indent, names, lines):
    for _ in range(r.randint(0, 5)):
        s = ' ' * indent + '%s: %d' % (loc(r), count(r))
        for _ in range(r.choice([0, 0, 0, 1, 2, 3])):
            s += ' ' * r.choice([1, 1, 1, 2]) + '%s:%d' % (r.choice(names), count(r))
        lines.append(s)


def function(r, names, lines, indent, depth, probe, attributes, max_depth):
    body(r, indent, names, lines)
    if depth < max_depth:
        for _ in range(r.choice([0, 0, 1, 2])):
            callee = r.choice(names)
            lines.append(' ' * indent + '%s: %s:%d' % (loc(r), callee, count(r)))
            function(r, names, lines, indent + 1, depth + 1, probe, attributes, max_depth)
    if probe:
        lines.append(' ' * indent + '!CFGChecksum: %d' % r.choice(CHECKSUMS))
    if attributes and r.random() < 0.4:
        lines.append(' ' * indent + '!Attributes: %d' % r.choice(attributes))


def generate(seed, kind):
    r = random.Random(seed)
    names = r.sample(NAMES, r.randint(3, len(NAMES)))
    lines = []
    if r.random() < 0.3:
        lines.append('# generated from seed %d' % seed)
    if kind in ('flat', 'probe', 'preinlined'):
        probe = kind != 'flat'
        attributes = [2] if kind == 'preinlined' else ([1, 3] if probe else [])
        for _ in range(r.randint(1, 10)):
            lines.append('%s:%d:%d' % (r.choice(names), count(r), count(r)))
            function(r, names, lines, 1, 0, probe, attributes, r.choice([1, 2, 3, 4]))
            if r.random() < 0.1:
                lines.append('')
    else:
        # One checksum per leaf name within a file; files of one case differ (mismatches).
        checksums = {n: r.choice(CHECKSUMS) for n in names}
        for _ in range(r.randint(1, 10)):
            frames = [r.choice(names) for _ in range(r.randint(1, 4))]
            context = ' @ '.join('%s:%s' % (f, loc(r)) for f in frames[:-1])
            context = (context + ' @ ' if context else '') + frames[-1]
            lines.append('[%s]:%d:%d' % (context, count(r), count(r)))
            body(r, 1, names, lines)
            lines.append(' !CFGChecksum: %d' % checksums[frames[-1]])
            if r.random() < 0.3:
                lines.append(' !Attributes: %d' % r.choice([1, 2, 3]))
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    with open(sys.argv[3], 'w') as f:
        f.write(generate(int(sys.argv[1]), sys.argv[2]))
