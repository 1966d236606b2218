#!/usr/bin/env bash
# profgen benchmark: `profkit profgen` against llvm-profgen-22 on a large hybrid perf script
# (call stacks + 32-entry branch stacks) of a generated CSSPGO binary with FUNCTIONS
# functions (bench/profgen/gen.py; pseudo probes, frame pointers), default options (context-
# sensitive, pre-inlined, nested, extbinary).
#
# The script is made by profkit-branch-trace (exact LBR-style samples, this machine has no
# LBR): three runs of the program with different work and sampling periods, concatenated
# (each part with its own mmap events and address layout), plus more parts until it holds
# SCRIPT_MB megabytes. Side by side: wall time (hyperfine) and peak RSS (/usr/bin/time -v) of
# both tools; the output files must be byte-identical. Prints a markdown table.
#
# Environment: PROFKIT, TRACER (default build/bin/...), WORK (default
# build/bench-work/profgen), FUNCTIONS (default 20000), SCRIPT_MB (default 1024), RUNS
# (default 2). Timings are never a test: this only reports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
TRACER=${TRACER:-$root/build/bin/profkit-branch-trace}
WORK=${WORK:-$root/build/bench-work/profgen}
FUNCTIONS=${FUNCTIONS:-20000}
SCRIPT_MB=${SCRIPT_MB:-1024}
RUNS=${RUNS:-2}
LLVM_PROFGEN=${LLVM_PROFGEN:-llvm-profgen-22}
for tool in "$LLVM_PROFGEN" clang-22 hyperfine python3 /usr/bin/time "$PROFKIT" "$TRACER"; do
  command -v "$tool" >/dev/null || { echo "bench/profgen: missing tool: $tool" >&2; exit 1; }
done
log() { echo "bench/profgen: $*" >&2; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
bin=$WORK/prog.$FUNCTIONS
if [ ! -x "$bin" ]; then
  log "generating and building a $FUNCTIONS-function program"
  rm -rf "$WORK/src.$FUNCTIONS"
  python3 "$here/gen.py" --functions "$FUNCTIONS" --out "$WORK/src.$FUNCTIONS"
  ls "$WORK/src.$FUNCTIONS"/*.c | xargs -P "$(nproc)" -I{} clang-22 -O2 -g \
    -fpseudo-probe-for-profiling -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer \
    -c {} -o {}.o
  clang-22 "$WORK/src.$FUNCTIONS"/*.o -o "$bin"
fi
script=$WORK/script.$FUNCTIONS.$SCRIPT_MB.hyb
if [ ! -s "$script" ]; then
  : >"$script.tmp"
  part=0
  while [ "$(stat -c %s "$script.tmp")" -lt $((SCRIPT_MB * 1000000)) ]; do
    rounds=$((20000 + 3000 * part))
    period=$((59 + 4 * (part % 5)))
    log "tracing part $part ($rounds rounds, a sample every $period instructions)"
    "$TRACER" --hybrid "$WORK/part.hyb" --period "$period" -q -- "$bin" "$rounds"
    cat "$WORK/part.hyb" >>"$script.tmp"
    part=$((part + 1))
  done
  rm -f "$WORK/part.hyb"
  mv "$script.tmp" "$script"
fi
out=$WORK/out
mkdir -p "$out"
declare -A cmd=(
  [cat]="cat $script > /dev/null"
  [llvm]="$LLVM_PROFGEN --binary $bin --perfscript $script -o $out/llvm.ext"
  [profkit]="$PROFKIT profgen --binary $bin --perfscript $script -o $out/profkit.ext"
)
order=(cat llvm profkit)
args=()
for k in "${order[@]}"; do args+=(-n "$k" "${cmd[$k]}"); done
log "timing, $RUNS runs per command"
hyperfine --style basic --runs "$RUNS" --export-json "$out/hyperfine.json" "${args[@]}" >&2
rss_kb() { /usr/bin/time -v sh -c "$1" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'; }
: >"$out/rss.txt"
for k in "${order[@]}"; do echo "$k $(rss_kb "${cmd[$k]}")" >>"$out/rss.txt"; done
same=yes
cmp -s "$out/llvm.ext" "$out/profkit.ext" || same=no
mb=$(($(stat -c %s "$script") / 1000000))
python3 - "$out/hyperfine.json" "$out/rss.txt" "$same" "$mb" "$FUNCTIONS" <<'EOF'
import json, sys
runs = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
rss = dict(line.split() for line in open(sys.argv[2]))
same, mb, functions = sys.argv[3], sys.argv[4], sys.argv[5]
print("| hybrid perf script %s MB, %s functions | median | peak RSS |" % (mb, functions))
print("|---|---|---|")
for k in ("cat", "llvm", "profkit"):
    print("| %s | %.2f s | %d MiB |" % (k, runs[k]["median"], int(rss[k]) // 1024))
l, p = runs["llvm"]["median"], runs["profkit"]["median"]
print("| **profkit / llvm-profgen-22** | **%.2fx faster** | **%.2fx the memory** |"
      % (l / p, int(rss["profkit"]) / int(rss["llvm"])))
print("\noutputs byte-identical: %s" % same)
EOF
[ "$same" = yes ]
