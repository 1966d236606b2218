// An ordinary, uninstrumented program (built with g++) for allocation-only mode: prints a
// line and exits with status 7, which profkit run must pass through unchanged.
#include <cstdio>
#include <cstdlib>
#include <string>

void *volatile sink;

__attribute__((noinline)) void *make_block(std::size_t n) {
  void *p = std::malloc(n);
  sink = p;
  return p;
}

int main() {
  for (int i = 0; i < 6; i++) std::free(make_block(40));
  void *leak = make_block(1000);
  sink = leak;
  std::string *s = new std::string(100, 'z');
  sink = s;
  delete s;
  std::printf("alloc-only done\n");
  return 7;
}
