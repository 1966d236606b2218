#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*op_t)(int);
__attribute__((noinline)) int add1(int x) { return x + 1; }
__attribute__((noinline)) int dbl(int x) { return x * 2; }
__attribute__((noinline)) int sq(int x) { return x * x; }
static __attribute__((noinline)) int neg(int x) { return -x; }

op_t table[4] = {add1, dbl, sq, neg};

__attribute__((noinline)) int dispatch(op_t f, int v) { return f(v); }

char src[4096], dst[4096];

__attribute__((noinline)) void copy(size_t n) { memcpy(dst, src, n); }

int main(int argc, char **argv) {
  int acc = 0;
  int n = argc > 1 ? atoi(argv[1]) : 100;
  for (int i = 0; i < n; i++) {
    int k = (i % 10 < 6) ? 0 : (i % 10 < 9 ? 1 : (i % 2 ? 2 : 3));
    acc += dispatch(table[k], i);
  }
  for (int i = 0; i < n; i++) {
    size_t sz = (i % 4 == 0) ? 8 : (i % 4 == 1 ? 32 : (i % 4 == 2 ? 100 : 1000));
    copy(sz);
  }
  printf("%d %d\n", acc, dst[0]);
  return 0;
}
