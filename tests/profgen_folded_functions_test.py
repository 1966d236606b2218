#!/usr/bin/env python3
"""`profkit profgen` on a binary whose DWARF has several functions at one start address.

Identical code folding by gold (--icf=all) leaves three subprogram DIEs at one address:
llvm-profgen warns "Found 1 start addresses with multiple symbols" (it counts addresses, not
the extra symbols). profkit must print the same warnings and write the same profile.

usage: profgen_folded_functions_test.py PROFKIT
"""
import os
import subprocess
import sys
import tempfile

SOURCE = r'''
__attribute__((noinline)) int f1(int x) { return x * 3 + 1; }
__attribute__((noinline)) int f2(int x) { return x * 3 + 1; }
__attribute__((noinline)) int f3(int x) { return x * 3 + 1; }
int main(int argc, char** argv) {
  int s = 0;
  for (int i = 0; i < argc * 1000; i++) s += f1(i) + f2(i) + f3(i);
  return s & 1;
}
'''
WARNING = 'Found 1 start addresses with multiple symbols'


def symbol(binary, name):
    out = subprocess.run(['llvm-nm-22', binary], check=True, capture_output=True, text=True)
    for line in out.stdout.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] == name:
            return int(fields[0], 16)
    sys.exit('FAIL: no symbol %s in %s' % (name, binary))


def main():
    profkit = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 'folded.c')
        binary = os.path.join(tmp, 'folded')
        with open(src, 'w') as f:
            f.write(SOURCE)
        subprocess.run(['clang-22', '-O2', '-g', '-ffunction-sections', '-fuse-ld=gold',
                        '-Wl,--icf=all', src, '-o', binary], check=True)
        f1, main_at = symbol(binary, 'f1'), symbol(binary, 'main')
        if f1 != symbol(binary, 'f2') or f1 != symbol(binary, 'f3'):
            sys.exit('FAIL: gold did not fold f1, f2 and f3')
        # A non-PIE binary at its link-time address; one call and its return.
        load = main_at & ~0xfff
        script = os.path.join(tmp, 'folded.lbr')
        with open(script, 'w') as f:
            f.write('PERF_RECORD_MMAP2 1/1: [%#x(0x1000) @ 0 08:01 393 0]: r-xp %s\n'
                    % (load, binary))
            for _ in range(3):
                f.write(' %#x/%#x/P/-/-/0  %#x/%#x/P/-/-/0\n'
                        % (f1 + 5, main_at + 0x20, main_at + 0x10, f1))
        results = []
        for tool in (['llvm-profgen-22'], [profkit, 'profgen']):
            out = os.path.join(tmp, 'out-%d.txt' % len(results))
            p = subprocess.run(tool + ['--binary', binary, '--perfscript', script, '-o', out,
                                       '--format=text'], capture_output=True, text=True)
            with open(out) as f:
                results.append((p.returncode, p.stderr, f.read()))
        ref, got = results
        if WARNING not in ref[1]:
            sys.exit('FAIL: llvm-profgen-22 no longer warns %r:\n%s' % (WARNING, ref[1]))
        if got != ref:
            sys.exit('FAIL: profkit differs from llvm-profgen-22\n--- llvm-profgen-22 (rc %d)\n'
                     '%s%s\n--- profkit (rc %d)\n%s%s' % (ref[0], ref[1], ref[2], got[0],
                                                         got[1], got[2]))
    print('ok: folded functions warned and profiled as llvm-profgen-22 does')


if __name__ == '__main__':
    main()
