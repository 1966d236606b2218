#!/usr/bin/env bash
# MemProf benchmark: `profkit merge --profiled-binary` against `llvm-profdata-22 merge
# --profiled-binary`, side by side in one run, on the raw profiles of
#   - the four runtime benchmark workloads (bench/runtime/*.cpp; tree is the large one:
#     262 144 allocation contexts, an 84 MB raw profile), built -O2 -g with compiler-rt's
#     memprof runtime (PIE, as clang builds by default), and
#   - big: a generated program with SITES allocation sites (bench/memprof/gen.py), many
#     distinct PCs to symbolize.
# Wall time: hyperfine (RUNS runs); peak RSS: /usr/bin/time. Also checks the outputs are
# byte-identical. Prints a markdown table. Timings are never a test: this only reports.
#
# Environment: PROFKIT (default build/bin/profkit), WORK (default build/bench-work/memprof),
# SITES (default 2000), RUNS (default 3), WORKLOADS (default "kvstore tree strings prodcons big").
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
WORK=${WORK:-$root/build/bench-work/memprof}
SITES=${SITES:-2000}
RUNS=${RUNS:-3}
WORKLOADS=${WORKLOADS:-kvstore tree strings prodcons big}
mkdir -p "$WORK"
cd "$WORK"

build() {  # build/run workload $1 once: binary $1, raw profile $1.raw.PID
  local w=$1
  if [ ! -x "$w" ]; then
    if [ "$w" = big ]; then
      python3 "$here/gen.py" "$SITES" big.cpp
      clang++-22 -g -O1 -fmemory-profile -fno-omit-frame-pointer -no-pie big.cpp -o big
    else
      clang++-22 -O2 -g -fno-omit-frame-pointer -fmemory-profile "$root/bench/runtime/$w.cpp" \
        -o "$w" -lpthread
    fi
  fi
  if ! ls "$w".raw.* >/dev/null 2>&1; then
    MEMPROF_OPTIONS=log_path="$WORK/$w.raw" "./$w" >/dev/null
  fi
}

rss() {  # peak RSS in MiB of one run of "$@"
  /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f", $1 / 1024}'
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| workload | raw MB | llvm-profdata s | profkit s | speed-up | peak RSS llvm -> profkit MiB | identical |"
echo "|---|---:|---:|---:|---:|---:|---|"
for w in $WORKLOADS; do
  build "$w"
  raw=$(ls "$w".raw.* | head -1)
  llvm=(llvm-profdata-22 merge --profiled-binary="$w" "$raw" -o "$w.llvm.profdata")
  ours=("$PROFKIT" merge --profiled-binary="$w" "$raw" -o "$w.ours.profdata")
  hyperfine -N -r "$RUNS" --export-json "$w.json" -n llvm "${llvm[*]}" -n profkit "${ours[*]}" \
    >/dev/null 2>&1
  read -r tl tp < <(python3 -c "
import json
r={x['command']:x['median'] for x in json.load(open('$w.json'))['results']}
print(r['llvm'],r['profkit'])")
  rl=$(rss "${llvm[@]}")
  rp=$(rss "${ours[@]}")
  same=no
  cmp -s "$w.llvm.profdata" "$w.ours.profdata" && same=yes
  python3 -c "
print('| $w | %.1f | %.3f | %.3f | %.2fx | $rl -> $rp (%.2fx) | $same |' % (
    $(stat -c %s "$raw") / 1e6, $tl, $tp, $tl / $tp, $rp / $rl))"
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
