#!/bin/sh
# Compares `profkit probes --disassemble` with llvm-profgen-22 --show-pseudo-probe
# --show-disassembly-only on a generated CSSPGO binary: wall time (hyperfine, median) and
# peak RSS (/usr/bin/time -v), side by side in one run.
#
#   bench/probes/run.sh PROFKIT_BIN [FUNCTIONS] [WORKDIR]
#
# FUNCTIONS defaults to 100000 (source functions, see gen_large.py); building that binary
# takes several minutes on two cores, so try 20000 first.
set -eu
profkit=${1:?usage: run.sh PROFKIT_BIN [FUNCTIONS] [WORKDIR]}
functions=${2:-100000}
work=${3:-/tmp/profkit-probe-bench}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
bin="$work/large.$functions"
if [ ! -x "$bin" ]; then
  rm -rf "$work/src.$functions"
  python3 "$here/gen_large.py" --functions "$functions" --out "$work/src.$functions"
  ls "$work/src.$functions"/*.c | xargs -P 2 -I{} sh -c \
    'clang-22 -O2 -g -fpseudo-probe-for-profiling -c "$1" -o "$1.o"' _ {}
  clang-22 "$work/src.$functions"/*.o -o "$bin"
fi
echo "binary: $bin ($(stat -c %s "$bin") bytes)"
llvm-readelf-22 -S -W "$bin" | grep -E 'pseudo_probe|\.text ' || true

ours="$profkit probes --disassemble $bin"
theirs="llvm-profgen-22 --binary=$bin --show-pseudo-probe --show-disassembly-only --output=/dev/null"

# Same probe lines first (a benchmark of wrong output is worthless).
$ours > "$work/ours.txt"
$theirs > "$work/theirs.txt"
grep '^ \[Probe\]' "$work/ours.txt" > "$work/ours.probes"
grep '^ \[Probe\]' "$work/theirs.txt" > "$work/theirs.probes"
if cmp -s "$work/ours.probes" "$work/theirs.probes"; then
  echo "probe lines: identical ($(wc -l < "$work/ours.probes") lines)"
else
  echo "probe lines: DIFFER"; exit 1
fi

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
hyperfine --warmup 1 --runs 5 --export-json "$work/hyperfine.json" \
  -n profkit "$ours > /dev/null" -n llvm-profgen-22 "$theirs > /dev/null"

# Peak RSS and CPU time (user + system; robust when the machine is shared) from
# /usr/bin/time -v, median of three runs each.
measure() {
  for i in 1 2 3; do
    /usr/bin/time -f "%U %S %M" sh -c "$1 > /dev/null" 2>&1 | tail -1
  done | awk '{print $1 + $2, $3}' | sort -n | sed -n 2p
}
m_ours=$(measure "$ours")
m_theirs=$(measure "$theirs")
python3 - "$work/hyperfine.json" "$m_ours" "$m_theirs" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ours, theirs = r["profkit"]["median"], r["llvm-profgen-22"]["median"]
cpu_ours, rss_ours = map(float, sys.argv[2].split())
cpu_theirs, rss_theirs = map(float, sys.argv[3].split())
print(f"median wall: profkit {ours:.3f} s, llvm-profgen-22 {theirs:.3f} s, speed-up {theirs / ours:.2f}x")
print(f"median CPU:  profkit {cpu_ours:.2f} s, llvm-profgen-22 {cpu_theirs:.2f} s, speed-up {cpu_theirs / cpu_ours:.2f}x")
print(f"peak RSS:    profkit {rss_ours / 1024:.1f} MiB, llvm-profgen-22 {rss_theirs / 1024:.1f} MiB, ratio {rss_ours / rss_theirs:.2f}")
PY
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Decode-only throughput (probes per second) of the same binary, if the Google Benchmark
# program was built next to profkit (PROFKIT_BENCH=ON).
decode_bench="$(dirname "$profkit")/probe_decode_bench"
if [ -x "$decode_bench" ]; then
  PROFKIT_PROBE_BENCH_BINARY="$bin" "$decode_bench" --benchmark_filter=BM_DecodeBinary \
    --benchmark_min_time=1 2>/dev/null | grep BM_DecodeBinary
fi
