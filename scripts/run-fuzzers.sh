#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR/bin for SECONDS each, seeded from
# fuzz/corpus/<target>/ (checked in) and the seeds the tests wrote to BUILD_DIR/seeds/<target>/.
# Fails if any target finds a crash, leak or sanitizer error.
set -euo pipefail
build_dir=${1:?build dir}
seconds=${2:-60}
shopt -s nullglob
targets=("$build_dir"/bin/*_fuzz)
if [ ${#targets[@]} -eq 0 ]; then
  echo "run-fuzzers: no fuzz targets in $build_dir/bin" >&2
  exit 1
fi
status=0
for target in "${targets[@]}"; do
  name=$(basename "$target")
  work=$(mktemp -d)
  seeds=()
  for d in "fuzz/corpus/$name" "build/seeds/$name"; do
    [ -d "$d" ] && seeds+=("$d")
  done
  echo "== $name: ${seconds}s from ${#seeds[@]} seed dirs"
  if ! "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
       -artifact_prefix="$work/" "$work" "${seeds[@]}" >"$work/log" 2>&1; then
    echo "run-fuzzers: $name failed; its log and reproducer are in $work; last lines:" >&2
    tail -40 "$work/log" >&2
    status=1
  else
    tail -1 "$work/log"
    rm -rf "$work"
  fi
done
exit $status
