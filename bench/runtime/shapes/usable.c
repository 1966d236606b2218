// A growable buffer that uses the allocator's slack: malloc, then malloc_usable_size to see
// how much fits, realloc only when that is full (as some string libraries do); 400 buffers
// grown to 1-64 KiB in 1-40 byte appends, 20 rounds.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  unsigned long x = 0xda942042e4dd58b5ul, sum = 0;
  for (int round = 0; round < 20; ++round) {
    char* bufs[400];
    for (int b = 0; b < 400; ++b) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      const size_t target = 1 + x % 65536;
      char* p = malloc(16);
      size_t len = 0, cap = malloc_usable_size(p);
      while (len < target) {
        const size_t add = 1 + (x >> 7) % 40;
        if (len + add > cap) {
          p = realloc(p, (len + add) * 3 / 2);
          cap = malloc_usable_size(p);
        }
        memset(p + len, 'a' + (int)(len % 26), add);
        len += add;
      }
      bufs[b] = p;
      sum += (unsigned char)p[len / 2];
    }
    for (int b = 0; b < 400; ++b) free(bufs[b]);
  }
  printf("%lu\n", sum);
  return 0;
}
