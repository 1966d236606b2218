#!/usr/bin/env bash
# Runs every whole-process benchmark script present (bench/*/run.sh) one after the other and
# prints their markdown tables. `make bench` calls this after `make build`.
# Environment is passed through (see each script's header: PROFKIT, WORK, SIZES, RUNS ...).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shopt -s nullglob
scripts=("$here"/*/run.sh)
if [ ${#scripts[@]} -eq 0 ]; then
  echo "bench: no bench/*/run.sh scripts" >&2
  exit 1
fi
for script in "${scripts[@]}"; do
  name=$(basename "$(dirname "$script")")
  echo "## $name"
  echo
  bash "$script"
  echo
done
