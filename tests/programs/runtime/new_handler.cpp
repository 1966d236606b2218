// operator new under the runtime keeps the C++ rules of the program's own libstdc++: the
// new-handler it installed runs on failure until it removes itself, then std::bad_alloc is
// thrown. The runtime finds both through weak references, as it needs no C++ library.
#include <cstdio>
#include <new>

static int calls = 0;
static void handler() {
  if (++calls == 3) std::set_new_handler(nullptr);
}

int main() {
  std::set_new_handler(handler);
  volatile size_t huge = size_t{1} << 62;
  try {
    void* p = ::operator new(huge);
    std::printf("got %p\n", p);
    return 1;
  } catch (const std::bad_alloc&) {
    std::printf("bad_alloc after %d handler calls\n", calls);
  }
  return 0;
}
