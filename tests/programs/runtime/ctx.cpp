// One allocation site (operator new[] in helper) reached from a cold and a hot context
// (spec Appendix Y); profile use must give the same !memprof metadata from either runtime.
#include <unistd.h>
#include <cstddef>

void *volatile sink;

__attribute__((noinline, disable_tail_calls)) char *helper(size_t n) {
  char *p = new char[n];
  sink = p;
  return p;
}

__attribute__((noinline, disable_tail_calls)) void cold_user() {
  for (int i = 0; i < 3; i++) {
    char *p = helper(4096);
    usleep(100000);   // ~100 ms lifetime, never touched
    delete[] p;
  }
}

__attribute__((noinline, disable_tail_calls)) void hot_user() {
  for (int i = 0; i < 1000; i++) {
    char *p = helper(32);
    for (int j = 0; j < 32; j++) p[j] = (char)j;
    delete[] p;
  }
}

int main() {
  cold_user();
  hot_user();
  return 0;
}
