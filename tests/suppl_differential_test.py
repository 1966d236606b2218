#!/usr/bin/env python3
"""Differential test of `profkit merge --supplement-instr-with-sample` against llvm-profdata-22.

Each case (one seed) generates an IR-PGO text profile and a sample profile of the same
functions (tests/gen/suppl_gen.py), or now and then takes a raw profile of a real program
(format/instrprof/testdata, value sites included) with random samples of its functions;
it turns the instr profile into an indexed one (some with MemProf records) and the sample
profile into extbinary (some with MD5 names) or binary some of the time (with
llvm-profdata 22 itself), picks random thresholds and an output form (indexed, --text,
--sparse, --write-prev-version, MemProf versions), and runs both tools on the same command
line. Both must exit with the same status; on success they must write the same bytes and
the same warning lines.
Every case also checks one misuse (two inputs, a weight, standard output, a missing or
unreadable sample profile): same status, and the same message for the ones llvm-profdata
words itself.

usage: suppl_differential_test.py PROFKIT [CASES]
  PROFKIT_DIFF_SEED=S    run only case S (replay a failure)
  PROFKIT_DIFF_CASES=N   run cases 1..N (default: CASES, else 300)
"""
import concurrent.futures
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'gen'))
sys.path.insert(0, os.path.join(HERE, 'support'))
import suppl_gen  # noqa: E402
import difftest  # noqa: E402

LLVM = 'llvm-profdata-22'
stats_lock = threading.Lock()


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr


def warnings(stderr):
    return [l for l in stderr.decode(errors='replace').splitlines() if l.startswith('warning: ')]


def error_text(stderr):
    """The message after "error: " (llvm-profdata) or "profkit: error: " (profkit)."""
    text = stderr.decode(errors='replace').strip()
    for prefix in ('profkit: error: ', 'error: '):
        if text.startswith(prefix):
            return text[len(prefix):].strip()
    return text


def thresholds(r):
    args = []
    if r.random() < 0.6:
        args.append('--suppl-min-size-threshold=%d' % r.choice([0, 1, 2, 5, 9, 10, 11, 20, 31]))
    if r.random() < 0.6:
        args.append('--zero-counter-threshold=%s' % r.choice(
            ['0', '0.1', '0.3', '0.5', '0.69', '0.7', '0.75', '0.8', '0.9', '1', '0.333333']))
    if r.random() < 0.6:
        args.append('--instr-prof-cold-threshold=%d' % r.choice(
            [0, 1, 2, 3, 10, 40, 100, 1000, 100000, 4294967295]))
    if r.random() < 0.1:  # the single-dash spellings
        args = ['-' + a[2:] for a in args]
    return args


def misuse(r):
    return r.choice([
        ('stdout', ['IN', '--supplement-instr-with-sample=SAMPLE', '-o', '-'], True),
        ('no-output', ['IN', '--supplement-instr-with-sample=SAMPLE'], True),
        ('two-inputs', ['IN', 'IN', '--supplement-instr-with-sample=SAMPLE', '-o', 'x'], True),
        ('weight', ['--weighted-input=2,IN', '--supplement-instr-with-sample=SAMPLE', '-o', 'x'],
         True),
        ('sample-kind', ['--sample', 'SAMPLE', '--supplement-instr-with-sample=SAMPLE', '-o', 'x'],
         True),
        ('missing-sample', ['IN', '--supplement-instr-with-sample=nonexistent.prof', '-o', 'x'],
         False),
        ('instr-as-sample', ['IN', '--supplement-instr-with-sample=IN', '-o', 'x'], False),
        ('sample-as-instr', ['SAMPLE', '--supplement-instr-with-sample=SAMPLE', '-o', 'x'], False),
    ])


RAW_DIR = os.path.join(os.path.dirname(HERE), 'format', 'instrprof', 'testdata', 'merge')
MEMPROF_YAML = os.path.join(os.path.dirname(HERE), 'fuzz', 'corpus', 'memprof_yaml_reader_fuzz',
                            'ctx.yaml')
RAW_FILES = ['simple22.profraw', 'vp22.profraw', 'vp22b.profraw']


def raw_case(r, d):
    """A raw profile of a real program (value sites included) and random samples of its
    functions; returns the two file names."""
    raw = r.choice(RAW_FILES)
    shutil.copy(os.path.join(RAW_DIR, raw), os.path.join(d, raw))
    rc, out, _ = run([LLVM, 'merge', '--text', raw, '-o', '-'], d)
    lines = out.decode().splitlines() if rc == 0 else []
    names = [lines[i - 1] for i in range(1, len(lines)) if lines[i] == '# Func Hash:']
    sample = []
    for n in names:
        if r.random() < 0.7:
            sample.append('%s:%d:%d' % (n, r.randint(0, 9000), r.randint(0, 90)))
            for line in sorted(r.sample(range(0, 9), r.randint(1, 4))):
                sample.append(' %d: %d' % (line, r.choice([0, 1, 30, 500, 4000])))
            if r.random() < 0.3:
                sample.append(' 9: %s:%d' % (r.choice(names), r.randint(0, 900)))
                sample.append('  1: %d' % r.randint(0, 900))
    if not sample:
        sample = ['main:1:1', ' 1: 1']
    with open(os.path.join(d, 'sample.txt'), 'w') as f:
        f.write('\n'.join(sample) + '\n')
    return raw


def one_case(profkit, seed, workdir, stats):
    r = random.Random(seed * 104729 + 3)
    d = os.path.join(workdir, 'case%d' % seed)
    os.makedirs(d, exist_ok=True)
    instr_text, sample_text = suppl_gen.generate(seed)
    with open(os.path.join(d, 'instr.proftext'), 'w') as f:
        f.write(instr_text)
    with open(os.path.join(d, 'sample.txt'), 'w') as f:
        f.write(sample_text)
    instr, sample = 'instr.proftext', 'sample.txt'
    if r.random() < 0.08:  # a raw input
        instr = raw_case(r, d)
        sample_text = open(os.path.join(d, 'sample.txt')).read()
    elif r.random() < 0.35:
        # Some indexed inputs carry MemProf records (LLVM keeps only an empty section).
        memprof = [MEMPROF_YAML] if r.random() < 0.3 else []
        rc, _, err = run([LLVM, 'merge', instr] + memprof + ['-o', 'instr.profdata'], d)
        if rc != 0:
            return 'seed %d: llvm-profdata rejected the generated instr profile: %s' % (
                seed, err.decode(errors='replace'))
        instr = 'instr.profdata'
        if memprof and r.random() < 0.5:
            # The MemProf flag without records: what a supplement itself writes.
            rc, _, err = run([LLVM, 'merge', instr, '--supplement-instr-with-sample=sample.txt',
                              '-o', 'flag_only.profdata'], d)
            if rc != 0:
                return 'seed %d: llvm-profdata could not supplement the input: %s' % (
                    seed, err.decode(errors='replace'))
            instr = 'flag_only.profdata'
    k = r.random()
    if k < 0.4:
        cs = sample_text.startswith('[')  # CS profiles have no binary encoding
        enc = ['--extbinary'] if k < 0.3 or cs else ['--binary']
        if r.random() < 0.15:
            enc.append('--use-md5')  # names become MD5 ids: nothing can match them
        sample = 'sample.prof'
        rc, _, err = run([LLVM, 'merge', '--sample'] + enc + ['sample.txt', '-o', sample], d)
        if rc != 0:
            return 'seed %d: llvm-profdata rejected the generated sample profile: %s' % (
                seed, err.decode(errors='replace'))
    out_args = r.choice([[], [], ['--text'], ['--sparse'], ['--text', '--sparse'],
                         ['--write-prev-version']])
    if r.random() < 0.2:
        out_args = out_args + r.choice([['--memprof-version=2'], ['--memprof-version=4'],
                                        ['--memprof-full-schema']])
    args = [instr, '--supplement-instr-with-sample=' + sample] + thresholds(r) + out_args
    rl, _, el = run([LLVM, 'merge'] + args + ['-o', 'ref.out'], d)
    rp, _, ep = run([profkit, 'merge'] + args + ['-o', 'pk.out'], d)
    what = ' '.join(args)
    if rl != rp:
        return 'seed %d: %s\n  llvm-profdata exit %d, profkit exit %d\n  llvm: %s\n  profkit: %s' % (
            seed, what, rl, rp, el.decode(errors='replace').strip()[:400],
            ep.decode(errors='replace').strip()[:400])
    if rl == 0:
        a = open(os.path.join(d, 'ref.out'), 'rb').read()
        b = open(os.path.join(d, 'pk.out'), 'rb').read()
        if a != b:
            return 'seed %d: %s\n  outputs differ (llvm-profdata %d bytes, profkit %d bytes)' % (
                seed, what, len(a), len(b))
        if warnings(el) != warnings(ep):
            return 'seed %d: %s\n  warnings differ\n  llvm: %s\n  profkit: %s' % (
                seed, what, warnings(el), warnings(ep))
        # What the case exercised: did the supplement change anything, did it warn?
        rc, _, _ = run([LLVM, 'merge', instr] + out_args + ['-o', 'plain.out'], d)
        with stats_lock:
            if rc == 0 and open(os.path.join(d, 'plain.out'), 'rb').read() != a:
                stats['adjusted'] += 1
            if warnings(el):
                stats['warned'] += 1
    elif os.path.exists(os.path.join(d, 'pk.out')):
        return 'seed %d: %s\n  profkit failed but left an output file' % (seed, what)

    tag, margs, same_message = misuse(r)
    margs = [a.replace('IN', instr).replace('SAMPLE', sample) for a in margs]
    for f in ('x', ):
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    rl, _, el = run([LLVM, 'merge'] + margs, d)
    rp, _, ep = run([profkit, 'merge'] + margs, d)
    if rl != rp or (rp != 0 and os.path.exists(os.path.join(d, 'x'))):
        return 'seed %d: misuse %s: llvm-profdata exit %d, profkit exit %d\n  %s\n  %s' % (
            seed, tag, rl, rp, el.decode(errors='replace').strip(),
            ep.decode(errors='replace').strip())
    if same_message and error_text(el) != error_text(ep):
        return 'seed %d: misuse %s: messages differ\n  llvm: %s\n  profkit: %s' % (
            seed, tag, error_text(el), error_text(ep))
    return ''


def main():
    profkit = os.path.abspath(sys.argv[1])
    if shutil.which(LLVM) is None:
        print('FAIL: %s is not installed (the test needs it)' % LLVM)
        return 1
    only = os.environ.get('PROFKIT_DIFF_SEED')
    if only is not None:
        seeds = [int(only)]
    else:
        default = int(sys.argv[2]) if len(sys.argv) > 2 else 300
        seeds = list(difftest.seeds(default))
    workdir = tempfile.mkdtemp(prefix='suppl_diff_')
    failures = []
    stats = {'adjusted': 0, 'warned': 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for seed, result in zip(seeds, pool.map(lambda s: one_case(profkit, s, workdir, stats), seeds)):
            if result:
                failures.append(result)
            else:
                shutil.rmtree(os.path.join(workdir, 'case%d' % seed), ignore_errors=True)
    for f in failures[:20]:
        print('FAIL ' + f)
    print('%d of %d cases passed (%d changed the profile, %d warned)%s' % (
        len(seeds) - len(failures), len(seeds), stats['adjusted'], stats['warned'],
                                       '' if not failures else
                                       ' (replay one with PROFKIT_DIFF_SEED=S; inputs kept in %s)'
                                       % workdir))
    if not failures:
        shutil.rmtree(workdir, ignore_errors=True)
    # A generator that stopped producing functions to adjust would pass vacuously.
    if only is None and len(seeds) >= 50 and stats['adjusted'] < len(seeds) // 4:
        print('FAIL: only %d cases changed the profile: the generator no longer exercises '
              'the supplement' % stats['adjusted'])
        return 1
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
