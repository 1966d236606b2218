// Blocks grown by realloc far past the runtime's small classes, as a growing array or a
// string builder grows, and large calloc blocks. Prints how many MiB became resident when a
// 256 MiB block, of which one page was touched, grew by 1 MiB (a new block and a copy make
// every page resident, glibc's realloc, growing in place or moving the pages, none), and
// when a 1 GiB calloc block was made and one byte of it written (glibc's calloc: none).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long resident_pages(void) {
  long size = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f == NULL || fscanf(f, "%ld %ld", &size, &resident) != 2) exit(3);
  fclose(f);
  return resident;
}

char *volatile sink;  // keeps the compiler from removing allocations it can see through
static uintptr_t alignment = 16;  // argv[1]: what to check (64: the full profile's blocks)

__attribute__((noinline, disable_tail_calls)) char *grow_chain(void) {
  char *p = malloc(40008);
  p[0] = 1;
  size_t old = 40008;
  for (int i = 1; i <= 4; i++) {
    const size_t n = ((size_t)40000 << i) + 8;  // 80008 .. 640008
    p = realloc(p, n);
    if (((uintptr_t)p & (alignment - 1)) != 0) exit(6);
    if (p[0] != 1 || (i > 1 && p[old - 1] != 1)) exit(4);  // the contents moved along
    p[n - 1] = 1;
    old = n;
  }
  return p;
}

int main(int argc, char **argv) {
  if (argc > 1) alignment = strtoul(argv[1], NULL, 10);
  for (int k = 0; k < 3; k++) free(grow_chain());
  // An over-aligned block keeps its contents too (its header sits further from glibc's).
  void *a = NULL;
  if (posix_memalign(&a, 4096, 50000) != 0) return 7;
  ((char *)a)[49999] = 9;
  a = realloc(a, 300008);
  if (((char *)a)[49999] != 9 || ((uintptr_t)a & (alignment - 1)) != 0) return 8;
  free(a);
  const size_t big = (size_t)256 << 20;
  char *b = malloc(big);
  b[0] = 7;
  const long before = resident_pages();
  b = realloc(b, big + ((size_t)1 << 20));
  const long after = resident_pages();
  if (b[0] != 7) return 5;
  free(b);
  // A calloc block that reuses a freed one reads as zeros.
  const size_t eight = (size_t)8 << 20;
  sink = malloc(eight);
  memset(sink, 0xff, eight);
  free(sink);
  sink = calloc(1, eight);
  for (size_t i = 0; i < eight; i++)
    if (sink[i] != 0) return 9;
  free(sink);
  const long before_calloc = resident_pages();
  sink = calloc(1, (size_t)1 << 30);
  sink[12345] = 1;
  const long after_calloc = resident_pages();
  free(sink);
  printf("%ld %ld\n", (after - before) * 4096 / (1 << 20),
         (after_calloc - before_calloc) * 4096 / (1 << 20));
  return 0;
}
