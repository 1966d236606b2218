// Large work buffers of sizes spread over many page classes (64 KiB to 4 MiB at random,
// 16 live at a time, one byte written per page), then a buffer grown by realloc to 32 MiB,
// as a compressor's or an image decoder's buffers are. Page faults dominate under every
// runtime: each one's policy for freed large blocks (kept or given back) is what differs.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned s = 1;
static unsigned rnd(unsigned b) {
  s = s * 1103515245u + 12345u;
  return (s >> 8) % b;
}

int main(void) {
  long sum = 0;
  char* keep[16] = {0};
  for (int i = 0; i < 4000; i++) {
    const size_t n = 65536 + rnd(4u << 20);
    char* p = malloc(n);
    if (p == NULL) return 1;
    for (size_t k = 0; k < n; k += 4096) p[k] = (char)k;
    sum += p[n / 2];
    const unsigned slot = rnd(16);
    free(keep[slot]);
    keep[slot] = p;
  }
  for (int r = 0; r < 10; r++) {
    size_t cap = 4096, len = 0;
    char* b = malloc(cap);
    while (len < (32u << 20)) {
      if (len + 65536 > cap) {
        while (len + 65536 > cap) cap *= 2;
        b = realloc(b, cap);
        if (b == NULL) return 1;
      }
      memset(b + len, r, 65536);
      len += 65536;
    }
    sum += b[len - 1];
    free(b);
  }
  for (int i = 0; i < 16; i++) free(keep[i]);
  printf("%ld\n", sum);
  return 0;
}
