#!/usr/bin/env python3
"""Differential test of `profkit order` against `llvm-profdata-22 order`.

Each case (one seed) writes a random text profile with temporal traces (tests/gen/
irpgo_trace_gen.py), has llvm-profdata-22 merge it into an indexed profile, and runs both
tools on the same command lines: no test traces, a few valid --num-test-traces values, one
too large (an error), the option's other spellings, -o FILE, and the text profile itself.
Standard output (or the -o file) and the exit status must be identical.

usage: irpgo_order_differential_test.py PROFKIT [CASES]
  PROFKIT_DIFF_SEED=S    run only case S (replay a failure)
  PROFKIT_DIFF_CASES=N   run cases 1..N (default: CASES, else 200)
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
import irpgo_trace_gen  # noqa: E402

LLVM = 'llvm-profdata-22'


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def compare(profkit, d, args, output=None):
    """Runs `order ARGS` with both tools; returns '' or what differs."""
    outputs = []
    for tool, tag in ((LLVM, 'llvm'), (profkit, 'pk')):
        extra = ['-o', output + '.' + tag] if output else []
        rc, out, err = run([tool, 'order'] + extra + args, d)
        if output and rc == 0:
            with open(os.path.join(d, output + '.' + tag), 'rb') as f:
                out = f.read()
        outputs.append((rc, out, err))
    (rl, ol, el), (rp, op, ep) = outputs
    where = 'order %s%s' % ('-o FILE ' if output else '', ' '.join(args))
    if rl != rp:
        return '%s: llvm-profdata exit %d, profkit exit %d\n  llvm: %s\n  profkit: %s' % (
            where, rl, rp, el.decode(errors='replace').strip()[:300],
            ep.decode(errors='replace').strip()[:300])
    if ol != op:
        a, b = ol.decode(errors='replace').split('\n'), op.decode(errors='replace').split('\n')
        line = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        return '%s: outputs differ from line %d (llvm %d lines, profkit %d)' % (
            where, line + 1, len(a), len(b))
    return ''


def one_case(profkit, seed, workdir):
    r = random.Random(seed * 7919 + 29)
    d = os.path.join(workdir, 'case%d' % seed)
    os.makedirs(d, exist_ok=True)
    text = irpgo_trace_gen.generate(seed)
    with open(os.path.join(d, 'in.proftext'), 'w', encoding='utf-8') as f:
        f.write(text)
    merge = [LLVM, 'merge', 'in.proftext', '-o', 'in.profdata']
    if r.random() < 0.15:  # the writer keeps a reservoir sample of the traces
        merge.append('--temporal-profile-trace-reservoir-size=%d' % r.choice([1, 5, 20]))
    if r.random() < 0.15:
        merge.append('--temporal-profile-max-trace-length=%d' % r.choice([0, 1, 7]))
    rc, _, err = run(merge, d)
    if rc != 0:
        return 'seed %d: llvm-profdata rejected the generated profile: %s' % (
            seed, err.decode(errors='replace').strip())
    rc, shown, _ = run([LLVM, 'show', '--temporal-profile-traces', 'in.profdata'], d)
    ntraces = 0
    for line in shown.decode(errors='replace').splitlines():
        if line.startswith('Temporal Profile Traces (samples='):
            ntraces = int(line.split('=')[1].split()[0])
    runs = [['in.profdata'], ['--num-test-traces=0', 'in.profdata']]
    for k in sorted({1, max(1, ntraces - 1), r.randint(1, max(1, ntraces))}):
        runs.append(['--num-test-traces=%d' % k, 'in.profdata'])
    runs.append(['--num-test-traces=%d' % (ntraces + r.choice([0, 0, 3])), 'in.profdata'])
    k = r.randint(1, max(1, ntraces))
    runs.append(r.choice([['-num-test-traces=%d' % k, 'in.profdata'],
                          ['--num-test-traces', str(k), 'in.profdata'],
                          ['in.profdata', '--num-test-traces=%d' % k]]))
    runs.append(['in.proftext'] + (['--num-test-traces=1'] if r.random() < 0.5 else []))
    errors = [e for e in (compare(profkit, d, a) for a in runs) if e]
    e = compare(profkit, d, ['--num-test-traces=%d' % r.randint(0, 2), 'in.profdata'], 'out')
    if e:
        errors.append(e)
    if errors:
        return 'seed %d (%d traces, kept in %s):\n  ' % (seed, ntraces, d) + '\n  '.join(errors)
    shutil.rmtree(d, ignore_errors=True)
    return ''


def main():
    profkit = os.path.abspath(sys.argv[1])
    default = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    return difftest.run_cases(lambda s, workdir: one_case(profkit, s, workdir), default,
                              'order-diff-')

if __name__ == '__main__':
    sys.exit(main())
