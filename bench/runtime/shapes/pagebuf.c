// I/O buffers: page-aligned blocks of 4-64 KiB (aligned_alloc, posix_memalign, valloc), 200
// 000 of them, filled in part and freed, 16 kept live in a ring.
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  unsigned long x = 0x853c49e6748fea9bul, sum = 0;
  void* ring[16] = {0};
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const size_t n = (size_t)4096 * (1 + x % 16);
    void* p = NULL;
    switch (i % 3) {
      case 0: p = aligned_alloc(4096, n); break;
      case 1: if (posix_memalign(&p, 4096, n) != 0) p = NULL; break;
      default: p = valloc(n); break;
    }
    if (p == NULL || ((unsigned long)p & 4095) != 0) return 1;
    memset(p, (int)i, 512);
    sum += ((unsigned char*)p)[100];
    free(ring[i % 16]);
    ring[i % 16] = p;
  }
  for (int i = 0; i < 16; ++i) free(ring[i]);
  printf("%lu\n", sum);
  return 0;
}
