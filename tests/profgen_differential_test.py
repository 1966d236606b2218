#!/usr/bin/env python3
"""Differential test of `profkit profgen` against llvm-profgen-22.

Each case (one seed) generates a random C program (tests/gen/profgen_program_gen.py), builds
it one of several ways (line tables, pseudo probes, -O0, no frame pointers, non-PIE...),
runs it under profkit-branch-trace with a random sampling period, LBR depth, entry-flag
layout and address layout, and gives the same perf scripts to both tools with a random
subset of llvm-profgen's options: LBR-only scripts, hybrid scripts (context-sensitive
profiles, and with --ignore-stack-samples), unsymbolized profiles written by llvm-profgen, and scripts mutated
the ways real ones go wrong (lines dropped, repeated, cut, garbled, given repeat counts or
CRs). Both must succeed or both fail; on success the output files, stdout and stderr must
be identical.

Every sixth seed (and every seed with PROFKIT_DIFF_BUILDS) uses one of EXTRA_BUILDS instead:
clang-14 builds (its DWARF and probe encoding), and programs whose code is in a shared library,
profiled with the library as --binary and with the executable as --binary (the library's
samples are then external). Those seeds were BUILDS cases before EXTRA_BUILDS existed; the
other seeds map to the same cases as before.

usage: profgen_differential_test.py PROFKIT BRANCH_TRACE [CASES]
  PROFKIT_DIFF_SEED=S    run only case S (replay a failure; the files stay in
                         $TMPDIR/profgen-diff-S)
  PROFKIT_DIFF_CASES=N   run cases 1..N (default: CASES, else 40)
  PROFKIT_DIFF_BUILDS=A,B  every case uses one of these EXTRA_BUILDS (focus on them)
"""
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'gen'))
sys.path.insert(0, os.path.join(HERE, 'support'))
import profgen_program_gen  # noqa: E402
import difftest  # noqa: E402

LLVM = 'llvm-profgen-22'
CLANG = 'clang-22'
FP = ['-fno-omit-frame-pointer', '-mno-omit-leaf-frame-pointer']
BUILDS = {
    'line': ['-O2', '-g', '-fdebug-info-for-profiling'] + FP,
    'line-o1': ['-O1', '-g', '-fdebug-info-for-profiling'] + FP,
    'probe': ['-O2', '-g', '-fpseudo-probe-for-profiling'] + FP,
    'probe-uniq': ['-O2', '-g', '-fpseudo-probe-for-profiling',
                   '-funique-internal-linkage-names'] + FP,
    'o0': ['-O0', '-g'],
    'nofp': ['-O2', '-g', '-fdebug-info-for-profiling'],
    'nopie': ['-O2', '-g', '-fno-pie', '-no-pie', '-fdebug-info-for-profiling'] + FP,
    'nopie-probe': ['-O2', '-g', '-fno-pie', '-no-pie', '-fpseudo-probe-for-profiling'] + FP,
}
# Builds beyond BUILDS: (compiler, flags, library). A library build puts the program's code in
# libprog.so (-fPIC -shared) and keeps a small main in prog, which is 'linked' against it
# (found through its rpath) or loads it with 'dlopen' (and unloads it before it exits).
CLANG14 = 'clang-14'
EXTRA_BUILDS = {
    'clang14-line': (CLANG14, BUILDS['line'], None),
    'clang14-probe': (CLANG14, BUILDS['probe'], None),
    'clang14-o0': (CLANG14, BUILDS['o0'], None),
    'clang14-line-dwarf4': (CLANG14, BUILDS['line'] + ['-gdwarf-4'], None),
    'clang14-nofp-probe': (CLANG14, ['-O2', '-g', '-fpseudo-probe-for-profiling'], None),
    'clang14-line-o1': (CLANG14, BUILDS['line-o1'], None),
    'clang14-nopie-probe': (CLANG14, BUILDS['nopie-probe'], None),
    'dwarf4': (CLANG, BUILDS['line'] + ['-gdwarf-4'], None),
    'so-line': (CLANG, BUILDS['line'], 'linked'),
    'so-probe': (CLANG, BUILDS['probe'], 'linked'),
    'so-nofp': (CLANG, BUILDS['nofp'], 'linked'),
    'so-clang14-probe': (CLANG14, BUILDS['probe'], 'linked'),
    'so-dlopen-line': (CLANG, BUILDS['line'], 'dlopen'),
    'so-dlopen-probe': (CLANG, BUILDS['probe'], 'dlopen'),
    # Without semantic interposition the library's global functions are inlined too.
    'so-line-nsi': (CLANG, BUILDS['line'] + ['-fno-semantic-interposition'], 'linked'),
    'so-probe-nsi': (CLANG, BUILDS['probe'] + ['-fno-semantic-interposition'], 'linked'),
}
OPTIONS = [
    [],
    ['--format=text', '--use-md5'],
    ['--use-md5'],
    ['--format=binary'],
    ['--skip-symbolization'],
    ['--skip-symbolization', '--use-offset=0'],
    ['--skip-symbolization', '--use-first-loadable-segment-as-base'],
    ['--populate-profile-symbol-list'],
    ['--format=text', '--update-total-samples'],
    ['--format=text', '--fill-zero-for-all-funcs'],
    ['--format=text', '--trim-cold-profile'],
    ['--format=text', '--trim-cold-profile', '--profile-summary-cold-count=COLD'],
    ['--format=text', '--show-density', '--profile-density-threshold=1000'],
    ['--format=text', '--profile-density-cutoff-hot=500000'],
    ['--format=text', '--use-dwarf-correlation'],
    ['--format=text', '--show-mmap-events'],
    ['--format=text', '--pid=PID'],
    ['--format=text', '--pid=1'],
]

# Hybrid scripts (call stacks and branch stacks): context-sensitive profiles.
CS_OPTIONS = [
    [],
    ['--format=text', '--gen-cs-nested-profile=0'],
    ['--format=text', '--csprof-merge-cold-context'],
    ['--format=text', '--trim-cold-profile'],
    ['--format=text', '--csspgo-replay-preinline'],
    ['--format=text', '--sample-profile-hot-inline-threshold=30'],
    ['--format=text', '--sample-profile-inline-limit-max=200',
     '--sample-profile-inline-growth-limit=2'],
    ['--format=text', '--csspgo-preinliner-multiplier-for-previous-inlining=1'],
    ['--format=text', '--sample-profile-cold-inline-threshold=8'],
    ['--format=text', '--profile-summary-cold-count=5'],
    ['--csspgo-preinliner=0'],
    ['--csspgo-preinliner=0', '--gen-cs-nested-profile=0'],
    ['--csspgo-preinliner=0', '--gen-cs-nested-profile=0', '--format=text'],
    ['--csspgo-preinliner=0', '--gen-cs-nested-profile=0', '--csprof-merge-cold-context=0',
     '--format=text'],
    ['--skip-symbolization'],
    ['--skip-symbolization', '--use-offset=0'],
    ['--csspgo-preinliner=0', '--infer-missing-frames=0', '--format=text'],
    ['--csspgo-preinliner=0', '--compress-recursion=0', '--gen-cs-nested-profile=0',
     '--format=text'],
    ['--csspgo-preinliner=0', '--compress-recursion=1', '--format=text'],
    ['--csspgo-preinliner=0', '--csprof-max-context-depth=1', '--format=text'],
    ['--csspgo-preinliner=0', '--csprof-max-context-depth=2', '--gen-cs-nested-profile=0',
     '--format=text'],
    ['--csspgo-preinliner=0', '--trim-cold-profile', '--format=text'],
    ['--csspgo-preinliner=0', '--csprof-max-cold-context-depth=2', '--format=text'],
    ['--csspgo-preinliner=0', '--update-total-samples', '--format=text'],
    ['--csspgo-preinliner=0', '--use-md5'],
    ['--csspgo-preinliner=0', '--profile-summary-hot-count=3', '--format=text'],
]


LLVM_CRASHES = []


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def mutate(lines, rng):
    """A copy of a script's lines with 1-4 realistic defects."""
    lines = list(lines)
    for _ in range(rng.randint(1, 4)):
        if not lines:
            break
        i = rng.randrange(len(lines))
        op = rng.randrange(9)
        if op == 0:
            del lines[i]
        elif op == 1:
            lines.insert(i, lines[i])
        elif op == 2:
            lines.insert(i, str(rng.choice([1, 2, 7, 1000, 0])))
        elif op == 3:
            lines[i] = lines[i][:rng.randrange(len(lines[i]) + 1)]
        elif op == 4:
            lines[i] = lines[i] + '\r'
        elif op == 5:
            lines.insert(i, rng.choice(['', '// comment', '  ', '\t', 'garbage line']))
        elif op == 6:
            lines[i] = re.sub(r'0x([0-9a-f]+)/', lambda m: '0x%s/' % (m.group(1)[::-1]),
                              lines[i], count=1)
        elif op == 7:
            lines[i] = lines[i].replace('/', '|', 1)
        else:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
    return lines


def compare(profkit, args, work, label, failures):
    # `-o` names differ; everything else is the same command line.
    r1 = run([profkit, 'profgen'] + args + ['-o', 'pk.out'], work)
    r2 = run([LLVM] + args + ['-o', 'ref.out'], work)
    pk = ref = b''
    if os.path.exists(os.path.join(work, 'pk.out')):
        with open(os.path.join(work, 'pk.out'), 'rb') as f:
            pk = f.read()
        os.unlink(os.path.join(work, 'pk.out'))
    if os.path.exists(os.path.join(work, 'ref.out')):
        with open(os.path.join(work, 'ref.out'), 'rb') as f:
            ref = f.read()
        os.unlink(os.path.join(work, 'ref.out'))
    why = None
    if r1[0] < 0:
        why = 'profkit died of signal %d' % -r1[0]
    elif r2[0] < 0:
        # llvm-profgen crashed (it does on some unsymbolized profiles): nothing to compare.
        LLVM_CRASHES.append('%s: %s' % (label, ' '.join(args)))
        return False
    elif (r1[0] == 0) != (r2[0] == 0):
        why = 'exit status %d (profkit) vs %d (llvm-profgen)' % (r1[0], r2[0])
    elif r1[0] == 0 and pk != ref:
        why = 'output files differ (%d vs %d bytes)' % (len(pk), len(ref))
    elif r1[0] == 0 and r1[1] != r2[1]:
        why = 'stdout differs'
    elif r1[0] == 0 and r1[2].replace(b'profkit', b'') != r2[2].replace(b'llvm-profgen', b''):
        why = 'stderr differs:\n%s\n---\n%s' % (r1[2].decode(errors='replace')[-800:],
                                                 r2[2].decode(errors='replace')[-800:])
    if why:
        failures.append('%s: %s\n    args: %s' % (label, why, ' '.join(args)))
    return r2[0] == 0


def build_program(seed, build, work):
    """Writes and builds case `seed`'s program; returns (build, binary to profile, error).
    `build` (the BUILDS choice) is replaced by an EXTRA_BUILDS one on every sixth seed or when
    PROFKIT_DIFF_BUILDS names some, drawn from its own generator so that the case's other
    random choices stay those of its BUILDS case."""
    extra = [b for b in os.environ.get('PROFKIT_DIFF_BUILDS', '').split(',') if b]
    if not extra and seed % 6 == 0:
        extra = sorted(EXTRA_BUILDS)
    if not extra:
        with open(os.path.join(work, 'prog.c'), 'w') as f:
            f.write(profgen_program_gen.generate(seed))
        code, _, err = run([CLANG] + BUILDS[build] + ['prog.c', '-o', 'prog'], work)
        return build, 'prog', err.decode() if code else None
    build = random.Random('extra-build-%d' % seed).choice(extra)
    compiler, flags, library = EXTRA_BUILDS[build]
    if not library:
        with open(os.path.join(work, 'prog.c'), 'w') as f:
            f.write(profgen_program_gen.generate(seed))
        code, _, err = run([compiler] + flags + ['prog.c', '-o', 'prog'], work)
        return build, 'prog', err.decode() if code else None
    lib, main = profgen_program_gen.generate_library(seed, dlopen=library == 'dlopen')
    link = ['-ldl'] if library == 'dlopen' else ['-L.', '-lprog', '-Wl,-rpath,$ORIGIN']
    for name, text in [('lib.c', lib), ('main.c', main)]:
        with open(os.path.join(work, name), 'w') as f:
            f.write(text)
    for cmd in [[compiler] + flags + ['-fPIC', '-shared', 'lib.c', '-o', 'libprog.so'],
                [compiler] + flags + ['main.c', '-o', 'prog'] + link]:
        code, _, err = run(cmd, work)
        if code:
            return build, None, err.decode()
    return build, 'libprog.so', None


def run_case(profkit, tracer, seed, keep):
    rng = random.Random(seed)
    work = os.path.join(tempfile.gettempdir(), 'profgen-diff-%d' % seed)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    failures = []
    try:
        build = rng.choice(sorted(BUILDS))
        build, binary, err = build_program(seed, build, work)
        if err:
            return ['seed %d: %s build failed: %s' % (seed, build, err[-500:])]
        period = rng.choice([97, 211, 499, 997, 1999, 3001])
        trace = [tracer, '--lbr', 'prog.lbr', '--hybrid', 'prog.hyb', '-q',
                 '--period', str(period), '--depth', str(rng.choice([4, 8, 16, 32])),
                 '--flags', rng.choice(['classic', 'spec', 'typed'])]
        if rng.random() < 0.2:
            trace += ['--event', 'branches']
        if rng.random() < 0.5:
            trace.append('--no-aslr')
        if rng.random() < 0.5:
            trace += ['--stack', 'fp']
        code, _, err = run(trace + ['--', './prog'], work)
        if code != 0:
            return ['seed %d: tracing failed (%d): %s' % (seed, code, err.decode()[-500:])]
        with open(os.path.join(work, 'prog.lbr')) as f:
            lbr = f.read()
        pid = re.search(r'PERF_RECORD_MMAP2 (\d+)/', lbr)
        cold = str(rng.choice([0, 1, 5, 50]))
        label = 'seed %d (%s, period %d)' % (seed, build, period)

        chosen = [['--format=text']] + rng.sample(OPTIONS, 5)
        for opts in chosen:
            opts = [o.replace('PID', pid.group(1) if pid else '1').replace('COLD', cold)
                    for o in opts]
            compare(profkit, ['--binary', binary, '--perfscript', 'prog.lbr'] + opts, work,
                    label, failures)
        compare(profkit, ['--binary', binary, '--perfscript', 'prog.hyb',
                          '--ignore-stack-samples', '--format=text'], work, label, failures)
        for opts in [['--format=text'], ['--csspgo-preinliner=0', '--format=text']] + \
                rng.sample(CS_OPTIONS, 4):
            compare(profkit, ['--binary', binary, '--perfscript', 'prog.hyb'] + opts, work,
                    label + ' hybrid', failures)
        # Unsymbolized profiles written by llvm-profgen, read by both.
        base = rng.choice([[], ['--use-offset=0'], ['--use-first-loadable-segment-as-base']])
        code, _, _ = run([LLVM, '--binary', binary, '--perfscript', 'prog.lbr',
                          '--skip-symbolization', '-o', 'prog.raw'] + base, work)
        if code == 0:
            compare(profkit, ['--binary', binary, '--unsymbolized-profile', 'prog.raw',
                              '--format=text'] + base, work, label, failures)
        # Context-sensitive unsymbolized profiles: llvm-profgen reads the line-based ones; it
        # crashes on probe-based ones, which profkit reads back to its direct result.
        code, _, _ = run([LLVM, '--binary', binary, '--perfscript', 'prog.hyb',
                          '--skip-symbolization', '-o', 'prog.csraw'] + base, work)
        if code == 0 and 'probe' not in build:
            compare(profkit, ['--binary', binary, '--unsymbolized-profile', 'prog.csraw',
                              '--format=text'] + base, work, label + ' cs raw', failures)
        elif code == 0:
            direct = run([profkit, 'profgen', '--binary', binary, '--perfscript', 'prog.hyb',
                          '--format=text', '-o', '-'], work)
            via = run([profkit, 'profgen', '--binary', binary, '--unsymbolized-profile',
                       'prog.csraw', '--format=text', '-o', '-'] + base, work)
            if direct[0] != 0 or via[:2] != direct[:2]:
                failures.append('%s: probe CS unsymbolized profile does not read back to the '
                                'direct profile' % label)
        if binary != 'prog':
            # The executable as the binary: the library's samples are outside it.
            for script in ['prog.lbr', 'prog.hyb']:
                compare(profkit, ['--binary', 'prog', '--perfscript', script, '--format=text'],
                        work, label + ' executable', failures)
        if build in EXTRA_BUILDS and 'probe' in build:
            # Line profiles of probe builds read the probes clang-14 packs into discriminators.
            for script in ['prog.lbr', 'prog.hyb']:
                compare(profkit, ['--binary', binary, '--perfscript', script, '--format=text',
                                  '--use-dwarf-correlation'], work, label + ' dwarf', failures)
        # Defective scripts.
        lines = lbr.split('\n')
        for k in range(2):
            with open(os.path.join(work, 'bad%d.lbr' % k), 'w') as f:
                f.write('\n'.join(mutate(lines, rng)))
            compare(profkit, ['--binary', binary, '--perfscript', 'bad%d.lbr' % k,
                              '--format=text'], work, label + ' mutation %d' % k, failures)
        with open(os.path.join(work, 'prog.hyb')) as f:
            hybrid_lines = f.read().split('\n')
        with open(os.path.join(work, 'bad.hyb'), 'w') as f:
            f.write('\n'.join(mutate(hybrid_lines, rng)))
        compare(profkit, ['--binary', binary, '--perfscript', 'bad.hyb', '--format=text'], work,
                label + ' hybrid mutation', failures)
    finally:
        if not keep and not failures:
            shutil.rmtree(work, ignore_errors=True)
    return failures


def main():
    profkit, tracer = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    default = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    if 'PROFKIT_DIFF_SEED' in os.environ:
        seeds, keep = [int(os.environ['PROFKIT_DIFF_SEED'])], True
    else:
        seeds, keep = difftest.seeds(default), False
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for result in pool.map(lambda s: run_case(profkit, tracer, s, keep), seeds):
            failures.extend(result)
    for f in failures:
        print('FAIL', f)
    for c in LLVM_CRASHES:
        print('llvm-profgen crashed (not compared):', c)
    print('%d cases, %d failures (replay one: PROFKIT_DIFF_SEED=N %s %s %s)'
          % (len(seeds), len(failures), sys.argv[0], profkit, tracer))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
