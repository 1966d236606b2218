#!/usr/bin/env python3
"""Differential test of `profkit merge --sample` / `show --sample` against llvm-profdata-22.

Each case (one seed) generates 1-20 random text profiles of one kind (tests/gen/
sampleprof_gen.py: flat, nested probe-based, pre-inlined or CS), turns some of them into
binary or extbinary inputs (some with MD5 names or compressed) with llvm-profdata 22 or 14, gives
some of them weights, shuffles them, and then runs both tools on the same command lines:
merges to every encoding and option, `show` with its options, and round trips through
llvm-profdata's own outputs. Both must succeed or both fail, and on success write the same
bytes.

usage: sampleprof_differential_test.py PROFKIT [CASES]
  PROFKIT_DIFF_SEED=S    run only case S (replay a failure)
  PROFKIT_DIFF_CASES=N   run cases 1..N (default: CASES, else 150)
"""
import os
import random
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'support'))
import difftest  # noqa: E402


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'gen'))
import sampleprof_gen  # noqa: E402

LLVM = 'llvm-profdata-22'

MERGE_MODES = [
    ['--text'],
    ['--binary'],
    ['--extbinary'],
    ['--extbinary', '--use-md5'],
    ['--extbinary', '--compress-all-sections'],
    ['--extbinary', '--split-layout'],
    ['--text', '--split-layout'],
    ['--extbinary', '--gen-partial-profile', '--use-md5', '--compress-all-sections'],
    ['--extbinary', '--prof-sym-list=SYMS'],
    ['--extbinary', '--compress-all-sections', '--prof-sym-list=SYMS'],
    ['--binary', '--use-md5'],
    ['--text', '--convert-sample-profile-layout=nest'],
    ['--extbinary', '--convert-sample-profile-layout=nest'],
    ['--extbinary', '--convert-sample-profile-layout=nest', '--generate-merged-base-profiles'],
    ['--text', '--convert-sample-profile-layout=flat'],
    ['--extbinary', '--convert-sample-profile-layout=flat'],
    ['--text', '--function=o'],
    ['--extbinary', '--no-function=^x|main'],
    ['--extbinary', '--function=main', '--no-function=foo'],
]
SHOW_MODES = [
    [],
    ['--detailed-summary'],
    ['--hot-func-list'],
    ['--topn=3'],
    ['--show-format=json'],
    ['--function=main'],
    ['--function=foo', '--detailed-summary'],
    ['--show-sec-info-only'],
    ['--show-prof-sym-list'],
]


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def compare_merge(profkit, d, tag, args):
    """Runs `merge --sample ARGS -o OUT` with both tools; returns '' or what differs."""
    rl, _, el = run([LLVM, 'merge', '--sample'] + args + ['-o', tag + '.ref'], d)
    rp, _, ep = run([profkit, 'merge', '--sample'] + args + ['-o', tag + '.pk'], d)
    if (rl == 0) != (rp == 0):
        return '%s: llvm-profdata exit %d, profkit exit %d\n  llvm: %s\n  profkit: %s' % (
            tag, rl, rp, el.decode(errors='replace').strip()[:300],
            ep.decode(errors='replace').strip()[:300])
    if rl != 0:
        return ''
    a = open(os.path.join(d, tag + '.ref'), 'rb').read()
    b = open(os.path.join(d, tag + '.pk'), 'rb').read()
    if a != b:
        return '%s: outputs differ (llvm-profdata %d bytes, profkit %d bytes)' % (tag, len(a), len(b))
    return ''


def compare_show(profkit, d, tag, args):
    rl, ol, el = run([LLVM, 'show', '--sample'] + args, d)
    if rl < 0:  # llvm-profdata crashes on --show-prof-sym-list without a list: not comparable
        return ''
    rp, op, ep = run([profkit, 'show', '--sample'] + args, d)
    if (rl == 0) != (rp == 0):
        return '%s: llvm-profdata exit %d, profkit exit %d: %s' % (
            tag, rl, rp, (el + ep).decode(errors='replace').strip()[:300])
    if rl == 0 and ol != op:
        return '%s: show output differs' % tag
    return ''


def one_case(profkit, seed, workdir):
    r = random.Random(seed * 7919 + 17)
    kind = r.choice(['flat', 'flat', 'probe', 'cs', 'preinlined'])
    n = r.choice([1, 1, 2, 3, r.randint(4, 20)])
    d = os.path.join(workdir, 'case%d' % seed)
    os.makedirs(d, exist_ok=True)
    names = []
    md5_inputs = r.random() < 0.15
    for i in range(n):
        name = 'in%d.txt' % i
        with open(os.path.join(d, name), 'w') as f:
            f.write(sampleprof_gen.generate(seed * 100 + i, kind))
        # Some inputs in the binary encodings, written by llvm-profdata itself.
        k = r.random()
        if k < 0.35:
            enc = ['--extbinary'] + (['--use-md5'] if md5_inputs else []) + \
                  (['--compress-all-sections'] if r.random() < 0.3 else [])
            out = 'in%d.ext' % i
        elif k < 0.45 and kind == 'flat':
            enc, out = ['--binary'], 'in%d.bin' % i
        else:
            enc, out = None, name
        tool = LLVM
        if enc and r.random() < 0.25:  # what LLVM 14 writes must be readable too
            tool = 'llvm-profdata-14'
            if kind == 'preinlined':  # LLVM 14 has no pre-inlined flag
                enc, out = None, name
        if enc:
            rc, _, err = run([tool, 'merge', '--sample'] + enc + [name, '-o', out], d)
            if rc != 0:
                return 'seed %d: llvm-profdata rejected generated input %s: %s' % (
                    seed, name, err.decode(errors='replace'))
        names.append(out)
    with open(os.path.join(d, 'syms.txt'), 'w') as f:
        f.write('main\nfoo\nzzz\n  spaced  \n\nbar\nmain\n')
    r.shuffle(names)
    args = []
    for nm in names:
        if r.random() < 0.3:
            args.append('--weighted-input=%d,%s' % (r.randint(1, 5), nm))
        else:
            args.append(nm)
    if len(args) > 2 and r.random() < 0.2:
        with open(os.path.join(d, 'list.txt'), 'w') as f:
            f.write('\n'.join(a.replace('--weighted-input=', '') for a in args) + '\n')
        args = ['-f', 'list.txt']
    # Flat profiles whose totals reach 2^64 make both tools warn and saturate; keep them.
    errors = []
    modes = r.sample(MERGE_MODES, 5)
    for i, m in enumerate(modes):
        m = [x.replace('SYMS', 'syms.txt') for x in m]
        e = compare_merge(profkit, d, 'm%d' % i, m + args)
        if e:
            errors.append(e + '   [%s]' % ' '.join(m))
    first = names[0]
    for m in r.sample(SHOW_MODES, 3):
        e = compare_show(profkit, d, 'show', m + [first])
        if e:
            errors.append(e + '   [show %s %s]' % (' '.join(m), first))
    # overlap of two inputs (the first with itself when there is one).
    other = names[1] if len(names) > 1 else names[0]
    opts = r.choice([[], ['--value-cutoff=%d' % r.choice([0, 1, 100, 3000])],
                     ['--similarity-cutoff=%d' % r.choice([500000, 990000, 1000000])],
                     ['--function=%s' % r.choice(['main', 'foo', 'x'])]])
    rl, ol, el = run([LLVM, 'overlap', '--sample'] + opts + [first, other], d)
    if rl >= 0:  # llvm-profdata aborts (a signal) on some degenerate inputs: not comparable
        rp, op, ep = run([profkit, 'overlap', '--sample'] + opts + [first, other], d)
        if (rl == 0) != (rp == 0) or (rl == 0 and ol != op):
            errors.append('overlap %s %s %s: llvm exit %d, profkit exit %d, outputs %s' % (
                ' '.join(opts), first, other, rl, rp, 'same' if ol == op else 'differ'))
    # Round trip: llvm-profdata's own merged outputs read back by both tools.
    for enc, out in ((['--extbinary'], 'rt.ext'), (['--extbinary', '--use-md5'], 'rt.md5'),
                     (['--binary'], 'rt.bin'), (['--extbinary', '--compress-all-sections',
                                                 '--prof-sym-list=syms.txt'], 'rt.z')):
        if r.random() < 0.5:
            continue
        rc, _, _ = run([LLVM, 'merge', '--sample'] + enc + args + ['-o', out], d)
        if rc != 0:
            continue
        for m in (['--text'], ['--extbinary']):
            e = compare_merge(profkit, d, 'rt', m + [out])
            if e:
                errors.append(e + '   [round trip %s via %s]' % (' '.join(m), out))
        e = compare_show(profkit, d, 'rtshow', r.choice(SHOW_MODES) + [out])
        if e:
            errors.append(e + '   [round-trip show of %s]' % out)
    if errors:
        return 'seed %d (%s, %d inputs, kept in %s; inputs: %s):\n  ' % (
            seed, kind, n, d, ' '.join(args)) + '\n  '.join(errors)
    shutil.rmtree(d, ignore_errors=True)
    return ''


def main():
    profkit = os.path.abspath(sys.argv[1])
    default = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    return difftest.run_cases(lambda s, workdir: one_case(profkit, s, workdir), default,
                              'sampleprof-diff-')

if __name__ == '__main__':
    sys.exit(main())
