#!/usr/bin/env bash
# Fleet benchmark: `profkit-fleet merge` on a real Dask cluster of this machine (a scheduler
# and 1 or 2 `dask worker` processes) against one local `profkit merge -j 2`, on N raw
# IR-PGO profiles (default 10 000) of a generated program (bench/irpgo/gen.py, 2 000
# functions by default).
#
# Steps (each skipped when its output is already there):
#   1. generate and build the program with clang-22 -O2 -fprofile-generate
#   2. run it with seeds 1..N: N raw profiles in $WORK/raw
#   3. time, side by side in one run (hyperfine, RUNS each): profkit merge -j 2 -f LIST;
#      profkit-fleet merge --scheduler (1 worker); the same with 2 workers. The cluster is
#      started before timing (a fleet's cluster is long-lived); every output is compared
#      with profkit merge's, byte for byte.
#   4. peak memory: /usr/bin/time -v of profkit merge, and of each worker process over one
#      merge (a worker's peak includes the profkit runs it started: wait4's rusage).
#   5. print a markdown table.
# Environment: PROFKIT_BIN (default build/bin), WORK (default build/bench-work/fleet),
# INPUTS (10000), FUNCTIONS (2000), RUNS (3), SHARD (shard size, 256).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BIN=${PROFKIT_BIN:-$root/build/bin}
WORK=${WORK:-$root/build/bench-work/fleet}
INPUTS=${INPUTS:-10000}
FUNCTIONS=${FUNCTIONS:-2000}
RUNS=${RUNS:-3}
SHARD=${SHARD:-256}
CLANG=${CLANG:-clang-22}
for tool in "$CLANG" hyperfine /usr/bin/python3 /usr/bin/time dask "$BIN/profkit" "$BIN/profkit-fleet"; do
  command -v "$tool" >/dev/null || { echo "bench/fleet: missing: $tool" >&2; exit 1; }
done
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
log() { echo "bench/fleet: $*" >&2; }

prog=$WORK/prog
if [ ! -x "$prog" ]; then
  log "generating and building a $FUNCTIONS-function program"
  python3 "$root/bench/irpgo/gen.py" "$WORK/src" --functions "$FUNCTIONS"
  mkdir -p "$WORK/obj"
  (cd "$WORK/src" && ls ./*.c) | xargs -P 2 -I{} sh -c \
    "$CLANG -O2 -fprofile-generate -c '$WORK/src/{}' -o '$WORK/obj/{}.o'"
  "$CLANG" -O2 -fprofile-generate "$WORK"/obj/*.o -o "$prog.tmp"
  mv "$prog.tmp" "$prog"
fi
mkdir -p "$WORK/raw"
have=$(find "$WORK/raw" -name '*.profraw' | wc -l)
if [ "$have" -lt "$INPUTS" ]; then
  log "running the program $INPUTS times"
  seq 1 "$INPUTS" | xargs -P 2 -I{} sh -c \
    "LLVM_PROFILE_FILE='$WORK/raw/{}.profraw' '$prog' {} > /dev/null"
fi
list=$WORK/inputs.list
seq 1 "$INPUTS" | sed "s|.*|$WORK/raw/&.profraw|" > "$list"
bytes=$(cat "$list" | xargs du -cb | tail -1 | cut -f1)

# A scheduler and W workers, started the way an operator would.
start_cluster() {  # $1 = workers; sets SCHED, PIDS
  local dir=$WORK/cluster$1
  rm -rf "$dir"; mkdir -p "$dir"
  PIDS=()
  dask scheduler --host 127.0.0.1 --port 0 --no-dashboard --scheduler-file "$dir/s.json" \
    > "$dir/scheduler.log" 2>&1 &
  PIDS+=($!)
  until [ -s "$dir/s.json" ]; do sleep 0.2; done
  sleep 0.3
  SCHED=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['address'])" "$dir/s.json")
  for i in $(seq 1 "$1"); do
    PATH=$BIN:$PATH /usr/bin/time -v -o "$dir/worker$i.time" dask worker --scheduler-file \
      "$dir/s.json" --nworkers 1 --nthreads 1 --no-nanny --no-dashboard \
      --local-directory "$dir" > "$dir/worker$i.log" 2>&1 &
    PIDS+=($!)
  done
  until [ "$(grep -l 'Registered to' "$dir"/worker*.log 2>/dev/null | wc -l)" -ge "$1" ]; do sleep 0.2; done
}
stop_cluster() {
  for p in "${PIDS[@]:1}"; do pkill -TERM -P "$p" 2>/dev/null || true; done
  kill -TERM "${PIDS[0]}" 2>/dev/null || true
  wait 2>/dev/null || true
}

want=$WORK/want.profdata
/usr/bin/time -v -o "$WORK/merge.time" "$BIN/profkit" merge -j 2 -f "$list" -o "$want"

declare -A WALL
start_cluster 1; S1=$SCHED; P1=("${PIDS[@]}")
hyperfine --runs "$RUNS" --export-json "$WORK/h1.json" \
  -n "profkit-fleet, 1 worker" "$BIN/profkit-fleet merge --scheduler $S1 --inputs $list -o $WORK/f1.profdata --shard-size $SHARD --quiet" >&2
cmp "$want" "$WORK/f1.profdata"
PIDS=("${P1[@]}"); stop_cluster
start_cluster 2; S2=$SCHED; P2=("${PIDS[@]}")
hyperfine --runs "$RUNS" --export-json "$WORK/h2.json" \
  -n "profkit merge -j 2" "$BIN/profkit merge -j 2 -f $list -o $WORK/m.profdata" \
  -n "profkit-fleet, 2 workers" "$BIN/profkit-fleet merge --scheduler $S2 --inputs $list -o $WORK/f2.profdata --shard-size $SHARD --quiet" >&2
cmp "$want" "$WORK/f2.profdata"
PIDS=("${P2[@]}"); stop_cluster

python3 - "$WORK" "$INPUTS" "$bytes" <<'PY'
import json, os, re, sys
work, n, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def median(path, name):
    for r in json.load(open(path))["results"]:
        if r["command"] == name:
            return r["median"]
def rss(path):
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", open(path).read())
    return int(m.group(1)) / 1024
t_merge = median(f"{work}/h2.json", "profkit merge -j 2")
t1 = median(f"{work}/h1.json", "profkit-fleet, 1 worker")
t2 = median(f"{work}/h2.json", "profkit-fleet, 2 workers")
w1 = rss(f"{work}/cluster1/worker1.time")
w2 = max(rss(f"{work}/cluster2/worker{i}.time") for i in (1, 2))
print(f"{n} raw profiles, {size / 1e6:.0f} MB; outputs byte-identical to profkit merge\n")
print("| merge | wall (median) | inputs/s | MB/s | peak RSS |")
print("|---|---:|---:|---:|---:|")
for name, t, mem in (("profkit merge -j 2", t_merge, rss(f"{work}/merge.time")),
                     ("profkit-fleet, 1 worker", t1, w1), ("profkit-fleet, 2 workers", t2, w2)):
    print(f"| {name} | {t:.2f} s | {n / t:.0f} | {size / 1e6 / t:.0f} | {mem:.0f} MiB"
          f"{' per worker' if 'fleet' in name else ''} |")
PY
