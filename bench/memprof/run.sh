#!/usr/bin/env bash
# MemProf benchmark: `profkit merge --profiled-binary` against `llvm-profdata-22 merge
# --profiled-binary` on the raw profile of a generated program with N allocation sites
# (bench/memprof/gen.py), side by side in one run: wall time (hyperfine when installed,
# else the best of RUNS) and peak RSS (/usr/bin/time). Also checks the outputs are equal.
#
# Environment: PROFKIT (default build/bin/profkit), WORK (default build/bench-work/memprof),
# SITES (default 2000), RUNS (default 5). Timings are never a test: this only reports.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
WORK=${WORK:-$root/build/bench-work/memprof}
SITES=${SITES:-2000}
RUNS=${RUNS:-5}
mkdir -p "$WORK"
cd "$WORK"

if [ ! -x big ]; then
  python3 "$here/gen.py" "$SITES" big.cpp
  clang++-22 -g -O1 -fmemory-profile -fno-omit-frame-pointer -no-pie big.cpp -o big
fi
raw=$(ls big.raw.* 2>/dev/null | head -1 || true)
if [ -z "$raw" ]; then
  MEMPROF_OPTIONS=log_path="$WORK/big.raw" ./big
  raw=$(ls big.raw.* | head -1)
fi

llvm_cmd="llvm-profdata-22 merge --profiled-binary=big $raw -o llvm.profdata"
ours_cmd="$PROFKIT merge --profiled-binary=big $raw -o ours.profdata"
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "input: $raw ($(stat -c %s "$raw") bytes), binary: big ($SITES allocation sites)"
if command -v hyperfine >/dev/null; then
  hyperfine -N -r "$RUNS" "$llvm_cmd" "$ours_cmd"
else
  for cmd in "$llvm_cmd" "$ours_cmd"; do
    best=""
    for _ in $(seq "$RUNS"); do
      t=$( { /usr/bin/time -f %e sh -c "$cmd >/dev/null 2>&1"; } 2>&1 | tail -1)
      if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
    done
    echo "best of $RUNS: ${best}s  $cmd"
  done
fi
for cmd in "$llvm_cmd" "$ours_cmd"; do
  rss=$( { /usr/bin/time -f %M sh -c "$cmd >/dev/null 2>&1"; } 2>&1 | tail -1)
  echo "peak RSS: ${rss} KB  $cmd"
done
cmp llvm.profdata ours.profdata && echo "outputs identical"
