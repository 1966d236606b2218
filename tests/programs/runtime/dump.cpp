// Explicit __memprof_profile_dump / __memprof_profile_reset (spec A.9, A.11): two explicit
// dumps plus the exit dump; with an argument, a reset between them.
#include <cstdlib>
#include <sanitizer/memprof_interface.h>

void *volatile sink;

__attribute__((noinline, disable_tail_calls)) void phase(int n, size_t sz) {
  for (int i = 0; i < n; i++) {
    char *p = (char *)malloc(sz);
    sink = p;
    p[0] = 1;
    free(p);
  }
}

int main(int argc, char **argv) {
  phase(3, 24);
  __memprof_profile_dump();
  phase(5, 24);
  if (argc > 1)
    __memprof_profile_reset();
  phase(2, 72);
  __memprof_profile_dump();
  return 0;
}
