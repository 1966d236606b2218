#!/usr/bin/env bash
# `make demo`: heap profiling of a small bundled program, with profkit doing the work.
#   1. build examples/wordcache.cpp with clang++-22 -fmemory-profile, linked with profkit's
#      heap-profiler runtime (build/lib/libprofkit_memprof.so)
#   2. run it on the two bundled texts: it writes a raw memprof profile
#   3. profkit report: summary, top allocation sites, and the cold/hot hints clang 22 would
#      give (lifetime threshold 0 s: the demo runs for a fraction of a second, not 200 s)
#   4. rebuild with -DBIG_ARCHIVE (one site allocates more), rerun, profkit diff the two
#   5. the HTML report (and JSON), when this profkit has `report --html`
# Everything is written under build/demo/. Each command is printed before it runs.
# Environment: PROFKIT (default build/bin/profkit), DEMO_DIR (default build/demo), CXX.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
DEMO_DIR=${DEMO_DIR:-$root/build/demo}
CXX=${CXX:-clang++-22}
lib=$root/build/lib
examples=$root/examples

run() {
  printf '+'
  printf ' %q' "$@"
  printf '\n'
  "$@"
}

case $PROFKIT in /*) ;; */*) PROFKIT=$PWD/$PROFKIT ;; esac
if [ ! -x "$PROFKIT" ] || [ ! -e "$lib/libprofkit_memprof.so" ]; then
  echo "demo: $PROFKIT or $lib/libprofkit_memprof.so is missing; run 'make build' first" >&2
  exit 1
fi
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"
DEMO_DIR=$(cd "$DEMO_DIR" && pwd)
cd "$DEMO_DIR"

build_and_run() {  # NAME [EXTRA FLAGS]: build, run, leave NAME.memprofraw
  local name=$1
  shift
  run "$CXX" -g -O1 -fmemory-profile -fno-omit-frame-pointer "$@" -c "$examples/wordcache.cpp" -o "$name.o"
  run "$CXX" "$name.o" -o "$name" "$lib/libprofkit_memprof.so" "-Wl,-rpath,$lib"
  run env MEMPROF_OPTIONS="log_path=$name.memprofraw" "./$name" "$examples/input-a.txt" "$examples/input-b.txt"
  mv "$name".memprofraw.* "$name.memprofraw"
}

echo "== 1-2. build with -fmemory-profile and run under profkit's runtime"
build_and_run wordcache

echo "== 3. report"
run "$PROFKIT" report wordcache.memprofraw --profiled-binary wordcache --ave-lifetime-cold-threshold=0 --top=5

echo "== 4. a variant that archives four copies of each text, and what changed"
build_and_run wordcache-big -DBIG_ARCHIVE
run "$PROFKIT" diff wordcache.memprofraw wordcache-big.memprofraw --profiled-binary wordcache \
  --profiled-binary wordcache-big --top=3

if "$PROFKIT" report --help 2>/dev/null | grep -q -- '--html'; then
  echo "== 5. HTML report (and the same data as JSON)"
  run "$PROFKIT" report wordcache.memprofraw --profiled-binary wordcache \
    --ave-lifetime-cold-threshold=0 --html wordcache.html --json --top=0 -o wordcache.json
  echo "open $DEMO_DIR/wordcache.html in a browser"
fi
echo "demo: done; files are in $DEMO_DIR"
