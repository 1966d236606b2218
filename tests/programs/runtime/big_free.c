// A large block the program touched in a few places. Prints the minor page faults its free
// took: the counters of its untouched granules are known to be zero without reading them
// (reading them faults each shadow page in: 2,048 pages for this 64 MiB block).
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static long minor_faults(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

int main(void) {
  const size_t size = (size_t)64 << 20;
  for (int round = 0; round < 2; round++) {  // the first free also makes the profile's tables
    char *volatile p = malloc(size);
    for (int i = 0; i < 5; i++) p[(size_t)i * (13 << 20) + 4096 * (size_t)round] += 1;
    p[size - 1] = 2;
    const long before = minor_faults();
    free(p);
    if (round == 1) printf("%ld\n", minor_faults() - before);
  }
  return 0;
}
