// strdup of a 100-289 byte line (a buffer not on the heap) a million times, each copy freed:
// strdup reads its source and copies it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  static char line[300];
  memset(line, 'q', 299);
  long sum = 0;
  for (int r = 0; r < 1000000; ++r) { line[100 + r % 190] = 0; char* p = strdup(line); sum += p[5]; free(p); line[100 + r % 190] = 'q'; }
  printf("%ld\n", sum);
}
