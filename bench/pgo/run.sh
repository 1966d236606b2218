#!/usr/bin/env bash
# PGO benchmark: does a profile made by profkit make real programs faster? For Lua 5.5 (a
# table/string/closure script, bench/pgo/workload.lua) and bzip2 (compress and test a
# generated 4 MB text file), vendored under bench/third_party/, it builds
#   plain          -O2
#   irpgo          -O2 -fprofile-use (profkit merge of -fprofile-generate runs of the workload)
#   irpgo-train    the same, trained on the small training input the tracer can afford
#   lbr-line       -O2 -fdebug-info-for-profiling -fprofile-sample-use: profkit profgen of an
#                  exact LBR script (profkit-branch-trace --lbr) of the training input
#   lbr-csspgo     -O2 -fpseudo-probe-for-profiling -fprofile-sample-use: profgen of a hybrid
#                  script (--hybrid) of the training input, context-sensitive, probe-based
#   nolbr-line     as lbr-line, from `perf record -e cpu-clock:u -g` of the full workload
#                  (profgen's no-LBR mode, context-free: --ignore-stack-samples, so that its
#                  line accuracy can be measured)
#   nolbr-probe    as lbr-csspgo's flags, from the same kind of perf recording (probe-based,
#                  context-free: --ignore-stack-samples)
#   nolbr-csspgo   the same recording, context-sensitive (profgen's default with call stacks)
#   nolbr-autofdo  as nolbr-line, the profile made by AutoFDO's create_llvm_prof --use_lbr=false
# Every variant also has -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer (the perf
# call stacks need frame pointers) and -w (third-party code), so all differ only in the
# profile and its flags.
# It times all of them on the full workload (hyperfine, ROUNDS rounds of one run of each
# variant, the order rotated every round: hyperfine runs one command's runs back to back, so
# a burst of load from other jobs would hit one variant; one run per round spreads it), and
# measures each line-based sample profile's accuracy against exact line counts of the same
# input (a -fprofile-instr-generate -fcoverage-mapping build; accuracy.py).
# Prints a markdown table. See docs/profgen.md "Does the profile make programs faster?".
#
# Environment: PROFKIT, TRACER (default build/bin/...), WORK (default build/bench-work/pgo),
# PROGRAMS (default "lua bzip2"), ROUNDS (default 10), PERIOD (perf's
# cpu-clock period in ns, default 100000), TRACE_PERIOD (tracer: instructions per sample,
# default 500). Timings are never a test: this only reports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PROFKIT=${PROFKIT:-$root/build/bin/profkit}
TRACER=${TRACER:-$root/build/bin/profkit-branch-trace}
WORK=${WORK:-$root/build/bench-work/pgo}
PROGRAMS=${PROGRAMS:-lua bzip2}
ROUNDS=${ROUNDS:-10}
PERIOD=${PERIOD:-100000}
TRACE_PERIOD=${TRACE_PERIOD:-500}
CC=${CC:-clang-22}
for tool in "$CC" llvm-profdata-22 llvm-cov-22 llvm-dwarfdump-22 perf hyperfine python3 \
  "$PROFKIT" "$TRACER"; do
  command -v "$tool" >/dev/null || { echo "bench/pgo: missing tool: $tool" >&2; exit 1; }
done
log() { echo "bench/pgo: $*" >&2; }
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
third=$root/bench/third_party
base=(-O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -w)

# Per program: sources, defines, libraries, and the commands of the full workload and of the
# training input, one program run per line, @BIN@ for the binary and @W@ for its work dir.
setup_program() {
  case $1 in
    lua)
      srcs=("$third"/lua/*.c); defs=(-DLUA_USE_POSIX); libs=(-lm)
      full="@BIN@ $here/workload.lua 300"
      train="@BIN@ $here/workload.lua 1 0.1"
      ;;
    bzip2)
      srcs=("$third"/bzip2/*.c); defs=(-DBZ_UNIX=1 -D_FILE_OFFSET_BITS=64); libs=()
      [ -s "$WORK/bzip2.full.txt" ] || python3 "$here/gen_text.py" 4000000 >"$WORK/bzip2.full.txt"
      [ -s "$WORK/bzip2.train.txt" ] || python3 "$here/gen_text.py" 20000 >"$WORK/bzip2.train.txt"
      full="@BIN@ -9 -k -f @W@/full.txt
@BIN@ -t @W@/full.txt.bz2"
      train="@BIN@ -9 -k -f @W@/train.txt
@BIN@ -t @W@/train.txt.bz2"
      ;;
    *) echo "bench/pgo: unknown program $1" >&2; exit 1 ;;
  esac
}

# build NAME FLAGS...: compiles the program's sources (two at a time) and links $dir/NAME.
build() {
  local name=$1; shift
  local out=$dir/$name
  if [ -x "$out" ]; then return; fi
  log "$prog: building $name"
  rm -rf "$out.o" && mkdir -p "$out.o"
  printf '%s\n' "${srcs[@]}" | xargs -P 2 -I{} sh -c \
    'f={}; exec "$0" "$@" -c "$f" -o "'"$out.o"'/$(basename "$f" .c).o"' \
    "$CC" "${base[@]}" "${defs[@]}" "$@"
  "$CC" "${base[@]}" "$@" "$out.o"/*.o "${libs[@]}" -o "$out"
}

# commands SET BIN WORKDIR: the workload's command lines for that binary.
commands() {
  local set=$1 bin=$2 w=$3
  local text=$full
  [ "$set" = train ] && text=$train
  text=${text//@BIN@/$bin}
  echo "${text//@W@/$w}"
}

# workdir SET: a fresh directory holding the inputs of that set.
workdir() {
  local w=$dir/run.$1
  mkdir -p "$w"
  if [ "$prog" = bzip2 ]; then
    cp "$WORK/bzip2.$1.txt" "$w/$1.txt"
    # -t reads the .bz2 the previous line wrote; make it exist before the first timed run
    rm -f "$w/$1.txt.bz2"
  fi
  echo "$w"
}

# run_set SET BIN: runs the workload once.
run_set() {
  local w; w=$(workdir "$1")
  while IFS= read -r line; do
    # shellcheck disable=SC2086
    $line >/dev/null
  done < <(commands "$1" "$2" "$w")
}

table=$WORK/table.md
{
  echo "| program | variant | CPU s (user+sys, median) | CPU s (min) | wall s (median) | speed-up vs plain | share of IR PGO's gain | line accuracy |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$table"
echo "load before: $(uptime)" >"$WORK/load.txt"

for prog in $PROGRAMS; do
  dir=$WORK/$prog
  mkdir -p "$dir"
  setup_program "$prog"

  build plain
  # IR PGO, full workload and training input
  for set in full train; do
    build "gen.$set" "-fprofile-generate=$dir/raw.$set"
    if [ ! -s "$dir/irpgo.$set.profdata" ]; then
      rm -rf "$dir/raw.$set"
      run_set "$set" "$dir/gen.$set"
      "$PROFKIT" merge -o "$dir/irpgo.$set.profdata" "$dir/raw.$set"/*.profraw
    fi
  done
  build irpgo "-fprofile-use=$dir/irpgo.full.profdata"
  build irpgo-train "-fprofile-use=$dir/irpgo.train.profdata"

  # exact line counts of both inputs, for the accuracy column
  build cov -fprofile-instr-generate -fcoverage-mapping
  for set in full train; do
    if [ ! -s "$dir/cov.$set.lcov" ]; then
      rm -rf "$dir/covraw.$set" && mkdir -p "$dir/covraw.$set"
      LLVM_PROFILE_FILE="$dir/covraw.$set/%p.profraw" run_set "$set" "$dir/cov"
      llvm-profdata-22 merge -o "$dir/cov.$set.profdata" "$dir/covraw.$set"/*.profraw
      llvm-cov-22 export -format=lcov -instr-profile "$dir/cov.$set.profdata" "$dir/cov" \
        >"$dir/cov.$set.lcov"
    fi
  done

  # the profiled binaries
  build prof-line -fdebug-info-for-profiling
  build prof-probe -fpseudo-probe-for-profiling

  # exact LBR samples of the training input (the tracer runs ~100 000 instructions/s)
  for kind in line probe; do
    mode=--lbr
    [ $kind = probe ] && mode=--hybrid
    script=$dir/lbr.$kind.script
    if [ ! -s "$script" ]; then
      log "$prog: tracing the training input ($kind binary, $mode)"
      w=$(workdir train)
      : >"$script.tmp"
      while IFS= read -r line; do
        # shellcheck disable=SC2086
        "$TRACER" $mode "$dir/part" --period "$TRACE_PERIOD" -- $line >/dev/null
        cat "$dir/part" >>"$script.tmp"
      done < <(commands train "$dir/prof-$kind" "$w")
      rm -f "$dir/part"
      mv "$script.tmp" "$script"
    fi
    "$PROFKIT" profgen --binary "$dir/prof-$kind" --perfscript "$script" \
      -o "$dir/lbr-$kind.prof" 2>>"$dir/profgen.log"
  done

  # perf cpu-clock samples with call stacks of the full workload
  for kind in line probe; do
    data=$dir/perf.$kind.data
    if [ ! -s "$data" ]; then
      log "$prog: perf record of the full workload ($kind binary)"
      w=$(workdir full)
      perf record -q -e cpu-clock:u -c "$PERIOD" -g -o "$data" -- \
        sh -c "$(commands full "$dir/prof-$kind" "$w" | sed 's/$/ >\/dev\/null/' | paste -sd';')" \
        2>>"$dir/perf.log"
    fi
    "$PROFKIT" profgen --binary "$dir/prof-$kind" --perfdata "$data" --ignore-stack-samples \
      -o "$dir/nolbr-$kind.prof" 2>>"$dir/profgen.log"
  done
  "$PROFKIT" profgen --binary "$dir/prof-probe" --perfdata "$dir/perf.probe.data" \
    -o "$dir/nolbr-csspgo.prof" 2>>"$dir/profgen.log"
  autofdo=0
  if command -v create_llvm_prof >/dev/null &&
    create_llvm_prof --binary="$dir/prof-line" --profile="$dir/perf.line.data" --use_lbr=false \
      --format=text --out="$dir/nolbr-autofdo.prof" >"$dir/autofdo.log" 2>&1 &&
    grep -q '^[^ ]' "$dir/nolbr-autofdo.prof"; then
    autofdo=1
  else
    log "$prog: create_llvm_prof made no profile (see $dir/autofdo.log)"
  fi

  build lbr-line -fdebug-info-for-profiling "-fprofile-sample-use=$dir/lbr-line.prof"
  build lbr-csspgo -fpseudo-probe-for-profiling "-fprofile-sample-use=$dir/lbr-probe.prof"
  build nolbr-line -fdebug-info-for-profiling "-fprofile-sample-use=$dir/nolbr-line.prof"
  build nolbr-probe -fpseudo-probe-for-profiling "-fprofile-sample-use=$dir/nolbr-probe.prof"
  build nolbr-csspgo -fpseudo-probe-for-profiling "-fprofile-sample-use=$dir/nolbr-csspgo.prof"
  variants=(plain irpgo irpgo-train lbr-line lbr-csspgo nolbr-line nolbr-probe nolbr-csspgo)
  if [ $autofdo = 1 ]; then
    build nolbr-autofdo -fdebug-info-for-profiling "-fprofile-sample-use=$dir/nolbr-autofdo.prof"
    variants+=(nolbr-autofdo)
  fi

  # accuracy of the line-based profiles against exact counts of the input they were made from
  declare -A acc=()
  for v in lbr-line nolbr-line nolbr-autofdo; do
    prof=$dir/$v.prof
    [ -s "$prof" ] || continue
    set=full
    [ "$v" = lbr-line ] && set=train
    llvm-profdata-22 merge --sample --text "$prof" -o "$dir/$v.txt"
    acc[$v]=$(python3 "$here/accuracy.py" --binary "$dir/prof-line" --lcov "$dir/cov.$set.lcov" \
      --profile "$dir/$v.txt" 2>>"$dir/accuracy.log" || echo "?")
  done

  # timing: one run of every variant per round, in an order rotated every round
  w=$(workdir full)
  run_set full "$dir/plain" # leaves full.txt.bz2 for bzip2's -t
  rm -f "$dir"/time.*.json
  n=${#variants[@]}
  for r in $(seq "$ROUNDS"); do
    log "$prog: timing, round $r of $ROUNDS ($(uptime | sed 's/.*load/load/'))"
    args=()
    for i in $(seq 0 $((n - 1))); do
      v=${variants[$(((i + r) % n))]}
      args+=(-n "$v" "$(commands full "$dir/$v" "$w" | sed 's/$/ >\/dev\/null/' | paste -sd';')")
    done
    hyperfine --warmup "$((r == 1))" --runs 1 --export-json "$dir/time.$r.json" "${args[@]}" \
      >/dev/null 2>>"$dir/hyperfine.log"
  done
  python3 "$here/table.py" --program "$prog" --variants "${variants[@]}" \
    --accuracy "lbr-line=${acc[lbr-line]:-}" "nolbr-line=${acc[nolbr-line]:-}" \
    "nolbr-autofdo=${acc[nolbr-autofdo]:-}" -- "$dir"/time.*.json >>"$table"
  unset acc
done
echo "load after: $(uptime)" >>"$WORK/load.txt"
cat "$table"
echo
cat "$WORK/load.txt"
