#!/usr/bin/env bash
# Program shapes none of run.sh's workloads has (bench/runtime/shapes/*.{c,cpp}: over-aligned
# blocks, thread churn, a pre-forking server, more threads than CPUs, millions of blocks live
# at exit, a qsort of heap strings with strcmp, strchr/strrchr over heap lines, strdup,
# vectors and buffers of large blocks, page-aligned I/O buffers, large callocs, a string
# built by realloc a byte at a time, malloc_usable_size, exceptions, getline, large work
# buffers of many sizes, a linked list traversed in near-allocation order), each
# compiled once with clang-22 or clang++-22 -O2 -g -fno-omit-frame-pointer -fmemory-profile
# and linked with compiler-rt's runtime and with ours, beside the plain build, as run.sh
# does. They are here because a runtime tuned on a few workloads can be slow on a shape it
# never saw (aligned was 1.3x compiler-rt's overhead until the runtime served over-aligned
# blocks from its own slots, strscan 1.3x until its string searches stopped looping bytes).
# The plain build also runs under `profkit run`, `profkit run --sample-interval=524288` and
# heaptrack. Reports per shape: wall and CPU (user + system) means over RUNS hyperfine runs,
# the overhead ratio (profkit - plain) / (compiler-rt - plain) in both, peak RSS, the
# allocation-only ratio (profkit run - plain) / (heaptrack - plain) and the sampled run's
# CPU over plain's.
# Timings are never a test: this only reports.
# Environment: BUILD (default build), WORK (default $BUILD/bench-work/shapes), RUNS (5),
# SHAPES (default all).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/shapes}
RUNS=${RUNS:-5}
SHAPES=${SHAPES:-$(cd "$here/shapes" && ls ./*.c ./*.cpp | sed 's|^\./||; s|\.c\(pp\)\{0,1\}$||' | sort | tr '\n' ' ')}
LIB=$BUILD/lib
PROFKIT=$BUILD/bin/profkit
mkdir -p "$WORK"
cd "$WORK"

flags="-O2 -g -fno-omit-frame-pointer"
for s in $SHAPES; do
  src="$here/shapes/$s.cpp" cc=clang++-22
  [ -f "$src" ] || src="$here/shapes/$s.c" cc=clang-22
  if [ ! -x "$s.profkit" ] || [ "$src" -nt "$s.profkit" ]; then
    $cc $flags "$src" -o "$s.plain" -lpthread
    $cc $flags -fmemory-profile -c "$src" -o "$s.o"
    $cc -fmemory-profile "$s.o" -o "$s.crt" -lpthread
    $cc "$s.o" -o "$s.profkit" "$LIB/libprofkit_memprof.so" -Wl,-rpath,"$LIB" -lpthread
  fi
done

. "$here/common.sh"  # rss

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); RUNS=$RUNS"
echo
echo "| shape | plain s | compiler-rt s | profkit s | overhead ratio | CPU plain s | CPU crt s | CPU profkit s | CPU ratio | RSS plain MiB | RSS crt | RSS profkit | CPU profkit run s | CPU heaptrack s | alloc-only CPU ratio | sampled run CPU / plain |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for s in $SHAPES; do
  rm -rf raw && mkdir raw
  if ! hyperfine -N -w 1 -r "$RUNS" --export-json "$s.json" \
      -n plain "./$s.plain" \
      -n crt "env MEMPROF_OPTIONS=log_path=raw/crt ./$s.crt" \
      -n profkit "env MEMPROF_OPTIONS=log_path=raw/pk ./$s.profkit" \
      -n run "$PROFKIT run --output raw/run.raw -- ./$s.plain" \
      -n sampled "$PROFKIT run --sample-interval=524288 --output raw/sampled.raw -- ./$s.plain" \
      -n heaptrack "heaptrack -o raw/ht ./$s.plain" >/dev/null 2>"$s.err"; then
    cat "$s.err" >&2
    exit 1
  fi
  r_plain=$(rss "./$s.plain")
  r_crt=$(rss env MEMPROF_OPTIONS=log_path=raw/crt "./$s.crt")
  r_pk=$(rss env MEMPROF_OPTIONS=log_path=raw/pk "./$s.profkit")
  python3 - "$s" "$s.json" "$r_plain" "$r_crt" "$r_pk" <<'PY'
import json, sys
shape, path, r_plain, r_crt, r_pk = sys.argv[1:]
res = {r["command"]: r for r in json.load(open(path))["results"]}
wall = {k: v["mean"] for k, v in res.items()}
cpu = {k: v["user"] + v["system"] for k, v in res.items()}
def ratio(t, ours="profkit", theirs="crt"):
    d = t[theirs] - t["plain"]
    return f"{(t[ours] - t['plain']) / d:.2f}" if d > 0 else "n/a"
print(f"| {shape} | {wall['plain']:.3f} | {wall['crt']:.3f} | {wall['profkit']:.3f} | {ratio(wall)} "
      f"| {cpu['plain']:.3f} | {cpu['crt']:.3f} | {cpu['profkit']:.3f} | {ratio(cpu)} "
      f"| {r_plain} | {r_crt} | {r_pk} "
      f"| {cpu['run']:.3f} | {cpu['heaptrack']:.3f} | {ratio(cpu, 'run', 'heaptrack')} "
      f"| {cpu['sampled'] / cpu['plain']:.3f} |")
PY
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
