#!/usr/bin/env bash
# Heap profiler runtime on real programs nobody here wrote (bench/third_party/): the Lua
# interpreter running bench/runtime/alloc.lua (millions of small tables, strings and
# closures) and SQLite running its own speed test (speedtest1, in-memory database). Each is
# compiled with clang-22 -O2 -g -fno-omit-frame-pointer (without frame pointers compiler-rt's
# unwinder records almost no contexts) and linked five ways:
#   plain    uninstrumented (baseline)
#   floor    instrumented objects + floor_rt.c: the shadow reserved, nothing else, so the
#            inline shadow updates compiled into the program cost what they cost under any
#            runtime and the runtime's own cost is the time above this build's
#   crt      instrumented objects + compiler-rt's runtime (clang -fmemory-profile link)
#   profkit  instrumented objects + build/lib/libprofkit_memprof.so
# and the plain build under `profkit run` and heaptrack (allocation-only mode).
# Wall and CPU time (user+system): hyperfine, RUNS runs side by side in one hyperfine run;
# peak RSS: /usr/bin/time -v. Prints a markdown table; timings are never a test.
# Ratios: overhead = (profkit - plain) / (crt - plain); own cost = (profkit - floor) /
# (crt - floor); alloc-only = (profkit run - plain) / (heaptrack - plain).
# Then ROUNDS interleaved rounds (plain, floor, crt, profkit once each per round, CPU time
# from /usr/bin/time): medians that a load changing during the hyperfine runs (which run
# each command RUNS times in a row) does not bias.
# Environment: BUILD (default build), WORK (default $BUILD/bench-work/real), RUNS (5),
# ROUNDS (5; 0 = none), PROGRAMS (default "lua sqlite"), SQLITE_SIZE (speedtest1 --size,
# 50), LUA_ROUNDS (2).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
third=$root/bench/third_party
BUILD=${BUILD:-$root/build}
WORK=${WORK:-$BUILD/bench-work/real}
RUNS=${RUNS:-5}
ROUNDS=${ROUNDS:-5}
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

rss() {  # peak RSS in MiB of one run of "$@"
  /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ {printf "%.0f", $6 / 1024}'
}

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -r); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| program | plain s | floor s | compiler-rt s | profkit s | overhead ratio | own-cost ratio | CPU: plain, floor, crt, profkit s | CPU overhead ratio | CPU own-cost ratio | RSS plain, floor, crt, profkit MiB | profkit run s | heaptrack s | alloc-only ratio | CPU ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
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
  r_plain=$(rss ./$p.plain $a)
  r_floor=$(rss ./$p.floor $a)
  r_crt=$(MEMPROF_OPTIONS=log_path=raw/crt2 rss ./$p.crt $a)
  r_pk=$(MEMPROF_OPTIONS=log_path=raw/pk2 rss ./$p.profkit $a)
  python3 - "$p.json" "$p" "$r_plain, $r_floor, $r_crt, $r_pk" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))['results']
w = {x['command']: x['median'] for x in res}
c = {x['command']: x['user'] + x['system'] for x in res}
ratio = lambda t, a, b, base: (t[a] - t[base]) / (t[b] - t[base]) if t[b] > t[base] else float('nan')
print('| %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.3f, %.3f, %.3f, %.3f | %.2f | %.2f | %s | %.3f | %.3f | %.2f | %.2f |' % (
    sys.argv[2], w['plain'], w['floor'], w['crt'], w['profkit'],
    ratio(w, 'profkit', 'crt', 'plain'), ratio(w, 'profkit', 'crt', 'floor'),
    c['plain'], c['floor'], c['crt'], c['profkit'],
    ratio(c, 'profkit', 'crt', 'plain'), ratio(c, 'profkit', 'crt', 'floor'),
    sys.argv[3], w['run'], w['heaptrack'],
    ratio(w, 'run', 'heaptrack', 'plain'), ratio(c, 'run', 'heaptrack', 'plain')))
EOF
done

[ "$ROUNDS" -gt 0 ] || { rm -rf raw; exit 0; }
echo
echo "Interleaved: $ROUNDS rounds, median CPU seconds (user+system); load now: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| program | plain | floor | compiler-rt | profkit | overhead ratio | own-cost ratio | own-cost ratio per round, min-max |"
echo "|---|---|---|---|---|---|---|---|"
cpu() {  # user+system seconds of one run of "$@"
  /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -1 | awk '{print $1 + $2}'
}
for p in $PROGRAMS; do
  a=$(args "$p")
  for r in $(seq "$ROUNDS"); do
    echo "$(cpu ./$p.plain $a) $(cpu ./$p.floor $a)" \
      "$(MEMPROF_OPTIONS=log_path=raw/crt3 cpu ./$p.crt $a)" \
      "$(MEMPROF_OPTIONS=log_path=raw/pk3 cpu ./$p.profkit $a)"
    rm -f raw/*3.*
  done | python3 -c "
import statistics, sys
rows = [[float(x) for x in l.split()] for l in sys.stdin]
m = [statistics.median(r[i] for r in rows) for i in range(4)]
own = [(r[3] - r[1]) / (r[2] - r[1]) for r in rows if r[2] > r[1]]
print('| $p | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f-%.2f |' % (*m, (m[3] - m[0]) / (m[2] - m[0]),
      (m[3] - m[1]) / (m[2] - m[1]), min(own), max(own)))"
done
rm -rf raw
