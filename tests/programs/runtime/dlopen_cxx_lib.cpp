// A C++ plugin, loaded by a C program with RTLD_LOCAL (so its libstdc++ is not in the
// program's global scope): its operator new must still run its new-handler and throw
// std::bad_alloc on failure.
#include <cstddef>
#include <new>

static int calls = 0;
static void handler() {
  if (++calls == 2) std::set_new_handler(nullptr);
}

extern "C" int try_huge(void) {
  std::set_new_handler(handler);
  volatile std::size_t huge = std::size_t{1} << 62;
  try {
    void* p = ::operator new(huge);
    ::operator delete(p);
    return -1;
  } catch (const std::bad_alloc&) {
    return calls;
  }
}
