/* Deep recursion for the stack walker's memo: 300 levels, allocating on the way down and on
 * the way back up, through three call sites chosen by depth, so that each walk is one
 * level deeper or shallower than the last and is cut at malloc_context_size frames; the
 * memo grows past its buffer and must be rebuilt. Frames differ only by which call site
 * the recursion took. */
#include <stdlib.h>
void *volatile sink;
__attribute__((noinline, disable_tail_calls)) void walk(int d);
__attribute__((noinline, disable_tail_calls)) void via_a(int d) { walk(d); }
__attribute__((noinline, disable_tail_calls)) void via_b(int d) { walk(d); }
__attribute__((noinline, disable_tail_calls)) void walk(int d) {
  void *down = malloc(16 + (size_t)(d % 7));
  sink = down;
  if (d > 0) {
    if (d % 3 == 0)
      via_a(d - 1);
    else if (d % 3 == 1)
      via_b(d - 1);
    else
      walk(d - 1);
  }
  void *up = malloc(24);
  sink = up;
  free(up);
  free(down);
}
int main(void) {
  for (int round = 0; round < 3; round++) walk(300);
  return 0;
}
