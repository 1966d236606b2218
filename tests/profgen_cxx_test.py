#!/usr/bin/env python3
"""`profkit profgen` against llvm-profgen-22 on a C++ program.

tests/programs/branch_trace/stl.cpp (virtual calls, std::sort with a lambda, std::map,
qsort, exceptions, setjmp/longjmp, recursion) is built with line tables and with pseudo
probes, traced once by profkit-branch-trace into an LBR-only and a hybrid script, and both
tools turn each script into profiles with several option sets. Output bytes, stdout, stderr
and exit status must agree. The probe build has inlinees whose call site the optimizer
merged (inline site index 0, from std::sort's helpers): a context through such a site
starts below it, callers included (a difference in that rule changes dozens of contexts).

With the pre-inliner on (the default), the probe build has cold inlinees of size 0 (their
code optimized away): llvm-profgen inlines a cold call only when it is smaller than the cold
threshold, so they stay out.

usage: profgen_cxx_test.py PROFKIT BRANCH_TRACE
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, 'programs', 'branch_trace', 'stl.cpp')
FLAGS = ['-O2', '-g', '-fno-omit-frame-pointer', '-mno-omit-leaf-frame-pointer']
BUILDS = {'line': ['-fdebug-info-for-profiling'], 'probe': ['-fpseudo-probe-for-profiling']}
LBR_OPTIONS = [['--format=text'], ['--format=extbinary'], ['--format=text', '--use-md5']]
HYBRID_OPTIONS = [
    ['--format=text', '--csspgo-preinliner=0'],
    ['--format=text', '--csspgo-preinliner=0', '--gen-cs-nested-profile=0'],
    ['--format=extbinary', '--csspgo-preinliner=0'],
    ['--format=text', '--csspgo-preinliner=0', '--infer-missing-frames=0'],
    ['--format=text', '--ignore-stack-samples'],
]
PREINLINED = [['--format=text'], ['--format=extbinary'], ['--format=text', '--gen-cs-nested-profile=0']]


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=600)


def compare(profkit, binary, script, options, work, failures):
    results = []
    for name, tool in (('llvm', ['llvm-profgen-22']), ('profkit', [profkit, 'profgen'])):
        out = os.path.join(work, 'out.' + name)
        p = run(tool + ['--binary', binary, '--perfscript', script, '--output', out] + options,
                work)
        data = open(out, 'rb').read() if os.path.exists(out) else None
        if os.path.exists(out):
            os.unlink(out)
        results.append((p.returncode, p.stdout, p.stderr, data))
    (c1, o1, e1, d1), (c2, o2, e2, d2) = results
    what = '%s %s %s' % (os.path.basename(binary), os.path.basename(script), ' '.join(options))
    if c1 != 0 or d1 is None:
        failures.append('%s: llvm-profgen-22 failed (%d): %s' % (what, c1, e1.decode()[-300:]))
    elif (c1, o1, e1, d1) != (c2, o2, e2, d2):
        failures.append('%s: differs (exit %d/%d, output %s, stderr %s: %s)' %
                        (what, c1, c2, 'same' if d1 == d2 else 'DIFFERENT',
                         'same' if e1 == e2 else 'different', e2.decode()[-200:]))
    else:
        print('ok: %s (%d bytes)' % (what, len(d1)))


def main():
    profkit, tracer = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failures = []
    with tempfile.TemporaryDirectory(prefix='profgen-cxx-') as work:
        for kind, flags in BUILDS.items():
            binary = os.path.join(work, 'stl_' + kind)
            p = run(['clang++-22'] + FLAGS + flags + [SOURCE, '-o', binary], work)
            if p.returncode != 0:
                sys.exit('FAIL: build %s: %s' % (kind, p.stderr.decode()))
            lbr, hybrid = binary + '.lbr', binary + '.hyb'
            p = run([tracer, '--lbr', lbr, '--hybrid', hybrid, '--period', '997', '--no-aslr',
                     '-q', '--', binary, '300'], work)
            if p.returncode != 0:
                sys.exit('FAIL: trace %s: %s' % (kind, p.stderr.decode()))
            for options in LBR_OPTIONS:
                compare(profkit, binary, lbr, options, work, failures)
            for options in HYBRID_OPTIONS + PREINLINED:
                compare(profkit, binary, hybrid, options, work, failures)
    if failures:
        print('\n'.join('FAIL: ' + f for f in failures))
        sys.exit(1)
    print('PASS')


if __name__ == '__main__':
    main()
