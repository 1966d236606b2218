#!/usr/bin/env bash
# Heap profiler runtime benchmark: five allocation-heavy workloads (key-value store, tree
# builder, string processing, producer/consumer threads, a deep-recursion parser) and a
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
# Environment: BUILD (default build), WORK (default $BUILD/bench-work/runtime), RUNS (3).
# Then sample.sh measures sampled profiles (its own environment: SEEDS, INTERVAL).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/runtime}
RUNS=${RUNS:-3}
LIB=$BUILD/lib
PROFKIT=$BUILD/bin/profkit
mkdir -p "$WORK"
cd "$WORK"

flags="-O2 -g -fno-omit-frame-pointer"
clang-22 -O2 -fPIC -shared "$here/floor_rt.c" -o libfloor_rt.so
for w in kvstore tree strings prodcons recursive pairs alloc_bench; do
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

rss() {  # peak RSS in MiB of one run of "$@"
  /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ {printf "%.0f", $6 / 1024}'
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo
# The CPU ratios use hyperfine's mean user+system time: on a shared, loaded machine wall time
# also counts waiting for a CPU, CPU time does not.
echo "| workload | plain s | floor s | compiler-rt s | profkit s | overhead ratio profkit/crt | own-cost ratio | CPU ratio | CPU own-cost | RSS plain MiB | RSS crt | RSS profkit | profkit run s | heaptrack s | alloc-only ratio | CPU ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for w in kvstore tree strings prodcons recursive; do
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
  read -r plain crt pk run ht floor cplain ccrt cpk crun cht cfloor < <(python3 -c "
import json,sys
res=json.load(open('$w.json'))['results']
r={x['command']:x['median'] for x in res}
c={x['command']:x['user']+x['system'] for x in res}
n=['plain','crt','profkit','run','heaptrack','floor']
print(*[r[k] for k in n],*[c[k] for k in n])")
  rss_plain=$(rss "./$w.plain")
  rss_crt=$(MEMPROF_OPTIONS=log_path=raw/crt2$deep rss "./$w.crt")
  rss_pk=$(MEMPROF_OPTIONS=log_path=raw/pk2$deep rss "./$w.profkit")
  python3 -c "
p,c,k,r,h,f=$plain,$crt,$pk,$run,$ht,$floor
cp,cc,ck,cr,ch,cf=$cplain,$ccrt,$cpk,$crun,$cht,$cfloor
ratio=lambda a,b,base: (a-base)/(b-base) if b>base else float('nan')
print('| $w | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f | %.2f | $rss_plain | $rss_crt | $rss_pk | %.3f | %.3f | %.2f | %.2f |' % (p,f,c,k,ratio(k,c,p),ratio(k,c,f),ratio(ck,cc,cp),ratio(ck,cc,cf),r,h,ratio(r,h,p),ratio(cr,ch,cp)))"
done

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
