/* A shared library that allocates on behalf of the program. */
#include <stdlib.h>
__attribute__((noinline, disable_tail_calls)) char *lib_alloc(unsigned n) {
  char *p = malloc(n);
  p[0] = 1;
  return p;
}
