// Allocates one block and prints how many KiB of its anonymous memory are on transparent
// huge pages, then its resident set (VmRSS) in KiB: a program that makes a few blocks
// should neither pay for the kernel zeroing 2 MiB pages for the profiler's tables (most
// machines give huge pages unasked) nor for tables touched before they are needed (a
// 32 MiB one zeroed at load time made every process 32 MiB larger).
#include <stdio.h>
#include <stdlib.h>

// The sum of the `key` lines' numbers (kB) in /proc/self/`file`, or -1.
static long proc_kib(const char *file, const char *key) {
  char path[64], line[512], format[64];
  snprintf(path, sizeof path, "/proc/self/%s", file);
  snprintf(format, sizeof format, "%s: %%ld kB", key);
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  long total = 0, kb;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, format, &kb) == 1) total += kb;
  fclose(f);
  return total;
}

int main(void) {
  char *volatile p = malloc(100);
  p[0] = 1;
  free(p);
  const long huge = proc_kib("smaps", "AnonHugePages"), resident = proc_kib("status", "VmRSS");
  printf("%ld %ld\n", huge, resident);
  return huge < 0 || resident <= 0 ? 3 : 0;
}
