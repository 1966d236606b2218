/* A training program for the fleet tests: indirect calls and memcpy sizes drawn from a
 * seed, so that runs differ and value profiles have ties (several targets with equal
 * counts). With -fmemory-profile it also allocates from a few contexts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BUILD_TAG
#define BUILD_TAG 0
#endif

typedef int (*op_t)(int);
__attribute__((noinline)) int op_add(int x) { return x + 1 + BUILD_TAG; }
__attribute__((noinline)) int op_dbl(int x) { return x * 2; }
__attribute__((noinline)) int op_sq(int x) { return x * x; }
__attribute__((noinline)) int op_neg(int x) { return -x; }
static op_t table[4] = {op_add, op_dbl, op_sq, op_neg};

__attribute__((noinline)) int dispatch(op_t f, int v) { return f(v); }
__attribute__((noinline)) int dispatch2(op_t f, int v) { return f(v) + 1; }

static char src[2048], dst[2048];
__attribute__((noinline)) void copy(size_t n) { memcpy(dst, src, n); }

__attribute__((noinline)) char* make(size_t n) { char* p = malloc(n); memset(p, 1, n); return p; }
__attribute__((noinline)) void churn(unsigned seed) {
  char* keep[8];
  for (int i = 0; i < 8; i++) keep[i] = make(16 + (seed + i) % 5 * 32);
  for (int i = 0; i < 8; i++) free(keep[i]);
}

static unsigned next(unsigned* s) { *s = *s * 1103515245u + 12345u; return *s >> 16; }

int main(int argc, char** argv) {
  unsigned seed = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
  int acc = 0;
  int n = 4 + (int)(next(&seed) % 6);
  for (int i = 0; i < n; i++) acc += dispatch(table[next(&seed) % 4], i);
  for (int i = 0; i < n; i++) acc += dispatch2(table[(next(&seed) % 2) * 2], i);
  static const size_t sizes[] = {1, 8, 16, 24, 33, 100};
  for (int i = 0; i < n; i++) copy(sizes[next(&seed) % 6]);
  if (next(&seed) % 3 == 0) churn(seed);
  printf("%d %d\n", acc, dst[0]);
  return 0;
}
