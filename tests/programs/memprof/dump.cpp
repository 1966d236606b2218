// Exercises the profile dump interface: two explicit dumps plus the exit dump.
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
  phase(3, 16);
  __memprof_profile_dump();
  phase(5, 16);
  if (argc > 1)
    __memprof_profile_reset();   // closes the file; next write reopens it
  phase(2, 64);
  __memprof_profile_dump();
  return 0;
}
