// The "floor" runtime of the runtime benchmarks (run.sh, real.sh): what a -fmemory-profile
// program costs with no heap profiler at all. It defines the symbols instrumented code
// references and reserves the shadow as the real runtimes do (1/8 of the 47-bit address
// space, MAP_NORESERVE, no huge pages), so the inline counter updates compiled into the
// program land in memory and cost what they cost under any runtime. Nothing else: malloc
// and the mem*/str* functions stay glibc's, nothing is recorded or written. A runtime's own
// cost is then its time above this floor.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

uintptr_t __memprof_shadow_memory_dynamic_address;

static void reserve_shadow(void) {
  if (__memprof_shadow_memory_dynamic_address) return;
  const size_t size = ((size_t)1 << 47) >> 3;
  void* base = mmap(NULL, size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    static const char msg[] = "floor_rt: cannot reserve the shadow memory\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
  }
  madvise(base, size, MADV_NOHUGEPAGE);
  __memprof_shadow_memory_dynamic_address = (uintptr_t)base;
}

// Runs before the instrumented modules' constructors (a library's constructors run before
// those of the objects that link it); __memprof_init covers a static link as well.
__attribute__((constructor)) static void floor_start(void) { reserve_shadow(); }

void __memprof_init(void) { reserve_shadow(); }
void __memprof_preinit(void) { reserve_shadow(); }
void __memprof_version_mismatch_check_v1(void) {}

// Instrumented code calls these for memcpy/memmove/memset intrinsics; the real runtimes
// also count the bytes touched, which is their own cost.
void* __memprof_memcpy(void* dst, const void* src, uintptr_t size) { return memcpy(dst, src, size); }
void* __memprof_memmove(void* dst, const void* src, uintptr_t size) { return memmove(dst, src, size); }
void* __memprof_memset(void* dst, int value, uintptr_t size) { return memset(dst, value, size); }

// Callbacks (-mllvm -memprof-use-callbacks) and LLVM 14's declared-only entry points, so
// that any instrumented object links; the benchmarks use the inline updates.
void __memprof_load(uintptr_t addr) { (void)addr; }
void __memprof_store(uintptr_t addr) { (void)addr; }
void __memprof_hist_load(uintptr_t addr) { (void)addr; }
void __memprof_hist_store(uintptr_t addr) { (void)addr; }
void __memprof_loadN(uintptr_t addr, uintptr_t size) { (void)addr, (void)size; }
void __memprof_storeN(uintptr_t addr, uintptr_t size) { (void)addr, (void)size; }
