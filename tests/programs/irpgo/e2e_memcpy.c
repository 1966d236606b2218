/* Memory intrinsics with sizes that depend on the input (memop value profiles), plus an
   indirect call through a table (indirect-call value profiles). Built at -O2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char src[8192], dst[8192];

__attribute__((noinline)) void copy_n(size_t n) { memcpy(dst, src, n); }
__attribute__((noinline)) void fill_n(size_t n, int c) { memset(dst, c, n); }
__attribute__((noinline)) void move_n(size_t n) { memmove(dst + 1, dst, n); }

typedef void (*sized_op)(size_t);
static __attribute__((noinline)) void op_copy(size_t n) { copy_n(n); }
static __attribute__((noinline)) void op_fill(size_t n) { fill_n(n, (int)n); }
static __attribute__((noinline)) void op_move(size_t n) { move_n(n); }
sized_op ops[3] = {op_copy, op_fill, op_move};

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 300;
  static const size_t sizes[] = {1, 3, 8, 8, 8, 16, 24, 64, 64, 100, 128, 777, 4096};
  for (int i = 0; i < n; i++) {
    size_t sz = sizes[(i * (n % 7 + 1)) % 13];
    ops[i % 5 == 0 ? 2 : (i % 3 == 0)](sz);
    if (i % 4 == 0) copy_n(sz / 2 + 1);
  }
  printf("%d %d\n", dst[0], dst[100]);
  return 0;
}
