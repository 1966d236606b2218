#!/usr/bin/env python3
"""`profkit profgen` without branch stacks: estimated profiles against exact ones.

tests/programs/branch_trace/calls.c (whose call counts are known: hot 4260, cold 200, tail
1000, rec 500 per run) is built with line tables and with pseudo probes, then traced by
profkit-branch-trace:
  * exactly, without stacks: a 2-entry branch stack after every taken branch, which makes
    profgen's counts the true counts (llvm-profgen-22 gives the same bytes,
    tests/profgen_differential_test.py);
  * exactly, with stacks: a 32-entry branch stack and the call stack after every taken
    branch; llvm-profgen-22 turns it into the context-sensitive profile of the run (every
    range counted about 31 times, which the similarity does not see);
  * like `perf record -g`: a frame-pointer call stack every 97 instructions and no branch
    stack (the hybrid script with its branch lines removed).
The estimate from the last script must resemble the exact profiles (`profkit overlap
--sample` similarity): context-sensitive by default (measured 85.5% line-based, 88.7%
probe-based), context-free with --ignore-stack-samples (90.3%, 89.6%); the call-count
ratios must be roughly right, and the contexts of `hot` must be told apart (its callers
main:9 and main:13 call it equally often). --perfdata is checked through a stand-in `perf`
that prints the same script: the result must equal --perfscript's.

usage: profgen_ip_samples_test.py PROFKIT BRANCH_TRACE
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, 'programs', 'branch_trace', 'calls.c')
FP = ['-O2', '-g', '-fno-omit-frame-pointer', '-mno-omit-leaf-frame-pointer']
MIN_SIMILARITY = 75.0  # measured: 80-90% on this program


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    if p.returncode != 0:
        raise SystemExit('FAIL: %s exited %d\n%s%s' % (' '.join(cmd), p.returncode, p.stdout,
                                                      p.stderr))
    return p


def head_samples(profile_text, name):
    m = re.search(r'^%s:\d+:(\d+)$' % re.escape(name), profile_text, re.M)
    return int(m.group(1)) if m else 0


def check_similarity(profkit, what, exact, estimate, failures):
    overlap = run([profkit, 'overlap', '--sample', exact, estimate]).stdout
    similarity = float(re.search(r'Whole program profile similarity: ([\d.]+)%',
                                 overlap).group(1))
    print('%s: similarity %.3f%%' % (what, similarity))
    if similarity < MIN_SIMILARITY:
        failures.append('%s: similarity %.3f%% < %.1f%%' % (what, similarity, MIN_SIMILARITY))


def context_totals(profile_text, leaf):
    """Total samples of each flat context whose last frame is `leaf`."""
    out = {}
    for m in re.finditer(r'^\[(.*)\]:(\d+):\d+$', profile_text, re.M):
        frames = m.group(1).split(' @ ')
        if frames[-1] == leaf:
            out[m.group(1)] = int(m.group(2))
    return out


def main():
    profkit, tracer = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    work = tempfile.mkdtemp(prefix='profgen-ip-')
    failures = []
    try:
        for kind, flags in (('line', ['-fdebug-info-for-profiling']),
                            ('probe', ['-fpseudo-probe-for-profiling'])):
            prog = os.path.join(work, 'calls_' + kind)
            run(['clang-22'] + FP + flags + [SOURCE, '-o', prog])
            exact_script, hyb = prog + '.exact', prog + '.hyb'
            run([tracer, '--lbr', exact_script, '--event', 'branches', '--period', '1',
                 '--depth', '2', '--no-aslr', '-q', '--', prog])
            run([tracer, '--hybrid', hyb, '--stack', 'fp', '--period', '97', '--no-aslr',
                 '-q', '--', prog, '20000'])
            with open(hyb) as f:
                lines = [l for l in f.read().split('\n') if not l.startswith(' 0x')]
            ip_script = prog + '.ip'
            with open(ip_script, 'w') as f:
                f.write('\n'.join(lines))
            exact_cs_script = prog + '.exact-cs'
            run([tracer, '--hybrid', exact_cs_script, '--event', 'branches', '--period', '1',
                 '--depth', '32', '--no-aslr', '-q', '--', prog])
            exact, estimate = prog + '.exact.prof', prog + '.ip.prof'
            run([profkit, 'profgen', '--binary', prog, '--perfscript', exact_script,
                 '--format=text', '-o', exact])
            p = run([profkit, 'profgen', '--binary', prog, '--perfscript', ip_script,
                     '--format=text', '--ignore-stack-samples', '-o', estimate])
            if 'no branch stacks' not in p.stderr:
                failures.append('%s: no notice that the profile is an estimate' % kind)
            check_similarity(profkit, kind + ' context-free', exact, estimate, failures)
            with open(estimate) as f:
                text = f.read()
            hot, cold = head_samples(text, 'hot'), head_samples(text, 'cold')
            # True ratio 4260 / 200 = 21.3.
            if cold == 0 or not 8 <= hot / cold <= 50:
                failures.append('%s: hot/cold head samples %d/%d, expected about 21' %
                                (kind, hot, cold))

            # Contexts from the call stacks, against the exact context-sensitive profile.
            exact_cs, estimate_cs = prog + '.exact-cs.prof', prog + '.cs.prof'
            run(['llvm-profgen-22', '--binary', prog, '--perfscript', exact_cs_script,
                 '--format=text', '--output', exact_cs])
            run([profkit, 'profgen', '--binary', prog, '--perfscript', ip_script,
                 '--format=text', '-o', estimate_cs])
            check_similarity(profkit, kind + ' contexts', exact_cs, estimate_cs, failures)
            flat = prog + '.flat.prof'
            run([profkit, 'profgen', '--binary', prog, '--perfscript', ip_script,
                 '--format=text', '--csspgo-preinliner=0', '--gen-cs-nested-profile=0',
                 '-o', flat])
            with open(flat) as f:
                contexts = context_totals(f.read(), 'hot')
            ranked = sorted(contexts.values(), reverse=True)
            # hot is called from main:9 (N times), main:13 (N/2, and N/2 tail-called through
            # tail) and from the rec trees: three contexts at least, the first two alike.
            if len(ranked) < 3 or ranked[1] * 2 < ranked[0]:
                failures.append('%s: contexts of hot %s, expected three or more, the two '
                                'largest within a factor 2' % (kind, contexts))
            with open(estimate_cs) as f:
                text = f.read()

            # --perfdata through a stand-in perf printing the same script.
            fake = os.path.join(work, 'bin')
            os.makedirs(fake, exist_ok=True)
            with open(os.path.join(fake, 'perf'), 'w') as f:
                f.write('#!/bin/sh\ncase "$*" in\n'
                        '  *comm,pid*) grep PERF_RECORD_MMAP "%s" ;;\n'
                        '  *) cat "%s" ;;\nesac\n' % (ip_script, ip_script))
            os.chmod(os.path.join(fake, 'perf'), 0o755)
            env = dict(os.environ, PATH=fake + os.pathsep + os.environ['PATH'])
            via_data = prog + '.data.prof'
            open(prog + '.fake-perf.data', 'w').close()
            run([profkit, 'profgen', '--binary', prog, '--perfdata', prog + '.fake-perf.data',
                 '--format=text', '-o', via_data], env=env)
            with open(via_data) as f:
                if f.read() != text:
                    failures.append('%s: --perfdata differs from --perfscript' % kind)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print('FAIL', f)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
