// Allocates one block and prints how many KiB of its anonymous memory are on transparent
// huge pages: a program that makes a few blocks should not pay for the kernel zeroing
// 2 MiB pages for the profiler's tables (most machines give huge pages unasked).
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  char *volatile p = malloc(100);
  p[0] = 1;
  free(p);
  FILE *f = fopen("/proc/self/smaps", "r");
  if (f == NULL) return 3;
  char line[512];
  long total = 0, kb;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) total += kb;
  fclose(f);
  printf("%ld\n", total);
  return 0;
}
