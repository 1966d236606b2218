#!/bin/sh
# Rebuilds the raw/indexed goldens used by raw_reader_test, merge_test and
# indexed_writer_test with the real LLVM 14 and 22 toolchains, and records the tool
# versions and commands in README.md. Run from anywhere; needs clang-14/22 and
# llvm-profdata-14/22.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
progs="$here/../../../../tests/programs/irpgo"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$progs/simple.c" "$progs/vp.c" "$tmp/"
cd "$tmp"
clang-22 -O0 -fprofile-generate simple.c -o simple22
clang-14 -O0 -fprofile-generate simple.c -o simple14
clang-22 -O2 -fprofile-generate vp.c -o vp22
clang-14 -O2 -fprofile-generate vp.c -o vp14
LLVM_PROFILE_FILE=simple22.profraw ./simple22 > /dev/null
LLVM_PROFILE_FILE=simple14.profraw ./simple14 > /dev/null
LLVM_PROFILE_FILE=vp22.profraw ./vp22 > /dev/null
LLVM_PROFILE_FILE=vp22b.profraw ./vp22 37 > /dev/null
LLVM_PROFILE_FILE=vp14.profraw ./vp14 > /dev/null
llvm-profdata-22 merge --num-threads=1 simple22.profraw -o simple22.profdata
llvm-profdata-22 merge --num-threads=1 --write-prev-version simple22.profraw -o simple22_v11.profdata
llvm-profdata-14 merge simple14.profraw -o simple14.profdata
llvm-profdata-22 merge --num-threads=1 vp22.profraw vp22b.profraw -o vp22_two.profdata
llvm-profdata-22 merge --num-threads=1 --weighted-input=3,vp22.profraw vp22b.profraw -o vp22_w3.profdata
llvm-profdata-14 merge vp14.profraw -o vp14.profdata
cp simple22.profraw simple14.profraw vp22.profraw vp22b.profraw vp14.profraw \
   simple22.profdata simple22_v11.profdata simple14.profdata vp22_two.profdata \
   vp22_w3.profdata vp14.profdata "$here/"
{
  echo "# Goldens for the raw reader, merge and indexed writer tests"
  echo
  echo "Made by regenerate.sh (do not edit by hand). Tools:"
  echo
  echo '```'
  clang-22 --version | head -1
  clang-14 --version | head -1
  llvm-profdata-22 --version 2>&1 | grep -i version | head -1
  llvm-profdata-14 --version 2>&1 | grep -i version | head -1
  echo '```'
  echo
  echo "Programs: tests/programs/irpgo/simple.c (-O0, no arguments) and vp.c (-O2; runs with no"
  echo "argument and with 37). Commands:"
  echo
  echo '```'
  sed -n '/^clang-22 -O0/,/^llvm-profdata-14 merge vp14/p' "$here/regenerate.sh"
  echo '```'
} > "$here/README.md"
