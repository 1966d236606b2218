// calloc'd buffers of 1 KiB-512 KiB (a decoder's scratch tables), 30 000 of them, a few
// bytes of each used, freed at once or a few allocations later.
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  unsigned long x = 0x2545F4914F6CDD1Dul, sum = 0;
  char* held[8] = {0};
  for (int i = 0; i < 30000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const size_t n = (size_t)1024 << (x % 10);
    char* p = calloc(1, n);
    p[0] = 1;
    p[n / 2] = 2;
    sum += (unsigned char)p[n - 1] + (unsigned char)p[n / 3];
    const int slot = (int)((x >> 20) % 8);
    free(held[slot]);
    held[slot] = p;
  }
  for (int i = 0; i < 8; ++i) free(held[i]);
  printf("%lu\n", sum);
  return 0;
}
