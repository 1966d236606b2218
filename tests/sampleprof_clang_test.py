#!/usr/bin/env python3
"""clang-22 -fprofile-sample-use= with profkit's merged profile gives the same IR as with
llvm-profdata-22's merge of the same inputs, on three programs (tests/programs/sampleprof/).

For each program, random text profiles over its functions' linkage names (body lines,
call targets, an inlinee in main) are merged by both tools into every encoding; each result
is compiled to LLVM IR, and the IR files must be identical and must show that the profile
was used (a function_entry_count from it, branch weights).

usage: sampleprof_clang_test.py PROFKIT
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = {
    'work.cc': ['main', '_Z4worki', '_Z6helperi'],
    'dispatch.cc': ['main', '_Z5totalPP5Shapei', '_ZNK6Square4areaEv', '_ZNK6Circle4areaEv'],
    'sort.cc': ['main', '_Z14insertion_sortPii', '_Z8checksumPKii', '_ZL4nextPj'],
}


def profile(r, functions):
    lines = []
    for f in functions:
        body = []
        total = 0
        for line in range(0, r.randint(4, 14)):
            c = r.randint(0, 3000)
            total += c
            s = ' %d: %d' % (line, c)
            if r.random() < 0.2:
                t = r.choice(functions)
                s += ' %s:%d' % (t, r.randint(1, c + 1))
            body.append(s)
        if f == 'main' and len(functions) > 2:
            callee = functions[2]
            n = r.randint(100, 2000)
            body.append(' %d: %s:%d' % (r.randint(3, 8), callee, n))
            body.append('  0: %d %s:%d' % (n, functions[1], n))
            body.append('  1: %d' % r.randint(0, n))
            total += n
        lines.append('%s:%d:%d' % (f, total, r.randint(1, 1000)))
        lines += body
    return '\n'.join(lines) + '\n'


def run(args, **kw):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    if p.returncode != 0:
        raise SystemExit('failed: %s\n%s' % (' '.join(args), p.stderr.decode(errors='replace')))
    return p.stdout


def main():
    profkit = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix='sampleprof-clang-')
    failures = 0
    for seed, (program, functions) in enumerate(sorted(PROGRAMS.items()), start=1):
        r = random.Random(seed)
        src = os.path.join(HERE, 'programs', 'sampleprof', program)
        inputs = []
        for i in range(3):
            path = os.path.join(work, '%s.%d.txt' % (program, i))
            with open(path, 'w') as f:
                f.write(profile(r, functions))
            inputs.append(path)
        for enc in (['--extbinary'], ['--binary'], ['--text'], ['--extbinary', '--use-md5']):
            tag = program + ''.join(enc).replace('--', '.')
            irs = []
            for tool in ('llvm-profdata-22', profkit):
                out = os.path.join(work, tag + ('.ref' if tool != profkit else '.pk'))
                run([tool, 'merge', '--sample'] + enc + inputs + ['-o', out])
                ll = out + '.ll'
                run(['clang++-22', '-O2', '-gline-tables-only', '-fdebug-info-for-profiling',
                     '-fprofile-sample-use=' + out, '-S', '-emit-llvm', src, '-o', ll])
                # The profile's path is not in the IR, but keep only what the profile shapes.
                irs.append(open(ll).read())
            if irs[0] != irs[1]:
                print('%s: IR differs between llvm-profdata-22 and profkit profiles (%s)' % (tag, work))
                failures += 1
                continue
            if not re.search(r'!"function_entry_count", i64 [0-9]+\}', irs[1]) or \
               '!"branch_weights"' not in irs[1] or '"ProfileSummary"' not in irs[1]:
                print('%s: the IR shows no use of the profile (%s)' % (tag, work))
                failures += 1
                continue
            print('%s: same IR, profile used' % tag)
    print('%d failures' % failures)
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
