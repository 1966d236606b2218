#!/usr/bin/env python3
"""Differential test of `profkit merge`/`show --memory` against llvm-profdata-22 on raw
memprof profiles of random programs.

Each case (one seed) writes a random C or C++ program (tests/gen/memprof_program_gen.py),
builds it with clang-22 -fmemory-profile and random flags (-O0/-O1/-O2, frame pointers or
not, PIE or not, access histograms or not, sometimes -fprofile-generate too), links it once
with compiler-rt's runtime and once with profkit's, and runs each 1-4 times with different
arguments (some runs without ASLR and with a repeated argument, so that their raw files
can be chained into one). Then both tools run the same command lines and must agree on
the exit status and, on success, on every output byte:
  * `merge --profiled-binary=BIN RAW` of every raw file, for --memprof-version=2/3/4 with
    and without --memprof-full-schema, and `show --memory` of each merged file;
  * `show --memory --profiled-binary=BIN RAW` (the AccessHistogram line, a heap pointer of
    llvm-profdata, masked);
  * a raw file made of several chained profiles (runs concatenated), which llvm-profdata
    merges by stack id, or rejects when the runs' ids disagree;
  * several raw files as separate inputs, where llvm-profdata keeps the first input's
    records only (docs/memprof.md): when the inputs' stack ids mean the same PCs in every
    run, profkit's record-by-record merge must give llvm-profdata's merge of the same
    profiles chained in one file (the default schema only when a file lists an id twice:
    docs/formats/memprof.md D.7); otherwise only the exit status is compared;
  * IR-PGO raw and text profiles of the same program merged with its memprof profile;
  * raw files of both runtimes' binaries in one merge with one binary (exit status only).
Full-schema files of histogram builds store each writer's heap pointer as AccessHistogram:
they are compared through `show --memory` instead, that line masked. Raw files with
histograms are never chained (llvm-profdata 22 crashes on them, B.5).

usage: memprof_differential_test.py PROFKIT RUNTIME_DIR [CASES]
  PROFKIT_DIFF_SEED=S    run only case S (replay a failure)
  PROFKIT_DIFF_CASES=N   run cases 1..N (default: CASES, else 40)
"""
import collections
import os
import random
import shutil
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'support'))
import difftest  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, 'gen'))
import memprof_program_gen  # noqa: E402

LLVM = 'llvm-profdata-22'
VERSIONS = [(v, fs) for v in (2, 3, 4) for fs in (False, True)]
COUNTS = collections.Counter()  # comparisons made, by kind (printed at the end)
COUNTS_LOCK = threading.Lock()


def count(kind):
    with COUNTS_LOCK:
        COUNTS[kind] += 1


def run(args, cwd, env=None):
    # llvm-profdata merges on one thread: that is profkit's reference, and its default
    # (one thread per core) merges MemProf inputs differently per machine and was once seen
    # hanging on three raw inputs. A command that runs for minutes counts as failed.
    if args[:2] == [LLVM, 'merge']:
        args = [LLVM, 'merge', '--num-threads=1'] + args[2:]
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    try:
        p = subprocess.run(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=full_env, timeout=300)
    except subprocess.TimeoutExpired:
        return 124, b'', ('%s: no answer after 300 s' % ' '.join(args)).encode()
    return p.returncode, p.stdout, p.stderr


def text(b):
    return b.decode(errors='replace').strip()[:400]


def mask_histogram(out):
    """llvm-profdata prints a heap address of its own as the AccessHistogram of a MIB with a
    histogram; profkit prints the value stored in the file (docs/memprof.md)."""
    return b'\n'.join(l for l in out.split(b'\n') if b'AccessHistogram: ' not in l)


def merge_args(version, full_schema):
    return ['--memprof-version=%d' % version] + (['--memprof-full-schema'] if full_schema else [])


class Case:
    def __init__(self, profkit, seed, d):
        self.profkit, self.seed, self.d = profkit, seed, d
        self.errors = []

    def fail(self, msg):
        self.errors.append(msg)

    def both(self, args, tag):
        """Runs `TOOL ARGS -o TAG.{ref,pk}` with both tools: (status, ref bytes, pk bytes)
        or None after recording a difference in the exit status."""
        rl, _, el = run([LLVM] + args + ['-o', tag + '.ref'], self.d)
        rp, _, ep = run([self.profkit] + args + ['-o', tag + '.pk'], self.d)
        if (rl == 0) != (rp == 0):
            self.fail('%s: llvm-profdata exit %d, profkit exit %d\n    llvm: %s\n    profkit: %s\n'
                      '    command: %s' % (tag, rl, rp, text(el), text(ep), ' '.join(args)))
            return None
        if rl != 0:
            # Both failed: the message names what (counted by its last words, for the summary).
            count('both failed: ' + el.decode(errors='replace').strip().split('\n')[0][-60:])
            return rl, b'', b''
        with open(os.path.join(self.d, tag + '.ref'), 'rb') as f:
            a = f.read()
        with open(os.path.join(self.d, tag + '.pk'), 'rb') as f:
            b = f.read()
        return 0, a, b

    def merge(self, args, tag, histogram_pointer=False):
        """Merges with both tools; the outputs must be identical, and so must `show --memory`
        of llvm-profdata's output by both. With `histogram_pointer` (full schema of a
        histogram build) each file stores its writer's heap pointer as AccessHistogram, so
        llvm-profdata must show both files alike instead, that line masked."""
        count('merge')
        r = self.both(['merge'] + args, tag)
        if r is None or r[0] != 0:
            return
        _, a, b = r
        if a != b and not histogram_pointer:
            self.fail('%s: merged files differ (llvm-profdata %d bytes, profkit %d bytes)\n'
                      '    command: merge %s' % (tag, len(a), len(b), ' '.join(args)))
            return
        ref = tag + '.ref'
        rl, ol, el = run([LLVM, 'show', '--memory', ref], self.d)
        rp, op, ep = run([self.profkit, 'show', '--memory', ref], self.d)
        if histogram_pointer:
            ol, op = mask_histogram(ol), mask_histogram(op)
            rk, ok, ek = run([LLVM, 'show', '--memory', tag + '.pk'], self.d)
            if rk != rl or mask_histogram(ok) != ol:
                self.fail('%s: llvm-profdata shows our file unlike its own %s' % (tag, text(ek)))
        if rl != rp or ol != op:
            self.fail('%s: show --memory of the merged file differs (llvm exit %d, profkit '
                      'exit %d) %s' % (tag, rl, rp, text(el + ep)))

    def show_raw(self, binary, raw, tag):
        count('show raw')
        rl, ol, el = run([LLVM, 'show', '--memory', '--profiled-binary=' + binary, raw], self.d)
        rp, op, ep = run([self.profkit, 'show', '--memory', '--profiled-binary=' + binary, raw],
                         self.d)
        if (rl == 0) != (rp == 0):
            self.fail('%s: show of raw: llvm-profdata exit %d, profkit exit %d: %s' % (
                tag, rl, rp, text(el + ep)))
        elif rl == 0 and mask_histogram(ol) != mask_histogram(op):
            self.fail('%s: show --memory of raw %s differs' % (tag, raw))


def raw_stacks(path):
    """{stack id: PCs} of every profile chained in a raw file (docs/formats/memprof.md B.1),
    or None when two profiles give one id different PCs."""
    with open(path, 'rb') as f:
        data = f.read()
    out = {}
    pos = 0
    while pos + 48 <= len(data):
        _, _, total, _, _, stack_off = struct.unpack_from('<6Q', data, pos)
        if total == 0:
            break
        p = pos + stack_off
        (n,) = struct.unpack_from('<Q', data, p)
        p += 8
        for _ in range(n):
            sid, npcs = struct.unpack_from('<2Q', data, p)
            pcs = struct.unpack_from('<%dQ' % npcs, data, p + 16)
            p += 16 + 8 * npcs
            if out.setdefault(sid, pcs) != pcs:
                return None
        pos += total
    return out


def same_ids(paths):
    """True when every stack id means the same PCs in every file, and every PC list has one
    id: then merging the files by context is merging them by stack id."""
    ids = {}
    for p in paths:
        s = raw_stacks(p)
        if s is None:
            return False
        for sid, pcs in s.items():
            if ids.setdefault(sid, pcs) != pcs:
                return False
    return len(set(ids.values())) == len(ids)


def repeats_an_id(path):
    """True when a profile of the raw file lists a stack id in two MIB entries (our runtime
    does, for a context with blocks freed on two threads or freed and live)."""
    with open(path, 'rb') as f:
        data = f.read()
    pos = 0
    while pos + 48 <= len(data):
        _, version, total, _, mib_off, _ = struct.unpack_from('<6Q', data, pos)
        if total == 0 or version != 5:
            return False
        p = pos + mib_off
        (n,) = struct.unpack_from('<Q', data, p)
        p += 8
        ids = set()
        for _ in range(n):
            (sid,) = struct.unpack_from('<Q', data, p)
            (hist,) = struct.unpack_from('<I', data, p + 8 + 0x84)  # AccessHistogramSize
            p += 8 + 144 + 2 * hist
            if sid in ids:
                return True
            ids.add(sid)
        pos += total
    return False


def concat(d, paths, out):
    with open(os.path.join(d, out), 'wb') as o:
        for p in paths:
            with open(os.path.join(d, p), 'rb') as f:
                o.write(f.read())
    return out


def build_and_run(c, r, runtime_dir):
    """Builds the case's program for both runtimes and runs each; returns
    {runtime: (binary, [raw files], [(arg, aslr)])}, the IR-PGO profile or None, flags."""
    d = c.d
    cxx = r.random() < 0.5
    src = 'prog.cpp' if cxx else 'prog.c'
    with open(os.path.join(d, src), 'w') as f:
        f.write(memprof_program_gen.generate(c.seed, cxx))
    cc = 'clang++-22' if cxx else 'clang-22'
    flags = ['-g', r.choice(['-O0', '-O1', '-O2', '-O2']), '-fmemory-profile']
    warnings = ['-Wall', '-Wextra', '-Werror']  # the generator writes clean programs
    if r.random() < 0.5:
        flags.append('-fno-omit-frame-pointer')
    pie = r.random() < 0.4
    flags += ['-fPIE'] if pie else ['-fno-pie']
    histogram = r.random() < 0.25
    if histogram:
        flags += ['-mllvm', '-memprof-histogram']
    irpgo = r.random() < 0.25
    if irpgo:
        flags.append('-fprofile-generate')
    link = ['-pie'] if pie else ['-no-pie']
    if memprof_program_gen.uses_threads(c.seed):
        link.append('-pthread')
    if irpgo:
        link.append('-fprofile-generate')
    rc, _, err = run([cc] + warnings + flags + ['-c', src, '-o', 'prog.o'], d)
    if rc != 0:
        c.fail('compiling failed: %s' % text(err))
        return None
    rt = os.path.abspath(runtime_dir)
    builds = {
        'crt': [cc, '-fmemory-profile', 'prog.o', '-o', 'prog.crt'] + link,
        'pk': [cc, 'prog.o', '-o', 'prog.pk', os.path.join(rt, 'libprofkit_memprof.so'),
               '-Wl,-rpath,' + rt] + link + ['-lpthread'],
    }
    out = {}
    irpgo_raw = None
    for name, cmd in builds.items():
        rc, _, err = run(cmd, d)
        if rc != 0:
            c.fail('linking %s failed: %s' % (name, text(err)))
            return None
        # Runs: distinct arguments, and sometimes the first one again; the first runs
        # without ASLR so their chained profiles have equal segment lists.
        nruns = r.randint(1, 4)
        args = r.sample(range(6), nruns)
        if nruns >= 2 and r.random() < 0.75:  # repeated runs: same stack ids (no threads)
            for i in range(1, nruns):
                if r.random() < 0.6:
                    args[i] = args[0]
        no_aslr = nruns if r.random() < 0.6 else r.randint(0, nruns)
        raws, runs = [], []
        for i, a in enumerate(args):
            prefix = '%s.run%d.raw' % (name, i)
            cmd = ['./prog.' + name, str(a)]
            if i < no_aslr and aslr_can_be_turned_off():
                cmd = ['setarch', 'x86_64', '-R'] + cmd
            env = {'MEMPROF_OPTIONS': 'log_path=' + prefix,
                   'LLVM_PROFILE_FILE': '%s.run%d.profraw' % (name, i)}
            rc, _, err = run(cmd, d, env)
            found = sorted(f for f in os.listdir(d) if f.startswith(prefix + '.'))
            if rc != 0 or len(found) != 1:
                c.fail('running prog.%s %d failed (status %d, %d raw files): %s' % (
                    name, a, rc, len(found), text(err)))
                return None
            raws.append(found[0])
            runs.append((a, i < no_aslr and aslr_can_be_turned_off()))
            if irpgo and irpgo_raw is None:
                irpgo_raw = '%s.run%d.profraw' % (name, i)
        out[name] = ('prog.' + name, raws, runs)
    return out, irpgo_raw, histogram, flags


_aslr_off = None


def aslr_can_be_turned_off():
    """Whether `setarch -R` works here: some container sandboxes refuse the personality
    call. Without it the runs keep their random layouts; chains of them then have unequal
    segment lists and both tools must refuse them alike (exit statuses are still compared)."""
    global _aslr_off
    if _aslr_off is None:
        try:
            _aslr_off = subprocess.run(['setarch', 'x86_64', '-R', 'true'],
                                       stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL).returncode == 0
        except OSError:
            _aslr_off = False
        if not _aslr_off:
            print('note: setarch -R is refused here; runs keep address randomization')
    return _aslr_off


def one_case(profkit, runtime_dir, seed, workdir):
    r = random.Random(seed * 1000003 + 11)
    d = os.path.join(workdir, 'case%d' % seed)
    os.makedirs(d, exist_ok=True)
    c = Case(profkit, seed, d)
    built = build_and_run(c, r, runtime_dir)
    if built is not None:
        programs, irpgo_raw, histogram, flags = built
        check(c, r, programs, irpgo_raw, histogram)
        if r.random() < 0.3:
            check_mixed(c, r, programs)
        desc = ' '.join(flags)
    else:
        desc = ''
    if c.errors:
        return 'seed %d (%s; kept in %s):\n  ' % (seed, desc, d) + '\n  '.join(c.errors)
    shutil.rmtree(d, ignore_errors=True)
    return ''


def check(c, r, programs, irpgo_raw, histogram):
    for name, (binary, raws, runs) in programs.items():
        pb = '--profiled-binary=' + binary
        # Every raw file alone, in every version and schema (one of them fully, the others
        # in one random version each).
        for i, raw in enumerate(raws):
            modes = VERSIONS if i == 0 else [r.choice(VERSIONS)]
            for v, fs in modes:
                tag = '%s%d_v%d%s' % (name, i, v, 'f' if fs else '')
                c.merge(merge_args(v, fs) + [pb, raw], tag,
                        histogram_pointer=histogram and fs)
            c.show_raw(binary, raw, '%s%d' % (name, i))
        # Chained profiles: the runs without ASLR (equal segments) concatenated.
        # Not with histograms: llvm-profdata 22 frees a histogram twice when it merges two
        # MIBs of one id whose histograms have the same length (docs/memprof.md).
        chain = [raws[i] for i, (_, aslr_off) in enumerate(runs) if aslr_off]
        same_arg = [raws[i] for i, (a, aslr_off) in enumerate(runs) if aslr_off and a == runs[0][0]]
        if len(same_arg) >= 2 and r.random() < 0.7:
            chain = same_arg
        if len(chain) >= 2 and not histogram:
            cat = concat(c.d, chain, name + '.chain.raw')
            v, fs = r.choice(VERSIONS)
            count("chained runs")
            c.merge(merge_args(v, fs) + [pb, cat], name + '_chain', histogram and fs)
            c.show_raw(binary, cat, name + '_chain')
        # Several inputs, in a random order.
        if len(raws) >= 2:
            pool = same_arg if len(same_arg) >= 2 and r.random() < 0.5 else raws
            inputs = r.sample(pool, r.randint(2, len(pool)))
            v, fs = r.choice(VERSIONS)
            paths = [os.path.join(c.d, p) for p in inputs]
            if (not histogram and all(runs[raws.index(p)][1] for p in inputs)
                    and same_ids(paths)):
                # llvm-profdata's merge of the profiles chained in one file is the oracle. It
                # folds a chain's MIB entries of one id one by one, we fold each file's first
                # and then the files: the same sums, minima, maxima and last values, but the
                # same-CPU and lifetime-overlap counts (whose rule drops the merged MIB's own
                # count) differ when a file lists an id twice. Then the default schema only
                # (docs/formats/memprof.md D.7).
                if fs and any(repeats_an_id(p) for p in paths):
                    fs = False
                count('several inputs, against their chain')
                margs = merge_args(v, fs) + [pb]
                cat = concat(c.d, inputs, name + '.multi.raw')
                rl, _, el = run([LLVM, 'merge'] + margs + [cat, '-o', name + '_multi.ref'], c.d)
                rp, _, ep = run([c.profkit, 'merge'] + margs + inputs + ['-o', name + '_multi.pk'],
                                c.d)
                if rl != 0 or rp != 0:
                    c.fail('%s_multi: llvm-profdata (chained) exit %d, profkit exit %d: %s' % (
                        name, rl, rp, text(el + ep)))
                else:
                    with open(os.path.join(c.d, name + '_multi.ref'), 'rb') as f:
                        a = f.read()
                    with open(os.path.join(c.d, name + '_multi.pk'), 'rb') as f:
                        b = f.read()
                    if v == 2:
                        # A v2 frame table is filled in the order frames are first met: in
                        # one stack map for the chain, input by input for us (as
                        # llvm-profdata adds a later input's frames). Compare what it holds.
                        a = run([LLVM, 'show', '--memory', name + '_multi.ref'], c.d)[1]
                        b = run([LLVM, 'show', '--memory', name + '_multi.pk'], c.d)[1]
                    if a != b:
                        c.fail('%s_multi: profkit merge of %s differs from llvm-profdata\'s merge '
                               'of them chained (%d vs %d bytes)' % (name, ' '.join(inputs),
                                                                     len(b), len(a)))
            else:
                # llvm-profdata keeps the first input's records: only the status is comparable.
                count('several inputs, status only')
                margs = merge_args(v, fs) + [pb]
                rl, _, el = run([LLVM, 'merge'] + margs + inputs + ['-o', name + '_multi.ref'], c.d)
                rp, _, ep = run([c.profkit, 'merge'] + margs + inputs + ['-o', name + '_multi.pk'],
                                c.d)
                if (rl == 0) != (rp == 0):
                    c.fail('%s_multi: llvm-profdata exit %d, profkit exit %d: %s' % (
                        name, rl, rp, text(el + ep)))
        # IR-PGO counters with the memprof profile, as raw and as text input.
        if irpgo_raw is not None:
            rc, _, err = run([LLVM, 'merge', '--text', irpgo_raw, '-o', name + '.proftext'], c.d)
            if rc != 0:
                c.fail('llvm-profdata merge --text %s failed: %s' % (irpgo_raw, text(err)))
                continue
            pgo = r.choice([irpgo_raw, name + '.proftext'])
            ins = [pgo, raws[0]] if r.random() < 0.5 else [raws[0], pgo]
            v, fs = r.choice(VERSIONS)
            count('with IR-PGO ' + ('text' if pgo.endswith('.proftext') else 'raw'))
            c.merge(merge_args(v, fs) + [pb] + ins, name + '_irpgo', histogram and fs)


def check_mixed(c, r, programs):
    """Raw files of both runtimes' binaries in one merge, with one of the binaries: the
    other file's segments do not name it, so both tools must fail (or both succeed)."""
    ins = [r.choice(programs['crt'][1]), r.choice(programs['pk'][1])]
    r.shuffle(ins)
    binary = programs[r.choice(['crt', 'pk'])][0]
    count('both runtimes, one binary')
    rl, _, el = run([LLVM, 'merge', '--profiled-binary=' + binary] + ins + ['-o', 'mixed.ref'], c.d)
    rp, _, ep = run([c.profkit, 'merge', '--profiled-binary=' + binary] + ins + ['-o', 'mixed.pk'],
                    c.d)
    if (rl == 0) != (rp == 0):
        c.fail('mixed %s with %s: llvm-profdata exit %d, profkit exit %d: %s' % (
            ' '.join(ins), binary, rl, rp, text(el + ep)))


def main():
    profkit = os.path.abspath(sys.argv[1])
    runtime_dir = os.path.abspath(sys.argv[2])
    default = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    return difftest.run_cases(
        lambda s, workdir: one_case(profkit, runtime_dir, s, workdir), default, 'memprof-diff-',
        lambda: 'comparisons: ' + ', '.join('%s %d' % kv for kv in sorted(COUNTS.items())))

if __name__ == '__main__':
    sys.exit(main())
