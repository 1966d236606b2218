/* One allocation wrapper (leaf) under N callers, called in a scrambled order: the shape of
 * an xmalloc in a C program (docs/runtime.md, "Many callers of one wrapper"). 2 M
 * malloc/free pairs; N (argv[1], default 1024, at most 4096) callers f<base-4 digits>,
 * each three frames below main. Built and compared as the run.sh workloads are:
 *   clang-22 -O2 -g -fno-omit-frame-pointer [-fmemory-profile] wrapper_sites.c ...
 * then plain / compiler-rt / profkit runs with N = 16, 64, 128, 1024. */
#include <stdlib.h>

void *volatile sink;
__attribute__((noinline)) static void *leaf(size_t n) { void *p = malloc(n); sink = p; return p; }
#define F(n) \
  __attribute__((noinline, disable_tail_calls)) static void f##n(void) { void *p = leaf(16 + (n % 7) * 8); free(p); }
#define F4(n) F(n##0) F(n##1) F(n##2) F(n##3)
#define F16(n) F4(n##0) F4(n##1) F4(n##2) F4(n##3)
#define F64(n) F16(n##0) F16(n##1) F16(n##2) F16(n##3)
#define F256(n) F64(n##0) F64(n##1) F64(n##2) F64(n##3)
#define F1024(n) F256(n##0) F256(n##1) F256(n##2) F256(n##3)
F1024(0) F1024(1) F1024(2) F1024(3)
#define T(n) f##n,
#define T4(n) T(n##0) T(n##1) T(n##2) T(n##3)
#define T16(n) T4(n##0) T4(n##1) T4(n##2) T4(n##3)
#define T64(n) T16(n##0) T16(n##1) T16(n##2) T16(n##3)
#define T256(n) T64(n##0) T64(n##1) T64(n##2) T64(n##3)
#define T1024(n) T256(n##0) T256(n##1) T256(n##2) T256(n##3)
static void (*const sites[])(void) = {T1024(0) T1024(1) T1024(2) T1024(3)};
__attribute__((noinline)) static void level3(unsigned k) { sites[k](); }
__attribute__((noinline)) static void level2(unsigned k) { level3(k); }
__attribute__((noinline)) static void level1(unsigned k) { level2(k); }
int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1024;
  unsigned total = 2000000;
  for (unsigned i = 0; i < total; i++) level1((i * 2654435761u >> 8) % n);
  return 0;
}
