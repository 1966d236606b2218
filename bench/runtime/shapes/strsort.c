// 200 000 heap paths with a 23-byte common prefix sorted by qsort with strcmp, then looked up
// with bsearch: strcmp on heap strings, which the runtime counts (every byte it reads).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }
int main(void) {
  enum { N = 200000 };
  char** v = malloc(sizeof(char*) * N);
  unsigned long x = 12345;
  for (int i = 0; i < N; ++i) {
    char buf[64];
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    int n = snprintf(buf, sizeof buf, "/usr/share/doc/package-%lu/file-%lu.txt", x % 5000, x % 977);
    v[i] = malloc(n + 1); memcpy(v[i], buf, n + 1);
  }
  qsort(v, N, sizeof(char*), cmp);
  long found = 0;
  for (int i = 0; i < N; i += 3) found += bsearch(&v[i], v, N, sizeof(char*), cmp) != NULL;
  printf("%ld %s\n", found, v[N / 2]);
  for (int i = 0; i < N; ++i) free(v[i]);
  free(v);
}
