/* Allocation from a shared library: 5 blocks of 104 bytes, 2 accesses each. */
#include <stdlib.h>
char *lib_alloc(unsigned n);
__attribute__((noinline, disable_tail_calls)) char *via_lib(void) {
  char *p = lib_alloc(104);
  p[103] = 2;
  return p;
}
int main(void) {
  for (int i = 0; i < 5; i++) free(via_lib());
  return 0;
}
