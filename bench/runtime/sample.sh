#!/usr/bin/env bash
# Sampled heap profiles (sample_interval, `profkit run --sample-interval`): what they cost
# and how well they agree with the full profile, on run.sh's four workloads.
#  1. Cost: the plain binary alone, under `profkit run --sample-interval=INTERVAL` and under
#     `profkit run` (full), side by side in one hyperfine run; ratios to plain of the mean
#     wall time and of the mean CPU time (user + system), and their geometric means.
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
# Environment: BUILD, WORK (as run.sh), RUNS (hyperfine runs, 5), SEEDS (5), INTERVAL (524288).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/runtime}
RUNS=${RUNS:-5}
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

echo "sampled profiles, sample_interval=$INTERVAL; load before: $(uptime | sed 's/.*load average/load average/')"
echo
echo "| workload | plain s | sampled run s | full run s | sampled/plain wall | sampled/plain CPU | full/plain wall | full/plain CPU |"
echo "|---|---|---|---|---|---|---|---|"
rm -rf raw && mkdir raw
for w in $workloads; do
  hyperfine -N -r "$RUNS" --export-json "sample-$w.json" \
    -n plain "./$w.plain" \
    -n sampled "$PROFKIT run --sample-interval=$INTERVAL --output raw/s.raw -- ./$w.plain" \
    -n full "$PROFKIT run --output raw/f.raw -- ./$w.plain" >/dev/null 2>&1
done
python3 - $workloads <<'PY'
import json, math, sys
ratios = {k: [] for k in ('sw', 'sc', 'fw', 'fc')}
for w in sys.argv[1:]:
    res = {x['command']: x for x in json.load(open('sample-%s.json' % w))['results']}
    wall = {k: res[k]['mean'] for k in res}
    cpu = {k: res[k]['user'] + res[k]['system'] for k in res}
    r = (wall['sampled'] / wall['plain'], cpu['sampled'] / cpu['plain'],
         wall['full'] / wall['plain'], cpu['full'] / cpu['plain'])
    for k, v in zip(ratios, r): ratios[k].append(v)
    print('| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |' % ((w, wall['plain'], wall['sampled'], wall['full']) + r))
g = lambda v: math.exp(sum(map(math.log, v)) / len(v))
print('| geometric mean | | | | %.3f | %.3f | %.3f | %.3f |' % tuple(g(ratios[k]) for k in ratios))
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
