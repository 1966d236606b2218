// 4 M blocks (16-215 bytes) from eight contexts, all still live at exit: the exit profile
// records every one as if freed then.
#include <cstdio>
#include <cstdlib>
template <int N> __attribute__((noinline)) void* leaf(size_t n) { return N ? malloc(n) : calloc(1, n); }
__attribute__((noinline)) void* pick(int i, size_t n) {
  switch (i % 8) { case 0: return leaf<0>(n); case 1: return leaf<1>(n); case 2: return leaf<2>(n); case 3: return leaf<3>(n);
  case 4: return leaf<4>(n); case 5: return leaf<5>(n); case 6: return leaf<6>(n); default: return leaf<7>(n); }
}
int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 4000000;
  void** keep = (void**)malloc(sizeof(void*) * n);
  for (long i = 0; i < n; ++i) { keep[i] = pick(i, 16 + i % 200); ((char*)keep[i])[0] = 1; }
  printf("%p\n", keep[n / 2]);
}
