#!/usr/bin/env bash
# Heap profiler runtime benchmark: seven allocation-heavy workloads (key-value store, tree
# builder, string processing, producer/consumer threads, a deep-recursion parser, a thread
# pool, threads sharing containers) and a
# per-operation benchmark (pairs.cpp: malloc, cross-thread free, blocks passed between
# threads) and a Google Benchmark hot loop (alloc_bench.cc: malloc/free pairs by call depth), each compiled ONCE with
# clang++-22 -O2 -g -fno-omit-frame-pointer -fmemory-profile and linked three ways:
#   plain    the same source without instrumentation (baseline)
#   crt      instrumented objects + compiler-rt's runtime (clang -fmemory-profile link)
#   profkit  instrumented objects + build/lib/libprofkit_memprof.so
#   floor    instrumented objects + floor_rt.c (the shadow and nothing else): what the
#            inline shadow updates cost under any runtime; "own cost" = (profkit - floor) /
#            (compiler-rt - floor) is the runtime's share above it
# and, for allocation-only mode, the plain binary under `profkit run` and `heaptrack`.
# Wall time: hyperfine (RUNS runs, side by side in one run); peak RSS: /usr/bin/time -v.
# Prints a markdown table. Timings are never a test: this only reports.
# Environment: BUILD (default build), WORK (default $BUILD/bench-work/runtime), RUNS (3),
# ROUNDS (1): the whole table is measured ROUNDS times over and each cell is the median over
# rounds (ratios: the median of the rounds' ratios, their range in brackets), then the
# geometric mean of the ratios; LOAD=1: a busy loop keeps one CPU busy during the table
# (a competing job); WORKLOADS: the table's rows (default all; set, it skips the sections
# after the table).
# Then sample.sh measures sampled profiles (its own environment: SEEDS, INTERVAL), and
# shapes.sh program shapes none of the workloads has (RUNS; SHAPES).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/runtime}
RUNS=${RUNS:-3}
ROUNDS=${ROUNDS:-1}
LOAD=${LOAD:-0}
all_workloads="kvstore tree strings prodcons recursive threadpool shared"
table_only=${WORKLOADS:+1}  # WORKLOADS given (even all seven): the table only
WORKLOADS=${WORKLOADS:-$all_workloads}
LIB=$BUILD/lib
PROFKIT=$BUILD/bin/profkit
mkdir -p "$WORK"
cd "$WORK"

flags="-O2 -g -fno-omit-frame-pointer"
clang-22 -O2 -fPIC -shared "$here/floor_rt.c" -o libfloor_rt.so
for w in $all_workloads pairs alloc_bench; do
  src="$here/$w.cpp" libs="-lpthread"
  [ "$w" = alloc_bench ] && src="$here/$w.cc" libs="-lbenchmark -lpthread"  # Google Benchmark
  if [ ! -x "$w.floor" ]; then
    clang++-22 $flags "$src" -o "$w.plain" $libs
    clang++-22 $flags -fmemory-profile -c "$src" -o "$w.o"
    clang++-22 -fmemory-profile "$w.o" -o "$w.crt" $libs
    clang++-22 "$w.o" -o "$w.profkit" "$LIB/libprofkit_memprof.so" -Wl,-rpath,"$LIB" $libs
    clang++-22 "$w.o" -o "$w.floor" "$WORK/libfloor_rt.so" -Wl,-rpath,"$WORK" $libs
  fi
done

. "$here/common.sh"  # rss

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo
busy=""
if [ "$LOAD" = 1 ]; then
  sh -c 'while :; do :; done' &
  busy=$!
  trap 'kill "$busy" 2>/dev/null' EXIT
fi
echo "load average before the table: $(cut -d' ' -f1-3 /proc/loadavg); ROUNDS=$ROUNDS RUNS=$RUNS LOAD=$LOAD"
echo
rm -f rounds.txt rss.txt.new
for round in $(seq "$ROUNDS"); do
  for w in $WORKLOADS; do
    rm -rf raw && mkdir raw
    # recursive.cpp's contexts are hundreds of frames deep: profile them whole.
    deep="" run_opts=""
    [ "$w" = recursive ] && deep=":malloc_context_size=255" run_opts="--options=malloc_context_size=255"
    hyperfine -N -r "$RUNS" --export-json "$w.json" \
      -n plain "./$w.plain" \
      -n floor "./$w.floor" \
      -n crt "env MEMPROF_OPTIONS=log_path=raw/crt$deep ./$w.crt" \
      -n profkit "env MEMPROF_OPTIONS=log_path=raw/pk$deep ./$w.profkit" \
      -n run "$PROFKIT run $run_opts --output raw/run.raw -- ./$w.plain" \
      -n heaptrack "heaptrack -o raw/ht ./$w.plain" >/dev/null 2>&1
    # One line per workload and round: wall medians, then mean user+system times.
    python3 -c "
import json
res = json.load(open('$w.json'))['results']
r = {x['command']: x['median'] for x in res}
c = {x['command']: x['user'] + x['system'] for x in res}
n = ['plain', 'crt', 'profkit', 'run', 'heaptrack', 'floor']
print('$w', *[r[k] for k in n], *[c[k] for k in n])" >>rounds.txt
    if [ "$round" = 1 ]; then
      echo "$w $(rss "./$w.plain") $(MEMPROF_OPTIONS=log_path=raw/crt2$deep rss "./$w.crt")" \
        "$(MEMPROF_OPTIONS=log_path=raw/pk2$deep rss "./$w.profkit")" >>rss.txt.new
    fi
  done
done
mv rss.txt.new rss.txt
[ -n "$busy" ] && kill "$busy" && trap - EXIT
echo "load average after the table: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
# The CPU ratios use hyperfine's mean user+system time: on a shared, loaded machine wall time
# also counts waiting for a CPU, CPU time does not.
echo "| workload | plain s | floor s | compiler-rt s | profkit s | overhead ratio profkit/crt | own-cost ratio | CPU ratio | CPU own-cost | RSS plain MiB | RSS crt | RSS profkit | profkit run s | heaptrack s | alloc-only ratio | CPU ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
python3 - "$WORKLOADS" <<'PY'
import math, statistics, sys
rows = {}
for line in open('rounds.txt'):
    f = line.split()
    rows.setdefault(f[0], []).append([float(x) for x in f[1:]])
rss = {l.split()[0]: l.split()[1:] for l in open('rss.txt')}
def ratio(a, b, base):
    return (a - base) / (b - base) if b > base else float('nan')
def cell(values):  # median of the rounds' ratios, their range in brackets
    v = sorted(x for x in values if not math.isnan(x))
    if not v:
        return 'n/a', float('nan')
    m = statistics.median(v)
    return ('%.2f [%.2f-%.2f]' % (m, v[0], v[-1]) if len(v) > 1 else '%.2f' % m), m
means = {k: [] for k in ('wall', 'own', 'cpu', 'owncpu', 'run', 'runcpu')}
for w in sys.argv[1].split():
    rs = rows[w]
    med = [statistics.median(r[i] for r in rs) for i in range(12)]
    cells = []
    # Columns: wall plain crt profkit run heaptrack floor, then CPU in the same order. The
    # own-cost ratios measure from the floor build instead of plain.
    for key, (a, b, base) in (('wall', (2, 1, 0)), ('own', (2, 1, 5)), ('cpu', (8, 7, 6)),
                              ('owncpu', (8, 7, 11)), ('run', (3, 4, 0)), ('runcpu', (9, 10, 6))):
        text, m = cell([ratio(r[a], r[b], r[base]) for r in rs])
        cells.append(text)
        means[key].append(m)
    p, c, k, run, ht, fl = med[:6]
    print('| %s | %.3f | %.3f | %.3f | %.3f | %s | %s | %s | %s | %s | %s | %s | %.3f | %.3f | %s | %s |' % (
        w, p, fl, c, k, *cells[:4], *rss[w], run, ht, cells[4], cells[5]))
# A ratio at or below zero (profkit no slower than plain) counts as 0.01 in the mean.
gm = lambda v: math.exp(statistics.fmean(math.log(max(x, 0.01)) for x in v if not math.isnan(x)))
print()
print('geometric mean of the ratios over %d workloads: overhead %.2f, own cost %.2f, CPU %.2f, '
      'CPU own cost %.2f; alloc-only %.2f, CPU %.2f'
      % (len(means['wall']), gm(means['wall']), gm(means['own']), gm(means['cpu']),
         gm(means['owncpu']), gm(means['run']), gm(means['runcpu'])))
PY
[ -n "$table_only" ] && exit 0

# Per-operation costs (pairs.cpp): an allocation, a cross-thread free, and a block passed
# between two threads through a lock-free ring with no program lock (the producer/consumer
# cost apart from prodcons's mutex and condition variable). Median over RUNS runs.
echo
echo "| build | malloc ns | cross-thread free ns | producer/consumer ns per block |"
echo "|---|---|---|---|"
mkdir -p raw
for b in plain crt profkit; do
  for i in $(seq "$RUNS"); do
    MEMPROF_OPTIONS=log_path=raw/pairs "./pairs.$b" 2>&1 >/dev/null | grep '^malloc'
  done | python3 -c "
import sys, statistics
rows = [l.split() for l in sys.stdin]
col = lambda k: statistics.median(float(r[r.index(k) + 1]) for r in rows)
print('| $b | %.1f | %.1f | %.1f |' % (col('malloc'), col('free'), col('concurrent')))"
done

# Hot loop (alloc_bench.cc, Google Benchmark): median of RUNS repetitions, nanoseconds per
# iteration; the ratio is (profkit - plain) / (compiler-rt - plain).
echo
echo "| benchmark | plain ns | compiler-rt ns | profkit ns | overhead ratio |"
echo "|---|---|---|---|---|"
for b in plain crt profkit; do
  MEMPROF_OPTIONS=log_path=raw/bench "./alloc_bench.$b" --benchmark_repetitions="$RUNS" \
    --benchmark_report_aggregates_only=true --benchmark_format=json >"alloc_bench.$b.json" 2>/dev/null
done
python3 -c "
import json
def med(b):
    rows = json.load(open('alloc_bench.%s.json' % b))['benchmarks']
    medians = {r['run_name']: r['real_time'] for r in rows if r.get('aggregate_name') == 'median'}
    return medians or {r['run_name']: r['real_time'] for r in rows}  # RUNS=1: no aggregates
p, c, k = med('plain'), med('crt'), med('profkit')
for name in p:
    print('| %s | %.1f | %.1f | %.1f | %.2f |' % (name, p[name], c[name], k[name], (k[name] - p[name]) / (c[name] - p[name])))"
rm -rf raw

# Sampled profiles (sample_interval): cost and cold/not-cold agreement (sample.sh).
echo
bash "$here/sample.sh"

# Program shapes none of the workloads has (shapes.sh).
echo
bash "$here/shapes.sh"
