/* One allocation wrapper called from 96 functions in a scrambled order (an xmalloc under
 * many callers): more paths through one leaf, at one depth, than a set of the exact-stack
 * cache has ways, and three quarters of all its ways. Each caller's context is
 * xalloc > c<three digits: 0-5, 0-3, 0-3> > main, with 1000 allocations of 16 bytes. */
#include <stdlib.h>

void *volatile sink;
__attribute__((noinline)) static void *xalloc(size_t n) {
  void *p = malloc(n);
  sink = p;
  return p;
}
#define C(n) \
  __attribute__((noinline, disable_tail_calls)) static void c##n(void) { free(xalloc(16)); }
#define C4(n) C(n##0) C(n##1) C(n##2) C(n##3)
#define C16(n) C4(n##0) C4(n##1) C4(n##2) C4(n##3)
C16(0) C16(1) C16(2) C16(3) C16(4) C16(5)
#define T(n) c##n,
#define T4(n) T(n##0) T(n##1) T(n##2) T(n##3)
#define T16(n) T4(n##0) T4(n##1) T4(n##2) T4(n##3)
static void (*const callers[])(void) = {T16(0) T16(1) T16(2) T16(3) T16(4) T16(5)};

int main(void) {
  const unsigned n = sizeof callers / sizeof callers[0];
  for (unsigned round = 0; round < 1000; round++)  /* each caller once, in an order of its own */
    for (unsigned j = 0; j < n; j++) callers[(j * 29 + round * 7) % n]();
  return 0;
}
