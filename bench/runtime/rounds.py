#!/usr/bin/env python3
"""Interleaved rounds for the runtime benchmarks (real.sh): one discarded warm-up round,
then every variant once per round, in an order rotated from round to round (so no variant
always follows the same one or always runs first). Reports per variant the median [min-max]
of CPU time (user + system of the child and its children, from wait4: the scheduler's
runtime, not tick samples), wall time, minor page faults, involuntary context switches
and peak RSS; then each ratio (A - BASE) / (B - BASE) of CPU times four ways: from the
variants' medians, from their minimums (the least disturbed run of each: under a load that
only adds time, the closest to a quiet machine), a bootstrap 90% interval of the median
ratio (rounds resampled whole, 2000 times, fixed seed), and the per-round ratios' median
[min-max] (the noisiest: one round's runs share one moment's load, but the denominator is
a small difference of two noisy times).

Usage: rounds.py ROUNDS NAME=COMMAND... [--ratio LABEL=A,B,BASE[,wall]]...
Commands run with sh -c, output discarded; a failing command stops everything.
Prints markdown tables; with JSON=path also writes every measurement there.
"""
import json
import os
import random
import statistics
import subprocess
import sys
import time


def run(cmd):
    t0 = time.monotonic()
    p = subprocess.Popen(['sh', '-c', cmd], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit('rounds.py: command failed (status %d): %s' % (status, cmd))
    return {'cpu': ru.ru_utime + ru.ru_stime, 'user': ru.ru_utime, 'sys': ru.ru_stime,
            'wall': wall, 'faults': ru.ru_minflt, 'ivcsw': ru.ru_nivcsw,
            'rss': ru.ru_maxrss / 1024.0}


def spread(xs, fmt='%.2f'):
    return (fmt + ' [' + fmt + '-' + fmt + ']') % (statistics.median(xs), min(xs), max(xs))


def main():
    rounds = int(sys.argv[1])
    variants, ratios = [], []
    args = sys.argv[2:]
    i = 0
    while i < len(args):
        if args[i] == '--ratio':
            label, abbase = args[i + 1].split('=', 1)
            ratios.append((label, *abbase.split(',')))
            i += 2
        else:
            name, cmd = args[i].split('=', 1)
            variants.append((name, cmd))
            i += 1
    res = {n: [] for n, _ in variants}
    for _, cmd in variants:  # warm-up: page cache, first-run effects
        run(cmd)
    loads = []
    for r in range(rounds):
        loads.append(os.getloadavg()[0])
        k = r % len(variants)
        for name, cmd in variants[k:] + variants[:k]:
            res[name].append(run(cmd))
    loads.append(os.getloadavg()[0])
    print('%d rounds, load average (1 min) %.1f-%.1f during the rounds' % (rounds, min(loads), max(loads)))
    print()
    print('| variant | CPU s median [min-max] | user s | sys s | wall s | minor faults (k) | invol. switches | peak RSS MiB |')
    print('|---|---|---|---|---|---|---|---|')
    for name, _ in variants:
        x = res[name]
        col = lambda key: [m[key] for m in x]
        print('| %s | %s | %.2f | %.2f | %s | %.0f | %.0f | %.0f |' % (
            name, spread(col('cpu')), statistics.median(col('user')), statistics.median(col('sys')),
            spread(col('wall')), statistics.median(col('faults')) / 1000,
            statistics.median(col('ivcsw')), statistics.median(col('rss'))))
    if ratios:
        print()
        print('| ratio | from medians | from minimums | bootstrap 90% of median ratio | per round: median [min-max] |')
        print('|---|---|---|---|---|')
        rng = random.Random(1)
        for label, a, b, base, *key in ratios:
            key = key[0] if key else 'cpu'
            cpu = {n: [m[key] for m in res[n]] for n in (a, b, base)}

            def ratio(pick, rows):
                t = {n: pick([cpu[n][r] for r in rows]) for n in cpu}
                return (t[a] - t[base]) / (t[b] - t[base]) if t[b] > t[base] else float('nan')

            every = list(range(rounds))
            boot = sorted(x for x in (ratio(statistics.median, [rng.randrange(rounds) for _ in every])
                                      for _ in range(2000)) if x == x)
            per = [(cpu[a][r] - cpu[base][r]) / (cpu[b][r] - cpu[base][r])
                   for r in every if cpu[b][r] > cpu[base][r]]
            interval = '%.2f-%.2f' % (boot[len(boot) // 20], boot[len(boot) * 19 // 20]) if boot else 'n/a'
            print('| %s (%s) | %.2f | %.2f | %s | %s |' % (
                label, key, ratio(statistics.median, every), ratio(min, every), interval,
                spread(per) if per else 'n/a'))
    if os.environ.get('JSON'):
        json.dump({'loads': loads, 'results': res}, open(os.environ['JSON'], 'w'))


main()
