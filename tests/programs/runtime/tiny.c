/* One allocation site behind a non-inlined wrapper (spec Appendix Y). 4 blocks of 40
   bytes, 4 accesses each: p[1] in mk, p[0], p[8], p[39] in main. */
#include <stdlib.h>
__attribute__((noinline)) char *mk(unsigned n) {
  char *p = malloc(n);
  p[1] = 0;
  return p;
}
int main(void) {
  for (int i = 0; i < 4; i++) {
    char *p = mk(40);
    p[0] = 1; p[8] = 2; p[39] = 3;
    free(p);
  }
  return 0;
}
