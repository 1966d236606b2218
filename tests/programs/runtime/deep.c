/* 41-deep recursion: the recorded stack stops at malloc_context_size frames. */
#include <stdlib.h>
void *volatile sink;
__attribute__((noinline, disable_tail_calls)) void *rec(int d) {
  void *r;
  if (d == 0) { r = malloc(24); } else { r = rec(d - 1); }
  sink = r;
  return r;
}
int main(void) { free(rec(40)); return 0; }
