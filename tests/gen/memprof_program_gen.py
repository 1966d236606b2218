#!/usr/bin/env python3
"""A random C or C++ program for differential tests of the MemProf raw -> indexed path.

From a seed: a call DAG of functions (some inlined) reaching allocation sites (malloc, calloc, realloc,
and in C++ new / new[]) whose sizes come from a few values, so MIBs tie; shared callees
give one site several contexts; self-recursion of a random depth; loops; blocks freed at
once, later by the caller, in another function, or never (live at exit, kept in a global
list); optional threads; reads and writes of the blocks so that access counts differ
(hot and cold contexts). The argument (`prog A`, A a small integer) changes loop counts,
recursion depths and which paths run, so runs with several arguments give different raw
profiles of the same binary.

usage: memprof_program_gen.py SEED [--cxx] > prog.c|prog.cpp
       memprof_program_gen.py SEED --threads  (print 1 when the program uses threads)
"""
import random
import sys

SIZES = [8, 16, 24, 32, 64, 100, 128, 256, 1000, 4096]


def uses_threads(seed):
    return random.Random(seed * 7 + 3).random() < 0.3


def generate(seed, cxx):
    rng = random.Random(seed)
    threads = uses_threads(seed)
    sizes = rng.sample(SIZES, rng.randint(1, 4))
    nalloc = rng.randint(1, 8)
    nmid = rng.randint(1, 8)
    nroot = rng.randint(1, 4)
    kinds = ['malloc', 'calloc', 'realloc'] + (['new', 'new[]'] if cxx else [])
    # Some functions may or must be inlined (at -O1/-O2): their frames become inline frames,
    # and a context goes to the record of every function up to the first non-inlined one.
    # A separate generator, so the other choices of a seed stay what they were.
    inline_rng = random.Random(seed * 31 + 7)

    def linkage(recursive):
        if recursive:
            return 'NI'
        return inline_rng.choice(['NI', 'NI', 'AI', 'PL'])
    out = ['#include <stdlib.h>', '#include <string.h>']
    if threads:
        out.append('#include <pthread.h>')
    out += ['',
            '#define NI __attribute__((noinline, unused))',
            '#define AI static inline __attribute__((always_inline, unused))',
            '#define PL static __attribute__((unused))',
            'static void *live[4096];',
            'static int nlive;',
            'volatile long sink;',
            # Kept blocks: freed by release() (another function) or never (live at exit).
            # A spin lock: threads keep and release blocks too.
            'static int lock;',
            'static void take(void) { while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {} }',
            'static void give(void) { __atomic_store_n(&lock, 0, __ATOMIC_RELEASE); }',
            'NI static void keep(void *p) {',
            '  take();',
            '  if (nlive < 4096) live[nlive++] = p; else free(p);',
            '  give();',
            '}',
            'NI static void release(int n) {',
            '  take();',
            '  while (nlive > n) { --nlive; free(live[nlive]); }',
            '  give();',
            '}',
            'NI static long touch(char *p, long n, int times) {',
            '  long s = 0;',
            '  for (int t = 0; t < times; ++t)',
            '    for (long i = 0; i < n; i += 8) { p[i] = (char)(i + t); s += p[i]; }',
            '  return s;',
            '}',
            '']
    # Allocation sites: a_k(arg, depth) allocates, touches, and frees or keeps the block.
    # new/new[] blocks are kept in their own list type-free by freeing with the matching
    # operator right here or never (they never reach release()).
    for k in range(nalloc):
        kind = rng.choice(kinds)
        size = rng.choice(sizes)
        hot = rng.choice([0, 1, 1, 4, 20])
        libc = kind in ('malloc', 'calloc', 'realloc')
        fate = rng.choice(['free', 'free', 'keep', 'leak'] if libc else ['free', 'free', 'leak'])
        recursive = rng.random() < 0.25
        body = []
        if recursive:
            body.append('  if (depth > 0) return a%d(arg, depth - 1);' % k)
        if kind == 'malloc':
            body.append('  char *p = (char *)malloc(%d);' % size)
        elif kind == 'calloc':
            body.append('  char *p = (char *)calloc(%d, %d);' % (rng.choice([1, 2, 4]), size))
        elif kind == 'realloc':
            body.append('  char *p = (char *)malloc(%d);' % rng.choice(sizes))
            body.append('  p[0] = 1;')
            body.append('  p = (char *)realloc(p, %d);' % size)
        elif kind == 'new':
            body.append('  char *p = reinterpret_cast<char *>(new long[%d / 8 + 1]());' % size)
        else:
            body.append('  char *p = new char[%d];' % size)
        body.append('  long s = touch(p, %d, %d + (arg %% 3 == %d ? %d : 0));' % (
            size, hot, rng.randint(0, 2), rng.choice([0, 2, 10])))
        if fate == 'free':
            if kind == 'new':
                body.append('  delete[] reinterpret_cast<long *>(p);')
            elif kind == 'new[]':
                body.append('  delete[] p;')
            else:
                body.append('  free(p);')
        elif fate == 'keep':
            body.append('  keep(p);')
        else:
            body.append('  sink += (long)(size_t)p & 1;')
        body.append('  return s;')
        out.append('%s long a%d(int arg, int depth) {' % (linkage(recursive), k))
        out.append('  (void)depth;')
        out += body
        out.append('}')
    # Middle functions: call alloc sites and later middle functions (a DAG), some in loops,
    # some guarded by the argument, some recursive.
    for m in reversed(range(nmid)):
        recursive = rng.random() < 0.3
        out.append('%s long m%d(int arg, int depth) {' % (linkage(recursive), m))
        out.append('  (void)depth;')
        out.append('  long s = 0;')
        if recursive:
            out.append('  if (depth > 0) s += m%d(arg, depth - 1);' % m)
        for _ in range(rng.randint(1, 4)):
            if m + 1 < nmid and rng.random() < 0.5:
                callee = 'm%d' % rng.randint(m + 1, nmid - 1)
            else:
                callee = 'a%d' % rng.randrange(nalloc)
            call = 's += %s(arg, %s);' % (callee, rng.choice(['depth', '0', 'arg % 3', '1']))
            guard = ''
            if rng.random() < 0.3:
                guard = 'if (arg %% %d == %d) ' % (rng.randint(2, 3), rng.randint(0, 1))
            if rng.random() < 0.4:
                out.append('  for (int i = 0; i < %d + arg; ++i) %s%s' % (
                    rng.randint(1, 5), guard, call))
            else:
                out.append('  %s%s' % (guard, call))
        if rng.random() < 0.3:
            out.append('  release(nlive / 2);')
        out.append('  return s;')
        out.append('}')
    for r in range(nroot):
        out.append('NI long r%d(int arg) {' % r)
        out.append('  long s = 0;')
        for _ in range(rng.randint(1, 3)):
            callee = rng.choice(['m%d' % rng.randrange(nmid), 'a%d' % rng.randrange(nalloc)])
            out.append('  for (int i = 0; i < %d; ++i) s += %s(arg, %s);' % (
                rng.randint(1, 6), callee, rng.choice(['arg % 4', 'i % 3', '2'])))
        out.append('  return s;')
        out.append('}')
    if threads:
        out.append('static void *thread_main(void *p) { sink += r%d((int)(long)p); return 0; }'
                   % rng.randrange(nroot))
    out.append('int main(int argc, char **argv) {')
    out.append('  int arg = argc > 1 ? atoi(argv[1]) : 0;')
    out.append('  long s = 0;')
    for r in range(nroot):
        guard = ''
        if r > 0 and rng.random() < 0.3:
            guard = 'if (arg %% 2 == %d) ' % rng.randint(0, 1)
        out.append('  %ss += r%d(arg);' % (guard, r))
    if threads:
        n = rng.randint(1, 3)
        out.append('  pthread_t t[%d];' % n)
        out.append('  for (int i = 0; i < %d; ++i)' % n)
        out.append('    pthread_create(&t[i], 0, thread_main, (void *)(long)(arg + i));')
        out.append('  for (int i = 0; i < %d; ++i) pthread_join(t[i], 0);' % n)
    if rng.random() < 0.5:
        out.append('  release(%d);' % rng.choice([0, 0, 3]))
    out.append('  sink = s;')
    out.append('  return 0;')
    out.append('}')
    return '\n'.join(out) + '\n'


def main():
    seed = int(sys.argv[1])
    if '--threads' in sys.argv[2:]:
        print(1 if uses_threads(seed) else 0)
        return
    sys.stdout.write(generate(seed, '--cxx' in sys.argv[2:]))


if __name__ == '__main__':
    main()
