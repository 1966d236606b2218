// A line scanner: 1 000 heap lines of 120 bytes, each searched 3 000 times with strchr for
// its first ',' (60-109 bytes in) and with strrchr for its last '/': the string searches the
// runtime counts (every byte they read) on heap strings.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  enum { N = 1000 };
  char* v[N];
  for (int i = 0; i < N; ++i) {
    v[i] = malloc(121);
    memset(v[i], 'k', 120);
    v[i][120] = '\0';
    v[i][60 + i % 50] = ',';
    v[i][10 + i % 30] = '/';
  }
  long sum = 0;
  for (int r = 0; r < 3000; ++r)
    for (int i = 0; i < N; ++i) sum += (strchr(v[i], ',') - v[i]) + (strrchr(v[i], '/') - v[i]);
  printf("%ld\n", sum);
  for (int i = 0; i < N; ++i) free(v[i]);
  return 0;
}
