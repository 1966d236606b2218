#!/bin/sh
# Regenerates the checked-in seeds of instrprof_indexed_reader_fuzz and text_reader_fuzz
# with the real LLVM tools (clang-14/22, llvm-profdata-14/22). Programs are compiled from a
# scratch copy under their bare file names, so no path of this machine ends up in a name.
# Usage: sh fuzz/corpus/instrprof_indexed_reader_fuzz/regenerate.sh   (from the checkout root)
set -eu
root=$(pwd)
idx="$root/fuzz/corpus/instrprof_indexed_reader_fuzz"
txt="$root/fuzz/corpus/text_reader_fuzz"
work=$(mktemp -d)
cp tests/programs/irpgo/simple.c tests/programs/irpgo/vp.c "$work/"
cd "$work"
for r in 14 22; do
  clang-$r -O0 -fprofile-generate simple.c -o simple$r
  LLVM_PROFILE_FILE=simple$r.profraw ./simple$r > /dev/null
  clang-$r -O2 -fprofile-generate vp.c -o vp$r
  LLVM_PROFILE_FILE=vp$r.profraw ./vp$r > /dev/null
done
llvm-profdata-14 merge simple14.profraw -o "$idx/simple14.v7.profdata"
llvm-profdata-14 merge vp14.profraw -o "$idx/vp14.v7.profdata"
llvm-profdata-22 merge simple22.profraw -o "$idx/simple22.v13.profdata"
llvm-profdata-22 merge vp22.profraw -o "$idx/vp22.v13.profdata"
llvm-profdata-22 merge --write-prev-version vp22.profraw -o "$idx/vp22.v11.profdata"
llvm-profdata-14 merge --text vp14.profraw -o "$txt/vp14.txt"
llvm-profdata-22 merge --text vp22.profraw -o "$txt/vp22.txt"
llvm-profdata-22 merge --text simple22.profraw -o "$txt/simple22.txt"
rm -rf "$work"
