#!/usr/bin/env bash
# Sample-profile benchmark: `profkit merge --sample` and `show --sample` against
# llvm-profdata-22 on extbinary profiles of a synthetic 20 000-function program
# (bench/sampleprof/gen.py writes them as text; llvm-profdata-22 converts each to extbinary).
#
# Side by side in one hyperfine run: cat of the inputs (the floor), llvm-profdata-22 merge
# --sample --extbinary vs profkit merge --sample --extbinary of N inputs, and show --sample
# --hot-func-list of the merged profile; peak RSS of each once with /usr/bin/time -v; the
# outputs must be byte-identical. Prints a markdown table.
#
# Environment: PROFKIT (default build/bin/profkit), WORK (default build/bench-work/sampleprof),
# PROFILES (inputs merged, default 50), FUNCTIONS (default 20000), RUNS (default 5).
# Data stays under $WORK. Timings are never a test: this only reports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
WORK=${WORK:-$root/build/bench-work/sampleprof}
PROFILES=${PROFILES:-50}
FUNCTIONS=${FUNCTIONS:-20000}
RUNS=${RUNS:-5}
LLVM_PROFDATA=${LLVM_PROFDATA:-llvm-profdata-22}
for tool in "$LLVM_PROFDATA" hyperfine python3 /usr/bin/time "$PROFKIT"; do
  command -v "$tool" >/dev/null || { echo "bench/sampleprof: missing tool: $tool" >&2; exit 1; }
done
log() { echo "bench/sampleprof: $*" >&2; }
mkdir -p "$WORK/txt" "$WORK/ext" "$WORK/out"
WORK=$(cd "$WORK" && pwd)
if [ ! -s "$WORK/txt/run$(printf %03d "$PROFILES").txt" ]; then
  log "generating $PROFILES text profiles of $FUNCTIONS functions"
  python3 "$here/gen.py" "$WORK/txt" --functions "$FUNCTIONS" --profiles "$PROFILES"
fi
for ((i = 1; i <= PROFILES; i++)); do
  n=$(printf %03d "$i")
  [ -s "$WORK/ext/run$n.ext" ] || "$LLVM_PROFDATA" merge --sample --extbinary \
    "$WORK/txt/run$n.txt" -o "$WORK/ext/run$n.ext"
done
inputs=$(for ((i = 1; i <= PROFILES; i++)); do printf '%s/ext/run%03d.ext ' "$WORK" "$i"; done)
out=$WORK/out
"$LLVM_PROFDATA" merge --sample --extbinary $inputs -o "$out/ref.ext"
declare -A cmd=(
  [cat]="cat $inputs > /dev/null"
  [llvm_merge]="$LLVM_PROFDATA merge --sample --extbinary $inputs -o $out/llvm.ext"
  [profkit_merge]="$PROFKIT merge --sample --extbinary $inputs -o $out/profkit.ext"
  [llvm_show]="$LLVM_PROFDATA show --sample --hot-func-list $out/ref.ext > /dev/null"
  [profkit_show]="$PROFKIT show --sample --hot-func-list $out/ref.ext > /dev/null"
)
order=(cat llvm_merge profkit_merge llvm_show profkit_show)
args=()
for k in "${order[@]}"; do args+=(-n "$k" "${cmd[$k]}"); done
log "timing, $RUNS runs per command"
hyperfine --style basic --warmup 1 --runs "$RUNS" --export-json "$out/hyperfine.json" "${args[@]}" >&2
rss_kb() { /usr/bin/time -v sh -c "$1" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {print $2}'; }
: >"$out/rss.txt"
for k in "${order[@]}"; do echo "$k $(rss_kb "${cmd[$k]}")" >>"$out/rss.txt"; done
same=yes
cmp -s "$out/llvm.ext" "$out/profkit.ext" || same=no
diff -q <("$LLVM_PROFDATA" show --sample --hot-func-list "$out/ref.ext") \
  <("$PROFKIT" show --sample --hot-func-list "$out/ref.ext") >/dev/null || same=no
bytes=$(cat $inputs | wc -c)
python3 - "$out" "$LLVM_PROFDATA" "$PROFILES" "$FUNCTIONS" "$bytes" "$same" <<'PY'
import json, os, platform, subprocess, sys
out, llvm, n, functions, nbytes, same = sys.argv[1:]
cpu = next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo') if l.startswith('model name')), '?')
mem = int(next(l for l in open('/proc/meminfo') if l.startswith('MemTotal')).split()[1]) // 1048576
ver = next((l.strip() for l in subprocess.run([llvm, '--version'], capture_output=True, text=True).stdout.splitlines() if 'version' in l), '?')
print(f'Machine: {cpu}, {os.cpu_count()} CPUs, {mem} GiB RAM; {ver}; load average '
      f'{open("/proc/loadavg").read().split()[0]} at the end')
print()
data = json.load(open(f'{out}/hyperfine.json'))['results']
med = {r['command']: r['median'] for r in data}
rss = dict(l.split() for l in open(f'{out}/rss.txt') if len(l.split()) == 2)
print(f'{n} extbinary profiles of {functions} functions ({int(nbytes) / 1e6:.0f} MB); wall: median '
      f'of hyperfine runs; outputs identical to llvm-profdata: {same}')
print()
print('| task | llvm-profdata-22 | profkit | speed-up | llvm peak RSS | profkit peak RSS | RSS ratio |')
print('|---|---:|---:|---:|---:|---:|---:|')
print(f"| read inputs (cat > /dev/null) | | {med['cat']:.3f} s | | | {int(rss['cat']) / 1024:.0f} MiB | |")
for task, a, b in [('merge --sample --extbinary', 'llvm_merge', 'profkit_merge'),
                   ('show --sample --hot-func-list', 'llvm_show', 'profkit_show')]:
    ra, rb = int(rss[a]), int(rss[b])
    print(f'| {task} | {med[a]:.3f} s | {med[b]:.3f} s | {med[a] / med[b]:.1f}x '
          f'| {ra / 1024:.0f} MiB | {rb / 1024:.0f} MiB | {rb / ra:.2f} |')
PY
