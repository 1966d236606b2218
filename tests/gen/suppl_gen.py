#!/usr/bin/env python3
"""A random IR-PGO text profile and a random text sample profile of "the same program",
for differential tests of `merge --supplement-instr-with-sample`.

usage: suppl_gen.py SEED OUTDIR
Writes OUTDIR/instr.proftext and OUTDIR/sample.txt. Everything depends on SEED only.

The two profiles share function names the way real builds do: global names as they are,
static functions as "dir/file.EXT;name" in the instr profile and as "name",
"name.__uniq.DIGITS" (the suffix -funique-internal-linkage-symbols gives) or the full PGO
name in the sample profile; short names shared by statics of several files; instr names
with the .__uniq. suffix themselves; inlinees with and without records of their own.
Some sample profiles are context-sensitive (flat CSSPGO contexts). Instr functions are cold, hot, all-zero, mostly zero, tiny (few counters), huge
(saturating when scaled), or have two CFG hashes; some have value sites, some are
context-sensitive.
"""
import hashlib
import os
import random
import sys

EXTS = ['.c', '.cc', '.cpp', '.h', '.hpp', '.C', '.CPP', 'xcc', '.cxx', '.c']


def uniq(file):
    return '.__uniq.%d' % int(hashlib.md5(file.encode()).hexdigest(), 16)


def counters(r, style, n):
    if style == 'zero':
        return [0] * n
    if style == 'mostly_zero':
        return [0 if r.random() < 0.85 else r.randint(1, 3) for _ in range(n)]
    if style == 'cold':
        return [r.choice([0, 0, 1, 1, 2, 3]) for _ in range(n)]
    if style == 'lukewarm':
        return [r.randint(0, 40) for _ in range(n)]
    if style == 'huge':
        return [r.choice([0, 1, 2**40, 2**62, 2**63 + 5]) for _ in range(n)]
    return [r.randint(100, 100000) for _ in range(n)]  # hot


def value_sites(r, names, huge):
    kinds = []
    if r.random() < 0.5:
        sites = []
        for _ in range(r.randint(1, 3)):
            sites.append([(r.choice(names), r.choice([1, 5, 77, 2**61 if huge else 9]))
                          for _ in range(r.randint(0, 3))])
        kinds.append((0, 'IPVK_IndirectCallTarget', sites))
    if r.random() < 0.3:
        sites = []
        for _ in range(r.randint(1, 2)):
            vals = r.sample([1, 2, 8, 16, 64, 100], r.randint(0, 3))
            sites.append([(v, r.choice([1, 3, 40])) for v in vals])
        kinds.append((1, 'IPVK_MemOPSize', sites))
    return kinds


def record_text(r, name, hash_, counts, names):
    lines = [name, '# Func Hash:', str(hash_), '# Num Counters:', str(len(counts)),
             '# Counter Values:'] + [str(c) for c in counts]
    if r.random() < 0.35:
        kinds = value_sites(r, names, max(counts) > 2**32)
        if kinds:
            lines += ['# Num Value Kinds:', str(len(kinds))]
            for k, kname, sites in kinds:
                lines += ['# ValueKind = %s:' % kname, str(k), '# NumValueSites:', str(len(sites))]
                for site in sites:
                    lines.append(str(len(site)))
                    lines += ['%s:%d' % (v, c) for v, c in site]
    return '\n'.join(lines) + '\n'


def generate(seed):
    r = random.Random(seed)
    files = ['src/f%d%s' % (i, r.choice(EXTS)) for i in range(r.randint(1, 4))]
    instr_unique = r.random() < 0.2  # instr names carry .__uniq. suffixes themselves
    shorts = ['s%d' % i for i in range(r.randint(2, 8))]
    # Instr functions: (pgo name, short name or None, file or None).
    funcs = []
    for i in range(r.randint(3, 25)):
        if r.random() < 0.45:
            funcs.append(('g%d' % i, None, None))
        else:
            f = r.choice(files)
            s = r.choice(shorts)
            pgo = '%s;%s' % (f, s)
            if instr_unique and r.random() < 0.8:
                pgo += uniq(f) if r.random() < 0.9 else '.__uniq.12345'
            funcs.append((pgo, s, f))
    if r.random() < 0.05:
        funcs.append(('----', None, None))
    funcs.append(('main', None, None))
    # Unique by PGO name.
    seen = set()
    funcs = [f for f in funcs if not (f[0] in seen or seen.add(f[0]))]
    names = [f[0] for f in funcs]

    instr = [':ir'] if r.random() < 0.9 else [':ir', ':entry_first']
    out = ['\n'.join(instr) + '\n']
    for i, (pgo, _, _) in enumerate(funcs):
        style = r.choice(['zero', 'mostly_zero', 'cold', 'cold', 'lukewarm', 'hot', 'huge']
                         if pgo != 'main' else ['hot'])
        if r.random() < 0.03:
            style = 'huge'
        n = r.choice([1, 2, 3, 5, 8, 9, 10, 11, 12, 15, 20, 30])
        c = counters(r, style, n)
        h = 1000 + i
        if r.random() < 0.07:
            h |= 1 << 60  # context-sensitive record
        out.append(record_text(r, pgo, h, c, names))
        if r.random() < 0.06:  # a second CFG hash under the same name
            out.append(record_text(r, pgo, h + 5000, counters(r, style, n), names))

    # The sample profile names statics one way for the whole profile (as one build does),
    # with a few exceptions.
    mode = r.choice(['short', 'short', 'uniq', 'full'])

    def sample_name(f):
        pgo, s, file = f
        if s is None:
            return pgo
        m = mode if r.random() < 0.85 else r.choice(['short', 'uniq', 'full'])
        if m == 'short':
            return s
        if m == 'uniq':
            return s + uniq(file)
        return pgo

    extra = ['x%d' % i for i in range(3)]  # functions without instr records

    def count():
        k = r.random()
        if k < 0.3:
            return r.choice([0, 1, 2, 5])
        if k < 0.95:
            return r.randint(0, 3000)
        return r.randint(10000, 10**7)

    def body(indent, lines):
        nlines = r.randint(0, 5)
        for line in sorted(r.sample(range(0, 20), nlines)):
            d = '.%d' % r.randint(1, 3) if r.random() < 0.2 else ''
            lines.append(' ' * indent + '%d%s: %d' % (line, d, count()))

    def function(indent, depth, lines):
        body(indent, lines)
        if depth < 3:
            for _ in range(r.choice([0, 0, 1, 1, 2])):
                callee = r.choice(funcs) if r.random() < 0.7 else (r.choice(extra), None, None)
                lines.append(' ' * indent + '%d: %s:%d' % (r.randint(0, 20), sample_name(callee),
                                                            count()))
                function(indent + 1, depth + 1, lines)

    if r.random() < 0.15:  # a context-sensitive (CSSPGO) profile: flat contexts, no inlinees
        contexts = set()
        sample = []
        for _ in range(r.randint(1, len(funcs) + 4)):
            frames = []
            for _ in range(r.choice([1, 1, 2, 3])):
                f = r.choice(funcs) if r.random() < 0.85 else (r.choice(extra), None, None)
                frames.append(sample_name(f))
            ctx = ' @ '.join('%s:%d' % (n, r.randint(1, 9)) for n in frames[:-1])
            ctx = (ctx + ' @ ' if ctx else '') + frames[-1]
            if ctx in contexts:
                continue
            contexts.add(ctx)
            sample.append('[%s]:%d:%d' % (ctx, count() * 3, count()))
            body(1, sample)
        return ''.join(out), '\n'.join(sample) + '\n'

    tops = set()
    sample = []
    for _ in range(r.randint(1, len(funcs) + 2)):
        f = r.choice(funcs) if r.random() < 0.85 else (r.choice(extra), None, None)
        name = sample_name(f)
        if name in tops:
            continue
        tops.add(name)
        lines = ['%s:%d:%d' % (name, count() * 3, count())]
        function(1, 0, lines)
        sample += lines
    return ''.join(out), '\n'.join(sample) + '\n'


def main():
    seed = int(sys.argv[1])
    outdir = sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    instr, sample = generate(seed)
    with open(os.path.join(outdir, 'instr.proftext'), 'w') as f:
        f.write(instr)
    with open(os.path.join(outdir, 'sample.txt'), 'w') as f:
        f.write(sample)


if __name__ == '__main__':
    main()
