#!/usr/bin/env python3
"""Writes a C++ program with N allocation sites behind chains of non-inlined calls, so a
memprof raw profile has N * depth distinct PCs to symbolize. Usage: gen.py N OUT.cpp"""
import sys

n = int(sys.argv[1])
lines = ["#include <cstdlib>", "void *volatile sink;"]
lines += [f"void f{i}(int d);" for i in range(n)]
for i in range(n):
    nxt = (i * 7 + 1) % n
    lines.append(f"__attribute__((noinline, disable_tail_calls)) void f{i}(int d) {{ "
                 f"sink = malloc({16 + i % 64}); free(sink); if (d) f{nxt}(d - 1); }}")
lines.append("typedef void (*fn)(int);")
lines.append("fn table[] = {" + ", ".join(f"f{i}" for i in range(n)) + "};")
lines.append("int main() { for (int r = 0; r < 3; r++) for (int i = 0; i < %d; i++) table[i](3);"
             " return 0; }" % n)
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
