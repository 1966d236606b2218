// What every file of the runtime shares: branch hints, the initial-exec TLS model, and
// glibc's allocator underneath. The runtime never reaches operator new, stdio or locale:
// memory comes from mmap (arena.h), output goes through write(2) (line_writer.h).
#pragma once

#include <stddef.h>
#include <stdint.h>

#define PROFKIT_RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROFKIT_RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PROFKIT_RT_NOINLINE __attribute__((noinline))
#define PROFKIT_RT_ALWAYS_INLINE __attribute__((always_inline))
#define PROFKIT_RT_TLS __attribute__((tls_model("initial-exec")))
#define PROFKIT_RT_HIDDEN __attribute__((visibility("hidden")))

// glibc's allocator, used underneath (docs/runtime.md says why). Exported by libc.so.6
// under these names, so no dlsym (and no bootstrap pool) is needed to reach it.
extern "C" void* __libc_malloc(size_t size);
extern "C" void* __libc_calloc(size_t count, size_t size);
extern "C" void __libc_free(void* p);
extern "C" void* __libc_realloc(void* p, size_t size);
