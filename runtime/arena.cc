// The runtime's memory: size-classed free lists over 1 MiB mmap chunks, one lock on slow
// paths only.
#include "runtime/arena.h"

#include <sys/mman.h>

#include <atomic>

#include "runtime/spin_lock.h"

namespace profkit::rt {

namespace {
SpinLock g_arena_lock;  // taken on slow paths only: new chunks, large blocks, fork
}  // namespace

namespace {
constexpr int kArenaClasses = 21;  // 64 B .. 64 MiB; larger goes straight to mmap
void* g_free_lists[kArenaClasses];
char* g_bump = nullptr;
size_t g_bump_left = 0;
std::atomic<uint64_t> g_in_use{0};
uint64_t g_chunks = 0;  // under g_arena_lock

int size_class(size_t size) {
  int c = 0;
  size_t s = 64;
  while (s < size) {
    s <<= 1;
    ++c;
  }
  return c;
}
// Class c's blocks are mappings of their own: more than kArenaOwnMappingAbove bytes.
bool own_mapping(int c) { return c >= kArenaClasses || (size_t{64} << c) >= kArenaChunk; }
}  // namespace

void* os_map(size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}
void* os_map_noreserve(size_t size) {
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}
void* os_map_largest(size_t* size, size_t min, bool accessible) {
  const int prot = accessible ? PROT_READ | PROT_WRITE : PROT_NONE;
  for (; *size >= min; *size /= 8) {
    void* p = mmap(nullptr, *size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) return p;
  }
  return nullptr;
}
void os_unmap(void* p, size_t size) { munmap(p, size); }

void* arena_alloc(size_t size) {
  const int c = size_class(size);
  if (own_mapping(c)) {
    void* big = os_map((size_t{64} << c));
    if (big != nullptr) g_in_use.fetch_add(size_t{64} << c, std::memory_order_relaxed);
    return big;
  }
  const size_t rounded = size_t{64} << c;
  g_in_use.fetch_add(rounded, std::memory_order_relaxed);
  g_arena_lock.lock();
  void* p = g_free_lists[c];
  if (p != nullptr) {
    g_free_lists[c] = *static_cast<void**>(p);
    g_arena_lock.unlock();
    __builtin_memset(p, 0, rounded);
    return p;
  }
  if (g_bump_left < rounded) {
    char* chunk = static_cast<char*>(os_map(kArenaChunk));
    if (chunk == nullptr) {
      g_arena_lock.unlock();
      g_in_use.fetch_sub(rounded, std::memory_order_relaxed);
      return nullptr;
    }
    g_chunks += kArenaChunk;
    g_bump = chunk;
    g_bump_left = kArenaChunk;
  }
  p = g_bump;
  g_bump += rounded;
  g_bump_left -= rounded;
  g_arena_lock.unlock();
  return p;
}

void arena_free(void* p, size_t size) {
  if (p == nullptr) return;
  const int c = size_class(size);
  g_in_use.fetch_sub(size_t{64} << c, std::memory_order_relaxed);
  if (own_mapping(c)) {
    os_unmap(p, size_t{64} << c);
    return;
  }
  g_arena_lock.lock();
  *static_cast<void**>(p) = g_free_lists[c];
  g_free_lists[c] = p;
  g_arena_lock.unlock();
}

void arena_usage(uint64_t* in_use, uint64_t* chunks) {
  *in_use = g_in_use.load(std::memory_order_relaxed);
  g_arena_lock.lock();
  *chunks = g_chunks;
  g_arena_lock.unlock();
}

void arena_lock_for_fork() { g_arena_lock.lock(); }
void arena_unlock_after_fork(bool child) {
  g_arena_lock.unlock_after_fork(child);
}

}  // namespace profkit::rt
