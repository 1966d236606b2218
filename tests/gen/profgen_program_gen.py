#!/usr/bin/env python3
"""Random C programs for profgen's differential test (tests/profgen_differential_test.py).

A program is a set of functions calling each other without cycles (except for bounded
self-recursion), with what sample profiles must get right: loops whose trip counts come
from the input (so counts differ per line), static helpers the compiler inlines (inline
frames, discriminators), static functions (unique internal names with
-funique-internal-linkage-names), tail calls, indirect calls through a table, switches,
and calls into libc. The work done is bounded so that a run is 50 000-400 000
instructions: tracing stays around a second.

generate_library(seed) splits the same program for a shared library: the library gets every
function (main renamed to prog_main, lines unchanged) and a small main calls it.

usage: profgen_program_gen.py SEED > prog.c
"""
import random
import sys


def generate(seed):
    rng = random.Random(seed)
    n = rng.randint(4, 10)
    names = ['f%d' % i for i in range(n)]
    static = {name: rng.random() < 0.4 for name in names}
    inline = {name: static[name] and rng.random() < 0.5 for name in names}
    out = ['/* profgen_program_gen.py seed %d */' % seed,
           '#include <stdlib.h>', '#include <string.h>', '',
           'volatile int sink;', 'char buf[256];', '']
    for name in names:
        attr = 'static inline' if inline[name] else (
            'static __attribute__((noinline))' if static[name] else '__attribute__((noinline))')
        out.append('%s int %s(int x);' % (attr, name))
    out.append('typedef int (*fn_t)(int);')
    # Indirect calls go from the first half of the functions into the second: no cycles.
    half = n // 2
    table = [rng.choice(names[half:]) for _ in range(rng.choice([2, 4]))]
    out.append('fn_t table[%d] = {%s};' % (len(table), ', '.join(table)))
    out.append('')
    for i, name in enumerate(names):
        callees = names[i + 1:]
        attr = 'static inline' if inline[name] else (
            'static __attribute__((noinline))' if static[name] else '__attribute__((noinline))')
        body = ['%s int %s(int x) {' % (attr, name), '  int s = x & 7;']
        budget = 4 if i == 0 else rng.randint(1, 4)
        for _ in range(budget):
            kind = rng.choice(['loop', 'loop', 'if', 'call', 'switch', 'indirect', 'libc',
                               'rec'])
            if kind == 'loop':
                calls = callees and rng.random() < 0.3
                bound = rng.choice(['(x & 3)', '2'] if calls else
                                   ['(x & 7)', '(x % 5)', '3', '(x & 15)'])
                stmt = 's += %s;' % (('%s(s + i)' % rng.choice(callees)) if calls
                                     else '(i ^ sink)')
                body.append('  for (int i = 0; i < %s; i++) { %s if (s & 1) sink += i; }'
                            % (bound, stmt))
            elif kind == 'if' and callees:
                a, b = rng.choice(callees), rng.choice(callees)
                body.append('  if ((x %% %d) == 0) s += %s(x + 1); else s -= %s(x >> 1);'
                            % (rng.randint(2, 5), a, b))
            elif kind == 'call' and callees:
                body.append('  s += %s(x + %d);' % (rng.choice(callees), rng.randint(1, 9)))
            elif kind == 'switch':
                cases = ' '.join('case %d: s += %d; break;' % (c, rng.randint(1, 99))
                                 for c in range(rng.randint(2, 5)))
                body.append('  switch (x & 3) { %s default: s ^= 5; }' % cases)
            elif kind == 'indirect' and i < half:
                body.append('  if (x & 1) s += table[x & %d](x >> 2);' % (len(table) - 1))
            elif kind == 'libc':
                body.append('  memset(buf, x, (size_t)(x & 63)); s += buf[x & 31];')
            elif kind == 'rec' and not inline[name]:
                body.append('  if ((x & 3) == 1 && x > 8) s += %s(x >> 3);' % name)
        if callees and rng.random() < 0.3:
            body.append('  if (s & 4) return %s(s + x);  /* a tail call */' % rng.choice(callees))
        body.append('  return s;')
        body.append('}')
        out.extend(body)
        out.append('')
    iterations = rng.randint(150, 700)
    out += ['int main(int argc, char **argv) {',
            '  int n = argc > 1 ? atoi(argv[1]) : %d;' % iterations,
            '  int acc = 0;',
            '  for (int i = 0; i < n; i++) acc += %s(i);' % names[0],
            '  sink = acc;',
            '  return 0;',
            '}']
    return '\n'.join(out) + '\n'


def generate_library(seed, dlopen=False):
    """(library source, main source): the program of `generate(seed)` with its code in a shared
    library, so that the profiled code is not in the executable. With `dlopen`, main loads
    ./libprog.so itself after a while and unloads it before more work (its mmap event comes
    between samples)."""
    lib = generate(seed).replace('int main(int argc, char **argv) {',
                                 'int prog_main(int argc, char **argv) {')
    # main does some work of its own, so that the executable has samples too.
    spin = '  for (int i = 0; i < 3000; i++) if (i & 1) spin += i;\n'
    if not dlopen:
        return lib, ('int prog_main(int argc, char **argv);\n'
                     'volatile int spin;\n'
                     'int main(int argc, char **argv) {\n' + spin +
                     '  return prog_main(argc, argv);\n'
                     '}\n')
    return lib, ('#include <dlfcn.h>\n'
                 'volatile int spin;\n'
                 'int main(int argc, char **argv) {\n' + spin +
                 '  void *lib = dlopen("./libprog.so", RTLD_NOW);\n'
                 '  if (!lib) return 1;\n'
                 '  int (*entry)(int, char **) = (int (*)(int, char **))dlsym(lib, "prog_main");\n'
                 '  int r = entry ? entry(argc, argv) : 1;\n'
                 '  dlclose(lib);\n' + spin +
                 '  return r;\n'
                 '}\n')


if __name__ == '__main__':
    sys.stdout.write(generate(int(sys.argv[1])))
