#!/usr/bin/env bash
# Writes the man pages of profkit and of each of its commands into OUT_DIR, generated with
# help2man from the same option tables `--help` prints: profkit.1 and profkit-COMMAND.1.
# Usage: make-man.sh PROFKIT OUT_DIR
set -euo pipefail
profkit=$(realpath "$1")
out=$2
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
common=(--no-info --no-discard-stderr --section=1 --source="profkit 0.1.0"
        --manual="profkit manual")
help2man "${common[@]}" --version-option=--version --name="heap profiling and PGO profile toolchain, compatible with LLVM's formats" \
  --output="$out/profkit.1" "$profkit"
# The commands and their one-line descriptions, from the top-level help.
"$profkit" --help | awk '/^Subcommands:/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print}' |
while read -r name description; do
  [ "$name" = help ] && continue
  # help2man names a page after the program it runs, so each command gets a wrapper.
  printf '#!/bin/sh\nexec %q %s "$@"\n' "$profkit" "$name" > "$tmp/profkit-$name"
  chmod +x "$tmp/profkit-$name"
  # Only `profkit --version` exists: a command's --version is an error ("... is required"),
  # which help2man would take the page's title and NAME from. The version string is given
  # instead, named after the page, so the title is PROFKIT-NAME and NAME "profkit-NAME - ...".
  help2man "${common[@]}" --version-string="profkit-$name 0.1.0" --name="$description" \
    --output="$out/profkit-$name.1" "$tmp/profkit-$name"
done
