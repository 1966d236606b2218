// Allocation site inside a shared library (symbolized by build id with its own DWARF).
#include <cstdlib>
void *volatile lib_sink;
extern "C" __attribute__((noinline, disable_tail_calls)) char *lib_alloc(unsigned long n) {
  char *p = (char *)malloc(n);
  lib_sink = p;
  return p;
}
