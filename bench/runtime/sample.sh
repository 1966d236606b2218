#!/usr/bin/env bash
# Sampled heap profiles (sample_interval, `profkit run --sample-interval`): what they cost
# and how well they agree with the full profile, on run.sh's workloads.
#  1. Cost: the plain binary alone, under `profkit run --sample-interval=INTERVAL` and under
#     `profkit run` (full), on run.sh's four single- and multi-threaded workloads and its
#     deep-recursion one (recursive.cpp, with malloc_context_size=255 as run.sh profiles
#     it). RUNS rounds, each running the three in turn (interleaved, so a change of machine
#     load hits all three alike), in an order shuffled per round (fixed seed), so that no
#     kind always runs right after the full run, whose profile (96 MB on tree, 44 MB on
#     recursive) the kernel writes back later. Before each run, untimed: the previous
#     profile is removed (each run writes a new file, as `profkit run` does by default,
#     memprof.profraw.<pid>; replacing a file on ext4 adds a flush of the new one to the
#     rename) and `sync` waits for any writeback. Ratios to plain of the median CPU
#     time (user + system, the goal's measure) and of the median wall time, and their
#     geometric means; then the spread: quartiles over the rounds of the per-round ratio
#     sampled/plain CPU (the two ran within a second of each other).
#  2. Agreement: the instrumented binary (-fmemory-profile, linked with the runtime) writes
#     one full profile and one sampled profile per seed (SEEDS seeds). Per allocation
#     context, LLVM's cold/not-cold verdict as `profkit report` gives it; the share of the
#     full profile's allocated bytes whose sampled verdict is the same (a context the sample
#     missed gets no hint, i.e. not cold), for LLVM's default thresholds and for a lifetime
#     threshold of 0 s (the workloads run for seconds, so at 200 s nothing is cold and the
#     access density alone decides); and the relative error of the estimated total bytes.
#     Mean, minimum and standard deviation over the seeds. coldmix.cpp joins the four
#     here: they have almost no cold bytes, so they cannot show disagreement.
# Timings are never a test: this only reports.
# Environment: BUILD, WORK (as run.sh), RUNS (rounds, 15), SEEDS (5), INTERVAL (524288).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/runtime}
RUNS=${RUNS:-15}
SEEDS=${SEEDS:-5}
INTERVAL=${INTERVAL:-524288}
LIB=$BUILD/lib
PROFKIT=$BUILD/bin/profkit
mkdir -p "$WORK"
cd "$WORK"

flags="-O2 -g -fno-omit-frame-pointer"
workloads="kvstore tree strings prodcons"
# coldmix.cpp only for the agreement: those four have almost no cold bytes.
for w in $workloads coldmix; do
  if [ ! -x "$w.profkit" ]; then
    clang++-22 $flags "$here/$w.cpp" -o "$w.plain" -lpthread
    clang++-22 $flags -fmemory-profile -c "$here/$w.cpp" -o "$w.o"
    clang++-22 "$w.o" -o "$w.profkit" "$LIB/libprofkit_memprof.so" -Wl,-rpath,"$LIB" -lpthread
  fi
done
[ -x recursive.plain ] || clang++-22 $flags "$here/recursive.cpp" -o recursive.plain

echo "sampled profiles, sample_interval=$INTERVAL; load before: $(uptime | sed 's/.*load average/load average/')"
echo
echo "| workload | plain CPU s | sampled/plain CPU | full/plain CPU | plain wall s | sampled/plain wall | full/plain wall |"
echo "|---|---|---|---|---|---|---|"
rm -rf raw && mkdir raw
python3 - "$RUNS" "$PROFKIT" "$INTERVAL" $workloads recursive <<'PY'
import math, os, random, statistics, subprocess, sys, time
runs, profkit, interval, workloads = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
order = random.Random(18)
def measure(cmd):  # (CPU, wall) seconds of one run; CPU includes profkit's own
    for f in ('raw/s.raw', 'raw/f.raw'):
        if os.path.exists(f): os.remove(f)
    os.sync()
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    if status != 0: sys.exit('failed: %s' % ' '.join(cmd))
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start
ratios = {k: [] for k in ('sc', 'fc', 'sw', 'fw')}
spread = []
for w in workloads:
    opts = ['--options=malloc_context_size=255'] if w == 'recursive' else []
    cmds = {'plain': ['./%s.plain' % w],
            'sampled': [profkit, 'run', '--sample-interval=' + interval, '--output', 'raw/s.raw'] + opts + ['--', './%s.plain' % w],
            'full': [profkit, 'run', '--output', 'raw/f.raw'] + opts + ['--', './%s.plain' % w]}
    got = {k: [] for k in cmds}
    for _ in range(runs):
        for k in order.sample(list(cmds), len(cmds)): got[k].append(measure(cmds[k]))
    paired = sorted(s[0] / p[0] for s, p in zip(got['sampled'], got['plain']))
    spread.append((w, paired[len(paired) // 4], statistics.median(paired), paired[(3 * len(paired)) // 4]))
    cpu = {k: statistics.median(x[0] for x in v) for k, v in got.items()}
    wall = {k: statistics.median(x[1] for x in v) for k, v in got.items()}
    r = (cpu['sampled'] / cpu['plain'], cpu['full'] / cpu['plain'],
         wall['sampled'] / wall['plain'], wall['full'] / wall['plain'])
    for k, v in zip(ratios, r): ratios[k].append(v)
    print('| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |' % (w, cpu['plain'], r[0], r[1], wall['plain'], r[2], r[3]), flush=True)
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print('| geometric mean | | %.3f | %.3f | | %.3f | %.3f |' % tuple(g(ratios[k]) for k in ratios))
print()
print('| workload | per-round sampled/plain CPU: first quartile | median | third quartile |')
print('|---|---|---|---|')
for row in spread: print('| %s | %.3f | %.3f | %.3f |' % row)
PY
echo
echo "load after: $(uptime | sed 's/.*load average/load average/')"

echo
echo "| workload | contexts (full) | cold bytes (full, lifetime 0 s) | agreement, LLVM thresholds: mean / min | agreement, lifetime 0 s: mean / min / stddev | total bytes error: mean / max |"
echo "|---|---|---|---|---|---|"
for w in $workloads coldmix; do
  rm -rf raw && mkdir raw
  MEMPROF_OPTIONS=log_path=raw/full "./$w.profkit" >/dev/null
  for s in $(seq "$SEEDS"); do
    MEMPROF_OPTIONS="log_path=raw/s$s:sample_interval=$INTERVAL:sample_seed=$s" "./$w.profkit" >/dev/null
  done
  python3 "$here/sample_agreement.py" "$PROFKIT" "./$w.profkit" "$w" raw/full.* raw/s*.*
done
rm -rf raw
