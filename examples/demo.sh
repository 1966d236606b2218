#!/usr/bin/env bash
# `make demo`: the IRPGO loop on a small bundled program, with profkit doing the profile work.
#   1. build examples/wordfreq.c with clang-22 -O2 -fprofile-generate
#   2. run it on the two bundled inputs (two raw profiles)
#   3. profkit merge the raw profiles into one indexed profile
#   4. profkit show the result: summary, hottest functions, counts and indirect-call targets
#   5. rebuild with clang-22 -O2 -fprofile-use= that profile (clang reports promoted calls)
# Everything is written under build/demo/. Each command is printed before it runs.
# Environment: PROFKIT (default build/bin/profkit), DEMO_DIR (default build/demo), CLANG.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
DEMO_DIR=${DEMO_DIR:-$root/build/demo}
CLANG=${CLANG:-clang-22}
examples=$root/examples

run() {
  printf '+'
  printf ' %q' "$@"
  printf '\n'
  "$@"
}

case $PROFKIT in /*) ;; */*) PROFKIT=$PWD/$PROFKIT ;; esac
if [ ! -x "$PROFKIT" ]; then
  echo "demo: $PROFKIT does not exist; run 'make build' first" >&2
  exit 1
fi
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"
DEMO_DIR=$(cd "$DEMO_DIR" && pwd)
cd "$DEMO_DIR"

# Compile a copy by its relative name so static functions are keyed "wordfreq.c;NAME".
cp "$examples/wordfreq.c" wordfreq.c

echo "== 1. instrumented build"
run "$CLANG" -O2 -fprofile-generate wordfreq.c -o wordfreq-instr

echo "== 2. two runs, two raw profiles"
run env LLVM_PROFILE_FILE=run-a.profraw ./wordfreq-instr -n 5 "$examples/input-a.txt"
run env LLVM_PROFILE_FILE=run-b.profraw ./wordfreq-instr -n 5 -m stem -s length "$examples/input-b.txt"

echo "== 3. merge"
run "$PROFKIT" merge run-a.profraw run-b.profraw -o wordfreq.profdata

echo "== 4. show"
run "$PROFKIT" show --topn=5 wordfreq.profdata
run "$PROFKIT" show --function=count_file --counts --ic-targets wordfreq.profdata

echo "== 5. optimised build using the profile"
run "$CLANG" -O2 -fprofile-use=wordfreq.profdata -Rpass=pgo-icall-prom wordfreq.c -o wordfreq
run ./wordfreq -n 3 "$examples/input-a.txt" "$examples/input-b.txt"
echo "demo: done; files are in $DEMO_DIR"
