#!/usr/bin/env bash
# Heap profiler runtime on real programs nobody here wrote (bench/third_party/): the Lua
# interpreter running bench/runtime/alloc.lua (millions of small tables, strings and
# closures) and SQLite running its own speed test (speedtest1, in-memory database). Each is
# compiled with clang-22 -O2 -g -fno-omit-frame-pointer (without frame pointers compiler-rt's
# unwinder records almost no contexts) and linked four ways:
#   plain    uninstrumented (baseline)
#   floor    instrumented objects + floor_rt.c: the shadow reserved, nothing else, so the
#            inline shadow updates compiled into the program cost what they cost under any
#            runtime and the runtime's own cost is the time above this build's
#   crt      instrumented objects + compiler-rt's runtime (clang -fmemory-profile link)
#   profkit  instrumented objects + build/lib/libprofkit_memprof.so
# and the plain build under `profkit run` (run) and heaptrack (allocation-only tracing).
# Ratios, in CPU time (user + system): own cost = (profkit - floor) / (crt - floor);
# overhead = (profkit - plain) / (crt - plain); alloc-only = (run - plain) / (heaptrack -
# plain), also in wall time (heaptrack's interpreter process and `profkit run`'s parent
# run beside the program). Peak RSS comes from the same runs (wait4's ru_maxrss).
# Timings are never a test.
#
# Method (bench/runtime/rounds.py): one warm-up round, then ROUNDS rounds that run every
# variant once, in an order rotated per round; per variant the median [min-max], per ratio
# the value from the medians, from the minimums, a bootstrap 90% interval and the per-round
# median [min-max]. Why not hyperfine's back-to-back runs (RUNS > 0 still prints that
# table): on this shared 2-CPU VM one binary's CPU time moves by 15-30% from run to run as
# other builds come and go (Lua's floor: 1.72-2.17 s over 10 rounds at load 2.6-4.5), and
# hyperfine runs each command RUNS times in a row, so a load change between two commands'
# windows becomes a difference between the commands: one session measured Lua's floor at
# 2.30 s that way and 2.02 s interleaved. The own-cost ratio divides by crt - floor, a
# small difference of two such times (SQLite: 0.5 s of 2.6), so it takes the medians of
# many rounds: one round's ratio ranges over 0.2-1.7 at that load. Only CPU time is
# compared (wall time adds the waits for a CPU); `perf stat` has no hardware counters in
# this VM (no instruction or cache-miss counts) and valgrind cannot map the 16 TiB shadow.
#
# Is the floor fair? It keeps glibc's malloc, so its heap is denser than either runtime's
# (both put a header on every block; ours also aligns every block to 64 bytes so that no
# two blocks share a counter). That layout is a runtime's choice, and what it costs (more
# cache lines, shadow lines and pages for the program to touch) is counted as the runtime's
# own: the floor is what the instrumented program costs on its own heap, below which no
# runtime can go. The rest of floor_rt.c does what the runtimes must: the same shadow
# reservation (size, MAP_NORESERVE, no huge pages), the shadow address read through the
# GOT like our shared library's, and the intrinsic entry points (__memprof_memcpy...)
# calling libc's; counting those bytes, as both runtimes do, is their own cost.
#
# Load also scales the times unevenly (profkit's Lua time grew 35% from load 4-6 to 6-8,
# compiler-rt's 12%; Lua's own-cost ratio went 0.44 -> 0.91), so the figures for the
# targets come from a quiet machine; docs/runtime.md "Measuring on a shared machine".
#
# Environment: BUILD (default build), WORK (default $BUILD/bench-work/real), ROUNDS (10;
# 0 = none), RUNS (0: no hyperfine table; it runs all six variants), PROGRAMS (default
# "lua sqlite"), VARIANTS (default "plain floor crt profkit run heaptrack"), SQLITE_SIZE
# (speedtest1 --size, 50), LUA_ROUNDS (2).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
third=$root/bench/third_party
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/real}
RUNS=${RUNS:-0}
ROUNDS=${ROUNDS:-10}
VARIANTS=${VARIANTS:-plain floor crt profkit run heaptrack}
PROGRAMS=${PROGRAMS:-lua sqlite}
SQLITE_SIZE=${SQLITE_SIZE:-50}
LUA_ROUNDS=${LUA_ROUNDS:-2}
LIB=$BUILD/lib
PROFKIT=$BUILD/bin/profkit
mkdir -p "$WORK"
cd "$WORK"

flags="-O2 -g -fno-omit-frame-pointer -w"
[ -f libfloor_rt.so ] && [ libfloor_rt.so -nt "$here/floor_rt.c" ] ||
  clang-22 -O2 -fPIC -shared "$here/floor_rt.c" -o libfloor_rt.so

build() {  # build NAME LIBS SOURCES... : NAME.{plain,floor,crt,profkit}
  local name=$1 libs=$2
  shift 2
  [ -x "$name.profkit" ] && return
  mkdir -p "obj-$name/plain" "obj-$name/inst"
  local objs=() iobjs=() jobs=() src o
  for src in "$@"; do
    o=$(basename "${src%.c}").o
    objs+=("obj-$name/plain/$o") iobjs+=("obj-$name/inst/$o")
    jobs+=("$src obj-$name/plain/$o" "$src obj-$name/inst/$o -fmemory-profile")
  done
  printf '%s\n' "${jobs[@]}" |
    xargs -P 2 -L 1 bash -c 'clang-22 '"$flags $CDEFS"' -c "$0" -o "$1" "${@:2}"'
  clang-22 "${objs[@]}" -o "$name.plain" $libs
  clang-22 -fmemory-profile "${iobjs[@]}" -o "$name.crt" $libs
  clang-22 "${iobjs[@]}" -o "$name.floor" "$WORK/libfloor_rt.so" -Wl,-rpath,"$WORK" $libs
  clang-22 "${iobjs[@]}" -o "$name.profkit" "$LIB/libprofkit_memprof.so" -Wl,-rpath,"$LIB" $libs
}

for p in $PROGRAMS; do
  case $p in
    lua) CDEFS="-DLUA_USE_POSIX" build lua "-lm" "$third"/lua/*.c ;;
    sqlite)  # the amalgamation is stored gzipped (8 MB of C); unpacked into $WORK
      [ sqlite3.c -nt "$third/sqlite/sqlite3.c.gz" ] ||
        { gzip -dc "$third/sqlite/sqlite3.c.gz" >sqlite3.c.tmp && mv sqlite3.c.tmp sqlite3.c; }
      CDEFS="-I$third/sqlite" \
        build sqlite "-lm" "$PWD/sqlite3.c" "$third/sqlite/speedtest1.c" ;;
    *) echo "real.sh: unknown program $p (lua, sqlite)" >&2; exit 1 ;;
  esac
done

args() {  # the workload's arguments
  case $1 in
    lua) echo "$here/alloc.lua $LUA_ROUNDS" ;;
    sqlite) echo "--size $SQLITE_SIZE :memory:" ;;
  esac
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r); load: $(cut -d' ' -f1-3 /proc/loadavg)"
has() { [[ " $VARIANTS " == *" $1 "* ]]; }
for p in $PROGRAMS; do
  a=$(args "$p")
  rm -rf raw && mkdir raw
  cmds=()
  for v in $VARIANTS; do
    case $v in
      plain | floor) cmds+=("$v=./$p.$v $a") ;;
      crt) cmds+=("crt=MEMPROF_OPTIONS=log_path=raw/crt ./$p.crt $a") ;;
      profkit) cmds+=("profkit=MEMPROF_OPTIONS=log_path=raw/pk ./$p.profkit $a") ;;
      run) cmds+=("run=$PROFKIT run --output raw/run.raw -- ./$p.plain $a") ;;
      heaptrack) cmds+=("heaptrack=heaptrack -o raw/ht ./$p.plain $a") ;;
      *) echo "real.sh: unknown variant $v (plain floor crt profkit run heaptrack)" >&2; exit 1 ;;
    esac
  done
  ratios=()
  if has plain && has floor && has crt && has profkit; then
    ratios+=(--ratio own-cost=profkit,crt,floor --ratio overhead=profkit,crt,plain)
  fi
  if has plain && has run && has heaptrack; then
    ratios+=(--ratio alloc-only=run,heaptrack,plain --ratio alloc-only=run,heaptrack,plain,wall)
  fi
  [ "$ROUNDS" -gt 0 ] || continue
  echo
  echo "### $p ($a)"
  echo
  python3 "$here/rounds.py" "$ROUNDS" "${cmds[@]}" "${ratios[@]}"
done

if [ "$RUNS" -gt 0 ]; then
  echo
  echo "hyperfine, $RUNS runs of each command in a row (biased by load changes, see above); load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| program | CPU s: plain, floor, crt, profkit | CPU own-cost ratio | wall s: run, heaptrack | alloc-only CPU ratio |"
  echo "|---|---|---|---|---|"
  for p in $PROGRAMS; do
    a=$(args "$p")
    rm -rf raw && mkdir raw
    hyperfine -N -r "$RUNS" --export-json "$p.json" \
      -n plain "./$p.plain $a" \
      -n floor "./$p.floor $a" \
      -n crt "env MEMPROF_OPTIONS=log_path=raw/crt ./$p.crt $a" \
      -n profkit "env MEMPROF_OPTIONS=log_path=raw/pk ./$p.profkit $a" \
      -n run "$PROFKIT run --output raw/run.raw -- ./$p.plain $a" \
      -n heaptrack "heaptrack -o raw/ht ./$p.plain $a" >/dev/null 2>&1
    python3 -c '
import json, sys
res = json.load(open(sys.argv[1]))["results"]
w = {x["command"]: x["median"] for x in res}
c = {x["command"]: x["user"] + x["system"] for x in res}
ratio = lambda t, a, b, base: (t[a] - t[base]) / (t[b] - t[base]) if t[b] > t[base] else float("nan")
print("| %s | %.2f, %.2f, %.2f, %.2f | %.2f | %.2f, %.2f | %.2f |" % (
    sys.argv[2], c["plain"], c["floor"], c["crt"], c["profkit"], ratio(c, "profkit", "crt", "floor"),
    w["run"], w["heaptrack"], ratio(c, "run", "heaptrack", "plain")))' "$p.json" "$p"
  done
fi
rm -rf raw
