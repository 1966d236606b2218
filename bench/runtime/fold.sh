#!/usr/bin/env bash
# Recursion folding (MEMPROF_OPTIONS=fold_recursion) on the deep-recursion workload
# (recursive.cpp), compiled once with clang++-22 -O2 -g -fno-omit-frame-pointer
# -fmemory-profile and run side by side: plain (no instrumentation), compiler-rt's runtime
# and ours at malloc_context_size=255, ours folded (=1, =2) at 255 and at the default depth.
# Per build: wall time (hyperfine median of RUNS), peak RSS (/usr/bin/time -v), and for each
# profile its contexts (llvm-profdata-22 show), size, and `profkit merge --profiled-binary`
# time (hyperfine median of RUNS). Prints a markdown table. Timings are never a test.
# Environment: BUILD (default build), WORK (default $BUILD/bench-work/fold), RUNS (5).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/fold}
RUNS=${RUNS:-5}
LIB=$BUILD/lib
PROFKIT=$BUILD/bin/profkit
mkdir -p "$WORK"
cd "$WORK"

flags="-O2 -g -fno-omit-frame-pointer"
clang++-22 $flags "$here/recursive.cpp" -o recursive.plain
clang++-22 $flags -fmemory-profile -c "$here/recursive.cpp" -o recursive.o
clang++-22 -fmemory-profile recursive.o -o recursive.crt
clang++-22 recursive.o -o recursive.profkit "$LIB/libprofkit_memprof.so" -Wl,-rpath,"$LIB"

# name, binary, MEMPROF_OPTIONS (log_path added)
variants=(
  "compiler-rt, 255|recursive.crt|malloc_context_size=255"
  "profkit, 255|recursive.profkit|malloc_context_size=255"
  "profkit fold=1, 255|recursive.profkit|malloc_context_size=255:fold_recursion=1"
  "profkit fold=2, 255|recursive.profkit|malloc_context_size=255:fold_recursion=2"
  "profkit, 30|recursive.profkit|"
  "profkit fold=2, 30|recursive.profkit|fold_recursion=2"
)

rm -rf raw && mkdir raw
args=(-n plain ./recursive.plain)
for i in "${!variants[@]}"; do
  IFS='|' read -r name bin opts <<<"${variants[$i]}"
  args+=(-n "$name" "env MEMPROF_OPTIONS=log_path=raw/t$i${opts:+:$opts} ./$bin")
done
hyperfine -N -r "$RUNS" --export-json times.json "${args[@]}" >/dev/null 2>&1

. "$here/common.sh"  # rss
median() { python3 -c "import json; print(json.load(open('$1'))['results'][$2]['median'])"; }
cpu() { python3 -c "import json; r = json.load(open('times.json'))['results'][$1]; print(r['user'] + r['system'])"; }

plain=$(median times.json 0)
echo "load: $(uptime | sed 's/.*load average: //')"
echo
# CPU: hyperfine's mean user+system time, which waiting for a CPU on a loaded machine does
# not inflate as it does the wall time.
echo "| build, depth | s | x plain | CPU s | CPU x plain | peak RSS MiB | contexts | profile MB | profkit merge s |"
echo "|---|---|---|---|---|---|---|---|---|"
printf '| plain | %.2f | 1.0 | %.2f | 1.0 | %s | | | |\n' "$plain" "$(cpu 0)" "$(rss ./recursive.plain)"
for i in "${!variants[@]}"; do
  IFS='|' read -r name bin opts <<<"${variants[$i]}"
  mem=$(MEMPROF_OPTIONS="log_path=raw/m$i${opts:+:$opts}" rss "./$bin")
  raw=$(ls raw/m$i.* | head -1)
  contexts=$(llvm-profdata-22 show --memory --profiled-binary="$bin" "$raw" |
             awk '/Total contexts:/ {n = $NF} END {print n}')
  hyperfine -N -r "$RUNS" --export-json merge.json \
    "$PROFKIT merge --profiled-binary=$bin $raw -o raw/m$i.memprofdata" >/dev/null 2>&1
  t=$(median times.json $((i + 1)))
  python3 -c "
t, p, c, cp = $t, $plain, $(cpu $((i + 1))), $(cpu 0)
print('| $name | %.2f | %.1f | %.2f | %.1f | $mem | $contexts | %.1f | %.2f |' % (t, t / p, c, c / cp, $(stat -c %s "$raw") / 1e6, $(median merge.json 0)))"
done
rm -rf raw
