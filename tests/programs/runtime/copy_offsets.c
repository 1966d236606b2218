/* Copies, moves, sets and compares ranges of 1..72 bytes at every offset of a 64-byte
   granule, each in a fresh heap block: every way a short range meets the granules (inside
   one, across a boundary, ending just past one) is counted, and a miscount of any one
   shows in its context's total, minimum or maximum. */
#include <stdlib.h>
#include <string.h>
char *volatile sink;
volatile int order;
static char text[256];
#define SITE(name)                                                   \
  __attribute__((noinline, disable_tail_calls)) char *name(void) {   \
    char *p = malloc(160);                                           \
    sink = p;                                                        \
    return p;                                                        \
  }
SITE(for_memcpy)
SITE(for_memmove)
SITE(for_memset)
SITE(for_memcmp)
int main(void) {
  for (int i = 0; i < 256; ++i) text[i] = (char)i;
  for (int offset = 0; offset < 64; ++offset)
    for (int n = 1; n <= 72; ++n) {
      char *p = for_memcpy();
      memcpy(p + offset, text, (size_t)n);          /* one range: the block's */
      free(p);
      p = for_memmove();
      memmove(p + offset, text + offset, (size_t)n);
      free(p);
      p = for_memset();
      memset(p + offset, offset, (size_t)n);
      free(p);
      p = for_memcmp();
      order = memcmp(p + offset, text, (size_t)n); /* both ranges; the text's is not heap */
      free(p);
    }
  return 0;
}
