#!/usr/bin/env bash
# IRPGO benchmark: `profkit merge` and `profkit show` against llvm-profdata-22 on the raw
# profiles of a generated program of about 20 000 functions (bench/irpgo/gen.py).
#
# Steps (each skipped when its output is already there):
#   1. generate the C sources into $WORK/src and build them with clang-22 -O2 -fprofile-generate
#      (-mllvm -vp-counters-per-site=2: enough value-profile slots for every run)
#   2. run the program with seeds 1..max(SIZES) to get that many raw profiles in $WORK/raw
#   3. for each N in SIZES, time with hyperfine, side by side in one run:
#        cat of the N inputs to /dev/null (the floor: reading the inputs)
#        llvm-profdata-22 merge --num-threads=T   vs   profkit merge -j T      (T = 1, 2)
#        llvm-profdata-22 show --all-functions --counts   vs   profkit show ... (on the merge)
#      and measure the peak RSS of each command once with /usr/bin/time -v.
#   4. print a markdown table: machine, commands, medians, ratios, peak RSS.
#
# Environment: PROFKIT (default build/bin/profkit), WORK (default build/bench-work/irpgo),
# SIZES (default "50 200"), RUNS (hyperfine runs per command, default 5), JOBS (build jobs, 2).
# `run.sh prepare` stops after step 2; `run.sh table` reprints the last results.
# Data stays under $WORK (not tracked).
# Timings are never a test: this only reports.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
WORK=${WORK:-$root/build/bench-work/irpgo}
SIZES=${SIZES:-"50 200"}
RUNS=${RUNS:-5}
JOBS=${JOBS:-2}
CLANG=${CLANG:-clang-22}
LLVM_PROFDATA=${LLVM_PROFDATA:-llvm-profdata-22}
FUNCTIONS=${FUNCTIONS:-20000}

for tool in "$CLANG" "$LLVM_PROFDATA" hyperfine python3 /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench/irpgo: missing tool: $tool" >&2; exit 1; }
done
mode=${1:-all}  # "prepare": only steps 1 and 2; "table": only step 4 from earlier results
if [ "$mode" != prepare ] && [ ! -x "$PROFKIT" ]; then
  echo "bench/irpgo: no profkit binary at $PROFKIT (run make build)" >&2
  exit 1
fi

mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
log() { echo "bench/irpgo: $*" >&2; }

# 1. Sources and the instrumented program.
prog=$WORK/bigprog
if [ "$mode" != table ] && [ ! -x "$prog" ]; then
  log "generating $FUNCTIONS functions into $WORK/src"
  python3 "$here/gen.py" "$WORK/src" --functions "$FUNCTIONS"
  log "building with $CLANG -O2 -fprofile-generate ($JOBS jobs)"
  mkdir -p "$WORK/obj"
  (cd "$WORK/src" && ls ./*.c) | xargs -P "$JOBS" -I{} sh -c \
    "$CLANG -O2 -fprofile-generate -mllvm -vp-counters-per-site=2 -c '$WORK/src/{}' -o '$WORK/obj/{}.o'"
  "$CLANG" -O2 -fprofile-generate "$WORK"/obj/*.o -o "$prog.tmp"
  mv "$prog.tmp" "$prog"
fi

# 2. Raw profiles, one per seed.
max=0
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
mkdir -p "$WORK/raw"
[ "$mode" = table ] && max=0
for ((i = 1; i <= max; i++)); do
  f=$(printf '%s/raw/run%03d.profraw' "$WORK" "$i")
  if [ ! -s "$f" ]; then
    LLVM_PROFILE_FILE="$f.tmp" "$prog" "$i" >/dev/null
    mv "$f.tmp" "$f"
  fi
done

[ "$mode" = prepare ] && exit 0

# 3. Measurements.
out=$WORK/out
mkdir -p "$out"
rss_kb() {  # peak resident set of one run of the command, in KiB
  /usr/bin/time -v sh -c "$1" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'
}
results=()
for n in $SIZES; do
  if [ "$mode" = table ]; then
    results+=("$n")
    continue
  fi
  inputs=$(for ((i = 1; i <= n; i++)); do printf '%s/raw/run%03d.profraw ' "$WORK" "$i"; done)
  bytes=$(cat $inputs | wc -c)
  # The reference merge that both show commands read.
  "$LLVM_PROFDATA" merge --num-threads=1 $inputs -o "$out/ref$n.profdata"
  declare -A cmd=(
    [cat]="cat $inputs > /dev/null"
    [llvm_merge_j1]="$LLVM_PROFDATA merge --num-threads=1 $inputs -o $out/llvm$n.profdata"
    [profkit_merge_j1]="$PROFKIT merge -j 1 $inputs -o $out/profkit$n.profdata"
    [llvm_merge_j2]="$LLVM_PROFDATA merge --num-threads=2 $inputs -o $out/llvm$n-j2.profdata"
    [profkit_merge_j2]="$PROFKIT merge -j 2 $inputs -o $out/profkit$n-j2.profdata"
    [llvm_show]="$LLVM_PROFDATA show --all-functions --counts $out/ref$n.profdata > /dev/null"
    [profkit_show]="$PROFKIT show --all-functions --counts $out/ref$n.profdata > /dev/null"
  )
  order=(cat llvm_merge_j1 profkit_merge_j1 llvm_merge_j2 profkit_merge_j2 llvm_show profkit_show)
  args=()
  for k in "${order[@]}"; do args+=(-n "$k" "${cmd[$k]}"); done
  log "timing $n inputs ($((bytes / 1048576)) MiB), $RUNS runs per command"
  hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$out/hyperfine$n.json" \
    "${args[@]}" >&2
  : >"$out/rss$n.txt"
  for k in "${order[@]}"; do echo "$k $(rss_kb "${cmd[$k]}")" >>"$out/rss$n.txt"; done
  # Sanity: the outputs must agree (profkit at -j 1 and -j 2 byte-identical to llvm -j 1).
  same=yes
  cmp -s "$out/llvm$n.profdata" "$out/profkit$n.profdata" || same=no
  cmp -s "$out/profkit$n.profdata" "$out/profkit$n-j2.profdata" || same=no
  diff -q <("$LLVM_PROFDATA" show --all-functions --counts "$out/ref$n.profdata") \
    <("$PROFKIT" show --all-functions --counts "$out/ref$n.profdata") >/dev/null || same=no
  echo "$n $bytes $same" >"$out/meta$n.txt"
  results+=("$n")
  unset cmd
done

# 4. The table.
python3 - "$out" "$PROFKIT" "$LLVM_PROFDATA" "${results[@]}" <<'EOF'
import json, os, platform, subprocess, sys
out, profkit, llvm, sizes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def cpu_model():
    for line in open('/proc/cpuinfo'):
        if line.startswith('model name'):
            return line.split(':', 1)[1].strip()
    return platform.processor()
mem = next(l for l in open('/proc/meminfo') if l.startswith('MemTotal')).split()[1]
llvm_version = subprocess.run([llvm, '--version'], capture_output=True, text=True).stdout
llvm_version = next((l.strip() for l in llvm_version.splitlines() if 'version' in l), '?')
load = open('/proc/loadavg').read().split()[0]
print(f'Machine: {cpu_model()}, {os.cpu_count()} CPUs, {int(mem) // 1048576} GiB RAM, '
      f'{platform.system()} {platform.release()}; {llvm_version}; load average {load} at the end')
print()
for n in sizes:
    data = json.load(open(f'{out}/hyperfine{n}.json'))['results']
    med = {r['command']: r['median'] for r in data}
    cpu = {r['command']: r['user'] + r['system'] for r in data}  # means, user + system
    rss = dict(l.split() for l in open(f'{out}/rss{n}.txt') if len(l.split()) == 2)
    _, nbytes, same = open(f'{out}/meta{n}.txt').read().split()
    print(f'### {n} raw profiles ({int(nbytes) / 1e6:.0f} MB); wall: median of hyperfine runs, '
          f'CPU: mean user+system; outputs identical to llvm-profdata: {same}')
    print()
    print('| task | llvm-profdata-22 wall | profkit wall | speed-up (wall) | llvm CPU | profkit CPU '
          '| speed-up (CPU) | llvm peak RSS | profkit peak RSS | RSS ratio |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    print(f"| read inputs (cat > /dev/null) | | {med['cat']:.3f} s | | | {cpu['cat']:.3f} s | | "
          f"| {int(rss['cat']) / 1024:.0f} MiB | |")
    for task, a, b in [('merge, 1 thread (--num-threads=1 / -j 1)', 'llvm_merge_j1', 'profkit_merge_j1'),
                       ('merge, 2 threads (--num-threads=2 / -j 2)', 'llvm_merge_j2', 'profkit_merge_j2'),
                       ('show --all-functions --counts', 'llvm_show', 'profkit_show')]:
        ra, rb = int(rss[a]), int(rss[b])
        print(f'| {task} | {med[a]:.3f} s | {med[b]:.3f} s | {med[a] / med[b]:.1f}x '
              f'| {cpu[a]:.3f} s | {cpu[b]:.3f} s | {cpu[a] / cpu[b]:.1f}x '
              f'| {ra / 1024:.0f} MiB | {rb / 1024:.0f} MiB | {rb / ra:.2f} |')
    print()
print('Commands (N inputs run001..runN.profraw):')
print('```')
print(f'cat INPUTS > /dev/null')
print(f'{os.path.basename(llvm)} merge --num-threads=T INPUTS -o OUT    # T = 1, 2')
print(f'profkit merge -j T INPUTS -o OUT')
print(f'{os.path.basename(llvm)} show --all-functions --counts MERGED > /dev/null')
print(f'profkit show --all-functions --counts MERGED > /dev/null')
print('```')
EOF
