// Deterministic allocation patterns: malloc/free loop, never-freed block, new/delete,
// calloc+realloc, inlined wrapper, recursion, a memset block living ~50 ms.
#include <cstdlib>
#include <cstring>
#include <unistd.h>

void *volatile sink;      // defeats heap-allocation elision
void *volatile keep_live; // long-lived object, never freed

__attribute__((noinline, disable_tail_calls)) char *alloc_short(size_t n) {
  char *p = (char *)malloc(n);
  sink = p;
  return p;
}

static inline __attribute__((always_inline)) int *inline_wrapper(size_t n) {
  int *p = new int[n];
  sink = p;
  return p;
}

__attribute__((noinline, disable_tail_calls)) int *make_via_inline(size_t n) {
  int *r = inline_wrapper(n);
  sink = r;
  return r;
}

__attribute__((noinline, disable_tail_calls)) void *recurse(int depth) {
  void *r;
  if (depth == 0)
    r = malloc(48);
  else
    r = recurse(depth - 1);
  sink = r;
  return r;
}

struct Obj { long a[8]; };

int main() {
  // 1. 100 x malloc(32), 8 byte stores each
  for (int i = 0; i < 100; i++) {
    char *p = alloc_short(32);
    for (int j = 0; j < 8; j++) p[j * 4] = (char)j;
    free(p);
  }
  // 2. long-lived, never freed: one malloc(4096)
  keep_live = malloc(4096);
  // 3. new/delete of Obj (64 bytes), 10 times, one store each
  for (int i = 0; i < 10; i++) {
    Obj *o = new Obj;
    sink = o;
    o->a[0] = i;
    delete o;
  }
  // 4. calloc(16, 8) then realloc to 256
  char *c = (char *)calloc(16, 8);
  sink = c;
  c[0] = 1;
  c = (char *)realloc(c, 256);
  sink = c;
  c[200] = 2;
  free(c);
  // 5. inlined wrapper (new int[20] = 80 bytes), 5 times
  for (int i = 0; i < 5; i++) {
    int *a = make_via_inline(20);
    a[3] = i;
    delete[] a;
  }
  // 6. recursive allocation at depth 3
  void *r = recurse(3);
  ((char *)r)[0] = 1;
  free(r);
  // 7. 1000-byte object living ~50 ms, filled by memset (125 recorded accesses)
  char *ll = (char *)malloc(1000);
  sink = ll;
  memset(ll, 0, 1000);
  usleep(50000);
  free(ll);
  return 0;
}
