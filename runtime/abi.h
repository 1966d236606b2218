// The runtime's ABI: every symbol that clang -fmemory-profile objects (LLVM 14 and 22)
// reference or that users call, spelled as LLVM spells them (docs/formats/memprof.md A.2). Matches the
// compiler-rt memprof runtime of LLVM 22 (raw profile version 5); LLVM 14 objects reference
// a subset of the same names (checked with nm -u on clang-14 and clang-22 objects).
#pragma once

#include <stddef.h>
#include <stdint.h>

#define PROFKIT_ABI extern "C" __attribute__((visibility("default")))
#define PROFKIT_ABI_WEAK extern "C" __attribute__((visibility("default"), weak))

// A.2.1: referenced by instrumented code.
PROFKIT_ABI uintptr_t __memprof_shadow_memory_dynamic_address;  // valid before any ctor
PROFKIT_ABI void __memprof_init(void);
PROFKIT_ABI void __memprof_preinit(void);
PROFKIT_ABI void __memprof_version_mismatch_check_v1(void);
PROFKIT_ABI void* __memprof_memcpy(void* dst, const void* src, uintptr_t size);
PROFKIT_ABI void* __memprof_memmove(void* dst, const void* src, uintptr_t size);
PROFKIT_ABI void* __memprof_memset(void* dst, int value, uintptr_t size);
PROFKIT_ABI void __memprof_load(uintptr_t addr);   // -mllvm -memprof-use-callbacks
PROFKIT_ABI void __memprof_store(uintptr_t addr);
PROFKIT_ABI void __memprof_hist_load(uintptr_t addr);   // callbacks + histogram (LLVM 22)
PROFKIT_ABI void __memprof_hist_store(uintptr_t addr);
// LLVM 14 declares these but never calls them; defined so no link can fail on them.
PROFKIT_ABI void __memprof_loadN(uintptr_t addr, uintptr_t size);
PROFKIT_ABI void __memprof_storeN(uintptr_t addr, uintptr_t size);

// A.2.2: emitted by the compiler in every instrumented module; weak defaults here.
PROFKIT_ABI_WEAK const char __memprof_profile_filename[1];
PROFKIT_ABI_WEAK const bool __memprof_histogram;
PROFKIT_ABI_WEAK const char __memprof_default_options_str[1];

// A.2.3: interface for users (sanitizer/memprof_interface.h).
PROFKIT_ABI int __memprof_profile_dump(void);
PROFKIT_ABI void __memprof_profile_reset(void);
PROFKIT_ABI_WEAK const char* __memprof_default_options(void);
PROFKIT_ABI void __memprof_record_access(const volatile void* addr);
PROFKIT_ABI void __memprof_record_access_range(const volatile void* addr, uintptr_t size);
PROFKIT_ABI void __memprof_record_access_hist(const volatile void* addr);
PROFKIT_ABI void __memprof_record_access_range_hist(const volatile void* addr, uintptr_t size);
PROFKIT_ABI void __memprof_print_accumulated_stats(void);
PROFKIT_ABI int __memprof_rt_version;
PROFKIT_ABI void __sanitizer_set_report_path(const char* path);
PROFKIT_ABI size_t __sanitizer_get_allocated_size(const volatile void* p);
PROFKIT_ABI int __sanitizer_get_ownership(const volatile void* p);

// A.2.3: allocation entry points (malloc family; operator new/delete live in
// alloc.cc). noexcept matches glibc's C++ declarations (__THROW), so stdlib.h may be
// included beside this header. mallopt, mallinfo, malloc_stats and malloc_trim are left to
// glibc, whose allocator sits underneath (compiler-rt stubs them out).
PROFKIT_ABI void* malloc(size_t size) noexcept;
PROFKIT_ABI void free(void* p) noexcept;
PROFKIT_ABI void cfree(void* p) noexcept;
PROFKIT_ABI void* calloc(size_t count, size_t size) noexcept;
PROFKIT_ABI void* realloc(void* p, size_t size) noexcept;
PROFKIT_ABI void* reallocarray(void* p, size_t count, size_t size) noexcept;
PROFKIT_ABI void* memalign(size_t alignment, size_t size) noexcept;
PROFKIT_ABI void* __libc_memalign(size_t alignment, size_t size) noexcept;
PROFKIT_ABI void* aligned_alloc(size_t alignment, size_t size) noexcept;
PROFKIT_ABI int posix_memalign(void** out, size_t alignment, size_t size) noexcept;
PROFKIT_ABI void* valloc(size_t size) noexcept;
PROFKIT_ABI void* pvalloc(size_t size) noexcept;
PROFKIT_ABI size_t malloc_usable_size(void* p) noexcept;
PROFKIT_ABI char* strdup(const char* s) noexcept;
PROFKIT_ABI char* __strdup(const char* s) noexcept;
PROFKIT_ABI char* strndup(const char* s, size_t n) noexcept;
PROFKIT_ABI char* __strndup(const char* s, size_t n) noexcept;

// libc mem*/str* functions are also replaced (access.cc) so that their accesses to heap
// memory are counted, as compiler-rt's interceptors do; their declarations stay in
// access.cc because glibc's C++ overloads of strchr & co. conflict with plain C ones.
