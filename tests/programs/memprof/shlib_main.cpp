// PIE executable calling an allocation site in a shared library (shlib.cpp).
#include <cstdlib>
extern "C" char *lib_alloc(unsigned long n);

int main() {
  for (int i = 0; i < 3; i++) {
    char *p = lib_alloc(100);
    p[0] = 1;
    free(p);
  }
  return 0;
}
