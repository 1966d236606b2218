/* One allocation context whose blocks are partly freed and partly live at exit: 4 blocks
   of 40 bytes, 2 stores each; blocks 0 and 2 are freed, 1 and 3 are kept in `kept`. */
#include <stdlib.h>
char *volatile kept[4];
__attribute__((noinline)) char *mk(unsigned n) {
  char *p = malloc(n);
  p[1] = 0;
  return p;
}
int main(void) {
  for (int i = 0; i < 4; i++) {
    char *p = mk(40);
    p[0] = 1;
    if (i % 2 == 0)
      free(p);
    else
      kept[i] = p;
  }
  return 0;
}
