#!/usr/bin/env python3
"""Soak test of the heap profiler runtime in a long-running process (`make soak`; a short
run is in ctest): tests/programs/runtime/soak.c churns for SECONDS (threads coming and
going, 256 allocation contexts, frees across threads, long-lived blocks) with an interval
profile every INTERVAL seconds, so hours of a server's dumps happen in minutes. Its own live
heap is bounded, so what keeps growing is the runtime's.

Measured while it runs: the runtime's own memory after every dump (verbosity=2 lines: arena
bytes in use and mapped, MIB table bytes; exact counters, where a leak of a few bytes per
dump shows) and the whole process from /proc (RSS, address space size, number of mappings;
catches what the counters do not cover, such as thread states, spans, leaked mappings).
After the warm-up (the first quarter), each may grow at most by its stated bound, else the
test fails. Also: exit status 0, a valid exit profile, and valid interval profiles (a
sample; the rest are deleted as the run goes to keep the disk use bounded).

usage: soak_test.py LIB_DIR SECONDS [INTERVAL] [THREADS]
"""
import os
import re
import subprocess
import sys
import tempfile
import time

# Growth allowed after the warm-up. The runtime's counters are exact: a table or buffer that
# is not released grows them at every dump, so the bounds are small and the number of
# rises is bounded too.
ARENA_BOUND = 16 << 10          # bytes in use in the arena
TABLE_BOUND = 16 << 10          # MIB table entry arrays
RSS_BOUND = (8 << 20, 0.10)     # 8 MiB + 10%: the program's own heap varies with its threads
VMSIZE_BOUND = 512 << 20        # thread stacks, one more thread state's reservations
MAPS_BOUND = 64                 # mappings (thread stacks, glibc arenas)
MAX_RISES = 8                   # times a runtime counter may go up after the warm-up

LINE = re.compile(rb'interval profile (\d+) written; runtime memory: arena (\d+) bytes in use '
                  rb'of (\d+) mapped, MIB tables (\d+) bytes')


def status_fields(pid):
    fields = {}
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                name, _, value = line.partition(':')
                if name in ('VmRSS', 'VmSize', 'Threads'):
                    fields[name] = int(value.split()[0]) * (1024 if name != 'Threads' else 1)
        with open('/proc/%d/maps' % pid) as f:
            fields['maps'] = sum(1 for _ in f)
    except (OSError, ValueError):
        return None
    return fields if len(fields) == 4 else None


def build(lib_dir, work):
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'programs', 'runtime', 'soak.c')
    binary = os.path.join(work, 'soak')
    subprocess.run(['clang-22', '-g', '-O1', '-fmemory-profile', '-fno-omit-frame-pointer', '-c',
                    source, '-o', binary + '.o'], check=True)
    subprocess.run(['clang-22', binary + '.o', '-o', binary, os.path.join(lib_dir, 'libprofkit_memprof.so'),
                    '-Wl,-rpath,' + os.path.abspath(lib_dir), '-lpthread'], check=True)
    return binary


def check_growth(name, series, bound, failures, max_rises=None):
    """series: [(t, value)] after the warm-up; bound: bytes, or (bytes, fraction). With
    max_rises (exact counters, one value per dump), the value may also rise at most that many
    times: a leak of a few bytes per dump rises at every dump long before it passes `bound`."""
    if len(series) < 2:
        failures.append('%s: too few samples (%d)' % (name, len(series)))
        return
    base = series[0][1]
    top_t, top = max(series, key=lambda s: s[1])
    allowed = bound if isinstance(bound, int) else bound[0] + int(base * bound[1])
    rises = sum(1 for a, b in zip(series, series[1:]) if b[1] > a[1])
    ok = top - base <= allowed and (max_rises is None or rises <= max_rises)
    print('soak: %-20s after warm-up %14d, highest %14d at %6.1f s (+%d, bound +%d), rose %d times %s'
          % (name, base, top, top_t, top - base, allowed, rises, 'ok' if ok else 'FAIL'))
    if not ok:
        failures.append('%s grew by %d (bound %d) in %d rises' % (name, top - base, allowed, rises))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lib_dir, seconds = sys.argv[1], float(sys.argv[2])
    interval = sys.argv[3] if len(sys.argv) > 3 else '0.05'
    threads = sys.argv[4] if len(sys.argv) > 4 else '4'
    with tempfile.TemporaryDirectory(prefix='profkit-soak-') as work:
        binary = build(lib_dir, work)
        out_dir = os.path.join(work, 'profiles')
        os.mkdir(out_dir)
        err_path = os.path.join(work, 'stderr')
        env = dict(os.environ)
        env['MEMPROF_OPTIONS'] = 'log_path=%s/s.raw:dump_interval=%s:verbosity=2' % (out_dir, interval)
        start = time.monotonic()
        with open(err_path, 'wb') as err:
            proc = subprocess.Popen([binary, str(seconds), threads], env=env, stdout=subprocess.PIPE,
                                    stderr=err)
        samples, kept = [], []
        while proc.poll() is None:
            fields = status_fields(proc.pid)
            if fields:
                samples.append((time.monotonic() - start, fields))
            # Keep every 200th interval profile (checked at the end) and the newest few.
            names = sorted((n for n in os.listdir(out_dir) if re.search(r'\.i\d+$', n)),
                           key=lambda n: int(n.rsplit('.i', 1)[1]))
            for n in names[:-4]:
                if int(n.rsplit('.i', 1)[1]) % 200 == 1:
                    kept.append(n)
                    os.rename(os.path.join(out_dir, n), os.path.join(work, n))
                else:
                    os.unlink(os.path.join(out_dir, n))
            time.sleep(0.25)
        out = proc.stdout.read()
        failures = []
        if proc.returncode != 0:
            failures.append('exit status %d' % proc.returncode)
        with open(err_path, 'rb') as f:
            err_text = f.read()
        dumps = []  # (sequence, arena in use, arena mapped, table bytes)
        for line in err_text.splitlines():
            m = LINE.search(line)
            if m:
                dumps.append(tuple(int(x) for x in m.groups()))
            elif b'profile written' not in line and b'shadow at' not in line:
                failures.append('unexpected stderr line: %r' % line[:200])
        print('soak: %.0f s, %s, %d interval profiles, %d /proc samples, %s'
              % (time.monotonic() - start, out.decode().strip(), len(dumps), len(samples),
                 os.uname().nodename))
        finals = [n for n in os.listdir(out_dir) if not re.search(r'\.(i\d+|tmp\.\d+)$', n)]
        to_check = [os.path.join(out_dir, n) for n in finals] + [os.path.join(work, n) for n in kept[:5]]
        if len(finals) != 1:
            failures.append('%d exit profiles' % len(finals))
        for path in to_check:
            r = subprocess.run(['llvm-profdata-22', 'show', '--memory', '--profiled-binary=' + binary, path],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0:
                failures.append('%s unreadable: %s' % (os.path.basename(path), r.stderr.decode()[:200]))
        warm = seconds / 4
        if len(dumps) < 8:
            failures.append('only %d interval profiles' % len(dumps))
        else:
            after = dumps[len(dumps) // 4:]
            t = lambda i: warm + i * (seconds - warm) / len(after)
            check_growth('arena bytes in use', [(t(i), d[1]) for i, d in enumerate(after)], ARENA_BOUND, failures, MAX_RISES)
            check_growth('arena bytes mapped', [(t(i), d[2]) for i, d in enumerate(after)], ARENA_BOUND, failures, MAX_RISES)
            check_growth('MIB table bytes', [(t(i), d[3]) for i, d in enumerate(after)], TABLE_BOUND, failures, MAX_RISES)
        late = [(t, s) for t, s in samples if t >= warm]
        check_growth('RSS', [(t, s['VmRSS']) for t, s in late], RSS_BOUND, failures)
        check_growth('address space', [(t, s['VmSize']) for t, s in late], VMSIZE_BOUND, failures)
        check_growth('mappings', [(t, s['maps']) for t, s in late], MAPS_BOUND, failures)
        if failures:
            print('soak: FAILED\n  ' + '\n  '.join(failures))
            sys.exit(1)
        print('soak: passed')


if __name__ == '__main__':
    main()
