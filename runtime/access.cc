// Access recording entry points: the memory-intrinsic replacements and callbacks that
// instrumented code calls, the user-callable record functions, and the libc mem*/str*
// replacements that count the accesses libc makes on the program's behalf (as
// compiler-rt's interceptors do). Built with -fno-builtin so no loop here becomes a call
// to the function it implements.
#include <dlfcn.h>

// 1 (the default): the libc replacements below are exported. 0 for the library `profkit
// run` preloads into programs without instrumented code (runtime/CMakeLists.txt).
#ifndef PROFKIT_RT_LIBC_REPLACEMENTS
#define PROFKIT_RT_LIBC_REPLACEMENTS 1
#endif

#include "runtime/access.h"
#include "runtime/abi.h"
#include "runtime/base.h"
#include "runtime/globals.h"
#include "runtime/heap.h"
#include "runtime/shadow.h"
#include "runtime/thread_state.h"

#if PROFKIT_RT_LIBC_REPLACEMENTS
extern "C" {
PROFKIT_ABI void* memcpy(void* dst, const void* src, size_t n);
PROFKIT_ABI void* memmove(void* dst, const void* src, size_t n);
PROFKIT_ABI void* memset(void* dst, int c, size_t n);
PROFKIT_ABI int memcmp(const void* a, const void* b, size_t n);
PROFKIT_ABI void* memchr(const void* s, int c, size_t n);
PROFKIT_ABI size_t strlen(const char* s);
PROFKIT_ABI size_t strnlen(const char* s, size_t n);
PROFKIT_ABI char* strcpy(char* dst, const char* src);
PROFKIT_ABI char* strncpy(char* dst, const char* src, size_t n);
PROFKIT_ABI char* strcat(char* dst, const char* src);
PROFKIT_ABI char* strncat(char* dst, const char* src, size_t n);
PROFKIT_ABI int strcmp(const char* a, const char* b);
PROFKIT_ABI int strncmp(const char* a, const char* b, size_t n);
PROFKIT_ABI char* strchr(const char* s, int c);
PROFKIT_ABI char* strrchr(const char* s, int c);
}
#endif

namespace profkit::rt {
namespace {

struct LibcFunctions {
  void* (*memcpy)(void*, const void*, size_t);
  void* (*memmove)(void*, const void*, size_t);
  void* (*memset)(void*, int, size_t);
  int (*memcmp)(const void*, const void*, size_t);
  void* (*memchr)(const void*, int, size_t);
  size_t (*strlen)(const char*);
};
LibcFunctions g_libc;
std::atomic<int> g_libc_state{0};  // 0 = unresolved, 1 = resolving, 2 = resolved

// Resolves libc's implementations on first use. dlsym may allocate; our allocator never
// needs dlsym, so there is nothing to bootstrap. Until resolved, byte loops stand in.
PROFKIT_RT_NOINLINE void resolve_libc() {
  int expected = 0;
  if (tls_in_runtime != 0 || !g_libc_state.compare_exchange_strong(expected, 1)) return;
  RuntimeScope scope;
  LibcFunctions f{};
  f.memcpy = reinterpret_cast<decltype(f.memcpy)>(dlsym(RTLD_NEXT, "memcpy"));
  f.memmove = reinterpret_cast<decltype(f.memmove)>(dlsym(RTLD_NEXT, "memmove"));
  f.memset = reinterpret_cast<decltype(f.memset)>(dlsym(RTLD_NEXT, "memset"));
  f.memcmp = reinterpret_cast<decltype(f.memcmp)>(dlsym(RTLD_NEXT, "memcmp"));
  f.memchr = reinterpret_cast<decltype(f.memchr)>(dlsym(RTLD_NEXT, "memchr"));
  f.strlen = reinterpret_cast<decltype(f.strlen)>(dlsym(RTLD_NEXT, "strlen"));
  if (!f.memcpy || !f.memmove || !f.memset || !f.memcmp || !f.memchr || !f.strlen) {
    g_libc_state.store(0);  // try again later; fall back meanwhile
    return;
  }
  g_libc = f;
  g_libc_state.store(2, std::memory_order_release);
}

inline const LibcFunctions* libc() {
  if (PROFKIT_RT_LIKELY(g_libc_state.load(std::memory_order_acquire) == 2)) return &g_libc;
  resolve_libc();
  return g_libc_state.load(std::memory_order_acquire) == 2 ? &g_libc : nullptr;
}

// The stand-ins until libc's functions are resolved. Forward copies and fills use the
// string instructions, as fast as glibc's for most sizes on current CPUs: a process whose
// own code never calls one of the replaced functions (they are resolved at the first call
// from outside the runtime) has the runtime's internal copies and fills served here for
// its whole run.
void* copy_bytes(void* dst, const void* src, size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  auto* s = static_cast<const unsigned char*>(src);
  if (d < s || d >= s + n) {
    void* to = d;
    const void* from = s;
    asm volatile("rep movsb" : "+D"(to), "+S"(from), "+c"(n) : : "memory");
  } else {
    for (size_t i = n; i > 0; --i) d[i - 1] = s[i - 1];
  }
  return dst;
}

// libc's memcpy, memmove and memset before they are resolved (start-up), out of line so
// that the common path of the functions calling them is a jump.
PROFKIT_RT_NOINLINE void* unresolved_memcpy(void* d, const void* s, size_t n) {
  const LibcFunctions* f = libc();
  return f ? f->memcpy(d, s, n) : copy_bytes(d, s, n);
}
PROFKIT_RT_NOINLINE void* unresolved_memmove(void* d, const void* s, size_t n) {
  const LibcFunctions* f = libc();
  return f ? f->memmove(d, s, n) : copy_bytes(d, s, n);
}
PROFKIT_RT_NOINLINE void* unresolved_memset(void* d, int c, size_t n) {
  const LibcFunctions* f = libc();
  if (f) return f->memset(d, c, n);
  void* to = d;
  asm volatile("rep stosb" : "+D"(to), "+c"(n) : "a"(c) : "memory");
  return d;
}
inline bool libc_resolved() {
  return PROFKIT_RT_LIKELY(g_libc_state.load(std::memory_order_acquire) == 2);
}
void* real_memcpy(void* d, const void* s, size_t n) {
  return libc_resolved() ? g_libc.memcpy(d, s, n) : unresolved_memcpy(d, s, n);
}
size_t real_strlen(const char* s) {
  const LibcFunctions* f = libc();
  if (f) return f->strlen(s);
  size_t n = 0;
  while (s[n]) ++n;
  return n;
}
size_t bounded_strlen(const char* s, size_t limit) {
  const LibcFunctions* f = libc();
  if (f) {
    const void* z = f->memchr(s, 0, limit);
    return z ? static_cast<size_t>(static_cast<const char*>(z) - s) : limit;
  }
  size_t n = 0;
  while (n < limit && s[n]) ++n;
  return n;
}
void* real_memmove(void* d, const void* s, size_t n) {
  return libc_resolved() ? g_libc.memmove(d, s, n) : unresolved_memmove(d, s, n);
}
void* real_memset(void* d, int c, size_t n) {
  return libc_resolved() ? g_libc.memset(d, c, n) : unresolved_memset(d, c, n);
}

// Counts a range (n > 0) where it can be done inline; false, with nothing counted, when it
// needs record_range. Most copies and compares are of up to 64 bytes (SQLite's keys and
// cells, short strings): one or two counters, one access per 8 bytes, as record_range
// counts them in the u64 layout; its call was half the cost of counting such a range. The
// copying functions and memcmp below count both ranges with it and hand any other case to
// a function of their own by a tail call, so their common path calls nothing but libc's
// function, with a jump: no registers to save around a call (the pushes and pops around
// record_range's call were a sixth of their samples).
inline bool count_inline(const void* p, size_t n) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  if (!heap_may_hold(a)) return true;
  if (n > 64 || (g.histogram && !g.compat)) return false;
  // At most two granules. record_range's steps: ceil(the first granule's bytes / 8) in it,
  // the rest of the range, counted from where those steps end, in the next one. A range of
  // up to 64 bytes that crosses a granule boundary (a 37-byte SQLite key at offset 40) was
  // nine in ten of record_range's calls in SQLite's speed test.
  uint64_t* const s = shadow64(a);
  const uint64_t first = (64 - (a & 63) + 7) / 8;
  if (n <= first * 8) {
    *s += (n + 7) / 8;
  } else {
    s[0] += first;
    s[1] += (n - first * 8 + 7) / 8;
  }
  return true;
}
inline void count(const void* p, size_t n) {
  if (n != 0 && !count_inline(p, n)) record_range(reinterpret_cast<uintptr_t>(p), n);
}
inline bool shadow_ready() { return __memprof_shadow_memory_dynamic_address != 0; }

// The copying functions' other path: counts what count_inline left (`src_too`: the source
// as well as the destination), then copies.
template <void* (*Copy)(void*, const void*, size_t)>
PROFKIT_RT_NOINLINE void* count_and_copy(void* dst, const void* src, size_t n, bool src_too) {
  if (src_too) count(src, n);
  count(dst, n);
  return Copy(dst, src, n);
}
PROFKIT_RT_NOINLINE void* count_and_set(void* dst, int c, size_t n) {
  count(dst, n);
  return real_memset(dst, c, n);
}
// Counts the source and destination of a copy of n bytes, or hands the copy to
// count_and_copy; a macro so that its `return` is a tail call in the caller.
#define PROFKIT_COUNT_COPY(copy, dst, src, n)                                         \
  do {                                                                              \
    if ((n) != 0) {                                                                 \
      if (!count_inline(src, n)) return count_and_copy<copy>(dst, src, n, true);    \
      if (!count_inline(dst, n)) return count_and_copy<copy>(dst, src, n, false);   \
    }                                                                               \
  } while (0)

}  // namespace

size_t libc_strlen(const char* s) { return real_strlen(s); }
size_t libc_strnlen(const char* s, size_t limit) { return bounded_strlen(s, limit); }
void* libc_memcpy(void* d, const void* s, size_t n) { return real_memcpy(d, s, n); }

}  // namespace profkit::rt

using namespace profkit::rt;

// ---- called by instrumented code -----------------------------------------------------
void* __memprof_memcpy(void* dst, const void* src, uintptr_t size) {
  if (shadow_ready()) PROFKIT_COUNT_COPY(real_memcpy, dst, src, size);
  return real_memcpy(dst, src, size);
}
void* __memprof_memmove(void* dst, const void* src, uintptr_t size) {
  if (shadow_ready()) PROFKIT_COUNT_COPY(real_memmove, dst, src, size);
  return real_memmove(dst, src, size);
}
void* __memprof_memset(void* dst, int value, uintptr_t size) {
  if (shadow_ready() && size != 0 && !count_inline(dst, size)) return count_and_set(dst, value, size);
  return real_memset(dst, value, size);
}

void __memprof_record_access(const volatile void* addr) {
  const auto a = reinterpret_cast<uintptr_t>(addr);
  if (g.histogram && !g.compat) {
    uint8_t* c = shadow8(a);
    if (*c != 0xFF) ++*c;
  } else {
    ++*shadow64(a);
  }
}
void __memprof_record_access_range(const volatile void* addr, uintptr_t size) {
  record_range(reinterpret_cast<uintptr_t>(addr), size);
}
void __memprof_record_access_hist(const volatile void* addr) {
  uint8_t* c = shadow8(reinterpret_cast<uintptr_t>(addr));
  if (*c != 0xFF) ++*c;
}
void __memprof_record_access_range_hist(const volatile void* addr, uintptr_t size) {
  const auto a = reinterpret_cast<uintptr_t>(addr);
  for (uintptr_t p = a; p < a + size; p += 8) __memprof_record_access_hist(reinterpret_cast<void*>(p));
}
void __memprof_load(uintptr_t addr) { ++*shadow64(addr); }
void __memprof_store(uintptr_t addr) { ++*shadow64(addr); }
void __memprof_hist_load(uintptr_t addr) { __memprof_record_access_hist(reinterpret_cast<void*>(addr)); }
void __memprof_hist_store(uintptr_t addr) { __memprof_record_access_hist(reinterpret_cast<void*>(addr)); }
void __memprof_loadN(uintptr_t addr, uintptr_t size) { record_range(addr, size); }
void __memprof_storeN(uintptr_t addr, uintptr_t size) { record_range(addr, size); }

#if PROFKIT_RT_LIBC_REPLACEMENTS
// ---- libc replacements -----------------------------------------------------------------
// The counting versions: what the exported functions run in instrumented programs, and in
// any program until the runtime has started.
namespace profkit::rt {
namespace {
PROFKIT_RT_NOINLINE int unresolved_memcmp(const void* a, const void* b, size_t n) {
  const LibcFunctions* f = libc();
  if (f) return f->memcmp(a, b, n);
  auto* x = static_cast<const unsigned char*>(a);
  auto* y = static_cast<const unsigned char*>(b);
  for (size_t i = 0; i < n; ++i)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}
int real_memcmp(const void* a, const void* b, size_t n) {
  return libc_resolved() ? g_libc.memcmp(a, b, n) : unresolved_memcmp(a, b, n);
}

// Accesses made by libc for the program are counted only in instrumented programs, after
// start-up, and never for the runtime's own calls; and only in memory that may hold a tracked
// block (heap.h's map): no profile reads the counters of stacks and globals.
inline bool counting() { return g.count_libc_accesses && tls_in_runtime == 0; }
PROFKIT_RT_NOINLINE int count_and_compare(const void* a, const void* b, size_t n, bool a_too) {
  if (a_too) count(a, n);
  count(b, n);
  return real_memcmp(a, b, n);
}

void* counted_memcpy(void* dst, const void* src, size_t n) {
  if (counting()) PROFKIT_COUNT_COPY(real_memcpy, dst, src, n);
  return real_memcpy(dst, src, n);
}
void* counted_memmove(void* dst, const void* src, size_t n) {
  if (counting()) PROFKIT_COUNT_COPY(real_memmove, dst, src, n);
  return real_memmove(dst, src, n);
}
void* counted_memset(void* dst, int c, size_t n) {
  if (counting() && n != 0 && !count_inline(dst, n)) return count_and_set(dst, c, n);
  return real_memset(dst, c, n);
}
// As the copies: both ranges counted inline, else a tail call to count_and_compare.
int counted_memcmp(const void* a, const void* b, size_t n) {
  if (counting() && n != 0) {
    if (!count_inline(a, n)) return count_and_compare(a, b, n, true);
    if (!count_inline(b, n)) return count_and_compare(a, b, n, false);
  }
  return real_memcmp(a, b, n);
}
void* counted_memchr(const void* s, int c, size_t n) {
  const LibcFunctions* f = libc();
  void* r;
  if (f) {
    r = f->memchr(s, c, n);
  } else {
    r = nullptr;
    auto* p = static_cast<const unsigned char*>(s);
    for (size_t i = 0; i < n; ++i)
      if (p[i] == static_cast<unsigned char>(c)) {
        r = const_cast<unsigned char*>(p + i);
        break;
      }
  }
  if (counting()) count(s, r ? static_cast<size_t>(static_cast<char*>(r) - static_cast<const char*>(s)) + 1 : n);
  return r;
}
PROFKIT_RT_NOINLINE size_t count_strlen(const char* s) {
  const size_t n = real_strlen(s);
  if (counting()) count(s, n + 1);
  return n;
}
// A string no tracked block ever held (a literal appended to a std::string, the commonest
// call in C++ code) is never counted: straight to libc's by a jump, with no frame and no
// other test (the call, the frame and the thread-local test around libc's strlen were a
// third of the runtime's strlen cost in shared.cpp); the rest by a jump to count_strlen.
size_t counted_strlen(const char* s) {
  if (PROFKIT_RT_LIKELY(libc_resolved()) && !heap_may_hold(reinterpret_cast<uintptr_t>(s)))
    return g_libc.strlen(s);
  return count_strlen(s);
}
size_t counted_strnlen(const char* s, size_t limit) {
  const size_t n = bounded_strlen(s, limit);
  if (counting()) count(s, n < limit ? n + 1 : n);
  return n;
}
char* counted_strcpy(char* dst, const char* src) {
  const size_t n = real_strlen(src) + 1;
  if (counting()) {
    count(src, n);
    count(dst, n);
  }
  real_memcpy(dst, src, n);
  return dst;
}
char* counted_strncpy(char* dst, const char* src, size_t n) {
  const size_t len = bounded_strlen(src, n);
  if (counting()) {
    count(src, len < n ? len + 1 : n);
    count(dst, n);
  }
  real_memcpy(dst, src, len);
  if (len < n) real_memset(dst + len, 0, n - len);
  return dst;
}
char* counted_strcat(char* dst, const char* src) {
  const size_t d = real_strlen(dst), s = real_strlen(src) + 1;
  if (counting()) {
    count(dst, d + 1);
    count(src, s);
    count(dst + d, s);
  }
  real_memcpy(dst + d, src, s);
  return dst;
}
char* counted_strncat(char* dst, const char* src, size_t n) {
  const size_t d = real_strlen(dst), s = bounded_strlen(src, n);
  if (counting()) {
    count(dst, d + 1);
    count(src, s < n ? s + 1 : s);
    count(dst + d, s + 1);
  }
  real_memcpy(dst + d, src, s);
  dst[d + s] = '\0';
  return dst;
}
int counted_strcmp(const char* a, const char* b) {
  const size_t i = first_difference(a, b, SIZE_MAX);
  if (counting()) {
    count(a, i + 1);
    count(b, i + 1);
  }
  const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
  return x < y ? -1 : x > y ? 1 : 0;
}
int counted_strncmp(const char* a, const char* b, size_t n) {
  const size_t i = first_difference(a, b, n);
  if (counting()) {
    const size_t k = i < n ? i + 1 : n;
    count(a, k);
    count(b, k);
  }
  if (i == n) return 0;
  const auto x = static_cast<unsigned char>(a[i]), y = static_cast<unsigned char>(b[i]);
  return x < y ? -1 : x > y ? 1 : 0;
}
char* counted_strchr(const char* s, int c) {
  const char ch = static_cast<char>(c);
  const size_t i = first_of(s, ch);
  if (counting()) count(s, i + 1);
  return s[i] == ch ? const_cast<char*>(s + i) : nullptr;
}
char* counted_strrchr(const char* s, int c) {
  size_t last;
  const size_t n = last_of(s, static_cast<char>(c), &last);
  if (counting()) count(s, n + 1);
  return last == SIZE_MAX ? nullptr : const_cast<char*>(s + last);
}

// Where each exported replacement goes. Only instrumented programs count libc's accesses,
// so once the runtime has started in any other (allocation-only profiling, `profkit run`)
// they go straight to libc's own: one jump more than without the runtime. The exported
// functions are a single indirect jump (a leaf: no frame); the target is switched while
// other threads may be calling, hence the atomic (relaxed: either target is right).
struct Targets {
#define PROFKIT_LIBC_TARGET(ret, name, params) ret(*name) params;
#include "runtime/libc_replacements.def"
};
constinit Targets g_targets = {
#define PROFKIT_LIBC_TARGET(ret, name, params) counted_##name,
#include "runtime/libc_replacements.def"
};

template <class F>
inline F target(F* slot) {
  return __atomic_load_n(slot, __ATOMIC_RELAXED);
}

}  // namespace

void call_libc_directly() {
  if (g.count_libc_accesses) return;
#define PROFKIT_LIBC_TARGET(ret, name, params)                                        \
  if (void* f = dlsym(RTLD_NEXT, #name))                                              \
    __atomic_store_n(&g_targets.name, reinterpret_cast<decltype(g_targets.name)>(f), \
                     __ATOMIC_RELAXED);
#include "runtime/libc_replacements.def"
}

}  // namespace profkit::rt

void* memcpy(void* d, const void* s, size_t n) { return target(&g_targets.memcpy)(d, s, n); }
void* memmove(void* d, const void* s, size_t n) { return target(&g_targets.memmove)(d, s, n); }
void* memset(void* d, int c, size_t n) { return target(&g_targets.memset)(d, c, n); }
int memcmp(const void* a, const void* b, size_t n) { return target(&g_targets.memcmp)(a, b, n); }
void* memchr(const void* s, int c, size_t n) { return target(&g_targets.memchr)(s, c, n); }
size_t strlen(const char* s) { return target(&g_targets.strlen)(s); }
size_t strnlen(const char* s, size_t n) { return target(&g_targets.strnlen)(s, n); }
char* strcpy(char* d, const char* s) { return target(&g_targets.strcpy)(d, s); }
char* strncpy(char* d, const char* s, size_t n) { return target(&g_targets.strncpy)(d, s, n); }
char* strcat(char* d, const char* s) { return target(&g_targets.strcat)(d, s); }
char* strncat(char* d, const char* s, size_t n) { return target(&g_targets.strncat)(d, s, n); }
int strcmp(const char* a, const char* b) { return target(&g_targets.strcmp)(a, b); }
int strncmp(const char* a, const char* b, size_t n) { return target(&g_targets.strncmp)(a, b, n); }
char* strchr(const char* s, int c) { return target(&g_targets.strchr)(s, c); }
char* strrchr(const char* s, int c) { return target(&g_targets.strrchr)(s, c); }
#else
// The allocation-only build (lib/preload/): no libc function is replaced, so the program's
// calls go to libc's own without a jump through the runtime (docs/runtime.md, "Two builds
// of the library").
namespace profkit::rt {
void call_libc_directly() {}
}  // namespace profkit::rt
#endif
