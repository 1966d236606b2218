// realloc chains and every aligned entry point, one or two stores per block. Sizes are
// multiples of 8 but not of 32, so compiler-rt's counts do not depend on its chunk layout
// (its one-past-the-end granule and partial shadow clearing, spec A.6/A.7.2).
#include <cstdlib>
#include <malloc.h>
#include <new>

void *volatile sink;

__attribute__((noinline, disable_tail_calls)) char *grow_chain() {
  char *p = (char *)malloc(24);
  p[0] = 1;
  for (int i = 2; i <= 6; i++) {
    const size_t n = ((size_t)16 << i) - 8;  // 56, 120, 248, 504, 1016
    p = (char *)realloc(p, n);
    p[n - 1] = 1;
  }
  return p;
}

int main() {
  for (int k = 0; k < 3; k++) free(grow_chain());
  void *a = aligned_alloc(256, 512);
  sink = a;
  ((char *)a)[0] = 1;
  free(a);
  void *b = nullptr;
  if (posix_memalign(&b, 4096, 104) != 0) return 1;
  sink = b;
  ((char *)b)[103] = 1;
  free(b);
  void *c = memalign(128, 72);
  sink = c;
  ((char *)c)[0] = 1;
  ((char *)c)[8] = 1;
  free(c);
  char *w = (char *)::operator new(72, std::align_val_t(256));
  sink = w;
  w[0] = 1;
  ::operator delete(w, std::align_val_t(256));
  char *v = (char *)valloc(312);
  sink = v;
  v[0] = 1;
  free(v);
  // Alignment is honoured (the volatile round trip keeps the compiler from assuming it).
  void *volatile check = a;
  if (((unsigned long)check & 255) || ((unsigned long)b & 4095) || ((unsigned long)c & 127) ||
      ((unsigned long)w & 255) || ((unsigned long)v & 4095))
    return 2;
  return 0;
}
